import Foundation
import Testing

@testable import DuktapeCore

private struct Failure: Error, Equatable, CustomStringConvertible {
    let code: Int
    var description: String { "failure \(code)" }
}

@Suite("Swift closures as functions")
struct FunctionTests {
    let context = JSContext()!

    @Test func typedClosuresOfEveryArity() {
        context["zero"] = JSValue(newFunctionIn: context) { () in 42 }
        context["one"] = JSValue(newFunctionIn: context) { (a: Int) in a * 2 }
        context["add"] = JSValue(newFunctionIn: context) { (a: Int, b: Int) in a + b }
        context["three"] = JSValue(newFunctionIn: context) { (a: String, b: Double, c: Bool) in "\(a)\(b)\(c)" }
        context["four"] = JSValue(newFunctionIn: context) { (a: Int, b: Int, c: Int, d: Int) in a + b + c + d }
        context["five"] = JSValue(newFunctionIn: context) { (a: Int, b: Int, c: Int, d: Int, e: Int) in [a, b, c, d, e] }
        context["six"] = JSValue(newFunctionIn: context) { (a: Int, b: Int, c: Int, d: Int, e: Int, f: String) in "\(a + b + c + d + e)\(f)" }
        context["seven"] = JSValue(newFunctionIn: context) { (a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int) in a * b * c * d * e * f * g }
        #expect(context.evaluateScript("zero()").toInt32() == 42)
        #expect(context.evaluateScript("one(21)").toInt32() == 42)
        #expect(context.evaluateScript("add(2, 3)").toInt32() == 5)
        #expect(context.evaluateScript("three('x', 1.5, 1)").toString() == "x1.5true")
        #expect(context.evaluateScript("four(1, 2, 3, 4)").toInt32() == 10)
        #expect(context.evaluateScript("five(1, 2, 3, 4, 5).join()").toString() == "1,2,3,4,5")
        #expect(context.evaluateScript("six(1, 1, 1, 1, 1, '!')").toString() == "5!")
        #expect(context.evaluateScript("seven(1, 2, 3, 4, 5, 6, 7)").toInt32() == 5040)
        #expect(context.evaluateScript("[zero.length, one.length, add.length, three.length, four.length, six.length]").toString() == "0,1,2,3,4,6")
        #expect(context.exception == nil)
    }

    /// One to three parameters take fixed-arity overloads, compiled for their types; four and
    /// more the parameter-pack form. Both must convert left to right, name the argument that
    /// fails, and give the same results, with and without a result.
    @Test func fixedArityAndPackClosuresBehaveAlike() throws {
        var calls: [String] = []
        context["r1"] = JSValue(newFunctionIn: context) { (a: String) in a }
        context["r2"] = JSValue(newFunctionIn: context) { (a: String, b: String) in a + b }
        context["r3"] = JSValue(newFunctionIn: context) { (a: String, b: String, c: String) in a + b + c }
        context["r4"] = JSValue(newFunctionIn: context) { (a: String, b: String, c: String, d: String) in a + b + c + d }
        context["v1"] = JSValue(newFunctionIn: context) { (a: String) in calls.append(a) }
        context["v2"] = JSValue(newFunctionIn: context) { (a: String, b: String) in calls.append(a + b) }
        context["v3"] = JSValue(newFunctionIn: context) { (a: String, b: String, c: String) in calls.append(a + b + c) }
        context["v4"] = JSValue(newFunctionIn: context) { (a: String, b: String, c: String, d: String) in calls.append(a + b + c + d) }
        context.evaluateScript("""
            var order = [];
            function arg(n) { return {toString: function () { order.push(n); return String.fromCharCode(96 + n) }} }
            """)
        for arity in 1...4 {
            let arguments = (1...arity).map { "arg(\($0))" }.joined(separator: ", ")
            let expected = String("abcd".prefix(arity))
            #expect(context.evaluateScript("order = []; r\(arity)(\(arguments)) + ':' + order.join() + ':' + r\(arity).length")
                .toString() == "\(expected):\((1...arity).map(String.init).joined(separator: ",")):\(arity)")
            #expect(context.evaluateScript("order = []; [v\(arity)(\(arguments)), order.join(), v\(arity).length].join(':')")
                .toString() == ":\((1...arity).map(String.init).joined(separator: ",")):\(arity)")
            #expect(calls.last == expected)
            // The last argument missing: the call names it, for both forms.
            let missing = (1..<arity).map { "arg(\($0))" }.joined(separator: ", ")
            for name in ["r\(arity)", "v\(arity)"] {
                let exception = try #require(thrown(context, "\(name)(\(missing))"))
                #expect(exception.name == "TypeError")
                #expect(exception.message == "argument \(arity): expected String, got undefined", "\(name)")
            }
        }
        #expect(calls.count == 4)
        // A middle argument failing: the arguments before it were converted, none after it.
        for name in ["r3", "v3", "r4", "v4"] {
            context.evaluateScript("order = []")
            let exception = try #require(thrown(context, "\(name)(arg(1), undefined, arg(3), arg(4))"))
            #expect(exception.message == "argument 2: expected String, got undefined", "\(name)")
            #expect(context.evaluateScript("order.join()").toString() == "1", "\(name)")
        }
    }

    @Test func voidClosuresAndRichTypes() {
        var received: [String] = []
        context["send"] = JSValue(newFunctionIn: context) { (message: String) in received.append(message) }
        #expect(context.evaluateScript("send('hello')").isUndefined)
        #expect(received == ["hello"])
        context["summarize"] = JSValue(newFunctionIn: context) {
            (items: [Int], options: [String: Bool], when: Date, bytes: Data, maybe: String?) -> [String: String] in
            ["sum": "\(items.reduce(0, +))", "flag": "\(options["on"] ?? false)",
             "when": "\(when.timeIntervalSince1970)", "bytes": "\(bytes.count)", "maybe": maybe ?? "nil"]
        }
        let result = context.evaluateScript("summarize([1, 2, 3], {on: true}, new Date(2000), new Uint8Array(4))")!
        #expect(result.forProperty("sum").toString() == "6")
        #expect(result.forProperty("flag").toString() == "true")
        #expect(result.forProperty("when").toString() == "2.0")
        #expect(result.forProperty("bytes").toString() == "4")
        #expect(result.forProperty("maybe").toString() == "nil")
        context["identity"] = JSValue(newFunctionIn: context) { (value: JSValue) in value }
        #expect(context.evaluateScript("var o = {}; identity(o) === o").toBool())
        context["makeColor"] = JSValue(newFunctionIn: context) { (rgb: [String: Double]) -> String in
            String(format: "#%02X%02X%02X", Int(rgb["red"] ?? 0), Int(rgb["green"] ?? 0), Int(rgb["blue"] ?? 0))
        }
        #expect(context.evaluateScript("makeColor({red: 255, green: 128, blue: 0})").toString() == "#FF8000")
    }

    @Test func untypedClosuresSeeThisAndAllArguments() {
        context["inspect"] = JSValue(newFunctionIn: context) { this, arguments in
            "\(this.forProperty("tag").toString() ?? "-"):\(arguments.count):\(arguments.map { $0.description }.joined(separator: "|"))"
        }
        context.evaluateScript("var tag = 'global'")
        #expect(context.evaluateScript("inspect(1, 'a', null)").toString() == "global:3:1|a|null")
        #expect(context.evaluateScript("({tag: 'obj', m: inspect}).m(true)").toString() == "obj:1:true")
        context["nothing"] = JSValue(newFunctionIn: context) { _, _ in nil }
        #expect(context.evaluateScript("nothing()").isUndefined)
        context["anyResult"] = JSValue(newFunctionIn: context) { _, _ in ["list": [1, 2], "null": NSNull()] }
        #expect(context.evaluateScript("JSON.stringify(anyResult())").toString()?.contains("\"list\":[1,2]") == true)
    }

    @Test func callbackAccessorsDescribeTheCallAndNest() {
        var seen: [String] = []
        context["outer"] = JSValue(newFunctionIn: context) { _, _ in
            let current = JSContext.current()
            seen.append("outer this=\(JSContext.currentThis()?.forProperty("name").toString() ?? "nil") args=\(JSContext.currentArguments()?.count ?? -1)")
            // Re-entrant: evaluate a script that calls another callback.
            current?.evaluateScript("inner(1, 2, 3)")
            seen.append("outer again args=\(JSContext.currentArguments()?.count ?? -1)")
            return (JSContext.currentCallee()?.isEqual(to: current?.objectForKeyedSubscript("outer")) ?? false)
        }
        context["inner"] = JSValue(newFunctionIn: context) { (a: Int) in
            seen.append("inner a=\(a) args=\(JSContext.currentArguments()?.count ?? -1) callee=\(JSContext.currentCallee()?.forProperty("name").toString() ?? "nil")")
        }
        #expect(context.evaluateScript("({name: 'receiver', go: outer}).go('x')").toBool())
        #expect(seen == ["outer this=receiver args=1", "inner a=1 args=3 callee=", "outer again args=1"])
        #expect(JSContext.current() == nil)
        #expect(JSContext.currentArguments() == nil)
    }

    /// Two callbacks in two VMs run at the same time on two threads (each waits, with a
    /// deadline, until the other has arrived), and each reads its own call's arguments.
    @Test func accessorsArePerThread() {
        let context = self.context
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let met = LiveCounter()
        func rendezvous(_ index: Int) {
            arrived[index].signal()
            if arrived[1 - index].wait(timeout: .now() + 10) == .success { met.increment() }
        }
        context["slow"] = JSValue(newFunctionIn: context) { (tag: String) -> String in
            rendezvous(0)
            return JSContext.currentArguments()?.first.flatMap { ($0 as? JSValue)?.toString() } ?? "nil"
        }
        let other = JSContext()!
        other["slow"] = JSValue(newFunctionIn: other) { (tag: String) -> String in
            rendezvous(1)
            return JSContext.currentArguments()?.first.flatMap { ($0 as? JSValue)?.toString() } ?? "nil"
        }
        // Threads of their own, not tasks: two tasks blocked in a rendezvous could wait for
        // each other's turn on a busy cooperative pool.
        final class Results: @unchecked Sendable {
            private let lock = NSLock()
            private var storage = ["", ""]
            var values: [String] { lock.withLock { storage } }
            func set(_ index: Int, _ value: String) { lock.withLock { storage[index] = value } }
        }
        let results = Results()
        let done = DispatchSemaphore(value: 0)
        for (index, (runner, tag)) in [(context, "first"), (other, "second")].enumerated() {
            Thread {
                results.set(index, runner.evaluateScript("slow('\(tag)')").toString())
                done.signal()
            }.start()
        }
        #expect(done.wait(timeout: .now() + 20) == .success && done.wait(timeout: .now() + 20) == .success)
        #expect(results.values == ["first", "second"])
        #expect(met.value == 2)   // both were inside their callbacks at once
    }

    @Test func settingTheExceptionInACallbackThrowsIntoJavaScript() {
        context["fail"] = JSValue(newFunctionIn: context) { _, _ in
            JSContext.current()?.exception = JSValue(newErrorFromMessage: "set by Swift", in: JSContext.current())
            return 1
        }
        #expect(context.evaluateScript("try { fail(); 'no' } catch (e) { e.message }").toString() == "set by Swift")
        // The exception stored before the callback is restored after it.
        context.exception = JSValue(newErrorFromMessage: "earlier", in: context)
        context["peek"] = JSValue(newFunctionIn: context) { () -> Bool in JSContext.current()?.exception == nil }
        #expect(context.evaluateScript("peek()").toBool())
        #expect(context.exception.forProperty("message").toString() == "earlier")
    }

    @Test func swiftErrorsBecomeJavaScriptErrorsAndComeBackAsThemselves() throws {
        context["explode"] = JSValue(newFunctionIn: context) { (code: Int) throws -> Int in throw Failure(code: code) }
        #expect(context.evaluateScript("try { explode(7) } catch (e) { e instanceof Error && e.message }").toString() == "failure 7")
        #expect(throws: Failure(code: 3)) { try context.evaluate("explode(3)") }
        #expect(throws: Failure(code: 4)) { try context.objectForKeyedSubscript("explode").call(4) }
        #expect(throws: Failure(code: 5)) { try context.evaluate("function f() { try { explode(5) } finally { } } f()") }
        // A caught-and-rethrown error object still carries it; a new error does not.
        #expect(throws: Failure(code: 6)) { try context.evaluate("try { explode(6) } catch (e) { throw e }") }
        do {
            try context.evaluate("try { explode(8) } catch (e) { throw new Error('replaced') }")
        } catch let exception as JSException {
            #expect(exception.message == "replaced")
            #expect(exception.underlyingError == nil)
        }
        // The JSC-style API reports the JavaScript error.
        context.evaluateScript("explode(9)")
        #expect(context.exception.forProperty("message").toString() == "failure 9")
    }

    @Test func jsExceptionsThrownInACallbackPropagateUnchanged() {
        context["evalInside"] = JSValue(newFunctionIn: context) { (source: String) throws -> JSValue in
            try JSContext.current().evaluate(source)
        }
        #expect(context.evaluateScript("try { evalInside('null.x') } catch (e) { e.name }").toString() == "TypeError")
        #expect(context.evaluateScript("evalInside('6 * 7')").toInt32() == 42)
    }

    @Test func closuresAsConstructors() {
        context["Make"] = JSValue(newFunctionIn: context) { this, arguments in
            #expect(JSContext.currentThis() == nil)
            return ["made": arguments.first?.toInt32() ?? 0]
        }
        #expect(context.evaluateScript("new Make(5).made").toInt32() == 5)
        context["NotAConstructor"] = JSValue(newFunctionIn: context) { () in 1 }
        let exception = thrown(context, "new NotAConstructor()")
        #expect(exception?.name == "TypeError")
        #expect(exception?.message == "Swift closures called as constructors must return an object")
    }

    @Test func closureFunctionsConvertBackToTheFunction() {
        let function = JSValue(newFunctionIn: context) { () in 1 }
        let object = JSValue(object: ["f": function], in: context)!
        let converted = object.toDictionary()?["f"] as? JSValue
        #expect(converted?.isEqual(to: function) == true)
        #expect(function.toObject() is JSValue)
        // Plain JavaScript functions stay dictionaries, as in JavaScriptCore.
        #expect(context.evaluateScript("(function () {})").toObject() is [String: Any])
    }

    @Test func namedFunctionsLookNative() {
        context["greet"] = JSValue(newFunctionIn: context, name: "greet") { () in "hi" }
        #expect(context.evaluateScript("greet.name").toString() == "greet")
        #expect(context.evaluateScript("String(greet)").toString()?.contains("[native code]") == true)
    }
}

@Suite("Closure argument conversion")
struct ArgumentConversionTests {
    let context = JSContext()!

    static let integerCases: [(String, Int32, UInt8, Int64, UInt32)] = [
        ("1", 1, 1, 1, 1), ("-1", -1, 255, -1, 4_294_967_295), ("2.9", 2, 2, 2, 2), ("-2.9", -2, 254, -2, 4_294_967_294),
        ("NaN", 0, 0, 0, 0), ("Infinity", 0, 0, 0, 0), ("-Infinity", 0, 0, 0, 0), ("4294967297", 1, 1, 4_294_967_297, 1),
        ("1e300", 0, 0, 0, 0), ("'12'", 12, 12, 12, 12), ("'x'", 0, 0, 0, 0), ("undefined", 0, 0, 0, 0),
        ("null", 0, 0, 0, 0), ("true", 1, 1, 1, 1), ("256", 256, 0, 256, 256), ("[7]", 7, 7, 7, 7),
    ]

    @Test(arguments: integerCases)
    func integersFollowTheModularRule(source: String, int32: Int32, uint8: UInt8, int64: Int64, uint32: UInt32) throws {
        context["probe"] = JSValue(newFunctionIn: context) { (a: Int32, b: UInt8, c: Int64, d: UInt32) in "\(a) \(b) \(c) \(d)" }
        let call = try #require(context.evaluateScript("(function (v) { return probe(v, v, v, v) })"))
        #expect(call.call(withArguments: [context.evaluateScript(source)!]).toString() == "\(int32) \(uint8) \(int64) \(uint32)", "\(source)")
    }

    @Test func otherScalarRules() {
        context["bools"] = JSValue(newFunctionIn: context) { (a: Bool, b: Bool, c: Bool, d: Bool) in "\(a)\(b)\(c)\(d)" }
        #expect(context.evaluateScript("bools(0, 'x', null, {})").toString() == "falsetruefalsetrue")
        context["doubles"] = JSValue(newFunctionIn: context) { (a: Double, b: Float) in "\(a) \(b)" }
        #expect(context.evaluateScript("doubles('2.5', undefined)").toString() == "2.5 nan")
        context["strings"] = JSValue(newFunctionIn: context) { (a: String, b: String?) in "\(a) \(b ?? "nil")" }
        #expect(context.evaluateScript("strings(42, null)").toString() == "42 nil")
        #expect(context.evaluateScript("strings({toString: function () { return 'custom' }})").toString() == "custom nil")
    }

    @Test(arguments: [
        ("strings()", "argument 1: expected String, got undefined"),
        ("strings(null)", "argument 1: expected String, got null"),
        ("dates(undefined)", "argument 1: expected Date, got undefined"),
        ("arrays(5)", "argument 1: expected an array, got a number"),
        ("stringArrays(['a', undefined])", "argument 1: element 1: expected String, got undefined"),
        ("stringMaps({k: null})", "argument 1: property 'k': expected String, got null"),
        ("objects('s')", "argument 1: expected an object, got a string"),
        ("data([1])", "argument 1: expected Data, got an array"),
    ])
    func mismatchesAreTypeErrors(script: String, message: String) throws {
        context["strings"] = JSValue(newFunctionIn: context) { (a: String) in a }
        context["dates"] = JSValue(newFunctionIn: context) { (a: Date) in a }
        context["arrays"] = JSValue(newFunctionIn: context) { (a: [Int]) in a }
        context["objects"] = JSValue(newFunctionIn: context) { (a: [String: Int]) in a }
        context["data"] = JSValue(newFunctionIn: context) { (a: Data) in a }
        context["stringArrays"] = JSValue(newFunctionIn: context) { (a: [String]) in a }
        context["stringMaps"] = JSValue(newFunctionIn: context) { (a: [String: String]) in a }
        let exception = try #require(thrown(context, script))
        #expect(exception.name == "TypeError")
        #expect(exception.message == message)
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }

    @Test func anExceptionDuringConversionPropagatesAsItself() throws {
        // JavaScriptCore's rule: the conversion reports the exception, and an exception reported
        // during a callback is thrown into JavaScript when the callback returns.
        context["strings"] = JSValue(newFunctionIn: context) { (a: String) in a }
        let exception = try #require(thrown(context, "strings({toString: function () { throw new RangeError('from toString') }})"))
        #expect(exception.name == "RangeError")
        #expect(exception.message == "from toString")
    }

    @Test func extraArgumentsAreReachable() {
        context["count"] = JSValue(newFunctionIn: context) { (first: Int) in
            "\(first) of \(JSContext.currentArguments()?.count ?? 0)"
        }
        #expect(context.evaluateScript("count(1, 2, 3, 4)").toString() == "1 of 4")
    }
}
