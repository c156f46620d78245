import DuktapeCore
import Synchronization

/// Work in flight that a `shutdown()` waits for: the pieces of work begun and not yet ended,
/// each with a token unique in the process, and the waiters to wake once none is left.
///
/// ```swift
/// let activity = ActivityCount()
/// let token = activity.begin()
/// Task { await work(); activity.end(token) }
/// await activity.idle()   // returns once nothing counted runs
/// ```
///
/// A piece of work may itself wait (`idle(exempting:)` with its own token): while it waits, it
/// does not count for the other pieces of work that wait (two reply handlers that both shut
/// their page down each return); a waiter that is not counted work waits for it to end.
final class ActivityCount: Sendable {
    private typealias Waiter = (isWork: Bool, continuation: CheckedContinuation<Void, Never>)

    private struct State {
        var running: Set<UInt64> = []
        /// Running work that is itself waiting in `idle(exempting:)`, with how many waits.
        var waiting: [UInt64: Int] = [:]
        /// Waiters that are running work themselves wait for the rest to end or wait too;
        /// others, for everything to end.
        var waiters: [Waiter] = []

        func isSettled(forWork isWork: Bool) -> Bool {
            isWork ? running.allSatisfy { waiting[$0] != nil } : running.isEmpty
        }

        /// Takes the waiters whose condition holds now.
        mutating func settledWaiters() -> [CheckedContinuation<Void, Never>] {
            var settled: [CheckedContinuation<Void, Never>] = []
            var left: [Waiter] = []
            for waiter in waiters {
                if isSettled(forWork: waiter.isWork) { settled.append(waiter.continuation) } else { left.append(waiter) }
            }
            waiters = left
            return settled
        }
    }
    private let state = Guarded(State())
    private static let tokens = Atomic<UInt64>(0)

    /// Counts one piece of work as begun; `end(_:)` with the token it returns must follow.
    func begin() -> UInt64 {
        let token = Self.tokens.add(1, ordering: .relaxed).newValue
        state.withLock { _ = $0.running.insert(token) }
        return token
    }

    /// Starts `work` as a task counted until it returns. What `work` holds is released before
    /// it counts as ended: a waiter that `idle()` wakes finds nothing of it left (a process
    /// that exits then, or a caller that drops its last reference, sees no task holding on).
    @discardableResult
    func task(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        task(continuing: begin(), work)
    }

    /// Starts `work` as the task of `token` (begun already), ended when `work` returns, as
    /// `task(_:)` does. Returns the task, to cancel it.
    @discardableResult
    func task(continuing token: UInt64, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        let once = RunOnce<Void>(work)
        return Task {
            await once.run(())
            end(token)
        }
    }

    /// Counts the piece of work `token` names as ended, waking the waiters it satisfies.
    func end(_ token: UInt64) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running.remove(token)
            return state.settledWaiters()
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once nothing counted runs, apart from work that is itself waiting here (the
    /// caller's own, `exempting`, when it is counted work): at once when that is already so.
    func idle(exempting token: UInt64? = nil) async {
        let exempted = state.withLock { state -> Bool in
            guard let token, state.running.contains(token) else { return false }
            state.waiting[token, default: 0] += 1
            return true
        }
        await withCheckedContinuation { continuation in
            let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.waiters.append((exempted, continuation))
                return state.settledWaiters()  // this one, and those that this wait settles
            }
            for waiter in woken { waiter.resume() }
        }
        if exempted, let token {
            state.withLock { state -> Void in
                state.waiting[token]? -= 1
                if state.waiting[token] == 0 { state.waiting[token] = nil }
            }
        }
    }

    /// Whether nothing counted runs (tests).
    var isIdle: Bool {
        state.withLock { $0.running.isEmpty }
    }
}

/// A piece of work that is run once and then dropped, with everything it captured: a task
/// that runs it holds nothing of it once it returned.
final class RunOnce<Input: Sendable>: Sendable {
    private let work: Guarded<(@Sendable (Input) async -> Void)?>

    init(_ work: @escaping @Sendable (Input) async -> Void) {
        self.work = Guarded(work)
    }

    func run(_ input: Input) async {
        let taken = work.withLock { work -> (@Sendable (Input) async -> Void)? in
            defer { work = nil }
            return work
        }
        await taken?(input)
    }
}
