import Foundation

/// The limits and restrictions for running scripts you do not trust.
///
/// A sandbox configures a whole `JSVirtualMachine`, because memory and time are accounted per
/// heap: every context created in a sandboxed VM gets the same restrictions. The defaults suit a
/// plugin or a rule from a stranger; loosen or tighten them per field.
///
/// | Field | Default | Past the limit the script gets |
/// | --- | --- | --- |
/// | `memoryLimit` | 64 MiB | `RangeError: memory limit exceeded` |
/// | `executionTimeLimit` | 1 s per call from Swift | `RangeError: execution timeout` |
/// | `maximumCallDepth` | 1,000 nested calls | `RangeError: callstack limit` |
/// | `exposesEngineGlobals` | `false`: no `Duktape` global | `ReferenceError` when it names it |
///
/// ```swift
/// let context = JSContext(sandbox: JSSandbox())!
/// context.evaluateScript("while (true) {}")        // RangeError: execution timeout, after 1 s
///
/// var strict = JSSandbox()
/// strict.memoryLimit = 4 << 20
/// strict.executionTimeLimit = 0.05
/// let vm = JSVirtualMachine(sandbox: strict)!
/// let a = JSContext(virtualMachine: vm)!, b = JSContext(virtualMachine: vm)!   // both sandboxed
/// ```
///
/// What a sandbox guarantees, and what it does not, is in <doc:LimitsAndUntrustedScripts>.
/// It restricts the script, not the Swift code you expose to it: a closure or an
/// exported object you hand to a sandboxed context can do whatever Swift can.
public struct JSSandbox: Sendable, Hashable {
    /// The most bytes the VM's heap may hold (`JSVirtualMachine.memoryLimit`), or nil for none.
    public var memoryLimit: Int?

    /// How long one call from Swift into JavaScript may run, in seconds
    /// (`JSVirtualMachine.executionTimeLimit`), or nil for none.
    public var executionTimeLimit: TimeInterval?

    /// The most JavaScript calls that may be nested in one context
    /// (`JSVirtualMachine.maximumCallDepth`), or nil for the engine's own 10,000.
    public var maximumCallDepth: Int?

    /// Whether scripts see the engine's `Duktape` global.
    ///
    /// Its members reach engine internals: `Duktape.fin` reads and replaces finalizers,
    /// `Duktape.act` walks the call stack and hands out the functions on it, `Duktape.info`
    /// shows heap addresses, `Duktape.gc`/`compact` run the collector on demand, `Duktape.enc`
    /// and `Duktape.dec` make raw buffers, and `Duktape.Thread` runs coroutines. With `false`
    /// (the default) the global is removed from every context of the VM. With `true` it stays,
    /// with `fin` guarded as in every unsandboxed context.
    public var exposesEngineGlobals: Bool

    /// Creates a sandbox configuration; every argument has the documented default.
    ///
    /// ```swift
    /// let sandbox = JSSandbox(memoryLimit: 8 << 20, executionTimeLimit: 0.25)
    /// ```
    public init(
        memoryLimit: Int? = 64 << 20,
        executionTimeLimit: TimeInterval? = 1,
        maximumCallDepth: Int? = 1_000,
        exposesEngineGlobals: Bool = false
    ) {
        self.memoryLimit = memoryLimit
        self.executionTimeLimit = executionTimeLimit
        self.maximumCallDepth = maximumCallDepth
        self.exposesEngineGlobals = exposesEngineGlobals
    }
}
