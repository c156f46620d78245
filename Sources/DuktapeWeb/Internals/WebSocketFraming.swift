import NIOCore
import NIOWebSocket

/// RFC 6455 §5.2's frame header and §5.3's masking, for `WebSocketConnection`'s frames in both
/// directions.
///
/// swift-nio's own masking (`ByteBuffer.webSocketMask`, behind `WebSocketFrame.unmaskedData`
/// and inside `WebSocketFrameEncoder`) goes a byte a step through `enumerated()`. Where that
/// generic code is not specialized (every debug build of a package that uses it), each byte
/// looks up generic metadata under one process-wide lock: four event-loop threads masking and
/// unmasking 64 MB streams queued on that lock for a minute and a half under ThreadSanitizer,
/// and every other connection of the process (accepts, timeouts, heartbeats) waited behind
/// them. Here the payload is XORed eight bytes a step with no generic code, and frames are
/// written past NIO's encoder (`WebSocketConnection` writes this header and the payload
/// through the encoder's context, which hands them on toward the socket untouched).
enum WebSocketFraming {
    /// The longest header: two bytes, an eight-byte length, a four-byte key.
    static let maximumHeaderBytes = 14

    /// XORs `buffer`'s readable bytes with `key` from the payload's first byte (masking and
    /// unmasking are the same operation).
    static func mask(_ buffer: inout ByteBuffer, with key: WebSocketMaskingKey) {
        // The key twice over, in memory order, for the eight bytes at each offset that is a
        // multiple of 8; the tail goes a byte a step.
        var keyWord: UInt64 = 0
        withUnsafeMutableBytes(of: &keyWord) { raw in
            var index = 0
            while index < 8 {
                raw[index] = key[index & 3]
                index += 1
            }
        }
        buffer.withUnsafeMutableReadableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let count = bytes.count
            var offset = 0
            while offset + 8 <= count {
                let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                base.storeBytes(of: value ^ keyWord, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < count {
                base.storeBytes(of: base.load(fromByteOffset: offset, as: UInt8.self) ^ key[offset & 3], toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
    }

    /// A frame's payload as sent, unmasked when the frame came masked.
    static func payload(of frame: WebSocketFrame) -> ByteBuffer {
        var data = frame.data
        if let key = frame.maskKey { mask(&data, with: key) }
        return data
    }

    /// Writes the header of a final frame: its opcode, RSV1 (a compressed message), the
    /// payload's length in the shortest form, and the masking key when there is one.
    static func writeHeader(
        into buffer: inout ByteBuffer, opcode: WebSocketOpcode, rsv1: Bool, length: Int, maskKey: WebSocketMaskingKey?
    ) {
        buffer.writeInteger(0x80 | (rsv1 ? 0x40 : 0) | UInt8(webSocketOpcode: opcode))
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        switch length {
        case ...125:
            buffer.writeInteger(maskBit | UInt8(max(length, 0)))
        case ...0xFFFF:
            buffer.writeInteger(maskBit | 126)
            buffer.writeInteger(UInt16(length))
        default:
            buffer.writeInteger(maskBit | 127)
            buffer.writeInteger(UInt64(length))
        }
        if let maskKey {
            buffer.writeInteger(maskKey[0])
            buffer.writeInteger(maskKey[1])
            buffer.writeInteger(maskKey[2])
            buffer.writeInteger(maskKey[3])
        }
    }
}
