import Foundation

/// Decodes `Decodable` Swift values straight from JavaScript values, reading objects, arrays
/// and scalars from the engine with no JSON text in between.
///
/// Reading is strict, as `JSONDecoder` is: a number where a `String` is declared is a
/// `typeMismatch`, a number that is not exactly an `Int` is `dataCorrupted`, and a property
/// that is undefined (or absent) is `keyNotFound`, while `null` and undefined decode as nil for
/// optionals. JavaScriptCore's table for the rest: a `Date` object (or a number of
/// milliseconds since 1970) is a `Date`; a `Uint8Array`, `ArrayBuffer` or other buffer is `Data`
/// (an array of bytes too); a string is a `URL`.
///
/// ```swift
/// struct Point: Codable { var x: Double; var y: Double }
/// let context = JSContext()!
/// let value = context.evaluateScript("({x: 1, y: 2})")!
/// let point = try JSValueDecoder().decode(Point.self, from: value)
/// print(point.y)   // prints: 2.0
/// ```
///
/// Every failure is a `DecodingError` whose context has the coding path to the bad field. A
/// getter or Proxy trap that throws, the deadline, the memory limit and nesting past 500
/// levels (a cyclic object read into a recursive type) are `dataCorrupted` with the
/// `JSException` as the `underlyingError`.
public struct JSValueDecoder: Sendable {
    /// How coding keys are matched with property names (`JSONDecoder.KeyDecodingStrategy`'s
    /// cases).
    public enum KeyDecodingStrategy: Sendable {
        /// A key's `stringValue` is the property name.
        case useDefaultKeys
        /// `"my_url_value"` is read as `"myUrlValue"`, as `JSONDecoder` converts.
        case convertFromSnakeCase
        /// Your function maps each of an object's own property names (the last element of the
        /// coding path it is given) to the key it is read as.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How coding keys are matched with property names; `.useDefaultKeys` by default.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys

    /// Values handed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with the default strategies.
    ///
    /// ```swift
    /// var decoder = JSValueDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// ```
    public init() {}

    /// The `T` that `value` holds.
    ///
    /// ```swift
    /// let context = JSContext()!
    /// let names = try JSValueDecoder().decode([String].self, from: context.evaluateScript("['a', 'b']"))
    /// print(names)   // prints: ["a", "b"]
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, from value: JSValue) throws -> T {
        try ValueDecoding.decode(type, from: value, by: self)
    }
}
