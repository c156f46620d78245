import CDuktape

/// Host memory charged to a VM's memory limit: the records a host keeps for a script outside
/// the heap (a timer, an immediate, its arguments) count against the limit as heap memory does,
/// so that a script under a memory limit cannot grow them without bound. Without a limit,
/// charging always succeeds (and only counts). The holder discharges exactly what it charged,
/// when the record goes.
///
/// ```swift
/// let account = HostMemoryAccount(context: context)
/// guard account.charge(256) else { throw HostMemoryAccount.limitError(in: context) }
/// account.discharge(256)   // when the record is gone
/// ```
package final class HostMemoryAccount: Sendable {
    private let engine: Engine

    /// The account of `context`'s VM (it keeps the VM's engine state alive, not the VM).
    package init(context: JSContext) {
        engine = context.engine
    }

    /// Charges `bytes`; false when that would pass the memory limit (counted as a limit hit of
    /// the current entry, so that its error reads "memory limit exceeded"). Called inside a call
    /// from the VM (a native function's body), where its lock is held.
    package func charge(_ bytes: Int) -> Bool {
        engine.lock.assertHeld("HostMemoryAccount.charge")
        return cduk_host_charge(engine.state, max(0, bytes)) != 0
    }

    /// Gives back `bytes` charged before; any thread, without the lock (the count is atomic).
    package func discharge(_ bytes: Int) {
        if bytes > 0 { cduk_host_discharge(engine.state, bytes) }
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
