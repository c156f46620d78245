import CDuktape
import Foundation
import Synchronization

/// The engine of one `JSVirtualMachine`: its Duktape heap and everything that touches it.
///
/// The public types never call the C API; they open an entry here (`enter`) and work on a
/// context's `EngineStack`. This type owns:
///
/// - the heap, its C state (allocator accounting, limits, the clock) and the recursive lock;
/// - **the one entry into the engine**, `enter`, used by every path that can run engine code:
///   API calls, callbacks re-entering the API, the release of `JSValue`s, garbage collection
///   and heap destruction. Finalizers are script code too, and Duktape runs them inline in all
///   of these, so each path runs under the VM's deadline and memory limit;
/// - the registry of values pinned for Swift and the interned-key cache;
/// - the pending work drained when the outermost entry ends: releases from threads that found
///   the VM busy, and work posted from other threads (the place where a job queue runs);
/// - the live contexts by Duktape thread, and the running context.
///
/// ```
///  JSValue / JSContext / JSVirtualMachine  (public: open an entry, call the stack)
///          │ enter { }                        ▲ callbacks (HostFunction) re-enter
///          ▼                                  │
///  Engine ── lock, limits, registry, pending work
///          │ EngineStack (one context's value stack: only protected shims)
///          ▼
///  CDuktape ── cduk_p* protected shims ─ Duktape 2.7 (engine.c)
/// ```
final class Engine: @unchecked Sendable {
    // @unchecked: every mutable property below is read and written only while `lock` is held
    // (the allocator and the interrupt check run inside engine calls made under it), except
    // `pending`, which has its own mutex.

    let lock: RecursiveLock
    let state: UnsafeMutablePointer<cduk_heap_state>
    /// The heap's initial thread. It holds the registry at stack index 0 and is used for VM-wide
    /// work (slot release, GC, new context threads); it runs the scripts of the heap's default
    /// realm (the first context of a VM made for one context).
    let heapContext: OpaquePointer
    /// Heap pointer of the registry array where pinned values live (see `pin`).
    let registry: UnsafeMutableRawPointer
    /// The clock the deadline is read on (kept alive here: the C state points into it).
    let clock: ManualClock?
    @exclusivity(unchecked) private var freeSlots: [UInt32] = []
    /// Slots whose release had to wait for the heap thread to be idle (see `clearSlot`).
    @exclusivity(unchecked) private var deferredClears: [UInt32] = []
    @exclusivity(unchecked) private var nextSlot: UInt32 = 0
    @exclusivity(unchecked) private var entryDepth = 0
    /// `limit_hits` when the outermost entry began.
    @exclusivity(unchecked) private var limitHitsAtEntry: UInt32 = 0
    /// `deadline_refusals + deadline_stops` when the outermost entry began.
    @exclusivity(unchecked) private var deadlineStopsAtEntry: UInt32 = 0
    /// The execution time limit in nanoseconds, nil for none.
    @exclusivity(unchecked) private var timeLimitNanoseconds: UInt64?
    /// The live contexts by their Duktape thread, to find the context of a callback. Unowned: a
    /// context unregisters itself in deinit.
    @exclusivity(unchecked) private var contextsByThread: [OpaquePointer: Unmanaged<JSContext>] = [:]
    /// The context of the innermost `withStack` on the thread holding the lock: scripts run
    /// only inside one, so a callback on its thread belongs to it. Unretained: `withStack` runs
    /// on the context, which is alive until it returns.
    @exclusivity(unchecked) var runningContextReference: Unmanaged<JSContext>?
    /// Whether the heap's own global environment has been given to a context (it is given once).
    @exclusivity(unchecked) private var defaultRealmTaken = false
    /// Interned property-key strings, pinned, by text. Bounded.
    @exclusivity(unchecked) private var internedKeys = InternedKeyCache()
    /// How many exception-handler calls are running, nested, on this VM (any of its contexts).
    @exclusivity(unchecked) private var handlerDepth = 0
    /// Handler calls made since the outermost running one began (itself included).
    @exclusivity(unchecked) private var handlerCallsInChain = 0
    /// Work for the outermost entry's end, from threads that found the VM busy; whether it may
    /// hold some is `lock.workWaiting`, read at every outermost release without its mutex.
    private let pending = Guarded<[PendingWork]>([])
    private var destroyed = false

    /// What a thread that found the VM busy leaves for the lock's holder.
    enum PendingWork {
        /// A registry slot to clear (a `JSValue` released on another thread).
        case release(UInt32)
        /// Code to run under the lock, as an entry of its own.
        case run(@Sendable () -> Void)
    }

    /// A new heap whose deadlines are read on `clock` (nil: the system's monotonic clock).
    /// False for the transpiler's own compiler VM: source it cannot parse is an error there, not
    /// something to lower (which would start the compiler VM again). Set before its first use.
    nonisolated(unsafe) var lowersModernSyntax = true

    init?(clock: ManualClock?) {
        EngineBox.installCallbacks
        StringCoding.installNormalizer
        guard let lock = RecursiveLock() else { return nil }
        let state = UnsafeMutablePointer<cduk_heap_state>.allocate(capacity: 1)
        state.initialize(to: cduk_heap_state())
        state.pointee.clock = clock?.cell.pointer
        state.pointee.collect_budget = Int(CDUK_COLLECTION_HEADROOM)
        guard let heap = cduk_create_heap(state) else {
            state.deallocate()
            return nil
        }
        // The registry array stays on the heap thread's value stack (index 0) for the heap's
        // whole life, which keeps it reachable without any property lookups.
        guard cduk_ppush_new(heap, CDUK_NEW_BOOKKEEPING) == DUK_EXEC_SUCCESS, let registry = duk_get_heapptr(heap, -1)
        else {
            duk_destroy_heap(heap)
            state.deallocate()
            return nil
        }
        self.lock = lock
        self.state = state
        self.heapContext = heap
        self.registry = registry
        self.clock = clock
        lock.whenWorkWaits = { [unowned self] in runPendingWorkIfIdle() }
    }

    deinit {
        lock.whenWorkWaits = nil  // nothing else holds the engine: no thread is releasing its lock
        destroy()
        state.deallocate()
    }

    /// The VM that finalizer reports go to (unretained; set once by the VM).
    func setOwner(_ vm: JSVirtualMachine) {
        state.pointee.swift_owner = Unmanaged.passUnretained(vm).toOpaque()
    }

    /// Destroys the heap, as an entry: every pending finalizer runs (releasing Swift boxes), a
    /// script's finalizer under the VM's deadline and memory limit like any script code; the
    /// library's own finalizers are exempt from both (a Swift object must never leak because a
    /// script filled the heap or used up the time). Idempotent.
    func destroy() {
        lock.withLock {
            guard !destroyed else { return }
            destroyed = true
            if entryDepth == 0 { beginOutermostEntry() }
            state.pointee.destroying = 1
            duk_destroy_heap(heapContext)
            reportLateDeaths()
            cduk_free_death_tables(state)
            cduk_heap_limit_site_free(state)
            state.pointee.deadline_ns = 0
            state.pointee.job_queue = nil
            state.pointee.rejections = nil
            state.pointee.job_head = 0
            state.pointee.job_tail = 0
            state.pointee.rejection_head = 0
            state.pointee.rejection_slots = 0
            pending.withLock { (list: inout [PendingWork]) -> Void in
                list.removeAll()
                lock.workWaiting.store(false, ordering: .sequentiallyConsistent)
            }
        }
    }

    // MARK: - The entry

    /// Runs `body` under the lock as an entry into the engine: the outermost entry arms the
    /// execution deadline (on the VM's clock) and the per-entry limit counters; when it ends,
    /// pending work runs (still under that deadline) and the deadline is disarmed.
    @inline(__always)
    func enter<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        if entryDepth == 0 { beginOutermostEntry() }
        entryDepth += 1
        defer {
            entryDepth -= 1
            if entryDepth == 0 { endOutermostEntry() }
            lock.unlock()
        }
        return try body()
    }

    private func beginOutermostEntry() {
        limitHitsAtEntry = state.pointee.limit_hits
        state.pointee.limit_refused = 0  // an earlier entry's refusal says nothing about this one's errors
        deadlineStopsAtEntry = deadlineStops
        state.pointee.past_deadline = 0
        if let limit = timeLimitNanoseconds {
            state.pointee.deadline_ns = cduk_clock_now(state) &+ max(1, limit)
        }
    }

    /// The end of the outermost entry: runs pending work and queued jobs (each item an entry
    /// nested in this one, so under its deadline), then disarms the deadline. Caller holds the
    /// lock.
    @inline(__always)
    private func endOutermostEntry() {
        if !deferredClears.isEmpty || hasEntryWork { finishOutermostEntry() }
        state.pointee.deadline_ns = 0
    }

    /// Work for the outermost entry's end: pending work, late deaths, jobs to drain, or garbage
    /// to collect.
    @inline(__always)
    private var hasEntryWork: Bool {
        lock.workWaiting.load(ordering: .sequentiallyConsistent) || state.pointee.freed_count != 0 || (drainsJobsAutomatically && hasJobs)
            || cduk_heap_grown(state) != 0
    }

    /// `endOutermostEntry`'s work, when there is some: releases that waited for the heap thread
    /// (no script runs between entries, so finalizers can run now), then the entry work, which
    /// those releases may have added to.
    private func finishOutermostEntry() {
        entryDepth = 1
        defer { entryDepth = 0 }
        if !deferredClears.isEmpty {
            let slots = deferredClears
            deferredClears = []
            for slot in slots { clearSlot(slot) }
        }
        if cduk_heap_grown(state) != 0 { cduk_collect_grown(heapContext) }  // paced by bytes (CDuktape.h)
        if hasEntryWork { finishEntryWork(runningJobs: drainsJobsAutomatically) }
    }

    /// Reports late deaths, runs pending work and (when asked) the job queue, until none of them
    /// has anything left: a job can post work and work can queue jobs. After a timeout, jobs
    /// queued later wait for the next entry (they would run with no deadline). Caller holds the
    /// lock, in an entry.
    private func finishEntryWork(runningJobs: Bool) {
        var jobsStopped = !runningJobs
        repeat {
            reportLateDeaths()
            runPendingWork()
            if !jobsStopped, hasJobs {
                jobsStopped = !runJobs()
            }
        } while lock.workWaiting.load(ordering: .sequentiallyConsistent) || (!jobsStopped && hasJobs)
    }

    // MARK: - Jobs (promise reactions)

    /// Whether the outermost entry's end drains the job queue
    /// (`JSVirtualMachine.drainsMicrotasksAutomatically`). Guarded by the lock.
    @exclusivity(unchecked) var drainsJobsAutomatically = true

    /// Swift awaits (`JSValue.awaited()`) whose reactions are registered and have not run, by
    /// waiter. When a timeout empties the job queue, their reactions may be among the dropped
    /// jobs: they all end with the timeout instead of waiting forever. Guarded by the lock.
    @exclusivity(unchecked) var waiters: [ObjectIdentifier: PromiseWaiter] = [:]

    /// True when jobs or rejection events are queued (caller holds the lock).
    var hasJobs: Bool {
        state.pointee.job_head != state.pointee.job_tail
            || state.pointee.rejection_head != state.pointee.rejection_slots
    }

    /// Drains the job queue now when no API call is running on this VM (explicit draining, for
    /// hosts that turned automatic draining off). Returns false when called inside an API call:
    /// jobs never run in the middle of a script.
    func drainJobs() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard entryDepth == 0 else { return false }
        beginOutermostEntry()
        entryDepth = 1
        finishEntryWork(runningJobs: true)
        entryDepth = 0
        state.pointee.deadline_ns = 0
        return true
    }

    /// Runs queued jobs, each on its realm's thread, reporting what a job throws to its
    /// context's exception handler and rejection events to its context's
    /// `unhandledRejectionHandler`. Returns false when it stopped early (the deadline passed:
    /// the queue was emptied; or the engine's stack could not grow). Caller holds the lock, in an
    /// entry.
    ///
    /// The loop is bounded by the entry's deadline however the engine noticed it: a job's
    /// timeout, a refused allocation, or the native stack check, which fails every protected
    /// call once the deadline has passed (so `cduk_prun_jobs` then fails before any job runs,
    /// with no timeout event of its own). Any failure while the deadline has passed is the
    /// timeout, and so is the deadline passing while rejection events are reported.
    private func runJobs() -> Bool {
        var report = cduk_job_report()
        while true {
            let status = cduk_prun_jobs(heapContext, &report)
            // The realm's context, looked up before anything allocates (the thread may have been
            // freed with its last job when its context is gone).
            let context = report.thread.flatMap { contextsByThread[$0]?.takeUnretainedValue() }
            switch status {
            case DUK_EXEC_SUCCESS:
                defer { duk_pop_2(heapContext) }
                if report.event == CDUK_JOBS_IDLE { return true }
                if let context {
                    let stack = EngineStack(ctx: heapContext, context: context)
                    if let promise = stack.pinnedValue(at: -2), let reason = stack.pinnedValue(at: -1) {
                        context.reportRejection(
                            JSPromiseRejection(
                                kind: report.event == CDUK_JOBS_UNHANDLED ? .unhandled : .handledLater,
                                promise: promise, reason: reason))
                    }
                }
                if isPastDeadline {
                    abandonJobs(exception: nil)
                    return false
                }
            case DUK_EXEC_ERROR:
                let timedOut = report.event == CDUK_JOBS_TIMEOUT || isPastDeadline
                var exception: JSException?
                if let context, let thread = report.thread, duk_check_stack(thread, 2) != 0 {
                    // Described in the job's realm: the errors made for it (a timeout's) are
                    // that realm's. A deadline that passed between jobs (undefined thrown) gets
                    // the realm's timeout error, with no place in any script.
                    if thread != heapContext { duk_xcopymove_raw(thread, heapContext, 1, 0) }
                    let stack = EngineStack(ctx: thread, context: context)
                    if report.event == CDUK_JOBS_TIMEOUT, duk_is_undefined(thread, -1) != 0 {
                        duk_pop(thread)
                        exception = stack.makeError(.rangeError, "execution timeout")
                    } else {
                        exception = stack.takeException()
                    }
                } else {
                    duk_pop(heapContext)
                }
                if timedOut { abandonJobs(exception: exception) }
                if let context, let exception { context.notifyException(exception.value) }
                if timedOut { return false }
            default:
                return false
            }
        }
    }

    /// The end of the job queue's run at a timeout: the queue is emptied (`cduk_prun_jobs`
    /// may have, or may have failed to: past the deadline its own protected clearing fails at
    /// the native check), the deadline is disarmed for the report that follows (a
    /// handler that may use the API runs without it, as a call's own timeout is reported after
    /// its entry), and Swift awaits whose reactions were among the dropped jobs end with the
    /// timeout instead of waiting forever.
    private func abandonJobs(exception: JSException?) {
        // In a grace window: past the deadline, every protected call fails at its start.
        makingError {
            if cduk_pclear_jobs(heapContext) == DUK_EXEC_ERROR { duk_pop(heapContext) }
        }
        state.pointee.deadline_ns = 0
        let ended = waiters.values
        waiters.removeAll()
        for waiter in ended {
            waiter.finish(.failure(exception ?? PromiseAbandoned()))
        }
    }

    /// Objects whose finalizer ran but that Duktape freed only later (they could have been
    /// rescued): their deaths are reported and their boxes released here, at a safe point.
    private func reportLateDeaths() {
        if state.pointee.freed_count != 0 { cduk_drain_freed(state) }
    }

    /// True when the object at `pointer` was freed and its death not yet reported: it must not be
    /// pushed (caller holds the lock).
    func isFreed(_ pointer: UnsafeMutableRawPointer) -> Bool {
        lock.assertHeld("isFreed")
        return state.pointee.freed_count != 0 && cduk_is_freed(state, pointer) != 0
    }

    /// Runs what other threads left while the VM was busy (caller holds the lock, in an entry).
    private func runPendingWork() {
        while true {
            let work = pending.withLock { list -> [PendingWork] in
                lock.workWaiting.store(false, ordering: .sequentiallyConsistent)
                defer { list.removeAll() }
                return list
            }
            if work.isEmpty { return }
            for item in work {
                switch item {
                case .release(let slot): clearSlot(slot)
                case .run(let body): body()
                }
            }
        }
    }

    /// Runs pending work if no thread holds the lock, until none is left; else the holder runs
    /// it, at its outermost entry's end or, at the latest, as it lets go of the lock.
    private func runPendingWorkIfIdle() {
        while lock.workWaiting.load(ordering: .sequentiallyConsistent) {
            guard lock.tryLock() else { return }  // the holder looks again as it lets go
            if destroyed {  // dropped, as the heap's destruction dropped what was left then
                pending.withLock { (list: inout [PendingWork]) -> Void in
                    list.removeAll()
                    lock.workWaiting.store(false, ordering: .sequentiallyConsistent)
                }
                lock.unlockLeavingWork()
                return
            }
            enter {}  // the outermost entry's end runs the work (its own release is nested)
            lock.unlockLeavingWork()
        }
    }

    /// Runs `work` under the lock as an entry: now when no other thread holds the lock, else when
    /// the holder leaves its outermost entry or, at the latest, lets go of the lock. Never blocks.
    func perform(_ work: PendingWork) {
        if lock.tryLock() {
            switch work {
            case .release(let slot): enter { clearSlot(slot) }
            case .run(let body): enter { body() }
            }
            lock.unlock()
            return
        }
        pending.withLock { list -> Void in
            list.append(work)
            lock.workWaiting.store(true, ordering: .sequentiallyConsistent)
        }
        // The thread inside may have looked for pending work just before this and left since:
        // then run it now. (If it still holds the lock, it runs the work as it lets go.)
        runPendingWorkIfIdle()
    }

    // MARK: - Limits and memory

    /// The memory limit in bytes, nil for none; any `Int` is accepted (below 1 counts as 1).
    var memoryLimit: Int? {
        get { lock.withLock { state.pointee.memory_limit == 0 ? nil : Int(clamping: state.pointee.memory_limit) } }
        set {
            lock.withLock {
                state.pointee.memory_limit = newValue.map { size_t(clamping: max(1, $0)) } ?? 0
                if newValue != nil { _ = cduk_heap_limit_site_make(state) }
            }
        }
    }

    /// The most nested calls per context, nil for the engine's 10,000; any `Int` is accepted.
    var maximumCallDepth: Int? {
        get { lock.withLock { state.pointee.callstack_limit == 0 ? nil : Int(state.pointee.callstack_limit) } }
        set { lock.withLock { state.pointee.callstack_limit = newValue.map { UInt32(clamping: max(1, $0)) } ?? 0 } }
    }

    /// Bytes held by the heap now, and at most so far.
    var memoryUsage: Int { lock.withLock { Int(clamping: state.pointee.memory_used) } }
    var peakMemoryUsage: Int { lock.withLock { Int(clamping: state.pointee.memory_peak) } }

    /// The execution time limit; takes the lock.
    var timeLimit: TimeInterval? {
        get {
            lock.withLock { timeLimitNanoseconds.map { TimeInterval($0) / 1e9 } }
        }
        set {
            // Any value, negative, NaN or huge, is accepted: clamped to 0...1e9 seconds.
            lock.withLock {
                timeLimitNanoseconds = newValue.map { seconds in
                    seconds.isNaN || seconds <= 0 ? 0 : UInt64(min(seconds, 1e9) * 1e9)
                }
                // Where a timed-out script was is recorded there (its error may not be makeable).
                if newValue != nil { _ = cduk_heap_limit_site_make(state) }
            }
        }
    }

    /// True when an entry's deadline is armed and has passed (caller holds the lock). Swift
    /// loops that run no script code (a conversion's) check it themselves.
    var isPastDeadline: Bool {
        lock.assertHeld("isPastDeadline")
        return state.pointee.deadline_ns != 0 && cduk_clock_now(state) >= state.pointee.deadline_ns
    }

    /// True when the heap refused an allocation because of the memory limit during the current
    /// outermost entry. Caller holds the lock.
    var memoryLimitReachedInEntry: Bool {
        lock.assertHeld("memoryLimitReachedInEntry")
        return state.pointee.limit_hits != limitHitsAtEntry
    }

    /// Where the script was when the heap first refused it memory for the limit in the current
    /// outermost entry (`cduk_limit_site`, recorded by the allocator): the place of the realm's
    /// preallocated limit error, which has none of its own. Nil when nothing was recorded.
    func limitSiteInEntry() -> (stack: String?, line: Int?, sourceURL: String?)? {
        lock.assertHeld("limitSiteInEntry")
        guard let site = state.pointee.limit_site else { return nil }
        if site.pointee.deadline_mark != 0 {
            // Recorded when the deadline stopped the script in this entry.
            let sinceEntry = site.pointee.deadline_mark &- deadlineStopsAtEntry
            guard sinceEntry != 0, sinceEntry <= deadlineStops &- deadlineStopsAtEntry else { return nil }
        } else {
            let sinceEntry = site.pointee.hits &- limitHitsAtEntry
            guard site.pointee.hits != 0, sinceEntry != 0, sinceEntry <= state.pointee.limit_hits &- limitHitsAtEntry else {
                return nil
            }
        }
        let stack = withUnsafeBytes(of: &site.pointee.stack) { bytes in
            StringCoding.string(fromEngineBytes: UnsafeRawBufferPointer(rebasing: bytes.prefix(Int(site.pointee.stack_length))))
        }
        let file = withUnsafeBytes(of: &site.pointee.file) { bytes in
            StringCoding.string(fromEngineBytes: UnsafeRawBufferPointer(rebasing: bytes.prefix(Int(site.pointee.file_length))))
        }
        let hasFile = site.pointee.has_file != 0
        return (
            stack: stack.isEmpty ? nil : stack, line: hasFile ? Int(site.pointee.line) : nil,
            sourceURL: hasFile && !file.isEmpty ? file : nil
        )
    }

    /// The most exception-handler calls one chain may make: the outermost handler call and every
    /// handler call made, at any depth and in any context of the VM, while it runs.
    static let maximumHandlerCallsPerChain = 64

    /// Runs `handler` (an `exceptionHandler` call) and returns true, or returns false without
    /// running it when it would be nested in a handler chain that has used its budget. A budget
    /// per chain, not a depth: a handler that makes k failing calls would otherwise make k^depth
    /// handler calls (a script can make every read fail, e.g. with an `errCreate` hook that
    /// returns undefined). Caller holds the lock.
    func runHandler(_ handler: () -> Void) -> Bool {
        lock.assertHeld("runHandler")
        if handlerDepth == 0 {
            handlerCallsInChain = 0
        }
        guard handlerCallsInChain < Self.maximumHandlerCallsPerChain else { return false }
        handlerCallsInChain += 1
        handlerDepth += 1
        defer { handlerDepth -= 1 }
        handler()
        return true
    }

    /// True inside a call nested in an entry whose execution deadline has passed (caller holds
    /// the lock).
    var isPastDeadlineInNestedEntry: Bool {
        entryDepth > 0 && isPastDeadline
    }

    /// True when native code was stopped by the execution deadline during the current outermost
    /// entry (the allocator refused memory to a built-in that ran past it, or a native recursion
    /// point such as a regexp's backtracking was stopped). Caller holds the lock.
    var deadlineReachedInEntry: Bool {
        lock.assertHeld("deadlineReachedInEntry")
        return deadlineStops != deadlineStopsAtEntry
    }

    /// Every way the deadline stopped a script: allocations refused, and native loops and the
    /// executor stopped (two counters: read at every entry).
    private var deadlineStops: UInt32 { state.pointee.deadline_refusals &+ state.pointee.deadline_stops }

    /// Runs `body`, which makes or reads an error, with the native stack guard relaxed and, when
    /// a deadline is armed, at least a short grace period before it: the error for a timeout must
    /// be made after the deadline passed, but reading a thrown value runs script code (its
    /// getters, its `toString`, the `Duktape.errCreate` hook), which must not get an unbounded
    /// window. Afterwards the entry's own deadline is back. Caller is in an entry.
    func makingError<T>(_ body: () -> T) -> T {
        lock.assertHeld("makingError")
        cduk_native_stack_relax(1)
        defer { cduk_native_stack_relax(-1) }
        // A little room past the memory limit too, so that the error for a full heap can be
        // made (bounded: the reserve is for all the error work of the outermost call together).
        let memoryLimit = state.pointee.memory_limit
        if errorGraceDepth == 0, memoryLimit != 0 { state.pointee.memory_limit = memoryLimit + Self.errorMemoryReserve }
        defer { if errorGraceDepth == 0 { state.pointee.memory_limit = memoryLimit } }
        guard errorGraceDepth == 0, state.pointee.deadline_ns != 0 else {
            errorGraceDepth += 1
            defer { errorGraceDepth -= 1 }
            return body()
        }
        let deadline = state.pointee.deadline_ns
        let pastDeadline = state.pointee.past_deadline
        let grace = cduk_clock_now(state) &+ Self.errorGrace
        if grace > deadline {
            state.pointee.deadline_ns = grace
            state.pointee.past_deadline = 0
        }
        errorGraceDepth += 1
        defer {
            errorGraceDepth -= 1
            state.pointee.deadline_ns = deadline
            state.pointee.past_deadline = pastDeadline
        }
        return body()
    }

    /// Runs `body` with the entry's deadline stopped: the time it takes moves the deadline on.
    /// For the transpiler: waiting for the shared compiler and lowering are not the script's
    /// execution (the lowering has its own limit, capped by this VM's). Caller is in an entry.
    func outsideDeadline<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.assertHeld("outsideDeadline")
        let start = cduk_clock_now(state)
        defer {
            if state.pointee.deadline_ns != 0 {
                let elapsed = cduk_clock_now(state) &- start
                let (moved, overflow) = state.pointee.deadline_ns.addingReportingOverflow(elapsed)
                state.pointee.deadline_ns = overflow ? .max : moved
            }
        }
        return try body()
    }

    /// How long making or reading an error may take past the deadline (nanoseconds): far more
    /// than the library's own work needs, little for a script that tries to use it.
    static let errorGrace: UInt64 = 25_000_000
    /// How far past the memory limit making or reading an error may go (bytes): room for an
    /// error object and its traceback, little for a script that tries to use it.
    static let errorMemoryReserve = 64 << 10
    @exclusivity(unchecked) private var errorGraceDepth = 0

    /// Runs a full garbage collection twice (so that objects freed by finalizers go too), as an
    /// entry: the finalizers it runs are bounded by the VM's limits.
    func collectGarbage() {
        enter {
            duk_gc(heapContext, 0)
            duk_gc(heapContext, 0)
        }
    }

    // MARK: - Contexts

    /// Hands out the heap's default realm once (caller holds the lock).
    func claimDefaultRealm() -> Bool {
        lock.assertHeld("claimDefaultRealm")
        if defaultRealmTaken { return false }
        defaultRealmTaken = true
        return true
    }

    /// A new realm for a context: the heap's own (once, when `preferDefault`), or a new Duktape
    /// thread with a fresh global environment, pinned. Nil when the heap cannot make it.
    func makeRealm(preferDefault: Bool, sandboxed: Bool)
        -> (thread: OpaquePointer, slot: UInt32?, global: UnsafeMutableRawPointer?)?
    {
        enter { () -> (OpaquePointer, UInt32?, UnsafeMutableRawPointer?)? in
            let heap = heapContext
            if preferDefault, claimDefaultRealm() {
                guard cduk_pinstall_realm(heap, sandboxed ? 1 : 0) == DUK_EXEC_SUCCESS else {
                    duk_pop(heap)
                    return nil
                }
                return (heap, nil, globalObjectPointer(of: heap))
            }
            guard duk_check_stack(heap, 4) != 0, cduk_ppush_new(heap, CDUK_NEW_REALM) == DUK_EXEC_SUCCESS else {
                return nil
            }
            defer { duk_pop(heap) }
            guard let thread = duk_get_context(heap, -1), let slot = pin(valueAt: -1, of: heap) else { return nil }
            guard cduk_pinstall_realm(thread, sandboxed ? 1 : 0) == DUK_EXEC_SUCCESS else {
                duk_pop(thread)
                clearSlot(slot)
                return nil
            }
            return (thread, Optional(slot), globalObjectPointer(of: thread))
        }
    }

    /// The heap address of the global object of the realm whose thread is `ctx` (in an entry).
    private func globalObjectPointer(of ctx: OpaquePointer) -> UnsafeMutableRawPointer? {
        guard duk_check_stack(ctx, 1) != 0 else { return nil }
        duk_push_global_object(ctx)
        defer { duk_pop(ctx) }
        return duk_get_heapptr(ctx, -1)
    }

    /// Makes the realm whose main thread is `thread` stop naming it as the thread its coroutines'
    /// jobs run on (promise.c keeps its address): called before the thread's slot is released,
    /// from any thread, never blocking (the work runs in order with the release).
    func forgetRealm(of thread: OpaquePointer) {
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(thread)))
        perform(.run {
            guard let ctx = OpaquePointer(bitPattern: address) else { return }
            if cduk_pforget_realm(ctx) == DUK_EXEC_ERROR { duk_pop(ctx) }
        })
    }

    func register(_ context: JSContext) {
        lock.withLock { contextsByThread[context.ctx] = Unmanaged.passUnretained(context) }
    }

    func unregister(_ context: JSContext) {
        lock.withLock { _ = contextsByThread.removeValue(forKey: context.ctx) }
    }

    /// Every live context (caller holds the lock).
    func liveContexts() -> [JSContext] {
        lock.assertHeld("liveContexts")
        return contextsByThread.values.map { $0.takeUnretainedValue() }
    }

    /// The context whose thread is `ctx`. Caller holds the lock.
    func context(forThread ctx: OpaquePointer) -> JSContext? {
        unmanagedContext(forThread: ctx)?.takeUnretainedValue()
    }

    /// `context(forThread:)`, unretained (a callback's hot path). Caller holds the lock.
    func unmanagedContext(forThread ctx: OpaquePointer) -> Unmanaged<JSContext>? {
        lock.assertHeld("context(forThread:)")
        return contextsByThread[ctx]
    }

    // MARK: - Interned keys

    /// The heap address of the interned JS string for `key`, if cached (caller holds the lock).
    @inline(__always)
    func internedKey(_ key: String) -> UnsafeMutableRawPointer? {
        internedKeys.pointer(for: key)
    }

    /// Caches the interned string at `index` of `ctx` for `key` (caller holds the lock).
    func cacheInternedKey(_ key: String, at index: Int32, of ctx: OpaquePointer) {
        lock.assertHeld("cacheInternedKey")
        guard key.utf8.count <= InternedKeyCache.maximumKeyLength, let pointer = duk_get_heapptr(ctx, index),
            let slot = pin(valueAt: index, of: ctx)
        else { return }
        if let evicted = internedKeys.insert(key, slot: slot, pointer: pointer) {
            clearSlot(evicted)
        }
    }

    // MARK: - Registry of values pinned by Swift

    /// Pins the value at `index` of `ctx`'s stack in a registry slot so that it stays alive and
    /// can be pushed back by heap pointer. The stack is left as it was. Caller is in an entry.
    func pin(valueAt index: Int32, of ctx: OpaquePointer) -> UInt32? {
        lock.assertHeld("pin")
        guard duk_check_stack(ctx, 2) != 0 else { return nil }
        let slot = freeSlots.popLast() ?? nextSlot
        duk_dup(ctx, index)
        var status = cduk_pregistry_set(ctx, registry, slot)
        if status != DUK_EXEC_SUCCESS, errorGraceDepth > 0, state.pointee.memory_limit != 0 {
            // Keeping an error for its report: the registry's growth may not fit the error reserve
            // (it grows by an eighth of its size), and a report must not be lost to it. The limit
            // is lifted for this one growth; what the registry then holds still counts against
            // it, so a script cannot use the room.
            duk_pop(ctx)
            duk_dup(ctx, index)
            let limit = state.pointee.memory_limit
            state.pointee.memory_limit = 0
            status = cduk_pregistry_set(ctx, registry, slot)
            state.pointee.memory_limit = limit
        }
        duk_pop(ctx)  // the value, or the error that replaced it
        guard status == DUK_EXEC_SUCCESS else {
            if slot != nextSlot { freeSlots.append(slot) }
            return nil
        }
        if slot == nextSlot { nextSlot += 1 }
        return slot
    }

    /// Whether the pinned heap value at `pointer` is callable (`typeof` "function"), read from
    /// its header under the lock: no entry, no push.
    func isCallable(_ pointer: UnsafeMutableRawPointer) -> Bool {
        lock.withLock { cduk_heapptr_is_callable(pointer) != 0 }
    }

    /// The slot of a `.reference` that no registry slot pins: a context's own global object,
    /// which its realm keeps alive for as long as the context (which every JSValue of it holds).
    static let contextOwnedSlot = UInt32.max

    /// Releases a registry slot from any thread (`JSValue.deinit`): now, as an entry, unless
    /// another thread is in the VM; then when that thread's outermost entry ends. Never blocks.
    func release(_ slot: UInt32) {
        guard slot != Self.contextOwnedSlot else { return }
        perform(.release(slot))
    }

    /// Clears a registry slot (caller is in an entry: clearing may run finalizers).
    func clearSlot(_ slot: UInt32) {
        lock.assertHeld("clearSlot")
        guard !destroyed else { return }
        if cduk_pregistry_clear(heapContext, registry, slot) != DUK_EXEC_SUCCESS {
            // The heap thread is busy (running under another realm's thread, or resumed into a
            // coroutine), so the old value's finalizer could not run: the slot keeps its value
            // until the outermost entry ends. The protocol leaves the error value pushed.
            duk_pop(heapContext)
            deferredClears.append(slot)
            return
        }
        freeSlots.append(slot)
    }

    /// How many times this process has met the fatal handler (it aborts: 0 unless a test forked).
    static var fatalErrorCount: UInt32 { cduk_fatal_count() }

    /// Work waiting for the thread inside the VM to leave (for tests; does not take the VM lock).
    var pendingWorkCount: Int { pending.withLock { $0.count } }

    /// Number of values currently pinned for Swift, the bounded key cache aside (for leak tests).
    var pinnedValueCount: Int {
        lock.withLock { Int(nextSlot) - freeSlots.count - internedKeys.count }
    }
}
