import Foundation

/// How a `WebLoader`'s WebSocket page (websocket.html) connects: the server's URL, the
/// heartbeat, and the reconnection back-off.
///
/// ```swift
/// var settings = WebLoaderSocketSettings()
/// settings.url = URL(string: "ws://127.0.0.1:11335/service")!
/// settings.reconnectAttempts = 10
/// try await loader.wsStart(settings) { message, _ in print(message.type) }
/// ```
///
/// The original retried after 1, 2, 4, 8 and 16 milliseconds (its delays were meant as
/// seconds); these are seconds, doubled at each attempt from `reconnectDelay` up to
/// `maximumReconnectDelay`, each varied by ± `jitter` so that many clients do not retry in step.
public struct WebLoaderSocketSettings: Sendable, Equatable {
    /// The server (default `ws://localhost:11335/service`, LWWebLoader's).
    public var url = URL(string: "ws://localhost:11335/service") ?? URL(fileURLWithPath: "/")
    /// Seconds between heartbeats (`{"messageType":2}`) while the socket is open (default 5).
    public var heartbeatInterval: TimeInterval = 5
    /// The first reconnection's delay in seconds (default 1).
    public var reconnectDelay: TimeInterval = 1
    /// The longest delay between reconnections, in seconds (default 30).
    public var maximumReconnectDelay: TimeInterval = 30
    /// Reconnections tried after a close before giving up with an `.error` message (default
    /// 5); an open starts the count again.
    public var reconnectAttempts = 5
    /// The fraction by which each delay varies at random, 0 to 1 (default 0.2).
    public var jitter = 0.2

    /// The defaults.
    ///
    /// ```swift
    /// let settings = WebLoaderSocketSettings()
    /// ```
    public init() {}
}
