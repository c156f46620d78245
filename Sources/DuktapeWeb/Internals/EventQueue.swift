import DuktapeCore

/// A queue of events from many producers (a server's connections) to one consumer, with
/// backpressure per producer: each event costs bytes to its producer; a producer past
/// `highWater` is told to stop (`append` returns true) and told to go on (`onRoom`) once the
/// consumer has taken it below `highWater / 2`. So what waits is bounded by the producers'
/// limits, and nothing is dropped.
final class EventQueue<Element: Sendable>: Sendable {
    private struct State {
        var items: [(element: Element, cost: Int, producer: Int)] = []
        var head = 0
        /// The consumer waiting: woken with true when an element may be there, false at the end.
        var waiter: CheckedContinuation<Bool, Never>?
        var finished = false
        var costs: [Int: Int] = [:]
        var stopped: Set<Int> = []
    }

    private let state = Guarded(State())
    private let highWater: Int
    private let onRoom: @Sendable (Int) -> Void

    init(highWater: Int, onRoom: @escaping @Sendable (Int) -> Void) {
        self.highWater = highWater
        self.onRoom = onRoom
    }

    /// Adds `element` (after `finish()`, drops it); returns true when `producer` should stop
    /// until `onRoom(producer)`.
    ///
    /// Elements always pass through the lock, never through the waiter's continuation: a
    /// continuation resumed before its task suspends is an edge ThreadSanitizer does not see
    /// (swiftlang/swift#57803), and the lock is one it does.
    @discardableResult
    func append(_ element: Element, cost: Int = 0, producer: Int = 0) -> Bool {
        let (waiter, stop) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, Bool) in
            guard !state.finished else { return (nil, false) }
            state.items.append((element, cost, producer))
            let total = state.costs[producer, default: 0] + cost
            state.costs[producer] = total
            let stop = total > highWater && state.stopped.insert(producer).inserted
            defer { state.waiter = nil }
            return (state.waiter, stop)
        }
        waiter?.resume(returning: true)
        return stop
    }

    /// The next element, waiting for one; nil once finished and empty, or when the task is
    /// cancelled. One consumer at a time: a second one waiting at the same time gets nil.
    func next() async -> Element? {
        while true {
            if let (element, room) = take() {
                if let room { onRoom(room) }
                return element
            }
            let woken = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let now = state.withLock { state -> Bool? in
                        if state.head < state.items.count { return true }
                        if state.finished || Task.isCancelled || state.waiter != nil { return false }
                        state.waiter = continuation
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: false)
            }
            if !woken { return nil }
        }
    }

    /// The first element, and the producer that has room again, if taking it made room.
    private func take() -> (Element, Int?)? {
        state.withLock { state -> (Element, Int?)? in
            guard state.head < state.items.count else { return nil }
            let item = state.items[state.head]
            state.head += 1
            if state.head > 64 && state.head * 2 > state.items.count {
                state.items.removeFirst(state.head)
                state.head = 0
            }
            let remaining = state.costs[item.producer, default: 0] - item.cost
            state.costs[item.producer] = remaining == 0 ? nil : remaining
            if remaining <= highWater / 2, state.stopped.remove(item.producer) != nil { return (item.element, item.producer) }
            return (item.element, nil)
        }
    }

    /// No more elements come; the consumer gets those waiting, then nil.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: false)
    }
}
