/// The message types of LWWebSocket's framing, shared by `WebSocketServer`, websocket.html and
/// WebLoader's WebSocket methods (LWWebSocket's `LWSocketMessageType`, with its sequential
/// numbers: the first version's bit flags do not interoperate with websocket.html).
///
/// On the wire a binary frame is the type as a 4-byte unsigned little-endian integer, then the
/// payload; a text frame from the client is the JSON envelope `{"messageType": n,
/// "messageBody": "…"}`; a text frame from the server is the raw text.
///
/// ```swift
/// let type = WebSocketMessageType.data
/// print(type.rawValue)   // prints: 7
/// ```
public struct WebSocketMessageType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    /// A type by its number (any: a peer may send one this package does not name).
    ///
    /// ```swift
    /// let custom = WebSocketMessageType(rawValue: 42)
    /// ```
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// 0: bytes with no meaning of their own.
    public static let raw = Self(rawValue: 0)
    /// 1: the server's greeting on open (`01 00 00 00` + "hello world!"); the client's
    /// `ws_opened`.
    public static let hello = Self(rawValue: 1)
    /// 2: the client's heartbeat, `{"messageType":2}` every 5 s, which re-arms the server's
    /// watchdog.
    public static let heartBeat = Self(rawValue: 2)
    /// 3: a stream begins.
    public static let streamStart = Self(rawValue: 3)
    /// 4: a chunk of the stream.
    public static let streaming = Self(rawValue: 4)
    /// 5: the stream ended.
    public static let streamEnd = Self(rawValue: 5)
    /// 6: a string (the client's text envelope).
    public static let string = Self(rawValue: 6)
    /// 7: bytes (`sendData`).
    public static let data = Self(rawValue: 7)

    public var description: String {
        switch rawValue {
        case 0: "raw"
        case 1: "hello"
        case 2: "heartBeat"
        case 3: "streamStart"
        case 4: "streaming"
        case 5: "streamEnd"
        case 6: "string"
        case 7: "data"
        default: "type \(rawValue)"
        }
    }
}
