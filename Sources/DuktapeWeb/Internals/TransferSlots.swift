import DuktapeCore

/// The page's transfer slots: at most `capacity` transfers do network work at once (each holds a
/// connection and up to a megabyte of unread body); the others wait, in the order they were
/// made, for a slot. A waiter whose task is cancelled (its transfer was aborted or the page
/// closed) leaves the queue.
final class TransferSlots: Sendable {
    private struct State {
        var free: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var head = 0
        var nextID: UInt64 = 0
    }

    private let state: Guarded<State>

    init(capacity: Int) {
        state = Guarded(State(free: max(1, capacity)))
    }

    /// Waits for a slot; false when the task was cancelled first (no slot is then held).
    func acquire() async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Under the lock, so that a cancellation either is seen here or finds the waiter
                // queued (the flag is set before the handler runs).
                let now = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.free > 0, state.head == state.waiters.count {
                        state.free -= 1
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let queued = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters[state.head...].firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            queued?.resume(returning: false)
        }
    }

    /// Gives a slot back: to the first waiter, or to the pool.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.head < state.waiters.count else {
                state.free += 1
                return nil
            }
            let waiter = state.waiters[state.head].continuation
            state.head += 1
            if state.head > 64, state.head * 2 > state.waiters.count {
                state.waiters.removeFirst(state.head)
                state.head = 0
            }
            return waiter
        }
        next?.resume(returning: true)
    }

    /// Transfers waiting for a slot (tests).
    var waiting: Int { state.withLock { $0.waiters.count - $0.head } }
}
