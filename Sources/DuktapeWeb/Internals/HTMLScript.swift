/// The `<script>` elements of an HTML document, in document order: just enough of HTML's
/// tokenizer to find them (comments, `<script>` start tags with their attributes, raw text up to
/// `</script`), not a DOM.
struct HTMLScript: Equatable {
    /// The attributes, names lowercased; a later duplicate is ignored, as HTML does.
    var attributes: [String: String]
    /// The element's text (inline source).
    var text: String
    /// The 1-based line of the element's text in the document (for error positions).
    var line: Int

    var source: String? { attributes["src"] }

    /// What HTML does with the element, by its `type` (and `language`) attribute.
    enum Kind: Equatable {
        case classic
        case module
        /// A data block or an unknown type: not run.
        case other(String)
    }

    var kind: Kind {
        let type = attributes["type"].map(Self.trimmed)
        if type == nil || type == "" {
            // No type, or an empty one: the language attribute decides (empty or absent: JS).
            if let language = attributes["language"].map(Self.trimmed), !language.isEmpty {
                return Self.isJavaScriptMIME("text/" + language.lowercased()) ? .classic : .other("language=" + language)
            }
            return .classic
        }
        guard let type else { return .classic }
        if type.lowercased() == "module" { return .module }
        return Self.isJavaScriptMIME(type) ? .classic : .other(type)
    }

    /// HTML's JavaScript MIME type essence match (parameters not allowed).
    static func isJavaScriptMIME(_ type: String) -> Bool {
        [
            "application/ecmascript", "application/javascript", "application/x-ecmascript", "application/x-javascript",
            "text/ecmascript", "text/javascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
            "text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
            "text/x-ecmascript", "text/x-javascript",
        ].contains(type.lowercased())
    }

    private static func trimmed(_ text: String) -> String {
        String(text.unicodeScalars.drop { isHTMLSpace($0) }.reversed().drop { isHTMLSpace($0) }.reversed()
            .map(Character.init))
    }

    static func isHTMLSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\u{0C}" || scalar == "\r"
    }

    /// Every `<script>` element of `html`, in order. Linear in the document's length.
    static func scripts(in html: String) -> [HTMLScript] {
        let input = Array(html.unicodeScalars)
        var scripts: [HTMLScript] = []
        var index = 0
        var line = 1
        func advance(to target: Int) {
            while index < target {
                if input[index] == "\n" { line += 1 }
                index += 1
            }
        }
        func matches(_ text: String, at position: Int) -> Bool {
            let scalars = Array(text.unicodeScalars)
            guard position + scalars.count <= input.count else { return false }
            for (offset, scalar) in scalars.enumerated() where input[position + offset].asciiLowercased != scalar {
                return false
            }
            return true
        }
        func find(_ text: String, from position: Int) -> Int? {
            var candidate = position
            while candidate < input.count {
                if matches(text, at: candidate) { return candidate }
                candidate += 1
            }
            return nil
        }
        while index < input.count {
            guard input[index] == "<" else {
                advance(to: index + 1)
                continue
            }
            if matches("<!--", at: index) {
                advance(to: (find("-->", from: index + 4) ?? input.count - 3) + 3)
                continue
            }
            guard matches("<script", at: index), index + 7 >= input.count || isHTMLSpace(input[index + 7])
                || input[index + 7] == ">" || input[index + 7] == "/"
            else {
                advance(to: index + 1)
                continue
            }
            advance(to: index + 7)
            // Attributes, up to the tag's `>`.
            var attributes: [String: String] = [:]
            while index < input.count, input[index] != ">" {
                if isHTMLSpace(input[index]) || input[index] == "/" {
                    advance(to: index + 1)
                    continue
                }
                var name = ""
                while index < input.count, !isHTMLSpace(input[index]), input[index] != "=", input[index] != ">",
                      !(input[index] == "/" && !name.isEmpty) {
                    name.unicodeScalars.append(input[index].asciiLowercased)
                    advance(to: index + 1)
                }
                while index < input.count, isHTMLSpace(input[index]) { advance(to: index + 1) }
                var value = ""
                if index < input.count, input[index] == "=" {
                    advance(to: index + 1)
                    while index < input.count, isHTMLSpace(input[index]) { advance(to: index + 1) }
                    if index < input.count, input[index] == "\"" || input[index] == "'" {
                        let quote = input[index]
                        advance(to: index + 1)
                        while index < input.count, input[index] != quote {
                            value.unicodeScalars.append(input[index])
                            advance(to: index + 1)
                        }
                        advance(to: index + 1)
                    } else {
                        while index < input.count, !isHTMLSpace(input[index]), input[index] != ">" {
                            value.unicodeScalars.append(input[index])
                            advance(to: index + 1)
                        }
                    }
                }
                if !name.isEmpty, attributes[name] == nil { attributes[name] = decodeCharacterReferences(value) }
            }
            advance(to: index + 1)
            let textLine = line
            let end = find("</script", from: index) ?? input.count
            let text = String(String.UnicodeScalarView(input[index..<end]))
            advance(to: end)
            if let close = find(">", from: index) { advance(to: close + 1) }
            scripts.append(HTMLScript(attributes: attributes, text: text, line: textLine))
        }
        return scripts
    }

    /// The few character references attribute values commonly carry (`&amp;` in a `src` query,
    /// numeric ones); others stay as written.
    static func decodeCharacterReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[ampersand...]
            guard let semicolon = rest.firstIndex(of: ";"), rest.distance(from: rest.startIndex, to: semicolon) <= 10 else {
                output += "&"
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let replacement = named[name] {
                output += replacement
            } else if name.hasPrefix("#x") || name.hasPrefix("#X"), let value = UInt32(name.dropFirst(2), radix: 16),
                      let scalar = Unicode.Scalar(value) {
                output.unicodeScalars.append(scalar)
            } else if name.hasPrefix("#"), let value = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(value) {
                output.unicodeScalars.append(scalar)
            } else {
                output += "&"
                rest = rest.dropFirst()
                continue
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return output + rest
    }
}
