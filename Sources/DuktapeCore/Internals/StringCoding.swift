import CDuktape
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Transcoding between Swift strings (UTF-8) and Duktape's internal string form.
///
/// Duktape stores strings as CESU-8-like "extended UTF-8": a UTF-16 surrogate pair made in JS is two
/// 3-byte sequences, and a 4-byte UTF-8 sequence pushed from C becomes a single non-BMP code unit
/// (`"😀".length == 1`, unlike every other engine). So:
/// - Swift → JS: every scalar above U+FFFF is written as a surrogate pair (CESU-8), so JS sees
///   UTF-16 semantics (`"😀".length == 2`).
/// - JS → Swift: surrogate pairs become the scalar they encode; a lone surrogate becomes U+FFFD.
///
/// Both directions keep embedded NULs: strings always cross as (pointer, length).
enum StringCoding {
    /// Calls `body` with the string's bytes in Duktape's internal form.
    ///
    /// Strings without 4-byte sequences (all of ASCII and the BMP) are passed through without a copy.
    static func withEngineBytes<R>(
        _ string: String,
        _ body: (UnsafePointer<CChar>, Int) -> R
    ) -> R {
        var string = string
        return string.withUTF8 { utf8 in
            if !containsFourByteSequence(utf8) {
                return withCChars(utf8, body)
            }
            return cesu8(from: utf8).withUnsafeBufferPointer { withCChars($0, body) }
        }
    }

    @inline(__always)
    private static func withCChars<R>(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafePointer<CChar>, Int) -> R
    ) -> R {
        guard let base = bytes.baseAddress else {
            return withUnsafePointer(to: 0 as CChar) { body($0, 0) }
        }
        return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { body($0, bytes.count) }
    }

    @inline(__always)
    private static func containsFourByteSequence(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in utf8 where byte >= 0xF0 { return true }
        return false
    }

    /// UTF-8 → CESU-8: each 4-byte sequence becomes two 3-byte surrogate sequences.
    private static func cesu8(from utf8: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(utf8.count + utf8.count / 2)
        var index = 0
        while index < utf8.count {
            let lead = utf8[index]
            if lead >= 0xF0, index + 3 < utf8.count {
                let scalar = (UInt32(lead & 0x07) << 18) | (UInt32(utf8[index + 1] & 0x3F) << 12)
                    | (UInt32(utf8[index + 2] & 0x3F) << 6) | UInt32(utf8[index + 3] & 0x3F)
                let offset = scalar - 0x10000
                appendThreeByte(0xD800 | (offset >> 10), to: &out)
                appendThreeByte(0xDC00 | (offset & 0x3FF), to: &out)
                index += 4
            } else {
                out.append(lead)
                index += 1
            }
        }
        return out
    }

    @inline(__always)
    private static func appendThreeByte(_ unit: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(0xE0 | (unit >> 12)))
        out.append(UInt8(0x80 | ((unit >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (unit & 0x3F)))
    }

    /// Decodes Duktape's internal bytes into a Swift string.
    ///
    /// Bytes with no 0xED lead byte (the only lead that can start a surrogate) are plain UTF-8 and
    /// take the standard decoder; the rest go through a CESU-8-aware decoder.
    static func string(fromEngineBytes bytes: UnsafeRawBufferPointer) -> String {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return "" }
        let utf8 = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        if memchr(base, 0xED, bytes.count) == nil {
            return String(decoding: utf8, as: UTF8.self)
        }
        return decodeCESU8(utf8)
    }

    private static func decodeCESU8(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingHigh: UInt32?
        var index = 0
        let replacement: Unicode.Scalar = "\u{FFFD}"

        func flushHigh() {
            if pendingHigh != nil {
                scalars.append(replacement)
                pendingHigh = nil
            }
        }

        while index < bytes.count {
            let (value, length) = decodeSequence(bytes, at: index)
            index += length
            guard let value else {
                flushHigh()
                scalars.append(replacement)
                continue
            }
            switch value {
            case 0xD800...0xDBFF:
                flushHigh()
                pendingHigh = value
            case 0xDC00...0xDFFF:
                if let high = pendingHigh {
                    let combined = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)
                    scalars.append(Unicode.Scalar(combined) ?? replacement)
                    pendingHigh = nil
                } else {
                    scalars.append(replacement)
                }
            default:
                flushHigh()
                scalars.append(Unicode.Scalar(value) ?? replacement)
            }
        }
        flushHigh()
        return String(scalars)
    }

    /// Decodes one (extended) UTF-8 sequence, allowing encoded surrogates. Returns nil for a
    /// malformed sequence, with the number of bytes to skip.
    private static func decodeSequence(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32?, Int) {
        let lead = bytes[index]
        let count: Int
        var value: UInt32
        switch lead {
        case 0x00...0x7F: return (UInt32(lead), 1)
        case 0xC2...0xDF: count = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: count = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: count = 4; value = UInt32(lead & 0x07)
        default: return (nil, 1)
        }
        guard index + count <= bytes.count else { return (nil, 1) }
        for offset in 1..<count {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { return (nil, offset) }
            value = (value << 6) | UInt32(next & 0x3F)
        }
        let minimum: UInt32 = count == 2 ? 0x80 : count == 3 ? 0x800 : 0x10000
        guard value >= minimum, value <= 0x10FFFF else { return (nil, count) }
        return (value, count)
    }
}

extension StringCoding {
    /// String.prototype.normalize's Unicode tables (methods.c calls it; see cduk_set_normalizer):
    /// the engine's bytes in, the normalized string's engine bytes out (malloc'd), or nil to leave
    /// the string as it is, which is what happens when it holds a lone surrogate (decoding would
    /// replace it with U+FFFD).
    static let installNormalizer: Void = {
        cduk_set_normalizer { bytes, count, form, length in
            let input = UnsafeRawBufferPointer(start: bytes, count: count)
            let string = StringCoding.string(fromEngineBytes: input)
            if string.unicodeScalars.contains("\u{FFFD}") && !StringCoding.containsReplacementCharacter(input) {
                return nil
            }
            let normalized: String
            switch form {
            case 1: normalized = string.decomposedStringWithCanonicalMapping
            case 2: normalized = string.precomposedStringWithCompatibilityMapping
            case 3: normalized = string.decomposedStringWithCompatibilityMapping
            default: normalized = string.precomposedStringWithCanonicalMapping
            }
            return StringCoding.withEngineBytes(normalized) { pointer, count in
                guard let copy = malloc(max(count, 1)) else { return nil }
                memcpy(copy, pointer, count)
                length.pointee = count
                return copy.assumingMemoryBound(to: CChar.self)
            }
        }
    }()

    /// True when the bytes hold U+FFFD itself (EF BF BD), so that a U+FFFD after decoding is not
    /// a replaced lone surrogate.
    private static func containsReplacementCharacter(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 3 else { return false }
        for index in 0...(bytes.count - 3) where bytes[index] == 0xEF && bytes[index + 1] == 0xBF && bytes[index + 2] == 0xBD {
            return true
        }
        return false
    }
}
