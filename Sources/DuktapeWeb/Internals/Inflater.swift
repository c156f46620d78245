import CZlib
import Foundation
import NIOCore

/// Inflates one gzip or zlib (`Content-Encoding: deflate`) body, a bounded number of bytes at a
/// time, so that what the host holds of a compressed body is bounded by the transfer's flow
/// control whatever the compression ratio. (async-http-client's own decompressor inflates each
/// read from the socket whole, before flow control sees it: about 64 MB for a 64 KiB read of a
/// body compressed 1,000:1.) There is no ratio limit, as in browsers: a body inflates only as
/// fast as the page reads it.
///
/// Used by one thread at a time: the parts of one response are handed on one after another.
final class Inflater: @unchecked Sendable {
    /// The most bytes one step makes.
    static let stepSize = 64 << 10

    /// Why a body could not be inflated (the request's failure names it).
    enum Failure: Error, CustomStringConvertible {
        case corrupt(code: Int32)
        case truncated
        case tooLarge(limit: Int)
        case stacked(codings: [String])

        var description: String {
            switch self {
            case .corrupt(let code): "its compressed body is corrupt (zlib error \(code))"
            case .truncated: "its compressed body ended before the compressed stream did"
            case .tooLarge(let limit): "its compressed body inflates past \(limit) bytes"
            case .stacked(let codings): "its body has several codings (\(codings.joined(separator: ", "))), which this host does not inflate"
            }
        }
    }

    /// Heap storage: zlib keeps the stream's address in its state.
    private let stream: UnsafeMutablePointer<z_stream>
    /// `deflate`: whether the stream has a zlib header, decided by its first two bytes (some
    /// servers send raw deflate, which browsers accept too); nil until they came.
    private var wrapped: Bool?
    private var firstBytes: [UInt8] = []
    /// Whether the compressed stream ended.
    private(set) var isComplete = false
    /// Whether any compressed byte has come (a body-less response has none to end).
    private(set) var hasInput = false

    /// An inflater for a body sent with `contentEncodings` (the header's values, every line and
    /// comma-separated item; `identity` counts for nothing), or nil when there is nothing to
    /// inflate: no coding, or one this host does not speak (its bytes go to the page as they
    /// came). Throws for several codings with gzip or deflate among them.
    init?(contentEncodings: [String]) throws(Failure) {
        let codings = contentEncodings.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        let known = codings.filter { ["gzip", "x-gzip", "deflate"].contains($0) }
        guard !known.isEmpty else { return nil }
        guard codings.count == 1 else { throw .stacked(codings: codings) }
        // Made before `self.stream` is set: failing then runs no deinit.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let deflate = codings[0] == "deflate"
        guard deflate || czlib_inflate_init(stream) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
        self.stream = stream
        wrapped = deflate ? nil : true
    }

    deinit {
        if wrapped != nil { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates from `input` (moving its reader past what it used) into at most `limit` new
    /// bytes; empty when `input` is used up or the stream has ended (it may also be empty when
    /// only a header was used: call again while `input` has bytes). Bytes after the stream's
    /// end are dropped, as browsers drop them. Throws when the data is not a gzip, zlib or raw
    /// deflate stream.
    func inflate(_ input: inout ByteBuffer, limit: Int = Inflater.stepSize) throws(Failure) -> ByteBuffer {
        if isComplete {
            input.moveReaderIndex(forwardBy: input.readableBytes)
            return ByteBuffer()
        }
        guard input.readableBytes > 0 else { return ByteBuffer() }
        hasInput = true
        if wrapped == nil {
            // `deflate`: a zlib header is CMF (method 8, window at most 32 KiB) and FLG with
            // CMF·256 + FLG a multiple of 31; anything else is raw deflate.
            while firstBytes.count < 2, let byte = input.readInteger(as: UInt8.self) { firstBytes.append(byte) }
            guard firstBytes.count == 2 else { return ByteBuffer() }
            let header = Int(firstBytes[0]) << 8 | Int(firstBytes[1])
            let zlib = firstBytes[0] & 0x0F == 8 && firstBytes[0] >> 4 <= 7 && header % 31 == 0
            guard (zlib ? czlib_inflate_init(stream) : czlib_inflate_init_raw(stream)) == Z_OK else { throw .corrupt(code: Z_MEM_ERROR) }
            wrapped = zlib
            var first = ByteBuffer(bytes: firstBytes)
            firstBytes = []
            let start = try step(&first, limit: limit)  // two bytes make no output
            guard start.readableBytes == 0 else { return start }
        }
        return try step(&input, limit: limit)
    }

    /// One call of zlib's inflate.
    private func step(_ input: inout ByteBuffer, limit: Int) throws(Failure) -> ByteBuffer {
        // Room for a typical ratio, up to `limit`: a small part does not get a large buffer
        // (the next call goes on where this one stopped).
        let room = min(limit, max(4 * input.readableBytes, 16 << 10))
        var output = ByteBuffer()
        var used = 0
        var status = Z_OK
        let stream = self.stream
        _ = input.withUnsafeReadableBytes { source in
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { target in
                let room = min(target.count, room)
                stream.pointee.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                stream.pointee.avail_in = UInt32(clamping: source.count)
                stream.pointee.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.pointee.avail_out = UInt32(room)
                status = CZlib.inflate(stream, Z_NO_FLUSH)
                used = source.count - Int(stream.pointee.avail_in)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
                return room - Int(stream.pointee.avail_out)
            }
        }
        input.moveReaderIndex(forwardBy: used)
        switch status {
        case Z_STREAM_END:
            isComplete = true
            input.moveReaderIndex(forwardBy: input.readableBytes)
        case Z_OK, Z_BUF_ERROR:
            // Z_BUF_ERROR: no progress was possible; with input left and room for output, that
            // only happens on data zlib cannot use.
            if used == 0 && output.readableBytes == 0 && input.readableBytes > 0 { throw .corrupt(code: status) }
        default:
            throw .corrupt(code: status)
        }
        // A step that filled little of its buffer is copied into one of its size: the transfer
        // counts the bytes, so a buffer kept by reference must not hold much more.
        if output.capacity > 2 * output.readableBytes + (4 << 10) {
            var tight = ByteBuffer()
            tight.reserveCapacity(output.readableBytes)
            tight.writeImmutableBuffer(output)
            return tight
        }
        return output
    }

    /// The whole of `body` inflated, at most `limit` bytes (a script's text).
    func inflateWhole(_ body: ByteBuffer, limit: Int) throws(Failure) -> ByteBuffer {
        var input = body
        var result = ByteBuffer()
        while true {
            var step = try inflate(&input, limit: min(Self.stepSize, limit - result.readableBytes + 1))
            if step.readableBytes == 0 {
                if input.readableBytes == 0 || isComplete { break }
                continue
            }
            result.writeBuffer(&step)
            if result.readableBytes > limit { throw .tooLarge(limit: limit) }
        }
        if !isComplete && hasInput { throw .truncated }
        return result
    }
}
