import CDuktape

/// The box of a wrapper: retains the exported Swift object for as long as the wrapper lives.
final class ExportedObjectBox: EngineBox {
    let object: AnyObject
    /// The engine outlives the box (boxes are released at the latest when its heap is destroyed).
    unowned(unsafe) let engine: Engine
    /// The Duktape thread of the context whose wrapper cache holds the entry: the context is
    /// found through it when the wrapper dies (nil then if the context is gone). Not a weak
    /// reference: that would give the context a side table, making its every retain dearer.
    let thread: OpaquePointer
    /// The wrapper's heap address, the value of the context's wrapper cache entry.
    var wrapper: UnsafeMutableRawPointer?
    /// Whether the wrapper carries a retain list (JSManagedValue owners).
    var hasRetainList = false

    init(object: AnyObject, context: JSContext) {
        self.object = object
        self.engine = context.vm.engine
        self.thread = context.ctx
    }

    override var exportedObject: Any? { object }
    override var exportedInstanceReference: Unmanaged<AnyObject>? { Unmanaged.passUnretained(object) }

    override func willRelease() {
        guard let wrapper else { return }
        engine.lock.withLock {
            engine.context(forThread: thread)?.forgetWrapper(of: object, at: wrapper)
        }
    }
}

/// The box of an exported class's constructor function.
final class ClassConstructor: HostFunction {
    let jsClass: JSClass

    override var exportedObject: Any? { jsClass.swiftType }

    init(context: JSContext, jsClass: JSClass) {
        self.jsClass = jsClass
        super.init(context: context) { call in
            guard call.isConstruct else {
                throw ArgumentMismatch(description: "Cannot call a class constructor without |new|")
            }
            guard let construct = jsClass.constructor else {
                throw ArgumentMismatch(description: "\(jsClass.name) has no constructor")
            }
            return .converted(try construct(call))
        }
    }
}

/// A context's prototype and constructor for one exported class (pinned, owned by the context).
struct ExportedClassObjects {
    let prototype: JSValue.Storage
    let constructor: JSValue.Storage
}

extension JSValue.Storage {
    /// The heap address of a pinned value.
    var heapPointer: UnsafeMutableRawPointer? {
        if case .reference(_, let pointer) = self { return pointer }
        return nil
    }
}

extension EngineStack {
    /// [..] -> [.. wrapper]: the object's wrapper in this context, made on first use.
    func pushWrapper(for object: AnyObject, of jsClass: JSClass) throws(JSException) {
        try reserve(3)
        if let cached = context.cachedWrapper(of: object) {
            duk_push_heapptr(ctx, cached)
            return
        }
        let objects = try classObjects(for: jsClass)
        try check(cduk_ppush_new(ctx, CDUK_NEW_OBJECT))
        if let prototype = objects.prototype.heapPointer {
            duk_push_heapptr(ctx, prototype)
            try check(cduk_pset_prototype(ctx))
        }
        let box = ExportedObjectBox(object: object, context: context)
        try box.attach(on: self)
        if let pointer = duk_get_heapptr(ctx, -1) {
            box.wrapper = pointer
            context.cacheWrapper(box)
            // The owners that reach this object keep its new wrapper too.
            let owners = vm.managedOwners(reaching: object)
            if !owners.isEmpty {
                try rebuildRetainLists(of: owners.compactMap { context.wrappers[ObjectIdentifier($0)]?.box })
            }
            if vm.isManagedOwner(object) {
                try updateRetainList(of: box, at: -1)
            }
        }
    }

    /// Stores on the wrapper at `index` the values of the managed values its object owns
    /// (transitively), so they live as long as the wrapper; removes the list when there are none.
    func updateRetainList(of box: ExportedObjectBox, at index: Int32) throws(JSException) {
        let targets = vm.managedTargets(ownedBy: box.object, in: context)
        guard !targets.isEmpty || box.hasRetainList else { return }
        let wrapper = duk_normalize_index(ctx, index)
        let base = duk_get_top(ctx)
        defer { duk_set_top(ctx, base) }
        guard targets.count < Int(Int32.max - 8) else { throw makeError(.rangeError, "value stack limit reached") }
        try reserve(Int32(targets.count) + 4)
        duk_dup(ctx, wrapper)
        // The targets go on the stack before anything allocates: an allocation may run a
        // collection, and a target held only by the old list must not be freed before the new
        // list holds it.
        let first = duk_get_top(ctx)
        for target in targets {
            duk_push_heapptr(ctx, target)
        }
        if targets.isEmpty {
            duk_push_undefined(ctx)
        } else {
            try check(cduk_ppush_new(ctx, CDUK_NEW_BOOKKEEPING))
            for position in targets.indices {
                try reserve(3)
                duk_dup(ctx, -1)
                duk_push_number(ctx, Double(position))
                duk_dup(ctx, first + Int32(position))
                try check(cduk_pput_prop(ctx))
            }
        }
        // [.. wrapper targets... list] -> [.. wrapper list]
        if !targets.isEmpty {
            duk_replace(ctx, first)
            duk_set_top(ctx, first + 1)
        }
        try check(cduk_pset_retained(ctx))
        box.hasRetainList = !targets.isEmpty
    }

    /// Rebuilds the retain lists of this context's wrappers whose objects own something (or
    /// used to).
    ///
    /// Rebuilding a list allocates, so a collection may run in the middle and finalize other
    /// wrappers (found by AddressSanitizer): the boxes are retained for the loop, and each
    /// wrapper is used only while its entry still names it (a finalized wrapper's entry is gone).
    func updateRetainLists() throws(JSException) {
        try rebuildRetainLists(of: context.wrappers.values.map { $0.box })
    }

    /// `updateRetainList` for each of `boxes` whose wrapper is still cached and that owns
    /// something (or used to). The boxes are retained by the array for the loop.
    private func rebuildRetainLists(of boxes: [ExportedObjectBox]) throws(JSException) {
        for box in boxes {
            let key = ObjectIdentifier(box.object)
            guard let entry = context.wrappers[key], entry.box === box,
                  box.hasRetainList || vm.isManagedOwner(box.object)
            else { continue }
            try reserve(1)
            duk_push_heapptr(ctx, entry.pointer)
            try updateRetainList(of: box, at: -1)
            duk_pop(ctx)
        }
    }

    /// [..] -> [.. constructor]: the class's constructor in this context.
    func pushConstructor(of jsClass: JSClass) throws(JSException) {
        try push(storage: try classObjects(for: jsClass).constructor)
    }

    /// The exported Swift object or class behind the value at `index`, if any.
    func exportedObject(at index: Int32) -> Any? {
        EngineBox.attached(to: index, on: self)?.exportedObject
    }

    /// The prototype and constructor of `jsClass` in this context, made on first use.
    func classObjects(for jsClass: JSClass) throws(JSException) -> ExportedClassObjects {
        if let existing = context.exportedClassObjects(for: jsClass) { return existing }
        let parent = try jsClass.superclass.map { parent throws(JSException) in try classObjects(for: parent) }
        let base = duk_get_top(ctx)
        defer { duk_set_top(ctx, base) }
        try reserve(2)

        // The prototype, chained to the superclass's (or Object.prototype).
        try check(cduk_ppush_new(ctx, CDUK_NEW_OBJECT))
        let prototype = duk_get_top_index(ctx)
        if let parentPrototype = parent?.prototype.heapPointer {
            duk_push_heapptr(ctx, parentPrototype)
            try check(cduk_pset_prototype(ctx))
        }
        for method in jsClass.methods {
            try define(method.name, on: prototype, flags: UInt32(CDUK_DEFPROP_METHOD)) { () throws(JSException) in
                try HostFunction(context: context, body: method.body).push(on: self, name: method.name, length: method.length)
            }
        }
        for property in jsClass.properties {
            let flags = property.set == nil ? CDUK_DEFPROP_GETTER : CDUK_DEFPROP_ACCESSOR
            try define(property.name, on: prototype, flags: UInt32(flags)) { () throws(JSException) in
                try HostFunction(context: context, body: property.get).push(on: self, name: property.name, length: 0)
                if let setter = property.set {
                    try HostFunction(context: context, body: setter).push(on: self, name: property.name, length: 1)
                }
            }
        }
        // Object.prototype.toString gives [object Name] for wrappers, [object NamePrototype] for
        // the prototype itself.
        let name = jsClass.name
        try defineToStringTag(on: prototype) { call in
            call.exportedReceiver != nil ? name : name + "Prototype"
        }

        // The constructor: `new Name(...)`, static methods, Name.prototype <-> prototype.constructor.
        try ClassConstructor(context: context, jsClass: jsClass).push(on: self, name: name, length: jsClass.constructorLength)
        let constructor = duk_get_top_index(ctx)
        if let parentConstructor = parent?.constructor.heapPointer {
            duk_push_heapptr(ctx, parentConstructor)
            try check(cduk_pset_prototype(ctx))
        }
        try define("prototype", on: constructor, flags: UInt32(CDUK_DEFPROP_FIXED)) { () throws(JSException) in
            duk_dup(ctx, prototype)
        }
        try define("constructor", on: prototype, flags: UInt32(CDUK_DEFPROP_METHOD)) { () throws(JSException) in
            duk_dup(ctx, constructor)
        }
        for method in jsClass.staticMethods {
            try define(method.name, on: constructor, flags: UInt32(CDUK_DEFPROP_METHOD)) { () throws(JSException) in
                try HostFunction(context: context, body: method.body).push(on: self, name: method.name, length: method.length)
            }
        }
        let objects = ExportedClassObjects(prototype: try storage(at: prototype), constructor: try storage(at: constructor))
        context.storeExportedClassObjects(objects, for: jsClass)
        return objects
    }

    /// Defines `name` on the object at `target`; `values` pushes the value or getter/setter.
    private func define(
        _ name: String, on target: Int32, flags: UInt32, _ values: () throws(JSException) -> Void
    ) throws(JSException) {
        let base = duk_get_top(ctx)
        do {
            try reserve(5)
            duk_dup(ctx, target)
            try pushString(name)
            try values()
            try check(cduk_pdef_prop(ctx, flags))
        } catch {
            duk_set_top(ctx, base)
            throw error
        }
        duk_pop(ctx)
    }

    private func defineToStringTag(on target: Int32, _ tag: @escaping (HostCall) -> String) throws(JSException) {
        let base = duk_get_top(ctx)
        defer { duk_set_top(ctx, base) }
        try reserve(3)
        duk_dup(ctx, target)
        try HostFunction(context: context) { call in .string(tag(call)) }.push(on: self, name: nil, length: 0)
        try check(cduk_pdef_to_string_tag(ctx))
    }
}

/// A context's wrapper cache entry. The box lives exactly as long as the entry: its
/// `willRelease` removes the entry.
struct WrapperEntry {
    unowned(unsafe) let box: ExportedObjectBox
    let pointer: UnsafeMutableRawPointer
}

extension JSContext {
    func cachedWrapper(of object: AnyObject) -> UnsafeMutableRawPointer? {
        wrappers[ObjectIdentifier(object)]?.pointer
    }

    func cacheWrapper(_ box: ExportedObjectBox) {
        guard let pointer = box.wrapper else { return }
        wrappers[ObjectIdentifier(box.object)] = WrapperEntry(box: box, pointer: pointer)
    }

    /// Called when a wrapper is finalized; keeps a newer wrapper of the same object.
    func forgetWrapper(of object: AnyObject, at wrapper: UnsafeMutableRawPointer) {
        vm.lock.withLock {
            if wrappers[ObjectIdentifier(object)]?.pointer == wrapper {
                wrappers[ObjectIdentifier(object)] = nil
            }
        }
    }

    /// Rebuilds the retain lists of this context's wrappers whose objects own managed values
    /// (or used to).
    func updateRetainLists() {
        reporting(()) { stack throws(JSException) in try stack.updateRetainLists() }
    }

    func exportedClassObjects(for jsClass: JSClass) -> ExportedClassObjects? {
        exportedClasses[ObjectIdentifier(jsClass)]
    }

    func storeExportedClassObjects(_ objects: ExportedClassObjects, for jsClass: JSClass) {
        exportedClasses[ObjectIdentifier(jsClass)] = objects
    }
}
