import Foundation

/// Encodes `Encodable` Swift values straight into JavaScript values: objects, arrays, strings,
/// numbers, booleans and null, built on the engine's stack with no JSON text in between.
///
/// The value table is JavaScriptCore's: `Date` becomes a JavaScript `Date`, `Data` a
/// `Uint8Array`, `URL` its absolute string; a nil optional in a keyed container leaves the key
/// out (as `JSONEncoder` does), `encodeNil` gives `null`. Integers must be exactly
/// representable as a JavaScript number (±2^53): a larger one is an
/// `EncodingError.invalidValue` rather than a silently rounded number.
///
/// ```swift
/// struct Point: Codable { var x: Double; var y: Double }
/// let context = JSContext()!
/// let value = try JSValueEncoder().encode(Point(x: 1, y: 2), in: context)
/// print(value.forProperty("x").toDouble())   // prints: 1.0
/// ```
///
/// Failures are `EncodingError`s whose context names the coding path; an engine failure (the
/// memory limit, the deadline, nesting past 500 levels) is the `underlyingError`, a
/// `JSException`.
public struct JSValueEncoder: Sendable {
    /// How property names are made from coding keys (`JSONEncoder.KeyEncodingStrategy`'s cases).
    public enum KeyEncodingStrategy: Sendable {
        /// The coding key's `stringValue`, as it is.
        case useDefaultKeys
        /// `"myURLValue"` → `"my_url_value"`, as `JSONEncoder` converts.
        case convertToSnakeCase
        /// The key your function returns for the coding path (its last element is the key
        /// being encoded).
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How property names are made; `.useDefaultKeys` by default.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys

    /// Values handed to every `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// An encoder with the default strategies.
    ///
    /// ```swift
    /// var encoder = JSValueEncoder()
    /// encoder.keyEncodingStrategy = .convertToSnakeCase
    /// ```
    public init() {}

    /// The JavaScript value of `value`, created in `context`.
    ///
    /// ```swift
    /// let context = JSContext()!
    /// let scores = try JSValueEncoder().encode(["ada": 3, "grace": 5], in: context)
    /// print(scores.forProperty("grace").toInt32())   // prints: 5
    /// ```
    public func encode<T: Encodable>(_ value: T, in context: JSContext) throws -> JSValue {
        JSValue(context: context, storage: try ValueEncoding.encode(value, in: context, by: self))
    }
}
