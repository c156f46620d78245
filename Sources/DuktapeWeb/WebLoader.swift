import Foundation
import Logging

/// LWWebLoader in Swift: requests made by a headless page running `loader.html`, so that they
/// go through the page's `fetch` (its policy, cookies-free same-origin requests, redirects,
/// decompression) and its results come back through the `bridge` message handler.
///
/// ```swift
/// let loader = WebLoader()
/// let body = WebLoader.body(url: URL(string: "http://127.0.0.1:8080/items.json")!, method: .getData)
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
    private var pages: [String: Task<WebPage, any Error>] = [:]
    private var transfers: [String: LoaderTransfer] = [:]
    private var closed = false

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

    /// A request (LWWebLoader's `bodyWithURLString:method:methodArguments:userAgent:contentType:postData:uploadData:`).
    ///
    /// ```swift
    /// let upload = WebLoader.body(url: url, method: .uploadData, postData: ["filename": "a.bin", "album": "x"],
    ///                             uploadData: bytes)
    /// ```
    public static func body(
        url: URL?, method: WebLoaderMethod, methodArguments: String? = nil, userAgent: String? = nil,
        contentType: String? = nil, postData: [String: Any]? = nil, uploadData: Data? = nil
    ) -> WebLoaderRequest {
        WebLoaderRequest(url: url, method: method, methodArguments: methodArguments, userAgent: userAgent,
                         contentType: contentType, postData: postData, uploadData: uploadData)
    }

    // MARK: - Running requests

    /// Runs `body`, calling `completionHandler` with each of its messages (LWWebLoader's
    /// `evaluateWithBody:dataLoadCompletionHandler:`): one for a one-shot method; `streamStart`,
    /// `streaming`… and `streamEnd` for a stream. The last call is the terminal message; with an
    /// `.error` message, the error is given too. Calls come from a background queue, one at a
    /// time for a request.
    ///
    /// ```swift
    /// loader.evaluate(body) { response, error in
    ///     if response.isTerminal { done(response, error) }
    /// }
    /// ```
    public func evaluate(
        _ body: WebLoaderRequest, completionHandler: @escaping @Sendable (WebLoaderResponse, (any Error)?) -> Void
    ) {
        let transfer = LoaderTransfer(request: body, directory: configuration.streamDirectory) { [weak self] response, error in
            if response.isTerminal { self?.forget(body.requestID) }
            completionHandler(response, error)
        }
        let refusal = lock.withLock { () -> String? in
            if closed { return "the loader is closed" }
            if transfers[body.requestID] != nil { return "a request with the id \(body.requestID) is already running" }
            transfers[body.requestID] = transfer
            return nil
        }
        if let refusal {
            // Not registered: the terminal goes to the handler without touching the running one.
            LoaderTransfer(request: body, directory: configuration.streamDirectory, handler: completionHandler)
                .fail(.invalidRequest(requestID: body.requestID, message: refusal))
            return
        }
        Task { await self.start(transfer) }
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
            }
        } onCancel: {
            cancel(requestID: body.requestID)
        }
    }

    /// Runs `body` and gives its messages as an asynchronous sequence that ends after the
    /// terminal one (and throws the error of a failed request). Ending the iteration early
    /// cancels the request.
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
                continuation.yield(response)
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
        transfer.fail(.cancelled(requestID: requestID))
        abortInPage(transfer.request)
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
        let (running, loading) = lock.withLock { () -> ([LoaderTransfer], [Task<WebPage, any Error>]) in
            closed = true
            defer { transfers = [:]; pages = [:] }
            return (Array(transfers.values), Array(pages.values))
        }
        for transfer in running { transfer.fail(.cancelled(requestID: transfer.request.requestID)) }
        for page in loading {
            Task { try? await page.value.close() }
        }
    }

    // MARK: - Internals

    private func forget(_ requestID: String) {
        _ = lock.withLock { transfers.removeValue(forKey: requestID) }
    }

    private func start(_ transfer: LoaderTransfer) async {
        let request = transfer.request
        let id = request.requestID
        do {
            guard request.method == .nativeLog || ["http", "https"].contains(request.url.scheme?.lowercased() ?? "") else {
                throw WebLoaderError.invalidRequest(requestID: id, message: "\(request.url.absoluteString) is not an http or https URL")
            }
            let page = try await page(for: request.url)
            if let timeout = configuration.timeout { watch(transfer, timeout: timeout) }
            if request.method == .nativeLog {
                _ = try await page.callAsyncJavaScript("log(text)", arguments: ["text": request.methodArguments ?? ""])
                transfer.logged(request.methodArguments ?? "")
                return
            }
            var arguments: [String: Any] = [
                "method": request.method.functionName, "requestId": id, "url": request.url.absoluteString,
                "init": try requestInit(for: request), "encoding": configuration.binaryEncoding.rawValue,
                "postData": request.postData ?? [:],
            ]
            if let upload = request.uploadData {
                arguments["upload"] = configuration.binaryEncoding == .base64 ? upload.base64EncodedString() : upload
            } else {
                arguments["upload"] = NSNull()
            }
            _ = try await page.callAsyncJavaScript(
                "loader.run(method, requestId, url, init, postData, upload, encoding)", arguments: arguments)
        } catch let error as WebLoaderError {
            transfer.fail(error)
        } catch {
            if case WebPageError.closed = error { dropPage(for: request.url) }
            transfer.fail(.failed(requestID: id, message: "the page could not start the request: \(error)"))
        }
    }

    /// The `RequestInit` the page's `fetch` gets (a value, converted, never source).
    private func requestInit(for request: WebLoaderRequest) throws -> [String: Any] {
        var headers: [String: Any] = ["user-agent": request.userAgent ?? configuration.page.userAgent]
        var initDictionary: [String: Any] = ["method": "GET", "cache": "no-cache"]
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
                    throw WebLoaderError.invalidRequest(requestID: request.requestID, message: "postData is not a JSON object")
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
        if !request.method.isStream, let timeout = configuration.timeout, timeout.isFinite, timeout >= 0 {
            initDictionary["timeout"] = min(timeout, 1e9) * 1000
        }
        initDictionary["headers"] = headers
        return initDictionary
    }

    /// Fails `transfer` when its page sends nothing for `timeout` seconds.
    private func watch(_ transfer: LoaderTransfer, timeout: TimeInterval) {
        guard timeout.isFinite, timeout >= 0 else { return }
        let limit = Duration.milliseconds(Int64(min(timeout, 1e9) * 1000))
        Task { [weak self] in
            while !transfer.isEnded {
                let deadline = transfer.lastActivity + limit
                if ContinuousClock.now >= deadline {
                    transfer.fail(.timedOut(requestID: transfer.request.requestID))
                    self?.abortInPage(transfer.request)
                    return
                }
                try? await Task.sleep(until: deadline, clock: .continuous)
            }
        }
    }

    private func abortInPage(_ request: WebLoaderRequest) {
        guard let page = lock.withLock({ pages[Self.origin(of: request.url)] }) else { return }
        Task { _ = try? await page.value.callAsyncJavaScript("loader.cancel(id)", arguments: ["id": request.requestID]) }
    }

    /// The page for `url`'s origin, made and loaded with `loader.html` on first use.
    func page(for url: URL) async throws -> WebPage {
        let origin = Self.origin(of: url)
        let task = try lock.withLock { () throws -> Task<WebPage, any Error> in
            if closed { throw WebLoaderError.invalidRequest(requestID: "", message: "the loader is closed") }
            if let existing = pages[origin] { return existing }
            let configuration = self.configuration
            let task = Task { [weak self] () throws -> WebPage in
                let page = try WebPage(configuration: Self.pageConfiguration(configuration, loader: self))
                do {
                    try await page.load(html: try LoaderPage.html(), baseURL: URL(string: origin + "/"))
                } catch {
                    page.close()
                    throw error
                }
                return page
            }
            pages[origin] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            dropPage(for: url)
            throw error
        }
    }

    private func dropPage(for url: URL) {
        _ = lock.withLock { pages.removeValue(forKey: Self.origin(of: url)) }
    }

    private static func pageConfiguration(_ configuration: WebLoaderConfiguration, loader: WebLoader?) -> WebPageConfiguration {
        var page = configuration.page
        page.requestTimeout = nil  // the loader times its requests
        let controller = UserContentController()
        let logger = configuration.logger
        controller.addWithReply(name: "bridge") { [weak loader] message in
            try loader?.route(message)
            return nil
        }
        controller.add(name: "nativelog") { message in
            logger.info("\(message.body.map { "\($0)" } ?? "")")
        }
        page.userContentController = controller
        return page
    }

    /// A bridge message, to its request.
    private func route(_ message: ScriptMessage) throws {
        guard let body = message.body as? [String: Any], let id = body["requestId"] as? String else {
            configuration.logger.warning("a bridge message without a requestId was ignored")
            return
        }
        guard let transfer = lock.withLock({ transfers[id] }) else {
            throw ScriptMessageReplyError("no request \(id) is running")
        }
        try transfer.receive(body)
    }

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
