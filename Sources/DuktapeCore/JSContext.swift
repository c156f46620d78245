import Foundation

/// A JavaScript execution environment: a global object and its built-ins, in a virtual machine.
///
/// Contexts of one `JSVirtualMachine` share its heap and can exchange values; each has its own
/// global object and built-ins (a realm). This is JavaScriptCore's API: code written against it
/// ports by changing the import line.
///
/// ```swift
/// let context = JSContext()!
/// context.exceptionHandler = { _, exception in print("JS error:", exception!) }
/// print(context.evaluateScript("2 + 2")!.toInt32())               // prints: 4
/// context.setObject("Hello", forKeyedSubscript: "message")
/// print(context.objectForKeyedSubscript("message")!)              // prints: Hello
/// print(try context.evaluate("message.length"))                   // prints: 5
/// ```
public final class JSContext: @unchecked Sendable {
    // @unchecked: the mutable state (exception, handler, name) is guarded by the VM lock;
    // everything else is immutable.

    let vm: JSVirtualMachine
    /// `vm.engine`, held here too: a `let` of the context is borrowed for a call, where reaching
    /// it through `vm` or an unowned reference costs a retain and a release per entry.
    let engine: Engine
    /// This context's Duktape thread: the heap's initial thread for the first context of a VM,
    /// else a thread created with a fresh global environment (pinned in `threadSlot`).
    let ctx: OpaquePointer
    private let threadSlot: UInt32?
    /// The heap address of this realm's global object, which the realm keeps alive: JSValues
    /// of it need no registry slot (`Engine.contextOwnedSlot`), since each holds the context.
    let globalPointer: UnsafeMutableRawPointer?
    /// The Duktape thread this context's API calls use while a callback runs on a coroutine of
    /// its realm (`Duktape.Thread`): the context's own thread is suspended then, and a call on it
    /// would fail ("invalid thread state"). Nil otherwise. Guarded by the VM lock.
    @exclusivity(unchecked) var coroutineThread: OpaquePointer?
    /// The exception, held as a pinned slot this context owns rather than as a JSValue: a JSValue
    /// would retain the context and make a cycle (JavaScriptCore keeps a raw value here too).
    @exclusivity(unchecked) private var exceptionStorage: JSValue.Storage?
    private var exceptionHandlerStorage: ((JSContext?, JSValue?) -> Void)?
    private var unhandledRejectionHandlerStorage: ((JSContext, JSPromiseRejection) -> Void)?
    private var nameStorage: String?
    /// Exported objects' wrappers, by object (weak: entries leave when a wrapper is finalized).
    @exclusivity(unchecked) var wrappers: [ObjectIdentifier: WrapperEntry] = [:]
    /// Prototypes and constructors of exported classes, made on first use, pinned until deinit.
    @exclusivity(unchecked) var exportedClasses: [ObjectIdentifier: ExportedClassObjects] = [:]
    private var inspectableStorage = false

    /// Creates a context in a new virtual machine.
    ///
    /// ```swift
    /// let context = JSContext()!
    /// ```
    public convenience init!() {
        guard let vm = JSVirtualMachine() else { return nil }
        self.init(ownedVirtualMachine: vm)
    }

    /// A context in a VM made for it alone: it can use the heap's own global environment, with
    /// no second realm to build, and the realm goes away with the heap, as the context's would.
    convenience init?(ownedVirtualMachine vm: JSVirtualMachine) {
        self.init(in: vm, usingDefaultRealm: true)
    }

    /// Creates a context (a new global object) in an existing virtual machine.
    ///
    /// Returns nil if `virtualMachine` is nil or the heap cannot allocate the new realm
    /// (for example under a tight `memoryLimit`).
    ///
    /// ```swift
    /// let vm = JSVirtualMachine()!
    /// let a = JSContext(virtualMachine: vm)!, b = JSContext(virtualMachine: vm)!
    /// b.setObject(a.evaluateScript("({x: 1})"), forKeyedSubscript: "fromA")
    /// ```
    ///
    /// The corresponding Duktape function is `duk_push_thread_new_globalenv`.
    public convenience init!(virtualMachine: JSVirtualMachine!) {
        guard let vm = virtualMachine else { return nil }
        self.init(in: vm, usingDefaultRealm: false)
    }

    private init?(in vm: JSVirtualMachine, usingDefaultRealm: Bool) {
        guard let realm = vm.engine.makeRealm(preferDefault: usingDefaultRealm, sandboxed: vm.removesEngineGlobals)
        else { return nil }
        self.vm = vm
        self.engine = vm.engine
        self.ctx = realm.thread
        self.threadSlot = realm.slot
        self.globalPointer = realm.global
        self.exceptionHandlerStorage = { context, exception in context?.exception = exception }
        vm.engine.register(self)
    }

    deinit {
        let engine = vm.engine
        engine.unregister(self)
        if case .reference(let slot, _) = exceptionStorage { engine.release(slot) }
        for objects in exportedClasses.values {
            for storage in [objects.prototype, objects.constructor] {
                if case .reference(let slot, _) = storage { engine.release(slot) }
            }
        }
        if let threadSlot {
            engine.forgetRealm(of: ctx)
            engine.release(threadSlot)
        }
    }

    // MARK: - Properties

    /// The virtual machine this context belongs to.
    public var virtualMachine: JSVirtualMachine! { vm }

    /// The global object (`globalThis`).
    ///
    /// ```swift
    /// context.globalObject.setValue(1, forProperty: "answer")
    /// ```
    public var globalObject: JSValue! {
        reporting(JSValue(context: self, storage: .undefined)) { stack throws(JSException) in
            try stack.pushGlobalObject()
            return try stack.value(at: -1)
        }
    }

    /// The last uncaught exception, or a value to throw into JavaScript from a callback.
    ///
    /// The default `exceptionHandler` stores uncaught exceptions here. Inside a callback from
    /// JavaScript, setting it makes the callback throw that value when it returns (JavaScriptCore's
    /// rule). Like JavaScriptCore, the setter stores `Object(value)`: a thrown primitive is boxed,
    /// and null or undefined read back as nil.
    ///
    /// ```swift
    /// context.evaluateScript("throw new Error('boom')")
    /// print(context.exception!)      // prints: Error: boom
    /// context.exception = nil
    /// ```
    public var exception: JSValue! {
        get {
            vm.lock.withLock { exceptionStorage.flatMap { storage in copy(storage) } }
        }
        set {
            vm.lock.withLock {
                let old = exceptionStorage
                exceptionStorage = newValue.flatMap { value in
                    value.isUndefined || value.isNull ? nil : boxedCopy(value)
                }
                if case .reference(let slot, _) = old { vm.engine.release(slot) }
            }
        }
    }

    /// Called when an API call (other than the throwing Swift-first ones) ends in an uncaught
    /// JavaScript exception.
    ///
    /// The default handler sets `exception`. Setting nil makes such exceptions be silently
    /// swallowed. The handler runs synchronously, on the thread that made the call.
    ///
    /// A handler may use the context, and what it does may fail and call it again. So that a
    /// handler which always fails cannot recurse without end (or, making several failing calls
    /// each time, multiply its work at every level), one chain of handler calls, the outermost
    /// one and all those nested in it in any context of the VM, makes at most 64 calls; later
    /// exceptions in the chain are stored in `exception` instead (JavaScriptCore has no such
    /// bound). Likewise, once a call from Swift has run past `executionTimeLimit`, exceptions of
    /// calls nested in it (in callbacks) are stored, not handled: the outermost call reports the
    /// timeout.
    ///
    /// ```swift
    /// context.exceptionHandler = { context, exception in
    ///     print("JS error:", exception?.toString() ?? "?")
    /// }
    /// ```
    public var exceptionHandler: ((JSContext?, JSValue?) -> Void)! {
        get { vm.lock.withLock { exceptionHandlerStorage } }
        set { vm.lock.withLock { exceptionHandlerStorage = newValue } }
    }

    /// Called when a promise of this context is rejected and still has no rejection handler once
    /// the job queue is empty (`.unhandled`, once per promise), and when such a promise gets a
    /// handler later (`.handledLater`), as browsers fire `unhandledrejection` and
    /// `rejectionhandled`. Default nil: the library itself prints nothing. Beyond JavaScriptCore,
    /// which has no public hook for this.
    ///
    /// ```swift
    /// context.unhandledRejectionHandler = { _, rejection in
    ///     print(rejection.kind, rejection.reason)   // prints: unhandled Error: lost
    /// }
    /// context.evaluateScript("Promise.reject(new Error('lost'))")
    /// ```
    ///
    /// The handler runs under the VM lock when the queue drains (at the end of the outermost API
    /// call), on that call's thread.
    public var unhandledRejectionHandler: ((JSContext, JSPromiseRejection) -> Void)? {
        get { vm.lock.withLock { unhandledRejectionHandlerStorage } }
        set { vm.lock.withLock { unhandledRejectionHandlerStorage = newValue } }
    }

    /// Hands a rejection event to `unhandledRejectionHandler` (caller holds the lock).
    func reportRejection(_ rejection: JSPromiseRejection) {
        unhandledRejectionHandlerStorage?(self, rejection)
    }

    /// A name for the context (informative; default nil).
    public var name: String! {
        get { vm.lock.withLock { nameStorage } }
        set { vm.lock.withLock { nameStorage = newValue } }
    }

    /// Whether a debugger may inspect this context. Kept for API parity: this engine has no
    /// inspector, so the flag only round-trips (default false).
    public var isInspectable: Bool {
        get { vm.lock.withLock { inspectableStorage } }
        set { vm.lock.withLock { inspectableStorage = newValue } }
    }

    /// Hands an uncaught exception to `exceptionHandler` (nil handler: swallowed), or stores it
    /// when the chain of handler calls it would join has used its budget
    /// (`Engine.runHandler`), or when the call it is nested in has run out of time (everything
    /// nested then fails; the outermost call reports the timeout once, instead of a handler that
    /// converts the exception failing again and again).
    package func notifyException(_ exception: JSValue) {
        vm.lock.withLock {
            let handler = exceptionHandlerStorage
            guard !engine.isPastDeadlineInNestedEntry,
                  engine.runHandler({ handler?(self, exception) })
            else {
                self.exception = exception
                return
            }
        }
    }

    /// Replaces the stored exception, handing the old one (and its slot) to the caller.
    /// Used around callbacks (JavaScriptCore's save/clear/restore rule).
    /// Caller holds the VM lock (callbacks do; checked in debug builds).
    func swapExceptionLocked(_ replacement: JSValue.Storage?) -> JSValue.Storage? {
        vm.lock.assertHeld("swapExceptionLocked")
        let old = exceptionStorage
        exceptionStorage = replacement
        return old
    }
}
