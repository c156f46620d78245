import Foundation
import Testing

@testable import DuktapeCore

/// A type that is not `JSValueConvertible`: closures that declare it compile (through the
/// general overload) and fail when called, with a TypeError that says why.
private struct Unconvertible {
    var value = 0
}

/// An exported class whose members take JavaScriptCore's `id`/`NSDictionary *` shapes.
final class Panel: JSExport, @unchecked Sendable {
    var options: [String: Any]
    init(options: [String: Any]) { self.options = options }
    static let jsClass = JSClass(Panel.self) { c in
        c.constructor { (options: [String: Any]) in Panel(options: options) }
        c.method("option(_:)") { (panel: Panel, key: String) -> Any? in panel.options[key] }
        c.method("merge(_:)") { (panel: Panel, more: [AnyHashable: Any]?) in
            for (key, value) in more ?? [:] { panel.options["\(key)"] = value }
        }
        c.staticMethod("describe(_:)") { (value: Any) -> String in "\(type(of: value))" }
    }
}

/// JavaScriptCore blocks taking `NSDictionary *`, `NSArray *` and `id`, written as Swift closures
/// taking `[String: Any]`, `[Any]` and `Any` (issue 14).
@Suite("Any, [Any] and [String: Any] parameters")
struct AnyParameterTests {
    let context = JSContext()!

    /// The classic tutorial shape (`makeNSColor`): a dictionary in, a number out.
    @Test func aDictionaryParameter() {
        context["luminance"] = JSValue(newFunctionIn: context) { (color: [String: Any]) -> Double in
            let red = color["red"] as? Double ?? -1, green = color["green"] as? Double ?? -1
            return 0.25 * red + 0.5 * green
        }
        #expect(context.evaluateScript("luminance({red: 1, green: 0.5})").toDouble() == 0.5)
        #expect(context.evaluateScript("luminance.length").toInt32() == 1)
        // Not an object: a TypeError naming the argument, as a typed parameter's mismatch.
        let error = thrown(context, "luminance(3)")
        #expect(error?.name == "TypeError")
        #expect(error?.message == "argument 1: expected Dictionary<String, Any>, got a number")
        #expect(thrown(context, "luminance()")?.message == "argument 1: expected Dictionary<String, Any>, got undefined")
    }

    @Test func anyReceivesToObject() {
        var received: [String] = []
        context["take"] = JSValue(newFunctionIn: context) { (value: Any) in
            received.append(value is NSNull ? "NSNull" : "\(value)")
        }
        context.evaluateScript("take(1.5); take('s'); take(true); take(null); take(undefined); take([1, 'a'])")
        #expect(received.count == 6)
        #expect(received[0] == "1.5")
        #expect(received[1] == "s")
        #expect(received[2] == "true")
        #expect(received[3] == "NSNull")
        #expect(received[4] == "nil")   // undefined: a nil `Any?` inside the `Any`, as bridging gives
        #expect(received[5].contains("1") && received[5].contains("a"))
        #expect(context.exception == nil)
    }

    @Test func optionalsAreNilForUndefinedAndNull() {
        var seen: [Bool] = []
        context["f"] = JSValue(newFunctionIn: context) { (a: Any?, b: [Any]?, c: [String: Any]?, d: [AnyHashable: Any]?) in
            seen = [a == nil, b == nil, c == nil, d == nil]
        }
        context.evaluateScript("f()")
        #expect(seen == [true, true, true, true])
        context.evaluateScript("f(null, null, null, null)")
        #expect(seen == [false, true, true, true])   // `Any?` is `id`: null is NSNull
        context.evaluateScript("f(0, [], {}, {k: 1})")
        #expect(seen == [false, false, false, false])
        #expect(context.exception == nil)
    }

    @Test func arraysAndAnyHashableDictionaries() throws {
        context["count"] = JSValue(newFunctionIn: context) { (items: [Any], table: [AnyHashable: Any]) -> Int in
            items.count + table.count
        }
        #expect(context.evaluateScript("count([1, 2, 3], {a: 1, b: undefined})").toInt32() == 4)
        // A non-array object converts as toArray() does (its length, here none: empty).
        #expect(context.evaluateScript("count({}, {})").toInt32() == 0)
        #expect(thrown(context, "count('abc', {})")?.message == "argument 1: expected Array<Any>, got a string")
    }

    @Test func mixedWithTypedParametersAndAnyResults() {
        context["tag"] = JSValue(newFunctionIn: context) { (count: Int, extra: [String: Any]) -> [String: Any] in
            var result = extra
            result["count"] = count
            return result
        }
        #expect(context.evaluateScript("var t = tag(2, {a: 'x'}); t.a + t.count").toString() == "x2")
        // The typed parameter keeps its rule (ToNumber), the result any convertible shape.
        context["any"] = JSValue(newFunctionIn: context) { (kind: String) -> Any in
            kind == "array" ? [1, "two"] as [Any] : NSNull()
        }
        #expect(context.evaluateScript("any('array')[1]").toString() == "two")
        #expect(context.evaluateScript("any('other') === null").toBool())
        context["nothing"] = JSValue(newFunctionIn: context) { (_: Any) -> Any? in nil }
        #expect(context.evaluateScript("nothing(1) === undefined").toBool())
    }

    @Test func aTypeNoValueConvertsToFailsWhenCalled() {
        context["bad"] = JSValue(newFunctionIn: context) { (value: Unconvertible) in value.value }
        let error = thrown(context, "bad(1)")
        #expect(error?.name == "TypeError")
        #expect(error?.message.hasPrefix("argument 1: Unconvertible is not a type JavaScript values convert to") == true)
        // A result of such a type is the conversion table's TypeError.
        context["badResult"] = JSValue(newFunctionIn: context) { (_: Any) in Unconvertible() }
        #expect(thrown(context, "badResult(1)")?.message.contains("cannot convert a Swift value of type Unconvertible") == true)
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }

    /// A Swift closure reaching the `Any` conversion (not wrapped by `JSValue(newFunctionIn:)`)
    /// is the README's TypeError, at the top level and nested, never a crash.
    @Test func aPlainClosurePassedAsAnyIsATypeError() {
        let add: (Int, Int) -> Int = { $0 + $1 }
        context.setObject(add, forKeyedSubscript: "add" as NSString)
        let message = "cannot convert a Swift function of type (Int, Int) -> Int to JavaScript: wrap Swift closures with JSValue(newFunctionIn:)"
        #expect(context.exception?.forProperty("message").toString() == message)
        context.exception = nil
        #expect(JSValue(object: ["callbacks": [add]], in: context) != nil)
        #expect(context.exception?.forProperty("message").toString() == message)
        context.exception = nil
        let greet = context.evaluateScript("(function (f) { return typeof f })")!
        #expect(throws: JSException.self) { try greet.call({ () in 1 } as () -> Int) }
        #expect(context.evaluateScript("typeof add").toString() == "undefined")
    }

    @Test func exportedMembers() {
        context["Panel"] = Panel.self
        #expect(context.evaluateScript("var p = new Panel({title: 'T', size: 3}); p.option('title')").toString() == "T")
        #expect(context.evaluateScript("p.option('size')").toInt32() == 3)
        #expect(context.evaluateScript("p.option('none') === undefined").toBool())
        #expect(context.evaluateScript("p.merge({size: 4}); p.merge(null); p.option('size')").toInt32() == 4)
        #expect(context.evaluateScript("Panel.describe('s')").toString() == "String")
        #expect(thrown(context, "new Panel(1)")?.message == "argument 1: expected Dictionary<String, Any>, got a number")
    }

    @Test func typedCallsReturningAnyShapes() throws {
        let make = context.evaluateScript("(function (n, o) { return n === undefined ? 5 : {n: n, o: o} })")!
        let dictionary = try make.call(1, ["k": "v"] as [String: Any], returning: [String: Any].self)
        #expect(dictionary["n"] as? Int == 1)
        #expect((dictionary["o"] as? [String: Any])?["k"] as? String == "v")
        let anything = try make.call(returning: Any.self)
        #expect(anything as? Int == 5)
        // 5 is not an array: a TypeError, as the typed call's strict rule gives.
        let error = #expect(throws: JSException.self) { try make.call(returning: [Any]?.self) }
        #expect(error?.message == "expected Array<Any>, got a number")
    }
}
