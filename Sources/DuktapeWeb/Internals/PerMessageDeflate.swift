import CZlib
import Foundation
import NIOCore
import NIOPosix

/// permessage-deflate (RFC 7692): the negotiation of its parameters in the handshake's
/// `Sec-WebSocket-Extensions`, and one connection's compressor and decompressor. Offered by the
/// page's `WebSocket` as browsers offer it, accepted by `WebSocketServer` when a client offers it.
///
/// Messages are compressed whole, one frame each. A window of 256 bytes (`max_window_bits=8`),
/// which zlib cannot make, is agreed and honoured by sending that direction uncompressed (a
/// sender may leave any message uncompressed). Used on the connection's event loop only.
final class PerMessageDeflate {
    /// The agreed parameters.
    struct Parameters: Equatable, Sendable {
        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        var serverMaxWindowBits = 15
        var clientMaxWindowBits = 15
    }

    enum Failure: Error, CustomStringConvertible {
        /// The handshake's answer is not one the offer allows.
        case badNegotiation(String)
        /// The compressed data is not deflate data.
        case corrupt
        /// The message inflates past the limit.
        case tooLarge(limit: Int)

        var description: String {
            switch self {
            case .badNegotiation(let why): "the server's permessage-deflate answer is not valid: \(why)"
            case .corrupt: "a compressed message is not valid deflate data"
            case .tooLarge(let limit): "a compressed message inflates past the limit of \(limit) bytes"
            }
        }
    }

    /// What a client offers (what browsers send).
    static let clientOffer = "permessage-deflate; client_max_window_bits"

    /// The extension's name.
    static let name = "permessage-deflate"

    // MARK: - Negotiation

    /// One extension of a `Sec-WebSocket-Extensions` list: its name and its parameters.
    private struct Element {
        var name: String
        var parameters: [(name: String, value: String?)]
    }

    /// The elements of `Sec-WebSocket-Extensions` header values (RFC 6455 §9.1).
    private static func elements(_ values: [String]) -> [Element] {
        values.flatMap { $0.split(separator: ",") }.compactMap { element in
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first, !name.isEmpty else { return nil }
            let parameters = parts.dropFirst().map { part -> (name: String, value: String?) in
                guard let equals = part.firstIndex(of: "=") else { return (part.lowercased(), nil) }
                var value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                return (part[..<equals].trimmingCharacters(in: .whitespaces).lowercased(), value)
            }
            return Element(name: name.lowercased(), parameters: parameters)
        }
    }

    /// A window size parameter's value, 8 to 15 (RFC 7692 §7.1.2), or nil.
    private static func windowBits(_ value: String?) -> Int? {
        guard let value, value.count <= 2, value.allSatisfy(\.isASCII), let bits = Int(value), (8...15).contains(bits) else { return nil }
        return bits
    }

    /// The parameters of one `permessage-deflate` element, or why they are not valid: an unknown
    /// or repeated parameter, a value where none belongs, a window size outside 8–15.
    /// `offer`: an offer may name `client_max_window_bits` without a value.
    private static func parameters(of element: Element, offer: Bool) -> Result<Parameters, Failure> {
        var parameters = Parameters()
        var seen: Set<String> = []
        for (name, value) in element.parameters {
            guard seen.insert(name).inserted else { return .failure(.badNegotiation("'\(name)' appears twice")) }
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else { return .failure(.badNegotiation("'\(name)' takes no value")) }
                if name == "server_no_context_takeover" { parameters.serverNoContextTakeover = true } else { parameters.clientNoContextTakeover = true }
            case "server_max_window_bits":
                guard let bits = windowBits(value) else { return .failure(.badNegotiation("'\(name)' must be 8 to 15")) }
                parameters.serverMaxWindowBits = bits
            case "client_max_window_bits":
                if value == nil && offer { continue }  // the client can take the server's choice
                guard let bits = windowBits(value) else { return .failure(.badNegotiation("'\(name)' must be 8 to 15")) }
                parameters.clientMaxWindowBits = bits
            default:
                return .failure(.badNegotiation("unknown parameter '\(name)'"))
            }
        }
        return .success(parameters)
    }

    /// The client's reading of the server's answer (`Sec-WebSocket-Extensions` values): nil when
    /// the server declined, the agreed parameters, or `.badNegotiation` when the answer names
    /// another extension, several, or parameters the offer does not allow (the client then fails
    /// the connection, RFC 6455 §4.1).
    static func accepted(_ values: [String]) throws(Failure) -> Parameters? {
        let elements = elements(values)
        guard let element = elements.first else { return nil }
        guard elements.count == 1 else { throw .badNegotiation("it names \(elements.count) extensions, and one was offered") }
        guard element.name == name else { throw .badNegotiation("'\(element.name)' was not offered") }
        return try parameters(of: element, offer: false).get()
    }

    /// The server's choice among a client's offers: the first valid `permessage-deflate` offer's
    /// parameters and the answer's header value, or nil when there is none.
    static func negotiate(offers values: [String]) -> (Parameters, String)? {
        for element in elements(values) where element.name == name {
            guard case .success(let parameters) = parameters(of: element, offer: true) else { continue }
            var answer = name
            if parameters.serverNoContextTakeover { answer += "; server_no_context_takeover" }
            if parameters.clientNoContextTakeover { answer += "; client_no_context_takeover" }
            if parameters.serverMaxWindowBits < 15 { answer += "; server_max_window_bits=\(parameters.serverMaxWindowBits)" }
            if parameters.clientMaxWindowBits < 15 { answer += "; client_max_window_bits=\(parameters.clientMaxWindowBits)" }
            return (parameters, answer)
        }
        return nil
    }

    // MARK: - Compressing

    /// The compressor (nil: this side sends uncompressed, its window being 8 bits) and the
    /// decompressor, on the heap: zlib keeps their addresses.
    private let deflater: UnsafeMutablePointer<z_stream>?
    private let inflater: UnsafeMutablePointer<z_stream>
    private let resetsDeflater: Bool

    /// The side `isServer` of a connection with `parameters`; nil when zlib has no memory.
    init?(parameters: Parameters, isServer: Bool) {
        let sendBits = isServer ? parameters.serverMaxWindowBits : parameters.clientMaxWindowBits
        resetsDeflater = isServer ? parameters.serverNoContextTakeover : parameters.clientNoContextTakeover
        let inflater = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        inflater.initialize(to: z_stream())
        guard czlib_inflate_init_raw(inflater) == Z_OK else {
            inflater.deallocate()
            return nil
        }
        var deflater: UnsafeMutablePointer<z_stream>?
        if sendBits >= 9 {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard czlib_deflate_init_raw_window(stream, Z_DEFAULT_COMPRESSION, Int32(sendBits)) == Z_OK else {
                stream.deallocate()
                inflateEnd(inflater)
                inflater.deallocate()
                return nil
            }
            deflater = stream
        }
        self.inflater = inflater
        self.deflater = deflater
    }

    deinit {
        inflateEnd(inflater)
        inflater.deallocate()
        if let deflater {
            deflateEnd(deflater)
            deflater.deallocate()
        }
    }

    /// Whether this side compresses what it sends.
    var compressesOutgoing: Bool { deflater != nil }

    /// `message` compressed (without the `00 00 FF FF` tail, §7.2.1), or nil when this side
    /// sends uncompressed or zlib failed (the message then goes uncompressed). zlib writes into
    /// this thread's scratch space first, as `decompress` does, so the result is a buffer of its
    /// own size (a 64 KiB message of 300 compressed bytes took a 64 KiB buffer).
    func compress(_ message: ByteBuffer) -> ByteBuffer? {
        guard let deflater else { return nil }
        let scratch = ZlibScratch.current
        var output = ByteBuffer()
        var used = 0
        var status = Z_OK
        message.withUnsafeReadableBytes { source in
            deflater.pointee.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            deflater.pointee.avail_in = UInt32(source.count)
            repeat {
                let target = scratch.room(after: &used, spillingInto: &output)
                deflater.pointee.next_out = target.bindMemory(to: Bytef.self).baseAddress
                deflater.pointee.avail_out = UInt32(clamping: target.count)
                status = deflate(deflater, Z_SYNC_FLUSH)
                used += target.count - Int(deflater.pointee.avail_out)
            } while (status == Z_OK || status == Z_BUF_ERROR) && deflater.pointee.avail_out == 0
            deflater.pointee.next_in = nil
            deflater.pointee.next_out = nil
        }
        if resetsDeflater { deflateReset(deflater) }
        guard status == Z_OK || status == Z_BUF_ERROR, output.readableBytes + used >= 4 else { return nil }
        scratch.drain(used, into: &output)
        output.moveWriterIndex(to: output.writerIndex - 4)  // the `00 00 FF FF` tail, the last 4 bytes written
        if output.readableBytes == 0 { output.writeInteger(UInt8(0)) }  // §7.2.3.6
        return output
    }

    /// The next part of a compressed message inflated, the `00 00 FF FF` tail added after the
    /// last (`final`); throws `.tooLarge` past `limit` bytes of output and `.corrupt` for data
    /// that is not deflate.
    ///
    /// zlib writes into this thread's scratch space, which is copied out when full and at the
    /// end: a message that fits gets a buffer of its own size, copied once. (Growing the buffer
    /// as output came cost a copy per doubling and ended at twice the message: 128 KiB for a
    /// 64 KiB message, which glibc mapped and unmapped for each message.)
    func decompress(_ part: ByteBuffer, final: Bool, limit: Int) throws(Failure) -> ByteBuffer {
        let scratch = ZlibScratch.current
        var output = ByteBuffer()
        var used = 0
        try inflate(part, scratch: scratch, used: &used, into: &output, limit: limit)
        if final { try inflate(ByteBuffer(bytes: [0, 0, 0xFF, 0xFF]), scratch: scratch, used: &used, into: &output, limit: limit) }
        scratch.drain(used, into: &output)
        return output
    }

    /// Inflates `input` into the scratch after its first `used` bytes, moving full scratches to
    /// `output`.
    private func inflate(
        _ input: ByteBuffer, scratch: ZlibScratch, used: inout Int, into output: inout ByteBuffer, limit: Int
    ) throws(Failure) {
        let inflater = self.inflater
        var failure: Failure?
        input.withUnsafeReadableBytes { source in
            inflater.pointee.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            inflater.pointee.avail_in = UInt32(source.count)
            defer {
                inflater.pointee.next_in = nil
                inflater.pointee.next_out = nil
            }
            while true {
                let target = scratch.room(after: &used, spillingInto: &output)
                inflater.pointee.next_out = target.bindMemory(to: Bytef.self).baseAddress
                inflater.pointee.avail_out = UInt32(clamping: target.count)
                let status = CZlib.inflate(inflater, Z_SYNC_FLUSH)
                let written = target.count - Int(inflater.pointee.avail_out)
                used += written
                if output.readableBytes + used > limit {
                    failure = .tooLarge(limit: limit)
                    return
                }
                switch status {
                case Z_STREAM_END:
                    // A final block ends the deflate stream; the next message starts a new one.
                    inflateReset(inflater)
                    return
                case Z_OK, Z_BUF_ERROR:
                    if inflater.pointee.avail_in == 0 && inflater.pointee.avail_out != 0 { return }
                    if status == Z_BUF_ERROR && written == 0 { failure = .corrupt; return }
                default:
                    failure = .corrupt
                    return
                }
            }
        }
        if let failure { throw failure }
    }
}

/// Where a thread's zlib calls write first (see `PerMessageDeflate.decompress` and `compress`):
/// 256 KiB, made on a thread's first use and kept for the thread's life, so memory is bounded by
/// the number of event-loop threads, not of connections.
final class ZlibScratch: @unchecked Sendable {  // used by its own thread only
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)

    deinit { bytes.deallocate() }

    /// The free part of the scratch after its first `used` bytes; a full scratch is moved to
    /// `output` first.
    func room(after used: inout Int, spillingInto output: inout ByteBuffer) -> UnsafeMutableRawBufferPointer {
        if used == bytes.count {
            output.writeBytes(UnsafeRawBufferPointer(bytes))
            used = 0
        }
        return UnsafeMutableRawBufferPointer(rebasing: bytes[used...])
    }

    /// Moves the first `used` bytes to `output`: into a buffer of their own size when `output`
    /// has nothing yet.
    func drain(_ used: Int, into output: inout ByteBuffer) {
        guard used > 0 else { return }
        if output.readableBytes == 0 { output.reserveCapacity(used) }
        output.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[..<used]))
    }

    private static let perThread = ThreadSpecificVariable<ZlibScratch>()

    /// This thread's scratch.
    static var current: ZlibScratch {
        if let scratch = perThread.currentValue { return scratch }
        let scratch = ZlibScratch()
        perThread.currentValue = scratch
        return scratch
    }
}
