// W1 memory: resident bytes per live VM and per extra context in one VM, 1000 alive, for
// DuktapeCore ("ours"), raw Duktape and JavaScriptCore. Each engine runs in its own process
// and measurement (`memory-probe ours|raw|jsc vm|context`) and prints the bytes per VM or per
// extra context.
import Baselines
import DuktapeBaselines
import DuktapeCore
import Foundation

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

/// `memory-probe ours|raw churn-vm|churn-context N`: W1's work N times, for instruction counts
/// under callgrind (the difference between two N, divided, is the cost per operation).
if arguments.count == 3, arguments[1].hasPrefix("churn"), let times = Int(arguments[2]) {
    let vmChurn = arguments[1] == "churn-vm"
    switch (engine, vmChurn) {
    case ("raw", true): raw_create_destroy_vm(Int32(times))
    case ("raw", false):
        if let state = raw_create() {
            raw_new_context(state, Int32(times))
            raw_destroy(state)
        }
    case (_, true):
        for _ in 0..<times { _ = JSContext() }
    case (_, false):
        let vm = JSVirtualMachine()!
        for _ in 0..<times { _ = JSContext(virtualMachine: vm) }
        vm.garbageCollect()
    }
    exit(0)
}

switch (engine, perContext) {
case ("raw", false): print(raw_bytes_per_vm(Int32(count)))
case ("raw", true): print(raw_bytes_per_context(Int32(count)))
case ("jsc", false): print(jsc_bytes_per_vm(Int32(count)))
case ("jsc", true): print(jsc_bytes_per_context(Int32(count)))
case (_, false): print(oursPerVM())
case (_, true): print(oursPerContext())
}
