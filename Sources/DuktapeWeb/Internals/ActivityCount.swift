import DuktapeCore

/// Work in flight that a `shutdown()` waits for: a count of pieces of work begun and not yet
/// ended, and the waiters to wake as it falls.
///
/// ```swift
/// let activity = ActivityCount()
/// activity.begin()
/// Task { await work(); activity.end() }
/// await activity.idle()   // returns once nothing counted runs
/// ```
final class ActivityCount: Sendable {
    private struct State {
        var running = 0
        var waiters: [(leaving: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Guarded(State())

    /// Counts one piece of work as begun; `end()` must follow exactly once.
    func begin() {
        state.withLock { $0.running += 1 }
    }

    /// Counts one piece of work as ended, waking the waiters it satisfies.
    func end() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            let running = state.running
            let woken = state.waiters.filter { $0.leaving >= running }.map(\.continuation)
            state.waiters.removeAll { $0.leaving >= running }
            return woken
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once at most `leaving` counted pieces of work run (the caller's own, when it is
    /// one of them); at once when that is already so.
    func idle(leaving: Int = 0) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.running <= leaving { return true }
                state.waiters.append((leaving, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// How many counted pieces of work have not ended (tests).
    var running: Int {
        state.withLock { $0.running }
    }
}
