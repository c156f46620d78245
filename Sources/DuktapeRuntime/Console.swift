import DuktapeCore
import Foundation
import Logging

/// The `console` global, in the browser's and Node's shape: `log`, `info`, `warn`, `error`,
/// `debug`, `trace`, `assert`, `count`/`countReset`, `time`/`timeLog`/`timeEnd`,
/// `group`/`groupEnd`, `table` and `dir`, with printf-like specifiers (`%s %d %i %f %o %O %j %c
/// %%`) and values rendered as Node's `util.inspect` renders them.
///
/// ```swift
/// let console = Console(context: context, output: .standardStreams)!
/// context.evaluateScript("console.log('%s has %d items', 'cart', 3, { total: 9.5 })")
/// // prints: cart has 3 items { total: 9.5 }
/// print(try console.inspect(context.evaluateScript("({ a: [1, 2], b: 'x' })")))   // prints: { a: [ 1, 2 ], b: 'x' }
/// ```
///
/// Rendering runs in the context's VM (under its time and memory limits). A `Console` keeps its
/// context alive, as a `JSValue` does.
public final class Console: Sendable {
    /// Where the messages go.
    public let output: ConsoleOutput
    private let inspectFunction: JSValue
    private let formatFunction: JSValue

    /// Installs `console` in `context`, writing to `output`. `clock` times `console.time` (tests
    /// pass a manual one; the default is the system's monotonic clock). There is no default
    /// output: a library does not choose where its host's logs go (swift-log's advice), so the
    /// host passes its `Logger`, `.standardStreams` (Node's behaviour) or `.discarded`.
    ///
    /// ```swift
    /// Console(context: context, output: .logger(Logger(label: "scripts")))
    /// ```
    ///
    /// Returns nil, with the reason in `context.exception`, when the context cannot run the
    /// console's set-up (its memory limit is reached).
    public init?(context: JSContext, output: ConsoleOutput, clock: ManualClock? = nil) {
        self.output = output
        let origin = ContinuousClock.now
        let write = JSValue(newFunctionIn: context) { (level: Int, text: String) in
            output.write(ConsoleLevel(rawValue: level) ?? .log, text)
        }
        let now = JSValue(newFunctionIn: context) { () -> Double in
            JSEventLoop.seconds(clock?.now ?? (ContinuousClock.now - origin)) * 1000
        }
        // A promise's state and result, which only the engine can read (inspect.js shows them).
        let promise = JSValue(newFunctionIn: context) { _, arguments -> JSValue? in
            guard let value = arguments.first, let (state, result) = value.promiseInspection else { return nil }
            let inspection = JSValue(newObjectIn: value.context)
            inspection?.setValue(state == .fulfilled ? "fulfilled" : state == .rejected ? "rejected" : "pending", forProperty: "state")
            inspection?.setValue(result, forProperty: "result")
            return inspection
        }
        // A Map's or Set's entries (the first `limit`) and size, which only the engine can read.
        let collection = JSValue(newFunctionIn: context) { _, arguments -> JSValue? in
            guard arguments.count == 2, let found = arguments[0].collectionInspection(limit: Int(arguments[1].toInt32()))
            else { return nil }
            let inspection = JSValue(newObjectIn: arguments[0].context)
            inspection?.setValue(found.kind, forProperty: "kind")
            inspection?.setValue(found.size, forProperty: "size")
            inspection?.setValue(found.entries, forProperty: "entries")
            return inspection
        }
        // An array's or typed array's named keys, without listing its indices.
        let namedKeys = JSValue(newFunctionIn: context) { _, arguments -> JSValue? in
            arguments.first?.namedOwnKeys
        }
        do {
            let made = try HostScript.run(
                HostScript.console, in: context,
                natives: HostScript.table(
                    [("write", write), ("now", now), ("promise", promise), ("collection", collection), ("namedKeys", namedKeys)], in: context))
            context.globalObject.setValue(made.forProperty("console"), forProperty: "console")
            inspectFunction = made.forProperty("inspect")
            formatFunction = made.forProperty("format")
        } catch {
            context.exception = (error as? JSException)?.value
            return nil
        }
    }

    /// `value` as Node's `util.inspect` shows it (depth 2; strings quoted), which the REPL prints.
    ///
    /// ```swift
    /// let console = Console(context: context, output: .discarded)!
    /// print(try console.inspect(context.evaluateScript("[1, 'two', { three: 3 }]")))   // prints: [ 1, 'two', { three: 3 } ]
    /// ```
    ///
    /// Own accessors are shown as `[Getter]`, never run; a few reads can still run script code
    /// (`constructor.name`, an error's `name`, `message` and `stack`, a `Proxy`'s traps), and
    /// what they throw is thrown here.
    public func inspect(_ value: JSValue, depth: Int = 2) throws -> String {
        try inspectFunction.call(value, ["depth": depth]).toString()
    }

    /// `values` as `console.log` would print them (format specifiers in a first string).
    ///
    /// ```swift
    /// let console = Console(context: context, output: .discarded)!
    /// print(try console.format(["%d%%", 50]))   // prints: 50%
    /// ```
    public func format(_ values: [Any]) throws -> String {
        try formatFunction.call(values).toString()
    }
}
