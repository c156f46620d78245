/// `application/x-www-form-urlencoded`, as `URLSearchParams` reads and writes it.
enum FormURLEncoding {
    /// Name-value pairs, flattened (name, value, name, value…): `&`-separated, split at the
    /// first `=`, `+` as space, percent-decoded as UTF-8 (malformed bytes as U+FFFD).
    static func parse(_ input: String) -> [String] {
        var flat: [String] = []
        // By bytes: `&`, `=` and `+` are separators even before a combining mark (which would
        // make one grapheme cluster of them).
        for sequence in input.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = sequence.firstIndex(of: UInt8(ascii: "="))
            let name = equals.map { sequence[..<$0] } ?? sequence[...]
            let value = equals.map { sequence[sequence.index(after: $0)...] } ?? sequence[sequence.endIndex...]
            flat.append(decode(name))
            flat.append(decode(value))
        }
        return flat
    }

    private static func decode(_ bytes: Substring.UTF8View.SubSequence) -> String {
        let spaced = bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
        return String(decoding: PercentEncoding.decode(bytes: spaced), as: UTF8.self)
    }

    /// The flattened pairs serialized (`a=1&b=x+y`).
    static func serialize(_ flat: [String]) -> String {
        stride(from: 0, to: flat.count - 1, by: 2).map { index in
            PercentEncoding.encode(flat[index], in: .formURLEncoded, spaceAsPlus: true) + "="
                + PercentEncoding.encode(flat[index + 1], in: .formURLEncoded, spaceAsPlus: true)
        }.joined(separator: "&")
    }
}
