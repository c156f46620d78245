import Foundation

/// State behind a lock with a condition to wait on: the engine's pending work, a Swift await's
/// outcome, and in DuktapeRuntime and DuktapeWeb the loop's timers, queues and counters and the
/// transfers' state.
///
/// Waits are measured on the monotonic clock (`CLOCK_MONOTONIC`): a change of the wall clock
/// neither delays nor hurries a timer.
///
/// Lock order: code holding this lock never enters the VM (no JavaScript call, and no `JSValue`
/// released inside), because JavaScript calls into the loop (`setTimeout`) while holding the
/// VM's lock. Values removed under the lock are returned and released after it.
///
/// A pthread mutex, which ThreadSanitizer sees; `Synchronization.Mutex`'s futexes it does not
/// (it reported a race on state only ever touched under one), so the library uses this one
/// everywhere (`package`: for DuktapeRuntime and DuktapeWeb too).
package final class Guarded<State>: @unchecked Sendable {
    // @unchecked: `state` and `waiters` are only touched with `mutex` locked.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // `@exclusivity(unchecked)`: the mutex already makes every access exclusive, and Swift's
    // dynamic check would add two runtime calls (about 120 instructions) to every `withLock`.
    /// Threads inside `withLock(waitingIf:)`'s wait: a wake-up with none is skipped.
    @exclusivity(unchecked) private var waiters = 0
    @exclusivity(unchecked) private var state: State

    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// `withLock`, then wakes the waiting threads (if any) in the same critical section: one
    /// lock round trip for a change that a waiting loop must see.
    package func withLockWaking<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer {
            if waiters > 0 { pthread_cond_broadcast(condition) }
            pthread_mutex_unlock(mutex)
        }
        return try body(&state)
    }

    /// Wakes every thread in a wait.
    package func broadcast() {
        withLockWaking { _ in }
    }

    /// Runs `decide` under the lock; when it asks to wait, waits in the same critical section
    /// (so no wake-up is missed) until woken or until its timeout (nil: no timeout) has passed.
    /// Spurious wake-ups are possible: callers re-check their state.
    package func withLock(waitingIf decide: (inout State) -> (wait: Bool, timeout: Duration?)) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let decision = decide(&state)
        guard decision.wait else { return }
        waiters += 1
        defer { waiters -= 1 }
        guard let timeout = decision.timeout else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let (seconds, attoseconds) = max(timeout, .zero).components
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        let (sum, overflow) = deadline.tv_sec.addingReportingOverflow(Int(clamping: seconds) &+ nanoseconds / 1_000_000_000)
        deadline.tv_sec = overflow ? .max : sum
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &deadline)
    }
}
