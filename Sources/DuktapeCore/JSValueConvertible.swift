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
public protocol JSValueConvertible {
    /// The JavaScript value for `self`, created in `context`.
    func jsValue(in context: JSContext) -> JSValue

    /// The Swift value for `value`, or nil if it does not convert.
    static func fromJSValue(_ value: JSValue) -> Self?
}

extension JSValue: JSValueConvertible {
    /// The value itself.
    public func jsValue(in context: JSContext) -> JSValue { self }

    /// The value itself.
    public static func fromJSValue(_ value: JSValue) -> Self? { value as? Self }
}
