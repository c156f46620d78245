/// WHATWG's percent-encode sets and UTF-8 percent-encoding and decoding (URLs and
/// `application/x-www-form-urlencoded`).
enum PercentEncoding {
    /// Each set holds every C0 control and every code point above U+007E, plus the ASCII
    /// characters listed (each set includes the one before it where the standard says so).
    enum EncodeSet {
        case c0Control, fragment, query, specialQuery, path, userinfo, component, formURLEncoded

        func contains(_ byte: UInt8) -> Bool {
            if byte < 0x20 || byte > 0x7E { return true }
            let character = Character(Unicode.Scalar(byte))
            switch self {
            case .c0Control: return false
            case .fragment: return " \"<>`".contains(character)
            case .query: return " \"#<>".contains(character)
            case .specialQuery: return " \"#<>'".contains(character)
            case .path: return " \"#<>?^`{}".contains(character)
            case .userinfo: return " \"#<>?`{}/:;=@[\\]^|".contains(character)
            case .component: return " \"#<>?`{}/:;=@[\\]^|$%&+,".contains(character)
            case .formURLEncoded: return " \"#<>?`{}/:;=@[\\]^|$%&+,!'()~".contains(character)
            }
        }
    }

    /// `scalar` as UTF-8, each byte in `set` as `%XX` (uppercase hexadecimal).
    static func encode(_ scalar: Unicode.Scalar, in set: EncodeSet) -> String {
        if scalar.isASCII, !set.contains(UInt8(scalar.value)) { return String(Character(scalar)) }
        return encode(bytes: Array(String(scalar).utf8), in: set, spaceAsPlus: false)
    }

    static func encode(_ text: String, in set: EncodeSet, spaceAsPlus: Bool = false) -> String {
        encode(bytes: Array(text.utf8), in: set, spaceAsPlus: spaceAsPlus)
    }

    static func encode(bytes: [UInt8], in set: EncodeSet, spaceAsPlus: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output = [UInt8]()
        output.reserveCapacity(bytes.count)
        for byte in bytes {
            if spaceAsPlus && byte == 0x20 {
                output.append(UInt8(ascii: "+"))
            } else if set.contains(byte) {
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text` (as UTF-8) with each `%XX` decoded; a `%` not followed by two hex
    /// digits stays as it is.
    static func decode(_ text: String) -> [UInt8] {
        decode(bytes: Array(text.utf8))
    }

    static func decode(bytes input: [UInt8]) -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
               let high = hexDigit(input[index + 1]), let low = hexDigit(input[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return output
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
