import Foundation

/// A Swift class whose instances JavaScript can use: JavaScriptCore's `JSExport`, declared.
///
/// Swift on Linux has no Objective-C runtime to discover exported members, so a class declares
/// what JavaScript sees once, in a `JSClass`. Its instances then convert to wrapper objects (one
/// per object per context, so `a === b` for the same object), the class itself converts to a
/// constructor, and wrappers convert back to the original object.
///
/// ```swift
/// final class Point: JSExport {
///     var x: Double, y: Double
///     init(x: Double, y: Double) { self.x = x; self.y = y }
///     var length: Double { (x * x + y * y).squareRoot() }
///     func scaled(by factor: Double) -> Point { Point(x: x * factor, y: y * factor) }
///
///     static let jsClass = JSClass(Point.self) { c in
///         c.constructor { (x: Double, y: Double) in Point(x: x, y: y) }
///         c.property("x", \.x)
///         c.property("y", \.y)
///         c.property("length", \.length)                       // read-only
///         c.method("scaled(by:)") { (p: Point, f: Double) in p.scaled(by: f) }   // JS name "scaledBy"
///         c.method("scale", as: "times") { (p: Point, f: Double) in p.scaled(by: f) }  // JSExportAs
///         c.staticMethod("origin") { () in Point(x: 0, y: 0) }
///     }
/// }
/// context["Point"] = Point.self                     // the constructor
/// print(context.evaluateScript("new Point(3, 4).length")!)  // prints: 5
/// ```
///
/// A subclass chains to its superclass's prototype by naming the superclass's `JSClass`
/// (`JSClass(Point3D.self, inherits: Point.jsClass) { ... }`) and overriding `jsClass`
/// (`override class var jsClass: JSClass { point3DClass }` when the superclass declares it as a
/// `class var`).
///
/// Retain cycles: a wrapper retains its object until the wrapper is collected. Do not store a
/// `JSValue` in an exported object (it retains its context, which retains the wrapper): store a
/// `JSManagedValue` and report the ownership with `addManagedReference(_:withOwner:)`.
public protocol JSExport: AnyObject, JSValueConvertible {
    /// What JavaScript sees of this class.
    static var jsClass: JSClass { get }
}

extension JSExport {
    /// The object's wrapper in `context` (created on first use, then reused).
    public func jsValue(in context: JSContext) -> JSValue {
        JSValue(object: self, in: context)
    }

    /// The Swift object of a wrapper of this class (or a subclass), else nil.
    public static func fromJSValue(_ value: JSValue) -> Self? {
        guard case .reference = value.storage else { return nil }
        return value.toObject() as? Self
    }

    /// JavaScriptCore's class rule: a wrapper of this class or a subclass; anything else is a
    /// TypeError ("Argument does not match Swift class"). Declare an optional to accept null and
    /// undefined.
    public static func fromJSArgument(_ value: JSValue) throws -> Self {
        guard let object = fromJSValue(value) else {
            throw ArgumentMismatch(description: "Argument does not match Swift class \(Self.self)")
        }
        return object
    }
}

/// The JavaScript face of an exported Swift class: its name, constructor, methods, properties
/// and static methods, and the class it inherits from.
///
/// Build it once (a `static let`) with `init(_:name:inherits:_:)`; each context makes its own
/// prototype and constructor from it on first use.
public final class JSClass: @unchecked Sendable {
    // @unchecked: the member lists are filled in init (by the builder) and never change after,
    // and every member is a @Sendable closure: one JSClass serves every VM, on any thread, so
    // two VMs may call the same member at the same time.

    /// The JavaScript name (`[object Name]`, the constructor's `name`).
    public let name: String
    /// The exported class this one inherits from.
    public let superclass: JSClass?
    let swiftType: AnyClass
    private(set) var constructor: (@Sendable (HostCall) throws -> AnyObject)?
    private(set) var constructorLength = 0
    private(set) var methods: [Member] = []
    private(set) var properties: [Property] = []
    private(set) var staticMethods: [Member] = []
    /// Set when `init` returns: a builder kept past it changes nothing (the lists are read
    /// without a lock from then on).
    private var sealed = false

    struct Member {
        let name: String
        let length: Int
        let body: @Sendable (HostCall) throws -> HostResult
    }

    struct Property {
        let name: String
        let get: (HostCall) throws -> HostResult
        let set: (@Sendable (HostCall) throws -> HostResult)?
    }

    /// Declares the JavaScript face of `type`.
    ///
    /// - Parameters:
    ///   - type: the Swift class.
    ///   - name: the JavaScript name; defaults to the Swift type's name.
    ///   - superclass: the `JSClass` of the exported class `type` inherits from, if any: its
    ///     prototype becomes the parent of this one's.
    ///   - build: declares the members on a builder.
    public init<T: AnyObject>(
        _ type: T.Type, name: String? = nil, inherits superclass: JSClass? = nil,
        _ build: (JSClassBuilder<T>) -> Void
    ) {
        self.name = name ?? String(describing: type)
        self.superclass = superclass
        self.swiftType = type
        build(JSClassBuilder(target: self))
        sealed = true
    }

    /// JavaScriptCore's naming rule for a Swift method: the base name followed by each argument
    /// label capitalized (`_` labels add nothing), as the Objective-C selector would read with its
    /// colons removed: `add(_:to:)` → `addTo`, `doFoo(_:withBar:)` → `doFooWithBar`,
    /// `reset()` → `reset`. A name without parentheses is used as it is.
    public static func javaScriptName(forSwiftMethod selector: String) -> String {
        guard let open = selector.firstIndex(of: "(") else { return selector }
        var name = String(selector[..<open])
        let labels = selector[selector.index(after: open)...].split(separator: ":").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "()_ "))
        }
        for label in labels where !label.isEmpty {
            name += label.prefix(1).uppercased() + label.dropFirst()
        }
        return name
    }

    // The builder's entry points, `@usableFromInline` for its `@inlinable` members.

    @usableFromInline
    func setConstructor(length: Int, _ body: @escaping @Sendable (HostCall) throws -> AnyObject) {
        guard !sealed else { return }
        constructorLength = length
        constructor = body
    }

    @usableFromInline
    func addMethod(_ name: String, length: Int, _ body: @escaping @Sendable (HostCall) throws -> HostResult) {
        guard !sealed else { return }
        methods.append(Member(name: name, length: length, body: body))
    }

    @usableFromInline
    func addProperty(
        _ name: String, get: @escaping @Sendable (HostCall) throws -> HostResult, set: (@Sendable (HostCall) throws -> HostResult)?
    ) {
        guard !sealed else { return }
        properties.append(Property(name: name, get: get, set: set))
    }

    @usableFromInline
    func addStaticMethod(_ name: String, length: Int, _ body: @escaping @Sendable (HostCall) throws -> HostResult) {
        guard !sealed else { return }
        staticMethods.append(Member(name: name, length: length, body: body))
    }
}

/// Declares the members of an exported class; handed to `JSClass.init`'s closure.
///
/// Members are `@Sendable` closures: one `JSClass` serves every virtual machine, and VMs on
/// different threads may call the same member at once. A builder used after `JSClass.init` has
/// returned changes nothing.
///
/// Parameters and results convert like those of `JSValue(newFunctionIn:)`: each parameter by its
/// type's `fromJSArgument` rule, results by `jsValue(in:)`; another exported class as a
/// parameter type takes that class's wrappers.
public struct JSClassBuilder<T: AnyObject> {
    @usableFromInline let target: JSClass

    init(target: JSClass) {
        self.target = target
    }

    /// The constructor run by `new Name(...)`. Without one, `new Name()` is a TypeError.
    ///
    /// ```swift
    /// c.constructor { (x: Double, y: Double) in Point(x: x, y: y) }
    /// ```
    @inlinable
    public func constructor<each Argument: JSValueConvertible>(_ body: @escaping @Sendable (repeat each Argument) throws -> T) {
        target.setConstructor(length: count(repeat (each Argument).self)) { call in
            var reader = ArgumentReader(call: call)
            return try body(repeat try reader.next((each Argument).self))
        }
    }

    /// The general constructor: parameter types as the general `method`'s.
    ///
    /// ```swift
    /// c.constructor { (options: [String: Any]) in Panel(options: options) }
    /// ```
    @_disfavoredOverload
    public func constructor<each Argument>(_ body: @escaping @Sendable (repeat each Argument) throws -> T) {
        target.setConstructor(length: count(repeat (each Argument).self)) { call in
            var reader = ArgumentReader(call: call)
            return try body(repeat try reader.nextDynamic((each Argument).self))
        }
    }

    /// An instance method on the prototype. `name` is the JavaScript name, or a Swift selector
    /// such as `"scaled(by:)"` turned into one by `JSClass.javaScriptName(forSwiftMethod:)`.
    /// The closure receives the object first. Called on a `this` that is not a wrapper of this
    /// class, it throws a TypeError.
    @inlinable
    public func method<each Argument: JSValueConvertible, Result: JSValueConvertible>(
        _ name: String, _ body: @escaping @Sendable (T, repeat each Argument) throws -> Result
    ) {
        method(name, as: JSClass.javaScriptName(forSwiftMethod: name), body)
    }

    /// An instance method with an explicit JavaScript name (JavaScriptCore's `JSExportAs`).
    @inlinable
    public func method<each Argument: JSValueConvertible, Result: JSValueConvertible>(
        _ swiftName: String, as javaScriptName: String, _ body: @escaping @Sendable (T, repeat each Argument) throws -> Result
    ) {
        target.addMethod(javaScriptName, length: count(repeat (each Argument).self)) { call in
            try JSClassBuilder.withReceiver(call) { object in
                var reader = ArgumentReader(call: call)
                return try HostResult.result(body(object, repeat try reader.next((each Argument).self)), in: call.context)
            }
        }
    }

    /// An instance method without a result.
    @inlinable
    public func method<each Argument: JSValueConvertible>(
        _ name: String, _ body: @escaping @Sendable (T, repeat each Argument) throws -> Void
    ) {
        method(name, as: JSClass.javaScriptName(forSwiftMethod: name), body)
    }

    /// An instance method without a result, with an explicit JavaScript name.
    @inlinable
    public func method<each Argument: JSValueConvertible>(
        _ swiftName: String, as javaScriptName: String, _ body: @escaping @Sendable (T, repeat each Argument) throws -> Void
    ) {
        target.addMethod(javaScriptName, length: count(repeat (each Argument).self)) { call in
            try JSClassBuilder.withReceiver(call) { object in
                var reader = ArgumentReader(call: call)
                try body(object, repeat try reader.next((each Argument).self))
                return .undefined
            }
        }
    }

    /// An instance method whose parameter or result types include ones that cannot be
    /// `JSValueConvertible`: `Any`, `[Any]`, `[String: Any]`, `[AnyHashable: Any]` and their
    /// optionals (JavaScriptCore's `id`, `NSArray *` and `NSDictionary *`). They convert by
    /// JavaScriptCore's table at run time (see `JSValue(newFunctionIn:_:)`'s general form); a
    /// `Void` result is undefined.
    ///
    /// ```swift
    /// c.method("configure(_:)") { (panel: Panel, options: [String: Any]) in panel.apply(options) }
    /// ```
    @_disfavoredOverload
    public func method<each Argument, Result>(
        _ name: String, _ body: @escaping @Sendable (T, repeat each Argument) throws -> Result
    ) {
        method(name, as: JSClass.javaScriptName(forSwiftMethod: name), body)
    }

    /// The general instance method with an explicit JavaScript name.
    @_disfavoredOverload
    public func method<each Argument, Result>(
        _ swiftName: String, as javaScriptName: String, _ body: @escaping @Sendable (T, repeat each Argument) throws -> Result
    ) {
        target.addMethod(javaScriptName, length: count(repeat (each Argument).self)) { call in
            try JSClassBuilder.withReceiver(call) { object in
                var reader = ArgumentReader(call: call)
                return HostResult.dynamic(try body(object, repeat try reader.nextDynamic((each Argument).self)))
            }
        }
    }

    /// A read-write property: an accessor on the prototype (not enumerable, configurable).
    ///
    /// ```swift
    /// c.property("x", \.x)
    /// ```
    @inlinable
    public func property<Value: JSValueConvertible>(_ name: String, _ keyPath: any ReferenceWritableKeyPath<T, Value> & Sendable) {
        // The accessors apply the key path themselves, not through `get:`/`set:` closures around
        // it: one closure call less. The read still goes through Swift's key-path runtime (the
        // optimizer does not fold a captured key path), so a hot property is cheaper declared
        // with `get:` (the Performance article).
        target.addProperty(
            name,
            get: { call in
                try JSClassBuilder.withReceiver(call) { object in try HostResult.result(object[keyPath: keyPath], in: call.context) }
            },
            set: { call in
                try JSClassBuilder.withReceiver(call) { object in
                    var reader = ArgumentReader(call: call)
                    object[keyPath: keyPath] = try reader.next(Value.self)
                    return .undefined
                }
            })
    }

    /// A read-only property: a getter only, so writes from JavaScript are ignored (a TypeError
    /// in strict code), as in JavaScriptCore.
    @inlinable
    public func property<Value: JSValueConvertible>(_ name: String, _ keyPath: any KeyPath<T, Value> & Sendable) {
        target.addProperty(
            name,
            get: { call in
                try JSClassBuilder.withReceiver(call) { object in try HostResult.result(object[keyPath: keyPath], in: call.context) }
            },
            set: nil)
    }

    /// A property with a getter and an optional setter written as closures (they may throw).
    @inlinable
    public func property<Value: JSValueConvertible>(
        _ name: String, get: @escaping @Sendable (T) throws -> Value, set: (@Sendable (T, Value) throws -> Void)? = nil
    ) {
        var setter: (@Sendable (HostCall) throws -> HostResult)?
        if let set {
            setter = { @Sendable call in
                try JSClassBuilder.withReceiver(call) { object in
                    var reader = ArgumentReader(call: call)
                    try set(object, try reader.next(Value.self))
                    return .undefined
                }
            }
        }
        target.addProperty(
            name,
            get: { call in try JSClassBuilder.withReceiver(call) { object in try HostResult.result(get(object), in: call.context) } },
            set: setter)
    }

    /// A static method on the constructor (`Name.method()`).
    @inlinable
    public func staticMethod<each Argument: JSValueConvertible, Result: JSValueConvertible>(
        _ name: String, _ body: @escaping @Sendable (repeat each Argument) throws -> Result
    ) {
        target.addStaticMethod(JSClass.javaScriptName(forSwiftMethod: name), length: count(repeat (each Argument).self)) {
            call in
            var reader = ArgumentReader(call: call)
            return try HostResult.result(body(repeat try reader.next((each Argument).self)), in: call.context)
        }
    }

    /// The general static method (parameter and result types as the general `method`'s).
    @_disfavoredOverload
    public func staticMethod<each Argument, Result>(
        _ name: String, _ body: @escaping @Sendable (repeat each Argument) throws -> Result
    ) {
        target.addStaticMethod(JSClass.javaScriptName(forSwiftMethod: name), length: count(repeat (each Argument).self)) {
            call in
            var reader = ArgumentReader(call: call)
            return HostResult.dynamic(try body(repeat try reader.nextDynamic((each Argument).self)))
        }
    }

    /// Runs `body` with the object behind `this`, or throws the JavaScriptCore TypeError for a
    /// foreign `this`. The object is not retained for the call: `this` holds its wrapper, which
    /// holds it, until the call returns (a retain and a release are two atomic operations on
    /// every method call and property access).
    @inlinable
    static func withReceiver(_ call: HostCall, _ body: (T) throws -> HostResult) throws -> HostResult {
        guard let reference = call.receiverReference else { throw receiverMismatch }
        return try reference._withUnsafeGuaranteedRef { object throws -> HostResult in
            // A type test and a reinterpretation, not `as?`: its result is a new reference. The
            // exact class first (an instance of the exported class itself, not of a subclass):
            // comparing metatypes costs less than the runtime's class cast.
            guard type(of: object) == T.self || object is T else { throw receiverMismatch }
            return try body(unsafeDowncast(object, to: T.self))
        }
    }

    @inlinable
    static var receiverMismatch: ArgumentMismatch {
        ArgumentMismatch(description: "self type check failed for Swift instance method")
    }

    @inlinable
    func count<each Argument>(_ types: repeat (each Argument).Type) -> Int {
        var total = 0
        for _ in repeat each types { total += 1 }
        return total
    }
}
