import Foundation
import Testing

@testable import DuktapeCore

// MARK: - Fixtures

private struct Address: Codable, Equatable {
    var street: String
    var zip: String?
}

private enum Role: String, Codable { case admin, guest }

private struct Person: Codable, Equatable {
    var name: String
    var age: Int
    var height: Double
    var member: Bool
    var nickname: String?
    var tags: [String]
    var scores: [String: Int]
    var address: Address
    var previous: [Address]
    var role: Role
    var born: Date
    var avatar: Data
    var homepage: URL
    var small: Int8
    var big: UInt64
    var ratio: Float
}

private let ada = Person(
    name: "Ada \u{1F600} \"quoted\" `tick` ${x} \u{2028}\0end", age: 36, height: 1.65, member: true, nickname: nil,
    tags: ["math", "engines"], scores: ["notes": 10, "programs": 1],
    address: Address(street: "St James's Square", zip: nil), previous: [Address(street: "Marylebone", zip: "NW1")],
    role: .admin, born: Date(timeIntervalSince1970: -4_737_283_200), avatar: Data([0, 1, 2, 255]),
    homepage: URL(string: "https://example.com/ada?x=1")!, small: -128, big: 9_007_199_254_740_992, ratio: 0.5)

/// A point that converts by Codable in typed calls, closures and exported methods.
private struct Vec2: JSValueCodable, Equatable {
    var x: Double
    var y: Double
}

/// Keyed, unkeyed and nested containers by hand, and a super encoder.
private class Figure: Codable {
    var name: String
    init(name: String) { self.name = name }
}

private final class Polygon: Figure {
    var corners: [[Double]]
    var bounds: (min: Double, max: Double)

    init(name: String, corners: [[Double]]) {
        self.corners = corners
        bounds = (corners.flatMap { $0 }.min() ?? 0, corners.flatMap { $0 }.max() ?? 0)
        super.init(name: name)
    }

    private enum Keys: String, CodingKey { case corners, bounds, min, max }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var corners = container.nestedUnkeyedContainer(forKey: .corners)
        for corner in self.corners {
            var pair = corners.nestedUnkeyedContainer()
            for value in corner { try pair.encode(value) }
        }
        var bounds = container.nestedContainer(keyedBy: Keys.self, forKey: .bounds)
        try bounds.encode(self.bounds.min, forKey: .min)
        try bounds.encode(self.bounds.max, forKey: .max)
        try super.encode(to: container.superEncoder())
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var corners = try container.nestedUnkeyedContainer(forKey: .corners)
        var read: [[Double]] = []
        while !corners.isAtEnd {
            var pair = try corners.nestedUnkeyedContainer()
            var corner: [Double] = []
            while !pair.isAtEnd { corner.append(try pair.decode(Double.self)) }
            read.append(corner)
        }
        self.corners = read
        let bounds = try container.nestedContainer(keyedBy: Keys.self, forKey: .bounds)
        self.bounds = (try bounds.decode(Double.self, forKey: .min), try bounds.decode(Double.self, forKey: .max))
        try super.init(from: container.superDecoder())
    }
}

private struct Drawing: Codable { var points: [Vec2] }

/// A recursive type, for nesting and cycles.
private final class Node: Codable {
    var value: Int
    var next: Node?
    init(value: Int, next: Node?) {
        self.value = value
        self.next = next
    }
}

private func context(memoryLimit: Int? = nil) -> JSContext {
    let vm = JSVirtualMachine()!
    vm.memoryLimit = memoryLimit
    return JSContext(virtualMachine: vm)!
}

/// The coding path of a decoding or encoding error, as "a.b[2].c".
private func path(of error: any Error) -> String {
    let keys: [any CodingKey]
    switch error {
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
        DecodingError.dataCorrupted(let context):
        keys = context.codingPath
    case DecodingError.keyNotFound(let key, let context): keys = context.codingPath + [key]
    case EncodingError.invalidValue(_, let context): keys = context.codingPath
    default: return "not a coding error: \(error)"
    }
    return keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
}

@Suite("Codable values straight to and from JavaScript")
struct CodableTests {
    // MARK: Round trips and the value table

    @Test("a struct with every kind of field round-trips, and JavaScript sees the values JSON would give")
    func roundTrip() throws {
        let context = context()
        let value = try JSValue(encoding: ada, in: context)
        context.globalObject["ada"] = value
        #expect(eval(context, "typeof ada.age + ' ' + ada.age + ' ' + ada.member + ' ' + ada.tags.length").toString() == "number 36 true 2")
        #expect(eval(context, "ada.born instanceof Date && ada.born.getTime()").toDouble() == -4_737_283_200_000)
        #expect(eval(context, "ada.avatar instanceof Uint8Array && Array.prototype.join.call(ada.avatar)").toString() == "0,1,2,255")
        #expect(eval(context, "ada.homepage").toString() == "https://example.com/ada?x=1")
        #expect(eval(context, "'nickname' in ada || 'zip' in ada.address").toBool() == false)  // nil leaves the key out
        #expect(eval(context, "ada.previous[0].zip + ada.scores.notes + ada.role").toString() == "NW110admin")
        #expect(eval(context, "ada.name.length").toInt32() == Int32(ada.name.utf16.count))
        #expect(try value.decode(Person.self) == ada)
        // The same value through JSON text reads the same.
        let viaJSON = try context.evaluate("var copy = JSON.parse(JSON.stringify(ada)); copy.born = ada.born; copy.avatar = ada.avatar; copy")
        #expect(try viaJSON.decode(Person.self) == ada)
    }

    @Test("objects written in JavaScript decode, with undefined and null as nil and extra keys ignored")
    func decodeFromScript() throws {
        let context = context()
        let value = eval(context, """
            ({ name: 'Grace', age: 85, height: 1.5, member: false, nickname: null, tags: [], scores: {},
               address: { street: 'Arlington', zip: undefined, extra: [1, 2] }, previous: [], role: 'guest',
               born: new Date(-2000000000000), avatar: new Uint8Array([7]).buffer, homepage: 'file:///x',
               small: 127, big: 0, ratio: 3.25, unused: function () {} })
            """)
        let grace = try value.decode(Person.self)
        #expect(grace.nickname == nil && grace.address.zip == nil && grace.role == .guest)
        #expect(grace.born == Date(timeIntervalSince1970: -2_000_000_000) && grace.avatar == Data([7]))
        // A number of milliseconds is a Date (JavaScriptCore's rule), and an array of bytes is Data.
        #expect(try eval(context, "1000").decode(Date.self) == Date(timeIntervalSince1970: 1))
        #expect(try eval(context, "[1, 2, 3]").decode(Data.self) == Data([1, 2, 3]))
        #expect(try eval(context, "[1, null, undefined, 4]").decode([Int?].self) == [1, nil, nil, 4])
        #expect(try eval(context, "({a: 1, b: 2})").decode([String: Int].self) == ["a": 1, "b": 2])
        #expect(try eval(context, "'text'").decode(String.self) == "text")
        #expect(try eval(context, "null").decode(Int?.self) == nil)
    }

    @Test("hand-written containers: nested keyed and unkeyed, super encoders and decoders")
    func handWrittenContainers() throws {
        let context = context()
        let polygon = Polygon(name: "triangle", corners: [[0, 0], [4, 0], [0, 3]])
        let value = try JSValue(encoding: polygon, in: context)
        context.globalObject["p"] = value
        #expect(eval(context, "JSON.stringify(p)").toString()
            == #"{"corners":[[0,0],[4,0],[0,3]],"bounds":{"min":0,"max":4},"super":{"name":"triangle"}}"#)
        let back = try value.decode(Polygon.self)
        #expect(back.corners == polygon.corners && back.name == "triangle" && back.bounds == (0, 4))
        // An unkeyed super encoder keeps its place among the elements.
        struct Pair: Codable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(1)
                try "two".encode(to: container.superEncoder())
                try container.encode(3)
            }
            init() {}
            init(from decoder: any Decoder) throws {}
        }
        context.globalObject["pair"] = try JSValue(encoding: Pair(), in: context)
        #expect(eval(context, "JSON.stringify(pair)").toString() == #"[1,"two",3]"#)
        // A value that encodes nothing is {}, as JSONEncoder makes it.
        struct Empty: Codable {}
        #expect(try JSValue(encoding: Empty(), in: context).isObject)
    }

    // MARK: Key strategies

    private static let camelKeys = [
        "simple", "myURLValue", "URL", "aB", "AbC", "userID", "ID", "html5Parser", "value2Go", "a", "", "alreadySnake",
        "XMLHttpRequest", "oneTwoThree", "_leading", "trailing_", "camel_Snake", "éCole", "ÉcoleNormale",
    ]
    private static let snakeKeys = [
        "simple", "my_url_value", "_leading", "__double_leading", "trailing_", "a_b_c", "one__two", "URL_value",
        "already", "", "_", "__", "x_1", "ünï_côde", "a_",
    ]

    /// One field with a given name, through a keyed container (Foundation's key strategies
    /// apply to coding keys, not to a dictionary's keys).
    private struct OneKey: Codable {
        let name: String
        init(name: String) { self.name = name }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: PlainCodingKey.self)
            try container.encode(1, forKey: PlainCodingKey(stringValue: name))
        }
        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: PlainCodingKey.self).allKeys.first?.stringValue ?? "(none)"
        }
    }

    @Test("snake case converts every key as JSONEncoder and JSONDecoder do", arguments: [false, true])
    func snakeCase(decoding: Bool) throws {
        for key in decoding ? Self.snakeKeys : Self.camelKeys {
            if decoding {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                let expected = try decoder.decode(OneKey.self, from: try JSONEncoder().encode(OneKey(name: key))).name
                #expect(SnakeCase.toCamelCase(key) == expected, "key \(key)")
            } else {
                let encoder = JSONEncoder()
                encoder.keyEncodingStrategy = .convertToSnakeCase
                let expected = try JSONDecoder().decode(OneKey.self, from: try encoder.encode(OneKey(name: key))).name
                #expect(SnakeCase.fromCamelCase(key) == expected, "key \(key)")
            }
        }
    }

    @Test("the key strategies apply to fields, nested containers and super encoders")
    func keyStrategies() throws {
        struct Settings: Codable, Equatable {
            var maxRetryCount: Int
            var baseURL: String
            var innerValue: Inner
            struct Inner: Codable, Equatable { var someFlag: Bool }
        }
        let context = context()
        var encoder = JSValueEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let settings = Settings(maxRetryCount: 3, baseURL: "x", innerValue: .init(someFlag: true))
        context.globalObject["s"] = try encoder.encode(settings, in: context)
        #expect(eval(context, "JSON.stringify(s)").toString() == #"{"max_retry_count":3,"base_url":"x","inner_value":{"some_flag":true}}"#)
        var jsDecoder = JSValueDecoder()
        jsDecoder.keyDecodingStrategy = .convertFromSnakeCase
        // "base_url" reads as "baseUrl" (as with JSONDecoder), so the key needs its own name.
        struct Read: Codable { var maxRetryCount: Int; var baseUrl: String; var innerValue: Settings.Inner }
        let read = try jsDecoder.decode(Read.self, from: eval(context, "s"))
        #expect(read.maxRetryCount == 3 && read.baseUrl == "x" && read.innerValue.someFlag)

        var upper = JSValueEncoder()
        upper.keyEncodingStrategy = .custom { path in PlainCodingKey(stringValue: path.last?.stringValue.uppercased() ?? "") }
        context.globalObject["u"] = try upper.encode(settings, in: context)
        #expect(eval(context, "u.INNERVALUE.SOMEFLAG && u.MAXRETRYCOUNT").toInt32() == 3)
        var lower = JSValueDecoder()
        lower.keyDecodingStrategy = .custom { path in PlainCodingKey(stringValue: path.last?.stringValue.lowercased() ?? "") }
        struct Lower: Codable { var maxretrycount: Int }
        #expect(try lower.decode(Lower.self, from: eval(context, "u")).maxretrycount == 3)
    }

    // MARK: Errors name the coding path

    @Test("decoding errors name the path to the bad field")
    func decodingErrorPaths() throws {
        let context = context()
        func failure(_ script: String) -> (any Error)? {
            let value = eval(context, script)
            do {
                let drawing: Drawing = try value.decode()
                Issue.record("decoded \(drawing)")
                return nil
            } catch {
                return error
            }
        }
        let mismatch = try #require(failure("({points: [{x: 1, y: 2}, {x: 1, y: 'two'}]})"))
        #expect(path(of: mismatch) == ".points[1].y")
        guard case DecodingError.typeMismatch = mismatch else { Issue.record("\(mismatch)"); return }
        let missing = try #require(failure("({points: [{x: 1}]})"))
        #expect(path(of: missing) == ".points[0].y")
        guard case DecodingError.keyNotFound = missing else { Issue.record("\(missing)"); return }
        let null = try #require(failure("({points: [{x: null, y: 1}]})"))
        guard case DecodingError.valueNotFound = null else { Issue.record("\(null)"); return }
        #expect(path(of: null) == ".points[0].x")
        let notArray = try #require(failure("({points: {length: 1, 0: {x: 1, y: 1}}})"))
        guard case DecodingError.typeMismatch = notArray else { Issue.record("\(notArray)"); return }
        // Integers are read exactly.
        #expect(throws: DecodingError.self) { try eval(context, "1.5").decode(Int.self) }
        #expect(throws: DecodingError.self) { try eval(context, "300").decode(UInt8.self) }
        #expect(throws: DecodingError.self) { try eval(context, "1e40").decode(Float.self) }
        #expect(throws: DecodingError.self) { try eval(context, "'1'").decode(Int.self) }
        #expect(throws: DecodingError.self) { try eval(context, "new Date(NaN)").decode(Date.self) }
        #expect(throws: DecodingError.self) { try eval(context, "''").decode(URL.self) }
        #expect(throws: DecodingError.self) { try eval(context, "Symbol('s')").decode(String.self) }
        #expect(throws: DecodingError.self) { try eval(context, "[1]").decode([String: Int].self) }
    }

    @Test("encoding errors name the path; integers past 2^53 are refused, not rounded")
    func encodingErrors() throws {
        let context = context()
        struct Wide: Codable { var values: [String: Int64] }
        do {
            _ = try JSValue(encoding: Wide(values: ["ok": 1 << 53, "bad": (1 << 53) + 1]), in: context)
            Issue.record("encoded an integer JavaScript cannot hold")
        } catch {
            #expect(path(of: error) == ".values.bad")
        }
        #expect(throws: EncodingError.self) { try JSValue(encoding: UInt64.max, in: context) }
        #expect(try JSValue(encoding: [Int64(-(1 << 53))], in: context).atIndex(0).toDouble() == -9_007_199_254_740_992)
        // A container asked for twice in different kinds is an error, not a crash.
        struct Confused: Encodable {
            func encode(to encoder: any Encoder) throws {
                var keyed = encoder.container(keyedBy: PlainCodingKey.self)
                try keyed.encode(1, forKey: PlainCodingKey(stringValue: "a"))
                var unkeyed = encoder.unkeyedContainer()
                try unkeyed.encode(2)
            }
        }
        #expect(throws: EncodingError.self) { try JSValue(encoding: Confused(), in: context) }
        struct Twice: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                try single.encode(2)
            }
        }
        #expect(throws: EncodingError.self) { try JSValue(encoding: Twice(), in: context) }
    }

    // MARK: Typed calls, closures, exported methods

    private final class Canvas: JSExport {
        var points: [Vec2] = []
        static let jsClass = JSClass(Canvas.self) { c in
            c.method("add") { (canvas: Canvas, point: Vec2) in
                canvas.points.append(point)
                return canvas.points.count
            }
            c.method("last") { (canvas: Canvas) in canvas.points.last }
        }
    }

    @Test("JSValueCodable types are arguments and results of closures, typed calls, exported methods and subscripts")
    func typedBoundaries() throws {
        let context = context()
        context.globalObject["mirror"] = JSValue(newFunctionIn: context) { (point: Vec2) in Vec2(x: point.y, y: point.x) }
        #expect(eval(context, "JSON.stringify(mirror({x: 1, y: 2}))").toString() == #"{"x":2,"y":1}"#)
        let mirror = try #require(context.globalObject["mirror"] as JSValue?)
        #expect(try mirror.call(Vec2(x: 5, y: 6), returning: Vec2.self) == Vec2(x: 6, y: 5))

        let canvas = Canvas()
        context.globalObject["canvas"] = canvas
        #expect(eval(context, "canvas.add({x: 1, y: 1}) + canvas.add({x: 2, y: 3})").toInt32() == 3)
        #expect(canvas.points == [Vec2(x: 1, y: 1), Vec2(x: 2, y: 3)])
        #expect(eval(context, "canvas.last().y").toDouble() == 3)

        context.globalObject["origin"] = Vec2(x: 0, y: 0)
        let origin: Vec2? = context.globalObject["origin"]
        #expect(origin == Vec2(x: 0, y: 0))

        // A bad argument is a TypeError naming the argument and the field.
        let error = try #require(thrown(context, "mirror({x: 1, y: 'two'})"))
        #expect(error.name == "TypeError")
        #expect(error.message.contains("argument 1") && error.message.contains("y:"), "\(error.message)")
        // A typed call's result that does not decode names the field too.
        let bad = eval(context, "(function () { return {x: 'one', y: 2}; })")
        do {
            _ = try bad.call(returning: Vec2.self)
            Issue.record("decoded a bad result")
        } catch let exception as JSException {
            #expect(exception.message.contains("x:"), "\(exception.message)")
        }
    }

    @Test("a closure whose Codable result cannot be made throws into the script")
    func resultEncodingFailure() throws {
        struct Huge: JSValueCodable { var id: UInt64 }
        let context = context()
        context.globalObject["make"] = JSValue(newFunctionIn: context) { () in Huge(id: .max) }
        #expect(eval(context, "try { make(); 'no error' } catch (e) { e.message }").toString().contains("not exactly representable"))
        // Uncaught, it comes back out as the Swift error itself.
        #expect(throws: EncodingError.self) { try context.evaluate("make()") }
        #expect(eval(context, "1 + 1").toInt32() == 2)
    }

    // MARK: Hostile input

    @Test("a getter or Proxy trap that throws is a DecodingError naming the field, with the script's exception")
    func throwingGetters() throws {
        let context = context()
        let getter = eval(context, "({x: 1, get y() { throw new RangeError('no y for you'); }})")
        do {
            _ = try getter.decode(Vec2.self)
            Issue.record("decoded through a throwing getter")
        } catch let DecodingError.dataCorrupted(failure) {
            #expect(failure.codingPath.map(\.stringValue) == ["y"])
            #expect((failure.underlyingError as? JSException)?.message == "no y for you")
        }
        let trap = eval(context, "new Proxy({}, { get: function (t, k) { if (k === 'y') throw new Error('trap'); return 7; } })")
        #expect(throws: DecodingError.self) { try trap.decode(Vec2.self) }
        let friendly = eval(context, "new Proxy({}, { get: function (t, k) { return k === 'x' ? 1 : 2; } })")
        #expect(try friendly.decode(Vec2.self) == Vec2(x: 1, y: 2))
        // Listing a dictionary's keys runs its getters too.
        let dictionary = eval(context, "({a: 1, get b() { throw new Error('no b'); }})")
        #expect(throws: DecodingError.self) { try dictionary.decode([String: Int].self) }
        // The context is usable afterwards.
        #expect(eval(context, "2 + 2").toInt32() == 4)
    }

    @Test("cyclic objects and 100,000-deep nesting are clear errors, not a crash")
    func cyclesAndDepth() throws {
        let context = context()
        let cycle = eval(context, "var a = {value: 1}; a.next = a; a")
        do {
            _ = try cycle.decode(Node.self)
            Issue.record("decoded a cycle")
        } catch let DecodingError.dataCorrupted(failure) {
            #expect(failure.debugDescription.contains("nested too deeply"), "\(failure.debugDescription)")
        }
        let deep = eval(context, "var d = {value: 0}; for (var i = 1; i < 100000; i++) d = {value: i, next: d}; d")
        #expect(throws: DecodingError.self) { try deep.decode(Node.self) }
        let deepArrays = eval(context, "var x = []; for (var i = 0; i < 100000; i++) x = [x]; x")
        #expect(throws: DecodingError.self) { try deepArrays.decode(Nested.self) }
        // Swift's own 100,000-deep value.
        var chain: Node?
        for value in 0..<100_000 { chain = Node(value: value, next: chain) }
        do {
            _ = try JSValue(encoding: chain, in: context)
            Issue.record("encoded a 100,000-deep value")
        } catch let EncodingError.invalidValue(_, failure) {
            #expect((failure.underlyingError as? JSException)?.name == "RangeError")
        }
        // Tear the chain down without recursing 100,000 deep in deinit.
        while let node = chain { chain = node.next; node.next = nil }
        // Within the limit, deep values work.
        var shallow: Node?
        for value in 0..<400 { shallow = Node(value: value, next: shallow) }
        let decoded = try JSValue(encoding: shallow, in: context).decode(Node.self)
        #expect(decoded.value == 399)
    }

    private indirect enum Nested: Codable {
        case leaf
        case list([Nested])
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var items: [Nested] = []
            while !container.isAtEnd { items.append(try container.decode(Nested.self)) }
            self = .list(items)
        }
        func encode(to encoder: any Encoder) throws {}
    }

    @Test("huge arrays: a length past the limit, and an array the memory limit cannot hold")
    func hugeArrays() throws {
        let context = context(memoryLimit: 8 << 20)
        let sparse = eval(context, "var s = []; s.length = 100000000; s")
        do {
            _ = try sparse.decode([Int?].self)
            Issue.record("decoded an array of 100,000,000 elements")
        } catch let DecodingError.dataCorrupted(failure) {
            #expect(failure.debugDescription.contains("too long"), "\(failure.debugDescription)")
        }
        let big = [Int](repeating: 7, count: 4_000_000)
        do {
            _ = try JSValue(encoding: big, in: context)
            Issue.record("encoded 4,000,000 numbers under an 8 MiB limit")
        } catch let EncodingError.invalidValue(_, failure) {
            #expect((failure.underlyingError as? JSException)?.message.contains("memory") == true, "\(failure)")
        }
        // The VM recovers and still encodes what fits.
        #expect(try JSValue(encoding: [Int](repeating: 1, count: 10_000), in: context).forProperty("length").toInt32() == 10_000)
        // Under a deadline, a long decode is stopped too.
        let vm = JSVirtualMachine()!
        let timed = JSContext(virtualMachine: vm)!
        let many = eval(timed, "var m = []; for (var i = 0; i < 2000000; i++) m.push(i); m")
        vm.executionTimeLimit = 0.000_001
        #expect(throws: DecodingError.self) { try many.decode([Int].self) }
        vm.executionTimeLimit = nil
        #expect(try many.decode([Int].self).count == 2_000_000)
    }

    @Test("encoding and decoding from several threads at once, each with its own context")
    func concurrentUse() async throws {
        let vm = JSVirtualMachine()!
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let context = JSContext(virtualMachine: vm)!
                    for round in 0..<200 {
                        var person = ada
                        person.age = worker * 1000 + round
                        let value = try JSValue(encoding: person, in: context)
                        #expect(try value.decode(Person.self) == person)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
