import Foundation
import DuktapeCore
import FuzzSupport

/// Harness 1: arbitrary bytes evaluated as a script in a sandboxed context (16 MiB, 20 ms per
/// call from Swift), then every conversion of the result and of the globals scripts tend to
/// leave behind. A fresh VM per input keeps runs reproducible.

func fuzzEvaluate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    var reader = ByteReader(data, size)
    let source = reader.remainingText()
    guard let context = JSContext(sandbox: JSSandbox(memoryLimit: 16 << 20, executionTimeLimit: 0.02)) else {
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
    return 0
}
