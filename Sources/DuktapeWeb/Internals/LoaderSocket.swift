import DuktapeCore
import Foundation
import Logging

/// A `WebLoader`'s WebSocket: websocket.html in a page of its own (LWWebLoader's `WSWebView`),
/// its `bridge` messages turned into `WebLoaderResponse`s for the handler (one at a time, in
/// order, in the handler's isolation), and the streams it receives written to a file each.
final class LoaderSocket: Sendable {
    let page: WebPage
    let url: URL
    private let deliveries: Deliveries
    /// The stream being received (its file), and whether the socket is closed.
    private let state = Guarded<(stream: (handle: FileHandle, url: URL)?, closed: Bool)>((nil, false))
    private let directory: URL
    /// Run once the socket is closed and its messages delivered.
    private let finishers = Guarded<(done: Bool, bodies: [@Sendable () -> Void])>((false, []))

    /// Makes the page, loads websocket.html (at http://localhost/, the origin its handshakes
    /// carry) and configures its `socket`.
    init(
        configuration: WebLoaderConfiguration, settings: WebLoaderSocketSettings,
        handler: @escaping @isolated(any) @Sendable (WebLoaderResponse, (any Error)?) -> Void
    ) async throws {
        deliveries = Deliveries(handler)
        directory = configuration.streamDirectory
        url = settings.url
        var pageConfiguration = configuration.page
        let controller = UserContentController()
        let link = Link()
        controller.add(name: "bridge") { message in link.socket?.received(message.body) }
        let logger = configuration.logger
        controller.add(name: "nativelog") { message in logger.info("\(message.body.map { "\($0)" } ?? "")") }
        pageConfiguration.userContentController = controller
        page = try WebPage(configuration: pageConfiguration)
        link.socket = self
        do {
            let loaded = try await page.load(html: PageSeam.webSocketHTML, baseURL: URL(string: "http://localhost/"))
            if let failure = loaded.scriptErrors.first {
                throw WebLoaderError.failed(requestID: WebLoader.webSocketRequestID, url: settings.url, reason: "websocket.html failed to run: \(failure)")
            }
            _ = try await page.callAsyncJavaScript("socket.configure(settings)", arguments: ["settings": [
                "url": settings.url.absoluteString, "heartbeatInterval": settings.heartbeatInterval, "reconnectDelay": settings.reconnectDelay,
                "maximumReconnectDelay": settings.maximumReconnectDelay, "reconnectAttempts": settings.reconnectAttempts,
                "jitter": min(max(settings.jitter, 0), 1), "encoding": configuration.binaryEncoding.rawValue,
            ] as [String: Any]])
        } catch {
            await page.shutdown()
            throw error
        }
    }

    /// The socket, weakly, for the handlers made before it.
    private final class Link: @unchecked Sendable {
        // @unchecked: set once, in init, before the page can post.
        weak var socket: LoaderSocket?
    }

    /// Calls `socket.<method>(value)` in the page; false when the socket was not open to send.
    /// A send returns once at most `sendAhead` bytes wait for the network (the caller's flow
    /// control: a program streaming a file never holds more than that of it).
    func call(_ method: String, _ value: Any? = nil) async throws -> Bool {
        let result = try await page.callAsyncJavaScript("return socket[method](value)", arguments: ["method": method, "value": value ?? NSNull()])
        await page.webSockets.waitUntilWritten(below: Self.sendAhead)
        return result as? Bool ?? true
    }

    /// Bytes a send may leave waiting for the network.
    static let sendAhead = 1 << 20

    /// Messages (and their bytes) handed to the deliveries since the handler last caught up.
    private let undelivered = Guarded<(count: Int, bytes: Int)>((0, 0))

    private func deliver(_ type: WebLoaderResponse.BodyType, received: Int64 = 0) {
        let bytes: Int
        switch type {
        case .data(let data): bytes = data.count
        case .plainText(let text): bytes = text.utf8.count
        default: bytes = 0
        }
        deliveries.send(WebLoaderResponse(requestID: WebLoader.webSocketRequestID, type: type, received: received), nil)
        let behind = undelivered.withLock { state -> Bool in
            state.count += 1
            state.bytes += bytes
            return state.count > 256 || state.bytes > 4 << 20
        }
        // A handler that falls behind holds the page's bridge (this runs on its message queue),
        // so the page's script messages wait, and its WebSocket stops reading: TCP pushes back
        // on the server instead of the messages piling up here.
        if behind {
            let caughtUp = DispatchSemaphore(value: 0)
            let deliveries = self.deliveries
            Task {
                await deliveries.flush()
                caughtUp.signal()
            }
            caughtUp.wait()
            undelivered.withLock { $0 = (0, 0) }
        }
    }

    /// A `bridge` message of websocket.html (on the controller's queue, one at a time).
    private func received(_ body: Any?) {
        guard let message = body as? [String: Any], let type = message["type"] as? String else {
            return deliver(.error("websocket.html posted a message without a type"))
        }
        guard !state.withLock({ $0.closed }) else { return }
        let value = message["value"]
        switch type {
        case "ws_opened": deliver(.wsOpened)
        case "ws_closed":
            let details = value as? [String: Any]
            deliver(.wsClosed(code: (details?["code"] as? NSNumber)?.intValue ?? 1006, reason: details?["reason"] as? String ?? "",
                              wasClean: details?["wasClean"] as? Bool ?? false))
        case "plaintext": deliver(.plainText(value as? String ?? ""))
        case "b64text":
            guard let data = LoaderTransfer.bytes(value) else { return deliver(.error("a data message whose bytes cannot be read")) }
            deliver(.data(data))
        case "b64streamstart": startStream()
        case "b64streaming":
            guard let data = LoaderTransfer.bytes(value) else { return deliver(.error("a stream chunk whose bytes cannot be read")) }
            appendStream(data)
        case "b64streamend": endStream()
        case "error": deliver(.error(value as? String ?? "\(value ?? "an error")"))
        default: deliver(.error("websocket.html posted an unknown message type '\(type)'"))
        }
    }

    // MARK: - Streams

    /// A new file for the stream (mode 0600, never an existing file); an unfinished one before
    /// it is removed.
    private func startStream() {
        discardStream()
        let url = directory.appendingPathComponent("DuktapeWeb-ws-\(UUID().uuidString)")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            return deliver(.error("cannot create the stream's file \(url.path): \(String(cString: strerror(errno)))"))
        }
        state.withLock { $0.stream = (FileHandle(fileDescriptor: fd, closeOnDealloc: true), url) }
        deliver(.streamStart(total: nil, contentType: "", file: url))
    }

    private func appendStream(_ data: Data) {
        guard let stream = state.withLock({ $0.stream }) else { return deliver(.error("a stream chunk arrived outside a stream")) }
        do {
            try stream.handle.write(contentsOf: data)
            deliver(.streaming(progress: nil), received: Int64(data.count))
        } catch {
            discardStream()
            deliver(.error("the stream's file \(stream.url.path) could not be written: \(error)"))
        }
    }

    private func endStream() {
        guard let stream = state.withLock({ state in state.stream.take() }) else {
            return deliver(.error("a stream end arrived outside a stream"))
        }
        do {
            try stream.handle.close()
            deliver(.streamEnd(stream.url))
        } catch {
            LoaderTransfer.unlink(stream.url, ifStillOpenAs: stream.handle.fileDescriptor)
            try? stream.handle.close()
            deliver(.error("the stream's file \(stream.url.path) could not be written: \(error)"))
        }
    }

    /// Closes and removes the file of an unfinished stream (the one this socket created).
    private func discardStream() {
        guard let stream = state.withLock({ state in state.stream.take() }) else { return }
        // `.streamStart` gave the path away: removed only while it is still this file.
        LoaderTransfer.unlink(stream.url, ifStillOpenAs: stream.handle.fileDescriptor)
        try? stream.handle.close()
    }

    // MARK: - Closing

    /// Closes the socket (no reconnection), shuts the page down, and delivers what was queued.
    func close() async {
        _ = try? await call("close")
        await page.shutdown()
        state.withLock { $0.closed = true }
        discardStream()
        await deliveries.flush()
        for body in finishers.withLock({ state in
            state.done = true
            defer { state.bodies = [] }
            return state.bodies
        }) { body() }
    }

    /// Runs `body` once the socket is closed and the handler had every message (at once when
    /// it is already).
    func whenClosed(_ body: @escaping @Sendable () -> Void) {
        let now = finishers.withLock { state -> Bool in
            if state.done { return true }
            state.bodies.append(body)
            return false
        }
        if now { body() }
    }
}
