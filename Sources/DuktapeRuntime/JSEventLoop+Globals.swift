import DuktapeCore
import Foundation

extension JSEventLoop {
    /// Installs the timer globals. The timers' are typed Swift functions holding the loop's
    /// state, not the loop: a script keeping `setTimeout` does not keep the loop, and a released
    /// loop leaves inert globals (they return undefined). They also hold the context watch
    /// (released with the context, it wakes the loop, which then finds its context gone and
    /// stops). `setImmediate` and `clearImmediate` are the C functions of the immediates' queue,
    /// which keeps them in the heap (`HeapCallbackQueue`), closed with the loop.
    ///
    /// Each reads the parameters every call has (the callback, the delay) by type, and the
    /// arguments for the callback only when there are some: `setTimeout(f, 0)` makes one
    /// JSValue, for `f`.
    func installGlobals(in context: JSContext) {
        let watch = ContextWatch(state: state)
        let state = self.state
        let account = HostMemoryAccount(context: context)
        state.withLock { $0.timers.account = account }
        let immediates = self.immediates
        let (clock, origin) = (self.clock, self.origin)
        func timer(repeating: Bool) -> JSValue {
            let name = repeating ? "setInterval" : "setTimeout"
            return JSValue(newFunctionIn: context, name: name) { (handler: JSValue, delay: Double) -> Int? in
                withExtendedLifetime(watch) {}
                let callback = try Self.callback(handler, for: name)
                let period = max(0, Self.webIDLLong(delay)) * 1_000_000  // at most 2^31 ms, in nanoseconds
                let arguments = Self.callbackArguments(after: 2)
                let entry = TimerQueue.Entry(
                    callback: callback, arguments: arguments, charged: try Self.charge(for: arguments, to: account),
                    interval: repeating ? period : nil, due: TimerQueue.adding(period, to: Self.nanosecondsNow(clock: clock, origin: origin)), sequence: 0)
                return Self.queue(in: state, giveBack: entry.charged, to: account) { state in
                    let id = immediates.takeID { state.timers.entries[$0] != nil }
                    state.timers.schedule(id, entry)
                    return id
                }
            }
        }
        let clearTimer = { (name: String) in
            JSValue(newFunctionIn: context, name: name) { (id: JSValue) in
                withExtendedLifetime(watch) {}
                try Self.dequeue(id, in: state) { $0.timers.remove($1) }
            }
        }
        let queueMicrotask = JSValue(newFunctionIn: context, name: "queueMicrotask") { (callback: JSValue) in
            withExtendedLifetime(watch) {}
            JSContext.current().queueMicrotask(try Self.callback(callback, for: "queueMicrotask"))
        }
        let global = context.globalObject
        global?.setValue(timer(repeating: false), forProperty: "setTimeout")
        global?.setValue(timer(repeating: true), forProperty: "setInterval")
        global?.setValue(clearTimer("clearTimeout"), forProperty: "clearTimeout")
        global?.setValue(clearTimer("clearInterval"), forProperty: "clearInterval")
        if let (setImmediate, clearImmediate) = immediates.makeFunctions(in: context) {
            global?.setValue(setImmediate, forProperty: "setImmediate")
            global?.setValue(clearImmediate, forProperty: "clearImmediate")
        }
        global?.setValue(queueMicrotask, forProperty: "queueMicrotask")
    }

    /// The host memory of a timer's record, charged to the VM's memory limit
    /// (the record and its JSValues live outside the heap: without the charge, a script under a
    /// limit could queue timers until the host ran out of memory).
    private static func charge(for arguments: [JSValue], to account: HostMemoryAccount) throws -> Int {
        let bytes = recordBytes + valueBytes * (1 + arguments.count)
        guard account.charge(bytes) else { throw HostMemoryAccount.limitError(in: JSContext.current()) }
        return bytes
    }

    /// What one queued record costs the host: the entry with its queue's share (the timer heap's
    /// node, the dictionary's slot), and a JSValue (object, storage) per value it holds.
    static let recordBytes = 160
    static let valueBytes = 64

    /// Queues a timer with `add` (which returns its id), unless the loop is stopped
    /// (0: nothing runs) or released (nil: undefined in JavaScript).
    private static func queue(
        in state: Guarded<State>, giveBack charged: Int, to account: HostMemoryAccount, _ add: (inout State) -> Int
    ) -> Int? {
        let id = state.withLockWaking { state -> Int? in
            if state.isReleased { return nil }
            if state.isStopped { return 0 }
            return add(&state)
        }
        if id == nil || id == 0 { account.discharge(charged) }  // not queued: its charge goes back
        return id
    }

    /// `clearTimeout`/`clearInterval` (one pool of ids, as in browsers; `clearImmediate` is C,
    /// `HeapCallbackQueue`): an unknown, finished or non-numeric id does nothing. The entry `remove` takes is
    /// released after the loop's lock.
    private static func dequeue<Entry>(_ value: JSValue, in state: Guarded<State>, _ remove: (inout State, Int) -> Entry?) throws {
        guard let id = try handle(value) else { return }
        let removed = state.withLock { remove(&$0, id) }
        withExtendedLifetime(removed) {}  // released here, outside the loop's lock
    }

    /// The arguments after the first `count` of the running call (the callback's extra
    /// arguments): none without asking for them when there are none.
    private static func callbackArguments(after count: Int) -> [JSValue] {
        guard let total = JSContext.currentArgumentCount(), total > count else { return [] }
        return JSContext.currentArguments().dropFirst(count).compactMap { $0 as? JSValue }
    }

    /// A timer id as WebIDL reads a `long` handle; nil for values that cannot name one. A
    /// `valueOf` that throws throws to the script, as it does for the delay of `setTimeout`.
    private static func handle(_ value: JSValue) throws -> Int? {
        guard !value.isUndefined, !value.isNull, !value.isSymbol else { return nil }
        let id = webIDLLong(try Double.fromJSArgument(value))
        return id > 0 ? Int(id) : nil
    }

    /// WebIDL's conversion to `long`: ToNumber, truncation, then modulo 2^32 into Int32's range.
    static func webIDLLong(_ number: Double) -> Int64 {
        guard number.isFinite else { return 0 }
        var value = number.rounded(.towardZero).truncatingRemainder(dividingBy: 4_294_967_296)
        if value < 0 { value += 4_294_967_296 }
        if value >= 2_147_483_648 { value -= 4_294_967_296 }
        return Int64(value)
    }

    /// A callback must be a function (a string is refused: no `eval` of strings).
    private static func callback(_ value: JSValue, for name: String) throws -> JSValue {
        guard value.isFunction else {
            let what = value.isString ? "a string (strings are not evaluated)" : "not a function"
            throw JSException(JSValue(newTypeErrorFromMessage: "\(name): the callback is \(what)", in: value.context))
        }
        return value
    }
}

/// Held by the loop's global functions: released with the context, it wakes the loop so that
/// a loop waiting on its own thread notices the context is gone and stops.
final class ContextWatch: Sendable {
    private let state: Guarded<JSEventLoop.State>

    init(state: Guarded<JSEventLoop.State>) {
        self.state = state
    }

    deinit {
        state.withLockWaking { $0.contextGone = true }
    }
}
