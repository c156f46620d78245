import DuktapeCore
import DuktapeRuntime
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// Messages received by handlers, in order, from any thread.
final class Inbox: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [ScriptMessage] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func receive(_ message: ScriptMessage) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            messages.append(message)
            let (done, waiting) = (waiters.filter { $0.count <= messages.count }, waiters.filter { $0.count > messages.count })
            waiters = waiting
            return done.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    var all: [ScriptMessage] { lock.withLock { messages } }

    /// Returns once `count` messages have arrived (the caller's test has its own deadline).
    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if messages.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Opened once by the test; `wait()` returns once it is open.
final class Gate: Sendable {
    private let state = Guarded<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the calling task is cancelled.
    static func untilCancelled() async {
        let gate = Gate()
        await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.open() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Console lines written by a page.
final class ConsoleLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var waiters: [(text: String, continuation: CheckedContinuation<Void, Never>)] = []
    var all: [String] { lock.withLock { lines } }
    var output: ConsoleOutput {
        ConsoleOutput { [self] _, text in
            let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
                lines.append(text)
                let done = waiters.filter { $0.text == text }.map(\.continuation)
                waiters.removeAll { $0.text == text }
                return done
            }
            for continuation in ready { continuation.resume() }
        }
    }

    /// Returns once `text` has been written (the caller's test has its own deadline).
    func wait(for text: String) async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if lines.contains(text) { return true }
                waiters.append((text, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

@Suite("WebPage", .timeLimit(.minutes(5)))
struct WebPageTests {
    @Test func aDocumentLoadsInOrderWithItsEvents() async throws {
        var configuration = WebPageConfiguration()
        configuration.userContentController.addUserScript(UserScript(source: "var log = ['start:' + document.readyState]", injectionTime: .atDocumentStart))
        configuration.userContentController.addUserScript(UserScript(source: "log.push('end:' + document.readyState)", injectionTime: .atDocumentEnd))
        configuration.requestPolicy = RequestPolicy(allowedHosts: [])  // the src script is refused, never fetched
        try await using(try WebPage(configuration: configuration)) { page in
            let result = try await page.load(html: """
                <!doctype html><html><head><title>t</title>
                <script>log.push('first');
                  document.addEventListener('DOMContentLoaded', function (e) { log.push('dcl@document:' + (e.target === document) + ':' + document.readyState) });
                  window.addEventListener('DOMContentLoaded', function (e) { log.push('dcl@window:' + (e.target === document) + ':' + e.eventPhase) });
                  window.onload = function (e) { log.push('onload:' + document.readyState + ':' + (e.target === window)) };
                  addEventListener('load', function () { log.push('load listener') });
                </script>
                <!-- <script>log.push('in a comment')</script> -->
                <SCRIPT type="text/javascript">log.push('second')</SCRIPT>
                <script type="module">log.push('module')</script>
                <script type="application/json">{"data": true}</script>
                <script src="app.js?a=1&amp;b=2"></script>
                <script language="javascript">log.push('third')</script>
                </head><body></body></html>
                """, baseURL: URL(string: "https://app.example:8443/dir/index.html?q=1#top"))
            let log = try await page.evaluateJavaScript("log.join(' | ')") as? String
            // WebKit's order: DOMContentLoaded, then the user scripts at document end (which see
            // "interactive"), then load.
            #expect(log == "start:loading | first | second | third | dcl@document:true:interactive | dcl@window:true:3 | end:interactive | load listener | onload:complete:true")
            #expect(result.scriptErrors.isEmpty)
            #expect(result.skippedScripts.map(\.index) == [2, 3, 4])
            #expect(result.skippedScripts.map(\.reason) == [
                "type=\"module\": modules are not supported", "type \"application/json\" is not JavaScript",
                "src=\"app.js?a=1&b=2\": https://app.example:8443/dir/app.js?a=1&b=2 is refused by the page's request policy: host app.example:8443 is not in allowedHosts",
            ])
            #expect(try await page.evaluateJavaScript("document.readyState") as? String == "complete")
            #expect(page.url?.host == "app.example")
        }
    }

    @Test func locationAndNavigatorDescribeThePage() async throws {
        var configuration = WebPageConfiguration()
        configuration.userAgent = "TestAgent/2.0"
        try await using(try WebPage(configuration: configuration)) { page in
            #expect(try await page.evaluateJavaScript("location.href") as? String == "about:blank")
            try await page.load(html: "", baseURL: URL(string: "https://user@App.Example:8443/dir/index.html?q=1#top"))
            let parts = try await page.evaluateJavaScript("""
                [location.href, location.origin, location.protocol, location.host, location.hostname, location.port,
                 location.pathname, location.search, location.hash, String(location), navigator.userAgent, location.username].join(' ')
                """) as? String
            #expect(parts == "https://user@app.example:8443/dir/index.html?q=1#top https://app.example:8443 https: app.example:8443 app.example 8443 /dir/index.html ?q=1 #top https://user@app.example:8443/dir/index.html?q=1#top TestAgent/2.0 ")
            // Read-only: assignments change nothing.
            #expect(try await page.evaluateJavaScript("location.href = 'https://elsewhere/'; window.location = 5; document = 1; location.host") as? String == "app.example:8443")
        }
    }

    @Test func scriptsThatThrowDoNotStopTheLoad() async throws {
        let console = ConsoleLines()
        var configuration = WebPageConfiguration()
        configuration.consoleOutput = console.output
        // 0.5 s stops the endless script; under a sanitizer (`make test`, `make test-sanitize`)
        // the page's ordinary entries can take that long on a loaded machine (a ThreadSanitizer
        // run failed here with "execution timeout" on a trivial call).
        configuration.executionTimeLimit = runsUnderASanitizer ? 5 : 0.5
        try await using(try WebPage(configuration: configuration)) { page in
            let result = try await page.load(html: """
                <script>var ran = ['a']; throw new TypeError('broken')</script>
                <script>ran.push('b'); while (true) {}</script>
                <script>ran.push('c'); function (</script>
                <script>ran.push('d')</script>
                """, baseURL: nil)
            #expect(try await page.evaluateJavaScript("ran.join()") as? String == "a,b,d")
            #expect(result.scriptErrors.count == 3)
            if case .javaScriptException(let name, let message, _, _, _) = result.scriptErrors.first {
                #expect(name == "TypeError" && message == "broken")
            }
            if case .javaScriptException(let name, _, _, _, _) = result.scriptErrors.last { #expect(name == "SyntaxError") }
            #expect(console.all.count == 3 && console.all.allSatisfy { $0.hasPrefix("Uncaught ") })
            // An exception in a timer goes to the console too.
            _ = try await page.evaluateJavaScript("setTimeout(function () { throw new RangeError('late') }, 0)")
            _ = try await page.callAsyncJavaScript("return new Promise(function (resolve) { setTimeout(resolve, 5) })")
            #expect(console.all.last?.contains("RangeError: late") == true)
        }
    }

    @Test func evaluateJavaScriptConvertsAsWebKitDoes() async throws {
        try await using(try WebPage()) { page in
            #expect(try await page.evaluateJavaScript("1 + 2") as? Int == 3)
            #expect(try await page.evaluateJavaScript("'a\\u0000😀'") as? String == "a\u{0}😀")
            #expect(try await page.evaluateJavaScript("undefined") == nil)
            #expect(try await page.evaluateJavaScript("null") is NSNull)
            let object = try await page.evaluateJavaScript("({ list: [1, 'two', true], when: new Date(1500) })") as? [String: Any]
            #expect((object?["list"] as? [Any])?.count == 3)
            #expect((object?["when"] as? Date)?.timeIntervalSince1970 == 1.5)
            await #expect(throws: WebPageError.unsupportedResultType("function")) { try await page.evaluateJavaScript("(function () {})") }
            await #expect(throws: WebPageError.unsupportedResultType("promise")) { try await page.evaluateJavaScript("Promise.resolve(1)") }
            do {
                _ = try await page.evaluateJavaScript("null.property")
                Issue.record("no error")
            } catch let error as WebPageError {
                guard case .javaScriptException(let name, let message, _, let line, _) = error else { Issue.record("\(error)"); return }
                #expect(name == "TypeError" && line == 1)
                // A sentence a person can read, also as `localizedDescription` (no bare "1: ").
                #expect(error.description == "TypeError: \(message) (line 1)")
                #expect(error.localizedDescription == error.description)
            }
            #expect(WebPageError.javaScriptException(name: "Error", message: "m", sourceURL: "app.js", line: 3, stack: nil).description
                == "app.js:3: Error: m")
            #expect(WebPageError.javaScriptException(name: "", message: "thrown 42", sourceURL: nil, line: nil, stack: nil).description
                == "thrown 42")
            let received = await withCheckedContinuation { continuation in
                page.evaluateJavaScript("'via completion'") { result, error in continuation.resume(returning: (result as? String) ?? "\(String(describing: error))") }
            }
            #expect(received == "via completion")
        }
    }

    /// Issue 32, class 1: a page call stopped by the time limit with jobs queued behind it once
    /// held the page's VM forever, so that the page could never be closed.
    @Test(.timeLimit(.minutes(2)), arguments: [
        "Promise.resolve().then(function () {}); for (;;) { Math.abs(1) }",
        "Promise.resolve().then(function () {}); return /(a+)+b/.test('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')",
        "return new Promise(function () { Promise.resolve().then(function () {}); for (;;) {} })",
    ])
    func aTimedOutCallWithQueuedJobsLeavesThePageUsable(body: String) async throws {
        var configuration = WebPageConfiguration()
        configuration.executionTimeLimit = 1  // whole seconds: a loaded machine must not time out the call after it
        try await using(try WebPage(configuration: configuration)) { page in
            do {
                _ = try await page.callAsyncJavaScript(body)
                Issue.record("no timeout")
            } catch WebPageError.javaScriptException(_, let message, _, _, _) {
                #expect(message == "execution timeout")
            }
            #expect(try await page.callAsyncJavaScript("return 6 * 7") as? Int == 42)
        }
    }

    /// Page scripts and user scripts in modern syntax run (lowered), and their errors name the
    /// page's lines.
    @Test(.enabled(if: JSTranspiler.isAvailable, "node-typescript is not installed"))
    func modernPageAndUserScriptsRun() async throws {
        let configuration = WebPageConfiguration()
        configuration.userContentController.addUserScript(UserScript(source: "const log = []; const note = (m) => log.push(`user:${m}`);", injectionTime: .atDocumentStart))
        try await using(try WebPage(configuration: configuration)) { page in
            _ = try await page.load(html: """
                <script>
                  class Greeter { #name; constructor(n) { this.#name = n } hello() { return `hi ${this.#name}` } }
                  note(new Greeter('page').hello());
                  const { a, ...rest } = { a: 1, b: 2 };
                  log.push(Object.keys(rest).join() + (a ?? 0));
                </script>
                """, baseURL: URL(string: "https://app.example/index.html"))
            #expect(try await page.evaluateJavaScript("log.join('|')") as? String == "user:hi page|b1")
        }
    }

    /// WebKit runs the body as an async function's: `await` and the rest of modern syntax work
    /// (lowered); a body that closes its function is refused with none of it run.
    @Test(.enabled(if: JSTranspiler.isAvailable, "node-typescript is not installed"))
    func callAsyncJavaScriptBodiesCanAwait() async throws {
        try await using(try WebPage()) { page in
            let body = "const v = await new Promise((resolve) => setTimeout(() => resolve(a), 5));\nreturn `${v * 2}`"
            #expect(try await page.callAsyncJavaScript(body, arguments: ["a": 21]) as? String == "42")
            do {
                _ = try await page.callAsyncJavaScript("await null; throw new TypeError(`bad ${x}`)", arguments: ["x": 1])
                Issue.record("no error")
            } catch WebPageError.javaScriptException(let name, let message, _, _, _) {
                #expect(name == "TypeError" && message == "bad 1")
            }
            for escape in [
                "await 1; }); globalThis.escaped = 1; (async function () {",
                "}, globalThis.escaped = (() => 1)(), function () {",
                "return 1 }); globalThis.escaped = 1; (function () {",
            ] {
                await #expect(throws: WebPageError.self) { try await page.callAsyncJavaScript(escape) }
            }
            #expect(try await page.evaluateJavaScript("typeof escaped") as? String == "undefined")
        }
    }

    /// The completion-handler form calls a `@MainActor` closure on the main actor (WebKit's main
    /// thread), and a nonisolated one elsewhere; both get the result or the error.
    @MainActor @Test func evaluateJavaScriptsHandlerRunsInItsIsolation() async throws {
        let page = try WebPage()
        let (onMain, result) = await withCheckedContinuation { (done: CheckedContinuation<(Bool, String), Never>) in
            page.evaluateJavaScript("6 * 7") { @MainActor result, error in
                done.resume(returning: (isOnTheMainQueue(), error.map { "\($0)" } ?? "\(result as? Int ?? -1)"))
            }
        }
        #expect(onMain && result == "42")
        let failure = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            page.evaluateJavaScript("null.x") { result, error in
                done.resume(returning: isOnTheMainQueue() ? "on the main queue" : "\(error.map { "\($0)" } ?? "no error")")
            }
        }
        #expect(failure.contains("TypeError"), "\(failure)")
        await page.shutdown()
    }

    @Test func callAsyncJavaScriptPassesValuesAndAwaitsPromises() async throws {
        try await using(try WebPage()) { page in
            #expect(try await page.callAsyncJavaScript("return a + b", arguments: ["a": 1, "b": 2]) as? Int == 3)
            // Values are values: source-looking strings are never evaluated.
            let hostile = "'); throw new Error('injected'); ('"
            #expect(try await page.callAsyncJavaScript("return text.length", arguments: ["text": hostile]) as? Int == hostile.utf16.count)
            #expect(try await page.callAsyncJavaScript(
                "return new Promise(function (resolve) { setTimeout(function () { resolve(label + '!') }, 10) })", arguments: ["label": "done"]) as? String
                == "done!")
            let nested = try await page.callAsyncJavaScript("return Object.keys(o).sort().join() + ':' + o.list[1]", arguments: ["o": ["x": 1, "list": [1, 2]]])
            #expect(nested as? String == "list,x:2")
            do {
                _ = try await page.callAsyncJavaScript("return Promise.reject(new RangeError('no'))")
                Issue.record("no error")
            } catch WebPageError.javaScriptException(let name, let message, _, _, _) {
                #expect(name == "RangeError" && message == "no")
            }
            for name in ["a b", "1x", "", "x-y", "a;b"] {
                await #expect(throws: WebPageError.invalidArgumentName(name)) { try await page.callAsyncJavaScript("return 1", arguments: [name: 1]) }
            }
            await #expect(throws: WebPageError.self) { try await page.callAsyncJavaScript("return 1", arguments: ["if": 1]) }
        }
    }

    /// A body is compiled once per parameter list (a loader calls the same body every request):
    /// the same body called again gets its new arguments, the same body with other parameter
    /// names is its own function, more bodies than the cache keeps all still run, a refused
    /// body is refused every time, and a result that is not a promise (a function, a symbol) is
    /// refused as before.
    @Test func callAsyncJavaScriptCompilesABodyOnceAndStillGetsEachCallsArguments() async throws {
        try await using(try WebPage()) { (page: WebPage) async throws -> Void in
            for value in 0..<5 {
                #expect(try await page.callAsyncJavaScript("return a * 2", arguments: ["a": value]) as? Int == value * 2)
            }
            #expect(try await page.callAsyncJavaScript("return typeof a + ':' + b", arguments: ["b": 7]) as? String == "undefined:7")
            let count = WebPage.CompiledBodies.maximumCount + 8
            for index in 0..<count {
                #expect(try await page.callAsyncJavaScript("return n + \(index)", arguments: ["n": 1]) as? Int == index + 1)
            }
            #expect(try await page.callAsyncJavaScript("return n + 0", arguments: ["n": 41]) as? Int == 41)
            for _ in 0..<2 {
                await #expect(throws: WebPageError.self) { try await page.callAsyncJavaScript("return 1 }); (function () {") }
                await #expect(throws: WebPageError.unsupportedResultType("function")) {
                    try await page.callAsyncJavaScript("return function () {}")
                }
            }
            // A body past the size the cache keeps still runs, every time.
            let large = "return '" + String(repeating: "x", count: WebPage.CompiledBodies.maximumBodyBytes) + "'.length + k"
            for k in 0..<2 {
                #expect(try await page.callAsyncJavaScript(large, arguments: ["k": k]) as? Int == WebPage.CompiledBodies.maximumBodyBytes + k)
            }
        }
    }

    /// A page whose `bridge` handler puts every message in the inbox, shut down after `body`.
    private func withBridgePage(_ body: (WebPage, Inbox) async throws -> Void) async throws {
        let inbox = Inbox()
        let configuration = WebPageConfiguration()
        configuration.userContentController.add(name: "bridge") { inbox.receive($0) }
        try await using(try WebPage(configuration: configuration)) { page in try await body(page, inbox) }
    }

    @Test func messagesReachTheirHandlersInOrderWithWebKitsConversions() async throws {
        try await withBridgePage { page, inbox in
            _ = try await page.evaluateJavaScript("""
                webkit.messageHandlers.bridge.postMessage({ text: 'hi', n: 2.5, flag: true, none: null, skipped: undefined,
                    when: new Date(2000), bytes: new Uint8Array([1, 2, 3]).subarray(1), buffer: new Uint16Array([258]).buffer,
                    error: new TypeError('bad'), list: [1, [2, { deep: 'x' }]] });
                for (var i = 0; i < 100; i++) webkit.messageHandlers.bridge.postMessage(i);
                """)
            await inbox.wait(for: 101)
            let body = try #require(inbox.all.first?.body as? [String: Any])
            #expect(body["text"] as? String == "hi" && body["n"] as? Double == 2.5 && body["flag"] as? Bool == true)
            #expect(body["none"] is NSNull && body.keys.contains("skipped") == false)
            #expect((body["when"] as? Date)?.timeIntervalSince1970 == 2)
            #expect(body["bytes"] as? Data == Data([2, 3]) && body["buffer"] as? Data == Data([2, 1]))
            #expect((body["error"] as? [String: Any])?["name"] as? String == "TypeError")
            #expect((body["error"] as? [String: Any])?["message"] as? String == "bad")
            #expect(inbox.all.dropFirst().map { ($0.body as? Int) ?? -1 } == Array(0..<100))
            #expect(inbox.all.allSatisfy { $0.name == "bridge" })
            // What cannot be sent is a TypeError in the page.
            let refused = try await page.evaluateJavaScript("""
                var cyclic = {}; cyclic.self = cyclic;
                var loop = [1]; loop.push([loop]);
                [function () {}, Symbol('s'), { f: function () {} }, cyclic, loop].map(function (v) {
                    try { webkit.messageHandlers.bridge.postMessage(v); return 'sent' } catch (e) { return e.name }
                }).join() + ',' + (function () { try { webkit.messageHandlers.bridge.postMessage() } catch (e) { return e.name } })()
                """) as? String
            #expect(refused == "TypeError,TypeError,TypeError,TypeError,TypeError,TypeError")
            #expect(inbox.all.count == 101)
            // An array is copied as an array whatever its prototype (structured cloning looks at
            // what a value is), and the same array twice is no cycle.
            _ = try await page.evaluateJavaScript("""
                var odd = [1, 'two']; Object.setPrototypeOf(odd, Error.prototype);
                webkit.messageHandlers.bridge.postMessage([odd, odd]);
                """)
            await inbox.wait(for: 102)
            #expect(inbox.all.last?.body as? [[AnyHashable]] == [[1, "two"], [1, "two"]])
            // Holes arrive as null, trailing ones too; and the host's conversion never reads
            // through a prototype: a getter defined on Array.prototype while the copy is made
            // (by a getter of an element) is not run for the hole after it.
            let calls = try await page.evaluateJavaScript("""
                var calls = 0;
                var sneaky = { get x() {
                    Object.defineProperty(Array.prototype, '1', { get: function () { calls++; return 'inherited'; }, configurable: true });
                    return 1;
                } };
                webkit.messageHandlers.bridge.postMessage([sneaky, , 3]);
                delete Array.prototype[1];
                webkit.messageHandlers.bridge.postMessage([1, , 3, , ]);
                webkit.messageHandlers.bridge.postMessage(new Array(2));
                calls
                """) as? Int
            #expect(calls == 0)
            await inbox.wait(for: 105)
            let holes = inbox.all.suffix(3).map { $0.body as? [Any] ?? [] }
            #expect(holes.map(\.count) == [3, 4, 2])
            #expect(holes[0].first as? [String: Any] != nil && holes[0][1] is NSNull && holes[0][2] as? Int == 3)
            #expect(holes[1][1] is NSNull && holes[1][2] as? Int == 3 && holes[1][3] is NSNull)
            #expect(holes[2].allSatisfy { $0 is NSNull })
        }
    }

    @Test func handlersWithAReplySettleThePromise() async throws {
        let configuration = WebPageConfiguration()
        configuration.userContentController.addWithReply(name: "sum") { message in
            (message.body as? [Any] ?? []).compactMap { $0 as? Int }.reduce(0, +)
        }
        configuration.userContentController.addWithReply(name: "fail") { message in
            struct Secret: Error, CustomStringConvertible { var description: String { "/etc/secret: permission denied" } }
            if message.body as? String == "x" { throw ScriptMessageReplyError("refused by the host") }
            throw Secret()
        }
        try await using(try WebPage(configuration: configuration)) { page in
            let sum = try await page.callAsyncJavaScript("return webkit.messageHandlers.sum.postMessage([1, 2, 39])")
            #expect(sum as? Int == 42)
            let failure = try await page.callAsyncJavaScript("""
                return webkit.messageHandlers.fail.postMessage('x').then(function () { return 'fulfilled' }, function (e) { return e.name + ': ' + e.message })
                """)
            #expect(failure as? String == "Error: refused by the host")
            // Any other error's description stays in the host.
            let generic = try await page.callAsyncJavaScript("""
                return webkit.messageHandlers.fail.postMessage('y').then(null, function (e) { return e.message })
                """)
            #expect(generic as? String == "the message handler failed")
            // Handlers added and removed while the page lives.
            configuration.userContentController.add(name: "late") { _ in }
            #expect(try await page.evaluateJavaScript("typeof webkit.messageHandlers.late.postMessage") as? String == "function")
            configuration.userContentController.removeScriptMessageHandler(forName: "late")
            #expect(try await page.evaluateJavaScript("webkit.messageHandlers.late === undefined") as? Bool == true)
            #expect(try await page.evaluateJavaScript("Object.keys(webkit.messageHandlers).sort().join()") as? String == "fail,sum")
        }
    }

    @Test func hostilePagesCannotBreakTheHost() async throws {
        let inbox = Inbox()
        let configuration = WebPageConfiguration()
        configuration.userContentController.add(name: "bridge") { inbox.receive($0) }
        configuration.userContentController.addWithReply(name: "echo") { $0.body }
        try await using(try WebPage(configuration: configuration)) { page in
            try await page.load(html: """
                <script>
                var post = webkit.messageHandlers.bridge.postMessage;
                webkit = null; JSON = null; Array.prototype.concat = null; Reflect.apply = null; Function = null; Promise = null;
                Object.defineProperty(Array.prototype, '0', { set: function () { throw new Error('setter') }, configurable: true });
                Object.prototype.then = function () { throw new Error('thenable') };
                post({ still: 'works' });
                </script>
                """, baseURL: nil)
            await inbox.wait(for: 1)
            #expect((inbox.all.first?.body as? [String: Any])?["still"] as? String == "works")
            #expect(try await page.callAsyncJavaScript("return [a, b].length", arguments: ["a": 1, "b": 2]) as? Int == 2)
            #expect(try await page.evaluateJavaScript("document.readyState") as? String == "complete")
        }
    }

    @Test func theScannerFindsScriptsAsTheHTMLTokenizerDoes() {
        func texts(_ html: String) -> [String] { HTMLScript.scripts(in: html).map(\.text) }
        // Documents that end inside a tag, an attribute or a script: no crash, nothing run.
        for cut in ["<script", "<script src='x", "<script a", "<script>never ended", "<p title=\"<script>", "<!-- <script>x()</script>",
                    "<", "</", "<!", "<scr"] {
            #expect(texts(cut).isEmpty, "\(cut)")
        }
        #expect(texts("<p title=\"<script>steal()</script>\">text</p><script>ok()</script>") == ["ok()"])
        #expect(texts("<textarea><script>no()</script></textarea><title><script>no()</script></title><script>yes()</script>") == ["yes()"])
        #expect(texts("<script>var s = \"</script\" + \">\"</script>") == ["var s = \"</script\" + \">\""])
        #expect(texts("<script>a = '</scripts>'; b()</script >") == ["a = '</scripts>'; b()"])
        #expect(texts("<!--><script>one()</script><!---><script>two()</script><!-- x --!><script>three()</script>") == ["one()", "two()", "three()"])
        #expect(texts("<!doctype html><?xml x?><SCRIPT>upper()</SCRIPT><scriptx>no</scriptx>") == ["upper()"])
        #expect(texts("<template><script>inert()</script><template></template></template><script>live()</script>") == ["live()"])
        #expect(texts("<plaintext><script>text()</script>").isEmpty)
        let attributes = HTMLScript.scripts(in: "<script SRC='a.js?x=1&amp;y=&#x32;&#51;' type=module defer async=\"\">").first
        #expect(attributes == nil)  // no end tag: not run
        let typed = HTMLScript.scripts(in: "<script SRC='a.js?x=1&amp;y=&#x32;&#51;' type=module defer></script>").first
        #expect(typed?.source == "a.js?x=1&y=23" && typed?.kind == .module && typed?.attributes["defer"] == "")
        #expect(HTMLScript.scripts(in: "<script type='' language='vbscript'></script>").first?.kind == .classic)
        #expect(HTMLScript.scripts(in: "<script language='vbscript'></script>").first?.kind == .other("language=vbscript"))
        // Linear: a long run of character references in an attribute.
        let references = "<script data-x=\"" + String(repeating: "&", count: 300_000) + "\"></script>"
        #expect(HTMLScript.scripts(in: references).first?.attributes["data-x"]?.count == 300_000)
    }

    @Test func messageCopiesCarryOnlyOwnDataWithinLimits() async throws {
        try await withBridgePage { page, inbox in
            let outcome = try await page.evaluateJavaScript("""
                Object.prototype.admin = true;
                webkit.messageHandlers.bridge.postMessage({ user: 'x' });
                var deep = 0; for (var i = 0; i < 300; i++) deep = [deep];
                var wide = new Array(2000000);
                [deep, wide].map(function (v) { try { webkit.messageHandlers.bridge.postMessage(v); return 'sent' } catch (e) { return e.name } }).join()
                """) as? String
            #expect(outcome == "TypeError,TypeError")
            await inbox.wait(for: 1)
            #expect((inbox.all.first?.body as? [String: Any]).map { Array($0.keys) } == ["user"])
            // Results are copied the same way.
            let result = try await page.evaluateJavaScript("({ own: 1 })") as? [String: Any]
            #expect(result.map { Array($0.keys) } == ["own"])
        }
    }

    /// Plain data is copied natively (`NativeHelper.plainDataCopy`), anything else by page.js:
    /// the handler gets the same body either way, and a value whose copy needs script (a Date
    /// beside the data) still arrives whole.
    @Test func plainAndScriptCopiesCarryTheSameData() async throws {
        try await withBridgePage { page, inbox in
            _ = try await page.evaluateJavaScript("""
                var data = JSON.parse('{"items":[{"id":1,"name":"a","tags":["x","y"]},{"id":2.5,"name":null,"ok":false}],"n":-0,"s":"\\ud800"}');
                webkit.messageHandlers.bridge.postMessage({ data: data });
                webkit.messageHandlers.bridge.postMessage({ data: data, when: new Date(0) });
                webkit.messageHandlers.bridge.postMessage([data, [1, , 3]]);
                0
                """)
            await inbox.wait(for: 3)
            let bodies = inbox.all.map(\.body)
            let plain = (bodies[0] as? [String: Any])?["data"] as? NSDictionary
            let scripted = (bodies[1] as? [String: Any])?["data"] as? NSDictionary
            #expect(plain != nil && plain == scripted)
            #expect((bodies[1] as? [String: Any])?["when"] as? Date == Date(timeIntervalSince1970: 0))
            let holed = bodies[2] as? [Any]
            #expect((holed?.first as? NSDictionary) == plain && (holed?.last as? [Any])?.count == 3)
        }
    }

    /// What a script does to the built-ins changes both copies alike: a Symbol.hasInstance of
    /// its own is never asked (kinds go by prototype), and a tag Object.prototype inherits
    /// makes plain objects what the tag says in the native copy's absence as in page.js's.
    @Test func tamperedBuiltInsChangeBothCopiesAlike() async throws {
        try await withBridgePage { page, inbox in
            let asked = try await page.evaluateJavaScript("""
                var asked = 0;
                [ArrayBuffer, Error].forEach(function (C) {
                    Object.defineProperty(C, Symbol.hasInstance, { value: function () { asked++; return true; } });
                });
                webkit.messageHandlers.bridge.postMessage({ a: 1 });
                webkit.messageHandlers.bridge.postMessage({ a: 1, d: new Date(0) });
                asked
                """) as? Int
            #expect(asked == 0)
            await inbox.wait(for: 2)
            #expect((inbox.all[0].body as? [String: Any])?["a"] as? Int == 1)
            #expect((inbox.all[1].body as? [String: Any])?["a"] as? Int == 1)
            _ = try await page.evaluateJavaScript("""
                var tagged = Object.create(null); tagged[Symbol.toStringTag] = 'Error';
                Object.setPrototypeOf(Object.prototype, tagged);
                webkit.messageHandlers.bridge.postMessage({ a: 1 });
                webkit.messageHandlers.bridge.postMessage({ a: 1, d: new Date(0) });
                0
                """)
            await inbox.wait(for: 4)
            let keys = inbox.all[2...].map { ($0.body as? [String: Any]).map { Set($0.keys) } }
            #expect(keys == [["name", "message"], ["name", "message"]])
        }
    }

    @Test func aListenerThatTimesOutIsAnErrorOfTheLoad() async throws {
        var configuration = WebPageConfiguration()
        // Each step of the load has this much (0.3 s was too little for the others under
        // AddressSanitizer with the whole suite on two cores).
        configuration.executionTimeLimit = 1
        configuration.consoleOutput = ConsoleOutput { _, _ in }
        try await using(try WebPage(configuration: configuration)) { page in
            let result = try await page.load(html: """
                <script>document.addEventListener('DOMContentLoaded', function () { while (true) {} });
                window.onload = function () { window.loaded = true }</script>
                """, baseURL: nil)
            #expect(result.scriptErrors.count == 1)
            #expect(try await page.evaluateJavaScript("[document.readyState, window.loaded].join()") as? String == "complete,true")
            await #expect(throws: WebPageError.invalidArgumentName("return")) { try await page.callAsyncJavaScript("return 1", arguments: ["return": 1]) }
        }
    }

    @Test func closingCancelsRepliesAndReleasesTheContext() async throws {
        weak var released: JSContext?
        let started = Inbox()
        let configuration = WebPageConfiguration()
        configuration.userContentController.addWithReply(name: "never") { message in
            started.receive(message)
            while !Task.isCancelled { await Task.yield() }
            return nil
        }
        do {
            let page = try WebPage(configuration: configuration)
            released = page.context
            _ = try await page.evaluateJavaScript("webkit.messageHandlers.never.postMessage(1); 0")
            await started.wait(for: 1)
            page.close()
        }
        #expect(released == nil)
    }

    /// Also after `close()`, which returns without waiting. The reply handler outlives its
    /// cancellation until the test opens a gate: shutdown() has not returned before that.
    @Test(.timeLimit(.minutes(3)), arguments: [false, true])
    func shutdownReturnsOnceRequestsAndRepliesHaveEnded(closedFirst: Bool) async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        weak var released: JSContext?
        let (started, cancelled, gate) = (Inbox(), Inbox(), Gate())
        let returned = Guarded(false)
        var configuration = WebPageConfiguration()
        configuration.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1"])
        configuration.userContentController.addWithReply(name: "slow") { message in
            started.receive(message)
            await Gate.untilCancelled()
            cancelled.receive(message)
            await gate.wait()
            returned.withLock { $0 = true }
            return nil
        }
        do {
            let page = try WebPage(configuration: configuration)
            released = page.context
            _ = try await page.callAsyncJavaScript(
                "fetch(url); webkit.messageHandlers.slow.postMessage(1); return 0", arguments: ["url": server.baseURL + "/hang"])
            await started.wait(for: 1)
            try await server.wait { $0.received.contains { $0.path == "/hang" } }
            if closedFirst { page.close() }
            let finished = Guarded(false)
            let shutdown = Task {
                await page.shutdown()
                finished.withLock { $0 = true }
            }
            await cancelled.wait(for: 1)
            #expect(!finished.withLock { $0 })
            gate.open()
            await shutdown.value
            #expect(returned.withLock { $0 })
            #expect(page.network.activity.isIdle)
            await #expect(throws: WebPageError.closed) { try await page.evaluateJavaScript("1") }
            await page.shutdown()  // a second call returns at once
        }
        // The last references go as the ended tasks' frames are freed, just after they return.
        let deadline = ContinuousClock.now + .seconds(10)
        while released != nil, ContinuousClock.now < deadline { await Task.yield() }
        #expect(released == nil)
    }

    /// Two reply handlers that both shut their page down both return (each waits for the
    /// other only while it is not waiting itself).
    @Test(.timeLimit(.minutes(3))) func replyHandlersCanShutTheirPageDown() async throws {
        let holder = Guarded<WebPage?>(nil)
        let started = Inbox()
        let returned = Guarded(0)
        let configuration = WebPageConfiguration()
        configuration.userContentController.addWithReply(name: "quit") { message in
            started.receive(message)
            await started.wait(for: 2)
            await holder.withLock { $0 }?.shutdown()
            returned.withLock { $0 += 1 }
            return "shut down"
        }
        let page = try WebPage(configuration: configuration)
        holder.withLock { $0 = page }
        _ = try await page.evaluateJavaScript("webkit.messageHandlers.quit.postMessage(1); webkit.messageHandlers.quit.postMessage(2); 0")
        await started.wait(for: 2)
        await page.shutdown()  // waits for both handlers, which returned
        #expect(returned.withLock { $0 } == 2)
        holder.withLock { $0 = nil }
    }

    @Test func aClosedPageFailsAndIsReleased() async throws {
        weak var released: WebPage?
        do {
            let page = try WebPage()
            released = page
            try await page.load(html: "<script>setInterval(function () {}, 1)</script>", baseURL: nil)
            page.close()
            await #expect(throws: WebPageError.closed) { try await page.evaluateJavaScript("1") }
            await #expect(throws: WebPageError.closed) { try await page.load(html: "", baseURL: nil) }
        }
        #expect(released == nil)
    }
}
