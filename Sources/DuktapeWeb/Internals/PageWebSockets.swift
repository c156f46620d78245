import DuktapeCore
import DuktapeRuntime
import Foundation
import NIOCore
import NIOPosix

/// A page's `WebSocket` connections: websocket.js's natives (`PageSeam.WebSocketNatives`),
/// the connections they open (`WebSocketDialer`, on the process's event loops, never on the
/// page's thread), and their events, posted to the page's loop as macrotasks in the order they
/// happened (`PageSeam.WebSocketEvents`).
///
/// Flow control: received messages the page has not had count as unread; past
/// `WebSocketLimits.maximumUnreadBytes` (or `maximumUnreadMessages` of them), or while the
/// page's script messages waiting for their handlers are past half their limits (a page that
/// posts what it receives, as websocket.html does, must not outrun its handlers), the
/// connection stops reading from its socket until the page catches up, and a page that does
/// not for `maximumReadStall` has the connection closed with 1008. Bytes sent and not yet written count as `bufferedAmount`; past
/// `maximumBufferedBytes` the connection is dropped.
///
/// Each connection holds a pending-work handle until its `close` event is posted, so a loop run
/// until idle waits for it; closing the page closes every connection with 1001 (Going Away).
final class PageWebSockets: @unchecked Sendable {
    // @unchecked: `events` is set once, before the loop starts, and used on the page's thread
    // only; the sockets are behind a mutex.
    private let loop: JSEventLoop
    private let policy: RequestPolicy
    private let cookies: CookieStore?
    private let userAgent: String
    private let documentURL: @Sendable () -> URL?
    private let limits: WebSocketLimits
    /// Whether the page's script messages waiting for handlers are past half their limits.
    private let backlogIsHigh: @Sendable () -> Bool
    private let sockets = Guarded(Sockets())
    /// Bytes sent by all the page's connections and not yet written, and who waits for them to
    /// fall below a mark (`waitUntilWritten`).
    private let unwritten = Guarded<(bytes: Int, waiters: [(mark: Int, token: UInt64, continuation: CheckedContinuation<Void, Never>)], next: UInt64)>((0, [], 0))
    /// Messages posted and not yet dispatched, per connection, past which it stops reading.
    static let maximumUnreadMessages = 256
    /// The connections' tasks and channels, until each has closed.
    let activity = ActivityCount()
    var events: PageSeam.WebSocketEvents?

    private struct Sockets {
        var open: [Int: Socket] = [:]
        var nextID = 0
        var closed = false
    }

    init(loop: JSEventLoop, policy: RequestPolicy, userAgent: String, cookies: CookieStore?, limits: WebSocketLimits,
         documentURL: @escaping @Sendable () -> URL?, backlogIsHigh: @escaping @Sendable () -> Bool = { false }) {
        self.backlogIsHigh = backlogIsHigh
        self.loop = loop
        self.policy = policy
        self.userAgent = userAgent
        self.cookies = cookies
        self.limits = limits
        self.documentURL = documentURL
    }

    deinit {
        closeAll()
    }

    /// One connection, from `open` until its `close` event is posted.
    final class Socket: Sendable {
        let id: Int
        let pending: PendingWork
        let token: UInt64
        let state = Guarded(State())

        struct State {
            var handle: WebSocketConnection.Handle?
            var dial: Task<Void, Never>?
            /// The page called `close()` before the connection opened.
            var abandoned = false
            var ended = false
            /// Received bytes posted and not yet dispatched; whether reading is stopped; the
            /// timer that closes a stalled connection.
            /// Events waiting for the page's job (`enqueue`).
            var inbox: [Incoming] = []
            var unread = 0
            var unreadCount = 0
            var paused = false
            var stall: Scheduled<Void>?
            /// Sent bytes not yet written, and written bytes the page has not been told of.
            var unwritten = 0
            var written = 0
        }

        init(id: Int, pending: PendingWork, token: UInt64) {
            self.id = id
            self.pending = pending
            self.token = token
        }
    }

    // MARK: - Natives

    func natives(in context: JSContext, documentURL: JSValue) -> PageSeam.WebSocketNatives {
        PageSeam.WebSocketNatives(
            open: JSValue(newFunctionIn: context) { [weak self] (url: String, protocols: [String]) -> Int in
                self?.open(url, protocols: protocols) ?? 0
            },
            send: JSValue(newFunctionIn: context) { [weak self] (id: Int, bytes: JSValue, open: Bool) -> Int in
                guard let self else { return 0 }
                var buffer = ByteBuffer()
                _ = bytes.withUnsafeUint8ArrayBytes { buffer.writeBytes($0) }  // one copy, from the engine's bytes
                return self.send(id, text: false, buffer, open: open)
            },
            sendText: JSValue(newFunctionIn: context) { [weak self] (id: Int, text: String, open: Bool) -> Int in
                guard let self else { return 0 }
                var buffer = ByteBuffer()
                buffer.writeString(text)
                return self.send(id, text: true, buffer, open: open)
            },
            close: JSValue(newFunctionIn: context) { [weak self] (id: Int, code: Int, reason: String) in
                self?.close(id, code: code, reason: reason)
            },
            documentURL: documentURL)
    }

    private func socket(_ id: Int) -> Socket? {
        sockets.withLock { $0.open[id] }
    }

    /// Starts connecting to `href` (websocket.js checked it: an absolute ws or wss URL without
    /// a fragment) and returns the socket's id; every outcome arrives as events.
    private func open(_ href: String, protocols: [String]) -> Int {
        let pending = loop.beginPendingWork()
        let token = activity.begin()
        let admitted = sockets.withLock { sockets -> (Socket, full: Bool)? in
            guard !sockets.closed else { return nil }
            sockets.nextID += 1
            let socket = Socket(id: sockets.nextID, pending: pending, token: token)
            let full = sockets.open.count >= limits.maximumConnections
            sockets.open[socket.id] = socket
            return (socket, full)
        }
        guard let (socket, full) = admitted else {
            pending.cancel()
            activity.end(token)
            return 0
        }
        if full {
            end(socket, failure: "the page has \(limits.maximumConnections) WebSocket connections open (WebSocketLimits.maximumConnections)")
            return socket.id
        }
        guard let url = URLRecord.parse(href), url.scheme == "ws" || url.scheme == "wss" else {
            end(socket, failure: "'\(href)' is not a ws or wss URL")
            return socket.id
        }
        if let refusal = policy.refusal(of: url, webSocket: true) {
            end(socket, failure: refusal)
            return socket.id
        }
        let origin = documentURL().flatMap { URLRecord.parse($0.absoluteString)?.origin } ?? "null"
        // Cookies go with the handshake as with a request to the same http(s) URL.
        let cookieURL = URL(string: (url.scheme == "wss" ? "https" : "http") + url.href.dropFirst(url.scheme.count))
        let request = WebSocketDialer.Request(
            url: url, protocols: protocols, origin: origin, cookie: cookieURL.flatMap { cookies?.header(for: $0) }, userAgent: userAgent,
            limits: WebSocketConnection.Limits(maximumMessageBytes: max(limits.maximumMessageBytes, 0)),
            timeout: .milliseconds(Int64((min(max(limits.handshakeTimeout.isFinite ? limits.handshakeTimeout : 30, 0), 1e9) * 1000).rounded())))
        let id = socket.id
        let dial = Task { [weak self, cookies] in
            do {
                _ = try await WebSocketDialer.connect(
                    request, on: MultiThreadedEventLoopGroup.singleton,
                    onOpen: { [weak self] opened in
                        if let cookieURL, !opened.setCookies.isEmpty { cookies?.receive(opened.setCookies, from: cookieURL) }
                        self?.opened(id, opened)
                    },
                    onEvent: { [weak self] event in self?.received(event, on: id) })
            } catch {
                guard let self, let socket = self.socket(id) else { return }
                self.end(socket, failure: "\(error)")
            }
        }
        socket.state.withLock { $0.dial = dial }
        return socket.id
    }

    /// The handshake succeeded (on the connection's event loop, before any message of it).
    private func opened(_ id: Int, _ opened: WebSocketDialer.Opened) {
        guard let socket = socket(id) else {
            opened.handle.abort("the page closed")
            return
        }
        let abandoned = socket.state.withLock { state -> Bool in
            state.handle = opened.handle
            return state.abandoned
        }
        if abandoned {
            opened.handle.abort("the page closed the WebSocket before it opened")
            return
        }
        post(socket) { events in events.open(id, protocolName: opened.protocolName, extensions: opened.extensions) }
    }

    /// Sends a message of the page's and returns its size in bytes (what `bufferedAmount`
    /// grows by); when the socket is not open it only counts them, as the standard says.
    private func send(_ id: Int, text: Bool, _ buffer: ByteBuffer, open: Bool) -> Int {
        let count = buffer.readableBytes
        guard open, let socket = socket(id) else { return count }
        let handle = socket.state.withLock { state -> WebSocketConnection.Handle? in
            guard !state.ended, let handle = state.handle else { return nil }
            state.unwritten += count
            return state.unwritten > limits.maximumBufferedBytes ? nil : handle
        }
        guard let handle else {
            if let handle = socket.state.withLock({ $0.handle }), !socket.state.withLock({ $0.ended }) {
                handle.abort("the page queued more than \(limits.maximumBufferedBytes) bytes the network has not taken (WebSocketLimits.maximumBufferedBytes)")
            }
            return count
        }
        unwritten.withLock { $0.bytes += count }
        handle.send(text: text, buffer).whenComplete { [weak self] _ in self?.wrote(count, on: socket) }
        return count
    }

    /// `count` bytes were written (or dropped with the connection): the page is told, one job
    /// for the writes that complete before it runs.
    private func wrote(_ count: Int, on socket: Socket) {
        let woken = unwritten.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.bytes -= count
            let bytes = state.bytes
            let ready = state.waiters.filter { bytes <= $0.mark }.map(\.continuation)
            state.waiters.removeAll { bytes <= $0.mark }
            return ready
        }
        for waiter in woken { waiter.resume() }
        let first = socket.state.withLock { state -> Bool in
            state.unwritten -= count
            state.written += count
            return state.written == count
        }
        guard first else { return }
        _ = loop.post { [weak self] _ in
            let written = socket.state.withLock { state -> Int in
                defer { state.written = 0 }
                return state.written
            }
            self?.events?.written(socket.id, written)
        }
    }

    /// The page's `close()`: the closing handshake with `code` (-1: none) and `reason`, or, for
    /// a socket still connecting, the connection failed.
    private func close(_ id: Int, code: Int, reason: String) {
        guard let socket = socket(id) else { return }
        let (handle, dial) = socket.state.withLock { state in
            if state.handle == nil { state.abandoned = true }
            return (state.handle, state.dial)
        }
        if let handle {
            handle.close(code: code < 0 ? nil : UInt16(clamping: code), reason: reason)
        } else {
            dial?.cancel()
        }
    }

    // MARK: - Connection events

    /// An event of connection `id` (on its event loop), posted to the page.
    private func received(_ event: WebSocketConnection.Event, on id: Int) {
        guard let socket = socket(id) else { return }
        switch event {
        case .text(let text):
            let size = text.utf8.count
            admit(size, on: socket)
            enqueue(.text(text), on: socket)
        case .binary(let bytes):
            admit(bytes.readableBytes, on: socket)
            enqueue(.binary(bytes), on: socket)
        case .closing:
            enqueue(.closing, on: socket)
        case .closed(let closure):
            // A close frame came: its code and reason (clean or not); none: the connection
            // failed or was lost, 1006, with an error event first and the reason why.
            if closure.code == 1006 {
                end(socket, code: 1006, reason: closure.failure ?? "", wasClean: false, error: true)
            } else {
                end(socket, code: closure.code, reason: closure.reason, wasClean: closure.wasClean, error: false)
            }
        }
    }

    /// What waits for the page, in order.
    enum Incoming: Sendable {
        case text(String)
        case binary(ByteBuffer)
        case closing
    }

    /// Queues `item` for the page; the first item queued posts one job, which delivers every
    /// item queued before it runs (one wake-up of the page's thread for a burst of messages).
    private func enqueue(_ item: Incoming, on socket: Socket) {
        let first = socket.state.withLock { state -> Bool in
            state.inbox.append(item)
            return state.inbox.count == 1
        }
        guard first else { return }
        post(socket) { [weak self] events in
            let items = socket.state.withLock { state -> [Incoming] in
                defer { state.inbox = [] }
                return state.inbox
            }
            for item in items {
                switch item {
                case .text(let text):
                    do {
                        try events.message(socket.id, text: text)
                    } catch {
                        socket.state.withLock { $0.handle }?.abort("no memory for a message of \(text.utf8.count) bytes (the page's memory limit)")
                    }
                    self?.dispatched(text.utf8.count, on: socket)
                case .binary(let bytes):
                    do {
                        try events.message(socket.id, bytes: bytes)
                    } catch {
                        socket.state.withLock { $0.handle }?.abort("no memory for a message of \(bytes.readableBytes) bytes (the page's memory limit)")
                    }
                    self?.dispatched(bytes.readableBytes, on: socket)
                case .closing:
                    events.closing(socket.id)
                }
            }
        }
    }

    /// A message of `size` bytes was posted: past the unread limits, or with the page's
    /// backlog high, reading stops.
    private func admit(_ size: Int, on socket: Socket) {
        let backlog = backlogIsHigh()
        let pause = socket.state.withLock { state -> WebSocketConnection.Handle? in
            state.unread += size
            state.unreadCount += 1
            guard !state.paused, backlog || state.unread > limits.maximumUnreadBytes || state.unreadCount > Self.maximumUnreadMessages,
                let handle = state.handle
            else { return nil }
            state.paused = true
            return handle
        }
        guard let pause else { return }
        pause.pauseReading()
        if let stall = limits.maximumReadStall, stall.isFinite, stall >= 0 {
            let timer = pause.channel.eventLoop.scheduleTask(in: .milliseconds(Int64(min(stall, 1e9) * 1000))) {
                pause.close(code: 1008, reason: "the page did not take its messages for \(stall.formatted()) s")
            }
            // Resumed meanwhile: the timer goes; kept, it replaces (and cancels) an older one.
            let stale = socket.state.withLock { state -> Scheduled<Void>? in
                guard state.paused else { return timer }
                defer { state.stall = timer }
                return state.stall
            }
            stale?.cancel()
        }
    }

    /// The page had a message of `size` bytes: below half the limits, reading resumes.
    private func dispatched(_ size: Int, on socket: Socket) {
        socket.state.withLock { state -> Void in
            state.unread -= size
            state.unreadCount -= 1
        }
        resumeIfRelieved(socket)
    }

    /// The page's script message backlog fell below half its limits: connections whose own
    /// unread messages allow it read again.
    func relieved() {
        for socket in sockets.withLock({ Array($0.open.values) }) { resumeIfRelieved(socket) }
    }

    private func resumeIfRelieved(_ socket: Socket) {
        guard socket.state.withLock({ $0.paused }), !backlogIsHigh() else { return }
        let resume = socket.state.withLock { state -> WebSocketConnection.Handle? in
            guard state.paused, state.unread <= limits.maximumUnreadBytes / 2, state.unreadCount <= Self.maximumUnreadMessages / 2 else {
                return nil
            }
            state.paused = false
            state.stall?.cancel()
            state.stall = nil
            return state.handle
        }
        resume?.resumeReading()
    }

    private func post(_ socket: Socket, _ work: @escaping @Sendable (PageSeam.WebSocketEvents) throws -> Void) {
        _ = loop.post { [weak self] _ in
            guard let events = self?.events else { return }
            try work(events)
        }
    }

    /// Ends `socket` with an error event and a close event with 1006 (a failed connection).
    private func end(_ socket: Socket, failure: String) {
        end(socket, code: 1006, reason: failure, wasClean: false, error: true)
    }

    /// Ends `socket`: its last events (`error` first when `error`), and its pending work.
    private func end(_ socket: Socket, code: UInt16, reason: String, wasClean: Bool, error: Bool) {
        let ending = socket.state.withLock { state -> (Bool, Scheduled<Void>?) in
            guard !state.ended else { return (false, nil) }
            state.ended = true
            defer { state.stall = nil }
            return (true, state.stall)
        }
        guard ending.0 else { return }
        ending.1?.cancel()
        let id = socket.id
        socket.pending.complete { [weak self] _ in
            guard let self, let events else { return }
            self.sockets.withLock { _ = $0.open.removeValue(forKey: id) }
            if error { events.error(id) }
            events.close(id, code: Int(code), reason: reason, wasClean: wasClean)
        }
        activity.end(socket.token)
    }

    /// Returns once the bytes the page's connections were given and have not written are at
    /// most `mark` (at once when they are): a host that sends for the page (WebLoader's
    /// `wsSendStreaming`) waits here, so that it never runs further ahead of the network.
    /// Every write ends, written or failed with its connection, so the wait ends too.
    /// Cancelling the waiting task ends the wait.
    func waitUntilWritten(below mark: Int) async {
        let token = unwritten.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = unwritten.withLock { state -> Bool in
                    if state.bytes <= mark || Task.isCancelled { return true }
                    state.waiters.append((mark, token, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = unwritten.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.token == token }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    // MARK: - Closing the page

    /// Closes every connection with 1001 (the page is going away) and refuses new ones.
    /// Idempotent.
    func closeAll() {
        let all = sockets.withLock { sockets -> [Socket] in
            sockets.closed = true
            return Array(sockets.open.values)
        }
        for socket in all {
            let (handle, dial) = socket.state.withLock { state in
                state.abandoned = true
                return (state.handle, state.dial)
            }
            dial?.cancel()
            handle?.goAway()
        }
    }

    /// `closeAll()`, then returns once every connection is closed.
    func shutdown() async {
        closeAll()
        await activity.idle()
    }
}
