import ArgumentParser
import DuktapeCore
import Foundation

/// `process`'s events with Node's methods: `on` (`addListener`), `once`, `off`
/// (`removeListener`), `removeAllListeners`, `listeners`, `listenerCount` and `emit`. The host
/// emits `'exit'`, `'uncaughtException'`, `'unhandledRejection'` and `'rejectionHandled'`
/// (`ScriptHost`); a script may emit any name.
///
/// The listeners are held by the host, at most `maximumListeners` for one event (Node has no
/// limit and warns past 10; a script adding listeners in a loop would grow the host without
/// bound). Adding more throws a RangeError.
final class ProcessEvents {
    private struct Listener {
        let function: JSValue
        let once: Bool
        /// Which registration it is (a function added twice is two listeners).
        let serial: Int
    }

    private var nextSerial = 0

    private var listeners: [String: [Listener]] = [:]
    /// `process` (a listener's `this`) and `Reflect.apply` as it was before any script ran.
    private var process: JSValue?
    private var apply: JSValue?

    /// The most listeners one event keeps.
    static let maximumListeners = 10_000

    /// Adds the methods to `process`.
    func install(on process: JSValue, in context: JSContext) {
        self.process = process
        apply = context.objectForKeyedSubscript("Reflect").forProperty("apply")
        func method(_ name: String, _ body: @escaping (JSValue, [JSValue]) throws -> Any?) {
            process.setValue(JSValue(newFunctionIn: context, name: name) { this, arguments in try body(this, arguments) }, forProperty: name)
        }
        for (name, once) in [("on", false), ("addListener", false), ("once", true)] {
            method(name) { [unowned self] this, arguments in
                try add(Self.event(arguments), Self.listener(arguments), once: once)
                return this
            }
        }
        for name in ["off", "removeListener"] {
            method(name) { [unowned self] this, arguments in
                remove(Self.event(arguments), try Self.listener(arguments))
                return this
            }
        }
        method("removeAllListeners") { [unowned self] this, arguments in
            if let first = arguments.first, !first.isUndefined { listeners[Self.event(arguments)] = nil } else { listeners = [:] }
            return this
        }
        method("listenerCount") { [unowned self] _, arguments in count(Self.event(arguments)) }
        method("listeners") { [unowned self] _, arguments in (listeners[Self.event(arguments)] ?? []).map(\.function) }
        method("emit") { [unowned self] _, arguments in try emit(Self.event(arguments), Array(arguments.dropFirst())) }
    }

    /// The number of listeners of `event`.
    func count(_ event: String) -> Int {
        listeners[event]?.count ?? 0
    }

    /// Calls the listeners `event` had when it was emitted, in the order they were added, with
    /// `arguments` (a `once` listener is removed before it is called); returns whether there
    /// were any. What a listener throws is thrown, and the ones after it are not called.
    @discardableResult
    func emit(_ event: String, _ arguments: [Any]) throws -> Bool {
        guard let current = listeners[event], !current.isEmpty else { return false }
        for listener in current {
            if listener.once {
                listeners[event]?.removeAll { $0.serial == listener.serial }
                if listeners[event]?.isEmpty == true { listeners[event] = nil }
            }
            guard let apply else { return true }
            try apply.call(listener.function, process, arguments)
        }
        return true
    }

    private func add(_ event: String, _ function: JSValue, once: Bool) throws {
        guard count(event) < Self.maximumListeners else {
            let message = "more than \(Self.maximumListeners) listeners for '\(event)'"
            guard let error = JSValue(newRangeErrorFromMessage: message, in: function.context) else { throw RuntimeError(message) }
            throw JSException(error)
        }
        nextSerial += 1
        listeners[event, default: []].append(Listener(function: function, once: once, serial: nextSerial))
    }

    /// Removes the last-added listener of `event` that is `function` (Node's rule).
    private func remove(_ event: String, _ function: JSValue) {
        guard let index = listeners[event]?.lastIndex(where: { $0.function.isEqual(to: function) }) else { return }
        listeners[event]?.remove(at: index)
        if listeners[event]?.isEmpty == true { listeners[event] = nil }
    }

    private static func event(_ arguments: [JSValue]) -> String {
        arguments.first.flatMap { $0.isSymbol ? $0.description : $0.toString() } ?? "undefined"
    }

    private static func listener(_ arguments: [JSValue]) throws -> JSValue {
        guard arguments.count > 1, arguments[1].isFunction else {
            let message = "The \"listener\" argument must be of type function"
            guard let error = JSValue(newTypeErrorFromMessage: message, in: JSContext.current()) else { throw RuntimeError(message) }
            error.setValue("ERR_INVALID_ARG_TYPE", forProperty: "code")
            throw JSException(error)
        }
        return arguments[1]
    }
}

/// Node's `--unhandled-rejections` modes: what an unhandled rejection does.
enum UnhandledRejectionMode: String, CaseIterable, ExpressibleByArgument {
    /// Emit `'unhandledRejection'`; without a listener, raise it as an uncaught exception (the
    /// default, as in Node 15 and later).
    case `throw`
    /// Raise it as an uncaught exception; if that is handled (`'uncaughtException'`), emit
    /// `'unhandledRejection'` too.
    case strict
    /// Emit `'unhandledRejection'` and always print a warning.
    case warn
    /// Emit `'unhandledRejection'`; without a listener, print a warning and make the exit
    /// status 1.
    case warnWithErrorCode = "warn-with-error-code"
    /// Emit `'unhandledRejection'`, print nothing.
    case none
}
