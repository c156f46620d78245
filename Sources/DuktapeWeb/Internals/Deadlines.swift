import DuktapeCore
import Foundation

/// Timeouts that cost no task each: one thread keeps the pending deadlines in a binary heap and
/// runs an action when its time comes.
///
/// A request's watchdog was a `Task` sleeping until its deadline, cancelled when the request
/// ended: per request, a task made, a timer armed on the dispatch manager's thread, a task
/// cancelled, and three threads woken. Here arming is a heap push under a lock, waking the
/// thread only when the new deadline comes before every other (the usual timeout is the
/// latest so far); cancelling removes the action, and its node is dropped when it reaches the
/// top or when dropped nodes outnumber live ones (so a heap of cancelled 60 s timeouts cannot
/// grow past twice the live count).
///
/// Times are on the monotonic clock (`CLOCK_MONOTONIC`, as the event loop's timers: time in a
/// system suspend does not count). Actions run on the deadlines thread, one after another,
/// outside the lock: each must be short (failing a transfer, closing a file, starting a task
/// for anything that awaits), never a wait on something another action does.
final class Deadlines: Sendable {
    /// The process's deadlines (its thread starts with the first deadline).
    static let shared = Deadlines()

    /// A scheduled action, for `cancel`.
    struct Token: Sendable, Equatable {
        fileprivate let id: UInt64
    }

    private struct Node {
        var due: Int64
        var id: UInt64
    }

    private struct State {
        var heap: [Node] = []
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 1
        var started = false
        /// Set when the instance goes: its thread ends (tests make instances of their own).
        var stopped = false
    }

    private let state = Guarded(State())

    deinit {
        let dropped = state.withLockWaking { state -> [UInt64: @Sendable () -> Void] in
            state.stopped = true
            state.heap = []
            defer { state.actions = [:] }
            return state.actions
        }
        _ = dropped  // released after the lock, unrun
    }

    /// Runs `action` once `delay` has passed on the monotonic clock, unless cancelled first.
    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let (seconds, attoseconds) = max(delay, .zero).components
        let span = seconds >= Int64.max / 1_000_000_000 ? Int64.max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let sum = MonotonicClock.nanoseconds.addingReportingOverflow(span)
        return schedule(atNanoseconds: sum.overflow ? .max : sum.partialValue, action)
    }

    /// Runs `action` once `MonotonicClock.nanoseconds` reaches `due`; actions due at the same
    /// time run in the order they were scheduled.
    @discardableResult
    func schedule(atNanoseconds due: Int64, _ action: @escaping @Sendable () -> Void) -> Token {
        let (token, wake, start) = state.withLock { state -> (Token, Bool, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.actions[id] = action
            Self.push(Node(due: due, id: id), into: &state.heap)
            let start = !state.started
            state.started = true
            return (Token(id: id), state.heap[0].id == id, start)
        }
        if start {
            // The thread holds the state, not the instance: the instance's deinit stops it.
            let thread = Thread { [state] in Self.run(state) }
            thread.name = "DuktapeWeb.deadlines"
            thread.start()
        } else if wake {
            state.broadcast()
        }
        return token
    }

    /// Forgets `token`'s action if it has not run (it then never runs).
    func cancel(_ token: Token) {
        let removed = state.withLock { state -> (@Sendable () -> Void)? in
            let removed = state.actions.removeValue(forKey: token.id)
            if state.heap.count > 64 && state.heap.count > 2 * state.actions.count {
                state.heap.removeAll { state.actions[$0.id] == nil }
                Self.heapify(&state.heap)
            }
            return removed
        }
        _ = removed  // released after the lock: it may hold the last reference to anything
    }

    /// The actions waiting, and the heap's nodes (cancelled ones included) (tests).
    var counts: (pending: Int, nodes: Int) { state.withLock { ($0.actions.count, $0.heap.count) } }

    private static func run(_ state: Guarded<State>) {
        while true {
            var due: [@Sendable () -> Void] = []
            var stopped = false
            state.withLock(waitingIf: { state -> (wait: Bool, timeout: Duration?) in
                if state.stopped {
                    stopped = true
                    return (false, nil)
                }
                let now = MonotonicClock.nanoseconds
                while let top = state.heap.first {
                    guard let action = state.actions[top.id] else {
                        popTop(&state.heap)
                        continue
                    }
                    guard top.due <= now else { break }
                    popTop(&state.heap)
                    state.actions[top.id] = nil
                    due.append(action)
                }
                if !due.isEmpty { return (false, nil) }
                return (true, state.heap.first.map { .nanoseconds($0.due - now) })
            })
            if stopped { return }
            for action in due { action() }
        }
    }

    // MARK: - The heap (earliest due first; equal dues in scheduling order)

    private static func earlier(_ a: Node, _ b: Node) -> Bool {
        a.due != b.due ? a.due < b.due : a.id < b.id
    }

    private static func push(_ node: Node, into heap: inout [Node]) {
        heap.append(node)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard earlier(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popTop(_ heap: inout [Node]) {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(&heap, from: 0)
    }

    private static func siftDown(_ heap: inout [Node], from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var child = left
            if left + 1 < heap.count && earlier(heap[left + 1], heap[left]) { child = left + 1 }
            guard earlier(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }

    private static func heapify(_ heap: inout [Node]) {
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(&heap, from: index) }
    }
}
