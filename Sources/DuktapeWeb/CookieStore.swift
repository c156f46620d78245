import Foundation

/// The cookies of pages (WebKit's `WKHTTPCookieStore`): set by `Set-Cookie` headers and by
/// `document.cookie`, sent back on matching requests, kept per host and path as RFC 6265
/// says, and persisted to a file when one is given (session cookies never are).
///
/// ```swift
/// let store = CookieStore(file: URL(fileURLWithPath: "/var/lib/app/cookies.json"))
/// var configuration = WebPageConfiguration()
/// configuration.cookieStore = store                 // shared by every page made with it
/// print(store.cookies(for: URL(string: "https://example.com/")!).map(\.name))
/// ```
///
/// Limits, on every way a cookie comes in (`Set-Cookie`, `document.cookie`, `setCookie(_:)`, the
/// file): a cookie's name and value at most 4,096 bytes, each attribute's value at most 1,024
/// (a longer one is ignored), a whole cookie string at most 12,288 (see `WebCookie`'s limits);
/// the jar at most 50 cookies and 64 KiB per domain and 3,000 cookies and 1 MiB in all, a
/// cookie's size being its name, value, domain and path (the oldest go first). There is no
/// public suffix list: a `Domain` attribute needs a dot (or to equal the host), so `Domain=com`
/// is refused but `Domain=co.uk` is not.
public final class CookieStore: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`.
    private let lock = NSLock()
    private var stored: [WebCookie] = []
    private let file: URL?

    /// The most cookies kept for one domain (a host-only cookie's host, or a `Domain`
    /// attribute's domain); past it the domain's oldest go.
    ///
    /// ```swift
    /// let full = store.allCookies.filter { $0.domain == "example.com" }.count == CookieStore.maximumCookiesPerDomain
    /// ```
    public static let maximumCookiesPerDomain = 50

    /// The most bytes (`WebCookie.byteCount`: name, value, domain, path) kept for one domain;
    /// past it the domain's oldest go. 64 KiB: more could not be sent anyway, a request's
    /// headers being limited to 48 KiB.
    ///
    /// ```swift
    /// let bytes = store.allCookies.filter { $0.domain == "example.com" }.reduce(0) { $0 + $1.byteCount }
    /// assert(bytes <= CookieStore.maximumBytesPerDomain)
    /// ```
    public static let maximumBytesPerDomain = 64 << 10

    /// The most cookies kept in all; past it the oldest go.
    ///
    /// ```swift
    /// assert(store.allCookies.count <= CookieStore.maximumCookies)
    /// ```
    public static let maximumCookies = 3000

    /// The most bytes (`WebCookie.byteCount`) kept in all, 1 MiB; past it the oldest go.
    ///
    /// ```swift
    /// assert(store.allCookies.reduce(0) { $0 + $1.byteCount } <= CookieStore.maximumBytes)
    /// ```
    public static let maximumBytes = 1 << 20

    /// The largest cookie file read (16 MiB: a file of `maximumBytes` of cookies written by a
    /// store is well under it, however its strings are escaped); a larger one is an empty store.
    static let maximumFileBytes = 16 << 20

    /// A store, empty or read from `file` (a missing, unreadable or over-large file is an empty
    /// store; expired cookies and cookies over the limits are dropped, and the jar's limits
    /// applied). With a file, every change writes it.
    ///
    /// ```swift
    /// let memoryOnly = CookieStore()
    /// ```
    public init(file: URL? = nil) {
        self.file = file
        partition = file?.standardizedFileURL.path ?? UUID().uuidString
        if let file, let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber,
           size.intValue <= Self.maximumFileBytes,
           let data = try? Data(contentsOf: file), let cookies = try? JSONDecoder().decode([WebCookie].self, from: data) {
            let now = Date()
            var loaded = cookies.compactMap { $0.bounded() }.filter { ($0.expires ?? now) > now }
            Self.evict(&loaded)
            stored = loaded
        }
    }

    /// Every cookie not yet expired.
    ///
    /// ```swift
    /// print(store.allCookies.count)
    /// ```
    public var allCookies: [WebCookie] {
        let now = Date()
        return lock.withLock { stored.filter { ($0.expires ?? .distantFuture) > now } }
    }

    /// A name for the store, stable across runs for a store with a file: the HTTP cache keeps
    /// responses to requests that carried this store's cookies apart from other stores'.
    let partition: String

    /// The cookies a request to `url` carries, most specific path first (then oldest first).
    ///
    /// ```swift
    /// let names = store.cookies(for: url).map(\.name)
    /// ```
    public func cookies(for url: URL) -> [WebCookie] {
        let now = Date()
        return lock.withLock { stored.filter { $0.applies(to: url, now: now) } }
            .sorted { $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.created < $1.created }
    }

    /// Stores `cookie`, replacing the one with its name, domain and path (keeping the first's
    /// creation time); an expired cookie deletes that one. A cookie over the limits (a name and
    /// value over `WebCookie.maximumNameAndValueBytes`, a domain or path over
    /// `WebCookie.maximumAttributeValueBytes`) is ignored; the jar's limits then apply.
    ///
    /// ```swift
    /// store.setCookie(WebCookie(name: "theme", value: "dark", domain: "example.com"))
    /// ```
    public func setCookie(_ cookie: WebCookie) {
        update { cookies in Self.insert(cookie, into: &cookies, fromScript: false) }
    }

    /// Deletes every cookie.
    ///
    /// ```swift
    /// store.removeAll()
    /// ```
    public func removeAll() {
        update { $0 = [] }
    }

    // MARK: - For pages

    /// Stores the `Set-Cookie` values of a response from `url`.
    func receive(_ headers: [String], from url: URL) {
        let now = Date()
        let cookies = headers.compactMap { WebCookie(setCookie: $0, from: url, now: now) }
        guard !cookies.isEmpty else { return }
        update { stored in
            for cookie in cookies { Self.insert(cookie, into: &stored, fromScript: false) }
        }
    }

    /// The `Cookie` header for a request to `url`, or nil when no cookie applies.
    func header(for url: URL) -> String? {
        let cookies = cookies(for: url)
        return cookies.isEmpty ? nil : cookies.map { $0.name.isEmpty ? $0.value : $0.name + "=" + $0.value }.joined(separator: "; ")
    }

    /// `document.cookie`'s value: the cookies of `url` that scripts may see.
    func scriptCookies(for url: URL) -> String {
        cookies(for: url).filter { !$0.isHTTPOnly }.map { $0.name.isEmpty ? $0.value : $0.name + "=" + $0.value }
            .joined(separator: "; ")
    }

    /// `document.cookie = text`: one cookie, which cannot be (or replace) an HttpOnly one; one
    /// that says `HttpOnly` is ignored (RFC 6265 §5.3, step 10).
    func setFromScript(_ text: String, url: URL) {
        guard let cookie = WebCookie(setCookie: text, from: url), !cookie.isHTTPOnly else { return }
        update { stored in Self.insert(cookie, into: &stored, fromScript: true) }
    }

    // MARK: - Internals

    /// Changes the cookies and writes the file, in one locked step (writes never reorder).
    private func update(_ change: (inout [WebCookie]) -> Void) {
        lock.withLock {
            change(&stored)
            let now = Date()
            stored.removeAll { ($0.expires ?? .distantFuture) <= now }
            Self.evict(&stored)
            persist(stored)
        }
    }

    private static func insert(_ cookie: WebCookie, into cookies: inout [WebCookie], fromScript: Bool) {
        guard var cookie = cookie.bounded() else { return }  // every way in passes here
        let expired = cookie.expires.map { $0 <= Date() } ?? false
        if let index = cookies.firstIndex(where: { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }) {
            if fromScript && cookies[index].isHTTPOnly { return }
            // Replaced in place, keeping its creation time (its place among equals).
            cookie.created = cookies[index].created
            if expired { cookies.remove(at: index) } else { cookies[index] = cookie }
            return
        }
        if !expired { cookies.append(cookie) }
    }

    /// Applies the jar's limits: past a domain's count or bytes its oldest cookies go, then past
    /// the total count or bytes the oldest of all (the others keep their order).
    static func evict(_ cookies: inout [WebCookie]) {
        var perDomainCount: [String: Int] = [:]
        var perDomainBytes: [String: Int] = [:]
        var totalBytes = 0
        for cookie in cookies {
            perDomainCount[cookie.domain, default: 0] += 1
            perDomainBytes[cookie.domain, default: 0] += cookie.byteCount
            totalBytes += cookie.byteCount
        }
        let domainOver = perDomainCount.values.contains { $0 > Self.maximumCookiesPerDomain }
            || perDomainBytes.values.contains { $0 > Self.maximumBytesPerDomain }
        guard domainOver || cookies.count > Self.maximumCookies || totalBytes > Self.maximumBytes else { return }
        let oldestFirst = cookies.indices.sorted { cookies[$0].created < cookies[$1].created }
        var removed = Set<Int>()
        if domainOver {
            for index in oldestFirst {
                let domain = cookies[index].domain
                guard perDomainCount[domain, default: 0] > Self.maximumCookiesPerDomain
                    || perDomainBytes[domain, default: 0] > Self.maximumBytesPerDomain else { continue }
                removed.insert(index)
                perDomainCount[domain, default: 0] -= 1
                perDomainBytes[domain, default: 0] -= cookies[index].byteCount
                totalBytes -= cookies[index].byteCount
            }
        }
        var count = cookies.count - removed.count
        for index in oldestFirst where !removed.contains(index) {
            guard count > Self.maximumCookies || totalBytes > Self.maximumBytes else { break }
            removed.insert(index)
            count -= 1
            totalBytes -= cookies[index].byteCount
        }
        cookies = cookies.indices.filter { !removed.contains($0) }.map { cookies[$0] }
    }

    private func persist(_ cookies: [WebCookie]) {
        guard let file else { return }
        let persistent = cookies.filter { $0.expires != nil }
        guard let data = try? JSONEncoder().encode(persistent) else { return }
        try? data.write(to: file, options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)  // its owner's only
    }
}
