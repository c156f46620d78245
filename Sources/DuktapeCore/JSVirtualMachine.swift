import CDuktape
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
    // @unchecked: all mutable state below is read and written only while `lock` is held
    // (the allocator and the interrupt check run inside engine calls made under it).

    let lock = RecursiveLock()
    private let state: UnsafeMutablePointer<cduk_heap_state>
    /// The heap's initial thread. It never runs scripts: it holds the registry at stack index 0
    /// and is used for VM-wide work (slot release, GC, new context threads).
    let heapContext: OpaquePointer
    /// Heap pointer of the registry array where pinned values live (see `pin`).
    let registry: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var freeSlots: [UInt32] = []
    @exclusivity(unchecked) private var nextSlot: UInt32 = 0
    @exclusivity(unchecked) private var entryDepth = 0
    /// `limit_hits` when the outermost entry began.
    @exclusivity(unchecked) private var limitHitsAtEntry: UInt32 = 0
    /// `deadline_refusals` when the outermost entry began.
    @exclusivity(unchecked) private var deadlineRefusalsAtEntry: UInt32 = 0
    @exclusivity(unchecked) private var timeLimitStorage: TimeInterval?
    private var sandboxStorage: JSSandbox?
    /// The live contexts by their Duktape thread, to find the context of a callback. Unowned: a
    /// context unregisters itself in deinit.
    @exclusivity(unchecked) private var contextsByThread: [OpaquePointer: Unmanaged<JSContext>] = [:]
    /// The context of the innermost `withStack` on the thread holding the lock: scripts run
    /// only inside one, so a callback on its thread belongs to it. Unretained: `withStack` runs
    /// on the context, which is alive until it returns (and saving and restoring a reference
    /// would retain and release it on every entry).
    @exclusivity(unchecked) var runningContextReference: Unmanaged<JSContext>?
    /// Whether the heap's own global environment has been given to a context. The first context
    /// of a VM uses it (no second realm to build); later ones get fresh global environments, and
    /// the default one is never handed out twice.
    private var defaultRealmTaken = false
    /// Interned property-key strings, pinned, by text: `obj["key"]` from Swift then skips
    /// transcoding and interning the key again. Bounded.
    @exclusivity(unchecked) private var internedKeys = InternedKeyCache()
    /// JSManagedValue ownership edges, by owner.
    var managedEdges: [ObjectIdentifier: OwnerEdges] = [:]
    /// Managed values watching each object, by the object's heap address.
    var watchers: [UnsafeMutableRawPointer: [WeakObject]] = [:]

    /// Creates a virtual machine with a new heap.
    ///
    /// Returns nil only if the engine cannot allocate its heap.
    public init!() {
        EngineBox.installCallbacks
        let state = UnsafeMutablePointer<cduk_heap_state>.allocate(capacity: 1)
        state.initialize(to: cduk_heap_state())
        guard let heap = cduk_create_heap(state) else {
            state.deallocate()
            return nil
        }
        // The registry array stays on the heap thread's value stack (index 0) for the heap's
        // whole life, which keeps it reachable without any property lookups.
        guard cduk_ppush_new(heap, 3) == DUK_EXEC_SUCCESS, let registry = duk_get_heapptr(heap, -1) else {
            duk_destroy_heap(heap)
            state.deallocate()
            return nil
        }
        self.state = state
        self.heapContext = heap
        self.registry = registry
        state.pointee.swift_owner = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        // Contexts and values hold their VM strongly, so nothing can use the heap any more.
        // Destroying it runs every pending finalizer (which releases Swift boxes), with the
        // limits lifted so that a full heap cannot keep a finalizer from being called.
        state.pointee.memory_limit = 0
        state.pointee.deadline_ns = 0
        duk_destroy_heap(heapContext)
        state.deallocate()
    }

    // MARK: - Contexts

    /// Hands out the heap's default realm once (caller holds the lock).
    func claimDefaultRealm() -> Bool {
        if defaultRealmTaken { return false }
        defaultRealmTaken = true
        return true
    }

    func register(_ context: JSContext) {
        lock.withLock { contextsByThread[context.ctx] = Unmanaged.passUnretained(context) }
    }

    func unregister(_ context: JSContext) {
        lock.withLock { _ = contextsByThread.removeValue(forKey: context.ctx) }
    }

    /// Every live context (caller holds the lock).
    func liveContexts() -> [JSContext] {
        contextsByThread.values.map { $0.takeUnretainedValue() }
    }

    /// The context whose thread is `ctx`. Caller holds the lock.
    func context(forThread ctx: OpaquePointer) -> JSContext? {
        contextsByThread[ctx]?.takeUnretainedValue()
    }

    // MARK: - Limits and memory

    /// The most bytes the heap may hold, or nil for no limit.
    ///
    /// An allocation that would pass the limit fails; Duktape then collects garbage, retries, and
    /// if that does not help the running script gets `RangeError: alloc failed` (a `JSException`).
    /// The VM stays usable afterwards. A limit below the current usage only stops further growth.
    ///
    /// ```swift
    /// vm.memoryLimit = 8 << 20
    /// ```
    public var memoryLimit: Int? {
        get { lock.withLock { state.pointee.memory_limit == 0 ? nil : Int(state.pointee.memory_limit) } }
        set { lock.withLock { state.pointee.memory_limit = newValue.map { size_t(max(1, $0)) } ?? 0 } }
    }

    /// How long one top-level call into JavaScript may run, in seconds, or nil for no limit.
    ///
    /// The clock starts when a call from Swift enters the engine (evaluating a script, calling a
    /// function, reading a property with a getter...) with no other call of this VM active, and
    /// covers everything nested in it. A script past its time gets `RangeError: execution timeout`,
    /// which JavaScript `try`/`catch` cannot swallow; the VM stays usable afterwards. The check
    /// runs every few thousand bytecode instructions, so a limit is honoured to about a millisecond.
    /// A native built-in that loops without running bytecode (`join` of a sparse array of length
    /// 2^32 - 1) is stopped at its next allocations past the deadline. Time spent in Swift
    /// callbacks counts, but a callback that blocks is not interrupted.
    ///
    /// ```swift
    /// vm.executionTimeLimit = 0.1
    /// context.evaluateScript("while (true) {}")   // exception: RangeError: execution timeout
    /// ```
    public var executionTimeLimit: TimeInterval? {
        get { lock.withLock { timeLimitStorage } }
        set { lock.withLock { timeLimitStorage = newValue.map { max(0, $0) } } }
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
        get { lock.withLock { state.pointee.callstack_limit == 0 ? nil : Int(state.pointee.callstack_limit) } }
        set { lock.withLock { state.pointee.callstack_limit = newValue.map { UInt32(clamping: max(1, $0)) } ?? 0 } }
    }

    /// The sandbox this VM was created with, or nil for an ordinary VM.
    ///
    /// ```swift
    /// JSVirtualMachine(sandbox: JSSandbox())!.sandbox?.memoryLimit   // 67_108_864
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
        lock.withLock { Int(state.pointee.memory_used) }
    }

    /// The highest value `memoryUsage` has reached.
    public var peakMemoryUsage: Int {
        lock.withLock { Int(state.pointee.memory_peak) }
    }

    /// Runs a full garbage collection (reference counts and mark-and-sweep), twice so that objects
    /// freed by finalizers are collected too.
    ///
    /// ```swift
    /// vm.garbageCollect()
    /// ```
    ///
    /// The corresponding Duktape function is `duk_gc`.
    public func garbageCollect() {
        lock.withLock {
            duk_gc(heapContext, 0)
            duk_gc(heapContext, 0)
        }
    }

    // MARK: - Entering the engine

    /// Runs `body` under the lock as an entry into the engine: the outermost entry arms the
    /// execution deadline and disarms it on the way out.
    @inline(__always)
    func enter<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock { () throws(E) -> T in
            if entryDepth == 0 {
                limitHitsAtEntry = state.pointee.limit_hits
                deadlineRefusalsAtEntry = state.pointee.deadline_refusals
                state.pointee.past_deadline = 0
                if let limit = timeLimitStorage {
                    let nanoseconds = UInt64(min(limit, 1e9) * 1e9)
                    state.pointee.deadline_ns = cduk_monotonic_ns() &+ max(1, nanoseconds)
                }
            }
            entryDepth += 1
            defer {
                entryDepth -= 1
                if entryDepth == 0 { state.pointee.deadline_ns = 0 }
            }
            return try body()
        }
    }

    /// True when the heap refused an allocation because of `memoryLimit` during the current
    /// outermost entry. Caller holds the lock.
    var memoryLimitReachedInEntry: Bool {
        state.pointee.limit_hits != limitHitsAtEntry
    }

    /// True inside a call nested in an entry whose execution deadline has passed (caller holds
    /// the lock).
    var isPastDeadlineInNestedEntry: Bool {
        entryDepth > 0 && state.pointee.deadline_ns != 0 && cduk_monotonic_ns() >= state.pointee.deadline_ns
    }

    /// True when the allocator refused memory because the execution deadline had passed during
    /// the current outermost entry (a native built-in ran past it). Caller holds the lock.
    var deadlineReachedInEntry: Bool {
        state.pointee.deadline_refusals != deadlineRefusalsAtEntry
    }

    // MARK: - Interned keys

    /// The heap address of the interned JS string for `key`, if cached (caller holds the lock).
    func internedKey(_ key: String) -> UnsafeMutableRawPointer? {
        internedKeys.pointer(for: key)
    }

    /// Caches the interned string at `index` of `ctx` for `key` (caller holds the lock).
    func cacheInternedKey(_ key: String, at index: Int32, of ctx: OpaquePointer) {
        guard key.utf8.count <= InternedKeyCache.maximumKeyLength, let pointer = duk_get_heapptr(ctx, index),
            let slot = pin(valueAt: index, of: ctx)
        else { return }
        if let evicted = internedKeys.insert(key, slot: slot, pointer: pointer) {
            unpin(evicted)
        }
    }

    // MARK: - Registry of values pinned by Swift

    /// Pins the value at `index` of `ctx`'s stack in a registry slot so that it stays alive and
    /// can be pushed back by heap pointer. The stack is left as it was. Caller holds the lock.
    func pin(valueAt index: Int32, of ctx: OpaquePointer) -> UInt32? {
        guard duk_check_stack(ctx, 2) != 0 else { return nil }
        let slot = freeSlots.popLast() ?? nextSlot
        duk_dup(ctx, index)
        let status = cduk_pregistry_set(ctx, registry, slot)
        duk_pop(ctx)  // the value, or the error that replaced it
        guard status == DUK_EXEC_SUCCESS else {
            if slot != nextSlot { freeSlots.append(slot) }
            return nil
        }
        if slot == nextSlot { nextSlot += 1 }
        return slot
    }

    /// Releases a registry slot. Takes the lock; safe from any thread (JSValue.deinit).
    func unpin(_ slot: UInt32) {
        lock.withLock {
            if cduk_pregistry_clear(heapContext, registry, slot) != DUK_EXEC_SUCCESS {
                // Clearing an existing slot does not allocate, so this is not expected; the
                // protocol leaves exactly the error value pushed.
                duk_pop(heapContext)
            }
            freeSlots.append(slot)
        }
    }

    /// Number of values currently pinned for Swift, the bounded key cache aside (for leak tests).
    var pinnedValueCount: Int {
        lock.withLock { Int(nextSlot) - freeSlots.count - internedKeys.count }
    }
}
