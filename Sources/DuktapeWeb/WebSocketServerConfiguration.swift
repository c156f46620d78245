import Foundation

/// How a `WebSocketServer` listens and what its clients may hold.
///
/// ```swift
/// var configuration = WebSocketServerConfiguration()
/// configuration.port = 11335
/// configuration.heartbeatTimeout = 8
/// let server = try await WebSocketServer(configuration: configuration)
/// ```
public struct WebSocketServerConfiguration: Sendable, Equatable {
    /// The address to listen on (default 127.0.0.1: the in-app server of LWWebSocket serves
    /// its own app; give "0.0.0.0" to listen on every interface).
    public var host = "127.0.0.1"
    /// The port (default 0: any free port; `WebSocketServer.port` says which).
    public var port = 0
    /// The path clients connect to (default `/service`, LWWebSocket's); other paths get 404.
    public var path = "/service"
    /// The bytes of a file `send(fileAt:to:)` puts in each `streaming` frame (default 10,240,
    /// LWWebSocket's).
    public var chunkSize = 10_240
    /// How long a client may stay silent, without a heartbeat (`{"messageType":2}`) or any other
    /// message, before it is closed with 1008 (default 8 s, LWWebSocket's watchdog; nil: never).
    public var heartbeatTimeout: TimeInterval? = 8
    /// The longest message taken from a client, compressed or inflated (default 64 MiB); a
    /// longer one closes it with 1009.
    public var maximumMessageBytes = 64 << 20
    /// Connections at once, open or still in their handshake (default 1,024); more are closed
    /// as they are accepted.
    public var maximumClients = 1_024
    /// How long a connection may take to finish its opening handshake (default 10 s): a
    /// client that sends its request slowly, or never, is closed then.
    public var handshakeTimeout: TimeInterval = 10
    /// Bytes of a client's events the program has not taken (callbacks or `events`), past
    /// which the server stops reading from that client until it has (default 4 MiB).
    public var maximumUnreadBytes = 4 << 20
    /// Bytes sent to a client and not yet written to its socket, past which the next message
    /// to it closes it with 1008 (default 16 MiB): a client that does not read cannot make the
    /// server buffer without bound. `send` waits for the client past 64 KiB, and
    /// `send(fileAt:to:)` past its window, so only concurrent senders reach this.
    public var maximumBufferedBytes = 16 << 20
    /// The longest stream a client may send (default 1 GiB): past it the stream's file is
    /// emptied and its end reports `.streamFailed`, so a client cannot fill the disk.
    public var maximumStreamBytes = 1 << 30
    /// Where received streams are written, one file each (default the temporary directory).
    public var streamDirectory = FileManager.default.temporaryDirectory
    /// Whether permessage-deflate is accepted when a client offers it (default true).
    public var compression = true
    /// The threads of the server's own event loops (default 1, at most 64). The server does not
    /// share swift-nio's singleton group: other work queued there (page clients, HTTP clients)
    /// cannot delay its connections.
    ///
    /// ```swift
    /// var configuration = WebSocketServerConfiguration()
    /// configuration.eventLoopThreads = 2
    /// ```
    public var eventLoopThreads = 1

    /// The defaults: 127.0.0.1, any free port, `/service`.
    ///
    /// ```swift
    /// let configuration = WebSocketServerConfiguration()
    /// ```
    public init() {}
}
