import CDuktape

/// Host memory charged to a VM's memory limit for as long as this object lives: the records a
/// host keeps for a script outside the heap (a timer, an immediate, its arguments) count
/// against the limit as heap memory does, so that a script under a memory limit cannot grow
/// them without bound. Without a limit, charging always succeeds (and only counts).
///
/// ```swift
/// guard let charge = HostMemoryCharge(bytes: 256, in: context) else { throw outOfMemory }
/// ```
package final class HostMemoryCharge: Sendable {
    private let engine: Engine
    private let bytes: Int

    /// Charges `bytes` to `context`'s VM; nil when that would pass its memory limit (counted as
    /// a limit hit of the current entry, so the error reads "memory limit exceeded"). Called
    /// inside a call from the VM (a native function's body), where its lock is held.
    package init?(bytes: Int, in context: JSContext) {
        let engine = context.engine
        let charged = engine.lock.withLock { cduk_host_charge(engine.state, max(0, bytes)) != 0 }
        guard charged else { return nil }
        self.engine = engine
        self.bytes = max(0, bytes)
    }

    deinit {
        // Any thread, without the lock: the count is atomic, and the engine (its state) is
        // kept alive by this charge.
        cduk_host_discharge(engine.state, bytes)
    }

    /// The error a failed charge is reported with: the memory-limit RangeError.
    package static func limitError(in context: JSContext) -> JSException {
        do {
            return try context.withStack { stack throws(JSException) in stack.makeError(.rangeError, "memory limit exceeded") }
        } catch {
            return error
        }
    }
}
