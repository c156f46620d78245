// `instruction-probe WORKLOAD ENGINE COUNT`: runs COUNT operations of one workload on one engine
// (ours, raw, rawp: raw protected) and exits. Under callgrind, the difference between two counts,
// divided by their difference, is the instructions per operation with set-up and tear-down
// cancelled out (scripts/instructions.py; `make bench-check` gates on it). Prints the result so
// that the work cannot be optimized away.
import DuktapeBaselines
import DuktapeCore
import DuktapeRuntime
import Foundation
import Workloads

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: instruction-probe WORKLOAD ours|raw|rawp COUNT\n".utf8))
    exit(2)
}
let (workload, engine) = (arguments[1], arguments[2])

/// `body` run `n` times, its results summed (the whole-object workloads).
func repeated(_ n: Int, _ body: () -> Double) -> Double {
    (0..<n).reduce(0.0) { sum, _ in sum + body() }
}

/// The workloads: per engine, `count` operations.
let ours: [String: (JSContext, Int) -> Double] = [
    "W1": { _, n in
        for _ in 0..<n { _ = JSContext() }
        return 0
    },
    "W4": { Ours.hostCalls($0, count: $1) },
    "W4-untyped": { Ours.untypedHostCalls($0, count: $1) },
    "W5": { Ours.jsCalls($0, count: $1) },
    "W5b": { Ours.methodCalls($0, count: $1) },
    "W5-typed": { Ours.typedJSCalls($0, count: $1) },
    "W6": { Ours.properties($0, count: $1) },
    "W6b": { Ours.globalSubscripts($0, count: $1) },
    "W6-typed": { Ours.typedProperties($0, count: $1) },
    "W7-to-js": { context, n in
        repeated(n) {
            Ours.objectToJS(context)
            return 0
        }
    },
    "W7-to-host": { context, n in repeated(n) { Double(Ours.objectToHost(context)) } },
    "W8-to-js": { context, n in
        repeated(n) {
            Ours.stringToJS(context)
            return 0
        }
    },
    "W8-to-host": { context, n in repeated(n) { Double(Ours.stringToHost(context)) } },
    "W9": { Ours.exported($0, count: $1) },
    // W16: one 1,000-record array an operation, each way.
    "W16-to-js": { context, n in
        repeated(n) {
            Codables.encode(context)
            return 0
        }
    },
    "W16-to-host": { context, n in
        Codables.encode(context)
        return repeated(n) { Double(Codables.decode(context).count) }
    },
    // W10: one call of `count` steps or elements; the call drains its jobs before returning.
    "W10-chain": { context, n in
        context.objectForKeyedSubscript("chain").call(withArguments: [n])
        return context.objectForKeyedSubscript("chainResult").toDouble()
    },
    "W10-all": { context, n in
        context.objectForKeyedSubscript("allOf").call(withArguments: [n])
        return context.objectForKeyedSubscript("allResult").toDouble()
    },
    "W11-timeout": { loopCallbacks($0, count: $1, scheduling: "timeouts") },
    "W11-immediate": { loopCallbacks($0, count: $1, scheduling: "immediates") },
]

/// W11: a script queues `count` callbacks, and the loop runs them until idle.
func loopCallbacks(_ context: JSContext, count: Int, scheduling scheduler: String) -> Double {
    let loop = JSEventLoop(context: context)
    context.evaluateScript(LoopWorkloads.script)
    (context.objectForKeyedSubscript(scheduler) as JSValue).call(withArguments: [count])
    try? loop.run()
    return context.objectForKeyedSubscript("fired").toDouble()
}

typealias Baseline = (OpaquePointer, Int) -> Double

/// W8's baselines: the same 1 MiB string's bytes pushed `n` times.
func strings(_ n: Int, _ push: (UnsafePointer<CChar>, Int) -> Int) -> Double {
    var string = bigString
    return string.withUTF8 { utf8 in
        utf8.withMemoryRebound(to: CChar.self) { bytes in
            guard let base = bytes.baseAddress else { return 0 }
            return repeated(n) { Double(push(base, bytes.count)) }
        }
    }
}
let entries = Int32(Batch.entries)
/// The baselines, by workload: (raw, raw protected). W1's create and destroy is the same code.
let baselines: [String: (raw: Baseline, protected: Baseline)] = [
    "W1": ({ _, n in raw_create_destroy_vm(Int32(n)); return 0 }, { _, n in raw_create_destroy_vm(Int32(n)); return 0 }),
    "W4": ({ raw_host_calls($0, Int32($1)) }, { rawp_host_calls($0, Int32($1)) }),
    "W5": ({ raw_js_calls($0, Int32($1)) }, { rawp_js_calls($0, Int32($1)) }),
    "W5b": ({ raw_method_calls($0, Int32($1)) }, { rawp_method_calls($0, Int32($1)) }),
    "W6": ({ raw_properties($0, Int32($1)) }, { rawp_properties($0, Int32($1)) }),
    "W7-to-js": ({ state, n in repeated(n) { raw_object_to_js(state, entries) } },
                 { state, n in repeated(n) { rawp_object_to_js(state, entries) } }),
    "W7-to-host": ({ state, n in repeated(n) { raw_object_to_host(state, entries) } },
                   { state, n in repeated(n) { rawp_object_to_host(state, entries) } }),
    "W8-to-js": ({ state, n in strings(n) { raw_string_to_js(state, $0, $1) } },
                 { state, n in strings(n) { rawp_string_to_js(state, $0, $1) } }),
    "W8-to-host": ({ state, n in repeated(n) { Double(raw_string_to_host(state)) } },
                   { state, n in repeated(n) { Double(rawp_string_to_host(state)) } }),
    "W9": ({ raw_exported($0, Int32($1)) }, { rawp_exported($0, Int32($1)) }),
]

/// The typed and JavaScriptCore-spelled rows of one workload share its baseline ("W5-typed" →
/// "W5"); W5b and W7's two directions have their own.
let baselineName = baselines[workload] != nil ? workload : String(workload.prefix(2))

switch engine {
case "ours":
    guard let body = ours[workload] else { break }
    print(body(makeOurs(), count))
    exit(0)
case "raw", "rawp":
    guard let pair = baselines[baselineName], let state = raw_create() else { break }
    print((engine == "raw" ? pair.raw : pair.protected)(state, count))
    raw_destroy(state)
    exit(0)
default:
    break
}
FileHandle.standardError.write(Data("instruction-probe: no workload \(workload) for \(engine)\n".utf8))
exit(2)
