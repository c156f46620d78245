import DuktapeCore
import DuktapeRuntime
import Foundation
import NIOCore
import NIOHTTP1
import TestServer
import Testing

@testable import DuktapeWeb

/// A GET of `href` with the page's defaults, or what `change` makes of it.
private func request(_ href: String, _ change: (inout FetchRequest) -> Void = { _ in }) throws -> FetchRequest {
    var request = FetchRequest(url: try #require(URLRecord.parse(href)), method: "GET", headers: [], body: nil, redirect: .follow,
                               timeout: nil, credentials: .sameOrigin, cache: .default)
    change(&request)
    return request
}

/// The page's network stage by stage (`PageNetwork.perform` composes them): each decides from
/// values, so each is tested alone here; `fetch` and `<script src>` go through all of them.
@Suite("Network stages: redirects")
struct RedirectRuleTests {
    private func followed(_ status: Int, _ location: String, _ request: FetchRequest, hops: Int = 0) throws -> FetchRequest? {
        if case .follow(let next) = try RedirectRule.apply(status: status, location: location, to: request, hops: hops) { return next }
        return nil
    }

    @Test func aSeeOtherTurnsAPostIntoAGetWithoutItsBody() throws {
        let post = try request("http://a.test/form") {
            $0.method = "POST"
            $0.body = Data("x=1".utf8)
            $0.headers = [("Content-Type", "application/x-www-form-urlencoded"), ("X-Kept", "1"), ("content-language", "en")]
        }
        for status in [301, 302, 303] {
            let next = try #require(try followed(status, "/done", post))
            #expect(next.method == "GET" && next.body == nil, "\(status)")
            #expect(next.headers.map(\.name) == ["X-Kept"], "\(status)")
            #expect(next.url.href == "http://a.test/done")
        }
        for status in [307, 308] {
            let next = try #require(try followed(status, "/again", post))
            #expect(next.method == "POST" && next.body == Data("x=1".utf8) && next.headers.count == 3, "\(status)")
        }
        // A 303 keeps HEAD; 301 and 302 change only POST.
        #expect(try followed(303, "/h", try request("http://a.test/") { $0.method = "HEAD" })?.method == "HEAD")
        #expect(try followed(302, "/p", try request("http://a.test/") { $0.method = "PUT"; $0.body = Data([1]) })?.body == Data([1]))
    }

    @Test func credentialsStayWithTheirOrigin() throws {
        let withCredentials = try request("http://a.test/x") {
            $0.headers = [("Authorization", "Bearer t"), ("cookie", "a=1"), ("Proxy-Authorization", "p"), ("X-Other", "o")]
        }
        #expect(try followed(302, "/y", withCredentials)?.headers.count == 4)
        #expect(try followed(302, "http://a.test:80/y", withCredentials)?.headers.count == 4)
        for other in ["http://b.test/y", "https://a.test/y", "http://a.test:8080/y", "//sub.a.test/y"] {
            #expect(try followed(302, other, withCredentials)?.headers.map(\.name) == ["X-Other"], "\(other)")
        }
    }

    @Test func theModesTheHopLimitAndHostileLocations() throws {
        let get = try request("http://a.test/dir/page")
        #expect(try followed(301, "../up?q#f", get)?.url.href == "http://a.test/up?q#f")
        #expect(try followed(307, "next", get, hops: RedirectRule.maximumHops - 1)?.url.href == "http://a.test/dir/next")
        #expect(throws: FetchFailure.self) { try RedirectRule.apply(status: 302, location: "/n", to: get, hops: RedirectRule.maximumHops) }
        for location in ["javascript:alert(1)", "file:///etc/passwd", "data:text/plain,x", "ftp://a.test/", "http://[::1", "http://a b/"] {
            #expect(throws: FetchFailure.self, "\(location)") { try RedirectRule.apply(status: 302, location: location, to: get, hops: 0) }
        }
        #expect(throws: FetchFailure.self) {
            try RedirectRule.apply(status: 302, location: "/n", to: try request("http://a.test/") { $0.redirect = .error }, hops: 0)
        }
        let manual = try RedirectRule.apply(status: 302, location: "/n", to: try request("http://a.test/") { $0.redirect = .manual }, hops: 0)
        guard case .manual = manual else { Issue.record("manual mode followed"); return }
    }
}

@Suite("Network stages: cookies")
struct CookieScopeTests {
    @Test func theCredentialsModeAndThePageOriginDecide() throws {
        let store = CookieStore()
        store.setCookie(WebCookie(name: "a", value: "1", domain: "a.test"))
        let page = URL(string: "http://a.test/index.html")
        let scope = CookieScope(store: store, documentURL: { page })
        let sameOrigin = try request("http://a.test/data")
        let crossOrigin = try request("http://b.test/data")
        #expect(scope.sends(sameOrigin))
        #expect(!scope.sends(crossOrigin))
        #expect(scope.sends(try request("http://b.test/data") { $0.credentials = .include }))
        #expect(!scope.sends(try request("http://a.test/data") { $0.credentials = .omit }))
        #expect(scope.header(for: sameOrigin.url) == "a=1")
        #expect(scope.header(for: crossOrigin.url) == nil)
        // No page URL, an opaque one, or no store: nothing goes with same-origin requests.
        #expect(!CookieScope(store: store, documentURL: { nil }).sends(sameOrigin))
        #expect(!CookieScope(store: store, documentURL: { URL(string: "data:text/html,x") }).sends(sameOrigin))
        let none = CookieScope(store: nil, documentURL: { page })
        #expect(!none.sends(try request("http://a.test/data") { $0.credentials = .include }))
        #expect(none.partition == nil && scope.partition == store.partition)
    }

    @Test func responsesStoreTheirCookiesAndMalformedOnesAreIgnored() throws {
        let store = CookieStore()
        let scope = CookieScope(store: store, documentURL: { nil })
        let url = try #require(URLRecord.parse("http://a.test/x"))
        scope.receive(["b=2; Path=/", "", ";;;", "=", "\u{0}=\u{0}", String(repeating: "c", count: 10_000) + "=1"], from: url)
        #expect(store.allCookies.map(\.name) == ["b"])
        #expect(scope.header(for: url) == "b=2")
    }
}

@Suite("Network stages: cache")
struct CachePlanTests {
    /// An empty cache in a new folder (removed by the test's `defer`).
    private func makeCache() throws -> (HTTPCache, URL) {
        let directory = try temporaryDirectory()
        return (try HTTPCache(directory: directory, capacity: 1 << 20), directory)
    }

    private func store(_ cache: HTTPCache, _ plan: CachePlan, _ headers: [String], body: String) throws {
        let writer = try #require(plan.writer(status: 200, statusText: "OK", headers: headers))
        writer.append(Array(body.utf8))
        writer.commit()
    }

    @Test func theModeThatApplies() throws {
        let (cache, directory) = try makeCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            func plan(_ request: FetchRequest, _ headers: HTTPHeaders = [:], store: String? = "jar") -> CachePlan {
                CachePlan(request: request, headers: headers, cache: cache, pageOrigin: "http://a.test", cookiePartition: store)
            }
            #expect(plan(try request("http://a.test/x")).mode == .default)
            #expect(plan(try request("http://a.test/x")).cacheable)
            #expect(!plan(try request("http://a.test/x") { $0.method = "POST" }).cacheable)
            // The page's own conditional or range request, credentials in Authorization, or a
            // Cookie header with no store to partition by: not stored, not served.
            for name in ["If-None-Match", "if-modified-since", "Range", "If-Range"] {
                #expect(plan(try request("http://a.test/x") { $0.headers = [(name, "v")] }).mode == .noStore, "\(name)")
            }
            #expect(plan(try request("http://a.test/x") { $0.headers = [("Range", "bytes=0-1")]; $0.cache = .forceCache }).mode == .forceCache)
            #expect(plan(try request("http://a.test/x"), ["Authorization": "Basic x"]).mode == .noStore)
            #expect(plan(try request("http://a.test/x"), ["Cookie": "a=1"], store: nil).mode == .noStore)
            #expect(plan(try request("http://a.test/x"), ["Cookie": "a=1"]).mode == .default)
            // Partitioned by the page's origin, and by the store when its cookies went.
            #expect(plan(try request("http://a.test/x#frag")).key == "http://a.test/x")
            #expect(plan(try request("http://a.test/x")).partition == "http://a.test")
            #expect(plan(try request("http://a.test/x"), ["Cookie": "a=1"]).partition == "http://a.test\njar")
        }
    }

    @Test func whatIsServedFromTheCacheInEachMode() throws {
        let (cache, directory) = try makeCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let url = "http://a.test/r"
            func plan(_ mode: FetchRequest.CacheMode, origin: String = "http://a.test") throws -> CachePlan {
                CachePlan(request: try request(url) { $0.cache = mode }, headers: [:], cache: cache, pageOrigin: origin, cookiePartition: nil)
            }
            #expect(try plan(.default).answer(now: Date()) == nil)
            #expect(throws: FetchFailure.self) { try plan(.onlyIfCached).checkNetworkAllowed() }
            try store(cache, try plan(.default), ["Cache-Control", "max-age=600", "ETag", "\"t1\""], body: "stored")
            for (mode, served) in [(FetchRequest.CacheMode.default, true), (.forceCache, true), (.onlyIfCached, true), (.noCache, false),
                                   (.reload, false), (.noStore, false)] {
                #expect((try plan(mode).answer(now: Date()) != nil) == served, "\(mode)")
            }
            // Stale: `default` goes to the network, conditionally; `force-cache` still serves it.
            #expect(try plan(.default).answer(now: Date().addingTimeInterval(3_600)) == nil)
            #expect(try plan(.forceCache).answer(now: Date().addingTimeInterval(3_600)) != nil)
            var headers: HTTPHeaders = ["If-None-Match": "\"page's own\""]
            #expect(try plan(.noCache).addValidators(to: &headers))
            #expect(headers["If-None-Match"] == ["\"t1\""])
            // Another origin's page sees nothing of it.
            #expect(try plan(.onlyIfCached, origin: "http://b.test").stored == nil)
            // A change by another method invalidates it; a lost body makes the network answer.
            try plan(.default).responded(method: "POST", status: 500)
            #expect(try plan(.default).stored != nil)
            try plan(.default).responded(method: "DELETE", status: 204)
            #expect(try plan(.default).stored == nil)
            try store(cache, try plan(.default), ["Cache-Control", "max-age=600"], body: "again")
            var lost = try plan(.default)
            lost.lostBody()
            #expect(lost.stored == nil && cache.storedURLs.isEmpty)
        }
    }
}

@Suite("Network stages: transport")
struct HTTPTransportTests {
    @Test func theHostOwnsFramingAndSetsItsOwnHeaders() throws {
        let page = try request("http://a.test/") {
            $0.headers = [("Host", "evil.test"), ("Content-Length", "1"), ("Transfer-Encoding", "chunked"), ("Connection", "upgrade"),
                          ("Upgrade", "websocket"), ("TE", "trailers"), ("Accept-Encoding", "br"), ("Keep-Alive", "1"), ("Expect", "100-continue"),
                          ("Trailer", "x"), ("X-Mine", "1"), ("Cookie", "own=1")]
        }
        let withStore = HTTPTransport.headers(for: page, userAgent: "UA/1", cookie: "jar=1", storeKeepsCookies: true)
        #expect(withStore.map(\.name) == ["X-Mine", "User-Agent", "Accept-Encoding", "Cookie"])
        #expect(withStore["Cookie"] == ["jar=1"] && withStore["User-Agent"] == ["UA/1"] && withStore["Accept-Encoding"] == ["gzip, deflate"])
        let withoutStore = HTTPTransport.headers(for: page, userAgent: "UA/1", cookie: nil, storeKeepsCookies: false)
        #expect(withoutStore["Cookie"] == ["own=1"])
        let ranged = try request("http://a.test/") { $0.headers = [("range", "bytes=0-9"), ("User-Agent", "Mine")] }
        let headers = HTTPTransport.headers(for: ranged, userAgent: "UA/1", cookie: nil, storeKeepsCookies: true)
        #expect(headers["Accept-Encoding"] == ["identity"] && headers["User-Agent"] == ["Mine"])
    }

    @Test func headsOverTheLimitAreRefusedBeforeTheyAreSent() throws {
        var headers = HTTPHeaders()
        headers.add(name: "X-Big", value: String(repeating: "x", count: HTTPTransport.maximumRequestHeaderBytes))
        #expect(throws: FetchFailure.self) { try HTTPTransport.checkHeaderSize(headers) }
        #expect(throws: Never.self) { try HTTPTransport.checkHeaderSize(["X-Small": "1"]) }
    }
}

/// `<script src>` goes through the same stages as `fetch`: the cache, the cookies (its
/// credentials mode is same-origin), decompression, the transfer slots, and the page's close.
@Suite("External scripts through the network stages", .timeLimit(.minutes(3)))
struct ScriptLoadingTests {
    @Test func aCacheableScriptIsServedFromTheCacheTheSecondTime() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: 1 << 20)
        try await withFetchPage(configure: { $0.httpCache = cache }) { page, server in
            let html = "<script>var log = []</script><script src=\"/script.js?cache=1&text=log.push('cached')\"></script>"
            for _ in 0..<2 {
                let result = try await page.load(html: html, baseURL: URL(string: server.baseURL + "/index.html"))
                #expect(result.skippedScripts.isEmpty && result.scriptErrors.isEmpty)
                #expect(try await page.evaluateJavaScript("log.join()") as? String == "cached")
            }
            #expect(server.received.filter { $0.path == "/script.js" }.count == 1)
            #expect(cache.storedURLs.contains { $0.hasPrefix(server.baseURL + "/script.js?cache=1") })
        }
    }

    @Test func crossOriginScriptsGetNoCookiesAndScriptResponsesSetThem() async throws {
        let store = CookieStore()
        try await withFetchPage(configure: {
            $0.cookieStore = store
            $0.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1", "localhost"])
        }) { page, server in
            store.setCookie(WebCookie(name: "local", value: "1", domain: "localhost"))
            store.setCookie(WebCookie(name: "own", value: "2", domain: "127.0.0.1"))
            let result = try await page.load(html: """
                <script src="http://localhost:\(server.port)/script.js?text=var%20a%20%3D%201"></script>
                <script src="/script.js?text=var%20b%20%3D%202"></script>
                <script src="/set-cookies"></script>
                """, baseURL: URL(string: server.baseURL + "/index.html"))
            #expect(result.skippedScripts.isEmpty)
            let scripts = server.received.filter { $0.path == "/script.js" }
            #expect(scripts.count == 2)
            #expect(scripts.first { $0.header("host")?.hasPrefix("localhost") == true }?.header("cookie") == nil)
            #expect(scripts.first { $0.header("host")?.hasPrefix("127.0.0.1") == true }?.header("cookie") == "own=2")
            #expect(store.allCookies.contains { $0.name == "a" && $0.domain == "127.0.0.1" })
        }
    }

    @Test func scriptsOverTheLimitAndFailingOnesAreSkippedWithTheReason() async throws {
        try await withFetchPage { page, server in
            let result = try await page.load(html: """
                <script src="/bytes?n=\(PageNetwork.maximumScriptBytes + 1)"></script>
                <script src="/truncated"></script>
                <script src="/gzip-bomb"></script>
                <script src="/redirect?n=21&to=/script.js"></script>
                <script>var after = 'ran'</script>
                """, baseURL: URL(string: server.baseURL + "/index.html"))
            let reasons = result.skippedScripts.map(\.reason)
            #expect(result.skippedScripts.map(\.index) == [0, 1, 2, 3])
            #expect(reasons.count == 4)
            guard reasons.count == 4 else { return }
            #expect(reasons[0].hasSuffix("the script is longer than 16 MB"))
            #expect(reasons[1].contains("failed"))
            #expect(reasons[2].hasSuffix("the script is longer than 16 MB"))
            #expect(reasons[3].contains("more than 20 redirects"))
            #expect(try await page.evaluateJavaScript("after") as? String == "ran")
        }
    }

    @Test func closingThePageEndsAScriptLoadInFlight() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let page = try WebPage()
        let load = Task { try await page.load(html: "<script src=\"/hang\"></script>", baseURL: URL(string: server.baseURL + "/index.html")) }
        try await server.wait { $0.received.contains { $0.path == "/hang" } }
        await page.shutdown()
        let ended = await endsWithin(.seconds(30)) { _ = try? await load.value }
        #expect(ended)
        #expect(page.network.runningCount == 0)
    }

    @Test func theCollectorCountsBytesAsTheyComeAndHandsOverTextOnce() async throws {
        let loop = JSEventLoop(context: JSContext())
        let transfer = FetchTransfer(id: 1, pending: loop.beginPendingWork())
        let dones = Guarded(0)
        let collector = ScriptCollector(request: "GET http://a.test/s.js", limit: 10) { dones.withLock { $0 += 1 } }
        collector.head(TransferHead(status: 200, statusText: "OK", url: "http://a.test/s.js", redirected: false,
                                    headers: ["Content-Type", "text/javascript; charset=iso-8859-1"], type: "basic"),
                       of: transfer)
        #expect(transfer.queue(ByteBuffer(bytes: [0x61, 0xE9])))  // the collector asked for bytes
        collector.available(transfer)
        collector.end(transfer)
        collector.end(transfer)
        #expect(try await collector.loaded().text == "aé")
        #expect(dones.withLock { $0 } == 1)

        let long = ScriptCollector(request: "GET http://a.test/l.js", limit: 10) {}
        let second = FetchTransfer(id: 2, pending: loop.beginPendingWork())
        long.head(TransferHead(status: 200, statusText: "OK", url: "", redirected: false, headers: [], type: "basic"), of: second)
        for _ in 0..<3 where second.queue(ByteBuffer(bytes: [UInt8](repeating: 0x20, count: 4))) { long.available(second) }
        await #expect(throws: FetchFailure.self) { _ = try await long.loaded() }

        let refused = ScriptCollector(request: "GET http://a.test/r.js", limit: 10) {}
        refused.head(TransferHead(status: 500, statusText: "", url: "http://a.test/r.js", redirected: false, headers: [], type: "basic"),
                     of: FetchTransfer(id: 3, pending: loop.beginPendingWork()))
        do {
            _ = try await refused.loaded()
            Issue.record("a 500 was collected")
        } catch {
            #expect("\(error)" == "GET http://a.test/r.js answered 500")
        }
    }
}
