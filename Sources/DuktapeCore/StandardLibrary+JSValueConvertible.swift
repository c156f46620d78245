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

    /// JavaScript's ToBoolean of any argument (JavaScriptCore's BOOL rule).
    public static func fromJSArgument(_ value: JSValue) throws -> Bool { value.toBool() }

    /// An argument exactly of this kind read straight from the call's frame, else by
    /// `fromJSArgument`.
    @inlinable
    public static func _fromJSArgument(_ argument: _JSArgument) throws -> Bool {
        if let slot = argument.slot, let exact = _exactValue(at: slot) { return exact }
        return try argument.converted(to: Bool.self)
    }

    /// A boolean, read straight from the engine's stack.
    @inlinable
    public static func _exactValue(at slot: _JSStackSlot) -> Bool? { slot.stack.boolean(at: slot.index) }

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

extension JSValueConvertible where Self: FixedWidthInteger {
    /// JavaScriptCore's integer rule, never a trap: ToNumber, truncated, then modulo 2^32 for
    /// types of 32 bits or fewer (ToInt32/ToUint32, then the low bits) and modulo 2^64 for 64-bit
    /// types. NaN and ±Infinity give 0; `"12"` gives 12; 2^32 + 1 gives 1 for `Int32`.
    /// A conversion that throws in JavaScript (a symbol, a `valueOf` that throws) throws its
    /// exception, which a closure's call rethrows to its caller.
    public static func fromJSArgument(_ value: JSValue) throws -> Self {
        let low = JSValue.modulo(try value.numberThrowing(), bits: Self.bitWidth <= 32 ? 32 : 64)
        if Self.bitWidth <= 32 {
            return Self.isSigned ? Self(truncatingIfNeeded: Int32(truncatingIfNeeded: low)) : Self(truncatingIfNeeded: UInt32(truncatingIfNeeded: low))
        }
        return Self.isSigned ? Self(truncatingIfNeeded: Int64(bitPattern: low)) : Self(truncatingIfNeeded: low)
    }
}

extension Int: JSValueConvertible {
    /// An argument exactly of this kind read straight from the call's frame, else by
    /// `fromJSArgument`.
    @inlinable
    public static func _fromJSArgument(_ argument: _JSArgument) throws -> Int {
        if let slot = argument.slot, let exact = _exactValue(at: slot) { return exact }
        return try argument.converted(to: Int.self)
    }

    /// An integral number that fits, read straight from the engine's stack.
    @inlinable
    public static func _exactValue(at slot: _JSStackSlot) -> Int? {
        slot.stack.number(at: slot.index).flatMap { Int(exactly: $0) }
    }

}
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

    /// JavaScript's ToNumber of any argument (NaN for undefined and non-numeric strings); a
    /// conversion that throws in JavaScript throws its exception.
    public static func fromJSArgument(_ value: JSValue) throws -> Self { Self(try value.numberThrowing()) }
}

extension Double: JSValueConvertible {
    /// An argument exactly of this kind read straight from the call's frame, else by
    /// `fromJSArgument`.
    @inlinable
    public static func _fromJSArgument(_ argument: _JSArgument) throws -> Double {
        if let slot = argument.slot, let exact = _exactValue(at: slot) { return exact }
        return try argument.converted(to: Double.self)
    }

    /// A number, read straight from the engine's stack.
    @inlinable
    public static func _exactValue(at slot: _JSStackSlot) -> Double? { slot.stack.number(at: slot.index) }

}
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

    /// JavaScript's ToString of the argument (`42` gives `"42"`), as JavaScriptCore does for
    /// NSString parameters; undefined and null are refused (declare `String?` to accept them).
    /// A conversion that throws in JavaScript (a symbol, a `toString` that throws) throws its
    /// exception.
    public static func fromJSArgument(_ value: JSValue) throws -> String {
        guard !value.isUndefined, !value.isNull else {
            throw ArgumentMismatch(description: "expected String, got \(value.typeDescription)")
        }
        return try value.stringThrowing()
    }

    /// An argument exactly of this kind read straight from the call's frame, else by
    /// `fromJSArgument`.
    @inlinable
    public static func _fromJSArgument(_ argument: _JSArgument) throws -> String {
        if let slot = argument.slot, let exact = _exactValue(at: slot) { return exact }
        return try argument.converted(to: String.self)
    }

    /// A string (not a symbol), read straight from the engine's stack.
    @inlinable
    public static func _exactValue(at slot: _JSStackSlot) -> String? { slot.stack.stringIfString(at: slot.index) }

}

extension Substring: JSValueConvertible {
    /// A JavaScript string.
    public func jsValue(in context: JSContext) -> JSValue { String(self).jsValue(in: context) }

    /// The string, or nil for anything that is not a string.
    public static func fromJSValue(_ value: JSValue) -> Substring? { String.fromJSValue(value).map { Substring($0) } }

    /// `String`'s argument rule.
    public static func fromJSArgument(_ value: JSValue) throws -> Substring { Substring(try String.fromJSArgument(value)) }
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

    /// nil for undefined and null (missing arguments included), else the wrapped type's rule.
    public static func fromJSArgument(_ value: JSValue) throws -> Wrapped? {
        if value.isUndefined || value.isNull { return nil }
        return try Wrapped.fromJSArgument(value)
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
        return try? elements(of: value, Element.fromJSValue)
    }

    /// An array or array-like object, each element by `Element`'s argument rule (JavaScriptCore's
    /// NSArray rule: `length` elements); a `Uint8Array` for `[UInt8]`.
    public static func fromJSArgument(_ value: JSValue) throws -> [Element] {
        if let bytes = fromJSValue(value), Element.self == UInt8.self { return bytes }
        guard value.isObject else {
            throw ArgumentMismatch(description: "expected an array, got \(value.typeDescription)")
        }
        return try elements(of: value, Element.fromJSArgument)
    }

    private static func elements(of value: JSValue, _ convert: (JSValue) throws -> Element?) throws -> [Element] {
        let length = Int(value.forProperty("length").toUInt32())
        guard Double(length) <= ConversionLimits.maximumArrayLength else {
            throw ArgumentMismatch(description: "array too long to convert (length \(length))")
        }
        var result: [Element] = []
        result.reserveCapacity(length)
        for index in 0..<length {
            result.append(try convertElement(value.atIndex(index), labeled: "element \(index)", convert))
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
        try? entries(of: value, Value.fromJSValue)
    }

    /// An object's enumerable own properties, each by `Value`'s argument rule.
    public static func fromJSArgument(_ value: JSValue) throws -> [String: Value] {
        try entries(of: value, Value.fromJSArgument)
    }

    private static func entries(of value: JSValue, _ convert: (JSValue) throws -> Value?) throws -> [String: Value] {
        guard value.isObject, let keys = value.context.objectForKeyedSubscript("Object")
            .invokeMethod("keys", withArguments: [value]).toArray() as? [String]
        else { throw ArgumentMismatch(description: "expected an object, got \(value.typeDescription)") }
        var result: [String: Value] = [:]
        result.reserveCapacity(keys.count)
        for key in keys {
            result[key] = try convertElement(value.forProperty(key), labeled: "property '\(key)'", convert)
        }
        return result
    }
}

/// Converts one element of a container argument; a failure names the element (`element 3: …`).
private func convertElement<T>(_ value: JSValue, labeled label: String, _ convert: (JSValue) throws -> T?) throws -> T {
    let element: T?
    do {
        element = try convert(value)
    } catch let exception as JSException {
        throw exception  // the script's own exception, from a conversion it ran
    } catch {
        throw ArgumentMismatch(description: "\(label): \(error)")
    }
    guard let element else { throw ArgumentMismatch(description: "\(label): expected \(T.self)") }
    return element
}
