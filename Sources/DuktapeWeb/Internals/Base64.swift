import Foundation

/// `btoa` and `atob`'s byte work: base64 of a string whose characters are bytes (Latin-1), and
/// WHATWG's forgiving-base64 decode back to such a string.
enum Base64 {
    /// The base64 of `text`'s UTF-16 code units as bytes, or nil when one is above U+00FF.
    static func encodeLatin1(_ text: String) -> String? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf16.count)
        for unit in text.utf16 {
            guard unit <= 0xFF else { return nil }
            bytes.append(UInt8(unit))
        }
        return Data(bytes).base64EncodedString()
    }

    /// WHATWG's forgiving-base64 decode, each byte a character (U+0000 to U+00FF), or nil for
    /// input that is not base64: ASCII whitespace is ignored; with a length that is a multiple
    /// of 4, one or two final `=` are padding; a length of 1 modulo 4, any other character, or
    /// `=` anywhere else is an error. Bits left over at the end are dropped.
    static func decodeForgiving(_ text: String) -> String? {
        var digits = [UInt8]()
        digits.reserveCapacity(text.utf16.count)
        for unit in text.utf16 where !(unit == 0x09 || unit == 0x0A || unit == 0x0C || unit == 0x0D || unit == 0x20) {
            guard unit < 0x80 else { return nil }
            digits.append(UInt8(unit))
        }
        if digits.count % 4 == 0 {
            if digits.last == UInt8(ascii: "=") { digits.removeLast() }
            if digits.last == UInt8(ascii: "=") { digits.removeLast() }
        }
        guard digits.count % 4 != 1 else { return nil }
        var scalars = String.UnicodeScalarView()
        var buffer: UInt32 = 0, bits = 0
        for digit in digits {
            guard let value = sextet(digit) else { return nil }
            buffer = (buffer << 6 | UInt32(value)) & 0xFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                scalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: buffer >> UInt32(bits))))
            }
        }
        return String(scalars)
    }

    private static func sextet(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): digit - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
