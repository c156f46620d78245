import AsyncHTTPClient
import DuktapeCore
import DuktapeRuntime
import Foundation
import NIOCore
import NIOHTTP1

/// A request as `fetch` hands it to the host: the URL parsed (WHATWG), the method, the header
/// list, the body's bytes and the request's modes.
struct FetchRequest: Sendable {
    enum Redirect: String, Sendable { case follow, error, manual }
    /// When cookies are sent with the request and stored from its response.
    enum Credentials: String, Sendable {
        case omit
        case sameOrigin = "same-origin"
        case include
    }
    /// How the HTTP cache takes part (Fetch's cache modes).
    enum CacheMode: String, Sendable {
        case `default`
        case noStore = "no-store"
        case reload
        case noCache = "no-cache"
        case forceCache = "force-cache"
        case onlyIfCached = "only-if-cached"
    }

    var url: URLRecord
    var method: String
    var headers: [(name: String, value: String)]
    var body: Data?
    var redirect: Redirect
    var timeout: Duration?
    var credentials: Credentials
    var cache: CacheMode
}

/// A page's network: `fetch`'s natives (`PageSeam.FetchNatives`) and the transfers they
/// start, on one process-wide async-http-client whose I/O runs on its own event loops. Events
/// reach the page as macrotasks posted to its loop, through fetch.js's handlers
/// (`PageSeam.TransferEvents`: head, available, end, fail).
///
/// A transfer's terminal event ends its pending-work handle, so a loop run until idle waits
/// for it; closing the page abandons every transfer (their connections are closed).
final class PageNetwork: @unchecked Sendable {
    // @unchecked: `events` is set once, before the loop starts; it and `nextID` are used
    // only inside calls from the page's context (natives and posted work), which the VM's lock
    // serializes; the transfers are behind a mutex.
    private let loop: JSEventLoop
    private let policy: RequestPolicy
    private let userAgent: String
    private let defaultTimeout: Duration?
    private let cookies: CookieStore?
    private let cache: HTTPCache?
    /// The page's URL (for `same-origin` credentials), read on the I/O tasks.
    private let documentURL: @Sendable () -> URL?
    private let transfers = Guarded(Transfers())
    private let client: HTTPClient
    /// The transfers allowed to do network work at once (WebPageConfiguration.maximumConcurrentTransfers).
    private let slots: TransferSlots

    private struct Transfers {
        var running: [Int: FetchTransfer] = [:]
        var closed = false
    }
    /// The transfers' tasks that have not returned (an ended transfer's tasks return soon after
    /// their cancellation), and the client's shutdown once it began.
    let activity = ActivityCount()
    private var nextID = 0
    var events: PageSeam.TransferEvents?
    private let pauseObserverStorage = Guarded<(@Sendable (Int) -> Void)?>(nil)

    /// Told the unread byte count each time a transfer waits for the page to read (tests).
    var pauseObserver: (@Sendable (Int) -> Void)? {
        get { pauseObserverStorage.withLock { $0 } }
        set { pauseObserverStorage.withLock { $0 = newValue } }
    }

    /// The page's client, with its own connection pool (a page that leaves bodies unread
    /// holds only its own connections), on the process's shared event loops: redirects left to
    /// the page (each hop is checked by its policy), no decompression (gzip and deflate bodies
    /// are inflated by `ResponseReceiver` under the transfer's flow control: async-http-client
    /// inflates each read from the socket whole), and a refused connection failing at once, as
    /// in browsers (async-http-client would retry until the connect timeout).
    private static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        // Connections per host; requests beyond them wait for one.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.maximumConnectionsPerHost
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(30))
        configuration.decompression = .disabled
        // Peers reach async-http-client's preconditions through statuses it does not expect
        // (ResponseStatusGuard), and through HTTP/2 pseudo-headers NIO converts without checks
        // (an empty or negative :status traps): only HTTP/1.1, with the guard on every
        // connection.
        configuration.httpVersion = .http1Only
        configuration.http1_1ConnectionDebugInitializer = { ResponseStatusGuard.install(on: $0) }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Connections per host (scheme, host, port) a page keeps: async-http-client's 8 (browsers
    /// keep 6; 6 made a page's queued requests wait a third longer, which pushed a loaded run's
    /// 200 concurrent WebLoader requests past the loader's 60-second watchdog).
    static let maximumConnectionsPerHost = 8

    /// Transfers waiting for a slot (tests).
    var waitingCount: Int { slots.waiting }

    init(
        loop: JSEventLoop, policy: RequestPolicy, userAgent: String, defaultTimeout: Duration?,
        cookies: CookieStore?, cache: HTTPCache?, maximumConcurrentTransfers: Int = 32,
        documentURL: @escaping @Sendable () -> URL?
    ) {
        slots = TransferSlots(capacity: maximumConcurrentTransfers)
        self.cache = cache
        self.loop = loop
        self.policy = policy
        self.userAgent = userAgent
        self.defaultTimeout = defaultTimeout
        self.cookies = cookies
        self.documentURL = documentURL
        client = Self.makeClient()
    }

    deinit {
        cancelAll()
    }

    /// fetch.js's natives; `documentURL` is the page's.
    func natives(in context: JSContext, documentURL: JSValue) -> PageSeam.FetchNatives {
        PageSeam.FetchNatives(
            send: JSValue(newFunctionIn: context) { [weak self] (
                url: String, method: String, headers: [String], body: Data?, redirect: String, timeout: Double,
                credentials: String, cache: String
            ) -> Int in
                guard let self else { return 0 }
                return send(url: url, method: method, headers: headers, body: body, redirect: redirect, timeout: timeout,
                            credentials: credentials, cache: cache)
            },
            read: JSValue(newFunctionIn: context) { [weak self] (id: Int, count: Int) in
                self?.transfer(id)?.read(count)
            },
            cancel: JSValue(newFunctionIn: context) { [weak self] (id: Int) in
                self?.cancel(id)
            },
            // The stream asks for bytes: the waiting ones now (a Uint8Array), or undefined and
            // `available` when they come. A chunk past the memory limit ends the transfer and
            // throws.
            pull: JSValue(newFunctionIn: context) { [weak self] (id: Int) -> JSValue? in
                guard let context = JSContext.current(), let transfer = self?.transfer(id), let parts = transfer.pull() else { return nil }
                do {
                    return try Self.uint8Array(parts, in: context)
                } catch {
                    self?.cancel(id)
                    throw FetchFailure(Self.noMemory(for: parts))
                }
            },
            decodeText: JSValue(newFunctionIn: context) { (bytes: Data, contentType: String?) in
                TextCharset(contentType: contentType).decode(bytes)
            },
            documentURL: documentURL)
    }

    /// Abandons every transfer and refuses new ones (the page closed), and shuts the client
    /// down. Idempotent.
    func cancelAll() {
        // The client's shutdown is counted under the lock: a shutdown() that finds the network
        // closed already waits for it.
        let activity = self.activity
        let closing = transfers.withLock { transfers -> (all: [FetchTransfer], token: UInt64)? in
            guard !transfers.closed else { return nil }
            transfers.closed = true
            defer { transfers.running = [:] }
            return (Array(transfers.running.values), activity.begin())
        }
        guard let (all, token) = closing else { return }
        let client = self.client
        for transfer in all { transfer.abandon() }
        activity.task(continuing: token) { try? await client.shutdown() }
    }

    /// `cancelAll()`, then returns once every transfer's task has returned and the client is
    /// shut down: nothing of the page's networking runs any more.
    func shutdown() async {
        cancelAll()
        await activity.idle()
    }

    /// Starts `work` as one of `transfer`'s tasks, counted until it returns.
    private func start(_ transfer: FetchTransfer, _ work: @escaping @Sendable (FetchTransfer) async -> Void) {
        let activity = self.activity
        let token = activity.begin()
        let once = RunOnce(work)  // released before the work counts as ended
        transfer.start { transfer in
            await once.run(transfer)
            activity.end(token)
        }
    }

    private func transfer(_ id: Int) -> FetchTransfer? {
        transfers.withLock { $0.running[id] }
    }

    /// The transfers not yet ended or whose terminal event the page has not yet had (tests).
    var runningCount: Int { transfers.withLock { $0.running.count } }

    private func cancel(_ id: Int) {
        transfers.withLock { $0.running.removeValue(forKey: id) }?.abandon()
    }

    // MARK: - Starting a transfer

    /// Starts the request fetch.js sends (its `headers` as [name, value, …], its `timeout` in
    /// milliseconds, NaN for the page's default) and returns its id; every outcome, a malformed
    /// request included, arrives as events.
    private func send(
        url href: String, method: String, headers flat: [String], body: Data?, redirect: String, timeout milliseconds: Double,
        credentials: String, cache: String
    ) -> Int {
        nextID += 1
        let id = nextID
        let transfer = FetchTransfer(id: id, pending: loop.beginPendingWork(), onPause: pauseObserver)
        let closed = transfers.withLock { transfers -> Bool in
            if !transfers.closed { transfers.running[id] = transfer }
            return transfers.closed
        }
        if closed {
            transfer.abandon()  // the page is closing: nothing starts, and nothing is posted
            return id
        }
        guard let url = URLRecord.parse(href) else {
            fail(transfer, name: "TypeError", message: "the request's URL is not valid")
            return id
        }
        guard let redirect = FetchRequest.Redirect(rawValue: redirect), let credentials = FetchRequest.Credentials(rawValue: credentials),
            let cache = FetchRequest.CacheMode(rawValue: cache)
        else {
            fail(transfer, name: "TypeError", message: "the request's redirect, credentials or cache mode is not valid")
            return id
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(flat.count / 2)
        var index = 0
        while index + 1 < flat.count {
            headers.append((flat[index], flat[index + 1]))
            index += 2
        }
        let timeout = milliseconds.isFinite && milliseconds >= 0 ? Duration.milliseconds(Int64(min(milliseconds, 1e15))) : defaultTimeout
        let request = FetchRequest(
            url: url, method: method, headers: headers, body: body, redirect: redirect, timeout: timeout,
            credentials: credentials, cache: cache)
        if let timeout = request.timeout {
            start(transfer) { [weak self] (transfer: FetchTransfer) in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self?.fail(transfer, name: "TimeoutError", message: "\(request.method) \(request.url.href) timed out after \(timeout)")
            }
        }
        let slots = self.slots
        start(transfer) { [weak self] (transfer: FetchTransfer) in
            // At most `maximumConcurrentTransfers` do network work at once; the rest wait.
            guard await slots.acquire() else { return }
            defer { slots.release() }
            await self?.perform(request, on: transfer)
        }
        return id
    }

    // MARK: - Events

    /// What a transfer tells the page.
    private enum Event: Sendable {
        case head(status: Int, statusText: String, url: String, redirected: Bool, headers: [String], type: String)
        /// Bytes wait for a page that wanted some (`FetchTransfer.queue`).
        case available
        /// The end of the body, after the bytes still waiting.
        case end
        case error(name: String, message: String)
    }

    private func post(_ transfer: FetchTransfer, _ event: Event) {
        guard !transfer.isEnded else { return }
        let id = transfer.id
        _ = loop.post { [weak self] _ in self?.dispatch(id, event) }
    }

    /// Calls fetch.js's handler of `event` (an exception it throws goes to the context's handler).
    private func dispatch(_ id: Int, _ event: Event) {
        guard let events else { return }
        switch event {
        case let .head(status, statusText, url, redirected, headers, type):
            events.head(id, status: status, statusText: statusText, url: url, redirected: redirected, headers: headers, type: type)
        case .available:
            // Bytes are waiting and the page wanted some: its stream pulls them (the one way
            // bytes reach a stream, so they keep their order even when a finalizer run by the
            // chunk's allocation reads from the stream).
            events.available(id)
        case .end:
            // The stream pulls the bytes it has not pulled yet, then closes: the transfer is
            // still known to `pull` until this returns.
            events.end(id)
        case let .error(name, message):
            events.fail(id, name: name, message: message)
        }
    }

    private static func noMemory(for parts: [ByteBuffer]) -> String {
        "no memory for a chunk of \(parts.reduce(0) { $0 + $1.readableBytes }) bytes of the response body (the page's memory limit)"
    }

    private static func uint8Array(_ parts: [ByteBuffer], in context: JSContext) throws(JSException) -> JSValue {
        try JSValue(newUint8ArrayJoining: parts.lazy.map(\.readableBytesView), in: context)
    }

    /// Ends `transfer` with `event`. The page can still pull the bytes that arrived before it
    /// until the event is dispatched (its end pulls them), so the transfer is forgotten only then.
    private func finish(_ transfer: FetchTransfer, _ event: Event) {
        let id = transfer.id
        transfer.finish(posting: { [weak self] _ in
            self?.dispatch(id, event)
            self?.transfers.withLock { _ = $0.running.removeValue(forKey: id) }
        })
    }

    private func fail(_ transfer: FetchTransfer, name: String, message: String) {
        finish(transfer, .error(name: name, message: message))
    }

    private func sendHead(
        _ transfer: FetchTransfer, status: Int, statusText: String, url: URLRecord, redirected: Bool,
        headers: [String], type: String
    ) {
        var address = url
        address.fragment = nil
        post(transfer, .head(status: status, statusText: statusText, url: address.href, redirected: redirected, headers: headers, type: type))
    }

    // MARK: - HTTP

    /// Headers the host owns: the connection's framing and the ones it sets itself.
    private static let hostOwnedHeaders: Set<String> = [
        "accept-encoding", "connection", "content-length", "expect", "host", "keep-alive", "te", "trailer", "transfer-encoding",
        "upgrade",
    ]

    private func perform(_ first: FetchRequest, on transfer: FetchTransfer) async {
        var request = first
        var redirected = false
        var hops = 0
        do {
            while true {
                if let refusal = policy.refusal(of: request.url) { throw FetchFailure(refusal) }
                if request.url.scheme == "file" {
                    try await readFile(request, redirected: redirected, on: transfer)
                    return
                }
                var address = request.url
                address.fragment = nil
                let withCookies = sendsCookies(request)
                let http = httpRequest(for: request, withCookies: withCookies)
                // What the cache compares Vary against: the headers actually sent.
                let sentHeaders = http.headers.map { (name: $0.name, value: $0.value) }
                // The cache is keyed by the page's origin too, as browsers partition theirs, so
                // that no page learns what another origin's pages fetched; and by the cookie
                // store's partition when its cookies went with the request.
                let pageOrigin = documentURL().flatMap { URLRecord.parse($0.absoluteString)?.origin } ?? "null"
                let partition = http.headers.contains(name: "cookie") && cookies != nil
                    ? pageOrigin + "\n" + (cookies?.partition ?? "") : pageOrigin
                var mode = request.cache
                // A page's own conditional or range request bypasses the cache (Fetch's rule); so
                // does a request with credentials in Authorization, or in a Cookie header the page
                // wrote itself (there is no cookie store to partition by).
                if mode == .default, request.headers.contains(where: { Self.bypassingHeaders.contains($0.name.lowercased()) }) {
                    mode = .noStore
                }
                if http.headers.contains(name: "authorization") || (cookies == nil && http.headers.contains(name: "cookie")) {
                    mode = .noStore
                }
                let cacheable = cache != nil && request.method == "GET" && mode != .noStore
                var stored = cacheable && mode != .reload ? cache?.lookup(address.href, partition: partition, requestHeaders: sentHeaders) : nil
                let fresh = stored?.isFresh(now: Date()) == true
                if let entry = stored, mode == .onlyIfCached || mode == .forceCache || (mode == .default && fresh) {
                    if try await serve(entry, url: request.url, redirected: redirected, on: transfer) { return }
                    cache?.invalidate(address.href)  // its body went missing: the network answers
                    stored = nil
                }
                if mode == .onlyIfCached, stored == nil {
                    throw FetchFailure("\(address.href) is not in the cache (the request's cache mode is 'only-if-cached')")
                }
                var sent = http
                let conditional = stored.map { Self.addValidators(of: $0, to: &sent) } ?? false
                try Self.checkHeaderSize(sent.headers)
                let outgoing = try HTTPClient.Request(url: sent.url, method: sent.method, headers: sent.headers,
                                                      body: request.body.map { .byteBuffer(ByteBuffer(bytes: $0)) })
                let (receiver, response) = try await Self.retryingStaleConnection(method: sent.method.rawValue) {
                    let receiver = try ResponseReceiver.start(outgoing, on: self.client)
                    return (receiver, try await receiver.head())
                }
                let status = Int(response.status.code)
                if withCookies, let url = URL(string: request.url.href) {
                    cookies?.receive(response.headers[canonicalForm: "set-cookie"].map(String.init), from: url)
                }
                if request.method != "GET" && request.method != "HEAD" && (200..<400).contains(status) {
                    cache?.invalidate(address.href)
                }
                if status == 304, conditional, let stored, let cache {
                    try await receiver.receiveBody(.discard(limit: 1 << 20, request: "\(request.method) \(request.url.href)"))
                    let headers = response.headers.filter { !["set-cookie", "set-cookie2"].contains($0.name.lowercased()) }
                        .flatMap { [$0.name, Self.byteString($0.value)] }
                    if try await serve(cache.refresh(stored, with: headers), url: request.url, redirected: redirected, on: transfer) {
                        return
                    }
                    cache.invalidate(address.href)
                    throw FetchFailure("\(address.href): the cached body went missing after a 304")
                }
                if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "location") {
                    try await receiver.receiveBody(.discard(limit: 1 << 20, request: "\(request.method) \(request.url.href)"))
                    switch request.redirect {
                    case .error:
                        throw FetchFailure("\(request.url.href) redirected (\(status)) and the request's redirect mode is 'error'")
                    case .manual:
                        sendHead(transfer, status: 0, statusText: "", url: request.url, redirected: redirected, headers: [], type: "opaqueredirect")
                        finish(transfer, .end)
                        return
                    case .follow:
                        hops += 1
                        guard hops <= 20 else { throw FetchFailure("\(first.url.href): more than 20 redirects") }
                        guard let next = URLRecord.parse(location, base: request.url), next.scheme == "http" || next.scheme == "https" else {
                            throw FetchFailure("\(request.url.href) redirected to '\(location)', which is not an http(s) URL")
                        }
                        if (status == 303 && request.method != "HEAD") || ((status == 301 || status == 302) && request.method == "POST") {
                            request.method = "GET"
                            request.body = nil
                            request.headers.removeAll { Self.isRequestBodyHeader($0.name) }
                        }
                        // Credentials stay with their origin (Fetch drops Authorization across origins).
                        if next.origin != request.url.origin {
                            request.headers.removeAll { Self.credentialHeaders.contains($0.name.lowercased()) }
                        }
                        request.url = next
                        redirected = true
                        continue
                    }
                }
                // Set-Cookie never reaches scripts (Fetch's forbidden response header names).
                var headers: [String] = []
                for (name, value) in response.headers where !["set-cookie", "set-cookie2"].contains(name.lowercased()) {
                    headers += [name, Self.byteString(value)]
                }
                let writer = cacheable && cache?.mayStore(status: status, headers: headers, requestHeaders: sentHeaders) == true
                    ? cache?.writer(url: address.href, partition: partition, status: status, statusText: response.status.reasonPhrase,
                                    headers: headers, requestHeaders: sentHeaders)
                    : nil
                sendHead(transfer, status: status, statusText: response.status.reasonPhrase, url: request.url, redirected: redirected,
                         headers: headers, type: "basic")
                do {
                    try await receiver.receiveBody(.stream(transfer, cache: writer, posted: { [weak self] in
                        self?.post(transfer, .available)
                    }))
                } catch {
                    writer?.discard()
                    throw error
                }
                guard !transfer.isEnded else {  // ended meanwhile: the body may not be whole
                    writer?.discard()
                    return
                }
                writer?.commit()
                finish(transfer, .end)
                return
            }
        } catch {
            guard !transfer.isEnded else { return }
            let message = (error as? FetchFailure)?.message ?? "\(request.method) \(request.url.href) failed: \(Self.describe(error))"
            fail(transfer, name: "TypeError", message: message)
        }
    }

    /// Whether the page's cookies go with (and come back from) `request`: never for `omit`,
    /// always for `include`, and for `same-origin` when the request's origin is the page's.
    private func sendsCookies(_ request: FetchRequest) -> Bool {
        guard cookies != nil else { return false }
        switch request.credentials {
        case .include: return true
        case .omit: return false
        case .sameOrigin:
            guard let page = documentURL()?.absoluteString, let origin = URLRecord.parse(page)?.origin else { return false }
            return origin == request.url.origin && origin != "null"
        }
    }

    private func httpRequest(for request: FetchRequest, withCookies: Bool) -> HTTPClientRequest {
        var address = request.url
        address.fragment = nil
        var http = HTTPClientRequest(url: address.href)
        http.method = HTTPMethod(rawValue: request.method)
        var hasUserAgent = false
        for (name, value) in request.headers {
            let lowered = name.lowercased()
            if Self.hostOwnedHeaders.contains(lowered) { continue }
            if lowered == "cookie" && cookies != nil { continue }  // the store's, when there is one
            if lowered == "user-agent" { hasUserAgent = true }
            http.headers.add(name: name, value: value)
        }
        if !hasUserAgent { http.headers.add(name: "User-Agent", value: userAgent) }
        // The codings `Inflater` speaks (a page cannot choose others: Fetch forbids the header);
        // none for a range, as Fetch says (a slice of a compressed stream cannot be inflated).
        let ranged = request.headers.contains { $0.name.lowercased() == "range" }
        http.headers.add(name: "Accept-Encoding", value: ranged ? "identity" : "gzip, deflate")
        if withCookies, let url = URL(string: address.href), let cookie = cookies?.header(for: url) {
            http.headers.add(name: "Cookie", value: cookie)
        }
        if let body = request.body { http.body = .bytes(ByteBuffer(bytes: body)) }
        return http
    }

    private static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    private static func isRequestBodyHeader(_ name: String) -> Bool {
        ["content-encoding", "content-language", "content-location", "content-type"].contains(name.lowercased())
    }

    /// Reads and drops a redirect's body (bounded: a redirect with a huge body is an error).
    private static func discard(_ body: HTTPClientResponse.Body) async throws {
        _ = try await body.collect(upTo: 1 << 20)
    }

    /// A header value as the bytes it was on the wire, one character per byte (Fetch's byte
    /// strings, which `Headers` takes back unchanged).
    private static func byteString(_ value: String) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in value.utf8 { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    /// The most bytes a request's header lines may take. async-http-client traps when a
    /// response head arrives while a request head larger than the channel's write buffer (64 KiB)
    /// is still unsent; no server takes heads that large anyway (most refuse past 8 to 16 KiB).
    static let maximumRequestHeaderBytes = 48 << 10

    /// Throws when `headers` take more than `maximumRequestHeaderBytes` on the wire.
    private static func checkHeaderSize(_ headers: HTTPHeaders) throws {
        let bytes = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        guard bytes <= maximumRequestHeaderBytes else {
            throw FetchFailure("the request's headers are longer than \(maximumRequestHeaderBytes) bytes")
        }
    }

    /// Methods a browser sends again when a kept-alive connection turns out to be closed.
    private static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

    /// Runs `attempt` (a request up to its response head) and, for an idempotent method, once
    /// more when it failed because the pooled connection it went out on had been closed by the
    /// server (the server said nothing before: a keep-alive timeout), as browsers do. Nothing of
    /// the response had arrived, so nothing is seen twice.
    static func retryingStaleConnection<Result>(
        method: String, _ attempt: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await attempt()
        } catch where idempotentMethods.contains(method) && isStaleConnection(error) && !Task.isCancelled {
            return try await attempt()
        }
    }

    /// Whether `error` says the connection was closed before any of the response arrived.
    static func isStaleConnection(_ error: any Error) -> Bool {
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .alreadyClosed { return true }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) { return true }
        return false
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .remoteConnectionClosed: return "the server closed the connection before the response ended"
            case .bodyLengthMismatch: return "the body ended before its Content-Length"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }

    // MARK: - Scripts

    /// The text of the external script at `url` (a `<script src>`), through the page's policy
    /// and cookies (sent to the page's origin only: there is no SameSite enforcement here, so
    /// none go cross-site), following up to 20 http(s) redirects; a status other than 2xx, or
    /// a body over 16 MB, is an error. The page's request timeout bounds the whole load, body
    /// included (a server that sends a head and then nothing cannot hold the page's load).
    func loadScript(_ first: URLRecord) async throws -> String {
        guard let timeout = defaultTimeout else { return try await fetchScript(first) }
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { try await self.fetchScript(first) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let text = try await group.next() ?? nil else {
                throw FetchFailure("GET \(first.href) timed out after \(timeout)")
            }
            return text
        }
    }

    private func fetchScript(_ first: URLRecord) async throws -> String {
        var url = first
        for _ in 0...20 {
            if let refusal = policy.refusal(of: url) { throw FetchFailure(refusal) }
            if url.scheme == "file" {
                guard let path = RequestPolicy.filePath(url) else { throw FetchFailure("\(url.href): no such file") }
                let (handle, size) = try openFile(path, for: url)
                defer { try? handle.close() }
                let data: Data
                do {
                    data = try handle.read(upToCount: (16 << 20) + 1) ?? Data()  // nil: an empty file
                } catch {
                    throw FetchFailure("\(url.href): the file could not be read (\(error))")
                }
                guard size <= 16 << 20, data.count <= 16 << 20 else { throw FetchFailure("\(url.href): the script is longer than 16 MB") }
                return TextCharset.utf8.decode(data)
            }
            let request = FetchRequest(url: url, method: "GET", headers: [], body: nil, redirect: .follow, timeout: defaultTimeout,
                                       credentials: .sameOrigin, cache: .default)
            let withCookies = sendsCookies(request)
            let response: HTTPClientResponse
            do {
                let deadline: NIODeadline = defaultTimeout.map { timeout in
                    .now() + .nanoseconds(timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
                } ?? .distantFuture
                let outgoing = httpRequest(for: request, withCookies: withCookies)
                try Self.checkHeaderSize(outgoing.headers)
                response = try await Self.retryingStaleConnection(method: "GET") {
                    try await self.client.execute(outgoing, deadline: deadline)
                }
            } catch {
                throw FetchFailure("GET \(url.href) failed: \(Self.describe(error))")
            }
            if withCookies, let address = URL(string: url.href) {
                cookies?.receive(response.headers[canonicalForm: "set-cookie"].map(String.init), from: address)
            }
            let status = Int(response.status.code)
            if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "location") {
                try await Self.discard(response.body)
                guard let next = URLRecord.parse(location, base: url), next.scheme == "http" || next.scheme == "https" else {
                    throw FetchFailure("\(url.href) redirected to '\(location)', which is not an http(s) URL")
                }
                url = next
                continue
            }
            guard (200..<300).contains(status) else {
                _ = try? await response.body.collect(upTo: 1 << 20)
                throw FetchFailure("GET \(url.href) answered \(status)")
            }
            var body = try await response.body.collect(upTo: 16 << 20)
            do {
                if let inflater = try Inflater(contentEncodings: response.headers[canonicalForm: "content-encoding"].map(String.init)) {
                    body = try inflater.inflateWhole(body, limit: 16 << 20)
                }
            } catch {
                throw FetchFailure("GET \(url.href): \(error)")
            }
            return TextCharset(contentType: response.headers.first(name: "content-type")).decode(Data(body.readableBytesView))
        }
        throw FetchFailure("\(first.href): more than 20 redirects")
    }

    // MARK: - Files

    private func readFile(_ request: FetchRequest, redirected: Bool, on transfer: FetchTransfer) async throws {
        guard request.method == "GET" || request.method == "HEAD" else {
            throw FetchFailure("\(request.url.href): file URLs can only be read (GET), not \(request.method)")
        }
        guard let path = RequestPolicy.filePath(request.url) else { throw FetchFailure("\(request.url.href) is not a local file") }
        let (handle, size) = try openFile(path, for: request.url)
        defer { try? handle.close() }
        let headers = ["Content-Type", Self.contentType(ofPath: path), "Content-Length", String(size)]
        sendHead(transfer, status: 200, statusText: "OK", url: request.url, redirected: redirected, headers: headers, type: "basic")
        if request.method == "GET" { try await stream(handle, size: size, of: request.url.href, on: transfer) }
        finish(transfer, .end)
    }

    /// Opens the file of a file URL once, and checks what was opened: a regular file (a FIFO or
    /// a device could block or never end) whose real path, read from the open descriptor, is
    /// under the policy's root. The policy's own check resolved the path before; checking the
    /// descriptor closes the window in which a link could be switched to a file outside the root.
    private func openFile(_ path: String, for url: URLRecord) throws -> (FileHandle, Int) {
        // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FetchFailure("\(url.href): no such file") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            try? handle.close()
            throw FetchFailure("\(url.href): no such file")
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        let realPath = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard policy.allowsOpenedFile(atRealPath: realPath) else {
            try? handle.close()
            throw FetchFailure("\(url.href) is refused by the page's request policy: the file opened is not under the file access root")
        }
        return (handle, Int(info.st_size))
    }

    /// Sends a file's bytes as the transfer's chunks (with the same flow control as the network's).
    /// A read that fails, or a file that turns out shorter or longer than `size`, fails the
    /// transfer: a body is never cut short as if it had ended.
    private func stream(_ handle: FileHandle, size: Int, of url: String, on transfer: FetchTransfer) async throws {
        var sent = 0
        while !transfer.isEnded, !Task.isCancelled {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 64 << 10) ?? Data()
            } catch {
                throw FetchFailure("\(url): reading the body failed after \(sent) bytes (\(error))")
            }
            if chunk.isEmpty {
                if sent != size { throw FetchFailure("\(url): the body has \(sent) bytes where \(size) were expected") }
                return
            }
            sent += chunk.count
            if transfer.queue(ByteBuffer(bytes: chunk)) { post(transfer, .available) }
            await transfer.waitForRoom()
        }
    }

    // MARK: - Cache

    /// Answers from the cache: the stored head, then the stored body. Returns false, sending
    /// nothing, when the body file is gone.
    private func serve(_ stored: HTTPCache.Stored, url: URLRecord, redirected: Bool, on transfer: FetchTransfer) async throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: stored.body.path) else { return false }
        defer { try? handle.close() }
        sendHead(transfer, status: stored.entry.status, statusText: stored.entry.statusText, url: url, redirected: redirected,
                 headers: stored.entry.headers, type: "basic")
        try await stream(handle, size: stored.entry.size, of: url.href, on: transfer)
        finish(transfer, .end)
        return true
    }

    /// Request headers with which a page makes its own conditional or range request.
    private static let bypassingHeaders: Set<String> = ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since",
                                                         "if-range", "range"]

    /// Adds `If-None-Match` and `If-Modified-Since` from `stored`; returns whether the request
    /// became conditional.
    private static func addValidators(of stored: HTTPCache.Stored, to request: inout HTTPClientRequest) -> Bool {
        var added = false
        if let tag = stored.header("etag") {
            request.headers.replaceOrAdd(name: "If-None-Match", value: tag)
            added = true
        }
        if let modified = stored.header("last-modified") {
            request.headers.replaceOrAdd(name: "If-Modified-Since", value: modified)
            added = true
        }
        return added
    }

    private static func contentType(ofPath path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html", "htm": return "text/html"
        case "js", "mjs": return "text/javascript"
        case "json": return "application/json"
        case "txt": return "text/plain"
        case "css": return "text/css"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "wasm": return "application/wasm"
        default: return "application/octet-stream"
        }
    }
}

/// A fetch failure the host explains itself (a refused URL, a redirect rule).
struct FetchFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
