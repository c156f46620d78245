import Foundation

extension WebSocketServer {
    /// A connected client: an id unique in the server's life, and its address.
    ///
    /// ```swift
    /// for client in server.clients { print(client.id, client.address) }
    /// ```
    public struct Client: Hashable, Sendable, CustomStringConvertible {
        /// 1 for the first client, then 2, 3…
        public let id: Int
        /// The client's IP address and port.
        public let address: String

        public var description: String { "client \(id) (\(address))" }

        public static func == (lhs: Client, rhs: Client) -> Bool { lhs.id == rhs.id }
        public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    }

    /// What happens on the server, in order per client.
    ///
    /// ```swift
    /// if case .data(let client, .data, let bytes) = event { print(client, bytes.count) }
    /// ```
    public enum Event: Sendable {
        /// A client finished its handshake (the server sent it the Hello frame).
        case connected(Client)
        /// A text envelope: its `messageType` (0 when it has none) and `messageBody`.
        case message(Client, WebSocketMessageType, String)
        /// A binary frame of a type other than the heartbeat's and the streams': its payload.
        case data(Client, WebSocketMessageType, Data)
        /// The client began a stream (type 3): a file is open for it.
        case streamStart(Client)
        /// A chunk of the stream (type 4) was written to its file.
        case streaming(Client, byteCount: Int)
        /// The stream ended (type 5): its file, which is the program's now (delete it when done).
        case streamEnd(Client, file: URL)
        /// The stream ended without its file: it could not be written, it passed
        /// `maximumStreamBytes`, a new stream began before it ended, or the connection closed
        /// first (then before `.disconnected`). Its file was removed. A stream that began ends
        /// with exactly one of `.streamEnd` and `.streamFailed`.
        case streamFailed(Client, reason: String)
        /// A frame the framing does not allow, dropped: a binary frame shorter than its 4-byte
        /// type, a text frame that is not a `{messageType, messageBody}` envelope.
        case invalidMessage(Client, reason: String)
        /// The connection closed: the client's close code (1005: none, 1006: no closing
        /// handshake), its reason or ours, and whether the closing handshake completed.
        case disconnected(Client, code: UInt16, reason: String, wasClean: Bool)
    }

    /// The server's events as an `AsyncSequence` (one iteration at a time).
    ///
    /// ```swift
    /// for await event in server.events { print(event) }
    /// ```
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        let queue: EventQueue<Event>?

        public struct AsyncIterator: AsyncIteratorProtocol {
            let queue: EventQueue<Event>?

            public mutating func next() async -> Event? {
                await queue?.next()
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(queue: queue)
        }
    }
}

/// Why a `WebSocketServer` could not do what was asked.
///
/// ```swift
/// do { try await server.send(text: "hi", to: client) } catch WebSocketServerError.noSuchClient { }
/// ```
public enum WebSocketServerError: Error, Sendable, CustomStringConvertible {
    /// The address could not be bound (in use, not an address of this machine).
    case cannotListen(host: String, port: Int, reason: String)
    /// The client is not connected (any more).
    case noSuchClient(WebSocketServer.Client)
    /// The message could not be written: the connection closed meanwhile.
    case connectionClosed(WebSocketServer.Client)
    /// `send(fileAt:to:)` could not open or read the file.
    case cannotReadFile(URL, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .noSuchClient(let client): "\(client) is not connected"
        case .connectionClosed(let client): "the connection of \(client) closed"
        case .cannotReadFile(let url, let reason): "cannot read \(url.path): \(reason)"
        }
    }
}
