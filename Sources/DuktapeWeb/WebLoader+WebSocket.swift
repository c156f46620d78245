import Foundation

/// LWWebLoader's WebSocket methods: a page of its own runs websocket.html, whose `socket` talks
/// to a server speaking LWWebSocket's framing (`WebSocketServer`, or the LWWebSocket pod's
/// `WebSocketManager`), and its messages come back as `WebLoaderResponse`s with the
/// `requestID` `webSocketRequestID`.
///
/// ```swift
/// let loader = WebLoader()
/// var settings = WebLoaderSocketSettings()
/// settings.url = URL(string: "ws://127.0.0.1:\(server.port)/service")!
/// try await loader.wsStart(settings) { message, _ in
///     if case .wsOpened = message.type { print("connected") }
///     if case .plainText(let text) = message.type { print(text) }
/// }
/// try await loader.wsConnect()
/// ```
///
/// The messages: `.wsOpened` (the server's Hello), `.wsClosed` (then websocket.html reconnects,
/// as `WebLoaderSocketSettings` says), `.plainText` (a text frame, or a String frame), `.data`
/// (a Data frame), `.streamStart` / `.streaming` / `.streamEnd` (a stream the server sent,
/// written to a file of its own in the loader's `streamDirectory`), `.error` (anything that
/// failed, which does not close the socket). Arguments reach the page as values, never spliced
/// into source.
extension WebLoader {
    /// The `requestID` of the WebSocket's messages.
    public static let webSocketRequestID = "websocket"

    /// Loads websocket.html in a page of its own (LWWebLoader's `startWSWebViewWithParentView:`)
    /// with `settings`, and calls `handler` with its messages, one at a time, in order, in the
    /// handler's isolation. A second call replaces the first page (closing its socket).
    ///
    /// ```swift
    /// try await loader.wsStart { @MainActor message, _ in print(message.type) }
    /// ```
    public func wsStart(
        _ settings: WebLoaderSocketSettings = WebLoaderSocketSettings(),
        handler: @escaping @isolated(any) @Sendable (WebLoaderResponse, (any Error)?) -> Void
    ) async throws {
        let configuration = self.configuration
        let task = Task { try await LoaderSocket(configuration: configuration, settings: settings, handler: handler) }
        let previous = try replaceSocketPage(with: task)
        await (try? await previous?.value)?.close()
        _ = try await task.value
    }

    /// `wsStart` with the messages as an `AsyncThrowingStream`; it ends after `wsClose()`.
    ///
    /// ```swift
    /// for try await message in try await loader.wsMessages(settings) { print(message.type) }
    /// ```
    public func wsMessages(_ settings: WebLoaderSocketSettings = WebLoaderSocketSettings()) async throws -> AsyncThrowingStream<WebLoaderResponse, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: WebLoaderResponse.self, bufferingPolicy: .unbounded)
        try await wsStart(settings) { message, _ in continuation.yield(message) }
        try await socket().whenClosed { continuation.finish() }
        return stream
    }

    /// Connects (LWWebLoader's `wsConnect`): `socket.connect()` in the page.
    ///
    /// ```swift
    /// try await loader.wsConnect()
    /// ```
    public func wsConnect() async throws {
        _ = try await socket().call("connect")
    }

    /// Sends `text` in the envelope `{"messageType":6,"messageBody":text}` (LWWebLoader's
    /// `wsSendString:`). Throws when the socket is not open.
    ///
    /// ```swift
    /// try await loader.wsSendString("hello")
    /// ```
    public func wsSendString(_ text: String) async throws {
        try await send("sendString", text)
    }

    /// Sends `data` as a Data frame (type 7; LWWebLoader's `wsSendData:`).
    ///
    /// ```swift
    /// try await loader.wsSendData(Data([1, 2, 3]))
    /// ```
    public func wsSendData(_ data: Data) async throws {
        try await send("sendData", data)
    }

    /// Begins a stream (type 3; LWWebLoader's `wsSendStreamStart`).
    ///
    /// ```swift
    /// try await loader.wsSendStreamStart()
    /// ```
    public func wsSendStreamStart() async throws {
        try await send("sendStreamStart", nil)
    }

    /// Sends a chunk of the stream (type 4; LWWebLoader's `wsSendStreaming:`).
    ///
    /// ```swift
    /// try await loader.wsSendStreaming(chunk)
    /// ```
    public func wsSendStreaming(_ data: Data) async throws {
        try await send("sendStreaming", data)
    }

    /// Ends the stream (type 5; LWWebLoader's `wsSendStreamEnd`).
    ///
    /// ```swift
    /// try await loader.wsSendStreamEnd()
    /// ```
    public func wsSendStreamEnd() async throws {
        try await send("sendStreamEnd", nil)
    }

    /// Closes the socket (1000, no reconnection) and removes its page; returns once the
    /// handler has had every message. Does nothing without a socket page.
    ///
    /// ```swift
    /// await loader.wsClose()
    /// ```
    public func wsClose() async {
        await (try? await takeSocketPage()?.value)?.close()
    }

    /// Calls a send method of the page's `socket` (bytes go as a Uint8Array, whatever the
    /// loader's `binaryEncoding`, which is the wire format of the page's messages to Swift).
    private func send(_ method: String, _ value: Any?) async throws {
        let socket = try await self.socket()
        guard try await socket.call(method, value) else {
            throw WebLoaderError.failed(requestID: Self.webSocketRequestID, url: socket.url, reason: "the WebSocket is not open")
        }
    }
}
