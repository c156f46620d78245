import Foundation
import Testing

@testable import DuktapeCore

/// Counts live instances so tests can prove wrappers release their objects.
final class LiveCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
    func decrement() { lock.withLock { count -= 1 } }
}

/// How many times the engine's fatal handler has run in this process (it aborts, so a test that
/// reads 0 after hostile scripts shows none reached it).
var fatalErrorCount: UInt32 { Engine.fatalErrorCount }

/// A context whose uncaught exceptions are collected instead of stored, for assertions.
final class ExceptionRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    var messages: [String] { lock.withLock { recorded } }

    func install(on context: JSContext) {
        context.exceptionHandler = { [self] _, exception in
            let text = exception?.description ?? "nil"
            lock.withLock { recorded.append(text) }
        }
    }
}

/// Evaluates `script` and returns its value, failing the test on an exception.
@discardableResult
func eval(_ context: JSContext, _ script: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSValue {
    do {
        return try context.evaluate(script)
    } catch {
        Issue.record("unexpected exception: \(error)", sourceLocation: sourceLocation)
        return JSValue(undefinedIn: context)
    }
}

/// The exception `script` throws, or nil (recording an issue) if it does not throw.
func thrown(
    _ context: JSContext, _ script: String, sourceURL: URL? = nil, sourceLocation: SourceLocation = #_sourceLocation
) -> JSException? {
    do {
        _ = try context.evaluate(script, sourceURL: sourceURL)
        Issue.record("expected an exception from: \(script)", sourceLocation: sourceLocation)
        return nil
    } catch let exception as JSException {
        return exception
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Runs `body` on a thread of its own and waits for it: a regression that hangs fails the test
/// after `seconds` instead of hanging the run.
func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done.wait(timeout: .now() + seconds) == .success
}

/// True in the suite's sanitized runs (`make test-sanitize` sets these for the test process):
/// CPU-heavy tests do less there, so that the whole suite's load stays within the network
/// tests' timeouts.
let runsUnderASanitizer: Bool = {
    let environment = ProcessInfo.processInfo.environment
    return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
}()
