import Foundation

/// WHATWG's host parser: domains (to ASCII), IPv4 addresses in every legacy form (`0x7f.1`,
/// `2130706433`, octal), IPv6 addresses, and opaque hosts of non-special URLs. Returns the
/// serialized host.
enum URLHost {
    static func parse(_ input: String, isOpaque: Bool) -> String? {
        let scalars = Array(input.unicodeScalars)
        if scalars.first == "[" {
            guard scalars.count >= 2, scalars.last == "]", let address = ipv6(Array(scalars[1..<(scalars.count - 1)])) else {
                return nil
            }
            return "[" + serialize(ipv6: address) + "]"
        }
        if isOpaque {
            guard !scalars.contains(where: { isForbiddenHost($0) }) else { return nil }
            return PercentEncoding.encode(input, in: .c0Control)
        }
        let domain = String(decoding: PercentEncoding.decode(input), as: UTF8.self)
        guard let ascii = domainToASCII(domain) else { return nil }
        if endsInANumber(ascii) { return ipv4(ascii).map(serialize(ipv4:)) }
        return ascii
    }

    /// Forbidden host code points (opaque hosts may not contain them).
    static func isForbiddenHost(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\u{0}", "\t", "\n", "\r", " ", "#", "/", ":", "<", ">", "?", "@", "[", "\\", "]", "^", "|": true
        default: false
        }
    }

    /// Forbidden domain code points: the host ones, C0 controls, `%` and DEL.
    static func isForbiddenDomain(_ scalar: Unicode.Scalar) -> Bool {
        isForbiddenHost(scalar) || scalar.value <= 0x1F || scalar == "%" || scalar.value == 0x7F
    }

    // MARK: - Domains

    /// UTS #46 processing as the URL Standard asks for it, approximated without its data table:
    /// ignored code points (soft hyphen, zero-width space, word joiner, variation selectors,
    /// BOM) dropped; compatibility mapping and case folding by NFKC and lowercasing (so
    /// `Ｇｏ` is `go` and `𝐋𝐨𝐜𝐚𝐥` is `local`); the ideographic full stop as `.`; noncharacters,
    /// unassigned and C1 control code points and U+FFFD refused; non-ASCII labels as
    /// Punycode, and `xn--` labels checked to decode to something that is not plain ASCII.
    static func domainToASCII(_ domain: String) -> String? {
        if let plain = plainASCIIDomain(domain) { return plain }
        var text = domain
        if !text.unicodeScalars.allSatisfy(\.isASCII) {
            let kept = text.unicodeScalars.filter { !isIgnored($0) }
            guard !kept.contains(where: isDisallowed) else { return nil }
            let mapped = String(String.UnicodeScalarView(kept)).precomposedStringWithCompatibilityMapping.lowercased()
                .precomposedStringWithCompatibilityMapping
            text = String(String.UnicodeScalarView(mapped.unicodeScalars.map { $0 == "\u{3002}" ? "." : $0 }))
        }
        var labels: [String] = []
        for scalars in text.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false) {
            let label = String(String.UnicodeScalarView(scalars))
            // Punycode is quadratic in a label's length: a label longer than any DNS allows
            // (63 bytes) by far is refused rather than left to run unbounded.
            guard scalars.count <= Self.longestLabel else { return nil }
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                let lowered = String(String.UnicodeScalarView(label.unicodeScalars.map(\.asciiLowercased)))
                if lowered.hasPrefix("xn--") {
                    // Valid only if it decodes to something UTS #46 maps to itself (no ASCII-only
                    // label, nothing disallowed, already normalized and case-folded).
                    guard let decoded = Punycode.decode(Array(lowered.unicodeScalars.dropFirst(4))), !decoded.isEmpty,
                          !decoded.allSatisfy(\.isASCII), !decoded.contains(where: isDisallowed) else { return nil }
                    let label = String(String.UnicodeScalarView(decoded))
                    guard label.precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars.elementsEqual(label.unicodeScalars)
                    else { return nil }
                }
                labels.append(lowered)
            } else {
                // UTS #46's validity criteria: a label may not begin with a combining mark.
                if let first = scalars.first, [.nonspacingMark, .spacingMark, .enclosingMark].contains(first.properties.generalCategory) {
                    return nil
                }
                guard let encoded = Punycode.encode(Array(label.unicodeScalars)) else { return nil }
                labels.append("xn--" + encoded)
            }
        }
        let result = labels.joined(separator: ".")
        guard !result.isEmpty, !result.unicodeScalars.contains(where: isForbiddenDomain) else { return nil }
        return result
    }

    /// The common case in one pass over the bytes: an ASCII domain, no `xn--` label, no label
    /// longer than `longestLabel`, no forbidden code point, not empty is its lowercase form.
    /// Nil for anything else, which the full algorithm decides (with the same result for this
    /// case: ASCII labels are only lowercased).
    private static func plainASCIIDomain(_ domain: String) -> String? {
        var domain = domain
        return domain.withUTF8 { bytes -> String? in
            guard !bytes.isEmpty else { return nil }
            var labelStart = 0
            for (index, byte) in bytes.enumerated() {
                guard byte < 0x80, !isForbiddenDomain(Unicode.Scalar(byte)) else { return nil }
                if byte == 0x2E {
                    labelStart = index + 1
                    continue
                }
                guard index - labelStart < longestLabel else { return nil }
                // "xn--", in any case: a Punycode label, which the full algorithm checks.
                if index - labelStart == 3, bytes[index] == 0x2D, bytes[index - 1] == 0x2D, bytes[index - 2] | 0x20 == 0x6E,
                   bytes[index - 3] | 0x20 == 0x78 {
                    return nil
                }
            }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (index, byte) in bytes.enumerated() { buffer[index] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
                return bytes.count
            }
        }
    }

    /// The longest label (in code points) that domain to ASCII accepts.
    static let longestLabel = 1024

    private static func isIgnored(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xAD, 0x34F, 0x180B...0x180F, 0x200B, 0x2060, 0xFE00...0xFE0F, 0xFEFF, 0x1BCA0...0x1BCA3, 0xE0100...0xE01EF: true
        default: false
        }
    }

    private static func isDisallowed(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value == 0xFFFD || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
            || (0x80...0x9F).contains(value) || scalar.properties.generalCategory == .unassigned
    }

    // MARK: - IPv4

    static func endsInANumber(_ input: String) -> Bool {
        var parts = input.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "" {
            if parts.count == 1 { return false }
            parts.removeLast()
        }
        guard let last = parts.last, !last.isEmpty else { return false }
        if last.unicodeScalars.allSatisfy(\.isASCIIDigit) { return true }
        return ipv4Number(Substring(last)) != nil
    }

    static func ipv4(_ input: String) -> UInt32? {
        var parts = input.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "", parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = ipv4Number(part) else { return nil }
            numbers.append(number)
        }
        for number in numbers.dropLast() where number > 255 { return nil }
        guard let last = numbers.last, last < (UInt64(1) << (8 * (5 - UInt64(numbers.count)))) else { return nil }
        var address = last
        for (index, number) in numbers.dropLast().enumerated() {
            address += number << (8 * (3 - UInt64(index)))
        }
        return UInt32(truncatingIfNeeded: address)
    }

    /// One part: decimal, `0x` hexadecimal or `0` octal; nil for anything else (or beyond 2^32,
    /// which no address can use).
    static func ipv4Number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part.unicodeScalars[...]
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == "0", let x = digits.dropFirst().first, x == "x" || x == "X" {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == "0" {
            digits = digits.dropFirst()
            radix = 8
        }
        // Values past 2^32 are kept saturated: they still end in a number (and then fail as an
        // address) rather than read as a domain.
        var value: UInt64 = 0
        for digit in digits {
            guard let number = hexValue(digit), number < radix else { return nil }
            value = min(value * radix + number, UInt64(1) << 40)
        }
        return value
    }

    static func serialize(ipv4 address: UInt32) -> String {
        (0..<4).map { String((address >> (8 * (3 - UInt32($0)))) & 0xFF) }.joined(separator: ".")
    }

    // MARK: - IPv6

    static func ipv6(_ input: [Unicode.Scalar]) -> [UInt16]? {
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int?
        var pointer = 0
        func c(_ offset: Int = 0) -> Unicode.Scalar? { pointer + offset < input.count ? input[pointer + offset] : nil }
        if c() == ":" {
            guard c(1) == ":" else { return nil }
            pointer += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while c() != nil {
            guard pieceIndex != 8 else { return nil }
            if c() == ":" {
                guard compress == nil else { return nil }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt32 = 0, length = 0
            while length < 4, let scalar = c(), let digit = hexValue(scalar) {
                value = value * 16 + UInt32(digit)
                pointer += 1
                length += 1
            }
            if c() == "." {
                guard length > 0, pieceIndex <= 6 else { return nil }
                pointer -= length
                var numbersSeen = 0
                while c() != nil {
                    var piece: UInt32?
                    if numbersSeen > 0 {
                        guard c() == ".", numbersSeen < 4 else { return nil }
                        pointer += 1
                    }
                    guard let first = c(), first.isASCIIDigit else { return nil }
                    while let scalar = c(), scalar.isASCIIDigit {
                        let number = scalar.value - 0x30
                        if let current = piece {
                            guard current != 0 else { return nil }
                            piece = current * 10 + number
                        } else {
                            piece = number
                        }
                        guard let checked = piece, checked <= 255 else { return nil }
                        pointer += 1
                    }
                    _ = first
                    address[pieceIndex] = address[pieceIndex] &* 0x100 &+ UInt16(piece ?? 0)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                guard numbersSeen == 4 else { return nil }
                break
            } else if c() == ":" {
                pointer += 1
                guard c() != nil else { return nil }
            } else if c() != nil {
                return nil
            }
            address[pieceIndex] = UInt16(value)
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0, swaps > 0 {
                address.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return address
    }

    /// Lowercase hexadecimal pieces, the first longest run of two or more zero pieces as `::`.
    static func serialize(ipv6 address: [UInt16]) -> String {
        var best: (start: Int, length: Int)?
        var index = 0
        while index < 8 {
            guard address[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, address[end] == 0 { end += 1 }
            if end - index > 1, end - index > (best?.length ?? 0) { best = (index, end - index) }
            index = end
        }
        var output = ""
        var ignore0 = false
        for pieceIndex in 0..<8 {
            if ignore0, address[pieceIndex] == 0 { continue }
            ignore0 = false
            if let best, best.start == pieceIndex {
                output += pieceIndex == 0 ? "::" : ":"
                ignore0 = true
                continue
            }
            output += String(address[pieceIndex], radix: 16)
            if pieceIndex != 7 { output += ":" }
        }
        return output
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt64? {
        switch scalar {
        case "0"..."9": UInt64(scalar.value - 0x30)
        case "a"..."f": UInt64(scalar.value - 0x61 + 10)
        case "A"..."F": UInt64(scalar.value - 0x41 + 10)
        default: nil
        }
    }
}

/// RFC 3492's Punycode, for domain labels.
enum Punycode {
    static let base: UInt32 = 36, tMin: UInt32 = 1, tMax: UInt32 = 26, skew: UInt32 = 38, damp: UInt32 = 700

    static func adapt(_ delta: UInt32, _ count: UInt32, _ first: Bool) -> UInt32 {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// The code points a label's Punycode (after `xn--`) stands for, or nil if it is malformed.
    static func decode(_ input: [Unicode.Scalar]) -> [Unicode.Scalar]? {
        var output: [Unicode.Scalar] = []
        var rest = input[...]
        if let delimiter = input.lastIndex(of: "-") {
            output = Array(input[..<delimiter])
            guard output.allSatisfy(\.isASCII) else { return nil }
            rest = input[(delimiter + 1)...]
        }
        var n: UInt32 = 0x80, i: UInt32 = 0, bias: UInt32 = 72
        var position = rest.startIndex
        while position < rest.endIndex {
            let oldI = i
            var w: UInt32 = 1, k = base
            while true {
                guard position < rest.endIndex else { return nil }
                let scalar = rest[position]
                position += 1
                let digit: UInt32
                switch scalar {
                case "a"..."z": digit = scalar.value - 0x61
                case "A"..."Z": digit = scalar.value - 0x41
                case "0"..."9": digit = scalar.value - 0x30 + 26
                default: return nil
                }
                let (product, overflow) = digit.multipliedReportingOverflow(by: w)
                guard !overflow, i <= UInt32.max - product else { return nil }
                i += product
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < t { break }
                let (next, wOverflow) = w.multipliedReportingOverflow(by: base - t)
                guard !wOverflow else { return nil }
                w = next
                k += base
            }
            let count = UInt32(output.count + 1)
            bias = adapt(i - oldI, count, oldI == 0)
            guard i / count <= UInt32.max - n else { return nil }
            n += i / count
            i %= count
            guard let scalar = Unicode.Scalar(n), n >= 0x80 else { return nil }
            output.insert(scalar, at: Int(i))
            i += 1
        }
        return output
    }

    static func encode(_ input: [Unicode.Scalar]) -> String? {
        var output = String.UnicodeScalarView(input.filter(\.isASCII))
        let basicCount = UInt32(output.count)
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n: UInt32 = 0x80, delta: UInt32 = 0, bias: UInt32 = 72
        func digit(_ value: UInt32) -> Unicode.Scalar {
            Unicode.Scalar(UInt8(value < 26 ? value + 0x61 : value - 26 + 0x30))
        }
        while handled < UInt32(input.count) {
            guard let m = input.map(\.value).filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= UInt32.max - product else { return nil }
            delta += product
            n = m
            for scalar in input {
                if scalar.value < n {
                    let (next, overflow) = delta.addingReportingOverflow(1)
                    guard !overflow else { return nil }
                    delta = next
                }
                if scalar.value == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            let (nextDelta, deltaOverflow) = delta.addingReportingOverflow(1)
            let (nextN, nOverflow) = n.addingReportingOverflow(1)
            guard !deltaOverflow, !nOverflow else { return nil }
            delta = nextDelta
            n = nextN
        }
        return String(output)
    }
}
