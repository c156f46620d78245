import Foundation
import Testing

@testable import DuktapeCore

/// The conversion tables of JavaScriptCore (jsc-api.md §2), extended for Swift, both ways.
@Suite("Conversion")
struct ConversionTests {
    let context = JSContext()!

    /// Struct objects have JavaScriptCore's property order in every run (a Swift dictionary's
    /// order changes with each instance's seed, so 200 runs show any dependence on it).
    @Test func structShapesHaveAFixedPropertyOrder() {
        let stringify = context.evaluateScript("(function (value) { return JSON.stringify(value) })")!
        for _ in 0..<200 {
            let shapes: [(JSValue, String)] = [
                (JSValue(point: CGPoint(x: 3, y: 4), in: context), #"{"x":3,"y":4}"#),
                (JSValue(size: CGSize(width: 5, height: 6), in: context), #"{"width":5,"height":6}"#),
                (JSValue(rect: CGRect(x: 1, y: 2, width: 3, height: 4), in: context), #"{"x":1,"y":2,"width":3,"height":4}"#),
                (JSValue(range: NSRange(location: 7, length: 8), in: context), #"{"location":7,"length":8}"#),
            ]
            for (value, expected) in shapes {
                #expect(stringify.call(withArguments: [value]).toString() == expected)
            }
        }
    }

    // MARK: - Swift → JavaScript

    /// (name, Swift value, expected `typeof`, expected JSON or String form)
    static let swiftToJS: [(String, any Sendable, String, String)] = [
        ("String", "text", "string", "text"),
        ("Substring", "a-b".split(separator: "-")[1], "string", "b"),
        ("Character", Character("é"), "string", "é"),
        ("Bool", true, "boolean", "true"),
        ("Int", 42, "number", "42"),
        ("Int8", Int8(-8), "number", "-8"),
        ("Int16", Int16(16), "number", "16"),
        ("Int32", Int32.min, "number", "-2147483648"),
        ("Int64", Int64(1) << 40, "number", "1099511627776"),
        ("UInt", UInt(7), "number", "7"),
        ("UInt8", UInt8(255), "number", "255"),
        ("UInt16", UInt16(65535), "number", "65535"),
        ("UInt32", UInt32.max, "number", "4294967295"),
        ("UInt64", UInt64(1) << 53, "number", "9007199254740992"),
        ("Float", Float(0.5), "number", "0.5"),
        ("Double", 0.1, "number", "0.1"),
        ("CGFloat", CGFloat(2.5), "number", "2.5"),
        ("NSNumber int", NSNumber(value: 3), "number", "3"),
        ("NSNumber bool", NSNumber(value: true), "boolean", "true"),
        ("NSNull", NSNull(), "object", "null"),
        ("nil", Optional<Int>.none as any Sendable, "undefined", "undefined"),
        ("nested nil", Optional<Optional<Int>>.some(.none) as any Sendable, "undefined", "undefined"),
        ("Optional some", Optional(5) as any Sendable, "number", "5"),
        ("[Any]", [1, "two", NSNull(), [3]] as [any Sendable], "object", "[1,\"two\",null,[3]]"),
        ("[String: Any]", ["k": [1, 2]] as [String: any Sendable], "object", "{\"k\":[1,2]}"),
        ("[Int]", [1, 2, 3], "object", "[1,2,3]"),
        ("[String: Int]", ["a": 1], "object", "{\"a\":1}"),
        ("Date", Date(timeIntervalSince1970: 1.5), "object", "\"1970-01-01T00:00:01.500Z\""),
    ]

    @Test(arguments: swiftToJS)
    func swiftToJavaScript(name: String, value: any Sendable, type: String, form: String) throws {
        let check = try #require(context.evaluateScript("""
            (function (v) {
                if (typeof v === 'undefined') return 'undefined|undefined';
                if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return typeof v + '|' + String(v);
                return typeof v + '|' + JSON.stringify(v);
            })
            """))
        let result = check.call(withArguments: [value])?.toString()
        #expect(result == "\(type)|\(form)", "\(name)")
    }

    @Test func anyHashableDictionariesKeepOnlyStringKeys() {
        let dictionary: [AnyHashable: Any] = [AnyHashable("s"): 1, AnyHashable(2): 2, AnyHashable(NSString(string: "ns")): 3]
        let json = context.evaluateScript("JSON.stringify").call(withArguments: [JSValue(object: dictionary, in: context)!])
        #expect(json?.toString() == "{\"s\":1,\"ns\":3}" || json?.toString() == "{\"ns\":3,\"s\":1}")
    }

    @Test func dataAndBytesBecomeUint8Array() {
        let describe = context.evaluateScript("(function (v) { return Object.prototype.toString.call(v) + ':' + Array.prototype.join.call(v, ',') })")!
        #expect(describe.call(withArguments: [Data([1, 2, 255])]).toString() == "[object Uint8Array]:1,2,255")
        #expect(describe.call(withArguments: [[UInt8]([0, 7])]).toString() == "[object Uint8Array]:0,7")
        #expect(describe.call(withArguments: [Data()]).toString() == "[object Uint8Array]:")
    }

    @Test func datesKeepMillisecondPrecision() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123_456)
        let value = JSValue(object: date, in: context)!
        #expect(value.isDate)
        #expect(value.toDouble() == 1_700_000_000_123)
        #expect(value.toDate() == Date(timeIntervalSince1970: 1_700_000_000.123))
    }

    @Test func unsupportedSwiftTypesAreReportedNotCrashed() {
        struct Opaque {}
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(JSValue(object: Opaque(), in: context).isUndefined)
        #expect(JSValue(object: Set([1]), in: context).isUndefined)
        #expect(recorder.messages.count == 2)
        #expect(recorder.messages[0].contains("cannot convert a Swift value of type Opaque"))
    }

    @Test func deeplyNestedSwiftValuesFailCleanly() {
        var nested: Any = 1
        for _ in 0..<(ConversionLimits.maximumDepth + 5) { nested = [nested] }
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(JSValue(object: nested, in: context).isUndefined)
        // "value nested too deeply", or the native stack guard's RangeError on small stacks.
        #expect(recorder.messages.first?.hasPrefix("RangeError") == true)
        var shallow: Any = 1
        for _ in 0..<100 { shallow = [shallow] }
        #expect(JSValue(object: shallow, in: context).isArray)
    }

    // MARK: - JavaScript → Swift (toObject)

    @Test func primitivesToObject() {
        #expect(context.evaluateScript("undefined").toObject() == nil)
        #expect(context.evaluateScript("null").toObject() is NSNull)
        #expect(context.evaluateScript("true").toObject() as? Bool == true)
        #expect(context.evaluateScript("'s'").toObject() as? String == "s")
        #expect(context.evaluateScript("Symbol('x')").toObject() == nil)
        // An integral number reads back as both Int and Double; a fraction only as Double.
        let integral = context.evaluateScript("42").toObject()
        #expect(integral as? Int == 42)
        #expect(integral as? Double == 42)
        let fraction = context.evaluateScript("2.5").toObject()
        #expect(fraction as? Int == nil)
        #expect(fraction as? Double == 2.5)
        #expect((context.evaluateScript("NaN").toObject() as? Double)?.isNaN == true)
    }

    @Test func containersToObject() throws {
        let object = try #require(context.evaluateScript("({a: [1, 'two', null, undefined, , true], b: {c: new Date(1500)}, u: undefined})").toObject() as? [String: Any])
        let array = try #require(object["a"] as? [Any])
        #expect(array.count == 6)
        #expect(array[0] as? Int == 1)
        #expect(array[1] as? String == "two")
        #expect(array[2] is NSNull)
        #expect(array[3] is NSNull)  // undefined element
        #expect(array[4] is NSNull)  // hole
        #expect(array[5] as? Bool == true)
        let nested = try #require(object["b"] as? [String: Any])
        #expect(nested["c"] as? Date == Date(timeIntervalSince1970: 1.5))
        #expect(object.keys.contains("u") == false)
        #expect(context.evaluateScript("new Uint8Array([9, 8])").toObject() as? Data == Data([9, 8]))
        #expect((context.evaluateScript("(function () {})").toObject() as? [String: Any])?.isEmpty == true)
        #expect((context.evaluateScript("/re/g").toObject() as? [String: Any]) != nil)
    }

    @Test func toArrayRules() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(context.evaluateScript("null").toArray() == nil)
        #expect(context.evaluateScript("undefined").toArray() == nil)
        #expect(context.evaluateScript("1").toArray() == nil)
        #expect(context.evaluateScript("'abc'").toArray() == nil)
        #expect(recorder.messages == ["TypeError: Cannot convert primitive to NSArray", "TypeError: Cannot convert primitive to NSArray"])
        #expect(context.evaluateScript("({})").toArray().isEmpty)
        let arrayLike = context.evaluateScript("({length: 2, 0: 'a', 1: 'b', 2: 'ignored'})").toArray()
        #expect(arrayLike?.count == 2)
        #expect(arrayLike?.last as? String == "b")
        #expect(context.evaluateScript("[1, , 3]").toArray().count == 3)
    }

    @Test func toDictionaryRules() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(context.evaluateScript("null").toDictionary() == nil)
        #expect(context.evaluateScript("true").toDictionary() == nil)
        #expect(recorder.messages == ["TypeError: Cannot convert primitive to NSDictionary"])
        let inherited = context.evaluateScript("var proto = {inherited: 1}; var o = Object.create(proto); o.own = 2; Object.defineProperty(o, 'hidden', {value: 3}); o")!
        let dictionary = inherited.toDictionary()!
        #expect(dictionary["own"] as? Int == 2)
        #expect(dictionary["inherited"] as? Int == 1)
        #expect(dictionary["hidden"] == nil)
        #expect(context.evaluateScript("['x', 'y']").toDictionary()["1"] as? String == "y")
    }

    @Test func cyclicGraphsConvertToFiniteValues() throws {
        let cyclic = try #require(context.evaluateScript("var a = {name: 'a'}; a.self = a; a.list = [a, 1]; a"))
        let dictionary = try #require(cyclic.toObject() as? [String: Any])
        #expect(dictionary["name"] as? String == "a")
        let backReference = try #require(dictionary["self"] as? JSValue)
        #expect(backReference.isEqual(to: cyclic))
        let list = try #require(dictionary["list"] as? [Any])
        #expect((list[0] as? JSValue)?.isEqual(to: cyclic) == true)
        // Shared but acyclic sub-objects are converted each time they appear.
        let shared = try #require(context.evaluateScript("var s = {v: 1}; ({x: s, y: s, z: [s, s]})").toObject() as? [String: Any])
        #expect((shared["x"] as? [String: Any])?["v"] as? Int == 1)
        #expect(((shared["z"] as? [Any])?[1] as? [String: Any])?["v"] as? Int == 1)
        let cyclicArray = try #require(context.evaluateScript("var r = [1]; r.push(r); r").toArray())
        #expect(cyclicArray.count == 2)
        #expect(cyclicArray[1] is JSValue)
    }

    @Test func deeplyNestedJavaScriptValuesFailCleanly() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let deep = context.evaluateScript("var d = []; for (var i = 0; i < 100000; i++) d = [d]; d")!
        #expect(deep.toObject() == nil)
        #expect(deep.toArray() == nil)
        #expect(recorder.messages.count == 2)
        #expect(recorder.messages.allSatisfy { $0.contains("nested too deeply") })
        #expect(context.evaluateScript("var e = []; for (var j = 0; j < 100; j++) e = [e]; e").toArray().count == 1)
    }

    @Test func hugeArrayLikesAreRefusedInsteadOfAllocated() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(context.evaluateScript("({length: 4294967295})").toArray() == nil)
        #expect(context.evaluateScript("var big = []; big[4294967294] = 1; big").toObject() == nil)
        #expect(recorder.messages.allSatisfy { $0.hasPrefix("RangeError: array too long") })
        #expect(recorder.messages.count == 2)
    }

    @Test func hostileGettersDuringConversion() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let value = context.evaluateScript("({ok: 1, get bad() { throw new Error('getter ran') }})")!
        #expect(value.toObject() == nil)
        #expect(recorder.messages == ["Error: getter ran"])
        let mutating = context.evaluateScript("var m = {a: 1, get b() { delete this.c; m.d = 4; return 2 }, c: 3}; m")!
        let dictionary = mutating.toDictionary()
        #expect(dictionary?["a"] as? Int == 1)
        #expect(dictionary?["b"] as? Int == 2)
        let proxy = context.evaluateScript("new Proxy({}, {ownKeys: function () { throw new Error('trap') }})")!
        _ = proxy.toDictionary()
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }

    // MARK: - Numbers (JSC toInt32/toUInt32/toInt64 rules and ToNumber)

    static let numberTable: [(String, Int32, UInt32, Int64, Double)] = [
        ("4294967297", 1, 1, 4_294_967_297, 4_294_967_297),
        ("2147483648", -2_147_483_648, 2_147_483_648, 2_147_483_648, 2_147_483_648),
        ("-1", -1, 4_294_967_295, -1, -1),
        ("NaN", 0, 0, 0, .nan),
        ("Infinity", 0, 0, 0, .infinity),
        ("-Infinity", 0, 0, 0, -.infinity),
        ("'12'", 12, 12, 12, 12),
        ("true", 1, 1, 1, 1),
        ("false", 0, 0, 0, 0),
        ("null", 0, 0, 0, 0),
        ("undefined", 0, 0, 0, .nan),
        ("''", 0, 0, 0, 0),
        ("'A'", 0, 0, 0, .nan),
        ("1/3", 0, 0, 0, 1.0 / 3),
        ("-2.9", -2, 4_294_967_294, -2, -2.9),
        ("1e20", 1_661_992_960, 1_661_992_960, 7_766_279_631_452_241_920, 1e20),
        ("new Date(7)", 7, 7, 7, 7),
        ("[5]", 5, 5, 5, 5),
        ("({valueOf: function () { return 9 }})", 9, 9, 9, 9),
    ]

    @Test(arguments: numberTable)
    func numberConversions(script: String, int32: Int32, uint32: UInt32, int64: Int64, double: Double) {
        let value = context.evaluateScript(script)!
        #expect(value.toInt32() == int32, "\(script)")
        #expect(value.toUInt32() == uint32, "\(script)")
        #expect(value.toInt64() == int64, "\(script)")
        let converted = value.toDouble()
        #expect(converted == double || (converted.isNaN && double.isNaN), "\(script)")
    }

    static let booleanAndStringTable: [(String, Bool, String)] = [
        ("undefined", false, "undefined"), ("null", false, "null"), ("false", false, "false"),
        ("0", false, "0"), ("''", false, ""), ("NaN", false, "NaN"), ("true", true, "true"),
        ("1", true, "1"), ("1/3", true, "0.3333333333333333"), ("'1'", true, "1"), ("'A'", true, "A"),
        ("({})", true, "[object Object]"), ("[1, [2, 3]]", true, "1,2,3"), ("-0", false, "0"),
    ]

    @Test(arguments: booleanAndStringTable)
    func booleanAndStringConversions(script: String, bool: Bool, string: String) {
        let value = context.evaluateScript(script)!
        #expect(value.toBool() == bool, "\(script)")
        #expect(value.toString() == string, "\(script)")
    }

    @Test func toNumberAndToDate() {
        #expect(context.evaluateScript("true").toNumber() == NSNumber(value: true))
        #expect(context.evaluateScript("'abc'").toNumber().doubleValue.isNaN)
        #expect(context.evaluateScript("undefined").toNumber().doubleValue.isNaN)
        #expect(context.evaluateScript("null").toNumber() == 0)
        #expect(context.evaluateScript("new Date(1500)").toDate() == Date(timeIntervalSince1970: 1.5))
        #expect(context.evaluateScript("2000").toDate() == Date(timeIntervalSince1970: 2))
        #expect(context.evaluateScript("new Date(0)").toObjectOf(NSDate.self) as? Date == Date(timeIntervalSince1970: 0))
        #expect(context.evaluateScript("'x'").toObjectOf(NSString.self) as? String == "x")
        #expect(context.evaluateScript("'x'").toObjectOf(NSDate.self) == nil)
        #expect(context.evaluateScript("[1]").toObjectOf(NSArray.self) != nil)
        #expect(context.evaluateScript("1").toObjectOf(nil) == nil)
    }

    @Test func conversionErrorsFromValueOf() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let hostile = context.evaluateScript("({valueOf: function () { throw new Error('valueOf') }, toString: function () { throw new Error('toString') }})")!
        #expect(hostile.toDouble().isNaN)
        #expect(hostile.toInt32() == 0)
        #expect(hostile.toString() == nil)
        #expect(hostile.toBool())
        #expect(recorder.messages == ["Error: valueOf", "Error: valueOf", "Error: toString"])
        let noPrototype = context.evaluateScript("Object.create(null)")!
        #expect(noPrototype.toDouble().isNaN)
        #expect(noPrototype.toString() == nil)
    }

    /// Found by fuzz-convert: a dictionary key "__proto__" replaced the new object's prototype
    /// instead of becoming a property, and the round trip lost it.
    @Test func dictionaryKeysAreDefinedNotAssigned() throws {
        let value = try #require(JSValue(object: ["__proto__": ["polluted": true], "constructor": false], in: context))
        #expect(eval(context, "(function (o) { return Object.getPrototypeOf(o) === Object.prototype && o.polluted === undefined })").call(withArguments: [value]).toBool())
        let back = try #require(value.toObject() as? [String: Any])
        #expect(back.count == 2)
        #expect((back["__proto__"] as? [String: Any])?["polluted"] as? Bool == true)
        #expect(back["constructor"] as? Bool == false)
    }

    /// Setters a script puts on the prototypes never see data converted from Swift. (The same
    /// accessor on `Array.prototype[0]` once captured the registry where values are pinned
    /// for Swift: every JSValue failed with "out of memory while keeping a value".)
    @Test func scriptSettersOnPrototypesDoNotSeeConvertedData() throws {
        let context = JSContext()!
        eval(context, """
            var seen = [];
            Object.defineProperty(Object.prototype, 'password', { set: function (v) { seen.push(v) }, configurable: true });
            Object.defineProperty(Array.prototype, '0', { set: function (v) { seen.push(v) }, configurable: true });
            """)
        context.setObject(["password": "hunter2", "list": ["first"]] as [String: Any], forKeyedSubscript: "secrets")
        #expect(eval(context, "seen.length").toInt32() == 0)
        #expect(eval(context, "secrets.password + ',' + secrets.list[0]").toString() == "hunter2,first")
        #expect(eval(context, "Object.getOwnPropertyNames(secrets.list).join()").toString() == "0,length")
        let values = (0..<20).map { JSValue(object: "pinned \($0)", in: context)! }
        #expect(values.map { $0.toString() ?? "" } == (0..<20).map { "pinned \($0)" })
        #expect(eval(context, "seen.length").toInt32() == 0)
    }

    /// Found by fuzz-convert: an empty `[Any]` (and one of NSNumbers) also casts to `[UInt8]`,
    /// and became a `Uint8Array`.
    @Test func onlyExactByteArraysBecomeUint8Arrays() throws {
        for value in [[] as [Any], [NSNumber(value: 1), NSNumber(value: 2)] as [Any], [[] as [Any]] as [Any]] {
            let converted = try #require(JSValue(object: value, in: context))
            #expect(converted.isArray)
            #expect((converted.toObject() as? [Any])?.count == value.count)
        }
        #expect(eval(context, "(function (v) { return v instanceof Uint8Array })").call(withArguments: [[1, 2] as [UInt8]]).toBool())
    }

    /// Found by fuzz-convert: flooring `seconds * 1000` lost a whole millisecond when the
    /// product came out a hair below the exact count (negative dates, and dates since 2001).
    @Test(arguments: [-4_237_368.771, -0.001, 1.999, 1_234_567_890.123, -62_135_596_800.001, 0.0005, -0.0005, 1.9999])
    func datesKeepTheirWholeMilliseconds(seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let value = try #require(JSValue(object: date, in: context))
        let expected = (seconds * 1000 - (seconds * 1000).rounded()).magnitude < 1e-6
            ? (seconds * 1000).rounded() : (seconds * 1000).rounded(.down)
        #expect(value.toDouble() == expected)
        let back = try #require(value.toDate())
        #expect((back.timeIntervalSince1970 * 1000 - expected).magnitude < 1e-3)
    }
}
