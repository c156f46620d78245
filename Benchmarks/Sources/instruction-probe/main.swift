// `instruction-probe WORKLOAD ENGINE COUNT`: runs COUNT operations of one workload on one engine
// (ours, raw, rawp: raw protected) and exits. Under callgrind, the difference between two counts,
// divided by their difference, is the instructions per operation with set-up and tear-down
// cancelled out (scripts/instructions.py; `make bench-check` gates on it). Prints the result so
// that the work cannot be optimized away.
import DuktapeBaselines
import DuktapeCore
import Foundation
import Workloads

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: instruction-probe WORKLOAD ours|raw|rawp COUNT\n".utf8))
    exit(2)
}
let (workload, engine) = (arguments[1], arguments[2])

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
        for _ in 0..<n { Ours.objectToJS(context) }
        return 0
    },
    "W7-to-host": { context, n in (0..<n).reduce(0.0) { sum, _ in sum + Double(Ours.objectToHost(context)) } },
    "W9": { Ours.exported($0, count: $1) },
]

let raw: [String: (OpaquePointer, Int) -> Double] = [
    "W1": { _, n in
        raw_create_destroy_vm(Int32(n))
        return 0
    },
    "W4": { raw_host_calls($0, Int32($1)) },
    "W5": { raw_js_calls($0, Int32($1)) },
    "W6": { raw_properties($0, Int32($1)) },
    "W7-to-js": { state, n in (0..<n).reduce(0.0) { sum, _ in sum + raw_object_to_js(state, Int32(Batch.entries)) } },
    "W7-to-host": { state, n in (0..<n).reduce(0.0) { sum, _ in sum + raw_object_to_host(state, Int32(Batch.entries)) } },
    "W9": { raw_exported($0, Int32($1)) },
]

let rawProtected: [String: (OpaquePointer, Int) -> Double] = [
    "W1": { _, n in
        raw_create_destroy_vm(Int32(n))
        return 0
    },
    "W4": { rawp_host_calls($0, Int32($1)) },
    "W5": { rawp_js_calls($0, Int32($1)) },
    "W6": { rawp_properties($0, Int32($1)) },
    "W7-to-js": { state, n in (0..<n).reduce(0.0) { sum, _ in sum + rawp_object_to_js(state, Int32(Batch.entries)) } },
    "W7-to-host": { state, n in (0..<n).reduce(0.0) { sum, _ in sum + rawp_object_to_host(state, Int32(Batch.entries)) } },
    "W9": { rawp_exported($0, Int32($1)) },
]

/// The typed and JavaScriptCore-spelled rows of one workload share its baseline ("W5b" → "W5").
let baselineName = workload.hasPrefix("W7") ? workload : String(workload.prefix(2))

var result = 0.0
switch engine {
case "ours":
    guard let body = ours[workload] else { break }
    result = body(makeOurs(), count)
case "raw", "rawp":
    guard let body = (engine == "raw" ? raw : rawProtected)[baselineName], let state = raw_create() else { break }
    result = body(state, count)
    raw_destroy(state)
default:
    break
}
if engine == "ours" ? ours[workload] == nil : (engine == "raw" ? raw : rawProtected)[baselineName] == nil {
    FileHandle.standardError.write(Data("instruction-probe: no workload \(workload) for \(engine)\n".utf8))
    exit(2)
}
print(result)
