import Foundation
import Testing

@testable import DuktapeCore

private struct CallbackFailure: Error, Equatable {
    let code: Int
}

/// The typed conveniences, `call(_:returning:)` and the typed subscripts, take shortcuts for
/// the standard types: they must give exactly what the general path (`call(withArguments:)`,
/// `fromJSValue`, `jsValue(in:)`) gives, and fail the same way.
@Suite("Typed calls and subscripts")
struct TypedAccessTests {
    let context = JSContext()!

    /// `typeof`, `String()` and the sign of zero of the value received: tells apart everything
    /// the conversions could confuse.
    private var describe: JSValue {
        eval(context, """
            (function () {
                return Array.prototype.map.call(arguments, function (v) {
                    var shape = (v !== null && typeof v === 'object') ? Object.prototype.toString.call(v) + JSON.stringify(v) : String(v);
                    return typeof v + ':' + shape + (v === 0 && 1 / v < 0 ? ':-0' : '');
                }).join('|') + '#' + arguments.length;
            })
            """)
    }

    // MARK: - call(_:returning:)

    @Test func typedArgumentsArriveAsTheirAnyCopies() throws {
        let describe = self.describe
        func check<each A: JSValueConvertible>(_ values: repeat each A, sourceLocation: SourceLocation = #_sourceLocation) throws {
            var anyCopies: [Any] = []
            for value in repeat each values { anyCopies.append(value) }
            let expected = describe.call(withArguments: anyCopies).toString()
            #expect(try describe.call(repeat each values, returning: String.self) == expected, sourceLocation: sourceLocation)
        }
        try check()
        try check(1.5, -0.0, Double.nan, Double.infinity)
        try check(Int.max, Int.min, 0, -1)
        try check(true, false)
        try check("", "a\u{0}b", "😀", "é", "e\u{301}")
        try check(Optional<Int>.none, Optional(3), Optional<String>.none)
        try check([1, 2], ["a": [true]], [String]())
        try check(Float(0.25), Int32(-7), UInt8(200), UInt64.max)
        try check(JSValue(newObjectIn: context)!, JSValue(nullIn: context)!, JSValue(undefinedIn: context)!)
        try check(Date(timeIntervalSince1970: 1), Data([1, 2, 3]))
        try check(1, "two", 3.0, false, [4], Optional<Double>.none)
    }

    /// One, two and three arguments take fixed-arity overloads (their types known at compile
    /// time); they must give what the parameter-pack form and `call(withArguments:)` give.
    @Test func fixedArityCallsMatchThePackForm() throws {
        let describe = self.describe
        func pack<each A: JSValueConvertible>(_ values: repeat each A) throws -> String {
            try describe.call(repeat each values, returning: String.self)
        }
        #expect(try describe.call(-0.0, returning: String.self) == pack(-0.0))
        #expect(try describe.call("a\u{0}😀", Int.min, returning: String.self) == pack("a\u{0}😀", Int.min))
        #expect(try describe.call(Optional<Int>.none, [1, 2], true, returning: String.self)
            == pack(Optional<Int>.none, [1, 2], true))
        #expect(try describe.call(JSValue(nullIn: context)!, Data([1]), Float(0.5), returning: String.self)
            == describe.call(withArguments: [JSValue(nullIn: context)!, Data([1]), Float(0.5)]).toString())
        // Their failures are the pack form's: a wrong result kind, a thrown error, a stranger.
        let add = eval(context, "(function (a, b, c) { if (c) throw new TypeError('c ' + c); return a + b })")
        #expect(try add.call(2, 3, returning: Int.self) == 5)
        #expect(throws: JSException.self) { try add.call("2", 3, returning: Int.self) }
        #expect { try add.call(1, 2, "three", returning: Int.self) } throws: { error in
            (error as? JSException)?.message == "c three"
        }
        let stranger = JSValue(newObjectIn: JSContext())!
        #expect(throws: JSException.self) { try add.call(1, stranger, returning: Int.self) }
        #expect(throws: JSException.self) { try eval(context, "42").call(1, 2, 3, returning: Int.self) }
        #expect(context.exception == nil)
    }

    @Test func typedResultsFollowFromJSValue() throws {
        func check<R: JSValueConvertible & Equatable>(_ script: String, as type: R.Type, sourceLocation: SourceLocation = #_sourceLocation) {
            let function = eval(context, "(function () { return \(script) })")
            let expected = R.fromJSValue(function.call(withArguments: []))
            do {
                let result = try function.call(returning: R.self)
                // Compared by description: NaN is not equal to itself, and -0.0 == 0.0.
                #expect(String(describing: Optional(result)) == String(describing: expected), "\(script) as \(R.self)", sourceLocation: sourceLocation)
            } catch let exception as JSException {
                #expect(expected == nil, "\(script) as \(R.self) threw \(exception)", sourceLocation: sourceLocation)
                #expect(exception.name == "TypeError", sourceLocation: sourceLocation)
            } catch {
                Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            }
        }
        for script in ["1.5", "-0", "NaN", "1e300", "42", "2", "'7'", "true", "null", "undefined", "({})", "[1, 2]", "'x'", "Symbol('s')"] {
            check(script, as: Double.self)
            check(script, as: Int.self)
            check(script, as: Int32.self)
            check(script, as: UInt8.self)
            check(script, as: Float.self)
            check(script, as: Bool.self)
            check(script, as: String.self)
            check(script, as: Double?.self)
            check(script, as: String?.self)
            check(script, as: [Int].self)
            check(script, as: Character.self)
        }
        check("'a\\u0000b\\ud83d\\ude00'", as: String.self)
        check("'\\ud800'", as: String.self)
        check("Math.pow(2, 53)", as: Int.self)
        check("Math.pow(2, 63)", as: Int.self)
        check("-Math.pow(2, 63)", as: Int.self)
        #expect(try eval(context, "(function () { return {a: 1, b: 2} })").call(returning: [String: Int].self) == ["a": 1, "b": 2])
    }

    @Test func aResultOfAnotherKindThrowsATypeErrorNamingBoth() throws {
        let function = eval(context, "(function () { return 'seven' })")
        #expect {
            try function.call(returning: Double.self)
        } throws: { error in
            let exception = error as? JSException
            return exception?.name == "TypeError" && exception?.message == "expected Double, got a string"
        }
        #expect(throws: JSException.self) { try eval(context, "(function () { return 1.5 })").call(returning: Int.self) }
        #expect(try eval(context, "(function () { return 1.5 })").call(returning: JSValue.self).toDouble() == 1.5)
        #expect(try eval(context, "(function () {})").call(returning: Double?.self) == .some(nil))
        #expect(context.exception == nil)
    }

    @Test func failuresThrowAndNeverReachTheExceptionHandler() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let thrower = eval(context, "(function (a) { throw new RangeError('bad ' + a) })")
        #expect {
            try thrower.call(1, returning: Double.self)
        } throws: { error in
            (error as? JSException)?.message == "bad 1"
        }
        // Not a function, and a value of another VM as an argument.
        #expect(throws: JSException.self) { try eval(context, "({})").call(returning: JSValue.self) }
        #expect(throws: JSException.self) { try eval(context, "undefined").call(1, returning: Int.self) }
        let stranger = JSValue(newObjectIn: JSContext())!
        #expect(throws: JSException.self) { try eval(context, "(function (o) { return 1 })").call(stranger, returning: Int.self) }
        // Unbounded recursion is a RangeError, not a crash.
        let recurse = eval(context, "(function f(n) { return f(n + 1) + 1 })")
        #expect(throws: JSException.self) { try recurse.call(0, returning: Double.self) }
        #expect(recorder.messages.isEmpty)
    }

    @Test func aSwiftErrorFromACallbackComesOutAsItself() throws {
        context["fail"] = JSValue(newFunctionIn: context) { (code: Int) throws -> Int in throw CallbackFailure(code: code) }
        let callsFail = eval(context, "(function (code) { return fail(code) })")
        #expect(throws: CallbackFailure(code: 7)) { try callsFail.call(7, returning: Int.self) }
        // A script that catches it sees a JS error, and the call succeeds.
        let catches = eval(context, "(function () { try { fail(1) } catch (e) { return 'caught' } })")
        #expect(try catches.call(returning: String.self) == "caught")
    }

    @Test func typedCallsNestInsideCallbacks() throws {
        eval(context, "function twice(x) { return 2 * x }")
        // Found through the running context, not captured: a captured JSValue would keep its
        // context alive from inside it (a cycle, as in JavaScriptCore).
        context["viaSwift"] = JSValue(newFunctionIn: context) { (x: Double) throws -> Double in
            guard let twice = JSContext.current()?.objectForKeyedSubscript("twice") else { return .nan }
            return try twice.call(x, returning: Double.self) + 1
        }
        #expect(try eval(context, "(function (x) { return viaSwift(x) })").call(20, returning: Double.self) == 41)
    }

    @Test func typedCallsFromManyThreads() async throws {
        let context = try #require(JSContext())
        context.evaluateScript("var total = 0; function bump(n, label) { total += n; return label + total }")
        let bump = try #require(context.objectForKeyedSubscript("bump"))
        let threads = 6, iterations = 400
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for _ in 0..<iterations {
                        guard let text = try? bump.call(1, "t\(thread):", returning: String.self), text.hasPrefix("t\(thread):") else {
                            Issue.record("bad result on thread \(thread)")
                            return
                        }
                    }
                }
            }
        }
        #expect(context.objectForKeyedSubscript("total").toDouble() == Double(threads * iterations))
    }

    // MARK: - Typed subscripts

    @Test func typedReadsFollowFromJSValue() {
        let object = eval(context, """
            ({ d: 1.5, z: -0, i: 42, big: 1e300, s: 'a\\u0000b\\ud83d\\ude00', lone: '\\ud800', t: true,
               n: null, u: undefined, o: {x: 1}, a: [1, 2], sym: Symbol('s'), numeric: '7' })
            """)
        func check<R: JSValueConvertible & Equatable>(_ key: String, as type: R.Type, sourceLocation: SourceLocation = #_sourceLocation) {
            let read: R? = object[key]
            #expect(String(describing: read) == String(describing: R.fromJSValue(object.forProperty(key))), "\(key) as \(R.self)", sourceLocation: sourceLocation)
        }
        for key in ["d", "z", "i", "big", "s", "lone", "t", "n", "u", "o", "a", "sym", "numeric", "missing"] {
            check(key, as: Double.self)
            check(key, as: Int.self)
            check(key, as: Int16.self)
            check(key, as: Bool.self)
            check(key, as: String.self)
            check(key, as: Double?.self)
            check(key, as: [Int].self)
        }
        let zero: Double? = object["z"]
        #expect(zero?.sign == .minus)
        #expect(context.exception == nil)
    }

    @Test func typedWritesMatchSetValue() {
        let viaSubscript = JSValue(newObjectIn: context)!
        let viaSetValue = JSValue(newObjectIn: context)!
        let show = eval(context, """
            (function (o) { return Object.keys(o).map(function (k) {
                var v = o[k]; return k + '=' + typeof v + ':' + (typeof v === 'object' ? JSON.stringify(v) : String(v)) + (v === 0 && 1 / v < 0 ? '-0' : '')
            }).join(',') })
            """)
        func write<V: JSValueConvertible>(_ key: String, _ value: V?) {
            viaSubscript[key] = value
            viaSetValue.setValue(value.map { $0.jsValue(in: context) } as Any?, forProperty: key)
        }
        write("d", 2.5)
        write("z", -0.0)
        write("i", Int.min)
        write("b", true)
        write("s", "x\u{0}y😀")
        write("nothing", Optional<Int>.none)
        write("list", [1, 2, 3])
        write("map", ["k": "v"])
        write("value", JSValue(nullIn: context))
        write("f", Float(1.25))
        #expect(show.call(withArguments: [viaSubscript]).toString() == show.call(withArguments: [viaSetValue]).toString())
        let readBack: String? = viaSubscript["s"]
        #expect(readBack == "x\u{0}y😀")
    }

    @Test func accessorFailuresAreReportedAndReadsGiveNil() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let object = eval(context, """
            Object.defineProperty({}, 'bad', { get: function () { throw new Error('getter') },
                                               set: function () { throw new Error('setter') } })
            """)
        let read: Double? = object["bad"]
        #expect(read == nil)
        object["bad"] = 1
        let frozen = eval(context, "Object.freeze({x: 1})")
        frozen["x"] = 2
        let x: Int? = frozen["x"]
        #expect(x == 1)
        // A primitive base: reading a property of null is a TypeError.
        let nothing: Int? = JSValue(nullIn: context)["x"]
        #expect(nothing == nil)
        #expect(recorder.messages.count == 3)
        #expect(recorder.messages.first?.contains("getter") == true)
        #expect(recorder.messages.dropFirst().first?.contains("setter") == true)
    }

    @Test func hostileKeysAndValuesOfAnotherVM() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let object = JSValue(newObjectIn: context)!
        for key in ["", "\u{0}", "😀", "é", "e\u{301}", String(repeating: "k", count: 100_000)] {
            object[key] = key.utf16.count
            let back: Int? = object[key]
            #expect(back == key.utf16.count, "key of \(key.utf16.count) code units")
        }
        #expect(eval(context, "(function (o) { return o['é'] !== o['e\\u0301'] })").call(withArguments: [object]).toBool())
        // `__proto__` is the inherited accessor, as for setValue: a number is ignored.
        object["__proto__"] = 9
        let prototype: JSValue? = object["__proto__"]
        #expect(prototype?.isObject == true)
        object["stranger"] = JSValue(newObjectIn: JSContext())!
        #expect(recorder.messages.count == 1)
        let stranger: JSValue? = object["stranger"]
        #expect(stranger?.isUndefined == true)
    }
}
