import DuktapeCore
import DuktapeRuntime
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// WebViewJavascriptBridge on real pages: the original's README page unchanged, both directions
/// with responses, the startup queue across navigations, errors, and hostile pages.
@Suite("WebViewJavascriptBridge", .timeLimit(.minutes(2)))
struct WebViewJavascriptBridgeTests {
    static let app = URL(string: "http://app.test/index.html")
    static let prelude = "<script>function report(value) { webkit.messageHandlers.m.postMessage(value); }</script>"

    /// The README's page (v6), as a user of the original writes it.
    static let readmePage = """
        <script>
        function setupWebViewJavascriptBridge(callback) {
            if (window.WebViewJavascriptBridge) { return callback(WebViewJavascriptBridge); }
            if (window.WVJBCallbacks) { return window.WVJBCallbacks.push(callback); }
            window.WVJBCallbacks = [callback];
            var WVJBIframe = document.createElement('iframe');
            WVJBIframe.style.display = 'none';
            WVJBIframe.src = 'https://__bridge_loaded__';
            document.documentElement.appendChild(WVJBIframe);
            setTimeout(function() { document.documentElement.removeChild(WVJBIframe) }, 0)
        }
        setupWebViewJavascriptBridge(function(bridge) {
            /* Initialize your app here */
            bridge.registerHandler('JS Echo', function(data, responseCallback) {
                console.log("JS Echo called with:", data)
                responseCallback(data)
            })
            bridge.callHandler('ObjC Echo', {'key':'value'}, function responseCallback(responseData) {
                console.log("JS received response:", responseData)
            })
        })
        </script>
        """

    func withBridge(
        responseTimeout: TimeInterval = 60,
        _ body: (WebPage, WebViewJavascriptBridge, Inbox, ConsoleLines) async throws -> Void
    ) async throws {
        let inbox = Inbox(), console = ConsoleLines()
        var configuration = WebPageConfiguration()
        configuration.consoleOutput = console.output
        configuration.httpCache = nil
        configuration.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1"])
        configuration.userContentController.add(name: "m") { inbox.receive($0) }
        try await using(try WebPage(configuration: configuration)) { page in
            let bridge = try WebViewJavascriptBridge(page: page, responseTimeout: responseTimeout)
            try await body(page, bridge, inbox, console)
        }
    }

    func bodies(_ inbox: Inbox) -> [[AnyHashable]] {
        inbox.all.map { $0.body as? [AnyHashable] ?? [] }
    }

    @Test func theReadmePageRunsUnchanged() async throws {
        try await withBridge { page, bridge, _, console in
            let echoed = Gate()
            let received = Guarded(BridgeValue(value: nil))
            bridge.registerHandler("ObjC Echo") { data, responseCallback in
                received.withLock { $0 = BridgeValue(value: data) }
                responseCallback(data)
                echoed.open()
            }
            let result = try await page.load(html: Self.readmePage, baseURL: Self.app)
            #expect(result.scriptErrors.isEmpty)
            await echoed.wait()
            #expect(received.withLock { $0 }.value as? [String: String] == ["key": "value"])
            let answer = try await bridge.callHandler("JS Echo", data: ["n": 1.5, "text": "back`tick ${x} \u{2028}"]) as? [String: Any]
            #expect(answer?["n"] as? Double == 1.5 && answer?["text"] as? String == "back`tick ${x} \u{2028}")
            await console.wait(for: "JS received response: { key: 'value' }")
            #expect(console.all.contains { $0.hasPrefix("JS Echo called with:") })
        }
    }

    @Test func swiftsMessagesWaitForTheDocumentAndArriveInOrder() async throws {
        try await withBridge { page, bridge, inbox, _ in
            // Sent before any document: they wait for the page's handlers.
            for index in 1...3 { try bridge.callHandler("collect", data: index, responseCallback: nil) }
            let answered = Task { try await bridge.callHandler("collect", data: 4) as? Int }
            try await page.load(html: Self.prelude + """
                <script>
                WebViewJavascriptBridge.registerHandler('collect', function (data, respond) {
                    report(['collect', data]);
                    if (respond) respond(data * 10);
                });
                </script>
                """, baseURL: Self.app)
            let forty = try await answered.value
            #expect(forty == 40)
            await inbox.wait(for: 4)
            #expect(bodies(inbox) == [["collect", 1], ["collect", 2], ["collect", 3], ["collect", 4]])
        }
    }

    @Test func messagesSentDuringANavigationReachTheNextDocument() async throws {
        let release = Gate()
        let server = try await TestHTTPServer.start { request, responder in
            switch request.path {
            case "/slow.js":
                await release.wait()
                try await responder.respond(headers: ["Content-Type: text/javascript"], text: "var slow = true;")
            default:
                try await responder.respond(headers: ["Content-Type: text/html"], text: Self.prelude + """
                    <script>
                    WebViewJavascriptBridge.registerHandler('collect', function (data) { report(['second', data]); });
                    </script>
                    <script src="/slow.js"></script>
                    """)
            }
        }
        defer { server.stop() }
        try await withBridge { page, bridge, inbox, _ in
            try await page.load(html: "<script>WebViewJavascriptBridge.registerHandler('collect', function () {});</script>", baseURL: Self.app)
            let url = try #require(URL(string: server.baseURL + "/second"))
            let navigation = Task { try await page.load(url: url) }
            // The second document is loading (its script is held): what is sent now waits for it.
            try await server.wait { $0.received.contains { $0.path == "/slow.js" } }
            for index in 1...3 { try bridge.callHandler("collect", data: index, responseCallback: nil) }
            release.open()
            _ = try await navigation.value
            await inbox.wait(for: 3)
            #expect(bodies(inbox) == [["second", 1], ["second", 2], ["second", 3]])
        }
    }

    @Test func errorsAndUnknownNamesHaveAnAnswer() async throws {
        struct Secret: Error {}
        try await withBridge { page, bridge, inbox, console in
            bridge.registerHandler("refuse") { (_: Any?) async throws -> Any? in throw ScriptMessageReplyError("refused") }
            bridge.registerHandler("fail") { (_: Any?) async throws -> Any? in throw Secret() }
            bridge.registerHandler("gone") { _, respond in respond(1) }
            bridge.removeHandler("gone")
            try await page.load(html: Self.prelude + """
                <script>
                var bridge = WebViewJavascriptBridge;
                ['refuse', 'fail', 'gone'].forEach(function (name) {
                    bridge.callHandler(name, { x: 1 }, function (data, error) { report([name, data === undefined ? 'undefined' : data, error]); });
                });
                // A response for a call Swift never made (through the original's entry point).
                bridge.registerHandler('echo', function (data, respond) { respond(data); });
                bridge._handleMessageFromObjC(JSON.stringify({ handlerName: 'echo', data: 5, callbackId: 'objc_cb_999' }));
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 3)
            let answers = Set(bodies(inbox).map { $0.map { "\($0)" } })
            #expect(answers == [["refuse", "undefined", "refused"], ["fail", "undefined", "the handler fail failed"],
                                ["gone", "undefined", "no handler named gone"]])
            await console.wait(for: "WebViewJavascriptBridge: WARNING: a response for no call (objc_cb_999): ignored")
            // The page without the handler Swift calls: nothing answers but the page says so.
            try bridge.callHandler("nobody", data: nil, responseCallback: nil)
            await console.wait(for: "WebViewJavascriptBridge: WARNING: no handler for message from ObjC: { handlerName: 'nobody' }")
        }
    }

    @Test func aWaitingCallEndsWhenTheDocumentGoesOrThePageCloses() async throws {
        try await withBridge { page, bridge, inbox, _ in
            let page1 = Self.prelude + "<script>WebViewJavascriptBridge.registerHandler('never', function () { report(['never']); });</script>"
            try await page.load(html: page1, baseURL: Self.app)
            let pending = Task { _ = try await bridge.callHandler("never") }
            await inbox.wait(for: 1)  // the page has the call
            try await page.load(html: page1, baseURL: Self.app)
            await #expect(throws: WebViewJavascriptBridgeError.documentReplaced) { try await pending.value }
            let reset = Task { _ = try await bridge.callHandler("never") }
            await inbox.wait(for: 2)
            bridge.reset()
            await #expect(throws: WebViewJavascriptBridgeError.reset) { try await reset.value }
            page.close()
            await #expect(throws: WebViewJavascriptBridgeError.pageClosed) { _ = try await bridge.callHandler("never") }
            #expect(throws: WebViewJavascriptBridgeError.alreadyAttached) { _ = try WebViewJavascriptBridge(page: page) }
        }
    }

    @Test func aCallThePageNeverAnswersEndsAtTheTimeout() async throws {
        try await withBridge(responseTimeout: 0.1) { page, bridge, _, _ in
            try await page.load(html: "<script>WebViewJavascriptBridge.registerHandler('silent', function () {});</script>", baseURL: Self.app)
            await #expect(throws: WebViewJavascriptBridgeError.timedOut) { _ = try await bridge.callHandler("silent") }
            let (answers, answer) = AsyncStream.makeStream(of: Bool.self)
            try bridge.callHandler("silent", data: 1) { data in answer.yield(data == nil) }
            var iterator = answers.makeAsyncIterator()
            #expect(await iterator.next() == true)
        }
    }

    @Test func hostilePagesBreakOnlyThemselves() async throws {
        try await withBridge { page, bridge, inbox, _ in
            let calls = Guarded(0)
            bridge.registerHandler("count") { _, respond in
                calls.withLock { $0 += 1 }
                respond(true)
            }
            try await page.load(html: Self.prelude + """
                <script>
                var real = WebViewJavascriptBridge;
                JSON.stringify = function () { throw new Error('no JSON') };
                JSON.parse = function () { throw new Error('no JSON') };
                window.Promise = undefined;
                webkit.messageHandlers.WebViewJavascriptBridge = { postMessage: function () { report(['stolen']) } };
                real._handleMessageFromObjC('not json');
                real._handleMessageFromObjC(JSON.stringify === undefined ? '' : '{"responseId": 7}');
                real.callHandler('count', function (ok) {
                    Object.defineProperty(window, 'WebViewJavascriptBridge', { value: { callHandler: function () {} } });
                    report(['count', ok]);
                });
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 1)
            #expect(bodies(inbox) == [["count", true]])
            #expect(calls.withLock { $0 } == 1)
        }
    }
}
