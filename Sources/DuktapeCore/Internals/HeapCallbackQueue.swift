import CDuktape

/// The event loop's immediates, kept in the heap and queued and run from C (callbacks.c), for
/// DuktapeRuntime: `setImmediate` and `clearImmediate` are C functions, so queueing one makes
/// no JSValue and takes none of the loop's locks, and the loop's check phase calls each entry
/// from C in an entry of its own. The entries count against the VM's memory limit.
///
/// The queue also holds the id counter the loop's timers share (one pool of ids). What is read
/// off the VM's lock: `pendingCount` and whether it is closed.
package final class HeapCallbackQueue: @unchecked Sendable {
    // @unchecked: the C state is read and written under the VM's lock, except its two atomics
    // (the pending count and the closed state); the closures are immutable.
    private let queue: OpaquePointer
    private let onQueued: @Sendable () -> Void
    private let timerIDInUse: @Sendable (Int) -> Bool

    /// A queue whose `onQueued` runs (under the VM's lock; it must not enter the
    /// engine) when the queue goes from nothing pending to one entry. `timerIDInUse` answers,
    /// once the shared counter has wrapped, whether an id belongs to a pending timer.
    package init(onQueued: @escaping @Sendable () -> Void, timerIDInUse: @escaping @Sendable (Int) -> Bool) {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: cduk_callback_queue_size(), alignment: 16)
        queue = cduk_callback_queue_init(storage)
        self.onQueued = onQueued
        self.timerIDInUse = timerIDInUse
        cduk_callback_queue_set_hooks(
            queue,
            { info in
                guard let info else { return }
                Unmanaged<HeapCallbackQueue>.fromOpaque(info).takeUnretainedValue().onQueued()
            },
            { info, id in
                guard let info else { return 0 }
                return Unmanaged<HeapCallbackQueue>.fromOpaque(info).takeUnretainedValue().timerIDInUse(Int(id)) ? 1 : 0
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        UnsafeMutableRawPointer(queue).deallocate()
    }

    /// Entries queued that have neither run nor been cleared (any thread).
    package var pendingCount: Int {
        cduk_callback_queue_live(queue)
    }

    /// Closes the queue for good (any thread, never blocking): `setImmediate` then returns 0
    /// (`released`: undefined) and queues nothing, and nothing pending runs or counts. The
    /// entries are dropped from `context`'s heap as soon as its VM is free; without the context
    /// (released), they stay there until the VM goes.
    package func close(released: Bool, in context: JSContext?) {
        cduk_callback_queue_close(queue, released ? CDUK_QUEUE_RELEASED : CDUK_QUEUE_STOPPED)
        guard let context else { return }
        context.engine.perform(.run { [self] in
            try? context.withStack { stack throws(JSException) in cduk_callback_queue_discard(stack.ctx, queue) }
        })
    }

    /// Entries the heap's array holds, spent ones included (tests of its compaction; the VM's
    /// lock held, or no script running).
    package var storedCount: Int {
        Int(cduk_callback_queue_stored(queue))
    }

    /// The shared id counter's next id (the VM's lock held, or no script running).
    package var nextID: Int {
        get { Int(cduk_callback_queue_next_id(queue)) }
        set { cduk_callback_queue_set_next_id(queue, Int32(clamping: newValue)) }
    }

    /// A fresh id for a timer, from the counter the immediates share; once it has wrapped, ids
    /// of pending timers (`timerIDInUse`, called here) and immediates are skipped. Called from a
    /// host function (the VM's lock held).
    package func takeID(timerIDInUse: (Int) -> Bool) -> Int {
        if cduk_callback_queue_ids_wrapped(queue) == 0 {
            return Int(cduk_callback_queue_take_id(nil, queue, nil, nil))  // every id is fresh
        }
        return withoutActuallyEscaping(timerIDInUse) { inUse in
            var predicate = inUse
            return withUnsafeMutablePointer(to: &predicate) { pointer in
                let take = { (ctx: OpaquePointer?) in
                    Int(cduk_callback_queue_take_id(ctx, self.queue, { info, id in
                        guard let info else { return 0 }
                        return info.assumingMemoryBound(to: ((Int) -> Bool).self).pointee(Int(id)) ? 1 : 0
                    }, pointer))
                }
                guard let context = JSContext.current() else { return take(nil) }
                return (try? context.withStack { stack throws(JSException) in take(stack.ctx) }) ?? take(nil)
            }
        }
    }

    /// Makes `setImmediate` and `clearImmediate` in `context` (each holding this queue).
    package func makeFunctions(in context: JSContext) -> (set: JSValue, clear: JSValue)? {
        try? context.withStack { stack throws(JSException) in
            try stack.check(cduk_ppush_callback_queue_functions(stack.ctx, queue))
            let box = CallbackQueueBox(self)
            duk_dup(stack.ctx, -2)
            try box.attach(on: stack)
            duk_pop(stack.ctx)
            try box.attach(on: stack)
            return (try stack.value(at: -2), try stack.value(at: -1))
        }
    }

    /// The check phase: runs, in order, the entries queued before it began and not cleared, each
    /// as an entry of its own (its jobs drained after it, as a JSValue call's are), an exception
    /// going to the context's handler; `afterEach` runs after each. Stops early when the queue
    /// is closed. Returns how many ran.
    package func runPhase(in context: JSContext, afterEach: () -> Void) -> Int {
        if pendingCount == 0 { return 0 }
        var count = 0
        while cduk_callback_queue_closed(queue) == CDUK_QUEUE_OPEN {
            var ran: Int32 = 0
            do throws(JSException) {
                try context.withStack { stack throws(JSException) in
                    try stack.check(cduk_callback_queue_run_next(stack.ctx, queue, count == 0 ? 1 : 0, &ran))
                }
            } catch {
                context.notifyException(error.value)
            }
            if ran == 0 { break }
            afterEach()
            count += 1
        }
        return count
    }

}

/// The box that keeps a `HeapCallbackQueue` alive while its functions live.
private final class CallbackQueueBox: EngineBox {
    let queue: HeapCallbackQueue

    init(_ queue: HeapCallbackQueue) {
        self.queue = queue
    }
}
