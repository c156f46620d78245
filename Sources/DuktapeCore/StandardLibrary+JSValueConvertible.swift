import Foundation

// Conformances of standard library types. Numbers, booleans and nil are held inline in JSValue,
// so converting them never enters the engine.

// MARK: - Value types

extension Bool: JSValueConvertible {
    /// A JavaScript boolean.
    public func jsValue(in context: JSContext) -> JSValue {
        JSValue(context: context, storage: .boolean(self))
    }

    /// The boolean, or nil for anything that is not a boolean.
    public static func fromJSValue(_ value: JSValue) -> Bool? {
        if case .boolean(let flag) = value.storage { return flag }
        return nil
    }
}

extension JSValueConvertible where Self: BinaryInteger {
    /// A JavaScript number (integers beyond ±2^53 lose precision, as in JavaScript).
    public func jsValue(in context: JSContext) -> JSValue {
        JSValue(context: context, storage: .number(Double(self)))
    }

    /// The number if it is integral and fits in `Self`, else nil.
    public static func fromJSValue(_ value: JSValue) -> Self? {
        guard case .number(let number) = value.storage else { return nil }
        return Self(exactly: number)
    }
}

extension Int: JSValueConvertible {}
extension Int8: JSValueConvertible {}
extension Int16: JSValueConvertible {}
extension Int32: JSValueConvertible {}
extension Int64: JSValueConvertible {}
extension UInt: JSValueConvertible {}
extension UInt8: JSValueConvertible {}
extension UInt16: JSValueConvertible {}
extension UInt32: JSValueConvertible {}
extension UInt64: JSValueConvertible {}

extension JSValueConvertible where Self: BinaryFloatingPoint {
    /// A JavaScript number.
    public func jsValue(in context: JSContext) -> JSValue {
        JSValue(context: context, storage: .number(Double(self)))
    }

    /// The number (rounded to `Self`'s precision), or nil for anything that is not a number.
    public static func fromJSValue(_ value: JSValue) -> Self? {
        guard case .number(let number) = value.storage else { return nil }
        return Self(number)
    }
}

extension Double: JSValueConvertible {}
extension Float: JSValueConvertible {}

extension String: JSValueConvertible {
    /// A JavaScript string (non-BMP characters become surrogate pairs: `"😀".length == 2`).
    public func jsValue(in context: JSContext) -> JSValue {
        JSValue(object: self, in: context)
    }

    /// The string, or nil for anything that is not a string.
    public static func fromJSValue(_ value: JSValue) -> String? {
        guard case .reference = value.storage, value.isString else { return nil }
        return value.toString()
    }
}

extension Substring: JSValueConvertible {
    /// A JavaScript string.
    public func jsValue(in context: JSContext) -> JSValue { String(self).jsValue(in: context) }

    /// The string, or nil for anything that is not a string.
    public static func fromJSValue(_ value: JSValue) -> Substring? { String.fromJSValue(value).map { Substring($0) } }
}

extension Character: JSValueConvertible {
    /// A JavaScript string of this character.
    public func jsValue(in context: JSContext) -> JSValue { String(self).jsValue(in: context) }

    /// The character of a one-character string (one grapheme), else nil.
    public static func fromJSValue(_ value: JSValue) -> Character? {
        guard let string = String.fromJSValue(value), string.count == 1 else { return nil }
        return string.first
    }
}

// MARK: - Containers

extension Optional: JSValueConvertible where Wrapped: JSValueConvertible {
    /// `undefined` for nil, else the wrapped value's conversion.
    public func jsValue(in context: JSContext) -> JSValue {
        self?.jsValue(in: context) ?? JSValue(context: context, storage: .undefined)
    }

    /// `.some(nil)` for undefined and null, `.some(wrapped)` when the wrapped type converts,
    /// nil otherwise.
    public static func fromJSValue(_ value: JSValue) -> Wrapped?? {
        if value.isUndefined || value.isNull { return .some(nil) }
        return Wrapped.fromJSValue(value).map { .some($0) }
    }
}

extension Array: JSValueConvertible where Element: JSValueConvertible {
    /// A JavaScript array of the converted elements; `[UInt8]` becomes a `Uint8Array`.
    public func jsValue(in context: JSContext) -> JSValue {
        JSValue(object: self, in: context)
    }

    /// The elements, if the value is an array and every element converts; else nil.
    /// `[UInt8]` also reads a `Uint8Array`.
    public static func fromJSValue(_ value: JSValue) -> [Element]? {
        if Element.self == UInt8.self, let data = Data.fromJSValue(value) {
            return Array<UInt8>(data) as? [Element]
        }
        guard value.isArray else { return nil }
        let length = value.forProperty("length").toUInt32()
        var result: [Element] = []
        result.reserveCapacity(Int(length))
        for index in 0..<Int(length) {
            guard let element = Element.fromJSValue(value.atIndex(index)) else { return nil }
            result.append(element)
        }
        return result
    }
}

extension Dictionary: JSValueConvertible where Key == String, Value: JSValueConvertible {
    /// A JavaScript object with one property per entry.
    public func jsValue(in context: JSContext) -> JSValue {
        JSValue(object: self, in: context)
    }

    /// The enumerable properties (as `for-in`), if the value is an object and every property
    /// value converts; else nil.
    public static func fromJSValue(_ value: JSValue) -> [String: Value]? {
        guard value.isObject, let keys = value.context.objectForKeyedSubscript("Object")
            .invokeMethod("keys", withArguments: [value]).toArray() as? [String]
        else { return nil }
        var result: [String: Value] = [:]
        for key in keys {
            guard let element = Value.fromJSValue(value.forProperty(key)) else { return nil }
            result[key] = element
        }
        return result
    }
}
