
/// A JavaScript value held without keeping it alive: JavaScriptCore's "conditional retain".
///
/// On its own a managed value is like a weak reference: `value` becomes nil once the garbage
/// collector has collected the JavaScript object. It stays alive while JavaScript can reach it,
/// or while its owner is reachable from JavaScript through a wrapper of an exported object and
/// the ownership reported with `JSVirtualMachine.addManagedReference(_:withOwner:)`, transitively.
/// That is how an exported Swift object keeps a JavaScript callback without a retain cycle.
///
/// ```swift
/// final class Button: JSExport {
///     var onClick: JSManagedValue?
///     static let jsClass = JSClass(Button.self) { c in
///         c.method("setOnClick(_:)", as: "setOnClick") { (button: Button, handler: JSValue) in
///             button.onClick = JSManagedValue(value: handler, andOwner: button)
///         }
///     }
/// }
/// // Later, from Swift: button.onClick?.value?.call(withArguments: [])
/// ```
///
/// Numbers, booleans, null and undefined are kept by value; strings and `Proxy` objects (whose
/// collection Duktape cannot report) are kept alive by the managed value. Every kind reads as nil
/// once the context is gone.
public final class JSManagedValue: @unchecked Sendable {
    // @unchecked: `target` is read and written under the VM lock (the finalizer report that
    // clears it runs inside engine calls, which hold it).

    enum Target {
        /// Held inline (numbers, booleans, null, undefined).
        case primitive(JSValue.Storage)
        /// A watched object: its heap address, valid until the finalizer report clears it.
        case object(UnsafeMutableRawPointer)
        /// A string, pinned by this managed value (slot owned here).
        case pinned(JSValue.Storage)
        /// The object was collected.
        case collected
    }

    private weak var context: JSContext?
    private weak var vm: JSVirtualMachine?
    private var target: Target

    /// Creates a managed value for `value`: weak on its own (see the type's description).
    ///
    /// ```swift
    /// let managed = JSManagedValue(value: context.evaluateScript("({})"))!
    /// ```
    ///
    /// Returns nil if `value` is nil.
    public init!(value: JSValue!) {
        guard let value else { return nil }
        let context = value.owner
        self.context = context
        self.vm = context.vm
        switch value.storage {
        case .reference:
            target = .collected
            let watched: Target? = try? context.withStack { stack throws(JSException) -> Target in
                try stack.push(value)
                // Duktape never finalizes a Proxy, so its death could not be reported: a
                // Proxy is kept alive like a string.
                if let pointer = try stack.watchObject(at: -1) { return .object(pointer) }
                return .pinned(try stack.storage(at: -1))
            }
            target = watched ?? .collected
            if case .object(let pointer) = target { context.vm.watch(pointer, for: self) }
        default:
            target = .primitive(value.storage)
        }
    }

    /// Creates a managed value and reports `owner` as its owner
    /// (`virtualMachine.addManagedReference(self, withOwner: owner)`).
    ///
    /// ```swift
    /// button.onClick = JSManagedValue(value: handler, andOwner: button)
    /// ```
    public convenience init!(value: JSValue!, andOwner owner: Any!) {
        self.init(value: value)
        vm?.addManagedReference(self, withOwner: owner)
    }

    deinit {
        if case .pinned(.reference(let slot, _)) = target { vm?.engine.release(slot) }
        vm?.removeAllManagedReferences(to: self)
    }

    /// The value, or nil if it was collected or its context is gone.
    ///
    /// ```swift
    /// if let handler = button.onClick?.value { handler.call(withArguments: []) }
    /// ```
    public var value: JSValue! {
        guard let context else { return nil }
        return context.vm.lock.withLock { () -> JSValue? in
            switch target {
            case .primitive(let storage): return JSValue(context: context, storage: storage)
            case .collected: return nil
            case .object(let pointer) where context.engine.isFreed(pointer):
                return nil  // freed after a finalizer that could have rescued it; reported soon
            case .object(let pointer), .pinned(.reference(_, let pointer)):
                return try? context.withStack { stack throws(JSException) in
                    try stack.pushHeapObject(pointer)
                    return try stack.value(at: -1)
                }
            case .pinned: return nil
            }
        }
    }

    /// The heap address of a live watched object (caller holds the lock).
    var liveObject: UnsafeMutableRawPointer? {
        vm?.lock.assertHeld("liveObject")
        if case .object(let pointer) = target, vm?.engine.isFreed(pointer) != true { return pointer }
        return nil
    }

    /// Called by the VM when the watched object is finalized (under the lock).
    func markCollected() {
        vm?.lock.assertHeld("markCollected")
        target = .collected
    }
}
