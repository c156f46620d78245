import DuktapeCore
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// `WebPage.load(url:)` against real servers on 127.0.0.1, and the document a script message
/// says it came from (`ScriptMessage.frameInfo`).
@Suite("Navigation", .timeLimit(.minutes(2)))
struct NavigationTests {
    /// Pages of their own: `/page?name=N` posts its name and `location.href`, `/app.js` is a
    /// script, `/to?url=U` redirects to U, `/cookie` sets one and `/missing` is a 404 page.
    static let routes: TestHTTPServer.Handler = { request, responder in
        let query = request.query
        switch request.path {
        case "/page":
            let name = query["name"] ?? ""
            try await responder.respond(headers: ["Content-Type: text/html; charset=utf-8"], text: """
                <script src="/app.js"></script>
                <script>webkit.messageHandlers.m.postMessage([\(name.debugDescription), location.href, app])</script>
                """)
        case "/app.js":
            try await responder.respond(headers: ["Content-Type: text/javascript"], text: "var app = 'loaded';")
        case "/to":
            try await responder.respond(status: "302 Found", headers: ["Location: \(query["url"] ?? "/")"], text: "")
        case "/cookie":
            try await responder.respond(headers: ["Content-Type: text/html", "Set-Cookie: visited=yes; Path=/"], text: "<p>hi</p>")
        case "/missing":
            try await responder.respond(status: "404 Not Found", headers: ["Content-Type: text/html"],
                                        text: "<script>webkit.messageHandlers.m.postMessage(['missing', location.href, 0])</script>")
        default:
            try await responder.respond(status: "404 Not Found", text: "no")
        }
    }

    /// A page whose handler `m` collects messages, allowed to reach 127.0.0.1 only.
    func withPage(_ body: (WebPage, Inbox) async throws -> Void) async throws {
        let inbox = Inbox()
        var configuration = WebPageConfiguration()
        configuration.consoleOutput = ConsoleLines().output
        configuration.httpCache = nil
        configuration.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1"])
        configuration.userContentController.add(name: "m") { inbox.receive($0) }
        try await using(try WebPage(configuration: configuration)) { page in try await body(page, inbox) }
    }

    @Test func aDocumentLoadsWithItsScriptsAndItsURL() async throws {
        let server = try await TestHTTPServer.start(Self.routes)
        defer { server.stop() }
        try await withPage { page, inbox in
            let url = try #require(URL(string: server.baseURL + "/page?name=first"))
            let result = try await page.load(url: url)
            #expect(result.url == url && result.statusCode == 200 && result.scriptErrors.isEmpty && result.skippedScripts.isEmpty)
            #expect(page.url == url)
            await inbox.wait(for: 1)
            let message = try #require(inbox.all.first)
            #expect(message.body as? [AnyHashable] == ["first", url.absoluteString, "loaded"])
            #expect(message.frameInfo.url == url && message.frameInfo.isMainFrame)
            #expect(message.frameInfo.securityOrigin == SecurityOrigin(protocol: "http", host: "127.0.0.1", port: server.port))
        }
    }

    @Test func redirectsAreFollowedAndTheLastURLIsThePages() async throws {
        let first = try await TestHTTPServer.start(Self.routes)
        defer { first.stop() }
        let second = try await TestHTTPServer.start(Self.routes)
        defer { second.stop() }
        try await withPage { page, inbox in
            // Across origins: the document, its location and its messages are the second server's.
            let target = second.baseURL + "/page?name=landed"
            let start = try #require(URL(string: first.baseURL + "/to?url=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")))
            let result = try await page.load(url: start)
            #expect(result.url?.absoluteString == target && page.url?.absoluteString == target && result.statusCode == 200)
            await inbox.wait(for: 1)
            let message = try #require(inbox.all.first)
            #expect(message.body as? [AnyHashable] == ["landed", target, "loaded"])
            #expect(message.frameInfo.securityOrigin.port == second.port)
        }
    }

    @Test func anErrorStatusLoadsItsPage() async throws {
        let server = try await TestHTTPServer.start(Self.routes)
        defer { server.stop() }
        try await withPage { page, inbox in
            let result = try await page.load(url: try #require(URL(string: server.baseURL + "/missing")))
            #expect(result.statusCode == 404)
            await inbox.wait(for: 1)
            #expect((inbox.all.first?.body as? [Any])?.first as? String == "missing")
        }
    }

    @Test func aNavigationSendsAndStoresCookies() async throws {
        let server = try await TestHTTPServer.start(Self.routes)
        defer { server.stop() }
        try await withPage { page, _ in
            try await page.load(url: try #require(URL(string: server.baseURL + "/cookie")))
            try await page.load(url: try #require(URL(string: server.baseURL + "/page?name=again")))
            #expect(server.received.last { $0.path == "/page" }?.header("cookie") == "visited=yes")
            #expect(try await page.evaluateJavaScript("document.cookie") as? String == "visited=yes")
        }
    }

    /// No document, no change: the page keeps its document, globals and URL.
    @Test func aFailedNavigationChangesNothing() async throws {
        let server = try await TestHTTPServer.start(Self.routes)
        defer { server.stop() }
        let refusing = try RefusingPort()
        defer { refusing.close() }
        try await withPage { page, inbox in
            let home = try #require(URL(string: server.baseURL + "/page?name=home"))
            try await page.load(url: home)
            let failures: [(String, String)] = [
                ("http://127.0.0.1:\(refusing.port)/x", "was refused"),
                ("http://example.com/", "request policy"),
                (server.baseURL + "/to?url=http%3A%2F%2Fexample.com%2F", "request policy"),  // a redirect out of the policy
                ("ftp://127.0.0.1/x", "only http, https and file URLs"),
                ("data:text/html,hello", "only http, https and file URLs"),
                ("file:///etc/hostname", "request policy"),  // no file access unless the policy grants it
            ]
            for (address, says) in failures {
                let url = try #require(URL(string: address), "\(address)")
                do {
                    try await page.load(url: url)
                    Issue.record("\(address) loaded")
                } catch WebPageError.navigationFailed(let failed, let reason) {
                    #expect(failed == url && reason.contains(says), "\(address): \(reason)")
                }
                #expect(page.url == home)
                #expect(try await page.evaluateJavaScript("location.href") as? String == home.absoluteString)
            }
            #expect(inbox.all.count == 1)
        }
    }

    /// A handler learns where a message came from at the time it was posted, whatever the page
    /// loaded since: a document loaded without a URL is an opaque origin.
    @Test func eachMessageSaysWhichDocumentPostedIt() async throws {
        let server = try await TestHTTPServer.start(Self.routes)
        defer { server.stop() }
        try await withPage { page, inbox in
            try await page.load(html: "<script>webkit.messageHandlers.m.postMessage('inline')</script>", baseURL: nil)
            try await page.load(url: try #require(URL(string: server.baseURL + "/page?name=served")))
            try await page.load(html: "<script>webkit.messageHandlers.m.postMessage('based')</script>",
                                baseURL: URL(string: "https://app.example:8443/x/index.html"))
            await inbox.wait(for: 3)
            let origins = inbox.all.map(\.frameInfo.securityOrigin.description)
            #expect(origins == ["null", server.baseURL, "https://app.example:8443"])
            #expect(inbox.all.map(\.frameInfo.url?.absoluteString) == [nil, server.baseURL + "/page?name=served", "https://app.example:8443/x/index.html"])
        }
    }

    @Test func originsCompareAsBrowsersSerializeThem() {
        let cases: [(String?, String, SecurityOrigin)] = [
            (nil, "null", SecurityOrigin(protocol: "", host: "", port: 0)),
            ("https://App.Example/a", "https://app.example", SecurityOrigin(protocol: "https", host: "app.example", port: 0)),
            ("https://app.example:443/", "https://app.example", SecurityOrigin(protocol: "https", host: "app.example", port: 0)),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080", SecurityOrigin(protocol: "http", host: "127.0.0.1", port: 8080)),
            ("http://[::1]:81/", "http://[::1]:81", SecurityOrigin(protocol: "http", host: "::1", port: 81)),
            ("file:///tmp/page.html", "null", SecurityOrigin(protocol: "", host: "", port: 0)),
            ("data:text/html,x", "null", SecurityOrigin(protocol: "", host: "", port: 0)),
            ("blob:https://app.example/1234", "https://app.example", SecurityOrigin(protocol: "https", host: "app.example", port: 0)),
        ]
        for (address, serialized, expected) in cases {
            let origin = SecurityOrigin(url: address.flatMap { URL(string: $0) })
            #expect(origin == expected && origin.description == serialized, "\(address ?? "nil")")
        }
    }
}
