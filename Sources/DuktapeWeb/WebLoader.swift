import Foundation
import Logging

/// LWWebLoader in Swift: requests made by a headless page running `loader.html`, so that they
/// go through the page's `fetch` (its policy, cookies-free same-origin requests, redirects,
/// decompression) and its results come back through the `bridge` message handler.
///
/// ```swift
/// let loader = WebLoader()
/// let body = WebLoader.body(url: URL(string: "http://127.0.0.1:8080/items.json"), method: .getData)
/// loader.evaluate(body) { response, error in
///     if case .json(let items) = response.type { print(items) }
/// }
/// let file = try await loader.evaluate(WebLoader.body(url: bigFileURL, method: .downloadStream))
/// for try await message in loader.stream(WebLoader.body(url: bigFileURL, method: .downloadStream)) {
///     if case .streaming(let progress) = message.type { print(progress ?? 0) }
/// }
/// ```
///
/// The loader keeps one page per origin (scheme, host and port), loaded with `loader.html` at
/// that origin, as LWWebLoader does; unlike the original, any number of requests may run on
/// one page at once: each message carries its `requestId`, and the loader routes it to its own
/// request. Every request ends in exactly one terminal message (`json`, `plainText`, `data`,
/// `streamEnd` or `error`), also when it is cancelled, times out, or its page fails.
/// Arguments reach the page as values (`callAsyncJavaScript`), never spliced into source.
public final class WebLoader: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`.

    /// The loader's configuration.
    ///
    /// ```swift
    /// print(loader.configuration.timeout ?? "no timeout")
    /// ```
    public let configuration: WebLoaderConfiguration
    private let lock = NSLock()
    private var pages: [String: PooledPage] = [:]
    private var transfers: [String: LoaderTransfer] = [:]
    /// The transfers counted as running on a pooled page (see `claim`).
    private var claimed: [ObjectIdentifier: String] = [:]
    private var closed = false
    /// The WebSocket page (`wsStart`), or the task making it.
    private var socketPage: Task<LoaderSocket, any Error>?
    /// The loader's own tasks (its requests' starts, aborts, and pages shutting down), which
    /// `shutdown()` waits for.
    let activity = ActivityCount()

    /// A loader; its pages are made on first use.
    ///
    /// ```swift
    /// let loader = WebLoader()
    /// ```
    public init(configuration: WebLoaderConfiguration = WebLoaderConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        close()
    }

    /// A request (LWWebLoader's `bodyWithURLString:method:methodArguments:userAgent:contentType:postData:uploadData:`),
    /// with more request headers if `headers` has some (`userAgent` and `contentType` win over
    /// entries of the same names). A nil or non-http(s) `url` makes a request that fails with
    /// `WebLoaderError.invalidRequest`, naming what was given.
    ///
    /// ```swift
    /// let upload = WebLoader.body(url: url, method: .uploadData, postData: ["filename": "a.bin", "album": "x"],
    ///                             uploadData: bytes, headers: ["X-Album-Key": "k1"])
    /// ```
    public static func body(
        url: URL?, method: WebLoaderMethod, methodArguments: String? = nil, userAgent: String? = nil,
        contentType: String? = nil, postData: [String: Any]? = nil, uploadData: Data? = nil, headers: [String: String] = [:]
    ) -> WebLoaderRequest {
        WebLoaderRequest(url: url, method: method, methodArguments: methodArguments, userAgent: userAgent,
                         contentType: contentType, postData: postData, uploadData: uploadData, headers: headers)
    }

    // MARK: - Running requests

    /// Runs `body`, calling `completionHandler` with each of its messages (LWWebLoader's
    /// `evaluateWithBody:dataLoadCompletionHandler:`): one for a one-shot method; `streamStart`,
    /// `streaming`… and `streamEnd` for a stream. The last call is the terminal message; with an
    /// `.error` message, the error (a `WebLoaderError`) is given too.
    ///
    /// Calls are made one at a time for a request, in order, in the handler's isolation, as
    /// `Task` runs its closure: a `@MainActor` closure is called on the main actor (where
    /// WebKit and LWWebLoader call theirs), so it may update a view model or a controller; a
    /// closure isolated to an actor is called on that actor; a nonisolated one on the global
    /// executor (LWWebLoader users on Swift 6: write `{ @MainActor response, error in … }`).
    ///
    /// ```swift
    /// @MainActor final class ItemsController {
    ///     var items: [Any] = []
    ///     func load(with loader: WebLoader, from url: URL) {
    ///         loader.evaluate(WebLoader.body(url: url, method: .getData)) { @MainActor response, error in
    ///             if case .json(let value) = response.type { self.items = value as? [Any] ?? [] }
    ///         }
    ///     }
    /// }
    /// ```
    public func evaluate(
        _ body: WebLoaderRequest, completionHandler: @escaping @isolated(any) @Sendable (WebLoaderResponse, (any Error)?) -> Void
    ) {
        let directory = body.streamDirectory ?? configuration.streamDirectory
        let transfer = LoaderTransfer(request: body, directory: directory, httpErrorsFail: configuration.httpErrorsFail, onEnd: { [weak self] ended in
            self?.forget(ended)
        }, handler: completionHandler)
        let refusal = lock.withLock { () -> String? in
            if closed { return "the loader is closed" }
            if let running = transfers[body.requestID], !running.isEnded {
                return "a request with the id \(body.requestID) is already running"
            }
            transfers[body.requestID] = transfer
            return nil
        }
        if let refusal {
            // Not registered: the terminal goes to the handler without touching the running one.
            LoaderTransfer(request: body, directory: directory, handler: completionHandler)
                .fail(.invalidRequest(requestID: body.requestID, url: body.url, reason: refusal))
            return
        }
        activity.task { await self.start(transfer) }
    }

    /// Runs a one-shot request and returns its terminal message (for `downloadStream`, the
    /// `streamEnd` with the file). Throws the `WebLoaderError` of a failed request. Cancelling
    /// the calling task cancels the request.
    ///
    /// ```swift
    /// let response = try await loader.evaluate(WebLoader.body(url: url, method: .getData))
    /// ```
    public func evaluate(_ body: WebLoaderRequest) async throws -> WebLoaderResponse {
        let outcome = Outcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.set(continuation)
                evaluate(body) { response, error in
                    guard response.isTerminal else { return }
                    if let error { outcome.resume(throwing: error) } else { outcome.resume(returning: response) }
                }
                // Cancelled before the request was registered: the handler below came too early.
                if Task.isCancelled { cancel(requestID: body.requestID) }
            }
        } onCancel: {
            cancel(requestID: body.requestID)
        }
    }

    /// Runs `body` and gives its messages as an asynchronous sequence that ends after the
    /// terminal one (and throws the error of a failed request). Ending the iteration early
    /// cancels the request (its file is removed) once the loop's iterator is gone: at once in a
    /// function; at the top level of `main.swift`, Swift keeps the iterator until the program
    /// ends, so call `cancel(requestID:)` before leaving such a loop.
    ///
    /// ```swift
    /// for try await message in loader.stream(body) {
    ///     if case .streamEnd(let file) = message.type { print(file) }
    /// }
    /// ```
    public func stream(_ body: WebLoaderRequest) -> AsyncThrowingStream<WebLoaderResponse, any Error> {
        AsyncThrowingStream { continuation in
            continuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.cancel(requestID: body.requestID) }
            }
            evaluate(body) { response, error in
                if let error {
                    continuation.finish(throwing: error)
                    return
                }
                if case .terminated = continuation.yield(response), case .streamEnd(let file) = response.type {
                    // Nobody is left to take it. unlink(2): a file or link at that path, never a
                    // directory someone put there since.
                    _ = Foundation.unlink(file.path)
                }
                if response.isTerminal { continuation.finish() }
            }
        }
    }

    /// Cancels one request: it ends with a `WebLoaderError.cancelled` terminal message (unless
    /// it had ended), its page's fetch is aborted, and a partial stream file is removed.
    ///
    /// ```swift
    /// loader.cancel(requestID: body.requestID)
    /// ```
    public func cancel(requestID: String) {
        guard let transfer = lock.withLock({ transfers[requestID] }) else { return }
        let page = transfer.page
        transfer.fail(.cancelled(requestID: requestID, url: transfer.request.url))
        abortInPage(transfer, on: page)
    }

    /// Cancels every request of the loader.
    ///
    /// ```swift
    /// loader.cancelAll()
    /// ```
    public func cancelAll() {
        for requestID in lock.withLock({ Array(transfers.keys) }) { cancel(requestID: requestID) }
    }

    /// Cancels every request and closes the loader's pages. Requests made afterwards fail at
    /// once. Idempotent.
    ///
    /// ```swift
    /// loader.close()
    /// ```
    public func close() {
        for page in closeRequests().pages { retire(page) }
        if let socket = lock.withLock({ socketPage.take() }) { activity.task { await (try? await socket.value)?.close() } }
    }

    /// Closes the loader as `close()` does, and returns once its pages are shut down (see
    /// `WebPage.shutdown()`: their threads have ended, their requests and connections are
    /// gone) and its own tasks have returned. Await it before a program exits, as an
    /// `HTTPClient` is shut down.
    ///
    /// ```swift
    /// let loader = WebLoader()
    /// let user = try await loader.evaluate(WebLoader.body(url: userURL, method: .getData))
    /// await loader.shutdown()
    /// ```
    ///
    /// A page still being made is awaited, then shut down. The requests it ends have had their
    /// terminal message (`.error` with `.cancelled`) handed to their handlers when it returns. It
    /// also waits after `close()`, and from several tasks at once. It waits for your completion
    /// handlers, so a completion handler must not block until it returns.
    public func shutdown() async {
        let (running, pages) = closeRequests()
        for page in pages { retire(page) }
        if let socket = lock.withLock({ socketPage.take() }) { activity.task { await (try? await socket.value)?.close() } }
        // Their terminal messages (failed by the close, or on their way) reach their handlers.
        for transfer in running { await transfer.flush() }
        await activity.idle()
    }

    /// Marks the loader closed, fails its running requests, and hands them and its pages over.
    private func closeRequests() -> (running: [LoaderTransfer], pages: [Task<WebPage, any Error>]) {
        let (running, loading) = lock.withLock { () -> ([LoaderTransfer], [Task<WebPage, any Error>]) in
            closed = true
            defer { transfers = [:]; pages = [:]; claimed = [:] }
            for pooled in pages.values { pooled.idleCloser.map(Deadlines.shared.cancel) }
            return (Array(transfers.values), pages.values.map(\.task))
        }
        for transfer in running { transfer.fail(.cancelled(requestID: transfer.request.requestID, url: transfer.request.url)) }
        return (running, loading)
    }

    // MARK: - The WebSocket page

    /// Installs `task` as the WebSocket page; returns the one it replaces.
    func replaceSocketPage(with task: Task<LoaderSocket, any Error>) throws -> Task<LoaderSocket, any Error>? {
        try lock.withLock {
            if closed {
                task.cancel()
                throw WebLoaderError.invalidRequest(requestID: Self.webSocketRequestID, url: nil, reason: "the loader is closed")
            }
            defer { socketPage = task }
            return socketPage
        }
    }

    /// Removes the WebSocket page and returns it.
    func takeSocketPage() -> Task<LoaderSocket, any Error>? {
        lock.withLock { socketPage.take() }
    }

    /// The WebSocket page: throws when `wsStart` was not called (or its page failed).
    func socket() async throws -> LoaderSocket {
        guard let task = lock.withLock({ socketPage }) else {
            throw WebLoaderError.invalidRequest(requestID: Self.webSocketRequestID, url: nil, reason: "no WebSocket page: call wsStart first")
        }
        return try await task.value
    }

    // MARK: - Internals

    private func start(_ transfer: LoaderTransfer) async {
        let request = transfer.request
        let id = request.requestID
        var slot: Task<WebPage, any Error>?
        var target: URL?
        do {
            let url = try Self.target(of: request)
            target = url
            if request.method == .uploadData && request.uploadData == nil {
                throw WebLoaderError.invalidRequest(requestID: id, url: request.url, reason: "uploadData needs the bytes to upload (uploadData is nil)")
            }
            let initDictionary = try requestInit(for: request)
            let (page, task) = try await page(for: url, requestID: id)
            slot = task
            // Cancelled (or timed out) while the page was made: nothing is sent.
            guard !transfer.isEnded, claim(task, for: transfer, at: url) else { return }
            transfer.page = page
            if let timeout = configuration.timeout { watch(transfer, timeout: timeout, grace: !request.method.isStream) }
            if request.method == .nativeLog {
                _ = try await page.callAsyncJavaScript("log(text)", arguments: ["text": request.methodArguments ?? ""])
                transfer.logged(request.methodArguments ?? "")
                return
            }
            var arguments: [String: Any] = [
                "method": request.method.functionName, "requestId": id, "token": transfer.token, "url": url.absoluteString,
                "init": initDictionary, "encoding": configuration.binaryEncoding.rawValue, "postData": request.postData ?? [:],
                "limit": configuration.maximumBodySize.map { max(0, $0) } ?? -1,
            ]
            if let upload = request.uploadData {
                arguments["upload"] = configuration.binaryEncoding == .base64 ? upload.base64EncodedString() : upload
            } else {
                arguments["upload"] = NSNull()
            }
            _ = try await page.callAsyncJavaScript(
                "loader.run(method, requestId, url, init, postData, upload, encoding, token, limit)", arguments: arguments)
            // Ended while the call was on its way: the page's fetch may have started after the abort.
            if transfer.isEnded { abortInPage(transfer, on: page) }
        } catch let error as WebLoaderError {
            // Made for this request, or for the first one that waited for the same page.
            transfer.fail(error.reported(for: id, url: request.url))
        } catch {
            if case WebPageError.closed = error, let slot, let target { dropPage(slot, for: target) }
            transfer.fail(.failed(requestID: id, url: request.url, reason: "the page could not start the request: \(error)"))
        }
    }

    /// The URL `request` goes to: an absolute http or https URL with a host (`nativeLog`, which
    /// sends nothing, logs in the page of its URL, or of localhost without one). Anything else
    /// is an invalid request, named in the error.
    static func target(of request: WebLoaderRequest) throws(WebLoaderError) -> URL {
        guard let given = request.url else {
            if request.method == .nativeLog { return WebLoaderRequest.localhost }
            throw .invalidRequest(requestID: request.requestID, url: nil, reason: """
                the request has no URL (URL(string:) is nil for text that is not a URL: \
                "127.0.0.1:8765/items.json" needs its scheme, "http://127.0.0.1:8765/items.json")
                """)
        }
        let url = given.absoluteURL
        if request.method == .nativeLog { return url }
        guard let scheme = url.scheme?.lowercased() else {
            throw .invalidRequest(requestID: request.requestID, url: given, reason: """
                '\(url.absoluteString)' is a relative URL: give the scheme and host ("http://host/\(url.relativePath)"), \
                or a base URL (URL(string:relativeTo:))
                """)
        }
        guard scheme == "http" || scheme == "https" else {
            throw .invalidRequest(requestID: request.requestID, url: given, reason: "'\(url.absoluteString)' is not an http or https URL")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidRequest(requestID: request.requestID, url: given, reason: "'\(url.absoluteString)' has no host")
        }
        return url
    }

    /// The `RequestInit` the page's `fetch` gets (a value, converted, never source).
    private func requestInit(for request: WebLoaderRequest) throws -> [String: Any] {
        var headers: [String: Any] = [:]
        for (name, value) in request.headers where !["user-agent", "content-type"].contains(name.lowercased()) {
            headers[name] = value
        }
        let extraContentType = request.headers.first { $0.key.lowercased() == "content-type" }?.value
        let extraUserAgent = request.headers.first { $0.key.lowercased() == "user-agent" }?.value
        headers["user-agent"] = request.userAgent ?? extraUserAgent ?? configuration.page.userAgent
        var initDictionary: [String: Any] = ["method": "GET", "cache": "no-cache"]
        if let contentType = extraContentType { headers["content-type"] = contentType }
        if let body = request.httpBody, request.method != .postData, request.method != .uploadData {
            initDictionary["body"] = body
            initDictionary["method"] = "POST"
        }
        if let contentType = request.contentType { headers["content-type"] = contentType }
        switch request.method {
        case .postData:
            initDictionary["method"] = "POST"
            let fields = request.postData ?? [:]
            let type = request.contentType.flatMap { MIMEType($0)?.essence }
            if type == "application/x-www-form-urlencoded" {
                initDictionary["body"] = FormURLEncoding.serialize(fields.keys.sorted().flatMap { [$0, "\(fields[$0] ?? "")"] })
            } else {
                guard JSONSerialization.isValidJSONObject(fields), let json = try? JSONSerialization.data(withJSONObject: fields) else {
                    throw WebLoaderError.invalidRequest(requestID: request.requestID, url: request.url, reason: "postData is not a JSON object")
                }
                initDictionary["body"] = String(decoding: json, as: UTF8.self)
                if request.contentType == nil { headers["content-type"] = "application/json" }
            }
        case .uploadData:
            initDictionary["method"] = "POST"
        case .downloadFile, .downloadStream:
            headers["requestId"] = request.requestID
        case .getData, .nativeLog:
            break
        }
        if let method = request.httpMethod { initDictionary["method"] = method }
        if !request.method.isStream, let timeout = configuration.timeout, timeout.isFinite, timeout >= 0 {
            initDictionary["timeout"] = min(timeout, 1e9) * 1000
        }
        initDictionary["headers"] = headers
        return initDictionary
    }

    /// Fails `transfer` when its page sends nothing for `timeout` seconds (one-shot requests
    /// get a second more, so that their fetch's own timeout, a `TimeoutError`, comes first).
    private func watch(_ transfer: LoaderTransfer, timeout: TimeInterval, grace: Bool) {
        guard timeout.isFinite, timeout >= 0 else { return }
        let limit = Duration.milliseconds(Int64(min(timeout, 1e9) * 1000)) + (grace ? .seconds(1) : .zero)
        Self.arm(transfer, limit: limit, timeout: timeout, loader: self)
    }

    /// Schedules `transfer`'s watchdog for `limit` after its last news; when it fires before
    /// that (news came meanwhile), it schedules itself again.
    private static func arm(_ transfer: LoaderTransfer, limit: Duration, timeout: TimeInterval, loader: WebLoader?) {
        let deadline = transfer.lastActivity + limit
        transfer.own(Deadlines.shared.schedule(after: ContinuousClock.now.duration(to: deadline)) { [weak loader, weak transfer] in
            guard let current = transfer, !current.isEnded else { return }
            guard ContinuousClock.now >= current.lastActivity + limit else {
                arm(current, limit: limit, timeout: timeout, loader: loader)
                return
            }
            let page = current.page
            current.fail(.timedOut(requestID: current.request.requestID, url: current.request.url,
                                   reason: "timed out: nothing arrived for \(timeout) seconds (WebLoaderConfiguration.timeout)"))
            loader?.abortInPage(current, on: page)
        })
    }

    /// Aborts the request's fetch in `page`, the one it ran on (a transfer forgets its page
    /// when it ends).
    private func abortInPage(_ transfer: LoaderTransfer, on page: WebPage?) {
        guard let page else { return }
        let token = transfer.token
        guard !lock.withLock({ closed }) else { return }  // the page is shut down with the loader
        activity.task { _ = try? await page.callAsyncJavaScript("loader.cancel(token)", arguments: ["token": token]) }
    }

    /// The page for `url`'s origin (and the pool's task for it), made and loaded with
    /// `loader.html` on first use. A page whose `loader.html` failed to run is not kept.
    func page(for url: URL, requestID: String = "") async throws -> (WebPage, Task<WebPage, any Error>) {
        let origin = Self.origin(of: url)
        let task = try lock.withLock { () throws -> Task<WebPage, any Error> in
            if closed { throw WebLoaderError.invalidRequest(requestID: requestID, url: url, reason: "the loader is closed") }
            if let existing = pages[origin] { return existing.task }
            try makeRoom(requestID: requestID, url: url)
            let configuration = self.configuration
            let task = Task { [weak self] () throws -> WebPage in
                let page = try WebPage(configuration: Self.pageConfiguration(configuration, loader: self))
                do {
                    let loaded = try await page.load(html: PageSeam.loaderHTML, baseURL: URL(string: origin + "/"))
                    if let failure = loaded.scriptErrors.first {
                        throw WebLoaderError.failed(requestID: requestID, url: url, reason: "loader.html failed to run: \(failure)")
                    }
                } catch {
                    await page.shutdown()
                    throw error
                }
                return page
            }
            pages[origin] = PooledPage(task: task)
            return task
        }
        do {
            return (try await task.value, task)
        } catch {
            dropPage(task, for: url)
            throw error
        }
    }

    /// Forgets the page of `url`'s origin if it is still `task`'s (a newer one stays), and
    /// closes it.
    private func dropPage(_ task: Task<WebPage, any Error>, for url: URL) {
        let origin = Self.origin(of: url)
        let removed = lock.withLock { () -> Bool in
            guard let pooled = pages[origin], pooled.task == task else { return false }
            pooled.idleCloser.map(Deadlines.shared.cancel)
            pages[origin] = nil
            return true
        }
        if removed { retire(task) }
    }

    /// Shuts the page of `task` down (once it is made), counted until it is.
    private func retire(_ task: Task<WebPage, any Error>, continuing token: UInt64? = nil) {
        activity.task(continuing: token ?? activity.begin()) { await (try? await task.value)?.shutdown() }
    }

    private static func pageConfiguration(_ configuration: WebLoaderConfiguration, loader: WebLoader?) -> WebPageConfiguration {
        var page = configuration.page
        page.requestTimeout = nil  // the loader times its requests
        let controller = UserContentController()
        let logger = configuration.logger
        controller.addWithReply(name: "bridge") { [weak loader] message in
            try await loader?.route(message)
            return nil
        }
        controller.add(name: "nativelog") { message in
            logger.info("\(message.body.map { "\($0)" } ?? "")")
        }
        page.userContentController = controller
        return page
    }

    /// A bridge message, to its request (the one with its `requestId` and the host's token).
    private func route(_ message: ScriptMessage) async throws {
        guard let body = message.body as? [String: Any], let id = body["requestId"] as? String else {
            configuration.logger.warning("a bridge message without a requestId was ignored")
            return
        }
        guard let transfer = lock.withLock({ transfers[id] }), transfer.token == body["token"] as? String else {
            throw ScriptMessageReplyError("no request \(id) is running")
        }
        try await transfer.receive(body)
    }

    /// Forgets an ended request (unless a newer one took its id).
    private func forget(_ transfer: LoaderTransfer) {
        lock.withLock {
            if transfers[transfer.request.requestID] === transfer { transfers[transfer.request.requestID] = nil }
            if let origin = claimed.removeValue(forKey: ObjectIdentifier(transfer)), var pooled = pages[origin] {
                pooled.running -= 1
                pooled.lastUsed = ContinuousClock.now
                if pooled.running == 0 { pooled.idleCloser = closeWhenIdle(origin, pooled.task) }
                pages[origin] = pooled
            }
        }
    }

    // MARK: - The page pool

    /// A page of the pool: its task, the requests running on it, and when it was last used.
    private struct PooledPage {
        let task: Task<WebPage, any Error>
        var running = 0
        var lastUsed = ContinuousClock.now
        /// Closes the page once it has been idle for `pageIdleTimeout` (cancelled when it is used).
        var idleCloser: Deadlines.Token?
    }

    /// Counts `transfer` as running on the page of `task` until it is forgotten; false when the
    /// page left the pool meanwhile (the request then fails) or the transfer ended.
    private func claim(_ task: Task<WebPage, any Error>, for transfer: LoaderTransfer, at url: URL) -> Bool {
        let origin = Self.origin(of: url)
        let claimedNow = lock.withLock { () -> Bool in
            guard !transfer.isEnded, var pooled = pages[origin], pooled.task == task else { return false }
            pooled.running += 1
            pooled.idleCloser.take().map(Deadlines.shared.cancel)
            pages[origin] = pooled
            claimed[ObjectIdentifier(transfer)] = origin
            return true
        }
        if !claimedNow, !transfer.isEnded {
            transfer.fail(.failed(requestID: transfer.request.requestID, url: url, reason: "the loader's page for \(origin) was closed"))
        }
        return claimedNow
    }

    /// A deadline that closes the page of `origin` after `pageIdleTimeout`, if it is still `task`'s
    /// and idle then. Caller holds the lock.
    private func closeWhenIdle(_ origin: String, _ task: Task<WebPage, any Error>) -> Deadlines.Token? {
        guard let timeout = configuration.pageIdleTimeout, timeout.isFinite else { return nil }
        let delay = Duration.milliseconds(Int64(max(0, min(timeout, 1e9)) * 1000))
        // Cancelled when the page is used again, dropped, or the loader shuts down; holds
        // neither the loader nor the page's task strongly past its run.
        return Deadlines.shared.schedule(after: delay) { [weak self] in self?.retireIfIdle(origin, task) }
    }

    /// Closes the page of `origin` if it is still `task`'s and idle.
    private func retireIfIdle(_ origin: String, _ task: Task<WebPage, any Error>) {
        // The page's shutdown counts in the loader's activity from the moment it leaves the pool
        // (under the lock): a `shutdown()` that no longer finds it waits for it all the same.
        let token = lock.withLock { () -> UInt64? in
            guard let pooled = pages[origin], pooled.task == task, pooled.running == 0 else { return nil }
            pages[origin] = nil
            return activity.begin()
        }
        if let token { retire(task, continuing: token) }
    }

    /// Makes room for one more page: the least recently used idle page is closed when the pool
    /// is full. Throws when every page has requests running. Caller holds the lock.
    private func makeRoom(requestID: String, url: URL) throws {
        guard pages.count >= max(1, configuration.maximumPages) else { return }
        guard let (origin, pooled) = pages.filter({ $0.value.running == 0 }).min(by: { $0.value.lastUsed < $1.value.lastUsed }) else {
            throw WebLoaderError.failed(
                requestID: requestID, url: url,
                reason: "the loader has \(pages.count) pages (WebLoaderConfiguration.maximumPages), each with requests running; "
                    + "a request to another origin waits for one of them to end")
        }
        pages[origin] = nil
        pooled.idleCloser.map(Deadlines.shared.cancel)
        retire(pooled.task)
    }

    /// The pages the pool holds now (tests).
    var pooledPageCount: Int { lock.withLock { pages.count } }

    /// scheme://host:port, the key of the page pool.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let host = url.host?.lowercased() ?? "localhost"
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed):\(port)"
    }
}

/// A continuation resumed once (the first of the terminal message and a cancellation wins).
private final class Outcome: @unchecked Sendable {
    // @unchecked: behind `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<WebLoaderResponse, any Error>?

    func set(_ continuation: CheckedContinuation<WebLoaderResponse, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func resume(returning response: WebLoaderResponse) {
        lock.withLock { continuation.take() }?.resume(returning: response)
    }

    func resume(throwing error: any Error) {
        lock.withLock { continuation.take() }?.resume(throwing: error)
    }
}
