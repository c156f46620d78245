import Foundation
import NIOCore
import NIOWebSocket

/// One WebSocket connection after its handshake: RFC 6455's protocol, with permessage-deflate
/// (RFC 7692), over swift-nio's frame decoder (`WebSocketFrameDecoder`), for the page's
/// `WebSocket` (the client) and `WebSocketServer` alike. Frames are masked, unmasked and
/// written by `WebSocketFraming` (its comment says why not by swift-nio).
///
/// What it does with what the peer sends:
/// - messages are reassembled from their fragments, inflated when compressed, and handed on
///   whole (`Event.text`, `.binary`); a text message's UTF-8 is checked as it arrives, so an
///   invalid sequence fails the connection at once (1007), split across fragments or not;
/// - a message past `Limits.maximumMessageBytes`, compressed or inflated, fails it with 1009
///   (a frame whose header announces more fails before its payload is read);
/// - a protocol error fails it with 1002: a reserved opcode or RSV bit, a masked frame from a
///   server or an unmasked one from a client, a continuation with no message, a message begun
///   inside another, a fragmented or long control frame, a close frame with one byte or an
///   invalid code; a close reason that is not UTF-8 fails it with 1007;
/// - a ping is answered with a pong carrying its data; a pong is taken;
/// - a close frame is answered with one (its code echoed), and the TCP connection closed by
///   the server, as §7.1.1 asks (a client waits `Limits.closeTimeout` for it).
///
/// "Fails" is RFC 6455's _Fail the WebSocket Connection_: a close frame with the code and a
/// reason, then the TCP connection closed. Every connection ends in exactly one
/// `Event.closed`.
///
/// Reading follows the consumer: `pauseReading()` stops reading from the socket (TCP then
/// pushes back on the peer) until `resumeReading()`. Everything runs on the channel's event
/// loop; other threads use a `Handle`.
final class WebSocketConnection: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = Never
    typealias OutboundIn = Never
    typealias OutboundOut = WebSocketFrame

    enum Role: Sendable { case client, server }

    struct Limits: Sendable {
        /// The longest message taken, compressed or inflated (NIO's decoder is given the same
        /// bound for one frame).
        var maximumMessageBytes: Int
        /// How long a closing handshake may take before the connection is closed anyway.
        var closeTimeout: TimeAmount = .seconds(5)
    }

    /// How a connection ended.
    struct Closure: Sendable, Equatable {
        /// The peer's close code; 1005 when its close frame had none, 1006 when none came.
        var code: UInt16
        /// The peer's close reason.
        var reason: String
        /// Whether both close frames were exchanged and nothing failed.
        var wasClean: Bool
        /// Why this side failed the connection or lost it (nil after a normal close), and the
        /// code it sent then.
        var failure: String?
        var sentCode: UInt16?
    }

    enum Event {
        case text(String)
        case binary(ByteBuffer)
        /// The peer began (or answered) the closing handshake.
        case closing(code: UInt16, reason: String)
        /// The connection is closed; the last event.
        case closed(Closure)
    }

    let role: Role
    let limits: Limits
    private let deflate: PerMessageDeflate?
    private let onEvent: (Event) -> Void

    private var context: ChannelHandlerContext?
    /// The context of swift-nio's `WebSocketFrameEncoder`, which the upgrade put in the
    /// pipeline: a frame's bytes written through it go on toward the socket as they are.
    private var frameOutput: ChannelHandlerContext?
    /// The message being received: its kind, its bytes so far, whether it is compressed.
    private var message: (text: Bool, bytes: ByteBuffer, compressed: Bool)?
    private var validator = UTF8Validator()
    private var sentClose = false
    private var receivedClose: (code: UInt16, reason: String)?
    private var failure: (why: String, code: UInt16?)?
    private var reported = false
    private var paused = false
    private var readPending = false
    /// Frames decoded while reading was paused (what one read from the socket held), taken in
    /// order on resuming: nothing is inflated or handed on while paused.
    private var held: [WebSocketFrame] = []
    /// A pong being written, and the latest ping's data to answer after it (RFC 6455 §5.5.3:
    /// only the most recent ping need be answered), so a ping flood cannot queue pongs.
    private var pongInFlight = false
    private var pongToSend: ByteBuffer?
    /// Why the connection was dropped before it was in the pipeline (applied there).
    private var pendingAbort: String?
    private var closeTimer: Scheduled<Void>?
    /// Whether a flush is queued behind the event loop's work: the messages written before it
    /// runs go out with it, in one system call for a burst (a page or a program that sends
    /// several at once, an echo of a read's messages).
    private var flushQueued = false

    /// `deflate`: the agreed permessage-deflate, if any. `onEvent` is called on the event loop.
    init(role: Role, limits: Limits, deflate: PerMessageDeflate?, onEvent: @escaping (Event) -> Void) {
        self.role = role
        self.limits = limits
        self.deflate = deflate
        self.onEvent = onEvent
    }

    /// The largest frame NIO's decoder is told to take for `limits` (it cannot take more than
    /// 4 GiB - 1, and the frame's header is decoded against it before its payload is read).
    static func maximumFrameSize(_ limits: Limits) -> Int {
        min(max(limits.maximumMessageBytes, 125), Int(UInt32.max))
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        frameOutput = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        if frameOutput == nil && pendingAbort == nil {
            pendingAbort = "the connection has no WebSocket frame encoder"
        }
        if !context.channel.isActive {
            report(abnormally: "the connection closed during the handshake")
        } else if let why = pendingAbort {
            abort(why)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Released, not only cancelled: the timer's task holds the channel, which holds this
        // handler, which holds the timer.
        closeTimer?.cancel()
        closeTimer = nil
        report(abnormally: "the connection's handler was removed")
        self.context = nil
        frameOutput = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
        report(abnormally: "the connection closed without a closing handshake")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength:
            fail(1009, "a frame longer than the limit of \(limits.maximumMessageBytes) bytes")
        case NIOWebSocketError.fragmentedControlFrame:
            fail(1002, "a fragmented control frame")
        case NIOWebSocketError.multiByteControlFrameLength:
            fail(1002, "a control frame longer than 125 bytes")
        default:
            if failure == nil { failure = ("the connection failed: \(error)", nil) }
            context.close(promise: nil)
        }
    }

    func read(context: ChannelHandlerContext) {
        if paused {
            readPending = true
        } else {
            context.read()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard failure == nil, !reported else { return }  // after a failure nothing more is read
        if paused {
            held.append(frame)
            return
        }
        process(frame)
    }

    private func process(_ frame: WebSocketFrame) {
        if role == .server && frame.maskKey == nil { return fail(1002, "an unmasked frame from the client") }
        if role == .client && frame.maskKey != nil { return fail(1002, "a masked frame from the server") }
        if frame.rsv2 || frame.rsv3 { return fail(1002, "a frame with a reserved bit set (RSV2 or RSV3)") }
        switch frame.opcode {
        case .text, .binary, .continuation:
            // After this side's close frame, data is dropped (the closing handshake goes on).
            guard !sentClose else {
                message = nil
                return
            }
            data(frame)
        default:
            control(frame)
        }
    }

    private func data(_ frame: WebSocketFrame) {
        switch frame.opcode {
        case .text, .binary:
            if message != nil { return fail(1002, "a new message began before the last one ended") }
            if frame.rsv1 && deflate == nil { return fail(1002, "a compressed frame without permessage-deflate") }
            guard receivedClose == nil else { return }
            message = (frame.opcode == .text, ByteBuffer(), frame.rsv1)
            validator = UTF8Validator()
            append(frame)
        case .continuation:
            if frame.rsv1 { return fail(1002, "a continuation frame with RSV1 set") }
            guard message != nil else { return fail(1002, "a continuation frame outside a message") }
            append(frame)
        default:
            break
        }
    }

    private func control(_ frame: WebSocketFrame) {
        switch frame.opcode {
        case .ping:
            if frame.rsv1 { return fail(1002, "a control frame with RSV1 set") }
            guard !sentClose else { return }
            pong(WebSocketFraming.payload(of: frame))
        case .pong:
            if frame.rsv1 { return fail(1002, "a control frame with RSV1 set") }
        case .connectionClose:
            if frame.rsv1 { return fail(1002, "a control frame with RSV1 set") }
            received(close: WebSocketFraming.payload(of: frame))
        default:
            fail(1002, "a frame with the reserved opcode \(frame.opcode)")
        }
    }

    /// Answers a ping, or keeps its data for when the pong being written is out.
    private func pong(_ data: ByteBuffer) {
        guard let context else { return }
        guard !pongInFlight else {
            pongToSend = data
            return
        }
        pongInFlight = true
        let promise = context.eventLoop.makePromise(of: Void.self)
        write(.pong, data, promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { [self] result in
            pongInFlight = false
            if case .success = result, let next = pongToSend, !sentClose {
                pongToSend = nil
                pong(next)
            }
        }
    }

    // MARK: - Messages

    private func append(_ frame: WebSocketFrame) {
        guard var current = message else { return }
        message = nil  // not kept twice while it grows
        var payload = WebSocketFraming.payload(of: frame)
        if current.compressed, let deflate {
            do {
                payload = try deflate.decompress(payload, final: frame.fin, limit: limits.maximumMessageBytes - current.bytes.readableBytes)
            } catch .tooLarge {
                return fail(1009, "a message longer than the limit of \(limits.maximumMessageBytes) bytes (inflated)")
            } catch {
                return fail(1007, "\(error)")
            }
        }
        guard current.bytes.readableBytes + payload.readableBytes <= limits.maximumMessageBytes else {
            return fail(1009, "a message longer than the limit of \(limits.maximumMessageBytes) bytes")
        }
        if current.text && !validator.feed(payload.readableBytesView) {
            return fail(1007, "a text message that is not valid UTF-8")
        }
        if current.bytes.readableBytes == 0 && frame.fin {
            current.bytes = payload
        } else {
            current.bytes.writeBuffer(&payload)
        }
        guard frame.fin else {
            message = current
            return
        }
        if current.text {
            guard validator.isComplete else { return fail(1007, "a text message that ends inside a UTF-8 sequence") }
            onEvent(.text(String(buffer: current.bytes)))
        } else {
            onEvent(.binary(current.bytes))
        }
    }

    // MARK: - Closing

    /// Close codes a peer may send (RFC 6455 §7.4, IANA's registry): 1000–1003, 1007–1014,
    /// 3000–4999.
    static func isValidReceivedCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    private func received(close payload: ByteBuffer) {
        var payload = payload
        let code: UInt16
        var reason = ""
        switch payload.readableBytes {
        case 0:
            code = 1005
        case 1:
            return fail(1002, "a close frame with a one-byte body")
        default:
            guard let value = payload.readInteger(as: UInt16.self), Self.isValidReceivedCode(value) else {
                return fail(1002, "a close frame with an invalid code")
            }
            guard UTF8Validator.isValid(payload.readableBytesView) else { return fail(1007, "a close reason that is not valid UTF-8") }
            code = value
            reason = String(buffer: payload)
        }
        guard receivedClose == nil else { return }
        receivedClose = (code, reason)
        message = nil
        onEvent(.closing(code: code, reason: reason))
        // Echo the code (none for none), then close as the role does.
        finishClosingHandshake(written: sentClose ? nil : sendClose(code: code == 1005 ? nil : code, reason: ""))
    }

    /// Both close frames are out: a server closes the TCP connection once its frame is
    /// written; a client waits for the server to close it. Either way at most `closeTimeout`.
    private func finishClosingHandshake(written: EventLoopFuture<Void>?) {
        guard let context else { return }
        if role == .server {
            let channel = context.channel
            if let written {
                written.whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
        armCloseTimer()
    }

    private func armCloseTimer() {
        guard let context, closeTimer == nil else { return }
        // The task holds this handler weakly and nothing else: it cannot keep the channel.
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.closeTimeout) { [weak self] in
            self?.context?.close(promise: nil)
        }
    }

    /// Sends this side's close frame (once); the future completes when it is written.
    @discardableResult
    private func sendClose(code: UInt16?, reason: String) -> EventLoopFuture<Void>? {
        guard !sentClose, let context else { return nil }
        sentClose = true
        var data = ByteBuffer()
        if let code {
            data.writeInteger(code)
            data.writeString(reason)
        }
        let promise = context.eventLoop.makePromise(of: Void.self)
        write(.connectionClose, data, promise: promise)
        return promise.futureResult
    }

    /// Fails the connection (RFC 6455 §7.1.7): a close frame with `code` and `why` (cut to fit
    /// a control frame), then the TCP connection closed.
    private func fail(_ code: UInt16, _ why: String) {
        guard failure == nil, !reported, let context else { return }
        failure = (why, code)
        message = nil
        let channel = context.channel
        if let written = sendClose(code: code, reason: Self.closeReason(why)) {
            written.whenComplete { _ in channel.close(promise: nil) }
            armCloseTimer()  // a peer that does not read cannot hold the connection open
        } else {
            channel.close(promise: nil)
        }
    }

    /// `text` cut to the 123 bytes a close frame's reason can have, at a character's boundary.
    static func closeReason(_ text: String) -> String {
        guard text.utf8.count > 123 else { return text }
        var cut = ""
        for character in text {
            guard cut.utf8.count + String(character).utf8.count <= 123 else { break }
            cut.append(character)
        }
        return cut
    }

    /// Reports the closure once: the connection is closed.
    private func report(abnormally why: String) {
        guard !reported else { return }
        reported = true
        let closure: Closure
        if let receivedClose {
            closure = Closure(code: receivedClose.code, reason: receivedClose.reason, wasClean: sentClose && failure == nil,
                              failure: failure?.why, sentCode: failure?.code)
        } else {
            closure = Closure(code: 1006, reason: "", wasClean: false, failure: failure?.why ?? why, sentCode: failure?.code)
        }
        onEvent(.closed(closure))
    }

    // MARK: - Sending

    /// Payloads up to this size are copied behind their header (one buffer to write); longer
    /// ones are written as they are, after it.
    private static let coalescedPayloadBytes = 4096

    /// Writes one final frame: masked with a new random key from a client (RFC 6455 §5.3), as
    /// it is from a server. A control frame is flushed at once; a message with the next queued
    /// flush.
    private func write(
        _ opcode: WebSocketOpcode, rsv1: Bool = false, _ payload: ByteBuffer, promise: EventLoopPromise<Void>?, flushNow: Bool = true
    ) {
        guard let context, let frameOutput else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        var payload = payload
        let key: WebSocketMaskingKey? = role == .client ? .random() : nil
        if let key { WebSocketFraming.mask(&payload, with: key) }
        let coalesced = payload.readableBytes <= Self.coalescedPayloadBytes
        var frame = context.channel.allocator.buffer(capacity: WebSocketFraming.maximumHeaderBytes + (coalesced ? payload.readableBytes : 0))
        WebSocketFraming.writeHeader(into: &frame, opcode: opcode, rsv1: rsv1, length: payload.readableBytes, maskKey: key)
        if coalesced {
            frame.writeBuffer(&payload)
            frameOutput.write(NIOAny(frame), promise: promise)
        } else {
            frameOutput.write(NIOAny(frame), promise: nil)
            frameOutput.write(NIOAny(payload), promise: promise)
        }
        if flushNow {
            frameOutput.flush()
        } else if !flushQueued {
            flushQueued = true
            context.eventLoop.assumeIsolated().execute { [weak self] in
                guard let self else { return }
                self.flushQueued = false
                self.frameOutput?.flush()
            }
        }
    }

    /// Sends a whole message (compressed when agreed); the promise completes once it is written
    /// to the socket. Fails once this side has sent its close frame.
    func send(text: Bool, _ payload: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard !sentClose, !reported else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        if let deflate, deflate.compressesOutgoing, let compressed = deflate.compress(payload) {
            write(text ? .text : .binary, rsv1: true, compressed, promise: promise, flushNow: false)
        } else {
            write(text ? .text : .binary, payload, promise: promise, flushNow: false)
        }
    }

    /// Begins the closing handshake with `code` (nil: a close frame without one) and `reason`;
    /// the connection closes once the peer answers, or after `closeTimeout`.
    func close(code: UInt16?, reason: String) {
        guard !sentClose, !reported else { return }
        let written = sendClose(code: code, reason: reason)
        if receivedClose != nil {
            finishClosingHandshake(written: written)
        } else {
            armCloseTimer()
        }
        // The peer's close frame must be read, whoever stopped reading: data is dropped now.
        resumeReading()
    }

    /// Sends a close frame with 1001 (Going Away) and closes the TCP connection once it is
    /// written, without waiting for the peer's (a page that closes, a server that stops).
    func goAway() {
        guard !reported, let context else { return }
        let channel = context.channel
        if let written = sendClose(code: 1001, reason: "") {
            written.whenComplete { _ in channel.close(promise: nil) }
            armCloseTimer()
        } else {
            channel.close(promise: nil)
        }
    }

    /// Drops the connection without a closing handshake, reporting `why` (once in the pipeline,
    /// when called before).
    func abort(_ why: String) {
        guard !reported else { return }
        guard let context else {
            pendingAbort = why
            return
        }
        if failure == nil { failure = (why, nil) }
        context.close(promise: nil)
    }

    /// Stops reading from the socket, and taking what was read, until `resumeReading()`.
    func pauseReading() {
        paused = true
    }

    /// Whether reading is stopped.
    var isPaused: Bool { paused }

    func resumeReading() {
        guard paused else { return }
        paused = false
        while !paused, !held.isEmpty, failure == nil, !reported {
            process(held.removeFirst())
        }
        if !paused { held = [] }
        guard !paused else { return }
        if readPending, let context {
            readPending = false
            context.read()
        }
    }
}

extension WebSocketConnection {
    /// A connection used from other threads: each call hops to its event loop.
    struct Handle: Sendable {
        let channel: any Channel
        private let connection: NIOLoopBound<WebSocketConnection>

        init(_ connection: WebSocketConnection, on channel: any Channel) {
            self.channel = channel
            self.connection = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        }

        private func run(_ body: @escaping @Sendable (WebSocketConnection) -> Void) {
            let connection = self.connection
            if channel.eventLoop.inEventLoop {
                body(connection.value)
            } else {
                channel.eventLoop.execute { body(connection.value) }
            }
        }

        /// Sends a message; the future succeeds once it is written to the socket.
        func send(text: Bool, _ payload: ByteBuffer) -> EventLoopFuture<Void> {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            run { $0.send(text: text, payload, promise: promise) }
            return promise.futureResult
        }

        func close(code: UInt16?, reason: String) {
            run { $0.close(code: code, reason: reason) }
        }

        func abort(_ why: String) {
            run { $0.abort(why) }
        }

        func goAway() {
            run { $0.goAway() }
        }

        func pauseReading() {
            run { $0.pauseReading() }
        }

        func resumeReading() {
            run { $0.resumeReading() }
        }
    }
}
