import DuktapeCore
import DuktapeRuntime
import Foundation
import Logging
import Testing

/// Lines a console wrote, with their kinds.
final class ConsoleCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(ConsoleLevel, String)] = []
    var lines: [(level: ConsoleLevel, text: String)] { lock.withLock { entries } }
    var texts: [String] { lines.map(\.text) }
    var output: ConsoleOutput { ConsoleOutput { level, text in self.lock.withLock { self.entries.append((level, text)) } } }
}

@Suite("Console: rendering as Node's util.inspect")
struct ConsoleRenderingTests {
    let context = JSContext()!
    let capture = ConsoleCapture()
    let console: Console

    init() throws {
        console = try #require(Console(context: context, output: capture.output))
    }

    struct Fixture: Decodable {
        let cases: [String]
        let out: [String]
    }

    /// Node 20's own output for each case (written by running Node on the same expressions).
    @Test func matchesNodeOnTheRecordedCases() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/inspect-node20.json")
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        for (source, expected) in zip(fixture.cases, fixture.out) {
            let value = try context.evaluate(source)
            let rendered = try console.inspect(value)
            #expect(rendered == expected, "\(source)")
        }
    }
}

@Suite("Console: methods, formatting and output")
struct ConsoleMethodTests {
    let context = JSContext()!
    let capture = ConsoleCapture()
    let clock = ManualClock()
    let console: Console

    init() throws {
        console = try #require(Console(context: context, output: capture.output, clock: clock))
    }

    struct Fixture: Decodable {
        let cases: [[String]]
        let out: [String]
    }

    /// `util.format` in Node 20 on the same arguments (each case is a list of JS expressions).
    @Test func formatSpecifiersMatchNode() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/format-node20.json")
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        for (expressions, expected) in zip(fixture.cases, fixture.out) {
            let values = try expressions.map { try context.evaluate("(" + $0 + ")") }
            let rendered = try console.format(values)
            #expect(rendered == expected, "\(expressions)")
            // console.log prints the same text.
            context.globalObject.setValue(values, forProperty: "args")
            context.evaluateScript("console.log.apply(console, args)")
            #expect(capture.texts.last == expected)
        }
    }

    @Test func levelsOfEachMethod() {
        context.evaluateScript("""
            console.log('l'); console.info('i'); console.debug('d'); console.warn('w'); console.error('e');
            console.assert(false, 'a'); console.dir({ x: 1 }); console.count('c'); console.trace('t');
            """)
        let levels = capture.lines.map(\.level)
        #expect(levels == [.log, .info, .debug, .warn, .error, .assert, .log, .info, .trace])
        #expect(ConsoleLevel.allCases.map(\.logLevel) == [.debug, .info, .info, .warning, .error, .debug, .error])
        #expect(ConsoleLevel.allCases.filter(\.isDiagnostic) == [.warn, .error, .trace, .assert])
    }

    @Test func traceShowsTheJavaScriptStack() {
        context.evaluateScript("function outer() { inner() } function inner() { console.trace('here %d', 1) } outer()", withSourceURL: URL(string: "file:///app/t.js"))
        let text = capture.texts.last ?? ""
        #expect(text.hasPrefix("Trace: here 1\n    at inner@file:///app/t.js:1"))
        #expect(text.contains("\n    at outer@file:///app/t.js:1"))
    }

    @Test func groupsIndentEveryLine() {
        context.evaluateScript("""
            console.group('G'); console.log('in'); console.group(); console.log('deeper\\nmulti');
            console.groupEnd(); console.groupEnd(); console.groupEnd(); console.log('out');
            console.groupCollapsed('C'); console.error('err'); console.groupEnd();
            """)
        #expect(capture.texts == ["G", "  in", "    deeper\n    multi", "out", "C", "  err"])
    }

    @Test func countsAndAssertions() {
        context.evaluateScript("""
            console.count(); console.count(); console.count('x'); console.countReset(); console.count(); console.countReset('nope');
            console.assert(true, 'no'); console.assert(false, 'failed %s', 'here'); console.assert(false); console.assert(0, { a: 1 });
            """)
        #expect(capture.texts == [
            "default: 1", "default: 2", "x: 1", "default: 1", "Count for 'nope' does not exist",
            "Assertion failed: failed here", "Assertion failed", "Assertion failed: [object Object]",
        ])
    }

    @Test func timersOnTheManualClock() {
        context.evaluateScript("console.time(); console.time('job'); console.time('job')")
        clock.advance(by: .milliseconds(12))
        context.evaluateScript("console.timeLog('job', 'step', { n: 1 })")
        clock.advance(by: .milliseconds(1500))
        context.evaluateScript("console.timeEnd('job'); console.timeEnd('job'); console.timeLog('missing'); console.timeEnd()")
        #expect(capture.texts == [
            "Warning: Label 'job' already exists for console.time()",
            "job: 12.000ms step { n: 1 }",
            "job: 1.512s",
            "Warning: No such label 'job' for console.timeEnd()",
            "Warning: No such label 'missing' for console.timeLog()",
            "default: 1.512s",
        ])
    }

    @Test func tablesAsNode20DrawsThem() {
        context.evaluateScript("""
            console.table([{ a: 1, b: 'x' }, { a: 2, c: true }]);
            console.table({ r1: { x: 1 }, r2: 5 });
            console.table([{ a: 1, b: 2 }], ['b']);
            console.table('not tabular');
            """)
        #expect(capture.texts == [
            """
            ┌─────────┬───┬─────┬──────┐
            │ (index) │ a │ b   │ c    │
            ├─────────┼───┼─────┼──────┤
            │ 0       │ 1 │ 'x' │      │
            │ 1       │ 2 │     │ true │
            └─────────┴───┴─────┴──────┘
            """,
            """
            ┌─────────┬───┬────────┐
            │ (index) │ x │ Values │
            ├─────────┼───┼────────┤
            │ r1      │ 1 │        │
            │ r2      │   │ 5      │
            └─────────┴───┴────────┘
            """,
            """
            ┌─────────┬───┐
            │ (index) │ b │
            ├─────────┼───┤
            │ 0       │ 2 │
            └─────────┴───┘
            """,
            "not tabular",
        ])
    }

    @Test func errorsShowNameMessageAndStack() throws {
        let error = try context.evaluate("(function thrower() { try { null.x } catch (e) { return e } })()", sourceURL: URL(string: "file:///app/e.js"))
        let text = try console.inspect(error)
        #expect(text.hasPrefix("TypeError: "))
        #expect(text.contains("\n    at thrower@file:///app/e.js:1"))
        context.evaluateScript("console.error(new RangeError('bad'))")
        #expect(capture.texts.last?.hasPrefix("RangeError: bad\n    at ") == true)
        // An error with extra own properties shows them after the stack, as Node does.
        let coded = try context.evaluate("var e = new Error('x'); e.code = 'E_X'; e")
        #expect(try console.inspect(coded).hasSuffix(" {\n  code: 'E_X'\n}"))
    }

    /// Promises show their state and result, as Node's `util.inspect` does (the engine's own
    /// slots: a script's look-alike is an ordinary object).
    @Test func promisesShowTheirStateAndResult() throws {
        let cases: [(String, String)] = [
            ("Promise.resolve(5)", "Promise { 5 }"),
            ("new Promise(function () {})", "Promise { <pending> }"),
            ("var r = Promise.reject('no'); r.catch(function () {}); r", "Promise { <rejected> 'no' }"),
            ("var p = Promise.resolve({ a: [1, 2] }); p.extra = 1; p", "Promise { { a: [ 1, 2 ] }, extra: 1 }"),
            ("[Promise.resolve('s'), Promise.resolve(Promise.resolve(2))]", "[ Promise { 's' }, Promise { 2 } ]"),
            ("Promise.resolve(undefined)", "Promise { undefined }"),
            ("var fake = Object.create(Promise.prototype); fake", "Promise {}"),
            ("var q = Promise.resolve(1); q.then = 5; q", "Promise { 1, then: 5 }"),
        ]
        for (script, expected) in cases {
            #expect(try console.inspect(try context.evaluate(script)) == expected, "\(script)")
        }
        let nested = try context.evaluate("Promise.resolve({ a: { b: { c: { d: 1 } } } })")
        #expect(try console.inspect(nested) == "Promise { { a: { b: [Object] } } }")
    }

    @Test func stringsWithSurrogatesAndNuls() throws {
        let value = try context.evaluate("['\\u0000', '\\ud83d\\ude00', '\\ud800', 'e\\u0301']")
        #expect(try console.inspect(value) == "[ '\\x00', '😀', '\\uD800', 'é' ]")
        context.evaluateScript("console.log('a\\u0000b')")
        #expect(capture.texts.last == "a\u{0}b")
    }

    /// An array or typed array with nothing but elements skips listing its keys (a string for
    /// every element: seconds for a million); one with named properties or symbols lists them
    /// as before. Expected texts are Node 20's `util.inspect`.
    @Test func longArraysAreShownWithoutListingEveryIndex() throws {
        let long = try context.evaluate("var long = new Array(1000000); for (var i = 0; i < long.length; i++) long[i] = i % 10; long")
        let text = try console.inspect(long)
        #expect(text.hasPrefix("[\n  0, 1, 2, 3, 4, 5, 6, 7, 8,") && text.hasSuffix(", 9,\n  ... 999900 more items\n]"))
        let named = try context.evaluate("var n = [1, 2]; n.extra = 'x'; n[Symbol('s')] = 3; n")
        #expect(try console.inspect(named) == "[ 1, 2, extra: 'x', [Symbol(s)]: 3 ]")
        let typed = try context.evaluate("var t = new Uint8Array(3); t.tag = 1; t")
        #expect(try console.inspect(typed) == "Uint8Array(3) [ 0, 0, 0, tag: 1 ]")
        let proxied = try context.evaluate("var p = [1, 2]; p.x = 1; p[Symbol('s')] = 2; new Proxy(p, {})")
        // A Proxy of an array keeps listing its keys (its rendering is otherwise not Node's:
        // Duktape's proxies answer own-property checks differently).
        #expect(try console.inspect(proxied).hasSuffix(", x: 1 ]"))
        let sparse = try context.evaluate("var s = []; s[5] = 'a'; s[100000] = 'b'; s.k = 1; s")
        #expect(try console.inspect(sparse) == "[ <5 empty items>, 'a', <99994 empty items>, 'b', k: 1 ]")
    }

    /// console.table takes the data's own keys as rows (a sparse array's holes are none) and
    /// refuses `properties` that is not an array, as Node does (it looped to a hostile length).
    @Test func tablesTakeOwnKeysAndRefuseNonArrayProperties() {
        context.evaluateScript("var sp = []; sp.length = 1e9; sp[3] = { a: 1 }; console.table(sp)")
        #expect(capture.texts.last == """
            ┌─────────┬───┐
            │ (index) │ a │
            ├─────────┼───┤
            │ 3       │ 1 │
            └─────────┴───┘
            """)
        // Chosen columns: a primitive row's cells stay empty and no Values column is added;
        // a hole in the list is the column 'undefined', once (Node 20's output).
        context.evaluateScript("console.table([1, { a: 1 }], ['a']); var holes = []; holes[2] = 'a'; console.table([{ a: 1 }], holes)")
        #expect(Array(capture.texts.suffix(2)) == [
            """
            ┌─────────┬───┐
            │ (index) │ a │
            ├─────────┼───┤
            │ 0       │   │
            │ 1       │ 1 │
            └─────────┴───┘
            """,
            """
            ┌─────────┬───────────┬───┐
            │ (index) │ undefined │ a │
            ├─────────┼───────────┼───┤
            │ 0       │           │ 1 │
            └─────────┴───────────┴───┘
            """,
        ])
        let number = context.evaluateScript("try { console.table([{ a: 1 }], 5) } catch (e) { e.name + ' ' + e.code + ' ' + e.message }")
        #expect(number?.toString() == "TypeError ERR_INVALID_ARG_TYPE The \"properties\" argument must be an instance of Array. Received type number (5)")
        let object = context.evaluateScript("try { console.table([{ a: 1 }], { length: 1e9 }) } catch (e) { e.message }")
        #expect(object?.toString() == "The \"properties\" argument must be an instance of Array. Received an instance of Object")
    }

    @Test func hostileValuesCannotHurtTheHost() throws {
        // Replaced built-ins do not change rendering; getters are not run; proxies and deep or
        // huge structures stay within the VM's limits.
        context.evaluateScript("""
            Object.keys = function () { throw new Error('replaced') };
            JSON.stringify = null; String.prototype.slice = null; Array.isArray = function () { return false };
            var getterRan = false;
            console.log({ get trap() { getterRan = true; return 1 } }, [1, 2]);
            """)
        #expect(capture.texts.last == "{ trap: [Getter] } [ 1, 2 ]")
        #expect(context.evaluateScript("getterRan").toBool() == false)
        let deep = try context.evaluate("var d = {}; var c = d; for (var i = 0; i < 20000; i++) { c.n = {}; c = c.n } d")
        #expect(try console.inspect(deep) == "{ n: { n: { n: [Object] } } }")
        let wide = try context.evaluate("var w = []; w[4294967294] = 1; w")
        #expect(try console.inspect(wide) == "[ <4294967294 empty items>, 1 ]")
        let proxy = try context.evaluate("new Proxy({}, { ownKeys: function () { throw new Error('trap') } })")
        #expect(throws: JSException.self) { try console.inspect(proxy) }
        let big = try context.evaluate("var big = []; for (var i = 0; i < 2000; i++) big.push({ i: i }); big")
        #expect(try console.inspect(big).hasSuffix("... 1900 more items\n]"))
        // Unbounded depth on a 20,000-deep chain: capped at 100 levels.
        let capped = try console.inspect(deep, depth: Int.max)
        #expect(capped.components(separatedBy: "n: ").count == 102 && capped.contains("[Object]"))
        // A cycle at any depth is found.
        let cycle = try context.evaluate("var a = { b: { c: {} } }; a.b.c.a = a; a")
        #expect(try console.inspect(cycle, depth: 10) == "<ref *1> { b: { c: { a: [Circular *1] } } }")
    }

    @Test func loggerOutputUsesTheMappedLevels() {
        let handler = CapturingLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        let context = JSContext()!
        _ = Console(context: context, output: .logger(logger))
        context.evaluateScript("console.debug('d'); console.log('l'); console.warn('w'); console.error('e'); console.trace('t')")
        let records = handler.records
        #expect(records.map(\.level) == [.debug, .info, .warning, .error, .debug])
        #expect(records.map(\.message).prefix(4) == ["d", "l", "w", "e"])
        #expect(records.first?.metadata["console"] == "debug")
    }
}

/// A swift-log handler that keeps what it receives.
final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    struct Record {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lock = NSLock()
    private var stored: [Record] = []
    var records: [Record] { lock.withLock { stored } }
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let record = Record(
            level: event.level, message: event.message.description,
            metadata: (event.metadata ?? [:]).mapValues { $0.description })
        lock.withLock { stored.append(record) }
    }
}

@Suite("Console: review cases")
struct ConsoleReviewTests {
    @Test func hugeStringsAreCut() throws {
        // 200,000 characters that all need escaping: rendering used to concatenate once per
        // character (quadratic: minutes); it is cut at 10,000 and built from pieces now.
        let context = JSContext()!
        let console = try #require(Console(context: context, output: ConsoleCapture().output))
        let value = try context.evaluate("[new Array(200001).join('\\n')]")
        let text = try console.inspect(value)
        #expect(text.hasSuffix("'... 190000 more characters\n]"))
        #expect(text.count < 20_100)
        let keys = try context.evaluate("var o = {}; for (var i = 0; i < 3000; i++) o['k' + i] = i; o")
        #expect(try console.inspect(keys).contains("k2999: 2999"))
    }

    @Test func prototypePollutionDoesNotChangeRendering() throws {
        let context = JSContext()!
        let capture = ConsoleCapture()
        _ = try #require(Console(context: context, output: capture.output))
        context.evaluateScript("Object.prototype.get = function () {}; Object.prototype.set = function () {}; console.log({ a: 1 })")
        #expect(capture.texts == ["{ a: 1 }"])
    }
}
