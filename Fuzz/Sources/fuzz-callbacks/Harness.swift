import DuktapeCore
import Foundation
import FuzzSupport

struct Refused: Error {}

/// An exported class with every kind of member, for scripts to call in every wrong way.
final class Gadget: JSExport {
    var label = "gadget"
    var count = 0
    var handler: JSManagedValue?

    static let jsClass = JSClass(Gadget.self) { c in
        c.constructor { (label: String) in let gadget = Gadget(); gadget.label = label; return gadget }
        c.property("label", \.label)
        c.property("count", \.count)
        c.property("twice", get: { (gadget: Gadget) in gadget.count * 2 })
        c.method("bump(_:)", as: "bump") { (gadget: Gadget, by: Int) in gadget.count += by; return gadget.count }
        c.method("combine(_:)", as: "combine") { (gadget: Gadget, other: Gadget) in Gadget.make(gadget.label + other.label) }
        c.method("fail()") { (_: Gadget) throws -> Int in throw Refused() }
        c.method("setHandler(_:)", as: "setHandler") { (gadget: Gadget, handler: JSValue) in
            gadget.handler = JSManagedValue(value: handler, andOwner: gadget)
        }
        c.method("fire(_:)", as: "fire") { (gadget: Gadget, argument: JSValue) -> JSValue? in
            gadget.handler?.value?.call(withArguments: [argument, gadget])
        }
        c.staticMethod("make") { (label: String) in Gadget.make(label) }
    }

    static func make(_ label: String) -> Gadget {
        let gadget = Gadget()
        gadget.label = label
        return gadget
    }
}

/// Harness 3: a fuzzed script calls Swift closures (typed, untyped, throwing, re-entrant) and
/// an exported class in a sandboxed context, and whatever it returns goes through every
/// conversion. Scripts see: add, concat, echo, roundTrip, typed, fail, reenter, collect, Gadget.

func fuzzCallbacks(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    var reader = ByteReader(data, size)
    let source = reader.remainingText()
    guard let context = JSContext(sandbox: JSSandbox(memoryLimit: 16 << 20, executionTimeLimit: 0.02)) else { return 0 }
    context.exceptionHandler = { context, exception in
        exercise(exception, depth: 1)
        context?.exception = nil
    }
    context["add"] = JSValue(newFunctionIn: context) { (a: Double, b: Double) in a + b }
    context["concat"] = JSValue(newFunctionIn: context) { (a: String, b: String) in a + b }
    context["echo"] = JSValue(newFunctionIn: context) { (this: JSValue, arguments: [JSValue]) -> Any? in
        [this] + arguments
    }
    context["roundTrip"] = JSValue(newFunctionIn: context) { (this: JSValue, arguments: [JSValue]) -> Any? in
        arguments.first?.toObject()
    }
    context["typed"] = JSValue(newFunctionIn: context) { (n: Int, flag: Bool, list: [String], map: [String: Double]?, date: Date) in
        "\(n) \(flag) \(list.count) \(map?.count ?? -1) \(date.timeIntervalSince1970)"
    }
    context["fail"] = JSValue(newFunctionIn: context) { () throws -> Int in throw Refused() }
    context["reenter"] = JSValue(newFunctionIn: context) { (code: String) -> JSValue? in
        let current = JSContext.current()
        return current?.evaluateScript(code)
    }
    context["collect"] = JSValue(newFunctionIn: context) { () in JSContext.current()?.virtualMachine.garbageCollect() }
    context["Gadget"] = Gadget.self

    let result = context.evaluateScript(source)
    exercise(result)
    for name in ["a", "b", "g", "o", "x"] {
        exercise(context.objectForKeyedSubscript(name))
    }
    return 0
}
