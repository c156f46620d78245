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

/// A page's network: `fetch`'s natives (`PageSeam.FetchNatives`), the transfers they start,
/// and the page's `<script src>` loads, on the page's async-http-client whose I/O runs on the
/// process's event loops. Every request goes through the same stages (`perform`): the policy
/// (`RequestPolicy`), the cookies (`CookieScope`), the cache (`CachePlan`), redirects
/// (`RedirectRule`) and the transport (`HTTPTransport`, `ResponseReceiver`); its events go to a
/// `TransferSink`: for `fetch`, macrotasks posted to the page's loop, through fetch.js's
/// handlers (`PageSeam.TransferEvents`: head, available, end, fail); for a script, a
/// `ScriptCollector`.
///
/// A transfer's terminal event ends its pending-work handle, so a loop run until idle waits
/// for it; closing the page abandons every transfer (their connections are closed).
final class PageNetwork: @unchecked Sendable {
    // @unchecked: `events` is set once, before the loop starts, and used only inside calls
    // from the page's context (natives and posted work), which the VM's lock serializes; the
    // transfers are behind a mutex.
    private let loop: JSEventLoop
    private let policy: RequestPolicy
    private let defaultTimeout: Duration?
    private let cookies: CookieScope
    private let cache: HTTPCache?
    /// The page's URL (for `same-origin` credentials), read on the I/O tasks.
    private let documentURL: @Sendable () -> URL?
    private let transfers = Guarded(Transfers())
    private let transport: HTTPTransport
    /// The transfers allowed to do network work at once (WebPageConfiguration.maximumConcurrentTransfers).
    private let slots: TransferSlots

    private struct Transfers {
        var running: [Int: FetchTransfer] = [:]
        var closed = false
        var nextID = 0
    }
    /// The transfers' tasks that have not returned (an ended transfer's tasks return soon after
    /// their cancellation), and the client's shutdown once it began.
    let activity = ActivityCount()
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
        self.defaultTimeout = defaultTimeout
        self.cookies = CookieScope(store: cookies, documentURL: documentURL)
        self.documentURL = documentURL
        transport = HTTPTransport(client: Self.makeClient(), userAgent: userAgent)
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
                    throw FetchFailure(.tooLarge, Self.noMemory(for: parts))
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
        let client = transport.client
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

    /// A new transfer, known to the network (so closing the page abandons it), or nil when the
    /// page is closing.
    private func register(onPause: (@Sendable (Int) -> Void)?, onAbandon: (@Sendable () -> Void)? = nil) -> FetchTransfer? {
        let pending = loop.beginPendingWork()
        let transfer = transfers.withLock { transfers -> FetchTransfer? in
            guard !transfers.closed else { return nil }
            transfers.nextID += 1
            let transfer = FetchTransfer(id: transfers.nextID, pending: pending, onPause: onPause, onAbandon: onAbandon)
            transfers.running[transfer.id] = transfer
            return transfer
        }
        if transfer == nil { pending.cancel() }
        return transfer
    }

    /// Starts the request fetch.js sends (its `headers` as [name, value, …], its `timeout` in
    /// milliseconds, NaN for the page's default) and returns its id; every outcome, a malformed
    /// request included, arrives as events.
    private func send(
        url href: String, method: String, headers flat: [String], body: Data?, redirect: String, timeout milliseconds: Double,
        credentials: String, cache: String
    ) -> Int {
        guard let transfer = register(onPause: pauseObserver) else { return 0 }  // the page is closing: nothing starts
        guard let url = URLRecord.parse(href) else {
            fail(transfer, FetchFailure(.invalidRequest, "'\(href)' is not a valid URL"))
            return transfer.id
        }
        guard let redirect = FetchRequest.Redirect(rawValue: redirect), let credentials = FetchRequest.Credentials(rawValue: credentials),
            let cache = FetchRequest.CacheMode(rawValue: cache)
        else {
            fail(transfer, FetchFailure(.invalidRequest, "the request's redirect, credentials or cache mode is not valid"))
            return transfer.id
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(flat.count / 2)
        var index = 0
        while index + 1 < flat.count {
            headers.append((flat[index], flat[index + 1]))
            index += 2
        }
        let timeout = milliseconds.isFinite && milliseconds >= 0 ? Duration.milliseconds(Int64(min(milliseconds, 1e15))) : defaultTimeout
        begin(FetchRequest(url: url, method: method, headers: headers, body: body, redirect: redirect, timeout: timeout,
                           credentials: credentials, cache: cache),
              on: transfer, to: self)
        return transfer.id
    }

    /// The text of the external script at `url` (a `<script src>`): a GET through the same
    /// stages as `fetch` (policy, the page's cookies for its own origin, the cache, redirects,
    /// decompression), in the page's request timeout, body included (a server that sends a head
    /// and then nothing cannot hold the page's load). A status other than 2xx, or a body over
    /// 16 MB, is an error.
    func loadScript(_ url: URLRecord) async throws -> String {
        try await load(url, limit: Self.maximumScriptBytes, anyStatus: false, credentials: .sameOrigin).text
    }

    /// The longest external script a page loads.
    static let maximumScriptBytes = 16 << 20

    /// Loads a document for a navigation: GET, redirects followed (each hop under the policy),
    /// the cookies of every hop sent and stored (a navigation's credentials are included), any
    /// status (an error page is a document), at most `maximumDocumentBytes`.
    func loadDocument(_ url: URLRecord) async throws -> ScriptCollector.Loaded {
        try await load(url, limit: Self.maximumDocumentBytes, anyStatus: true, credentials: .include)
    }

    /// A GET of `url` collected whole (at most `limit` bytes; any status or 2xx only).
    private func load(_ url: URLRecord, limit: Int, anyStatus: Bool, credentials: FetchRequest.Credentials) async throws -> ScriptCollector.Loaded {
        let box = Guarded<ScriptCollector?>(nil)
        guard let transfer = register(onPause: nil, onAbandon: { box.withLock { $0 }?.abandoned() }) else {
            throw FetchFailure(.cancelled, "GET \(url.href): the page closed")
        }
        let id = transfer.id
        let collector = ScriptCollector(request: "GET \(url.href)", limit: limit, anyStatus: anyStatus) { [weak self] in self?.cancel(id) }
        box.withLock { $0 = collector }
        begin(FetchRequest(url: url, method: "GET", headers: [], body: nil, redirect: .follow, timeout: defaultTimeout,
                           credentials: credentials, cache: .default),
              on: transfer, to: collector)
        return try await withTaskCancellationHandler {
            try await collector.loaded()
        } onCancel: { [weak self] in
            self?.cancel(id)
        }
    }

    /// The longest document a page loads.
    static let maximumDocumentBytes = 16 << 20

    /// Starts `request`'s tasks on `transfer`: its timeout, and its network work once a slot is
    /// free (at most `maximumConcurrentTransfers` do network work at once; the rest wait).
    private func begin(_ request: FetchRequest, on transfer: FetchTransfer, to sink: some TransferSink) {
        if let timeout = request.timeout {
            transfer.expire(after: timeout) { transfer in
                sink.fail(transfer, .requestTimeout("\(request.method) \(request.url.href) timed out after \(timeout)"))
            }
        }
        let slots = self.slots
        start(transfer) { [weak self] (transfer: FetchTransfer) in
            guard await slots.acquire() else { return }
            defer { slots.release() }
            await self?.perform(request, on: transfer, to: sink)
        }
    }

    // MARK: - Events (the page's transfers)

    /// What a transfer tells the page.
    private enum Event: Sendable {
        case head(TransferHead)
        /// Bytes wait for a page that wanted some (`FetchTransfer.queue`).
        case available
        /// The end of the body, after the bytes still waiting.
        case end
        case error(FetchFailure)
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
        case let .head(head):
            events.head(id, status: head.status, statusText: head.statusText, url: head.url, redirected: head.redirected,
                        headers: head.headers, type: head.type)
        case .available:
            // Bytes are waiting and the page wanted some: its stream pulls them (the one way
            // bytes reach a stream, so they keep their order even when a finalizer run by the
            // chunk's allocation reads from the stream).
            events.available(id)
        case .end:
            // The stream pulls the bytes it has not pulled yet, then closes: the transfer is
            // still known to `pull` until this returns.
            events.end(id)
        case let .error(failure):
            events.fail(id, failure)
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

    // MARK: - The stages

    /// Runs `first` through the stages, policy → cookies → cache → redirects → transport, each
    /// hop of its redirects again from the policy, and delivers the outcome to `sink`.
    private func perform(_ first: FetchRequest, on transfer: FetchTransfer, to sink: some TransferSink) async {
        var request = first
        var redirected = false
        var hops = 0
        do {
            while true {
                if let refusal = policy.refusal(of: request.url) { throw FetchFailure(.refusedByPolicy, refusal) }
                if request.url.scheme == "file" {
                    try await readFile(request, redirected: redirected, on: transfer, to: sink)
                    return
                }
                let withCookies = cookies.sends(request)
                var headers = HTTPTransport.headers(for: request, userAgent: transport.userAgent,
                                                    cookie: withCookies ? cookies.header(for: request.url) : nil,
                                                    storeKeepsCookies: cookies.store != nil)
                let pageOrigin = documentURL().flatMap { URLRecord.parse($0.absoluteString)?.origin } ?? "null"
                var plan = CachePlan(request: request, headers: headers, cache: cache, pageOrigin: pageOrigin,
                                     cookiePartition: cookies.partition)
                if let stored = plan.answer(now: Date()) {
                    if try await serve(stored, url: request.url, redirected: redirected, on: transfer, to: sink) { return }
                    plan.lostBody()
                }
                try plan.checkNetworkAllowed()
                let conditional = plan.addValidators(to: &headers)
                let (receiver, response) = try await transport.send(request, headers: headers)
                let status = Int(response.status.code)
                if withCookies { cookies.receive(response.headers[canonicalForm: "set-cookie"].map(String.init), from: request.url) }
                plan.responded(method: request.method, status: status)
                if status == 304, conditional {
                    try await receiver.receiveBody(.discard(limit: 1 << 20, request: "\(request.method) \(request.url.href)"))
                    let headers = response.headers.filter { !Self.hiddenResponseHeaders.contains($0.name.lowercased()) }
                        .flatMap { [$0.name, Self.byteString($0.value)] }
                    if let refreshed = plan.refreshed(with: headers) {
                        if try await serve(refreshed, url: request.url, redirected: redirected, on: transfer, to: sink) { return }
                        plan.lostBody()
                        throw FetchFailure(.other, "\(plan.key): the cached body went missing after a 304")
                    }
                }
                if RedirectRule.statuses.contains(status), let location = response.headers.first(name: "location") {
                    try await receiver.receiveBody(.discard(limit: 1 << 20, request: "\(request.method) \(request.url.href)"))
                    switch try RedirectRule.apply(status: status, location: location, to: request, hops: hops) {
                    case .manual:
                        sink.head(head(status: 0, statusText: "", url: request.url, redirected: redirected, headers: [], type: "opaqueredirect"),
                                  of: transfer)
                        sink.end(transfer)
                        return
                    case .follow(let next):
                        hops += 1
                        request = next
                        redirected = true
                        continue
                    }
                }
                // Set-Cookie never reaches scripts (Fetch's forbidden response header names).
                var headerList: [String] = []
                for (name, value) in response.headers where !Self.hiddenResponseHeaders.contains(name.lowercased()) {
                    headerList += [name, Self.byteString(value)]
                }
                let writer = plan.writer(status: status, statusText: response.status.reasonPhrase, headers: headerList)
                sink.head(head(status: status, statusText: response.status.reasonPhrase, url: request.url, redirected: redirected,
                               headers: headerList, type: "basic"),
                          of: transfer)
                do {
                    try await receiver.receiveBody(.stream(transfer, cache: writer, posted: { sink.available(transfer) }))
                } catch {
                    writer?.discard()
                    throw error
                }
                guard !transfer.isEnded else {  // ended meanwhile: the body may not be whole
                    writer?.discard()
                    return
                }
                writer?.commit()
                sink.end(transfer)
                return
            }
        } catch {
            guard !transfer.isEnded else { return }
            sink.fail(transfer, HTTPTransport.failure(error, of: request))
        }
    }

    /// Response headers scripts never see (Fetch's forbidden response header names).
    private static let hiddenResponseHeaders: Set<String> = ["set-cookie", "set-cookie2"]

    private func head(status: Int, statusText: String, url: URLRecord, redirected: Bool, headers: [String], type: String) -> TransferHead {
        var address = url
        address.fragment = nil
        return TransferHead(status: status, statusText: statusText, url: address.href, redirected: redirected, headers: headers, type: type)
    }

    /// A header value as the bytes it was on the wire, one character per byte (Fetch's byte
    /// strings, which `Headers` takes back unchanged).
    private static func byteString(_ value: String) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in value.utf8 { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    // MARK: - Files

    private func readFile(_ request: FetchRequest, redirected: Bool, on transfer: FetchTransfer, to sink: some TransferSink) async throws {
        guard request.method == "GET" || request.method == "HEAD" else {
            throw FetchFailure(.invalidRequest, "\(request.url.href): file URLs can only be read (GET), not \(request.method)")
        }
        guard let path = RequestPolicy.filePath(request.url) else { throw FetchFailure(.invalidRequest, "\(request.url.href) is not a local file") }
        let (handle, size) = try openFile(path, for: request.url)
        defer { try? handle.close() }
        let headers = ["Content-Type", Self.contentType(ofPath: path), "Content-Length", String(size)]
        sink.head(head(status: 200, statusText: "OK", url: request.url, redirected: redirected, headers: headers, type: "basic"), of: transfer)
        if request.method == "GET" { try await stream(handle, size: size, of: request.url.href, on: transfer, to: sink) }
        sink.end(transfer)
    }

    /// Opens the file of a file URL once, and checks what was opened: a regular file (a FIFO or
    /// a device could block or never end) whose real path, read from the open descriptor, is
    /// under the policy's root. The policy's own check resolved the path before; checking the
    /// descriptor closes the window in which a link could be switched to a file outside the root.
    private func openFile(_ path: String, for url: URLRecord) throws -> (FileHandle, Int) {
        // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FetchFailure(.noSuchFile, "\(url.href): no such file") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            try? handle.close()
            throw FetchFailure(.noSuchFile, "\(url.href): no such file")
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        let realPath = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard policy.allowsOpenedFile(atRealPath: realPath) else {
            try? handle.close()
            throw FetchFailure(.refusedByPolicy, "\(url.href) is refused by the page's request policy: the file opened is not under the file access root")
        }
        return (handle, Int(info.st_size))
    }

    /// Sends a file's bytes as the transfer's chunks (with the same flow control as the network's).
    /// A read that fails, or a file that turns out shorter or longer than `size`, fails the
    /// transfer: a body is never cut short as if it had ended.
    private func stream(_ handle: FileHandle, size: Int, of url: String, on transfer: FetchTransfer, to sink: some TransferSink) async throws {
        var sent = 0
        while !transfer.isEnded, !Task.isCancelled {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 64 << 10) ?? Data()
            } catch {
                throw FetchFailure(.other, "\(url): reading the body failed after \(sent) bytes (\(error))")
            }
            if chunk.isEmpty {
                if sent != size { throw FetchFailure(.other, "\(url): the body has \(sent) bytes where \(size) were expected") }
                return
            }
            sent += chunk.count
            if transfer.queue(ByteBuffer(bytes: chunk)) { sink.available(transfer) }
            await transfer.waitForRoom()
        }
    }

    // MARK: - Cache

    /// Answers from the cache: the stored head, then the stored body. Returns false, sending
    /// nothing, when the body file is gone.
    private func serve(
        _ stored: HTTPCache.Stored, url: URLRecord, redirected: Bool, on transfer: FetchTransfer, to sink: some TransferSink
    ) async throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: stored.body.path) else { return false }
        defer { try? handle.close() }
        sink.head(head(status: stored.entry.status, statusText: stored.entry.statusText, url: url, redirected: redirected,
                       headers: stored.entry.headers, type: "basic"),
                  of: transfer)
        try await stream(handle, size: stored.entry.size, of: url.href, on: transfer, to: sink)
        sink.end(transfer)
        return true
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


/// The page's own transfers (fetch.js's): each event is posted to the page's loop and handed to
/// fetch.js's handler there; the terminal one ends the transfer's pending work in the same step.
extension PageNetwork: TransferSink {
    func head(_ head: TransferHead, of transfer: FetchTransfer) {
        post(transfer, .head(head))
    }

    func available(_ transfer: FetchTransfer) {
        post(transfer, .available)
    }

    func end(_ transfer: FetchTransfer) {
        finish(transfer, .end)
    }

    func fail(_ transfer: FetchTransfer, _ failure: FetchFailure) {
        finish(transfer, .error(failure))
    }
}
