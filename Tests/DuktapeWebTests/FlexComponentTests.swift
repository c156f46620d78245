import DuktapeCore
import DuktapeRuntime
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// FlexComponent (`$flex`) on real pages: interfaces, actions, timeouts, `$flex.web`, the
/// flexload ordering, values both ways, the URL gate on every message, and hostile pages.
@Suite("FlexComponent", .timeLimit(.minutes(2)))
struct FlexComponentTests {
    static let app = URL(string: "http://app.test/index.html")
    static let elsewhere = URL(string: "http://elsewhere.test/index.html")
    /// `report(value)` posts to the test's handler `m`.
    static let prelude = "<script>function report(value) { webkit.messageHandlers.m.postMessage(value); }</script>"

    /// A page with `component` attached (configured by `configure` first), allowed on
    /// http://app.test/ and 127.0.0.1, whose `report` messages arrive in the inbox.
    func withFlex(
        _ configure: (FlexComponent) throws -> Void,
        _ body: (WebPage, FlexComponent, Inbox, ConsoleLines) async throws -> Void
    ) async throws {
        let component = FlexComponent()
        try component.setBaseUrl("http://(app\\.test|127\\.0\\.0\\.1:[0-9]+)/.*")
        try configure(component)
        let inbox = Inbox(), console = ConsoleLines()
        var configuration = WebPageConfiguration()
        configuration.consoleOutput = console.output
        configuration.httpCache = nil
        configuration.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1"])
        configuration.userContentController.add(name: "m") { inbox.receive($0) }
        try await using(try WebPage(configuration: configuration)) { page in
            try component.attach(to: page)
            try await body(page, component, inbox, console)
        }
    }

    func bodies(_ inbox: Inbox) -> [[AnyHashable]] {
        inbox.all.map { $0.body as? [AnyHashable] ?? [] }
    }

    // MARK: - Interfaces

    @Test func interfacesAnswerWithAValueNothingOrARejection() async throws {
        struct Private: Error {}
        try await withFlex({ component in
            try component.setInterface("add") { arguments in arguments.compactMap { ($0 as? NSNumber)?.doubleValue }.reduce(0, +) }
            try component.setInterface("nothing") { _ in () }
            try component.setInterface("refuse") { _ in throw FlexReject("not today") }
            try component.setInterface("fail") { _ in throw Private() }
            try component.setInterface("later") { arguments in
                await Task.yield()
                return "async \(arguments.count)"
            }
        }) { page, _, inbox, _ in
            try await page.load(html: Self.prelude + """
                <script>
                function settle(name, promise) {
                    promise.then(function (v) { report([name, 'ok', v === undefined ? 'undefined' : v]) },
                                 function (e) { report([name, 'error', e instanceof Error, e.message]) });
                }
                settle('add', $flex.add(1, 2, 3.5));
                settle('nothing', $flex.nothing());
                settle('refuse', $flex.refuse());
                settle('fail', $flex.fail());
                settle('later', $flex.later(1, 2));
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 5)
            let answers = Dictionary(bodies(inbox).map { ($0[0] as? String ?? "", Array($0.dropFirst())) }, uniquingKeysWith: { a, _ in a })
            #expect(answers["add"] == ["ok", 6.5])
            #expect(answers["nothing"] == ["ok", "undefined"])
            #expect(answers["refuse"] == ["error", true, "not today"])
            // Another error's description never reaches the page.
            #expect(answers["fail"] == ["error", true, "$flex.fail failed"])
            #expect(answers["later"] == ["ok", "async 2"])
        }
    }

    struct Point: Codable, Equatable {
        var x: Double
        var y: Double
    }

    @Test func typedInterfacesDecodeTheirArgumentAndEncodeTheirResult() async throws {
        try await withFlex({ component in
            try component.setInterface("mirror", argument: Point.self) { point in Point(x: -point.x, y: point.y) }
        }) { page, _, inbox, _ in
            try await page.load(html: Self.prelude + """
                <script>
                $flex.mirror({ x: 1, y: 2 }).then(function (p) { report(['ok', p.x, p.y]) });
                $flex.mirror({ x: 'one' }).then(null, function (e) { report(['bad', e.message]) });
                $flex.mirror().then(null, function (e) { report(['missing', e.message.length > 0]) });
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 3)
            let all = bodies(inbox)
            #expect(all.contains(["ok", -1, 2]))
            let bad = try #require(all.first { ($0.first as? String) == "bad" })
            #expect((bad[1] as? String)?.hasPrefix("$flex.mirror: the argument is not a Point: expected Double at \"x\"") == true)
            #expect(all.contains(["missing", true]))
        }
    }

    // MARK: - Actions

    @Test func actionsSettleOnceLaterAndADroppedOneRejects() async throws {
        let second = Guarded<Bool?>(nil)
        try await withFlex({ component in
            try component.setAction("pick") { action, arguments in
                let choice = arguments.first as? String ?? ""
                Task {
                    action.resolve(choice.uppercased())
                    second.withLock { $0 = action.reject("too late") }
                }
            }
            try component.setAction("empty") { action, _ in Thread.detachNewThread { action.resolveVoid() } }
            try component.setAction("no") { action, _ in action.reject("declined") }
            try component.setAction("dropped") { _, _ in }
        }) { page, _, inbox, console in
            try await page.load(html: Self.prelude + """
                <script>
                $flex.pick('blue').then(function (v) { report(['pick', v]) });
                $flex.empty().then(function (v) { report(['empty', v === undefined]) });
                $flex.no().then(null, function (e) { report(['no', e.message]) });
                $flex.dropped().then(null, function (e) { report(['dropped', e.message]) });
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 4)
            let all = bodies(inbox)
            #expect(all.contains(["pick", "BLUE"]) && all.contains(["empty", true]) && all.contains(["no", "declined"]))
            #expect(all.contains(["dropped", "$flex.dropped: the action was never settled"]))
            #expect(second.withLock { $0 } == false)
            #expect(console.all.contains("$flex.pick: the action was already settled; this answer is ignored"))
        }
    }

    // MARK: - Timeouts

    @Test func timeoutsRejectWithAnErrorAndZeroMeansNone() async throws {
        let events = Guarded<[FlexEvent]>([])
        let held = Guarded<(timedOut: Bool, waiting: [(FlexAction, String)])>((false, []))
        try await withFlex({ component in
            try component.setInterfaceTimeout(50)
            // Both are answered once the page has timed `slow` out (no sleeping: the timeout
            // event is the signal). `patient` has 0, no timeout, though the default is 50 ms
            // (the original fell back to the default), so it is still waiting then.
            // An action that arrives after the timeout is answered at once.
            @Sendable func hold(_ action: FlexAction, answer: String) {
                let timedOut = held.withLock { state -> Bool in
                    if !state.timedOut { state.waiting.append((action, answer)) }
                    return state.timedOut
                }
                if timedOut { action.resolve(answer) }
            }
            try component.setAction("slow") { action, _ in hold(action, answer: "late") }
            try component.setAction("patient", timeout: 0) { action, _ in hold(action, answer: "waited") }
            try component.addEventListener { event in
                events.withLock { $0.append(event) }
                guard event.kind == .timeout else { return }
                let waiting = held.withLock { state in
                    state.timedOut = true
                    defer { state.waiting = [] }
                    return state.waiting
                }
                for (action, answer) in waiting { action.resolve(answer) }
            }
        }) { page, _, inbox, console in
            try await page.load(html: Self.prelude + """
                <script>
                $flex.slow().then(function (v) { report(['slow', 'resolved', v]) },
                                  function (e) { report(['slow', e instanceof Error, e.name, e.message]) });
                $flex.patient().then(function (v) { report(['patient', v]) });
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 2)
            let all = bodies(inbox)
            #expect(all.contains(["slow", true, "TimeoutError", "$flex.slow: no result within 50 ms"]))
            #expect(all.contains(["patient", "waited"]))
            // The late answer is dropped with a console line.
            await console.wait(for: "$flex.slow returned after its timeout: the result is dropped")
            let seen = events.withLock { $0 }
            #expect(seen.contains(FlexEvent(kind: .timeout, functionName: "slow", url: Self.app, message: nil)))
            #expect(seen.contains(FlexEvent(kind: .success, functionName: "patient", url: Self.app, message: nil)))
        }
    }

    @Test func eachCallKeepsItsOwnDeadlineWhateverTheOrderOfThePosts() async throws {
        // `later` is posted first with the later deadline, `sooner` then with an earlier one (the
        // page's one timer is set again for it); `now` is answered, and the sweeps leave it be
        // whether it is still waiting then or not. Neither action is answered: each call ends at its own deadline, in their order.
        // A listener added after the calls were made hears of them.
        let events = Guarded<[FlexEvent]>([])
        let held = Guarded<[FlexAction]>([])  // unanswered, not dropped (a dropped one rejects)
        try await withFlex({ component in
            try component.setAction("later", timeout: 600) { action, _ in held.withLock { $0.append(action) } }
            try component.setAction("sooner", timeout: 40) { action, _ in held.withLock { $0.append(action) } }
            try component.setInterface("now", timeout: 30_000) { arguments in arguments.first ?? nil }
            try component.addEventListener { event in events.withLock { $0.append(event) } }
        }) { page, _, inbox, _ in
            try await page.load(html: Self.prelude + """
                <script>
                function watch(name, promise) {
                    promise.then(function (v) { report([name, 'resolved', v]) }, function (e) { report([name, e.name, e.message]) });
                }
                watch('later', $flex.later());
                watch('sooner', $flex.sooner());
                watch('now', $flex.now(7));
                var heard = [];
                $flex.addEventListener('timeout', function (detail) { heard.push(detail.function); });
                $flex.addEventListener('success', function (detail) { heard.push(detail.function + ':' + detail.data); });
                window.reportHeard = function () { report(heard); };
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 3)
            let all = bodies(inbox)
            #expect(all.contains(["now", "resolved", 7]))
            let timedOut = all.filter { $0.count == 3 && $0[1] == AnyHashable("TimeoutError") }
            #expect(timedOut == [["sooner", "TimeoutError", "$flex.sooner: no result within 40 ms"],
                                 ["later", "TimeoutError", "$flex.later: no result within 600 ms"]])
            _ = try await page.evaluateJavaScript("reportHeard()")
            await inbox.wait(for: 4)
            let heard = try #require(inbox.all.last?.body as? [String])
            #expect(heard.filter { $0 != "now:7" } == ["sooner", "later"] && heard.contains("now:7"))
            let timeouts = events.withLock { $0.filter { $0.kind == .timeout }.map(\.functionName) }
            #expect(timeouts == ["sooner", "later"])
            held.withLock { $0 = [] }
        }
    }

    // MARK: - Settings

    @Test func settingsAreRefusedOnceAttachedAndNamesAreChecked() async throws {
        try await withFlex({ component in
            try component.setInterface("one") { _ in 1 }
            #expect(throws: FlexError.duplicateName("one")) { try component.setInterface("one") { _ in 2 } }
            #expect(throws: FlexError.duplicateName("one")) { try component.setAction("one") { _, _ in } }
            #expect(throws: FlexError.reservedName("myflex")) { try component.setInterface("myflex") { _ in nil } }
            #expect(throws: FlexError.reservedName("web")) { try component.setInterface("web") { _ in nil } }
            #expect(throws: FlexError.invalidName("a-b")) { try component.setInterface("a-b") { _ in nil } }
            #expect(throws: FlexError.invalidName("")) { try component.setInterface("") { _ in nil } }
            #expect(throws: FlexError.invalidPattern("(")) { try component.setBaseUrl("(") }
        }) { page, component, _, _ in
            #expect(throws: FlexError.configurationLocked) { try component.setInterface("two") { _ in 2 } }
            #expect(throws: FlexError.configurationLocked) { try component.setBaseUrl(".*") }
            #expect(throws: FlexError.configurationLocked) { try component.setInterfaceTimeout(1) }
            #expect(throws: FlexError.configurationLocked) { try component.addEventListener { _ in } }
            #expect(throws: FlexError.alreadyAttached) { try FlexComponent().attach(to: page) }
            #expect(throws: FlexError.alreadyAttached) { try component.attach(to: page) }
        }
    }

    // MARK: - Swift → web

    @Test func swiftCallsWaitForFlexloadAndRunInOrder() async throws {
        let events = Guarded<[FlexEvent.Kind]>([])
        try await withFlex({ component in
            try component.setFlexOnloadWait(0)
            try component.addEventListener { event in events.withLock { $0.append(event.kind) } }
        }) { page, component, inbox, _ in
            // Made before any document: they wait, then run in order.
            let (firstResult, result) = AsyncStream.makeStream(of: Int?.self)
            component.evalFlexFunc("record", sendData: "first") { outcome in result.yield(((try? outcome.get()) ?? nil) as? Int) }
            component.evalFlexFunc("record", sendData: "second", response: nil)
            try await page.load(html: Self.prelude + """
                <script>
                var seen = [];
                $flex.web.record = function (v) { seen.push(v); report(['record', v, seen.length]); return seen.length; };
                $flex.web.twice = function (v) { return new Promise(function (resolve) { setTimeout(function () { resolve(v * 2) }, 5) }) };
                $flex.web.fails = function () { throw new RangeError('out of range') };
                window.onFlexLoad = function () { report(['onFlexLoad', seen.length]); };
                $flex.addEventListener('init', function () { report(['init', seen.length]); });
                </script>
                """, baseURL: Self.app)
            var results = firstResult.makeAsyncIterator()
            let first = await results.next()
            #expect(first == 1)
            let twice = try await component.evalFlexFunc("twice", sendData: 21) as? Int
            #expect(twice == 42)
            await #expect(throws: FlexError.webFunctionFailed(name: "fails", errorName: "RangeError", message: "out of range")) {
                _ = try await component.evalFlexFunc("fails")
            }
            await #expect(throws: FlexError.webFunctionFailed(name: "missing", errorName: "TypeError", message: "$flex.web.missing is not a function")) {
                _ = try await component.evalFlexFunc("missing")
            }
            // flexload first (the page's onFlexLoad, then its `init` listeners), then Swift's calls.
            #expect(Array(bodies(inbox).prefix(4)) == [["onFlexLoad", 0], ["init", 0], ["record", "first", 1], ["record", "second", 2]])
            #expect(events.withLock { $0 }.contains(.initialized))
        }
    }

    @Test func aCallHandedToAReplacedDocumentFailsAndACallOnAClosedPageToo() async throws {
        let loaded = Gate()
        try await withFlex({ component in
            try component.addEventListener { event in if event.kind == .initialized { loaded.open() } }
        }) { page, component, _, _ in
            try await page.load(html: "<script>$flex.web.never = function () { return new Promise(function () {}) };</script>", baseURL: Self.app)
            await loaded.wait()
            let handedOver = Gate()
            let pending = Task {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    component.evalFlexFunc("never", sendData: nil) { continuation.resume(with: $0.map { _ in () }.mapError { $0 as any Error }) }
                    handedOver.open()
                }
            }
            await handedOver.wait()
            try await page.load(html: "<p>next</p>", baseURL: Self.app)
            await #expect(throws: FlexError.documentReplaced) { try await pending.value }
            let queued = Task { _ = try await component.evalFlexFunc("never") }
            page.close()
            await #expect(throws: (any Error).self) { try await queued.value }
            await #expect(throws: FlexError.pageClosed) { _ = try await component.evalFlexFunc("never") }
        }
    }

    // MARK: - Values

    @Test func valuesCrossAsValuesBothWays() async throws {
        let received = Guarded(BridgeValue(value: nil))
        let tricky = "back`tick ${x} 'single' \"double\" \u{2028}\u{2029} nul\u{0} end"
        try await withFlex({ component in
            try component.setInterface("echo") { arguments in
                received.withLock { $0 = BridgeValue(value: arguments) }
                return arguments.first ?? nil
            }
        }) { page, component, inbox, _ in
            try await page.load(html: Self.prelude + """
                <script>
                var caller = { on: true, off: false, list: [true] };
                $flex.echo(caller, 'back`tick ${x} \\'single\\' "double" \\u2028\\u2029 nul\\u0000 end', new Date(86400000),
                           new Uint8Array([1, 2, 255]), new TypeError('bad thing'))
                    .then(function (v) {
                        report(['echo', typeof v.on, v.on, v.off, v.list[0] === true, typeof caller.on, caller.on]);
                    });
                $flex.web.echo = function (v) { return v; };
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 1)
            #expect(bodies(inbox).first == ["echo", "boolean", true, false, true, "boolean", true])
            let arguments = received.withLock { $0 }.value as? [Any?] ?? []
            #expect(arguments.count == 5)
            let object = arguments.first as? [String: Any]
            #expect(object?["on"] as? Bool == true && object?["off"] as? Bool == false)
            #expect(arguments[1] as? String == tricky)
            #expect(arguments[2] as? Date == Date(timeIntervalSince1970: 86400))
            #expect(arguments[3] as? Data == Data([1, 2, 255]))
            let error = arguments[4] as? [String: Any]
            #expect(error?["name"] as? String == "TypeError" && error?["message"] as? String == "bad thing")
            // And back: the same string, a date, data and booleans through $flex.web.
            let text = try await component.evalFlexFunc("echo", sendData: tricky) as? String
            #expect(text == tricky)
            let flag = try await component.evalFlexFunc("echo", sendData: true) as? Bool
            #expect(flag == true)
            let dated = try await component.evalFlexFunc("echo", sendData: ["when": Date(timeIntervalSince1970: 1)]) as? [String: Date]
            #expect(dated == ["when": Date(timeIntervalSince1970: 1)])
            let bytes = try await component.evalFlexFunc("echo", sendData: Data([0, 9])) as? Data
            #expect(bytes == Data([0, 9]))
            // A value a page cannot hold is refused in Swift, before anything is sent.
            await #expect(throws: ScriptMessageReplyError.self) { _ = try await component.evalFlexFunc("echo", sendData: NSObject()) }
        }
    }

    // MARK: - The gate

    @Test func aPageOutsideTheBaseURLIsRefusedOnEveryMessage() async throws {
        let calls = Guarded(0)
        let server = try await TestHTTPServer.start { request, responder in
            switch request.path {
            case "/to":
                try await responder.respond(status: "302 Found", headers: ["Location: \(request.query["url"] ?? "/")"], text: "")
            case "/caller.js":
                // A script of the allowed origin, run by whichever document loads it.
                try await responder.respond(headers: ["Content-Type: text/javascript"], text: """
                    if (typeof $flex === 'undefined') report(['script', 'no $flex']);
                    else $flex.count().then(function () { report(['script', 'ran']) }, function (e) { report(['script', e.message]) });
                    """)
            default:
                try await responder.respond(status: "404 Not Found", text: "no")
            }
        }
        defer { server.stop() }
        try await withFlex({ component in
            try component.setInterface("count") { _ in calls.withLock { $0 += 1 } }
        }) { page, _, inbox, _ in
            // Allowed: the call runs. The page keeps the function for later.
            try await page.load(html: Self.prelude + "<script>var kept = $flex.count; kept().then(function () { report(['allowed', 'ran']) });</script>",
                                baseURL: Self.app)
            await inbox.wait(for: 1)
            #expect(calls.withLock { $0 } == 1)
            // Elsewhere: `$flex` is gone, and the kept function is refused (the document is what
            // counts, not where the function came from).
            try await page.load(html: Self.prelude + """
                <script>
                report(['elsewhere', typeof $flex]);
                kept().then(function () { report(['kept', 'ran']) }, function (e) { report(['kept', e.message]) });
                </script>
                """, baseURL: Self.elsewhere)
            await inbox.wait(for: 3)
            #expect(bodies(inbox).contains(["elsewhere", "undefined"]))
            #expect(bodies(inbox).contains(["kept", "$flex: http://elsewhere.test/index.html may not call native interfaces"]))
            // A script of the allowed origin in another document: refused too.
            try await page.load(html: Self.prelude + "<script>var $flex = { count: kept };</script><script src='\(server.baseURL)/caller.js'></script>",
                                baseURL: Self.elsewhere)
            await inbox.wait(for: 4)
            #expect(bodies(inbox).contains(["script", "$flex: http://elsewhere.test/index.html may not call native interfaces"]))
            // Through a redirect from the allowed server to a page elsewhere: refused.
            #expect(calls.withLock { $0 } == 1)
        }
        // A redirect that leaves the allowed origin: the document is the target's.
        let other = try await TestHTTPServer.start { _, responder in
            try await responder.respond(headers: ["Content-Type: text/html"], text: Self.prelude + """
                <script>report(['redirected', typeof $flex, location.href]);</script>
                """)
        }
        defer { other.stop() }
        try await withFlex({ component in
            try component.setBaseUrl("http://127\\.0\\.0\\.1:\(server.port)/.*")
            try component.setInterface("count") { _ in calls.withLock { $0 += 1 } }
        }) { page, _, inbox, _ in
            let target = other.baseURL + "/landing"
            let start = try #require(URL(string: server.baseURL + "/to?url=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")))
            try await page.load(url: start)
            await inbox.wait(for: 1)
            #expect(bodies(inbox).first == ["redirected", "undefined", target])
        }
        #expect(calls.withLock { $0 } == 1)
    }

    // MARK: - Hostile pages

    @Test func hostilePagesBreakOnlyThemselves() async throws {
        let calls = Guarded(0)
        try await withFlex({ component in
            try component.setInterface("count") { _ in calls.withLock { $0 += 1 } }
        }) { page, component, inbox, _ in
            try await page.load(html: Self.prelude + """
                <script>
                'use strict';
                var outcomes = [];
                try { $flex = {}; outcomes.push('assigned'); } catch (e) { outcomes.push(e.name); }
                try { $flex.count = null; outcomes.push('replaced'); } catch (e) { outcomes.push(e.name); }
                try { $flex.flexreturn({ TID: 1 }); } catch (e) { outcomes.push(e.name); }
                var post = webkit.messageHandlers;
                JSON.stringify = function () { throw new Error('no JSON') };
                var realPromise = Promise;
                window.Promise = function () { throw new Error('no Promise') };
                $flex.count().then(function () {
                    report(['outcomes'].concat(outcomes));
                });
                </script>
                """, baseURL: Self.app)
            await inbox.wait(for: 1)
            #expect(bodies(inbox).first == ["outcomes", "TypeError", "TypeError", "TypeError"])
            #expect(calls.withLock { $0 } == 1)
            // A page that redefines `$flex` loses only its own `$flex.web`: Swift's call is told.
            _ = try await page.evaluateJavaScript("Object.defineProperty(window, '$flex', { value: { web: { x: function () { return 1 } } } }); undefined")
            await #expect(throws: FlexError.webFunctionFailed(name: "x", errorName: "TypeError", message: "$flex.web.x is not a function")) {
                _ = try await component.evalFlexFunc("x")
            }
        }
    }

    @Test func aFloodOfCallsIsRefusedPastThePagesLimitAndTheRestAreAnswered() async throws {
        let held = Guarded<[FlexAction]>([])
        let (allHeld, heldAll) = AsyncStream.makeStream(of: Void.self)
        let component = FlexComponent()
        try component.setBaseUrl("http://app\\.test/.*")
        try component.setAction("hold", timeout: 0) { action, _ in
            let count = held.withLock { list -> Int in
                list.append(action)
                return list.count
            }
            if count == 16 { heldAll.yield() }
        }
        // The page reports on its console: its messages are what the flood fills.
        let console = ConsoleLines()
        var configuration = WebPageConfiguration()
        configuration.maximumMessagesInFlight = 16
        configuration.consoleOutput = console.output
        try await using(try WebPage(configuration: configuration)) { page in
            try component.attach(to: page)
            try await page.load(html: """
                <script>
                var refused = 0, answered = 0, reason = '', heard = 0;
                $flex.addEventListener('error', function () { heard++; });
                for (var i = 0; i < 200; i++) {
                    $flex.hold(i).then(function () { if (++answered === 16) console.log('answered ' + answered); },
                                       function (e) { refused++; reason = e.message; });
                }
                setTimeout(function () {
                    console.log('refused ' + refused + ' ' + (reason.indexOf('maximumMessagesInFlight') >= 0) + ', heard ' + heard);
                }, 0);
                </script>
                """, baseURL: Self.app)
            // The page's limit counts messages waiting for their handlers: 16 got in. Each
            // refusal is an error event too.
            await console.wait(for: "refused 184 true, heard 184")
            for await _ in allHeld { break }
            for action in held.withLock({ $0 }) { action.resolveVoid() }
            await console.wait(for: "answered 16")
        }
    }

    /// Deinit counters: a page, its component and its bridge are released once the page has shut
    /// down, whatever a hostile page left waiting (actions held, calls never answered, Swift
    /// calls pending, globals overwritten).
    @Test func pagesAndBridgesAreReleasedAfterHostileUse() async throws {
        weak var releasedPage: WebPage?
        weak var releasedComponent: FlexComponent?
        weak var releasedBridge: WebViewJavascriptBridge?
        do {
            let held = Guarded<[FlexAction]>([])
            let component = FlexComponent()
            try component.setBaseUrl("http://app\\.test/.*")
            try component.setAction("hold", timeout: 0) { action, _ in held.withLock { $0.append(action) } }
            try component.setInterface("echo") { arguments in arguments.first ?? nil }
            let page = try WebPage()
            try component.attach(to: page)
            let bridge = try WebViewJavascriptBridge(page: page)
            bridge.registerHandler("echo") { data, respond in respond(data) }
            try await page.load(html: """
                <script>
                for (var i = 0; i < 50; i++) { $flex.hold(i); $flex.echo({ n: i }); }
                WebViewJavascriptBridge.registerHandler('silent', function () {});
                WebViewJavascriptBridge.callHandler('echo', [1, 2], function () {});
                $flex.web.never = function () { return new Promise(function () {}); };
                window.JSON = null; window.Promise = null;
                </script>
                """, baseURL: Self.app)
            let pendingFlex = Task { _ = try? await component.evalFlexFunc("never") }
            let pendingBridge = Task { _ = try? await bridge.callHandler("silent") }
            await page.shutdown()
            await pendingFlex.value
            await pendingBridge.value
            releasedPage = page
            releasedComponent = component
            releasedBridge = bridge
        }
        #expect(releasedPage == nil)
        #expect(releasedComponent == nil)
        #expect(releasedBridge == nil)
    }

    @Test func aThousandOverlappingCallsSettledFromEightThreads() async throws {
        let count = 1_000
        let pending = Guarded<[(action: FlexAction, argument: Int)]>([])
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        try await withFlex({ component in
            try component.setAction("job") { action, arguments in
                let all = pending.withLock { list -> Int in
                    list.append((action, (arguments.first as? NSNumber)?.intValue ?? -1))
                    return list.count
                }
                if all == count { arrival.yield() }
            }
        }) { page, _, inbox, _ in
            try await page.load(html: Self.prelude + """
                <script>
                var done = 0, wrong = 0;
                for (var i = 0; i < \(count); i++) (function (i) {
                    $flex.job(i).then(function (v) { if (v !== i * 3) wrong++; if (++done === \(count)) report(['done', wrong]); });
                })(i);
                </script>
                """, baseURL: Self.app)
            for await _ in arrived { break }
            // Each action answers with its own call's argument × 3, from 8 threads at once.
            let all = pending.withLock { $0 }
            for lane in 0..<8 {
                Thread.detachNewThread {
                    for index in stride(from: lane, to: all.count, by: 8) { all[index].action.resolve(all[index].argument * 3) }
                }
            }
            await inbox.wait(for: 1)
            #expect(bodies(inbox).first == ["done", 0])
        }
    }
}
