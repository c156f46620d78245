/// A MIME type as WHATWG's MIME Sniffing standard parses one (`text/html; charset="utf-8"`):
/// type and subtype lowercased, parameters with lowercased names and their values unquoted.
/// Used for a response's charset and for WebLoader's request content types.
struct MIMEType {
    var type: String
    var subtype: String
    /// The parameters in order, the first of each name kept.
    var parameters: [(name: String, value: String)]

    /// `type/subtype`.
    var essence: String { type + "/" + subtype }

    /// The value of the parameter `name` (lowercase), or nil.
    func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// Parses `text`, or returns nil for a string that is not a MIME type.
    init?(_ text: String) {
        var scalars = Substring(text).unicodeScalars[...]
        Self.trimHTTPWhitespace(&scalars)
        guard let slash = scalars.firstIndex(of: "/") else { return nil }
        let type = String(String.UnicodeScalarView(scalars[..<slash]))
        scalars = scalars[scalars.index(after: slash)...]
        let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
        var subtypeScalars = scalars[..<end]
        Self.trimHTTPWhitespace(&subtypeScalars)
        let subtype = String(String.UnicodeScalarView(subtypeScalars))
        guard Self.isToken(type), Self.isToken(subtype) else { return nil }
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        parameters = []
        scalars = scalars[end...]
        while let first = scalars.first, first == ";" {
            scalars = scalars.dropFirst()
            while let space = scalars.first, Self.isHTTPWhitespace(space) { scalars = scalars.dropFirst() }
            let nameEnd = scalars.firstIndex { $0 == ";" || $0 == "=" } ?? scalars.endIndex
            let name = String(String.UnicodeScalarView(scalars[..<nameEnd])).lowercased()
            scalars = scalars[nameEnd...]
            guard let separator = scalars.first, separator == "=" else { continue }
            scalars = scalars.dropFirst()
            var value: String
            if scalars.first == "\"" {
                value = Self.collectQuoted(&scalars)
                if let semicolon = scalars.firstIndex(of: ";") { scalars = scalars[semicolon...] } else { scalars = scalars[scalars.endIndex...] }
            } else {
                let valueEnd = scalars.firstIndex(of: ";") ?? scalars.endIndex
                var raw = scalars[..<valueEnd]
                Self.trimHTTPWhitespace(&raw)
                value = String(String.UnicodeScalarView(raw))
                scalars = scalars[valueEnd...]
                if value.isEmpty { continue }
            }
            guard !name.isEmpty, Self.isToken(name), Self.isQuotedStringSafe(value),
                  !parameters.contains(where: { $0.name == name }) else { continue }
            parameters.append((name, value))
        }
    }

    private static func collectQuoted(_ scalars: inout Substring.UnicodeScalarView.SubSequence) -> String {
        var value = String.UnicodeScalarView()
        scalars = scalars.dropFirst()
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            if scalar == "\\" {
                guard let escaped = scalars.first else { value.append("\\"); break }
                value.append(escaped)
                scalars = scalars.dropFirst()
            } else if scalar == "\"" {
                break
            } else {
                value.append(scalar)
            }
        }
        return String(value)
    }

    private static func isHTTPWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    private static func trimHTTPWhitespace(_ scalars: inout Substring.UnicodeScalarView.SubSequence) {
        while let first = scalars.first, isHTTPWhitespace(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, isHTTPWhitespace(last) { scalars = scalars.dropLast() }
    }

    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
        }
    }

    private static func isQuotedStringSafe(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == "\t" || (" "..."~").contains($0) || (0x80...0xFF).contains($0.value) }
    }
}
