import Foundation

/// `Codable` values straight to and from JavaScript values (`JSValueEncoder`, `JSValueDecoder`).
extension JSValue {
    /// The JavaScript value of `value`, encoded by `encoder` with no JSON text in between.
    ///
    /// ```swift
    /// struct Point: Codable { var x: Double; var y: Double }
    /// let context = JSContext()!
    /// let value = try JSValue(encoding: Point(x: 1, y: 2), in: context)
    /// print(value.forProperty("y").toDouble())   // prints: 2.0
    /// ```
    public convenience init<T: Encodable>(encoding value: T, in context: JSContext, using encoder: JSValueEncoder = JSValueEncoder()) throws {
        self.init(context: context, storage: try ValueEncoding.encode(value, in: context, by: encoder))
    }

    /// The `T` this value holds, read by `decoder` (a `DecodingError` with the coding path to
    /// the bad field when it does not).
    ///
    /// ```swift
    /// struct Point: Codable { var x: Double; var y: Double }
    /// let context = JSContext()!
    /// let point = try context.evaluateScript("({x: 3, y: 4})").decode(Point.self)
    /// print(point.x)   // prints: 3.0
    /// ```
    public func decode<T: Decodable>(_ type: T.Type = T.self, using decoder: JSValueDecoder = JSValueDecoder()) throws -> T {
        try decoder.decode(type, from: self)
    }
}

/// A `Codable` type that converts to and from JavaScript values by `JSValueEncoder` and
/// `JSValueDecoder`, with nothing else to write: declare the conformance, and the type can be a
/// typed closure's argument or result, a typed `call(_:returning:)`'s, an exported method's, or
/// a typed subscript's.
///
/// ```swift
/// struct Point: JSValueCodable { var x: Double; var y: Double }
/// let context = JSContext()!
/// context.globalObject["length"] = JSValue(newFunctionIn: context) { (point: Point) in
///     (point.x * point.x + point.y * point.y).squareRoot()
/// }
/// print(context.evaluateScript("length({x: 3, y: 4})").toDouble())   // prints: 5.0
/// ```
///
/// An argument that does not decode fails the call with a TypeError naming the argument and the
/// field; a result that cannot be encoded throws its `EncodingError` into the script.
///
/// (A separate protocol rather than a default for every `Codable & JSValueConvertible` type:
/// the standard types are both, and keep their own conversions.)
public protocol JSValueCodable: JSValueConvertible, Codable {}

extension JSValueCodable {
    /// The encoded value; a failure is reported to the context's `exceptionHandler` and gives
    /// undefined, by JavaScriptCore's convention (the typed calls throw it instead).
    public func jsValue(in context: JSContext) -> JSValue {
        do {
            return try JSValue(encoding: self, in: context)
        } catch {
            if let exception = try? context.makeSwiftError(error) { context.notifyException(exception) }
            return JSValue(context: context, storage: .undefined)
        }
    }

    /// The encoded value, or the `EncodingError`.
    public func _jsValue(throwingIn context: JSContext) throws -> JSValue {
        try JSValue(encoding: self, in: context)
    }

    /// The decoded value, or nil when it does not decode.
    public static func fromJSValue(_ value: JSValue) -> Self? {
        try? value.decode(Self.self)
    }

    /// The decoded value; a failure names the field (`x: Expected to decode Double but found a
    /// string instead.`), and what a getter threw is thrown as it is.
    public static func fromJSArgument(_ value: JSValue) throws -> Self {
        do {
            return try value.decode(Self.self)
        } catch let error as DecodingError {
            if let exception = error.underlyingJSException, !exception.isUnmade { throw exception }
            throw ArgumentMismatch(description: error.summary)
        }
    }
}

extension DecodingError {
    /// The coding path and the message, for a TypeError: `"points[1].x: Expected to decode…"`.
    var summary: String {
        let context: Context
        switch self {
        case .typeMismatch(_, let value), .valueNotFound(_, let value), .keyNotFound(_, let value), .dataCorrupted(let value):
            context = value
        @unknown default:
            return String(describing: self)
        }
        var path = ""
        for key in context.codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        if case .keyNotFound(let key, _) = self {
            path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
        return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }

    /// The script's exception when the failure was one (a getter that threw).
    var underlyingJSException: JSException? {
        if case .dataCorrupted(let context) = self { return context.underlyingError as? JSException }
        return nil
    }
}
