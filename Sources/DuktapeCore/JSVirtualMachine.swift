import Foundation

/// One JavaScript heap: an object space with its own garbage collector, memory account and lock.
///
/// A `JSVirtualMachine` owns one Duktape heap and one recursive lock, like JavaScriptCore's VM and
/// its JSLock. Every context created in it shares the heap, so values move freely between those
/// contexts; values of another VM are refused with a `TypeError`. The lock makes a VM safe to use
/// from any thread, one thread at a time; to run scripts in parallel, give each thread its own VM.
///
/// ```swift
/// let vm = JSVirtualMachine()!
/// vm.memoryLimit = 16 << 20          // 16 MiB for everything in this heap
/// vm.executionTimeLimit = 0.5        // seconds per top-level call into JavaScript
/// let context = JSContext(virtualMachine: vm)!
/// ```
public final class JSVirtualMachine: @unchecked Sendable {
    // @unchecked: the engine is Sendable by its lock; `sandboxStorage` is written once, in
    // `configure`, before the VM is shared; the managed-reference tables are read and written
    // only under the engine's lock.

    /// The heap, its lock, limits and registry: every path into the engine goes through it.
    let engine: Engine
    private var sandboxStorage: JSSandbox?
    /// JSManagedValue ownership edges, by owner.
    var managedEdges: [ObjectIdentifier: OwnerEdges] = [:]
    /// Managed values watching each object, by the object's heap address.
    var watchers: [UnsafeMutableRawPointer: [WeakObject]] = [:]

    /// Creates a virtual machine with a new heap.
    ///
    /// Returns nil only if the engine cannot allocate its heap.
    public convenience init!() {
        self.init(engineClock: nil)
    }

    /// Creates a virtual machine whose `executionTimeLimit` is measured on `clock`, which moves
    /// only when advanced: for tests that drive time limits without waiting.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let vm = JSVirtualMachine(clock: clock)!
    /// vm.executionTimeLimit = 1
    /// clock.advance(by: .seconds(2))   // a script running in vm now times out
    /// ```
    public convenience init!(clock: ManualClock) {
        self.init(engineClock: clock)
    }

    private init?(engineClock: ManualClock?) {
        guard let engine = Engine(clock: engineClock) else { return nil }
        self.engine = engine
        engine.setOwner(self)
    }

    deinit {
        // Contexts and values hold their VM strongly, so nothing else can use the heap any more.
        // Destroyed here, while the VM is whole: finalizers report to it and release boxes.
        engine.destroy()
    }

    /// The lock of this VM's engine.
    var lock: RecursiveLock { engine.lock }

    // MARK: - Limits and memory

    /// The most bytes the heap may hold, or nil for no limit.
    ///
    /// An allocation that would pass the limit fails; Duktape then collects garbage, retries, and
    /// if that does not help the running script gets `RangeError: memory limit exceeded`, which
    /// its own `catch` can see, and Swift a `JSException` with that name, message, and the line
    /// and stack where the script was stopped. The VM stays usable afterwards. A limit below the
    /// current usage only stops further growth.
    ///
    /// ```swift
    /// vm.memoryLimit = 8 << 20
    /// ```
    public var memoryLimit: Int? {
        get { engine.memoryLimit }
        set { engine.memoryLimit = newValue }
    }

    /// How long one top-level call into JavaScript may run, in seconds, or nil for no limit.
    ///
    /// The clock starts when a call from Swift enters the engine (evaluating a script, calling a
    /// function, reading a property with a getter...) with no other call of this VM active, and
    /// covers everything nested in it. A script past its time gets `RangeError: execution timeout`,
    /// which JavaScript `try`/`catch` cannot swallow; the VM stays usable afterwards. The check
    /// runs every 256 Ki bytecode instructions, so a limit is honoured to a few milliseconds.
    /// Script finalizers are bounded the same way wherever Duktape runs them: when a `JSValue` is
    /// released, in `garbageCollect()`, and when the VM itself is released.
    /// A native built-in that loops without running bytecode (`join` of a sparse array of length
    /// 2^32 - 1) is stopped at its next allocations past the deadline. Time spent in Swift
    /// callbacks counts, but a callback that blocks is not interrupted.
    ///
    /// ```swift
    /// vm.executionTimeLimit = 0.1
    /// context.evaluateScript("while (true) {}")   // exception: RangeError: execution timeout
    /// ```
    public var executionTimeLimit: TimeInterval? {
        get { engine.timeLimit }
        set { engine.timeLimit = newValue }
    }

    /// The most JavaScript calls that may be nested in one context, or nil for the engine's own
    /// limit of 10,000.
    ///
    /// A script that nests deeper gets `RangeError: callstack limit` and the VM stays usable.
    /// The count is kept per context (per Duktape thread); calls that pass through a Swift
    /// callback count too, and may end earlier, at the native stack guard (about 275 to 500
    /// JavaScript → Swift → JavaScript levels, by thread stack size).
    ///
    /// ```swift
    /// vm.maximumCallDepth = 200
    /// context.evaluateScript("(function f(n) { return n && f(n - 1) })(500)")  // RangeError
    /// ```
    public var maximumCallDepth: Int? {
        get { engine.maximumCallDepth }
        set { engine.maximumCallDepth = newValue }
    }

    /// The sandbox this VM was created with, or nil for an ordinary VM.
    ///
    /// ```swift
    /// print(JSVirtualMachine(sandbox: JSSandbox())!.sandbox?.memoryLimit ?? 0)   // prints: 67108864
    /// ```
    public var sandbox: JSSandbox? {
        lock.withLock { sandboxStorage }
    }

    /// Whether contexts made in this VM lose the `Duktape` global.
    var removesEngineGlobals: Bool {
        lock.withLock { sandboxStorage.map { !$0.exposesEngineGlobals } ?? false }
    }

    /// Applies a sandbox's limits (from `init(sandbox:)`).
    func configure(_ sandbox: JSSandbox) {
        lock.withLock { sandboxStorage = sandbox }
        memoryLimit = sandbox.memoryLimit
        executionTimeLimit = sandbox.executionTimeLimit
        maximumCallDepth = sandbox.maximumCallDepth
    }

    /// Bytes currently held by the heap, as counted by the allocator hooks.
    ///
    /// ```swift
    /// print(vm.memoryUsage)   // e.g. 118_432
    /// ```
    public var memoryUsage: Int {
        engine.memoryUsage
    }

    /// The highest value `memoryUsage` has reached.
    public var peakMemoryUsage: Int {
        engine.peakMemoryUsage
    }

    /// Runs a full garbage collection (reference counts and mark-and-sweep), twice so that objects
    /// freed by finalizers are collected too. The finalizers it runs are script code like any
    /// other: they are bounded by `executionTimeLimit` and `memoryLimit`.
    ///
    /// ```swift
    /// vm.garbageCollect()
    /// ```
    ///
    /// The corresponding Duktape function is `duk_gc`.
    public func garbageCollect() {
        engine.collectGarbage()
    }

    /// Number of values currently pinned for Swift (for leak tests).
    var pinnedValueCount: Int { engine.pinnedValueCount }
}
