import DuktapeCore
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

@Suite("Cookies", .timeLimit(.minutes(5)))
struct CookieTests {
    @Test func setCookieRoundTripsAndHttpOnlyStaysHidden() async throws {
        try await withFetchPage { page, server in
            let result = try await run(page, """
                return fetch('/set-cookies').then(function (r) {
                    var visible = r.headers.get('set-cookie');
                    return fetch('/echo-cookie').then(function (e) { return e.text() }).then(function (sent) {
                        return [visible, sent, document.cookie].join('|');
                    });
                })
                """)
            // "secure" came over http (refused), "gone" expired at once, "scoped" is for /deep.
            #expect(result == "|a=1; h=2; later=6|a=1; later=6")
            let deep = try await run(page, "return fetch('/deep/echo-cookie').then(function (r) { return r.text() })")
            #expect(deep == "scoped=3; a=1; h=2; later=6")
            _ = server
        }
    }

    @Test func documentCookieSetsCookiesButNeverHttpOnlyOnes() async throws {
        try await withFetchPage { page, _ in
            let result = try await run(page, """
                return fetch('/set-cookies').then(function () {
                    document.cookie = 'js=7; Path=/';
                    document.cookie = 'h=forged';
                    document.cookie = 'a=changed';
                    return fetch('/echo-cookie').then(function (r) { return r.text() });
                }).then(function (sent) {
                    return fetch('/expire-a').then(function () { return sent + '|' + document.cookie });
                })
                """)
            #expect(result == "a=changed; h=2; later=6; js=7|later=6; js=7")
            let thrown = try await run(page, "try { document.cookie = Symbol() } catch (e) { return Promise.resolve(e.name) }")
            #expect(thrown == "TypeError")
        }
    }

    @Test func credentialsOmitSendsAndStoresNothing() async throws {
        try await withFetchPage { page, _ in
            let result = try await run(page, """
                return fetch('/set-cookies', { credentials: 'omit' }).then(function () {
                    return fetch('/echo-cookie').then(function (r) { return r.text() });
                }).then(function (first) {
                    return fetch('/set-cookies').then(function () { return fetch('/echo-cookie', { credentials: 'omit' }) })
                        .then(function (r) { return r.text() }).then(function (second) { return first + '|' + second });
                })
                """)
            #expect(result == "(none)|(none)")
        }
    }

    @Test func persistentCookiesSurviveARestartAndSessionOnesDoNot() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let url = try #require(URL(string: "http://example.com/app/page"))
        let store = CookieStore(file: file)
        store.receive(["session=1", "kept=2; Max-Age=600", "dated=3; Expires=Wed, 01 Jan 2098 00:00:00 GMT"], from: url)
        #expect(store.cookies(for: url).map(\.name) == ["session", "kept", "dated"])
        let reopened = CookieStore(file: file)
        #expect(reopened.cookies(for: url).map(\.name) == ["kept", "dated"])
        reopened.removeAll()
        #expect(CookieStore(file: file).allCookies.isEmpty)
        // A damaged file is an empty store.
        try Data("not json".utf8).write(to: file)
        #expect(CookieStore(file: file).allCookies.isEmpty)
    }

    @Test func setCookieParsingFollowsRFC6265() throws {
        let http = try #require(URL(string: "http://www.example.com/a/b/page"))
        let https = try #require(URL(string: "https://www.example.com/"))
        func cookie(_ header: String, _ url: URL) -> WebCookie? { WebCookie(setCookie: header, from: url) }
        #expect(cookie("x=1", http)?.path == "/a/b")
        #expect(cookie("x=1; Path=relative", http)?.path == "/a/b")
        #expect(cookie("x=1; Domain=.example.com", http)?.domain == "example.com")
        #expect(cookie("x=1; Domain=example.com", http)?.isHostOnly == false)
        #expect(cookie("x=1; Domain=other.com", http) == nil)
        #expect(cookie("x=1; Domain=com", http) == nil)
        #expect(cookie("x=1; Secure", http) == nil)
        #expect(cookie("x=1; Secure", https)?.isSecure == true)
        #expect(cookie("novalue", http) == nil)
        #expect(cookie("=bare", http)?.value == "bare")
        let flagged = cookie("x=1; SameSite=Lax; HttpOnly", http)
        #expect(flagged?.sameSite == "Lax" && flagged?.isHTTPOnly == true)
        #expect(cookie("x=\u{1}", http) == nil)
        #expect(cookie("x=" + String(repeating: "v", count: 5000), http) == nil)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let both = WebCookie(setCookie: "x=1; Expires=Thu, 01 Jan 2099 00:00:00 GMT; Max-Age=10", from: http, now: now)
        #expect(both?.expires == now.addingTimeInterval(10))
        for date in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(WebCookie.parseDate(date) == Date(timeIntervalSince1970: 784_111_777), "\(date)")
        }
        #expect(WebCookie.parseDate("31 Feb 2020 00:00:00") == nil)
        #expect(WebCookie.parseDate("garbage") == nil)
        // IMF-fixdate, read directly, gives what the algorithm gives: every weekday and month,
        // leap days of leap and common centuries, the last second of a day, the earliest year.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var instant: TimeInterval = -11_644_473_600  // 1601-01-01
        while instant < 13_000_000_000 {
            let text = formatter.string(from: Date(timeIntervalSince1970: instant))
            #expect(WebCookie.parseDate(text) == WebCookie.parseDateTokens(text), "\(text)")
            #expect(WebCookie.parseDate(text) == Date(timeIntervalSince1970: instant), "\(text)")
            instant += 86_400 * 97 + 3_599
        }
        for text in ["Sun, 29 Feb 2000 23:59:59 GMT", "Mon, 29 Feb 1900 00:00:00 GMT", "Thu, 29 Feb 2024 12:00:00 GMT",
                     "Sat, 29 Feb 2100 12:00:00 GMT", "Mon, 31 Apr 2023 00:00:00 GMT", "Mon, 01 Jan 1601 00:00:00 GMT",
                     "Sun, 31 Dec 1600 23:59:59 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:37 GMT",
                     "Sun, 00 Nov 1994 08:49:37 GMT", "Nov, 06 Dec 1994 08:49:37 GMT", "SUN, 06 NOV 1994 08:49:37 GMT",
                     "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:3a GMT", "Sun, 6  Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov 0994 08:49:37 GMT", "Sun, 06 Nov 9999 23:59:59 GMT"] {
            #expect(WebCookie.parseDate(text) == WebCookie.parseDateTokens(text), "\(text)")
        }
        #expect(WebCookie.parseDate("Sat, 29 Feb 2100 12:00:00 GMT") == nil)
        #expect(WebCookie.parseDate("Thu, 29 Feb 2024 12:00:00 GMT") == Date(timeIntervalSince1970: 1_709_208_000))
        // Matching: host-only, subdomains, paths, secure.
        let domainCookie = try #require(cookie("x=1; Domain=example.com; Path=/a", http))
        #expect(domainCookie.applies(to: try #require(URL(string: "http://deep.www.example.com/a/x")), now: Date()))
        #expect(!domainCookie.applies(to: try #require(URL(string: "http://badexample.com/a")), now: Date()))
        #expect(!domainCookie.applies(to: try #require(URL(string: "http://www.example.com/ab")), now: Date()))
        let hostOnly = try #require(cookie("y=1", http))
        #expect(!hostOnly.applies(to: try #require(URL(string: "http://sub.www.example.com/a/b/c")), now: Date()))
    }

    // MARK: - Limits (issue 32, class 8)

    static func repeated(_ character: Character, _ count: Int) -> String { String(repeating: character, count: count) }

    /// A server's `Set-Cookie` attributes over 1,024 bytes are ignored and the cookie kept (each
    /// attribute in turn); a whole header over 12,288 bytes, or a name and value over 4,096, is
    /// refused. The page is at /c/set, whose default path is /c.
    @Test func overLongSetCookieAttributesAreIgnoredAndTheCookieKept() async throws {
        let long = Self.repeated("a", 1100)
        let headers = [
            "Set-Cookie: p=1; Path=/" + long,                                          // default path
            "Set-Cookie: edge=1; Path=/" + Self.repeated("e", 1023),                   // 1,024 bytes: kept
            "Set-Cookie: d=1; Domain=" + long + ".127.0.0.1",                          // host-only
            "Set-Cookie: e=1; Expires=Wed, 01 Jan 2098 00:00:00 GMT " + long,          // a session cookie
            "Set-Cookie: m=1; Max-Age=" + Self.repeated("0", 1100),                    // not a deletion
            "Set-Cookie: s=1; SameSite=Lax" + long,                                    // no SameSite
            "Set-Cookie: lax=1; SameSite=Lax; Path=/",
            "Set-Cookie: w=1; X=" + Self.repeated("x", WebCookie.maximumCookieStringBytes),  // the whole line: refused
            "Set-Cookie: n=" + Self.repeated("v", 4095),                               // 4,096 bytes: kept
            "Set-Cookie: n2=" + Self.repeated("v", 4095),                              // 4,097 bytes: refused
        ]
        let server = try await TestHTTPServer.start { _, responder in
            try await responder.respond(headers: headers, text: "set")
        }
        defer { server.stop() }
        let store = CookieStore()
        var configuration = WebPageConfiguration()
        configuration.cookieStore = store
        configuration.httpCache = nil
        try await using(try WebPage(configuration: configuration)) { page in
            try await page.load(html: "", baseURL: URL(string: server.baseURL + "/page.html"))
            #expect(try await run(page, "return fetch('/c/set').then(function (r) { return r.text() })") == "set")
        }
        let cookies = Dictionary(store.allCookies.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(Set(cookies.keys) == ["p", "edge", "d", "e", "m", "s", "lax", "n"])
        #expect(cookies["p"]?.path == "/c")
        #expect(cookies["edge"]?.path == "/" + Self.repeated("e", 1023))
        #expect(cookies["d"]?.domain == "127.0.0.1" && cookies["d"]?.isHostOnly == true)
        #expect(cookies["e"].map { $0.expires == nil } == true)
        #expect(cookies["m"].map { $0.expires == nil } == true)
        #expect(cookies["s"].map { $0.sameSite == nil } == true)
        #expect(cookies["lax"]?.sameSite == "Lax")
        #expect(store.allCookies.allSatisfy { $0.path.utf8.count <= WebCookie.maximumAttributeValueBytes })
    }

    /// `document.cookie` has the same limits: an over-long attribute is ignored, an over-long
    /// string (the issue's `path=/…` of megabytes, once per macrotask) refused, so the store
    /// gains nothing from it.
    @Test func documentCookieHasTheSameLimits() async throws {
        let store = CookieStore()
        try await withFetchPage(configure: { $0.cookieStore = store }) { page, _ in
            let result = try await run(page, """
                var long = new Array(1101).join('a');
                document.cookie = 'p=1; path=/' + long;
                document.cookie = 'm=1; max-age=' + new Array(1101).join('0');
                document.cookie = 's=1; samesite=' + long;
                document.cookie = 'w=1; x=' + new Array(13001).join('x');
                document.cookie = 'big=' + new Array(4100).join('v');
                return Promise.resolve(document.cookie);
                """)
            #expect(result == "p=1; m=1; s=1")
            // Megabyte paths, one assignment per macrotask.
            let flooded = try await run(page, """
                var huge = new Array(1 << 20).join('x');
                return new Promise(function (resolve) {
                    var i = 0;
                    (function next() {
                        if (i === 20) { resolve(document.cookie); return; }
                        document.cookie = 'c' + i + '=1; path=/' + i + '/' + huge;
                        i++;
                        setTimeout(next, 0);
                    })();
                });
                """)
            #expect(flooded == "p=1; m=1; s=1")
        }
        let cookies = store.allCookies
        #expect(cookies.map(\.name).sorted() == ["m", "p", "s"])
        #expect(cookies.allSatisfy { $0.path == "/" && $0.expires == nil && $0.sameSite == nil })
        #expect(cookies.reduce(0) { $0 + $1.byteCount } < 100)
    }

    /// The public API: `setCookie` ignores a cookie over the limits (name and value, domain,
    /// path, control characters) and drops an over-long `sameSite`.
    @Test func setCookieAppliesTheLimitsToCookiesMadeInSwift() throws {
        let store = CookieStore()
        let url = try #require(URL(string: "http://example.com/"))
        store.setCookie(WebCookie(name: "v", value: Self.repeated("v", 4096), domain: "example.com"))
        store.setCookie(WebCookie(name: "exact", value: Self.repeated("v", 4091), domain: "example.com"))
        store.setCookie(WebCookie(name: "path", value: "1", domain: "example.com", path: "/" + Self.repeated("p", 1024)))
        store.setCookie(WebCookie(name: "domain", value: "1", domain: Self.repeated("d", 1025)))
        store.setCookie(WebCookie(name: "control", value: "a\r\nb", domain: "example.com"))
        store.setCookie(WebCookie(name: "same", value: "1", domain: "example.com", sameSite: Self.repeated("s", 1025)))
        #expect(store.allCookies.map(\.name).sorted() == ["exact", "same"])
        #expect(store.cookies(for: url).first { $0.name == "same" }.map { $0.sameSite == nil } == true)
        // WebCookie's own parser refuses a string over the bound before parsing.
        #expect(WebCookie(setCookie: "x=1; Y=" + Self.repeated("y", WebCookie.maximumCookieStringBytes), from: url) == nil)
        #expect(WebCookie(setCookie: "x=1; Path=/" + Self.repeated("y", 2000), from: url)?.path == "/")
    }

    /// The jar is bounded in bytes: per domain (64 KiB) and in all (1 MiB), the oldest going
    /// first, whichever way the cookies come (the API, a page's script, a persisted file).
    @Test func theJarIsBoundedInBytes() async throws {
        let store = CookieStore()
        let value = Self.repeated("v", 4000)
        var newest: WebCookie?
        for domain in 0..<40 {
            for index in 0..<60 {
                let cookie = WebCookie(name: "n\(index)", value: value, domain: "d\(domain).example.com",
                                        path: "/" + Self.repeated("p", 1000), created: Date(timeIntervalSinceReferenceDate: Double(domain * 100 + index)))
                store.setCookie(cookie)
                newest = cookie
            }
        }
        func check(_ cookies: [WebCookie], sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(cookies.reduce(0) { $0 + $1.byteCount } <= CookieStore.maximumBytes, sourceLocation: sourceLocation)
            #expect(cookies.count <= CookieStore.maximumCookies, sourceLocation: sourceLocation)
            for (_, group) in Dictionary(grouping: cookies, by: \.domain) {
                #expect(group.reduce(0) { $0 + $1.byteCount } <= CookieStore.maximumBytesPerDomain, sourceLocation: sourceLocation)
                #expect(group.count <= CookieStore.maximumCookiesPerDomain, sourceLocation: sourceLocation)
            }
        }
        let all = store.allCookies
        check(all)
        #expect(all.reduce(0) { $0 + $1.byteCount } > CookieStore.maximumBytes - 10_000)  // filled, not emptied
        #expect(all.contains { $0 == newest })
        #expect(!all.contains { $0.domain == "d0.example.com" })  // the oldest went first

        // A page flooding its own domain through document.cookie.
        let pageStore = CookieStore()
        try await withFetchPage(configure: { $0.cookieStore = pageStore }) { page, _ in
            let count = try await run(page, """
                var value = new Array(4001).join('v'), tail = new Array(1001).join('x');
                for (var i = 0; i < 100; i++) document.cookie = 'c' + i + '=' + value + '; path=/' + i + '/' + tail;
                return Promise.resolve('done');
                """)
            #expect(count == "done")
        }
        let flooded = pageStore.allCookies
        check(flooded)
        #expect(flooded.count > 5 && flooded.contains { $0.name == "c99" })

        // A persisted file holding more than the limits allow.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let later = Date().addingTimeInterval(3600)
        var written = (0..<100).map {
            WebCookie(name: "f\($0)", value: value, domain: "example.com", expires: later, created: Date(timeIntervalSinceReferenceDate: Double($0)))
        }
        written.append(WebCookie(name: "longPath", value: "1", domain: "example.com", path: "/" + Self.repeated("p", 2000), expires: later))
        written.append(WebCookie(name: "longValue", value: Self.repeated("v", 5000), domain: "example.com", expires: later))
        try JSONEncoder().encode(written).write(to: file)
        let loaded = CookieStore(file: file).allCookies
        check(loaded)
        #expect(!loaded.contains { $0.name == "longPath" || $0.name == "longValue" })
        #expect(loaded.contains { $0.name == "f99" } && !loaded.contains { $0.name == "f0" })
    }
}

@Suite("HTTP cache", .timeLimit(.minutes(5)))
struct HTTPCacheTests {
    func withCachedPage(_ body: (WebPage, TestHTTPServer, HTTPCache) async throws -> Void) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: 1 << 20)
        try await withFetchPage(configure: { $0.httpCache = cache }) { page, server in
            try await body(page, server, cache)
        }
    }

    func expectText(
        _ page: WebPage, _ path: String, _ mode: String = "default", is expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let actual = try await text(page, path, mode)
        #expect(actual == expected, sourceLocation: sourceLocation)
    }

    func text(_ page: WebPage, _ path: String, _ mode: String = "default") async throws -> String? {
        try await run(page, "return fetch(path, { cache: mode }).then(function (r) { return r.text() })", ["path": path, "mode": mode])
    }

    @Test func aFreshResponseIsServedWithoutTheNetwork() async throws {
        try await withCachedPage { page, server, cache in
            try await expectText(page, "/fresh?n=1", is: "fresh #1")
            try await expectText(page, "/fresh?n=1", is: "fresh #1")
            #expect(server.received.count == 1)
            #expect(cache.storedURLs == ["\(server.baseURL)/fresh?n=1"])
            // reload goes to the network (and stores), no-cache revalidates, no-store bypasses.
            try await expectText(page, "/fresh?n=1", "reload", is: "fresh #1")
            try await expectText(page, "/fresh?n=1", "no-store", is: "fresh #1")
            #expect(server.received.count == 3)
        }
    }

    @Test func aStaleResponseIsRevalidatedAndA304ServesTheStoredBody() async throws {
        try await withCachedPage { page, server, _ in
            try await expectText(page, "/cached?n=1", is: "body \"v1\" #1")
            try await expectText(page, "/cached?n=1", is: "body \"v1\" #1")
            let requests = server.received.filter { $0.path == "/cached" }
            #expect(requests.count == 2)
            #expect(requests.last?.header("if-none-match") == "\"v1\"")
            try await expectText(page, "/modified", is: "modified body")
            try await expectText(page, "/modified", is: "modified body")
            #expect(server.received.last?.header("if-modified-since") == "Tue, 03 Nov 2026 10:00:00 GMT")
        }
    }

    /// A 304's merged headers reach the meta file (written on the cache's queue, not the
    /// page's thread), so a cache reopened on the directory has them; a refresh whose entry is
    /// removed before its write leaves no file behind, whichever runs first.
    @Test func aRefreshIsWrittenOffThePageThreadAndNeverOutlivesItsEntry() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: 1 << 20)
        let writer = cache.writer(url: "http://x/a", partition: nil, status: 200, statusText: "OK",
                                  headers: ["ETag", "\"1\"", "X-Version", "1"], requestHeaders: [])
        writer?.append(Data("body".utf8))
        writer?.commit()
        let stored = try #require(cache.lookup("http://x/a", partition: nil, requestHeaders: []))
        let refreshed = cache.refresh(stored, with: ["X-Version", "2"])
        #expect(refreshed.header("x-version") == "2")
        cache.waitForMetaWrites()
        let reopened = try HTTPCache(directory: directory, capacity: 1 << 20)
        #expect(reopened.lookup("http://x/a", partition: nil, requestHeaders: [])?.header("x-version") == "2")
        // Removed right after its refresh: no meta file comes back, no partial stays.
        for round in 0..<50 {
            let current = try #require(cache.lookup("http://x/a", partition: nil, requestHeaders: []))
            _ = cache.refresh(current, with: ["X-Version", "\(round)"])
            cache.invalidate("http://x/a")
            cache.waitForMetaWrites()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "round \(round)")
            let again = cache.writer(url: "http://x/a", partition: nil, status: 200, statusText: "OK", headers: ["ETag", "\"1\""], requestHeaders: [])
            again?.append(Data("body".utf8))
            again?.commit()
        }
    }

    /// Refreshes in quick succession that change only the times (a page revalidating a resource
    /// on every request: each 304 brings a new Date) rewrite the meta file once an interval, not
    /// once each; the index serves every refresh at once, and the last reaches the disk when the
    /// writes are flushed. A refresh that changes another header is written at once.
    @Test func refreshesInQuickSuccessionRewriteTheMetaFileOnce() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: 1 << 20)
        let writer = cache.writer(url: "http://x/a", partition: nil, status: 200, statusText: "OK",
                                  headers: ["ETag", "\"1\"", "Cache-Control", "max-age=60"], requestHeaders: [])
        writer?.append(Data("body".utf8))
        writer?.commit()
        func date(_ second: Int) -> String { "Sun, 29 Nov 2026 08:\(10 + second / 60):\(String(format: "%02d", second % 60)) GMT" }
        let first = try #require(cache.lookup("http://x/a", partition: nil, requestHeaders: []))
        _ = cache.refresh(first, with: ["Date", date(1), "Age", "1"])
        cache.metaWriteQueueDrained()  // the first is written at once
        let start = Date()
        for round in 2...100 {
            let current = try #require(cache.lookup("http://x/a", partition: nil, requestHeaders: []))
            // All within one interval of the first write (a given time: no waiting).
            let refreshed = cache.refresh(current, with: ["Date", date(round), "Age", "\(round)"], now: start.addingTimeInterval(Double(round) / 1000))
            #expect(refreshed.header("date") == date(round))
        }
        #expect(cache.lookup("http://x/a", partition: nil, requestHeaders: [])?.header("date") == date(100))
        cache.metaWriteQueueDrained()
        #expect(cache.metaRewrites == 1)
        cache.waitForMetaWrites()  // flushes the last
        #expect(cache.metaRewrites == 2)
        let reopened = try HTTPCache(directory: directory, capacity: 1 << 20)
        #expect(reopened.lookup("http://x/a", partition: nil, requestHeaders: [])?.header("date") == date(100))
        // Within the interval, a header other than the times (freshness) is written at once, so
        // that a reopened cache never sees the entry fresher than the server last said.
        let changed = try #require(cache.lookup("http://x/a", partition: nil, requestHeaders: []))
        _ = cache.refresh(changed, with: ["Cache-Control", "no-cache"], now: Date())
        cache.metaWriteQueueDrained()
        #expect(cache.metaRewrites == 3)
        let reread = try HTTPCache(directory: directory, capacity: 1 << 20)
        #expect(reread.lookup("http://x/a", partition: nil, requestHeaders: [])?.header("cache-control") == "no-cache")
        // Past the interval, the times alone are written again without a flush; a clock that
        // went back does not hold writes off.
        for (offset, expected) in [(HTTPCache.metaRewriteInterval + 1, 4), (-3600, 5)] {
            let current = try #require(cache.lookup("http://x/a", partition: nil, requestHeaders: []))
            _ = cache.refresh(current, with: ["Date", date(200 + expected)], now: Date().addingTimeInterval(offset))
            cache.metaWriteQueueDrained()
            #expect(cache.metaRewrites == expected)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasSuffix(".partial") })
    }

    @Test func noStoreResponsesAreNeverStored() async throws {
        try await withCachedPage { page, server, cache in
            try await expectText(page, "/no-store", is: "not stored")
            try await expectText(page, "/no-store", is: "not stored")
            #expect(server.received.count == 2 && server.received.allSatisfy { $0.header("if-none-match") == nil })
            #expect(cache.storedURLs.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directory.path).isEmpty)
            // Nor are uncacheable ones (no validator, no freshness) or a request's no-store.
            _ = try await text(page, "/json")
            #expect(try await run(page, "return fetch('/fresh?n=9', { headers: { 'Cache-Control': 'no-store' } }).then(function () { return 'ok' })") == "ok")
            #expect(cache.storedURLs.isEmpty)
        }
    }

    /// A stored body cut short on disk fails the request instead of passing for the whole body.
    @Test func aTruncatedStoredBodyFailsInsteadOfEndingEarly() async throws {
        try await withCachedPage { page, server, cache in
            try await expectText(page, "/fresh?n=3", is: "fresh #3")
            let bodies = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path).filter { $0.hasSuffix(".body") }
            let body = cache.directory.appendingPathComponent(try #require(bodies.first))
            let handle = try FileHandle(forWritingTo: body)
            try handle.truncate(atOffset: 3)
            try handle.close()
            let outcome = try await failure(page, "return fetch('/fresh?n=3').then(function (r) { return r.text() })")
            #expect(outcome == "TypeError: Failed to fetch: \(server.baseURL)/fresh?n=3: the body has 3 bytes where 8 were expected")
            #expect(server.received.count == 1)  // served (and failed) from the cache
        }
    }

    /// A body the page stopped (an abort while the transfer waits for the page to read) is
    /// never stored, not even as far as it came; a whole one is.
    @Test func anAbortedBodyIsNeverStored() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: 256 << 20)
        try await withFetchPage(configure: { $0.httpCache = cache }) { page, server in
            let paused = Inbox()
            page.network.pauseObserver = { unread in paused.receive(ScriptMessage(name: "paused", body: unread)) }
            _ = try await run(page, """
                window.controller = new AbortController();
                return fetch('/bytes?cache=1&n=' + (8 << 20), { signal: controller.signal })
                    .then(function (response) { window.held = response; return 'head' });
                """)
            await paused.wait(for: 1)
            let aborted = try await run(page, """
                controller.abort();
                return held.arrayBuffer().then(function () { return 'read' }, function (error) { return error.name });
                """)
            #expect(aborted == "AbortError")
            #expect(cache.storedURLs.isEmpty)
            let whole = try await run(page, "return fetch('/bytes?cache=1&n=1000').then(function (r) { return r.arrayBuffer() }).then(function (b) { return String(b.byteLength) })")
            #expect(whole == "1000")
            #expect(cache.storedURLs == ["\(server.baseURL)/bytes?cache=1&n=1000"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasSuffix(".partial") })
        }
    }

    /// Entries are keyed by the page's origin too: a page of another origin never gets what
    /// this one stored (not even with force-cache), and a Cookie header a page
    /// writes itself, with no cookie store, keeps the response out of the cache.
    @Test func theCacheIsPartitionedByThePagesOrigin() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: 1 << 20)
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        func page(cookies: Bool = true) throws -> WebPage {
            var configuration = WebPageConfiguration()
            configuration.httpCache = cache
            if !cookies { configuration.cookieStore = nil }
            return try WebPage(configuration: configuration)
        }
        let url = "\(server.baseURL)/fresh?n=7"
        try await using(try page()) { first in
            try await first.load(html: "", baseURL: URL(string: server.baseURL + "/page.html"))
            try await expectText(first, url, is: "fresh #7")
            try await expectText(first, url, "force-cache", is: "fresh #7")  // stored
        }
        #expect(server.received.count == 1)
        let other = "http://localhost:\(server.port)/page.html"
        try await using(try page()) { second in
            try await second.load(html: "", baseURL: URL(string: other))
            try await expectText(second, url, "force-cache", is: "fresh #7")  // from the network: not its entry
        }
        #expect(server.received.count == 2)
        try await using(try page(cookies: false)) { third in
            try await third.load(html: "", baseURL: URL(string: server.baseURL + "/page.html"))
            let own = try await run(third, "return fetch('/fresh?n=8', { headers: { Cookie: 'a=1' } }).then(function (r) { return r.text() })")
            #expect(own == "fresh #8")
        }
        #expect(!cache.storedURLs.contains("\(server.baseURL)/fresh?n=8"))
    }

    @Test func forceCacheAndOnlyIfCached() async throws {
        try await withCachedPage { page, server, _ in
            let miss = try await failure(page, "return fetch('/cached?n=2', { cache: 'only-if-cached', mode: 'same-origin' })")
            #expect(miss?.contains("is not in the cache") == true)
            try await expectText(page, "/cached?n=2", is: "body \"v1\" #2")
            // Stale (max-age=0), yet force-cache and only-if-cached use it without the network.
            try await expectText(page, "/cached?n=2", "force-cache", is: "body \"v1\" #2")
            let hit = try await run(page, "return fetch('/cached?n=2', { cache: 'only-if-cached', mode: 'same-origin' }).then(function (r) { return r.text() })")
            #expect(hit == "body \"v1\" #2")
            #expect(server.received.count == 1)
        }
    }

    @Test func theCacheSurvivesARestartAndStaysWithinItsCapacity() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        do {
            var configuration = WebPageConfiguration()
            configuration.httpCache = try HTTPCache(directory: directory, capacity: 1 << 20)
            try await using(try WebPage(configuration: configuration)) { page in
                try await page.load(html: "", baseURL: URL(string: server.baseURL + "/"))
                try await expectText(page, "/fresh?n=7", is: "fresh #7")
            }
        }
        let reopened = try HTTPCache(directory: directory, capacity: 1 << 20)
        #expect(reopened.storedURLs == ["\(server.baseURL)/fresh?n=7"])
        var configuration = WebPageConfiguration()
        configuration.httpCache = reopened
        try await using(try WebPage(configuration: configuration)) { page in
            try await page.load(html: "", baseURL: URL(string: server.baseURL + "/"))
            try await expectText(page, "/fresh?n=7", is: "fresh #7")
            #expect(server.received.count == 1)
            // A POST to the URL removes its entry.
            _ = try await run(page, "return fetch('/fresh?n=7', { method: 'POST', body: 'x' }).then(function () { return '' })")
            #expect(reopened.storedURLs.isEmpty)
            // Capacity: 64 KiB holds bodies up to 8 KiB, and evicts the least recently used.
            let small = try HTTPCache(directory: try temporaryDirectory(), capacity: 64 << 10)
            defer { try? FileManager.default.removeItem(at: small.directory) }
            for index in 0..<20 {
                let writer = small.writer(url: "http://x/\(index)", partition: nil, status: 200, statusText: "OK", headers: ["ETag", "\"\(index)\""], requestHeaders: [])
                writer?.append(Data(count: 6000))
                writer?.commit()
            }
            let big = small.writer(url: "http://x/big", partition: nil, status: 200, statusText: "OK", headers: ["ETag", "\"b\""], requestHeaders: [])
            big?.append(Data(count: 9000))
            big?.commit()
            #expect(small.storedURLs.count == 10 && small.storedURLs.contains("http://x/19") && !small.storedURLs.contains("http://x/big"))
            let files = try FileManager.default.contentsOfDirectory(atPath: small.directory.path)
            #expect(files.count == 20 && !files.contains { $0.hasSuffix(".partial") })
        }
    }

    // MARK: - Limits (issue 32, class 9)

    /// The bytes of the files in `directory`.
    static func bytesOnDisk(_ directory: URL) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Responses with large headers and empty bodies: what is on disk stays within the
    /// capacity (headers count, not only bodies), headers over an eighth of it are not stored,
    /// and an ordinary response is still cached.
    @Test func headersCountAgainstTheCapacity() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let capacity = 256 << 10
        let cache = try HTTPCache(directory: directory, capacity: capacity)
        let server = try await TestHTTPServer.start { request, responder in
            let pad = Int(request.query["pad"] ?? "") ?? 0
            try await responder.respond(headers: ["ETag: \"\(request.query["n"] ?? "")\"", "Cache-Control: max-age=3600",
                                                  "X-Pad: " + String(repeating: "p", count: pad)], text: request.query["text"] ?? "")
        }
        defer { server.stop() }
        var configuration = WebPageConfiguration()
        configuration.httpCache = cache
        try await using(try WebPage(configuration: configuration)) { page in
            try await page.load(html: "", baseURL: URL(string: server.baseURL + "/page.html"))
            let done = try await run(page, """
                var chain = Promise.resolve();
                for (var i = 0; i < 60; i++) (function (i) {
                    chain = chain.then(function () { return fetch('/h?pad=20000&n=' + i).then(function (r) { return r.text() }) });
                })(i);
                return chain.then(function () { return 'done' });
                """)
            #expect(done == "done")
            #expect(server.received.count == 60)
            let stored = cache.storedURLs
            #expect(!stored.isEmpty && stored.count <= capacity / 20_000)
            #expect(stored.contains("\(server.baseURL)/h?pad=20000&n=59"))  // the most recent kept
            #expect(try Self.bytesOnDisk(directory) <= capacity)
            // Headers over an eighth of the capacity (32 KiB) are not stored.
            try await expectText(page, "/h?pad=40000&n=big", is: "")
            #expect(!cache.storedURLs.contains("\(server.baseURL)/h?pad=40000&n=big"))
            // An ordinary response is stored and served from the cache.
            try await expectText(page, "/h?n=small&text=hello", is: "hello")
            try await expectText(page, "/h?n=small&text=hello", is: "hello")
            #expect(server.received.count == 62)
            #expect(cache.storedURLs.contains("\(server.baseURL)/h?n=small&text=hello"))
            #expect(try Self.bytesOnDisk(directory) <= capacity)
        }
    }

    /// The index is bounded in entries (by default one per KiB of capacity), empty bodies with
    /// small headers included; headers count through the Writer too; a cache reopened with
    /// fewer entries or a smaller capacity applies them to what it finds.
    @Test func theIndexIsBoundedAndReopeningEvictsToTheCapacity() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: 64 << 10)
        #expect(cache.maximumEntries == 64)
        func store(_ cache: HTTPCache, _ url: String, headers: [String] = [], body: Int = 0) {
            let writer = cache.writer(url: url, partition: nil, status: 200, statusText: "OK", headers: ["ETag", "\"e\""] + headers, requestHeaders: [])
            writer?.append(Data(count: body))
            writer?.commit()
        }
        for index in 0..<300 { store(cache, "http://x/\(index)") }
        #expect(cache.storedURLs.count == 64 && cache.storedURLs.contains("http://x/299"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 128)
        #expect(try Self.bytesOnDisk(directory) <= cache.capacity)
        // 7,000 bytes of headers each: far fewer fit; 9,000 (over 8 KiB) are refused.
        for index in 0..<30 { store(cache, "http://y/\(index)", headers: ["X-Pad", String(repeating: "p", count: 7000)]) }
        #expect(cache.storedURLs.contains("http://y/29") && cache.storedURLs.count < 10)
        #expect(try Self.bytesOnDisk(directory) <= cache.capacity)
        #expect(cache.writer(url: "http://y/big", partition: nil, status: 200, statusText: "OK",
                             headers: ["ETag", "\"e\"", "X-Pad", String(repeating: "p", count: 9000)], requestHeaders: []) == nil)
        // Reopened with fewer entries allowed: the least recently used go at once.
        let fewer = try HTTPCache(directory: directory, capacity: 64 << 10, maximumEntries: 2)
        #expect(fewer.storedURLs == ["http://y/28", "http://y/29"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 4)
        // Reopened smaller: entries whose headers are over its eighth (4 KiB) are dropped.
        let smaller = try HTTPCache(directory: directory, capacity: 32 << 10)
        #expect(smaller.storedURLs.isEmpty)
        #expect(try Self.bytesOnDisk(directory) <= smaller.capacity)
        // An explicit entry count.
        let few = try HTTPCache(directory: try temporaryDirectory(), capacity: 1 << 20, maximumEntries: 5)
        defer { try? FileManager.default.removeItem(at: few.directory) }
        for index in 0..<20 { store(few, "http://z/\(index)", body: 100) }
        #expect(few.storedURLs.count == 5 && few.storedURLs.contains("http://z/19"))
    }

    /// Opening a cache removes its own leftovers (partial files, bodies without meta, meta
    /// files it cannot read), never a directory someone put there under such a name.
    @Test func openingACacheLeavesDirectoriesWithEntryNamesAlone() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = ["a.partial", "0123456789abcdef.body", "fedcba9876543210.meta"]
        for name in names {
            let inner = directory.appendingPathComponent(name, isDirectory: true)
            try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
            try Data("kept".utf8).write(to: inner.appendingPathComponent("inside.txt"))
        }
        try Data("left over".utf8).write(to: directory.appendingPathComponent("b.partial"))
        try Data("orphan".utf8).write(to: directory.appendingPathComponent("1111111111111111.body"))
        let cache = try HTTPCache(directory: directory, capacity: 1 << 20)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set(names))
        for name in names {
            #expect(FileManager.default.contents(atPath: directory.appendingPathComponent(name).appendingPathComponent("inside.txt").path)
                == Data("kept".utf8))
        }
        #expect(cache.storedURLs.isEmpty)
    }
}
