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
/// Limits: at most 50 cookies per domain and 3,000 in all (the oldest go first); a cookie's
/// name and value at most 4,096 bytes. There is no public suffix list: a `Domain` attribute
/// needs a dot (or to equal the host), so `Domain=com` is refused but `Domain=co.uk` is not.
public final class CookieStore: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`.
    private let lock = NSLock()
    private var stored: [HTTPCookie] = []
    private let file: URL?

    /// A store, empty or read from `file` (a missing or unreadable file is an empty store, and
    /// expired cookies are dropped). With a file, every change writes it.
    ///
    /// ```swift
    /// let memoryOnly = CookieStore()
    /// ```
    public init(file: URL? = nil) {
        self.file = file
        partition = file?.standardizedFileURL.path ?? UUID().uuidString
        if let file, let data = try? Data(contentsOf: file), let cookies = try? JSONDecoder().decode([HTTPCookie].self, from: data) {
            let now = Date()
            stored = cookies.filter { ($0.expires ?? now) > now }
        }
    }

    /// Every cookie not yet expired.
    ///
    /// ```swift
    /// print(store.allCookies.count)
    /// ```
    public var allCookies: [HTTPCookie] {
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
    public func cookies(for url: URL) -> [HTTPCookie] {
        let now = Date()
        return lock.withLock { stored.filter { $0.applies(to: url, now: now) } }
            .sorted { $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.created < $1.created }
    }

    /// Stores `cookie`, replacing the one with its name, domain and path (keeping the first's
    /// creation time); an expired cookie deletes that one.
    ///
    /// ```swift
    /// store.setCookie(HTTPCookie(name: "theme", value: "dark", domain: "example.com"))
    /// ```
    public func setCookie(_ cookie: HTTPCookie) {
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
        let cookies = headers.compactMap { HTTPCookie(setCookie: $0, from: url, now: now) }
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
        guard let cookie = HTTPCookie(setCookie: text, from: url), !cookie.isHTTPOnly else { return }
        update { stored in Self.insert(cookie, into: &stored, fromScript: true) }
    }

    // MARK: - Internals

    /// Changes the cookies and writes the file, in one locked step (writes never reorder).
    private func update(_ change: (inout [HTTPCookie]) -> Void) {
        lock.withLock {
            change(&stored)
            let now = Date()
            stored.removeAll { ($0.expires ?? .distantFuture) <= now }
            Self.evict(&stored)
            persist(stored)
        }
    }

    private static func insert(_ cookie: HTTPCookie, into cookies: inout [HTTPCookie], fromScript: Bool) {
        var cookie = cookie
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

    private static func evict(_ cookies: inout [HTTPCookie]) {
        var perDomain: [String: Int] = [:]
        for cookie in cookies { perDomain[cookie.domain, default: 0] += 1 }
        for (domain, count) in perDomain where count > 50 {
            let oldest = cookies.enumerated().filter { $0.element.domain == domain }.sorted { $0.element.created < $1.element.created }
                .prefix(count - 50).map(\.offset)
            for index in oldest.sorted(by: >) { cookies.remove(at: index) }
        }
        if cookies.count > 3000 {
            cookies.sort { $0.created < $1.created }
            cookies.removeFirst(cookies.count - 3000)
        }
    }

    private func persist(_ cookies: [HTTPCookie]) {
        guard let file else { return }
        let persistent = cookies.filter { $0.expires != nil }
        guard let data = try? JSONEncoder().encode(persistent) else { return }
        try? data.write(to: file, options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)  // its owner's only
    }
}
