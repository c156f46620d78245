// W1 memory: resident bytes per live VM and per extra context in one VM, 1000 alive, for
// DuktapeCore ("ours"), raw Duktape and JavaScriptCore. Each engine runs in its own process
// and measurement (`memory-probe ours|raw|jsc vm|context`) and prints the bytes per VM or per
// extra context.
import Baselines
import DuktapeCore

let count = 1000
let arguments = Array(CommandLine.arguments.dropFirst())
let engine = arguments.first ?? "ours"
let perContext = arguments.dropFirst().first == "context"

func oursPerVM() -> Double {
    let first = JSContext()!
    first.evaluateScript("1+1")
    let before = baseline_resident_bytes()
    var contexts: [JSContext] = []
    contexts.reserveCapacity(count)
    for _ in 0..<count {
        let context = JSContext()!
        context.evaluateScript("1+1")
        contexts.append(context)
    }
    let after = baseline_resident_bytes()
    _ = (first, contexts.count)
    return Double(after - before) / Double(count)
}

func oursPerContext() -> Double {
    let vm = JSVirtualMachine()!
    let first = JSContext(virtualMachine: vm)!
    first.evaluateScript("1+1")
    let before = baseline_resident_bytes()
    var contexts: [JSContext] = []
    contexts.reserveCapacity(count)
    for _ in 0..<count {
        let context = JSContext(virtualMachine: vm)!
        context.evaluateScript("1+1")
        contexts.append(context)
    }
    let after = baseline_resident_bytes()
    _ = (first, contexts.count)
    return Double(after - before) / Double(count)
}

switch (engine, perContext) {
case ("raw", false): print(raw_bytes_per_vm(Int32(count)))
case ("raw", true): print(raw_bytes_per_context(Int32(count)))
case ("jsc", false): print(jsc_bytes_per_vm(Int32(count)))
case ("jsc", true): print(jsc_bytes_per_context(Int32(count)))
case (_, false): print(oursPerVM())
case (_, true): print(oursPerContext())
}
