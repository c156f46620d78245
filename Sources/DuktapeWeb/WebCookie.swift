import Foundation

/// A cookie as a browser keeps it (RFC 6265 §5.3): where it applies, until when, and its
/// flags.
///
/// ```swift
/// for cookie in store.cookies(for: URL(string: "https://example.com/app")!) {
///     print(cookie.name, cookie.value, cookie.isHTTPOnly)
/// }
/// ```
public struct WebCookie: Sendable, Equatable, Codable {
    /// The cookie's name (may be empty, as browsers allow).
    public var name: String
    /// The cookie's value.
    public var value: String
    /// The host (host-only cookies) or the domain (and its subdomains) it is sent to, lowercase.
    public var domain: String
    /// True when it is sent to `domain` exactly (no `Domain` attribute was given).
    public var isHostOnly: Bool
    /// The path it is sent under.
    public var path: String
    /// When it expires, or nil for a session cookie (never persisted).
    public var expires: Date?
    /// Sent over https only.
    public var isSecure: Bool
    /// Hidden from scripts (`document.cookie`).
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute as given (`Strict`, `Lax`, `None`), recorded; a headless host
    /// has no cross-site navigations to apply it to.
    public var sameSite: String?
    /// When it was first stored (the order of equally specific cookies).
    public var created: Date

    // MARK: - Limits (RFC 6265bis §5.6 and §5.7)

    /// The most bytes (UTF-8) of a cookie's name and value together: a `Set-Cookie` header, a
    /// `document.cookie` assignment or a `CookieStore.setCookie` with more is ignored.
    ///
    /// ```swift
    /// WebCookie(setCookie: "x=" + String(repeating: "v", count: 5000), from: url)  // nil
    /// ```
    public static let maximumNameAndValueBytes = 4096

    /// The most bytes of one attribute's value (`Path`, `Domain`, `Expires`, `Max-Age`,
    /// `SameSite`…). A longer attribute is ignored and the cookie kept, as RFC 6265bis says: an
    /// over-long `Path` leaves the default path (the request's directory), an over-long `Domain`
    /// a host-only cookie. A store refuses a cookie whose domain or path is longer still (a
    /// default path from a very long URL, or one given to `WebCookie(name:value:domain:…)`),
    /// and drops an over-long `sameSite`.
    ///
    /// ```swift
    /// let cookie = WebCookie(setCookie: "id=1; Path=/" + String(repeating: "a", count: 2000), from: url)
    /// print(cookie?.path)  // the default path: the over-long attribute was ignored
    /// ```
    public static let maximumAttributeValueBytes = 1024

    /// The most bytes of a whole `Set-Cookie` header value or `document.cookie` assignment:
    /// the name and value's 4,096 plus 8 KiB of attributes (12,288). A longer one is ignored
    /// before it is parsed, so that parsing costs a bounded time whatever a server or script sends.
    ///
    /// ```swift
    /// WebCookie(setCookie: "id=1; X=" + String(repeating: "a", count: 13_000), from: url)  // nil
    /// ```
    public static let maximumCookieStringBytes = maximumNameAndValueBytes + 8 * 1024

    /// What the cookie counts against a store's byte limits: its name, value, domain and path,
    /// in UTF-8 bytes.
    ///
    /// ```swift
    /// let bytes = store.allCookies.reduce(0) { $0 + $1.byteCount }
    /// ```
    public var byteCount: Int {
        name.utf8.count + value.utf8.count + domain.utf8.count + path.utf8.count
    }

    /// The cookie as a store keeps it, or nil for one it refuses: a name and value over
    /// `maximumNameAndValueBytes`, a domain or path over `maximumAttributeValueBytes`, control
    /// characters in the name or value. An over-long `sameSite` is dropped.
    func bounded() -> WebCookie? {
        guard name.utf8.count + value.utf8.count <= Self.maximumNameAndValueBytes,
              domain.utf8.count <= Self.maximumAttributeValueBytes, path.utf8.count <= Self.maximumAttributeValueBytes,
              !name.unicodeScalars.contains(where: Self.isControl), !value.unicodeScalars.contains(where: Self.isControl) else {
            return nil
        }
        var cookie = self
        if let sameSite, sameSite.utf8.count > Self.maximumAttributeValueBytes { cookie.sameSite = nil }
        return cookie
    }

    /// A cookie. Stores usually make them from `Set-Cookie` headers. A store applies the limits
    /// above when it is given one (`CookieStore.setCookie` ignores a cookie over them).
    ///
    /// ```swift
    /// let cookie = WebCookie(name: "session", value: "abc", domain: "example.com")
    /// ```
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/", expires: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: String? = nil, created: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.created = created
    }

    /// Parses a `Set-Cookie` header value received from `url` (RFC 6265 §5.2 and §5.3), or
    /// returns nil for one the user agent must ignore (no `=`, a `Domain` that `url`'s host
    /// does not match, a `Secure` cookie from http, a name and value over 4,096 bytes, a header
    /// over `maximumCookieStringBytes`). An attribute whose value is over
    /// `maximumAttributeValueBytes` is ignored (RFC 6265bis §5.6).
    ///
    /// ```swift
    /// let cookie = WebCookie(setCookie: "id=1; Path=/; Max-Age=60; HttpOnly", from: url)
    /// ```
    public init?(setCookie header: String, from url: URL, now: Date = Date()) {
        // Refused before any parsing: the cost of what follows is bounded by this.
        guard header.utf8.count <= Self.maximumCookieStringBytes else { return nil }
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let parts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: Self.whitespace)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: Self.whitespace)
        // RFC 6265bis §5.6: a cookie with neither a name nor a value is ignored.
        guard !(name.isEmpty && value.isEmpty), name.utf8.count + value.utf8.count <= Self.maximumNameAndValueBytes,
            !(name + value).unicodeScalars.contains(where: Self.isControl)
        else {
            return nil
        }
        var expires: Date?
        var maxAge: Date?
        var domain: String?
        var path: String?
        var secure = false, httpOnly = false
        var sameSite: String?
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pieces[0].trimmingCharacters(in: Self.whitespace).lowercased()
            let argument = pieces.count > 1 ? pieces[1].trimmingCharacters(in: Self.whitespace) : ""
            // RFC 6265bis §5.6: an attribute value over 1,024 octets is ignored, the cookie kept.
            guard argument.utf8.count <= Self.maximumAttributeValueBytes else { continue }
            switch key {
            case "expires":
                if let date = Self.parseDate(argument) { expires = date }
            case "max-age":
                guard let first = argument.first, first == "-" || first.isASCII && first.isNumber,
                      argument.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
                let seconds = Int(argument) ?? (first == "-" ? Int.min : Int.max)
                maxAge = seconds <= 0 ? Date.distantPast : now.addingTimeInterval(min(Double(seconds), 400 * 86_400))
            case "domain":
                guard !argument.isEmpty else { continue }
                domain = (argument.hasPrefix(".") ? String(argument.dropFirst()) : argument).lowercased()
            case "path":
                path = argument.hasPrefix("/") ? argument : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            case "samesite":
                sameSite = argument
            default:
                continue
            }
        }
        if secure && url.scheme?.lowercased() != "https" { return nil }
        let hostOnly: Bool
        if let domain, !domain.isEmpty {
            // A domain attribute must cover the host, and be more than a bare top-level name.
            guard Self.domainMatches(host, domain), domain.contains(".") || domain == host else { return nil }
            hostOnly = domain == host && Self.isIPAddress(host)
            self.init(name: name, value: value, domain: domain, isHostOnly: hostOnly, path: path ?? Self.defaultPath(url),
                      expires: maxAge ?? expires, isSecure: secure, isHTTPOnly: httpOnly, sameSite: sameSite, created: now)
        } else {
            self.init(name: name, value: value, domain: host, isHostOnly: true, path: path ?? Self.defaultPath(url),
                      expires: maxAge ?? expires, isSecure: secure, isHTTPOnly: httpOnly, sameSite: sameSite, created: now)
        }
    }

    /// True when the cookie is sent with a request to `url` at `now` (RFC 6265 §5.4).
    func applies(to url: URL, now: Date) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        if let expires, expires <= now { return false }
        if isSecure && url.scheme?.lowercased() != "https" { return false }
        guard isHostOnly ? host == domain : Self.domainMatches(host, domain) else { return false }
        let requestPath = Self.encodedPath(url)
        return Self.pathMatches(requestPath.isEmpty ? "/" : requestPath, path)
    }

    /// `url`'s path as sent (percent-encoded, a trailing slash kept; `URL.path` drops both).
    static func encodedPath(_ url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }

    // MARK: - RFC 6265 algorithms

    private static let whitespace = CharacterSet(charactersIn: " \t")

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F
    }

    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !isIPAddress(host))
    }

    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath[requestPath.index(requestPath.startIndex, offsetBy: cookiePath.count)] == "/"
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.hasPrefix("[") || (!host.isEmpty && host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber })
    }

    /// The directory of `url`'s path (§5.1.4).
    static func defaultPath(_ url: URL) -> String {
        let path = encodedPath(url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// A cookie date (§5.1.1): the tokens for time, day of month, month and year, in any order.
    /// The form every HTTP server sends (RFC 9110's IMF-fixdate) is read directly; any other
    /// goes through the algorithm (`parseDateTokens`), which gives the same date for it.
    static func parseDate(_ text: String) -> Date? {
        var text = text
        if let date = text.withUTF8(parseIMFFixdate) { return date }
        return parseDateTokens(text)
    }

    /// "Sun, 06 Nov 1994 08:49:37 GMT" exactly; nil (the general algorithm decides) for
    /// anything else, including an invalid date in that form.
    private static func parseIMFFixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 29, bytes[3] == 0x2C, bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20, bytes[16] == 0x20,
              bytes[19] == 0x3A, bytes[22] == 0x3A, bytes[25] == 0x20, bytes[26] == 0x47, bytes[27] == 0x4D, bytes[28] == 0x54
        else { return nil }
        func name(_ at: Int) -> UInt32 { UInt32(bytes[at]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) }
        func number(_ at: Int, _ count: Int) -> Int? {
            var value = 0
            for index in at..<(at + count) {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        // The weekday must be one (a month's name there would be the month to the algorithm).
        guard imfWeekdays.contains(name(0)), let monthIndex = imfMonths.firstIndex(of: name(8)), let day = number(5, 2),
              let year = number(12, 4), let hour = number(17, 2), let minute = number(20, 2), let second = number(23, 2),
              year >= 1601, hour <= 23, minute <= 59, second <= 59, day >= 1
        else { return nil }
        let month = monthIndex + 1
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[monthIndex] else { return nil }
        // Days from 1970-01-01 to the civil date (proleptic Gregorian, March-based years).
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static let imfWeekdays: [UInt32] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map(threeBytes)
    private static let imfMonths: [UInt32] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map(threeBytes)
    private static func threeBytes(_ text: String) -> UInt32 { text.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    /// RFC 6265 §5.1.1's algorithm.
    static func parseDateTokens(_ text: String) -> Date? {
        let delimiters = CharacterSet(charactersIn: "\t !\"#$%&'()*+,-./;<=>?@[\\]^_`{|}~")
        var time: (Int, Int, Int)?, day: Int?, month: Int?, year: Int?
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        for token in text.components(separatedBy: delimiters) where !token.isEmpty {
            if time == nil {
                let fields = token.split(separator: ":", omittingEmptySubsequences: false)
                if fields.count == 3, fields.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isNumber) }),
                   let h = Int(fields[0]), let m = Int(fields[1]), let s = Int(fields[2].prefix(2)) {
                    time = (h, m, s)
                    continue
                }
            }
            let digits = token.prefix { $0.isASCII && $0.isNumber }
            if day == nil, (1...2).contains(digits.count), let value = Int(digits) {
                day = value
                continue
            }
            if month == nil, let index = months.firstIndex(of: String(token.prefix(3)).lowercased()) {
                month = index + 1
                continue
            }
            if year == nil, (2...4).contains(digits.count), let value = Int(digits) {
                year = value < 70 && digits.count <= 2 ? value + 2000 : value < 100 && digits.count <= 2 ? value + 1900 : value
                continue
            }
        }
        guard let (hour, minute, second) = time, let day, let month, let year, (1...31).contains(day), year >= 1601,
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }
}
