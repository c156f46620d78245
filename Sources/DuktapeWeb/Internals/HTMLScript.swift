/// The `<script>` elements of an HTML document, in document order: enough of HTML's tokenizer
/// to find them as a browser does (not a DOM). Every tag is tokenized with its attributes, so a
/// `<script>` inside an attribute value is text; comments follow the tokenizer's rules (`<!-->`,
/// `--!>`, bogus comments); the content of raw-text and RCDATA elements (`style`, `textarea`,
/// `title`, `xmp`, `iframe`, `noembed`, `noframes`, `noscript`) and everything after
/// `<plaintext>` is text; `<template>` content is inert; a script ends only at an appropriate
/// end tag (`</script` then whitespace, `/` or `>`), and a script cut off by the end of the
/// document is not run. Not modelled: the script data escaped states (`<!--` inside a script
/// hiding a nested `</script>`), and `document.write`.
struct HTMLScript: Equatable {
    /// The attributes, names lowercased; a later duplicate is ignored, as HTML does.
    var attributes: [String: String]
    /// The element's text (inline source).
    var text: String

    var source: String? { attributes["src"] }

    /// What HTML does with the element, by its `type` (and `language`) attribute.
    enum Kind: Equatable {
        case classic
        case module
        /// A data block or an unknown type: not run.
        case other(String)
    }

    var kind: Kind {
        if let type = attributes["type"] {
            let trimmed = Self.trimmed(type)
            if trimmed.isEmpty { return .classic }
            if trimmed.lowercased() == "module" { return .module }
            return Self.isJavaScriptMIME(trimmed) ? .classic : .other(trimmed)
        }
        // No type attribute: the language attribute decides (empty or absent: JavaScript).
        if let language = attributes["language"].map(Self.trimmed), !language.isEmpty {
            return Self.isJavaScriptMIME("text/" + language) ? .classic : .other("language=" + language)
        }
        return .classic
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
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !isHTMLSpace($0) }), let end = scalars.lastIndex(where: { !isHTMLSpace($0) })
        else { return "" }
        return String(scalars[start...end])
    }

    static func isHTMLSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\u{0C}" || scalar == "\r"
    }

    /// Elements whose content is text up to their own end tag.
    private static let rawTextElements: Set<String> = [
        "style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title",
    ]

    /// Every `<script>` element of `html` outside templates, in order. Linear in the document's
    /// length.
    static func scripts(in html: String) -> [HTMLScript] {
        var scanner = Scanner(input: Array(html.unicodeScalars))
        return scanner.run()
    }

    private struct Scanner {
        static let commentStart = Array("<!--".unicodeScalars), commentEnd = Array("-->".unicodeScalars),
            bangCommentEnd = Array("--!>".unicodeScalars), scriptEnd = Array("</script".unicodeScalars)

        let input: [Unicode.Scalar]
        var index = 0
        var templateDepth = 0
        var scripts: [HTMLScript] = []

        init(input: [Unicode.Scalar]) {
            self.input = input
        }

        var atEnd: Bool { index >= input.count }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < input.count ? input[index + offset] : nil
        }

        mutating func advance(by count: Int = 1) {
            index = min(index + count, input.count)
        }

        /// True when `pattern` (lowercase ASCII) is at `position`, compared case-insensitively.
        func matches(_ pattern: [Unicode.Scalar], at position: Int) -> Bool {
            guard position + pattern.count <= input.count else { return false }
            for offset in 0..<pattern.count where input[position + offset].asciiLowercased != pattern[offset] {
                return false
            }
            return true
        }

        /// The position of the next `pattern` from `index`, or nil.
        func find(_ pattern: [Unicode.Scalar], requiringTagEnd: Bool = false) -> Int? {
            var position = index
            while position + pattern.count <= input.count {
                if matches(pattern, at: position) {
                    let after = position + pattern.count
                    if !requiringTagEnd || after >= input.count || isHTMLSpace(input[after]) || input[after] == "/"
                        || input[after] == ">" {
                        return position
                    }
                }
                position += 1
            }
            return nil
        }

        mutating func run() -> [HTMLScript] {
            while !atEnd {
                guard peek() == "<" else {
                    advance()
                    continue
                }
                if matches(Self.commentStart, at: index) {
                    skipComment()
                } else if peek(1) == "!" || peek(1) == "?" {
                    skipPast(">")  // a bogus comment (or a doctype)
                } else if peek(1) == "/" {
                    if let next = peek(2), next.isASCIIAlpha {
                        advance(by: 2)
                        let name = readTagName()
                        _ = readAttributes()
                        if name == "template" { templateDepth = max(0, templateDepth - 1) }
                    } else if peek(2) == ">" {
                        advance(by: 3)
                    } else {
                        skipPast(">")
                    }
                } else if let next = peek(1), next.isASCIIAlpha {
                    advance()
                    let name = readTagName()
                    guard let attributes = readAttributes() else { return scripts }  // EOF inside the tag
                    if !startElement(name, attributes) { return scripts }
                } else {
                    advance()
                }
            }
            return scripts
        }

        /// `<!--` … `-->` (or `--!>`; `<!-->` and `<!--->` are empty comments).
        mutating func skipComment() {
            advance(by: 4)
            if peek() == ">" {
                advance()
                return
            }
            if peek() == "-", peek(1) == ">" {
                advance(by: 2)
                return
            }
            while !atEnd {
                if matches(Self.commentEnd, at: index) {
                    advance(by: 3)
                    return
                }
                if matches(Self.bangCommentEnd, at: index) {
                    advance(by: 4)
                    return
                }
                advance()
            }
        }

        mutating func skipPast(_ scalar: Unicode.Scalar) {
            while !atEnd, peek() != scalar { advance() }
            advance()
        }

        mutating func readTagName() -> String {
            var name = String.UnicodeScalarView()
            while let scalar = peek(), !isHTMLSpace(scalar), scalar != "/", scalar != ">" {
                name.append(scalar.asciiLowercased)
                advance()
            }
            return String(name)
        }

        /// The attributes up to the tag's `>` (consumed), or nil when the document ends inside
        /// the tag (a browser then drops the tag).
        mutating func readAttributes() -> [String: String]? {
            var attributes: [String: String] = [:]
            while let scalar = peek(), scalar != ">" {
                if isHTMLSpace(scalar) || scalar == "/" {
                    advance()
                    continue
                }
                var name = String.UnicodeScalarView([scalar.asciiLowercased])
                advance()
                while let next = peek(), !isHTMLSpace(next), next != "=", next != ">", next != "/" {
                    name.append(next.asciiLowercased)
                    advance()
                }
                while let next = peek(), isHTMLSpace(next) { advance() }
                var value = String.UnicodeScalarView()
                if peek() == "=" {
                    advance()
                    while let next = peek(), isHTMLSpace(next) { advance() }
                    if let quote = peek(), quote == "\"" || quote == "'" {
                        advance()
                        while let next = peek(), next != quote {
                            value.append(next)
                            advance()
                        }
                        if atEnd { return nil }
                        advance()
                    } else {
                        while let next = peek(), !isHTMLSpace(next), next != ">" {
                            value.append(next)
                            advance()
                        }
                    }
                }
                let key = String(name)
                if attributes[key] == nil { attributes[key] = HTMLScript.decodeCharacterReferences(String(value)) }
            }
            if atEnd { return nil }
            advance()  // the `>`
            return attributes
        }

        /// After a start tag: collects a script, skips raw text, tracks templates. False when the
        /// rest of the document is text (`<plaintext>`, or an element that never ends).
        mutating func startElement(_ name: String, _ attributes: [String: String]) -> Bool {
            switch name {
            case "script":
                let start = index
                guard let end = find(Self.scriptEnd, requiringTagEnd: true) else { return false }
                if templateDepth == 0 {
                    scripts.append(HTMLScript(
                        attributes: attributes, text: String(String.UnicodeScalarView(input[start..<end]))))
                }
                advance(by: end - index + 8)
                _ = readAttributes()
            case "plaintext":
                return false
            case "template":
                templateDepth += 1
            case _ where HTMLScript.rawTextElements.contains(name):
                guard let end = find(Array(("</" + name).unicodeScalars), requiringTagEnd: true) else { return false }
                advance(by: end - index + 2 + name.unicodeScalars.count)
                _ = readAttributes()
            default:
                break
            }
            return true
        }
    }

    /// The character references attribute values commonly carry (`&amp;` in a `src` query,
    /// numeric ones); others stay as written. Looks at most 10 code points ahead for the `;`.
    static func decodeCharacterReferences(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains("&") else { return text }
        let named: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
        var output = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "&", let semicolon = scalars[(index + 1)..<min(scalars.count, index + 12)].firstIndex(of: ";") else {
                output.append(scalar)
                index += 1
                continue
            }
            let name = String(String.UnicodeScalarView(scalars[(index + 1)..<semicolon]))
            var decoded: Unicode.Scalar?
            if let replacement = named[name] {
                decoded = replacement
            } else if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init)
            }
            if let decoded {
                output.append(decoded)
                index = semicolon + 1
            } else {
                output.append(scalar)
                index += 1
            }
        }
        return String(output)
    }
}
