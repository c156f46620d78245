import Foundation
import Testing

@testable import DuktapeCore

private struct Celsius: JSValueConvertible, Equatable {
    var degrees: Double
    func jsValue(in context: JSContext) -> JSValue { JSValue(double: degrees, in: context) }
    static func fromJSValue(_ value: JSValue) -> Celsius? { value.isNumber ? Celsius(degrees: value.toDouble()) : nil }
}

@Suite("JSValueConvertible")
struct JSValueConvertibleTests {
    let context = JSContext()!

    @Test func integersAreStrict() {
        #expect(Int.fromJSValue(context.evaluateScript("42")) == 42)
        #expect(Int.fromJSValue(context.evaluateScript("42.5")) == nil)
        #expect(Int.fromJSValue(context.evaluateScript("'42'")) == nil)
        #expect(Int8.fromJSValue(context.evaluateScript("200")) == nil)
        #expect(UInt8.fromJSValue(context.evaluateScript("200")) == 200)
        #expect(UInt.fromJSValue(context.evaluateScript("-1")) == nil)
        #expect(Int.fromJSValue(context.evaluateScript("NaN")) == nil)
        #expect(Int.fromJSValue(context.evaluateScript("Infinity")) == nil)
        #expect(Int64.fromJSValue(context.evaluateScript("9007199254740992")) == 9_007_199_254_740_992)
        #expect(Int32.fromJSValue(context.evaluateScript("-0")) == 0)
    }

    @Test func otherStandardTypes() {
        #expect(Double.fromJSValue(context.evaluateScript("0.25")) == 0.25)
        #expect(Float.fromJSValue(context.evaluateScript("0.25")) == 0.25)
        #expect(Double.fromJSValue(context.evaluateScript("true")) == nil)
        #expect(Bool.fromJSValue(context.evaluateScript("true")) == true)
        #expect(Bool.fromJSValue(context.evaluateScript("1")) == nil)
        #expect(String.fromJSValue(context.evaluateScript("'s'")) == "s")
        #expect(String.fromJSValue(context.evaluateScript("1")) == nil)
        #expect(String.fromJSValue(context.evaluateScript("Symbol()")) == nil)
        #expect(Character.fromJSValue(context.evaluateScript("'é'")) == "é")
        #expect(Character.fromJSValue(context.evaluateScript("'ab'")) == nil)
        #expect(Substring.fromJSValue(context.evaluateScript("'sub'")) == "sub")
        #expect(Date.fromJSValue(context.evaluateScript("new Date(1000)")) == Date(timeIntervalSince1970: 1))
        #expect(Date.fromJSValue(context.evaluateScript("1000")) == nil)
        #expect(Data.fromJSValue(context.evaluateScript("new Uint8Array([1, 2])")) == Data([1, 2]))
        #expect(NSNull.fromJSValue(context.evaluateScript("null")) != nil)
        #expect(NSNull.fromJSValue(context.evaluateScript("undefined")) == nil)
        let value = context.evaluateScript("({})")!
        #expect(JSValue.fromJSValue(value) === value)
    }

    @Test func containersAndOptionals() {
        #expect([Int].fromJSValue(context.evaluateScript("[1, 2, 3]")) == [1, 2, 3])
        #expect([Int].fromJSValue(context.evaluateScript("[1, 'x']")) == nil)
        #expect([Int].fromJSValue(context.evaluateScript("({length: 1, 0: 1})")) == nil)
        #expect([UInt8].fromJSValue(context.evaluateScript("new Uint8Array([5, 6])")) == [5, 6])
        #expect([String: Int].fromJSValue(context.evaluateScript("({a: 1, b: 2})")) == ["a": 1, "b": 2])
        #expect([String: Int].fromJSValue(context.evaluateScript("({a: 'x'})")) == nil)
        #expect([String: [Int]].fromJSValue(context.evaluateScript("({a: [1]})")) == ["a": [1]])
        #expect(Optional<Int>.fromJSValue(context.evaluateScript("null")) == .some(nil))
        #expect(Optional<Int>.fromJSValue(context.evaluateScript("7")) == .some(7))
        #expect(Optional<Int>.fromJSValue(context.evaluateScript("'7'")) == nil)
        #expect([Int?].fromJSValue(context.evaluateScript("[1, null]")) == [1, nil])
    }

    @Test func writingThroughJSValueConvertible() {
        #expect(42.jsValue(in: context).toInt32() == 42)
        #expect("s".jsValue(in: context).isString)
        #expect([1, 2].jsValue(in: context).isArray)
        #expect([UInt8](arrayLiteral: 1).jsValue(in: context).isArray == false)
        #expect(["a": 1].jsValue(in: context).forProperty("a").toInt32() == 1)
        #expect(Optional<Int>.none.jsValue(in: context).isUndefined)
        #expect(NSNull().jsValue(in: context).isNull)
        #expect(Date(timeIntervalSince1970: 2).jsValue(in: context).isDate)
    }

    @Test func customConformancesWorkEverywhere() {
        context.globalObject["temperature"] = Celsius(degrees: 21.5)
        let reading: Celsius? = context.globalObject["temperature"]
        #expect(reading == Celsius(degrees: 21.5))
        #expect(context.evaluateScript("temperature + 0.5").toDouble() == 22)
        #expect(JSValue(object: [Celsius(degrees: 1)], in: context).atIndex(0).toDouble() == 1)
        #expect(context.evaluateScript("(function (c) { return c * 2 })").call(withArguments: [Celsius(degrees: 4)]).toDouble() == 8)
    }
}
