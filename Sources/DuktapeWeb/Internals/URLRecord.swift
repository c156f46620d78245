/// A URL as WHATWG's URL Standard parses and serializes it (the `URL` global's model, and the
/// host's for requests): the basic URL parser's state machine for special schemes (http, https,
/// ws, wss, ftp, file) and others (opaque paths, opaque hosts), IPv4 in all its legacy forms,
/// IPv6 with compression, percent-encoding by the standard's sets, and dot segments.
///
/// Domain names are lowercased (ASCII) and non-ASCII labels encoded as Punycode (`xn--`), without
/// UTS #46's mapping table: a name that needs mapping (full-width letters, for instance) is kept
/// as it lowercases, where a browser would map it first.
struct URLRecord: Equatable {
    var scheme = ""
    var username = ""
    var password = ""
    var host: String?
    var port: Int?
    /// Segments, or one opaque path (`mailto:x`) when `hasOpaquePath`.
    var path: [String] = []
    var hasOpaquePath = false
    var query: String?
    var fragment: String?

    static let specialPorts: [String: Int?] = ["ftp": 21, "file": nil, "http": 80, "https": 443, "ws": 80, "wss": 443]

    var isSpecial: Bool { Self.specialPorts[scheme] != nil }
    var defaultPort: Int? { Self.specialPorts[scheme] ?? nil }

    // MARK: - Serializing

    var href: String {
        var output = scheme + ":"
        if let host {
            output += "//"
            if includesCredentials {
                output += username
                if !password.isEmpty { output += ":" + password }
                output += "@"
            }
            output += host
            if let port { output += ":\(port)" }
        } else if !hasOpaquePath, path.count > 1, path[0].isEmpty {
            output += "/."  // a path that would read as a host
        }
        output += pathname
        if let query { output += "?" + query }
        if let fragment { output += "#" + fragment }
        return output
    }

    var pathname: String {
        hasOpaquePath ? (path.first ?? "") : path.map { "/" + $0 }.joined()
    }

    /// The serialized origin: scheme, host and port of a special non-file URL, the origin of
    /// the URL inside a `blob:` URL when that is http(s), and "null" for anything else.
    var origin: String {
        if scheme == "blob", let inner = URLRecord.parse(pathname), inner.scheme == "http" || inner.scheme == "https" {
            return inner.origin
        }
        guard isSpecial, scheme != "file", let host else { return "null" }
        return scheme + "://" + host + (port.map { ":\($0)" } ?? "")
    }

    var includesCredentials: Bool { !username.isEmpty || !password.isEmpty }

    var hostWithPort: String {
        guard let host else { return "" }
        return host + (port.map { ":\($0)" } ?? "")
    }

    // MARK: - Parsing

    /// The basic URL parser: `input` against `base`, or nil for failure.
    static func parse(_ input: String, base: URLRecord? = nil) -> URLRecord? {
        var parser = Parser(input: input, base: base)
        return parser.run() ? parser.url : nil
    }

    /// The basic URL parser on `self` from `state` (the standard's state override, which the
    /// `URL` setters use). As in the standard, what the parser set before a failure stays set.
    mutating func parse(_ input: String, from state: Parser.State) {
        var parser = Parser(input: input, base: nil, url: self, stateOverride: state)
        _ = parser.run()
        self = parser.url
    }

    struct Parser {
        enum State {
            case schemeStart, scheme, noScheme, hostname, specialRelativeOrAuthority, pathOrAuthority, relative,
                 relativeSlash, specialAuthoritySlashes, specialAuthorityIgnoreSlashes, authority, host,
                 port, file, fileSlash, fileHost, pathStart, path, opaquePath, query, fragment
        }

        var url: URLRecord
        let base: URLRecord?
        let stateOverride: State?
        var input: [Unicode.Scalar]
        var pointer = 0
        var buffer = ""
        var state: State
        var sawAt = false, insideBrackets = false, passwordTokenSeen = false

        init(input: String, base: URLRecord?, url: URLRecord? = nil, stateOverride: State? = nil) {
            self.base = base
            self.url = url ?? URLRecord()
            self.stateOverride = stateOverride
            self.state = stateOverride == .hostname ? .host : stateOverride ?? .schemeStart
            var scalars = Array(input.unicodeScalars)[...]
            if url == nil {
                // Leading and trailing C0 controls and spaces go (not for a setter's value).
                let start = scalars.firstIndex { $0.value > 0x20 } ?? scalars.endIndex
                let end = scalars.lastIndex { $0.value > 0x20 }.map { $0 + 1 } ?? start
                scalars = scalars[start..<max(start, end)]
            }
            // Tabs and newlines go everywhere.
            self.input = scalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        }

        /// The code point at `pointer` (nil: EOF).
        var c: Unicode.Scalar? { pointer < input.count ? input[pointer] : nil }
        func remaining(_ offset: Int) -> Unicode.Scalar? {
            pointer + offset < input.count ? input[pointer + offset] : nil
        }

        /// Runs the state machine; false for failure. With a state override, some states stop
        /// early (returning true: done), as the standard's "return" does.
        // swiftlint:disable:next cyclomatic_complexity function_body_length
        mutating func run() -> Bool {
            while true {
                let c = self.c
                switch state {
                case .schemeStart:
                    if let c, c.isASCIIAlpha {
                        buffer.unicodeScalars.append(c.asciiLowercased)
                        state = .scheme
                    } else if stateOverride != nil {
                        return false
                    } else {
                        state = .noScheme
                        pointer -= 1
                    }
                case .scheme:
                    if let c, c.isASCIIAlphanumeric || c == "+" || c == "-" || c == "." {
                        buffer.unicodeScalars.append(c.asciiLowercased)
                    } else if c == ":" {
                        if stateOverride != nil {
                            // The protocol setter: special and non-special schemes do not trade
                            // places, and file takes no credentials, port or empty host.
                            let special = URLRecord.specialPorts[buffer] != nil
                            if url.isSpecial != special { return true }
                            if (url.includesCredentials || url.port != nil) && buffer == "file" { return true }
                            if url.scheme == "file" && url.host == "" { return true }
                            url.scheme = buffer
                            if url.port == url.defaultPort { url.port = nil }
                            return true
                        }
                        url.scheme = buffer
                        buffer = ""
                        if url.scheme == "file" {
                            state = .file
                        } else if url.isSpecial, let base, base.scheme == url.scheme {
                            state = .specialRelativeOrAuthority
                        } else if url.isSpecial {
                            state = .specialAuthoritySlashes
                        } else if remaining(1) == "/" {
                            state = .pathOrAuthority
                            pointer += 1
                        } else {
                            url.hasOpaquePath = true
                            url.path = [""]
                            state = .opaquePath
                        }
                    } else if stateOverride != nil {
                        return false
                    } else {
                        buffer = ""
                        state = .noScheme
                        pointer = -1
                    }
                case .noScheme:
                    guard let base, !base.hasOpaquePath || c == "#" else { return false }
                    if base.hasOpaquePath {
                        url.scheme = base.scheme
                        url.path = base.path
                        url.hasOpaquePath = true
                        url.query = base.query
                        url.fragment = ""
                        state = .fragment
                    } else if base.scheme != "file" {
                        state = .relative
                        pointer -= 1
                    } else {
                        state = .file
                        pointer -= 1
                    }
                case .specialRelativeOrAuthority:
                    if c == "/", remaining(1) == "/" {
                        state = .specialAuthorityIgnoreSlashes
                        pointer += 1
                    } else {
                        state = .relative
                        pointer -= 1
                    }
                case .pathOrAuthority:
                    if c == "/" {
                        state = .authority
                    } else {
                        state = .path
                        pointer -= 1
                    }
                case .relative:
                    guard let base else { return false }
                    url.scheme = base.scheme
                    if c == "/" {
                        state = .relativeSlash
                    } else if url.isSpecial, c == "\\" {
                        state = .relativeSlash
                    } else {
                        url.username = base.username
                        url.password = base.password
                        url.host = base.host
                        url.port = base.port
                        url.path = base.path
                        url.query = base.query
                        if enterQueryOrFragment(c) {
                            // the base's path kept
                        } else if c != nil {
                            url.query = nil
                            if !url.path.isEmpty { url.path.removeLast() }
                            state = .path
                            pointer -= 1
                        }
                    }
                case .relativeSlash:
                    if url.isSpecial, c == "/" || c == "\\" {
                        state = .specialAuthorityIgnoreSlashes
                    } else if c == "/" {
                        state = .authority
                    } else {
                        url.username = base?.username ?? ""
                        url.password = base?.password ?? ""
                        url.host = base?.host
                        url.port = base?.port
                        state = .path
                        pointer -= 1
                    }
                case .specialAuthoritySlashes:
                    if c == "/", remaining(1) == "/" {
                        state = .specialAuthorityIgnoreSlashes
                        pointer += 1
                    } else {
                        state = .specialAuthorityIgnoreSlashes
                        pointer -= 1
                    }
                case .specialAuthorityIgnoreSlashes:
                    if c != "/" && c != "\\" {
                        state = .authority
                        pointer -= 1
                    }
                case .authority:
                    if c == "@" {
                        if sawAt { buffer = "%40" + buffer }
                        sawAt = true
                        for scalar in buffer.unicodeScalars {
                            if scalar == ":" && !passwordTokenSeen {
                                passwordTokenSeen = true
                                continue
                            }
                            let encoded = PercentEncoding.encode(scalar, in: .userinfo)
                            if passwordTokenSeen { url.password += encoded } else { url.username += encoded }
                        }
                        buffer = ""
                    } else if c == nil || c == "/" || c == "?" || c == "#" || (url.isSpecial && c == "\\") {
                        if sawAt && buffer.isEmpty { return false }
                        pointer -= buffer.unicodeScalars.count + 1
                        buffer = ""
                        state = .host
                    } else if let c {
                        buffer.unicodeScalars.append(c)
                    }
                case .host, .hostname:
                    if stateOverride != nil && url.scheme == "file" {
                        pointer -= 1
                        state = .fileHost
                    } else if c == ":" && !insideBrackets {
                        guard !buffer.isEmpty else { return false }
                        if stateOverride == .hostname { return true }
                        guard let host = URLHost.parse(buffer, isOpaque: !url.isSpecial) else { return false }
                        url.host = host
                        buffer = ""
                        state = .port
                    } else if c == nil || c == "/" || c == "?" || c == "#" || (url.isSpecial && c == "\\") {
                        pointer -= 1
                        if url.isSpecial && buffer.isEmpty { return false }
                        if stateOverride != nil, buffer.isEmpty, url.includesCredentials || url.port != nil { return true }
                        guard let host = URLHost.parse(buffer, isOpaque: !url.isSpecial) else { return false }
                        url.host = host
                        buffer = ""
                        state = .pathStart
                        if stateOverride != nil { return true }
                    } else if let c {
                        if c == "[" { insideBrackets = true }
                        if c == "]" { insideBrackets = false }
                        buffer.unicodeScalars.append(c)
                    }
                case .port:
                    if let c, c.isASCIIDigit {
                        buffer.unicodeScalars.append(c)
                    } else if c == nil || c == "/" || c == "?" || c == "#" || (url.isSpecial && c == "\\") || stateOverride != nil {
                        if !buffer.isEmpty {
                            let digits = buffer.drop { $0 == "0" }
                            guard digits.count <= 5, let port = Int(digits.isEmpty ? "0" : digits), port <= 65535 else { return false }
                            url.port = port == url.defaultPort ? nil : port
                            buffer = ""
                            if stateOverride != nil { return true }
                        }
                        if stateOverride != nil { return false }
                        state = .pathStart
                        pointer -= 1
                    } else {
                        return false
                    }
                case .file:
                    url.scheme = "file"
                    url.host = ""
                    if c == "/" || c == "\\" {
                        state = .fileSlash
                    } else if let base, base.scheme == "file" {
                        url.host = base.host
                        url.path = base.path
                        url.query = base.query
                        if enterQueryOrFragment(c) {
                            // the base's path kept
                        } else if c != nil {
                            url.query = nil
                            if !startsWithWindowsDriveLetter(at: pointer) {
                                shortenPath()
                            } else {
                                url.path = []
                            }
                            state = .path
                            pointer -= 1
                        }
                    } else {
                        state = .path
                        pointer -= 1
                    }
                case .fileSlash:
                    if c == "/" || c == "\\" {
                        state = .fileHost
                    } else {
                        if let base, base.scheme == "file" {
                            url.host = base.host
                            if !startsWithWindowsDriveLetter(at: pointer), let first = base.path.first,
                               Self.isNormalizedWindowsDriveLetter(first) {
                                url.path.append(first)
                            }
                        }
                        state = .path
                        pointer -= 1
                    }
                case .fileHost:
                    if c == nil || c == "/" || c == "\\" || c == "?" || c == "#" {
                        pointer -= 1
                        if stateOverride == nil, Self.isWindowsDriveLetter(buffer) {
                            state = .path  // a drive letter, not a host: the buffer is kept for the path
                        } else if buffer.isEmpty {
                            url.host = ""
                            if stateOverride != nil { return true }
                            state = .pathStart
                        } else {
                            guard var host = URLHost.parse(buffer, isOpaque: false) else { return false }
                            if host == "localhost" { host = "" }
                            url.host = host
                            if stateOverride != nil { return true }
                            buffer = ""
                            state = .pathStart
                        }
                    } else if let c {
                        buffer.unicodeScalars.append(c)
                    }
                case .pathStart:
                    if url.isSpecial {
                        state = .path
                        if c != "/" && c != "\\" { pointer -= 1 }
                    } else if stateOverride == nil && c == "?" {
                        url.query = ""
                        state = .query
                    } else if stateOverride == nil && c == "#" {
                        url.fragment = ""
                        state = .fragment
                    } else if c != nil {
                        state = .path
                        if c != "/" { pointer -= 1 }
                    } else if stateOverride != nil && url.host == nil {
                        url.path.append("")
                    }
                case .path:
                    let atEnd = c == nil || c == "/" || (url.isSpecial && c == "\\") || (stateOverride == nil && (c == "?" || c == "#"))
                    if atEnd {
                        let slash = c == "/" || (url.isSpecial && c == "\\")
                        if Self.isDoubleDot(buffer) {
                            shortenPath()
                            if !slash { url.path.append("") }
                        } else if Self.isSingleDot(buffer) {
                            if !slash { url.path.append("") }
                        } else {
                            if url.scheme == "file", url.path.isEmpty, Self.isWindowsDriveLetter(buffer) {
                                buffer = String(buffer.unicodeScalars.first.map(Character.init) ?? "a") + ":"
                            }
                            url.path.append(buffer)
                        }
                        buffer = ""
                        _ = enterQueryOrFragment(c)
                    } else if let c {
                        buffer += PercentEncoding.encode(c, in: .path)
                    }
                case .opaquePath:
                    if enterQueryOrFragment(c) {
                        // the path is complete
                    } else if c == " ", remaining(1) == "?" || remaining(1) == "#" {
                        url.path[0] += "%20"  // kept visible: a final space would be lost when the query or fragment goes
                    } else if let c {
                        url.path[0] += PercentEncoding.encode(c, in: .c0Control)
                    }
                case .query:
                    if (stateOverride == nil && c == "#") || c == nil {
                        let encoded = PercentEncoding.encode(buffer, in: url.isSpecial ? .specialQuery : .query)
                        if url.query == nil { url.query = "" }
                        url.query?.append(encoded)
                        buffer = ""
                        if c == "#" {
                            url.fragment = ""
                            state = .fragment
                        }
                    } else if let c {
                        buffer.unicodeScalars.append(c)
                    }
                case .fragment:
                    if let c {
                        if url.fragment == nil { url.fragment = "" }
                        url.fragment?.append(PercentEncoding.encode(c, in: .fragment))  // in place: linear
                    }
                }
                // A state that stepped back re-reads the code point (EOF included) in its next state.
                if pointer >= input.count { break }
                pointer += 1
            }
            return true
        }

        /// `?` starts the query and `#` the fragment (each empty so far); true when `c` was one.
        mutating func enterQueryOrFragment(_ c: Unicode.Scalar?) -> Bool {
            if c == "?" {
                url.query = ""
                state = .query
                return true
            }
            if c == "#" {
                url.fragment = ""
                state = .fragment
                return true
            }
            return false
        }

        mutating func shortenPath() {
            if url.scheme == "file", url.path.count == 1, Self.isNormalizedWindowsDriveLetter(url.path[0]) { return }
            if !url.path.isEmpty { url.path.removeLast() }
        }

        func startsWithWindowsDriveLetter(at index: Int) -> Bool {
            guard index + 1 < input.count, input[index].isASCIIAlpha, input[index + 1] == ":" || input[index + 1] == "|" else {
                return false
            }
            if index + 2 == input.count { return true }
            let next = input[index + 2]
            return next == "/" || next == "\\" || next == "?" || next == "#"
        }

        static func isWindowsDriveLetter(_ text: String) -> Bool {
            let scalars = Array(text.unicodeScalars)
            return scalars.count == 2 && scalars[0].isASCIIAlpha && (scalars[1] == ":" || scalars[1] == "|")
        }

        static func isNormalizedWindowsDriveLetter(_ text: String) -> Bool {
            let scalars = Array(text.unicodeScalars)
            return scalars.count == 2 && scalars[0].isASCIIAlpha && scalars[1] == ":"
        }

        static func isSingleDot(_ text: String) -> Bool {
            text == "." || text.lowercased() == "%2e"
        }

        static func isDoubleDot(_ text: String) -> Bool {
            switch text.lowercased() {
            case "..", ".%2e", "%2e.", "%2e%2e": true
            default: false
            }
        }
    }
}

extension Unicode.Scalar {
    var isASCIIAlpha: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isASCIIHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
    var isASCIIAlphanumeric: Bool { isASCIIAlpha || isASCIIDigit }
    var asciiLowercased: Unicode.Scalar {
        ("A"..."Z").contains(self) ? Unicode.Scalar(value + 0x20) ?? self : self
    }
}

// MARK: - The URL object's attributes

extension URLRecord {
    /// `about:blank`'s attributes: `location` before a load, and for a load without a (valid)
    /// base URL.
    static let blankAttributes = URLRecord.parse("about:blank")?.attributes ?? []

    /// The names of a `URL` object's attributes, in the order of `attributes` (url.js and
    /// page.js take the order from here: `natives.urlAttributeNames`).
    static let attributeNames = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port",
                                 "pathname", "search", "hash"]

    /// The attributes of a `URL` object, in `attributeNames`' order.
    var attributes: [String] {
        [
            href, origin, scheme + ":", username, password, hostWithPort, host ?? "", port.map(String.init) ?? "",
            pathname, query.flatMap { $0.isEmpty ? nil : "?" + $0 } ?? "",
            fragment.flatMap { $0.isEmpty ? nil : "#" + $0 } ?? "",
        ]
    }

    /// A `URL` attribute's setter (WHATWG's rules: a value that does not fit is ignored, in
    /// whole or from the point where it stops fitting). False only for an `href` that does not
    /// parse, which the setter throws for.
    mutating func set(_ attribute: String, to value: String) -> Bool {
        let canHaveCredentialsOrPort = host != nil && host != "" && scheme != "file"
        switch attribute {
        case "href":
            guard let parsed = URLRecord.parse(value) else { return false }
            self = parsed
        case "protocol":
            parse(value + ":", from: .schemeStart)
        case "username" where canHaveCredentialsOrPort:
            username = PercentEncoding.encode(value, in: .userinfo)
        case "password" where canHaveCredentialsOrPort:
            password = PercentEncoding.encode(value, in: .userinfo)
        case "host" where !hasOpaquePath:
            parse(value, from: .host)
        case "hostname" where !hasOpaquePath:
            parse(value, from: .hostname)
        case "port" where canHaveCredentialsOrPort:
            if value.isEmpty { port = nil } else { parse(value, from: .port) }
        case "pathname" where !hasOpaquePath:
            path = []
            parse(value, from: .pathStart)
        case "search":
            guard !value.isEmpty else {
                query = nil
                return true
            }
            query = ""
            parse(value.hasPrefix("?") ? String(value.dropFirst()) : value, from: .query)
        case "hash":
            guard !value.isEmpty else {
                fragment = nil
                return true
            }
            fragment = ""
            parse(value.hasPrefix("#") ? String(value.dropFirst()) : value, from: .fragment)
        default:
            break
        }
        return true
    }
}
