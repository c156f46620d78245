import Foundation
import Testing

@testable import DuktapeCore

@Suite("JSValue")
struct JSValueTests {
    let context = JSContext()!

    // MARK: - Creation

    @Test func primitiveInitializers() {
        #expect(JSValue(bool: true, in: context).isBoolean)
        #expect(JSValue(bool: false, in: context).toBool() == false)
        #expect(JSValue(double: 0.5, in: context).toDouble() == 0.5)
        #expect(JSValue(int32: -7, in: context).toInt32() == -7)
        #expect(JSValue(uInt32: 4_000_000_000, in: context).toUInt32() == 4_000_000_000)
        #expect(JSValue(uInt32: 4_000_000_000, in: context).toDouble() == 4_000_000_000)
        #expect(JSValue(nullIn: context).isNull)
        #expect(JSValue(undefinedIn: context).isUndefined)
        #expect(JSValue(int32: 1, in: nil) == nil)
        #expect(JSValue(object: 1, in: nil) == nil)
        #expect(JSValue(newObjectIn: nil) == nil)
    }

    @Test func aUint8ArrayJoinsItsChunksInOrder() throws {
        let chunks: [[UInt8]] = [[1, 2], [], [3, 4, 5]]
        let array = try JSValue(newUint8ArrayJoining: chunks, in: context)
        #expect(array.isInstance(of: context.objectForKeyedSubscript("Uint8Array")))
        #expect(array.toObject() as? Data == Data([1, 2, 3, 4, 5]))
        // Slices, Data and collections without contiguous storage copy the same way.
        let mixed = try JSValue(newUint8ArrayJoining: [AnyCollection(Data([9, 8])), AnyCollection(repeatElement(7, count: 3)),
                                                       AnyCollection([0, 1, 2, 3][1...])], in: context)
        #expect(mixed.toObject() as? Data == Data([9, 8, 7, 7, 7, 1, 2, 3]))
        let empty = try JSValue(newUint8ArrayJoining: [[UInt8]](), in: context)
        #expect(empty.forProperty("length").toInt32() == 0 && empty.isObject)
        // The array is the script's: it can write to it and read it back.
        context.setObject(array, forKeyedSubscript: "bytes")
        #expect(context.evaluateScript("bytes[0] = 200; bytes[0] + bytes[4]").toInt32() == 205)
    }

    /// A collection whose `count` is not what it yields never leaves a byte of the array
    /// unwritten (zeros fill a shortfall) or writes past it (extra bytes are dropped).
    @Test func aUint8ArrayOfLyingChunksIsAlwaysFullyWritten() throws {
        let short = try JSValue(newUint8ArrayJoining: [Liar(claimed: 6, actual: [1, 2]), Liar(claimed: 2, actual: [3, 4])], in: context)
        #expect(short.toObject() as? Data == Data([1, 2, 3, 4, 0, 0, 0, 0]))
        let long = try JSValue(newUint8ArrayJoining: [Liar(claimed: 1, actual: [1, 2, 3]), Liar(claimed: 1, actual: [4])], in: context)
        #expect(long.toObject() as? Data == Data([1, 2]))
    }

    /// Too many bytes, or more than the memory limit allows, throw a RangeError (and report
    /// nothing: the caller has the error).
    @Test func aUint8ArrayTooLargeThrowsARangeError() throws {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect {
            _ = try JSValue(newUint8ArrayJoining: [Liar(claimed: Int.max, actual: []), Liar(claimed: 1, actual: [])], in: context)
        } throws: { ($0 as? JSException)?.description.hasPrefix("RangeError: byte array too long") == true }
        #expect {
            _ = try JSValue(newUint8ArrayJoining: [Liar(claimed: -5, actual: [])], in: context)
        } throws: { ($0 as? JSException)?.name == "RangeError" }

        let vm = JSVirtualMachine()!
        let limited = JSContext(virtualMachine: vm)!
        vm.memoryLimit = vm.memoryUsage + (1 << 20)
        #expect {
            _ = try JSValue(newUint8ArrayJoining: [Data(count: 8 << 20)], in: limited)
        } throws: { ($0 as? JSException)?.name == "RangeError" }
        #expect(try JSValue(newUint8ArrayJoining: [Data(count: 1000)], in: limited).forProperty("length").toInt32() == 1000)
        #expect(recorder.messages.isEmpty)
    }

    @Test func objectAndArrayInitializers() {
        let object = JSValue(newObjectIn: context)!
        #expect(object.isObject && !object.isArray)
        #expect(object.toDictionary().isEmpty)
        let array = JSValue(newArrayIn: context)!
        #expect(array.isArray)
        #expect(array.forProperty("length").toInt32() == 0)
    }

    @Test func regularExpressionErrorAndSymbolInitializers() {
        let regexp = JSValue(newRegularExpressionFromPattern: "foo", flags: "gi", in: context)!
        #expect(regexp.toString() == "/foo/gi")
        #expect(regexp.invokeMethod("test", withArguments: ["xFOOx"]).toBool())
        let error = JSValue(newErrorFromMessage: "an error message", in: context)!
        #expect(error.toString() == "Error: an error message")
        #expect(error.isInstance(of: context.objectForKeyedSubscript("Error")))
        let symbol = JSValue(newSymbolFromDescription: "tag", in: context)!
        #expect(symbol.isSymbol && !symbol.isString && !symbol.isObject)
        #expect(symbol.description == "Symbol(tag)")
        #expect(JSValue(newSymbolFromDescription: "tag", in: context).isEqual(to: symbol) == false)
        #expect(JSValue(newSymbolFromDescription: nil, in: context).isSymbol)
    }

    @Test func invalidRegularExpressionReportsAndGivesUndefined() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(JSValue(newRegularExpressionFromPattern: "(", flags: "", in: context).isUndefined)
        #expect(JSValue(newRegularExpressionFromPattern: "a", flags: "qq", in: context).isUndefined)
        #expect(recorder.messages.count == 2)
        #expect(recorder.messages.allSatisfy { $0.hasPrefix("SyntaxError") })
    }

    // MARK: - Type checks

    @Test(arguments: [
        ("undefined", "undefined"), ("null", "null"), ("true", "boolean"), ("1.5", "number"),
        ("'s'", "string"), ("Symbol('x')", "symbol"), ("({})", "object"), ("[]", "array"),
        ("new Date(0)", "date"), ("(function () {})", "object"), ("new String('boxed')", "object"),
    ])
    func typeChecks(script: String, kind: String) {
        let value = context.evaluateScript(script)!
        #expect(value.isUndefined == (kind == "undefined"))
        #expect(value.isNull == (kind == "null"))
        #expect(value.isBoolean == (kind == "boolean"))
        #expect(value.isNumber == (kind == "number"))
        #expect(value.isString == (kind == "string"))
        #expect(value.isSymbol == (kind == "symbol"))
        #expect(value.isObject == ["object", "array", "date"].contains(kind))
        #expect(value.isArray == (kind == "array"))
        #expect(value.isDate == (kind == "date"))
        #expect(value.isBigInt == false)
    }

    /// `isFunction` reads the pinned object's header: callable objects only, as `typeof`.
    @Test(arguments: [
        ("(function () {})", true), ("(function () {}).bind(null)", true), ("Math.max", true),
        ("new Proxy(function () {}, {})", true), ("new Proxy({}, {})", false), ("Object", true),
        ("({})", false), ("[]", false), ("new Date(0)", false), ("'function'", false),
        ("Symbol('f')", false), ("new Uint8Array(1)", false), ("1", false), ("undefined", false),
        ("({ call: function () {} })", false), ("new Function('return 1')", true),
    ])
    func functionChecks(script: String, isFunction: Bool) throws {
        let value = try #require(context.evaluateScript(script))
        #expect(value.isFunction == isFunction)
        let typeofFunction = context.evaluateScript("(function (v) { return typeof v === 'function' })")!
        #expect(typeofFunction.call(withArguments: [value]).toBool() == isFunction)
    }

    @Test func dateCheckWorksAcrossContextsOfOneVM() {
        let other = JSContext(virtualMachine: context.virtualMachine)!
        let date = other.evaluateScript("new Date(5)")!
        context["foreignDate"] = date
        #expect(context.evaluateScript("foreignDate instanceof Date").toBool() == false)
        #expect(context.objectForKeyedSubscript("foreignDate").isDate)
    }

    // MARK: - Properties

    @Test func propertyAccess() {
        let object = context.evaluateScript("({a: 1, nested: {b: 'two'}})")!
        #expect(object.forProperty("a").toInt32() == 1)
        #expect(object.forProperty("nested").forProperty("b").toString() == "two")
        #expect(object.forProperty("missing").isUndefined)
        object.setValue([1, 2, 3], forProperty: "list")
        #expect(context.evaluateScript("(function (o) { return o.list.length })").call(withArguments: [object]).toInt32() == 3)
        #expect(object.hasProperty("list"))
        #expect(object.hasProperty("toString"))
        #expect(object.hasProperty("nope") == false)
        #expect(object.deleteProperty("list"))
        #expect(object.hasProperty("list") == false)
        #expect(object.deleteProperty("never-there"))
        // Keys are converted like values: numbers and symbols work.
        object.setValue("seven", forProperty: 7)
        #expect(object.forProperty("7").toString() == "seven")
        let symbol = JSValue(newSymbolFromDescription: "s", in: context)!
        object.setValue("by symbol", forProperty: symbol)
        #expect(object.forProperty(symbol).toString() == "by symbol")
        #expect(object.hasProperty(symbol))
    }

    @Test func swiftSubscripts() {
        let object = JSValue(newObjectIn: context)!
        object["name"] = JSValue(object: "Ada", in: context)
        #expect(object["name"].toString() == "Ada")
        object["age"] = 36
        let age: Int? = object["age"]
        #expect(age == 36)
        let wrong: String? = object["age"]
        #expect(wrong == nil)
        let array = JSValue(newArrayIn: context)!
        array[0] = JSValue(object: "zero", in: context)
        array[2] = true
        #expect(array.forProperty("length").toInt32() == 3)
        let flag: Bool? = array[2]
        #expect(flag == true)
        #expect(array[1].isUndefined)
        #expect(object.objectForKeyedSubscript("name").toString() == "Ada")
        object.setObject(1, forKeyedSubscript: "one")
        #expect(object.objectForKeyedSubscript("one").toInt32() == 1)
        array.setObject("x", atIndexedSubscript: 1)
        #expect(array.objectAtIndexedSubscript(1).toString() == "x")
    }

    @Test func readOnlyWritesAreIgnoredAndNonConfigurableDeletesReturnFalse() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let frozen = context.evaluateScript("Object.freeze({a: 1})")!
        frozen.setValue(2, forProperty: "a")
        #expect(frozen.forProperty("a").toInt32() == 1)
        frozen.setValue(2, forProperty: "added")
        #expect(frozen.hasProperty("added") == false)
        #expect(frozen.deleteProperty("a") == false)
        #expect(context.evaluateScript("[]").deleteProperty("length") == false)
        #expect(recorder.messages.isEmpty)
    }

    @Test func propertyErrorsGoToTheHandler() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let object = context.evaluateScript("({get bad() { throw new Error('getter') }, set bad(v) { throw new Error('setter') }})")!
        #expect(object.forProperty("bad").isUndefined)
        object.setValue(1, forProperty: "bad")
        let null = JSValue(nullIn: context)!
        #expect(null.forProperty("x").isUndefined)
        null.setValue(1, forProperty: "x")
        #expect(null.deleteProperty("x") == false)
        #expect(null.hasProperty("x") == false)
        #expect(JSValue(int32: 1, in: context).hasProperty("x") == false)
        #expect(recorder.messages.count == 5)
        #expect(recorder.messages[0] == "Error: getter")
        #expect(recorder.messages[1] == "Error: setter")
    }

    @Test func defineProperty() {
        let object = JSValue(newObjectIn: context)!
        object.defineProperty("id", descriptor: [
            JSPropertyDescriptorValueKey: 7,
            JSPropertyDescriptorWritableKey: false,
            JSPropertyDescriptorEnumerableKey: false,
            JSPropertyDescriptorConfigurableKey: false,
        ])
        #expect(object.forProperty("id").toInt32() == 7)
        object.setValue(8, forProperty: "id")
        #expect(object.forProperty("id").toInt32() == 7)
        #expect(object.deleteProperty("id") == false)
        #expect(object.toDictionary().isEmpty)
        let getter = context.evaluateScript("(function () { return 'computed' })")!
        object.defineProperty("computed", descriptor: [JSPropertyDescriptorGetKey: getter, JSPropertyDescriptorEnumerableKey: true])
        #expect(object.forProperty("computed").toString() == "computed")
        #expect([JSPropertyDescriptorWritableKey, JSPropertyDescriptorEnumerableKey, JSPropertyDescriptorConfigurableKey,
                 JSPropertyDescriptorValueKey, JSPropertyDescriptorGetKey, JSPropertyDescriptorSetKey]
                == ["writable", "enumerable", "configurable", "value", "get", "set"])
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        object.defineProperty("bad", descriptor: [JSPropertyDescriptorValueKey: 1, JSPropertyDescriptorGetKey: getter])
        JSValue(int32: 1, in: context).defineProperty("x", descriptor: [JSPropertyDescriptorValueKey: 1])
        #expect(recorder.messages.count == 2)
        #expect(recorder.messages.allSatisfy { $0.hasPrefix("TypeError") })
    }

    @Test func indexedAccessFollowsJavaScriptCoresRules() {
        let array = context.evaluateScript("['a', 'b']")!
        #expect(array.atIndex(1).toString() == "b")
        #expect(array.atIndex(5).isUndefined)
        array.setValue("c", at: 2)
        #expect(array.forProperty("length").toInt32() == 3)
        // 2^32 - 2 is the largest array index; from 2^32 - 1 on, indices are plain properties.
        array.setValue("last", at: 4_294_967_294)
        #expect(array.forProperty("length").toDouble() == 4_294_967_295)
        let other = context.evaluateScript("[]")!
        other.setValue("x", at: 4_294_967_295)
        other.setValue("y", at: 4_294_967_296)
        #expect(other.forProperty("length").toInt32() == 0)
        #expect(other.forProperty("4294967295").toString() == "x")
        #expect(other.forProperty("4294967296").toString() == "y")
        #expect(other.atIndex(4_294_967_296).toString() == "y")
        #expect(array.atIndex(-1).isUndefined)
    }

    // MARK: - Calling

    @Test func callConstructAndInvoke() throws {
        let add = context.evaluateScript("(function (a, b) { return a + b })")!
        #expect(add.call(withArguments: [2, 3]).toInt32() == 5)
        #expect(add.call(withArguments: ["a", "b"]).toString() == "ab")
        #expect(add.call(withArguments: []).toDouble().isNaN)
        #expect(add.call(withArguments: nil).toDouble().isNaN)
        #expect(context.evaluateScript("(function () {})").call(withArguments: []).isUndefined)
        #expect(context.evaluateScript("(function () { return this })").call(withArguments: []).isEqual(to: context.globalObject))
        let date = context.objectForKeyedSubscript("Date").construct(withArguments: [0])!
        #expect(date.isDate)
        #expect(date.toDate() == Date(timeIntervalSince1970: 0))
        #expect(context.evaluateScript("[3, 1, 2]").invokeMethod("join", withArguments: ["-"]).toString() == "3-1-2")
        let counter = context.evaluateScript("({n: 1, next: function () { return ++this.n }})")!
        #expect(counter.invokeMethod("next", withArguments: []).toInt32() == 2)
        #expect(try add.call(40, 2).toInt32() == 42)
        #expect(try add.call().toDouble().isNaN)
    }

    @Test func callingNonFunctionsAndThrowingFunctions() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(JSValue(int32: 1, in: context).call(withArguments: []).isUndefined)
        #expect(JSValue(newObjectIn: context).construct(withArguments: []).isUndefined)
        #expect(context.evaluateScript("({})").invokeMethod("missing", withArguments: []).isUndefined)
        #expect(context.evaluateScript("(function () { throw new Error('inside') })").call(withArguments: []).isUndefined)
        #expect(recorder.messages.count == 4)
        #expect(recorder.messages.last == "Error: inside")
        #expect(throws: JSException.self) { try JSValue(nullIn: context).call() }
    }

    // MARK: - Comparing

    @Test func equality() {
        let fortyTwo = context.evaluateScript("42")!
        #expect(fortyTwo.isEqual(to: 42))
        #expect(fortyTwo.isEqual(to: 42.0))
        #expect(fortyTwo.isEqual(to: "42") == false)
        #expect(fortyTwo.isEqualWithTypeCoercion(to: "42"))
        #expect(context.evaluateScript("'Hello'").isEqual(to: "Hello"))
        #expect(context.evaluateScript("null").isEqualWithTypeCoercion(to: nil))
        #expect(context.evaluateScript("null").isEqual(to: nil) == false)
        #expect(context.evaluateScript("NaN").isEqual(to: Double.nan) == false)
        let object = context.evaluateScript("({})")!
        #expect(object.isEqual(to: object))
        #expect(object.isEqual(to: context.evaluateScript("({})")) == false)
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let hostile = context.evaluateScript("({valueOf: function () { throw new Error('no') }})")!
        #expect(hostile.isEqualWithTypeCoercion(to: 1) == false)
        #expect(recorder.messages == ["Error: no"])
    }

    @Test func instanceOf() {
        let array = context.evaluateScript("[]")!
        #expect(array.isInstance(of: context.objectForKeyedSubscript("Array")))
        #expect(array.isInstance(of: context.objectForKeyedSubscript("Object")))
        #expect(array.isInstance(of: context.objectForKeyedSubscript("Date")) == false)
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(array.isInstance(of: 42) == false)
        #expect(recorder.messages.count == 1)
    }

    // MARK: - Structs and description

    @Test func structSupport() {
        let point = JSValue(point: CGPoint(x: 1.5, y: -2), in: context)!
        #expect(point.forProperty("x").toDouble() == 1.5)
        #expect(point.toPoint() == CGPoint(x: 1.5, y: -2))
        let range = JSValue(range: NSRange(location: 2, length: 5), in: context)!
        #expect(range.toRange() == NSRange(location: 2, length: 5))
        #expect(context.evaluateScript("({location: -3, length: NaN})").toRange() == NSRange(location: 0, length: 0))
        let rect = JSValue(rect: CGRect(x: 1, y: 2, width: 3, height: 4), in: context)!
        #expect(rect.toRect() == CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(context.evaluateScript("({x: 1, y: 2, width: 3, height: 4})").toRect() == CGRect(x: 1, y: 2, width: 3, height: 4))
        let size = JSValue(size: CGSize(width: 10, height: 20), in: context)!
        #expect(size.toSize() == CGSize(width: 10, height: 20))
        #expect(JSValue(newObjectIn: context).toPoint().x.isNaN)
    }

    @Test func descriptionIsTheStringForm() {
        #expect(JSValue(object: [1, 2], in: context).description == "1,2")
        #expect("\(context.evaluateScript("({})")!)" == "[object Object]")
        #expect(JSValue(undefinedIn: context).description == "undefined")
        #expect(JSValue(double: 1.0 / 3, in: context).description == "0.3333333333333333")
        let hostile = context.evaluateScript("({toString: function () { throw 1 }, valueOf: function () { throw 2 }})")!
        #expect(hostile.description == "<value whose toString threw>")
        #expect(hostile.toString() == nil)
    }
}

@Suite("JSValue comparison and BigInt")
struct JSValueComparisonTests {
    let context = JSContext()!

    @Test func compare() {
        let two = JSValue(int32: 2, in: context)!
        #expect(two.compare(JSValue(int32: 3, in: context)!) == .lessThan)
        #expect(two.compare(JSValue(double: 2, in: context)!) == .equal)
        #expect(two.compare(JSValue(double: .nan, in: context)!) == .undefined)
        #expect(two.compare(1.5) == .greaterThan)
        #expect(two.compare(Int64(2)) == .equal)
        #expect(two.compare(UInt64(3)) == .lessThan)
        #expect(JSValue(double: 2.5, in: context)!.compare(Int64(2)) == .greaterThan)
        #expect(JSValue(double: -2.5, in: context)!.compare(Int64(-2)) == .lessThan)
        #expect(JSValue(double: 1e300, in: context)!.compare(Int64.max) == .greaterThan)
        #expect(JSValue(double: -1, in: context)!.compare(UInt64(0)) == .lessThan)
        #expect(context.evaluateScript("'7'").compare(7.0) == .equal)
        #expect(context.evaluateScript("'x'").compare(7.0) == .undefined)
        #expect(JSRelationCondition.greaterThan.rawValue == 2)
    }

    @Test func bigIntIsReportedAsUnsupported() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(JSValue(newBigIntFrom: "1", in: context) == nil)
        #expect(JSValue(newBigIntFrom: Int64(1), in: context) == nil)
        #expect(JSValue(newBigIntFrom: UInt64(1), in: context) == nil)
        #expect(JSValue(newBigIntFrom: 1.0, in: context) == nil)
        #expect(recorder.messages.count == 4)
        #expect(recorder.messages.allSatisfy { $0.contains("BigInt is not supported") })
        #expect(context.evaluateScript("typeof BigInt").toString() == "undefined")
    }
}

/// A collection of bytes whose `count` is `claimed` whatever it yields.
private struct Liar: Collection {
    let claimed: Int
    let actual: [UInt8]
    var startIndex: Int { 0 }
    var endIndex: Int { actual.count }
    var count: Int { claimed }
    subscript(position: Int) -> UInt8 { actual[position] }
    func index(after index: Int) -> Int { index + 1 }
}
