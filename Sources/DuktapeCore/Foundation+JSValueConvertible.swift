import Foundation

extension Date: JSValueConvertible {
    /// A JavaScript `Date` (millisecond precision: sub-millisecond parts are dropped).
    public func jsValue(in context: JSContext) -> JSValue { JSValue(object: self, in: context) }

    /// The date of a `Date` object, else nil.
    public static func fromJSValue(_ value: JSValue) -> Date? {
        value.isDate ? value.toDate() : nil
    }

    /// JavaScriptCore's NSDate rule: `toDate()` (a `Date`, or a number of milliseconds);
    /// undefined and null are refused (declare `Date?` to accept them).
    public static func fromJSArgument(_ value: JSValue) throws -> Date {
        guard !value.isUndefined, !value.isNull else {
            throw ArgumentMismatch(description: "expected Date, got \(value.typeDescription)")
        }
        return value.toDate()
    }
}

extension Data: JSValueConvertible {
    /// A JavaScript `Uint8Array` holding a copy of the bytes.
    public func jsValue(in context: JSContext) -> JSValue { JSValue(object: self, in: context) }

    /// The bytes of a `Uint8Array`, else nil.
    public static func fromJSValue(_ value: JSValue) -> Data? {
        value.toObject() as? Data
    }
}

extension NSNull: JSValueConvertible {
    /// JavaScript `null`.
    public func jsValue(in context: JSContext) -> JSValue { JSValue(context: context, storage: .null) }

    /// `NSNull()` for null, else nil.
    public static func fromJSValue(_ value: JSValue) -> Self? {
        value.isNull ? NSNull() as? Self : nil
    }
}
