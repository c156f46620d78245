import Foundation

/// State behind a lock with a condition to wait on: the loop's timers, queues and counters.
///
/// Lock order: code holding this lock never enters the VM (no JavaScript call, and no `JSValue`
/// released inside), because JavaScript calls into the loop (`setTimeout`) while holding the
/// VM's lock. Values removed under the lock are returned and released after it.
final class Guarded<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var state: State
    /// Threads inside `withLock(waitingIf:)`'s wait: a wake-up with none is skipped.
    private var waiters = 0

    init(_ state: State) {
        self.state = state
    }

    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Wakes every thread in `wait`.
    func broadcast() {
        condition.lock()
        if waiters > 0 { condition.broadcast() }
        condition.unlock()
    }

    /// `withLock`, then wakes the waiting threads (if any) in the same critical section: one
    /// lock round trip for a change that a waiting loop must see.
    func withLockWaking<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            if waiters > 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body(&state)
    }

    /// Runs `decide` under the lock; when it asks to wait, waits in the same critical section
    /// (so no wake-up is missed) until woken or until its deadline. Spurious wake-ups are
    /// possible: callers re-check their state.
    func withLock(waitingIf decide: (inout State) -> (wait: Bool, until: Date?)) {
        condition.lock()
        defer { condition.unlock() }
        let decision = decide(&state)
        guard decision.wait else { return }
        waiters += 1
        defer { waiters -= 1 }
        if let until = decision.until {
            _ = condition.wait(until: until)
        } else {
            condition.wait()
        }
    }
}
