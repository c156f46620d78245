import Foundation

/// What a page's `WebSocket`s may hold: host-side bounds on what a script or a server can grow.
///
/// ```swift
/// var configuration = WebPageConfiguration()
/// configuration.webSocketLimits.maximumMessageBytes = 1 << 20
/// let page = try WebPage(configuration: configuration)
/// ```
///
/// Browsers set no message limit; a host running scripts for servers it does not control needs
/// one. What passes a limit closes the connection, and the page sees it as browsers show a
/// failed connection: an `error` event, then a `close` event with code 1006 and `wasClean`
/// false; its `reason` says which limit (browsers leave it empty).
public struct WebSocketLimits: Sendable, Equatable {
    /// The longest message taken from a server, compressed or inflated (default 64 MiB). A
    /// longer one closes the connection with 1009 (Message Too Big) on the wire; a frame whose
    /// header announces more is refused before its payload is read.
    public var maximumMessageBytes = 64 << 20

    /// Connections a page has open (or opening) at once (default 64). A `WebSocket` made past
    /// it fails at once: `error`, then `close` with 1006.
    public var maximumConnections = 64

    /// Received bytes the page has not yet had as `message` events, per connection (default
    /// 4 MiB), past which the host stops reading from the socket, so TCP pushes back on the
    /// server; reading resumes as the page catches up. One message longer than this is still
    /// delivered whole.
    public var maximumUnreadBytes = 4 << 20

    /// How long reading may stay stopped for a page that does not take its messages (its
    /// thread busy) before the connection is closed with 1008 and a reason that says so
    /// (default 60 s; nil: never).
    public var maximumReadStall: TimeInterval? = 60

    /// Bytes `send()` queued that the network has not taken (`bufferedAmount`), past which the
    /// connection is closed, as browsers close one whose send buffer is full (default 64 MiB).
    public var maximumBufferedBytes = 64 << 20

    /// How long the opening handshake may take, connecting included (default 30 s).
    public var handshakeTimeout: TimeInterval = 30

    /// The defaults.
    ///
    /// ```swift
    /// let limits = WebSocketLimits()
    /// ```
    public init() {}
}
