import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import DuktapeWeb

/// Our frame header and masking against swift-nio's own (an implementation not written here),
/// byte for byte: every length form's boundaries, every tail length of the eight-byte steps,
/// payloads that do not start at their buffer's beginning.
@Suite("WebSocket framing")
struct WebSocketFramingTests {
    private static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test func maskingIsSwiftNIOsForEveryLengthAndOffset() {
        for length in 0...70 {
            for offset in [0, 1, 3, 5] {
                let key = WebSocketMaskingKey.random()
                var ours = ByteBuffer(bytes: Self.bytes(offset + length, seed: UInt8(length)))
                ours.moveReaderIndex(forwardBy: offset)
                var nio = ours
                WebSocketFraming.mask(&ours, with: key)
                nio.webSocketMask(key)
                #expect(ours == nio, "length \(length), offset \(offset)")
                // Masking twice gives the payload back.
                WebSocketFraming.mask(&ours, with: key)
                #expect(Array(ours.readableBytesView) == Array(Self.bytes(offset + length, seed: UInt8(length)).dropFirst(offset)))
            }
        }
    }

    @Test func aMaskedFramesPayloadIsUnmaskedAsSwiftNIOUnmasksIt() {
        let key = WebSocketMaskingKey.random()
        var masked = ByteBuffer(bytes: Self.bytes(1000, seed: 7))
        masked.webSocketMask(key)
        let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: key, data: masked)
        #expect(WebSocketFraming.payload(of: frame) == frame.unmaskedData)
        let plain = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "as it came"))
        #expect(WebSocketFraming.payload(of: plain) == ByteBuffer(string: "as it came"))
    }

    @Test(arguments: [0, 1, 125, 126, 127, 4096, 65535, 65536, 70001])
    func framesAreWhatSwiftNIOsEncoderWrites(length: Int) throws {
        let payload = ByteBuffer(bytes: Self.bytes(length, seed: 3))
        for (opcode, rsv1) in [(WebSocketOpcode.text, false), (.binary, true), (.ping, false), (.connectionClose, false)] {
            for key in [nil, WebSocketMaskingKey.random()] {
                var ours = ByteBuffer()
                WebSocketFraming.writeHeader(into: &ours, opcode: opcode, rsv1: rsv1, length: length, maskKey: key)
                var body = payload
                if let key { WebSocketFraming.mask(&body, with: key) }
                ours.writeBuffer(&body)

                let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
                try channel.writeOutbound(WebSocketFrame(fin: true, rsv1: rsv1, opcode: opcode, maskKey: key, data: payload))
                var nio = ByteBuffer()
                while var part = try channel.readOutbound(as: ByteBuffer.self) { nio.writeBuffer(&part) }
                _ = try channel.finish()
                #expect(ours == nio, "\(opcode), rsv1 \(rsv1), masked \(key != nil), length \(length)")
            }
        }
    }
}
