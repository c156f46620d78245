import Foundation
import DuktapeCore
import FuzzSupport

/// Harness 1: arbitrary bytes evaluated as a script in a limited context (16 MiB, 10 ms per call
/// from Swift), then every conversion of the result and of the globals scripts tend to leave
/// behind, a garbage collection and the VM's release. A leading byte 0 or 1 picks the profile: a
/// sandbox, or the same limits with the engine's globals (`Duktape.fin` finalizers, `Duktape.errCreate`,
/// `Duktape.Thread` coroutines), whose finalizers then run in the release of values, in the
/// collection and at heap destruction. A fresh VM per input keeps runs reproducible; libFuzzer's
/// -timeout turns anything that outlives the limits into a finding.

func fuzzEvaluate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    var reader = ByteReader(data, size)
    // 10 ms per call: a script can make every later call use its whole limit (a hostile
    // errCreate hook or getter), and this harness makes a few hundred calls per input.
    var sandbox = JSSandbox(memoryLimit: 16 << 20, executionTimeLimit: 0.01)
    // A leading byte 0 or 1 picks the profile (1: engine globals); any other input is all
    // script, in the sandbox (so seeds written as plain scripts keep their meaning).
    if size > 0, data[0] <= 1 {
        sandbox.exposesEngineGlobals = reader.byte() == 1
    }
    let source = reader.remainingText()
    guard let context = JSContext(sandbox: sandbox) else {
        return 0
    }
    context.exceptionHandler = { context, exception in
        exercise(exception, depth: 1)  // not called: calling an Error fails and re-enters
        context?.exception = nil
    }
    exercise(context.evaluateScript(source, withSourceURL: URL(string: "fuzz://input.js")))
    for name in ["a", "b", "c", "o", "x", "f", "p"] {
        exercise(context.objectForKeyedSubscript(name))
    }
    do {
        _ = try context.evaluate(source)
    } catch {
        _ = "\(error)"
    }
    context.virtualMachine.garbageCollect()
    return 0  // the context and its VM are released here: the heap's destruction runs finalizers
}
