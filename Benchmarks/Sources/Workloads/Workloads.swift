// DuktapeCore's side of every workload ("ours"), shared by the package-benchmark suite (time)
// and instruction-probe (callgrind's instruction counts, the CI gate), so that both measure the
// same code. The baselines' side is C (DuktapeBaselines, Baselines).
import DuktapeBaselines
import DuktapeCore
import Foundation

/// Operations per benchmark iteration, by workload (the report divides by these).
public enum Batch {
    public static let newContexts = 10
    public static let evaluations = 1_000
    public static let calls = 100_000
    public static let properties = 100_000
    public static let entries = Int(BASELINE_ENTRIES)
    public static let stringBytes = Int(BASELINE_STRING_BYTES)
    public static let exportedUses = 100_000
    public static let chainSteps = 100_000
    public static let allCount = 10_000
    public static let hostPromises = 10_000
    public static let timers = 100_000
    public static let posts = 10_000
}

/// A counter exported to JavaScript: the W9 workload (`c.add(1); s += c.value`).
public final class Counter: JSExport {
    public var value = 0.0
    public static let jsClass = JSClass(Counter.self) { c in
        c.method("add(_:)", as: "add") { (counter: Counter, amount: Double) -> Double in
            counter.value += amount
            return counter.value
        }
        c.property("value", \.value)
    }
}

/// The JavaScript every engine gets: the same text as the C baselines run.
public let prelude = String(cString: baseline_prelude()) + String(cString: baseline_promise_scripts())
    + "function callHostUntyped(n) { var s = 0; for (var i = 0; i < n; i++) s = addUntyped(s, 1); return s }"

public let bigString = String(repeating: "x", count: Batch.stringBytes)
public let tenThousand: [String: Int] = Dictionary(uniqueKeysWithValues: (0..<Batch.entries).map { ("k\($0)", $0) })
/// W7's JSON text, made once (the baselines make theirs once too): the rows time the crossing.
public let tenThousandJSON: String = {
    let data = (try? JSONSerialization.data(withJSONObject: tenThousand)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
}()

/// A context with the prelude, the host functions (`add` typed, `addUntyped` through the
/// JavaScriptCore-shaped `[JSValue]` form), the exported `counter` and W7's `received`.
public func makeOurs() -> JSContext {
    let context = JSContext()!
    context["add"] = JSValue(newFunctionIn: context) { (a: Double, b: Double) in a + b }
    context["addUntyped"] = JSValue(newFunctionIn: context) { _, arguments in
        arguments[0].toDouble() + arguments[1].toDouble()
    }
    context.evaluateScript(prelude)
    context["counter"] = Counter()
    context.setObject(tenThousand, forKeyedSubscript: "received")
    return context
}

/// Ours, by workload: each does `count` operations (or one, for whole-object workloads) on a
/// context made by `makeOurs()` and returns a result that depends on the work.
public enum Ours {
    /// W2.
    public static func evaluate(_ context: JSContext, count: Int) -> Double {
        var sum = 0.0
        for _ in 0..<count { sum += context.evaluateScript("1+1").toDouble() }
        return sum
    }

    /// W3.
    public static func fib(_ context: JSContext) -> Double {
        context.evaluateScript("fib(25)").toDouble()
    }

    /// W4: the typed closure `add`.
    public static func hostCalls(_ context: JSContext, count: Int) -> Double {
        context.objectForKeyedSubscript("callHost").call(withArguments: [count]).toDouble()
    }

    /// W4: the untyped closure `addUntyped` (`this` and `[JSValue]` in, `Any?` out).
    public static func untypedHostCalls(_ context: JSContext, count: Int) -> Double {
        context.objectForKeyedSubscript("callHostUntyped").call(withArguments: [count]).toDouble()
    }

    /// W5: `call(withArguments:)`.
    public static func jsCalls(_ context: JSContext, count: Int) -> Double {
        let add = context.objectForKeyedSubscript("jsAdd")!
        var sum = 0.0
        for _ in 0..<count { sum = add.call(withArguments: [sum, 1]).toDouble() }
        return sum
    }

    /// W5b: `invokeMethod(_:withArguments:)` on the global object.
    public static func methodCalls(_ context: JSContext, count: Int) -> Double {
        let global = context.globalObject!
        var sum = 0.0
        for _ in 0..<count { sum = global.invokeMethod("jsAdd", withArguments: [sum, 1]).toDouble() }
        return sum
    }

    /// W5 typed: `call(_:returning:)`.
    public static func typedJSCalls(_ context: JSContext, count: Int) -> Double {
        let add = context.objectForKeyedSubscript("jsAdd")!
        var sum = 0.0
        for _ in 0..<count { sum = (try? add.call(sum, 1.0, returning: Double.self)) ?? .nan }
        return sum
    }

    /// W6: `setValue(_:forProperty:)` and `forProperty(_:)`.
    public static func properties(_ context: JSContext, count: Int) -> Double {
        let object = JSValue(newObjectIn: context)!
        var sum = 0.0
        for index in 0..<count {
            object.setValue(index, forProperty: "key")
            sum += object.forProperty("key").toDouble()
        }
        return sum
    }

    /// W6b: `setObject(_:forKeyedSubscript:)` and `objectForKeyedSubscript(_:)` on the global
    /// object.
    public static func globalSubscripts(_ context: JSContext, count: Int) -> Double {
        var sum = 0.0
        for index in 0..<count {
            context.setObject(index, forKeyedSubscript: "key")
            sum += context.objectForKeyedSubscript("key").toDouble()
        }
        return sum
    }

    /// W6 typed: the typed subscript.
    public static func typedProperties(_ context: JSContext, count: Int) -> Double {
        let object = JSValue(newObjectIn: context)!
        var sum = 0.0
        for index in 0..<count {
            object["key"] = index
            sum += object["key"] ?? .nan
        }
        return sum
    }

    /// W7: a `[String: Int]` into a global.
    public static func objectToJS(_ context: JSContext) {
        context.setObject(tenThousand, forKeyedSubscript: "received")
    }

    /// W7: the global object back as `[String: Any]` (`toObject()`, as the JSON route gives).
    public static func objectToHost(_ context: JSContext) -> Int {
        (context.objectForKeyedSubscript("received").toObject() as? [String: Any])?.count ?? 0
    }

    /// W7 via JSON: the text (made once) parsed by `JSON.parse` into a global.
    public static func jsonToJS(_ context: JSContext) {
        let parsed = context.objectForKeyedSubscript("JSON").invokeMethod("parse", withArguments: [tenThousandJSON])
        context.setObject(parsed, forKeyedSubscript: "received")
    }

    /// W7 via JSON: `JSON.stringify` of the global, read into a Swift string.
    public static func jsonToHost(_ context: JSContext) -> Int {
        let json = context.objectForKeyedSubscript("JSON")!
        return json.invokeMethod("stringify", withArguments: [context.objectForKeyedSubscript("received")!])
            .toString().utf8.count
    }

    /// W8: a 1 MiB Swift string into a global.
    public static func stringToJS(_ context: JSContext) {
        context.setObject(bigString, forKeyedSubscript: "big")
    }

    /// W8: the 1 MiB string the prelude made (`bigFromJS`) read into a Swift string.
    public static func stringToHost(_ context: JSContext) -> Int {
        context.objectForKeyedSubscript("bigFromJS").toString().utf8.count
    }

    /// W9: the exported counter's method and property from JavaScript.
    public static func exported(_ context: JSContext, count: Int) -> Double {
        context.objectForKeyedSubscript("useCounter")
            .call(withArguments: [context.objectForKeyedSubscript("counter")!, count]).toDouble()
    }
}

/// W11's script, the same calls as scripts/w11-node.js makes on Node: `timeouts(n)` queues n
/// `setTimeout(tick, 0)` and `immediates(n)` n `setImmediate(tick)`; each callback counts in
/// `fired`. The loop then runs them (the benchmark and the instruction probe drive it).
public enum LoopWorkloads {
    public static let script = """
        var fired = 0;
        function tick() { fired++ }
        function timeouts(n) { for (var i = 0; i < n; i++) setTimeout(tick, 0) }
        function immediates(n) { for (var i = 0; i < n; i++) setImmediate(tick) }
        """
}

// MARK: - W16: Codable values (JSValueEncoder/JSValueDecoder against the JSON text route)

/// W16's element: ten fields of the kinds a model type has.
public struct Record: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var email: String
    public var score: Double
    public var active: Bool
    public var level: Int
    public var ratio: Double
    public var city: String
    public var country: String
    public var tags: Int
}

public extension Batch {
    static let records = 1_000
}

/// W16's array, made once.
public let records: [Record] = (0..<Batch.records).map(makeRecord)

private func makeRecord(_ index: Int) -> Record {
    let score: Double = Double(index) * 1.5
    let ratio: Double = 1.0 / Double(index + 1)
    return Record(
        id: index, name: "User \(index)", email: "user\(index)@example.com", score: score, active: index % 2 == 0,
        level: index % 7, ratio: ratio, city: "Lyon", country: "FR", tags: index % 13)
}

/// W16's array as JSON text, made once (the JavaScriptCore column's starting state).
public let recordsJSON: String = (try? JSONEncoder().encode(records)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"

public enum Codables {
    /// Host → JS: `JSValueEncoder` straight into a global.
    public static func encode(_ context: JSContext) {
        context.globalObject.setValue(try? JSValue(encoding: records, in: context), forProperty: "records")
    }

    /// Host → JS by JSON text: `JSONEncoder`, then the engine's `JSON.parse`, into a global.
    public static func encodeViaJSON(_ context: JSContext) {
        let text = (try? JSONEncoder().encode(records)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        let parse = context.objectForKeyedSubscript("JSON").objectForKeyedSubscript("parse")
        context.globalObject.setValue(parse?.call(withArguments: [text]), forProperty: "records")
    }

    /// JS → host: `JSValueDecoder` from the global.
    public static func decode(_ context: JSContext) -> [Record] {
        (try? context.objectForKeyedSubscript("records").decode([Record].self)) ?? []
    }

    /// JS → host by JSON text: the engine's `JSON.stringify`, then `JSONDecoder`.
    public static func decodeViaJSON(_ context: JSContext) -> [Record] {
        let stringify = context.objectForKeyedSubscript("JSON").objectForKeyedSubscript("stringify")
        let text = stringify?.call(withArguments: [context.objectForKeyedSubscript("records") as Any]).toString() ?? "[]"
        return (try? JSONDecoder().decode([Record].self, from: Data(text.utf8))) ?? []
    }
}
