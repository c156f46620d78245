/// A Swift type that converts to and from JavaScript values.
///
/// The standard types conform (`Bool`, every integer and floating-point type, `String`,
/// `Substring`, `Character`, `Date`, `Data`, `[UInt8]`, `NSNull`, `JSValue`, and `Optional`,
/// `Array` and `Dictionary` of conforming types). They are used by the typed subscripts and,
/// for your own types, by `JSValue(object:in:)` and every other conversion.
///
/// Reading is strict: `fromJSValue` returns nil when the JavaScript value is not of the
/// matching kind, or does not fit (a non-integral or out-of-range number for an integer type).
/// Use `toInt32()`, `toString()` and the other `to…` methods for JavaScript's coercions.
///
/// ```swift
/// struct Celsius: JSValueConvertible {
///     var degrees: Double
///     func jsValue(in context: JSContext) -> JSValue { JSValue(double: degrees, in: context) }
///     static func fromJSValue(_ value: JSValue) -> Celsius? {
///         value.isNumber ? Celsius(degrees: value.toDouble()) : nil
///     }
/// }
/// context.globalObject["temperature"] = Celsius(degrees: 21.5)
/// let reading: Celsius? = context.globalObject["temperature"]
/// ```
public protocol JSValueConvertible: SendableMetatype {
    /// The JavaScript value for `self`, created in `context`.
    func jsValue(in context: JSContext) -> JSValue

    /// The Swift value for `value`, or nil if it does not convert.
    static func fromJSValue(_ value: JSValue) -> Self?

    /// The Swift value for an argument of a Swift closure or exported method called from
    /// JavaScript, by JavaScriptCore's rules for the declared type (<doc:SwiftClosures>, "Arguments").
    /// Throwing makes the call fail with a TypeError naming the argument.
    ///
    /// The default uses `fromJSValue` and throws when it gives nil.
    static func fromJSArgument(_ value: JSValue) throws -> Self

    /// Not API: `jsValue(in:)` for the typed calls, closures and exported members, throwing
    /// what the conversion could not do (a `Codable` type's `EncodingError`: the memory limit,
    /// an integer past 2^53). The default is `jsValue(in:)`.
    func _jsValue(throwingIn context: JSContext) throws -> JSValue

    /// Not API (the engine's fast path, implemented by `Double`, `Int`, `Bool` and `String`):
    /// the value in an engine stack slot when it is exactly of this type's JavaScript kind,
    /// read with no `JSValue` in between; nil sends the read to `fromJSValue`/`fromJSArgument`.
    /// The default returns nil.
    static func _exactValue(at slot: _JSStackSlot) -> Self?

    /// Not API (the engine's fast path): an argument of a Swift closure called from JavaScript.
    /// Returns `Self`, not `Self?`, because closures' parameter packs call it without
    /// specializing for `Self`, where an optional of `Self` costs a metadata lookup per call. The
    /// standard scalars read the argument straight from the call's frame when it is exactly of
    /// their kind; the default (and every other case) is `fromJSArgument`.
    static func _fromJSArgument(_ argument: _JSArgument) throws -> Self
}

/// Not API: a slot of the engine's value stack, for `JSValueConvertible._exactValue(at:)`.
public struct _JSStackSlot {
    @usableFromInline let stack: EngineStack
    @usableFromInline let index: Int32

    @inlinable
    init(stack: EngineStack, index: Int32) {
        self.stack = stack
        self.index = index
    }
}

/// Not API: argument `index` of a call from JavaScript, for
/// `JSValueConvertible._fromJSArgument(_:)`.
public struct _JSArgument {
    @usableFromInline let call: HostCall
    @usableFromInline let index: Int

    @inlinable
    init(call: HostCall, index: Int) {
        self.call = call
        self.index = index
    }

    /// The argument's stack slot, nil when the caller passed fewer arguments.
    @inlinable
    var slot: _JSStackSlot? {
        index < call.argumentCount ? _JSStackSlot(stack: call.stack, index: Int32(index)) : nil
    }

    /// The argument by `T.fromJSArgument` (a failure names the argument).
    @inlinable
    func converted<T: JSValueConvertible>(to type: T.Type) throws -> T {
        try call.argument(index, as: T.self)
    }
}

extension JSValueConvertible {
    /// `jsValue(in:)`, which does not fail.
    public func _jsValue(throwingIn context: JSContext) throws -> JSValue { jsValue(in: context) }

    /// No fast path: reads go through `fromJSValue`.
    @inlinable
    public static func _exactValue(at slot: _JSStackSlot) -> Self? { nil }

    /// No fast path: `fromJSArgument`.
    @inlinable
    public static func _fromJSArgument(_ argument: _JSArgument) throws -> Self {
        try argument.converted(to: Self.self)
    }

    /// `fromJSValue(value)`, or a mismatch error naming the expected type.
    public static func fromJSArgument(_ value: JSValue) throws -> Self {
        guard let converted = fromJSValue(value) else {
            throw ArgumentMismatch(description: "expected \(Self.self), got \(value.typeDescription)")
        }
        return converted
    }
}

extension JSValue {
    /// A short description of the value's type for error messages ("undefined", "a string"...).
    var typeDescription: String {
        switch storage {
        case .undefined: return "undefined"
        case .null: return "null"
        case .boolean: return "a boolean"
        case .number: return "a number"
        case .reference:
            if isString { return "a string" }
            if isSymbol { return "a symbol" }
            if isArray { return "an array" }
            return "an object"
        }
    }
}

extension JSValue: JSValueConvertible {
    /// The value itself.
    public func jsValue(in context: JSContext) -> JSValue { self }

    /// The value itself.
    public static func fromJSValue(_ value: JSValue) -> Self? { value as? Self }

    /// The argument itself, whatever it is.
    public static func fromJSArgument(_ value: JSValue) throws -> Self {
        guard let same = value as? Self else { throw ArgumentMismatch(description: "expected a JSValue") }
        return same
    }
}
