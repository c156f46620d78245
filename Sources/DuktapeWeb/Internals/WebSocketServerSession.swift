import Foundation
import NIOCore

extension WebSocketServer {
    /// One client's side of LWWebSocket's framing, on its connection's event loop: the Hello,
    /// the envelopes and typed frames turned into events, the stream files, the heartbeat
    /// watchdog.
    final class Session {
        let client: Client
        private weak var core: Core?
        private var handle: WebSocketConnection.Handle?
        /// The connection (on this event loop), to see whether the server itself stopped
        /// reading it.
        private weak var connection: WebSocketConnection?
        private var eventLoop: (any EventLoop)?
        private var watchdog: Scheduled<Void>?
        /// When the client was last heard from: the watchdog, once due, waits on from there
        /// (one timer per watchdog period, not one per message).
        private var lastHeard = NIODeadline.now()
        /// The watchdog's period in seconds (nil: none), read from the configuration when the
        /// client connects.
        private var timeout: TimeInterval?
        private var period: TimeAmount? { timeout.map { .nanoseconds(Int64(min($0, 1e6) * 1e9)) } }
        /// Whether the connection ended (its `.closed` came).
        private var ended = false
        /// The stream being received: its file (descriptor and URL), and why it failed.
        private var stream: (fd: Int32, url: URL, failure: String?, bytes: Int)?

        init(client: Client, core: Core) {
            self.client = client
            self.core = core
        }

        /// The handshake is done: the client is connected, and the watchdog runs.
        func opened(_ handle: WebSocketConnection.Handle, connection: WebSocketConnection, on eventLoop: any EventLoop) {
            self.handle = handle
            self.connection = connection
            self.eventLoop = eventLoop
            timeout = core?.configuration.heartbeatTimeout.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            core?.emit(.connected(client), from: client)
            heard()
        }

        /// Sends the Hello (`01 00 00 00` + "hello world!"), unless the connection already ended.
        func greet() {
            guard !ended, let handle else { return }
            _ = handle.send(text: false, WebSocketServer.frame(.hello, Data("hello world!".utf8)))
        }

        /// The client was heard from (a frame, or the handshake): the watchdog counts from now.
        private func heard() {
            guard timeout != nil else { return }
            lastHeard = .now()
            if watchdog == nil { armWatchdog() }
        }

        /// Starts the watchdog's timer for the end of the period that began at `lastHeard`.
        private func armWatchdog() {
            guard !ended, let period, let eventLoop else { return }
            // The task holds this session weakly and nothing else: it cannot keep a connection.
            watchdog = eventLoop.assumeIsolated().scheduleTask(deadline: lastHeard + period) { [weak self] in
                self?.watchdogFired()
            }
        }

        private func watchdogFired() {
            watchdog = nil
            guard let timeout, let period else { return }
            // Heard from since the timer was set: the period runs on from then.
            if NIODeadline.now() < lastHeard + period {
                armWatchdog()
                return
            }
            // Not read because the program has not taken its events: not the client's silence.
            if connection?.isPaused == true {
                heard()
                return
            }
            core?.markClosing(client)
            handle?.close(code: 1008, reason: "no heartbeat for \(timeout.formatted()) s")
        }

        private func invalid(_ reason: String) {
            core?.emit(.invalidMessage(client, reason: reason), from: client)
        }

        /// An event of the connection.
        func received(_ event: WebSocketConnection.Event) {
            switch event {
            case .text(let text):
                heard()
                envelope(text)
            case .binary(var bytes):
                heard()
                guard let raw = bytes.readInteger(endianness: .little, as: UInt32.self) else {
                    return invalid("a binary frame of \(bytes.readableBytes) bytes, shorter than its 4-byte type")
                }
                typed(WebSocketMessageType(rawValue: raw), bytes)
            case .closing:
                core?.markClosing(client)
            case .closed(let closure):
                ended = true
                // The handle holds the connection, whose events hold this session: released.
                handle = nil
                // Released, not only cancelled: its task holds the connection, which holds
                // this session, which holds the task.
                watchdog?.cancel()
                watchdog = nil
                let reason = closure.failure.map { closure.reason.isEmpty ? $0 : closure.reason } ?? closure.reason
                // A stream that began ends too: failed, before the disconnection.
                if discardStream() {
                    core?.emit(.streamFailed(client, reason: "the connection closed before the stream ended (\(closure.code)\(reason.isEmpty ? "" : ": " + reason))"), from: client)
                }
                core?.remove(client)
                core?.emit(.disconnected(client, code: closure.code, reason: reason, wasClean: closure.wasClean), from: client)
            }
        }

        /// The client's text envelope.
        private struct Envelope: Decodable {
            var messageType: Double?
            var messageBody: String?
        }

        /// A text frame: the `{messageType, messageBody}` envelope (a missing type is 0, as in
        /// the original; a heartbeat re-arms the watchdog only).
        private func envelope(_ text: String) {
            let raw: UInt32, body: String
            if let plain = Self.plainEnvelope(text) {
                (raw, body) = (plain.type, plain.body ?? "")
            } else {
                guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)) else {
                    return invalid("a text frame that is not a {messageType: number, messageBody: string} JSON object")
                }
                guard let type = UInt32(exactly: envelope.messageType ?? 0) else {
                    return invalid("a messageType that is not a whole number from 0 to 4294967295")
                }
                (raw, body) = (type, envelope.messageBody ?? "")
            }
            let type = WebSocketMessageType(rawValue: raw)
            if type == .heartBeat { return }
            core?.emit(.message(client, type, body), cost: body.utf8.count, from: client)
        }

        /// The envelope as clients write it, read without a JSON decoder: an object of
        /// `messageType` (digits, no sign, fraction or exponent) and `messageBody` (a string
        /// without escapes or control characters), each at most once, either or both, in either
        /// order, JSON's whitespace around the tokens. nil for any other text, which the decoder
        /// then reads: what both accept they read alike, and everything else is the decoder's.
        static func plainEnvelope(_ text: String) -> (type: UInt32, body: String?)? {
            text.utf8.withContiguousStorageIfAvailable { bytes -> (type: UInt32, body: String?)? in
                var index = 0
                func skipSpace() {
                    while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                        index += 1
                    }
                }
                func take(_ byte: UInt8) -> Bool {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == byte else { return false }
                    index += 1
                    return true
                }
                func takeKey(_ key: StaticString) -> Bool {
                    let name = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
                    guard index + name.count + 2 <= bytes.count, bytes[index] == 0x22, bytes[index + name.count + 1] == 0x22,
                        name.indices.allSatisfy({ bytes[index + 1 + $0] == name[$0] })
                    else { return false }
                    index += name.count + 2
                    return true
                }
                var type: UInt32?, body: String?
                guard take(0x7B) else { return nil }  // {
                repeat {
                    skipSpace()
                    if type == nil, takeKey("messageType") {
                        guard take(0x3A) else { return nil }  // :
                        skipSpace()
                        var value: UInt64 = 0, digits = 0
                        while index < bytes.count, (0x30...0x39).contains(bytes[index]), digits <= 10 {
                            value = value * 10 + UInt64(bytes[index] - 0x30)
                            digits += 1
                            index += 1
                        }
                        // A leading zero, a fraction or exponent, a sign or null: the decoder's.
                        guard digits > 0, digits <= 10, value <= UInt64(UInt32.max), !(digits > 1 && bytes[index - digits] == 0x30) else { return nil }
                        type = UInt32(value)
                    } else if body == nil, takeKey("messageBody") {
                        guard take(0x3A), take(0x22) else { return nil }  // :"
                        let start = index
                        while index < bytes.count, bytes[index] != 0x22 {
                            // An escape or a control character: the decoder's.
                            guard bytes[index] != 0x5C, bytes[index] >= 0x20 else { return nil }
                            index += 1
                        }
                        guard index < bytes.count else { return nil }
                        // Cut at ASCII quotes, the valid UTF-8 of a String stays valid.
                        body = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                        index += 1
                    } else {
                        return nil
                    }
                } while take(0x2C)  // ,
                guard take(0x7D) else { return nil }  // }
                skipSpace()
                guard index == bytes.count else { return nil }
                return (type ?? 0, body)
            } ?? nil
        }

        /// A binary frame of `type`, its payload after the type.
        private func typed(_ type: WebSocketMessageType, _ payload: ByteBuffer) {
            switch type {
            case .heartBeat:
                return
            case .streamStart:
                if discardStream() {
                    core?.emit(.streamFailed(client, reason: "a new stream began before the last one ended"), from: client)
                }
                startStream()
            case .streaming:
                guard var current = stream else { return invalid("a streaming frame outside a stream") }
                current.bytes += payload.readableBytes
                let limit = core?.configuration.maximumStreamBytes ?? 0
                if current.failure == nil, current.bytes > limit {
                    current.failure = "the stream is longer than \(limit) bytes (WebSocketServerConfiguration.maximumStreamBytes)"
                    if current.fd >= 0 { ftruncate(current.fd, 0) }
                } else if current.failure == nil, let reason = Self.write(payload, to: current.fd) {
                    current.failure = reason
                }
                stream = current
                core?.emit(.streaming(client, byteCount: payload.readableBytes), from: client)
            case .streamEnd:
                guard let current = stream else { return invalid("a streamEnd frame outside a stream") }
                stream = nil
                let closed = current.fd < 0 || Foundation.close(current.fd) == 0 ? nil : String(cString: strerror(errno))
                if let failure = current.failure ?? closed {
                    if current.fd >= 0 { unlink(current.url.path) }
                    core?.emit(.streamFailed(client, reason: "the stream could not be written to \(current.url.path): \(failure)"), from: client)
                } else {
                    core?.emit(.streamEnd(client, file: current.url), from: client)
                }
            default:
                // One copy (Data's initializer from a sequence of bytes copies byte by byte).
                let data = payload.withUnsafeReadableBytes { Data($0) }
                core?.emit(.data(client, type, data), cost: payload.readableBytes, from: client)
            }
        }

        /// Closes and removes the file of an unfinished stream (only one this session created);
        /// false when no stream was open.
        @discardableResult
        private func discardStream() -> Bool {
            guard let stream else { return false }
            self.stream = nil
            if stream.fd >= 0 {
                Foundation.close(stream.fd)
                unlink(stream.url.path)
            }
            return true
        }

        /// A new file for a stream in the stream directory: created (never an existing one),
        /// readable by this user only.
        private func startStream() {
            guard let directory = core?.configuration.streamDirectory else { return }
            let url = directory.appendingPathComponent("DuktapeWeb-stream-\(UUID().uuidString)")
            let fd = Foundation.open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                // The frames of the stream are still taken; its end reports the failure.
                stream = (-1, url, "cannot create it: \(String(cString: strerror(errno)))", 0)
            } else {
                stream = (fd, url, nil, 0)
            }
            core?.emit(.streamStart(client), from: client)
        }

        /// Writes all of `payload` to `fd`; the reason when it could not.
        private static func write(_ payload: ByteBuffer, to fd: Int32) -> String? {
            payload.withUnsafeReadableBytes { bytes -> String? in
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return String(cString: strerror(errno))
                    }
                    offset += written
                }
                return nil
            }
        }
    }
}
