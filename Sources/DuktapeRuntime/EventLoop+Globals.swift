import DuktapeCore
import Foundation

extension EventLoop {
    /// Installs the timer globals. Each is a Swift function holding the loop weakly (a script
    /// keeping `setTimeout` does not keep the loop) and the context watch strongly (released
    /// with the context, it wakes the loop, which then finds its context gone and stops).
    func installGlobals(in context: JSContext) {
        let watch = ContextWatch(loop: self)
        let global = context.globalObject
        func define(_ name: String, _ body: @escaping (EventLoop, JSContext, [JSValue]) throws -> Any?) {
            let function = JSValue(newFunctionIn: context, name: name) { [weak self] _, arguments in
                withExtendedLifetime(watch) {}
                // A loop that is gone schedules nothing (and says so with undefined).
                guard let self else { return nil }
                return try body(self, JSContext.current(), arguments)
            }
            global?.setValue(function, forProperty: name)
        }
        define("setTimeout") { loop, context, arguments in
            try loop.schedule(arguments, repeating: false, in: context)
        }
        define("setInterval") { loop, context, arguments in
            try loop.schedule(arguments, repeating: true, in: context)
        }
        define("clearTimeout") { loop, _, arguments in loop.clearTimer(arguments.first) }
        define("clearInterval") { loop, _, arguments in loop.clearTimer(arguments.first) }
        define("setImmediate") { loop, context, arguments in
            let callback = try Self.function(arguments.first, for: "setImmediate", in: context)
            let immediate = ImmediateQueue.Entry(callback: callback, arguments: Array(arguments.dropFirst()))
            return loop.state.withLockWaking { state -> Int in
                guard !state.isStopped else { return 0 }  // a stopped loop runs nothing
                let id = state.takeID()
                state.immediates.append(id, immediate)
                return id
            }
        }
        define("clearImmediate") { loop, _, arguments in
            guard let id = Self.handle(arguments.first) else { return nil }
            let removed = loop.state.withLock { $0.immediates.remove(id) }
            withExtendedLifetime(removed) {}  // released here, outside the loop's lock
            return nil
        }
        define("queueMicrotask") { _, context, arguments in
            context.queueMicrotask(try Self.function(arguments.first, for: "queueMicrotask", in: context))
            return nil
        }
    }

    /// `setTimeout`/`setInterval`: the callback must be a function (a string is refused: no
    /// `eval` of strings); the delay is converted as WebIDL converts a `long` (ToNumber, then
    /// modulo 2^32: NaN, infinities and missing give 0), and negative delays are 0. There is no
    /// 4 ms clamp for nested timers (Node has none either).
    private func schedule(_ arguments: [JSValue], repeating: Bool, in context: JSContext) throws -> Int {
        let callback = try Self.function(arguments.first, for: repeating ? "setInterval" : "setTimeout", in: context)
        let delay = arguments.count > 1 ? max(0, Self.webIDLLong(arguments[1].toDouble())) : 0
        let period = Duration.milliseconds(delay)
        let entry = TimerQueue.Entry(
            callback: callback, arguments: Array(arguments.dropFirst(2)), interval: repeating ? period : nil,
            due: now + period, sequence: 0)
        return state.withLockWaking { state -> Int in
            guard !state.isStopped else { return 0 }  // a stopped loop runs nothing
            let id = state.takeID()
            state.timers.schedule(id, entry)
            return id
        }
    }

    /// `clearTimeout`/`clearInterval` (one pool of ids, as in browsers): an unknown, finished or
    /// non-numeric id does nothing.
    private func clearTimer(_ value: JSValue?) -> Any? {
        guard let id = Self.handle(value) else { return nil }
        let removed = state.withLock { $0.timers.remove(id) }
        withExtendedLifetime(removed) {}  // released here, outside the loop's lock
        return nil
    }

    /// A timer id as WebIDL reads a `long` handle; nil for values that cannot name one.
    private static func handle(_ value: JSValue?) -> Int? {
        guard let value, !value.isUndefined, !value.isNull else { return nil }
        let id = webIDLLong(value.toDouble())
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

    private static func function(_ value: JSValue?, for name: String, in context: JSContext) throws -> JSValue {
        guard let value, value.isFunction else {
            let what = value?.isString == true ? "a string (strings are not evaluated)" : "not a function"
            throw JSException(JSValue(newTypeErrorFromMessage: "\(name): the callback is \(what)", in: context))
        }
        return value
    }
}

/// Held by the loop's global functions: released with the context, it wakes the loop so that
/// a loop waiting on its own thread notices the context is gone and stops.
final class ContextWatch: Sendable {
    private let loop: WeakLoop

    init(loop: EventLoop) {
        self.loop = WeakLoop(loop: loop)
    }

    deinit {
        loop.loop?.state.withLockWaking { $0.contextGone = true }
    }
}

private final class WeakLoop: Sendable {
    weak let loop: EventLoop?

    init(loop: EventLoop) {
        self.loop = loop
    }
}
