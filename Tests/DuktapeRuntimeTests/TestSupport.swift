import DuktapeCore
import DuktapeRuntime
import Foundation

/// A thread-safe count of live instances (deinit counters).
final class LiveCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
    func decrement() { lock.withLock { count -= 1 } }
}

/// An exported object that counts its live instances.
final class Tracked: JSExport {
    static let live = LiveCounter()
    init() { Tracked.live.increment() }
    deinit { Tracked.live.decrement() }
    static let jsClass = JSClass(Tracked.self) { c in c.constructor { () in Tracked() } }
}

/// The uncaught exceptions a context reported, as strings.
final class ExceptionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    var all: [String] { lock.withLock { entries } }

    /// Installs itself as `context`'s exception handler.
    init(_ context: JSContext) {
        context.exceptionHandler = { [weak self] _, exception in
            let text = exception?.toString() ?? "?"
            self?.lock.withLock { self?.entries.append(text) }
        }
    }
}

extension JSContext {
    /// The script's `log` array joined with spaces.
    var log: String { evaluateScript("log.join(' ')").toString() }
}
