import DuktapeCore
import Foundation
import Synchronization

/// An event loop for one context: timers (`setTimeout`, `setInterval`, `setImmediate` and their
/// `clear…`), `queueMicrotask`, and work posted from any thread, run one macrotask at a time;
/// the VM's promise jobs drain after each (the end of each call into the context).
///
/// Work in progress (issue 16): this first slice runs on the caller's thread, on a manual clock or
/// the system's monotonic clock; the loop's own thread, `async` evaluation and shutdown rules come
/// next.
///
/// ```swift
/// let clock = ManualClock()
/// let loop = EventLoop(context: context, clock: clock)
/// context.evaluateScript("setTimeout(function () { done = true }, 100)")
/// loop.advance(by: .milliseconds(100))   // the timer runs
/// ```
public final class EventLoop: @unchecked Sendable {
    // @unchecked: `state` is guarded by its mutex; the rest is immutable.

    /// The context the loop's globals live in and its callbacks run in.
    public let context: JSContext
    private let clock: ManualClock?
    private let start = ContinuousClock.now
    private let state = Mutex(State())

    struct Timer {
        let id: Int
        var due: Duration
        let interval: Duration?
        let callback: JSValue
        let arguments: [JSValue]
        let sequence: Int
    }

    struct State {
        var nextID = 1
        var sequence = 0
        var timers: [Int: Timer] = [:]
        var immediates: [(id: Int, callback: JSValue, arguments: [JSValue])] = []
        var posted: [@Sendable (JSContext) -> Void] = []
        var clearedImmediates: Set<Int> = []
    }

    /// A loop for `context`, installing its globals there. Times are read on `clock` when one is
    /// given (tests), else on the system's monotonic clock.
    public init(context: JSContext, clock: ManualClock? = nil) {
        self.context = context
        self.clock = clock
        installGlobals()
    }

    /// The loop's current time.
    public var now: Duration {
        clock?.now ?? (ContinuousClock.now - start)
    }

    // MARK: - Running

    /// Advances the manual clock by `duration`, running every timer that falls due on the way, in
    /// order of due time (then of creation), each at its own time, with the immediates and jobs
    /// between. Does nothing without a manual clock.
    public func advance(by duration: Duration) {
        guard let clock else { return }
        let target = clock.now + duration
        while true {
            runImmediatesAndPosted()
            guard let due = nextDue(), due <= target else { break }
            if due > clock.now { clock.advance(by: due - clock.now) }
            runDueTimers()
        }
        if target > clock.now { clock.advance(by: target - clock.now) }
        runImmediatesAndPosted()
    }

    /// Runs what is ready now (due timers, immediates, posted work) until nothing more is.
    public func runReady() {
        while runDueTimers() + runImmediatesAndPosted() > 0 {}
    }

    /// Posts `work` to run on the loop as a macrotask (from any thread).
    public func post(_ work: @escaping @Sendable (JSContext) -> Void) {
        state.withLock { $0.posted.append(work) }
    }

    /// Number of timers and immediates waiting.
    public var pendingCount: Int {
        state.withLock { $0.timers.count + $0.immediates.count + $0.posted.count }
    }

    private func nextDue() -> Duration? {
        state.withLock { $0.timers.values.map(\.due).min() }
    }

    /// Runs the timers due now, in order; an interval is re-armed from its scheduled time and runs
    /// at most once per call. Returns how many ran.
    @discardableResult
    private func runDueTimers() -> Int {
        let now = self.now
        let due = state.withLock { state in
            state.timers.values.filter { $0.due <= now }.sorted { ($0.due, $0.sequence) < ($1.due, $1.sequence) }
        }
        var ran = 0
        for timer in due {
            // Cleared by an earlier callback of this turn: skipped.
            let current = state.withLock { state -> Timer? in
                guard let live = state.timers[timer.id], live.sequence == timer.sequence else { return nil }
                if let interval = live.interval {
                    var next = live
                    next.due = live.due + interval
                    while next.due <= now { next.due += interval }  // missed runs are skipped, not bunched
                    state.timers[timer.id] = next
                } else {
                    state.timers[timer.id] = nil
                }
                return live
            }
            guard let current else { continue }
            current.callback.call(withArguments: current.arguments)
            ran += 1
        }
        return ran
    }

    /// Runs the immediates queued before this call, then posted work. Returns how many ran.
    @discardableResult
    private func runImmediatesAndPosted() -> Int {
        let (immediates, posted) = state.withLock { state in
            defer {
                state.immediates.removeAll()
                state.posted.removeAll()
            }
            return (state.immediates, state.posted)
        }
        var ran = 0
        for immediate in immediates {
            let live = state.withLock { $0.clearedImmediates.remove(immediate.id) == nil }
            if live {
                immediate.callback.call(withArguments: immediate.arguments)
                ran += 1
            }
        }
        for work in posted {
            work(context)
            ran += 1
        }
        return ran
    }

    // MARK: - Globals

    private func installGlobals() {
        let global = context.globalObject!
        let timer = { [weak self] (repeating: Bool) in
            JSValue(newFunctionIn: self?.context ?? JSContext.current()) { _, arguments in
                guard let self else { return nil }
                return try self.schedule(arguments, repeating: repeating)
            }
        }
        global.setValue(timer(false), forProperty: "setTimeout")
        global.setValue(timer(true), forProperty: "setInterval")
        let clear = JSValue(newFunctionIn: context) { [weak self] _, arguments in
            guard let self, let id = arguments.first, id.isNumber else { return nil }
            let key = Int(exactly: id.toDouble()) ?? -1
            self.state.withLock { state in
                if state.timers.removeValue(forKey: key) == nil { _ = state.clearedImmediates.insert(key) }
            }
            return nil
        }
        global.setValue(clear, forProperty: "clearTimeout")
        global.setValue(clear, forProperty: "clearInterval")
        global.setValue(clear, forProperty: "clearImmediate")
        global.setValue(
            JSValue(newFunctionIn: context) { [weak self] _, arguments in
                guard let self else { return nil }
                let callback = try Self.requireFunction(arguments.first)
                return self.state.withLock { state in
                    let id = state.nextID
                    state.nextID += 1
                    state.immediates.append((id, callback, Array(arguments.dropFirst())))
                    return id
                }
            }, forProperty: "setImmediate")
        global.setValue(
            JSValue(newFunctionIn: context) { _, arguments in
                let callback = try Self.requireFunction(arguments.first)
                JSContext.current().queueMicrotask(callback)
                return nil
            }, forProperty: "queueMicrotask")
    }

    private static func requireFunction(_ value: JSValue?) throws -> JSValue {
        guard let value, value.isFunction else {
            throw TimerArgumentError()
        }
        return value
    }

    private func schedule(_ arguments: [JSValue], repeating: Bool) throws -> Int {
        let callback = try Self.requireFunction(arguments.first)
        var delay = arguments.count > 1 ? arguments[1].toDouble() : 0
        if !delay.isFinite || delay < 0 { delay = 0 }
        let milliseconds = Duration.milliseconds(Int64(min(delay, 2_147_483_647)))
        let extra = Array(arguments.dropFirst(2))
        let now = self.now
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.sequence += 1
            state.timers[id] = Timer(
                id: id, due: now + milliseconds, interval: repeating ? milliseconds : nil, callback: callback,
                arguments: extra, sequence: state.sequence)
            return id
        }
    }
}

/// A timer's callback that is not a function (a string is refused: no `eval` of strings).
struct TimerArgumentError: Error, CustomStringConvertible {
    var description: String { "the callback must be a function (strings are not evaluated)" }
}
