import Foundation

/// A value handed between threads once (a bridge's message, an answer).
typealias BridgeValue = WebPage.Box<Any?>

/// The values the bridges (`FlexComponent`, `WebViewJavascriptBridge`) hand to a page or take
/// from it: checked before they are sent, Codable through their JSON form, errors in words.
enum BridgeValues {
    /// `value` as a page can hold it: nil, `NSNull`, booleans, numbers, strings, dates, data,
    /// arrays and string-keyed dictionaries of those; other `Encodable` values through their
    /// JSON form. Anything else is refused with a reason.
    static func checked(_ value: Any?, of what: @autoclosure () -> String) throws -> Any? {
        guard let value else { return nil }
        if isPlainScalar(value) || type(of: value) == String.self { return value }
        switch value {
        case is Void:
            return nil
        case is NSNull, is Bool, is String, is Date, is Data, is NSNumber, is Int, is Double, is Float, is Int32, is Int64,
             is UInt, is UInt32, is UInt64, is Int16, is UInt16, is Int8, is UInt8:
            return value
        case let list as [Any?]:
            return try list.map { try checked($0, of: what()) ?? NSNull() } as [Any]
        case let object as [String: Any?]:
            return try object.mapValues { try checked($0, of: what()) ?? NSNull() } as [String: Any]
        case let encodable as any Encodable:
            return try encode(encodable)
        default:
            throw ScriptMessageReplyError("\(what()): a \(type(of: value)) cannot be sent to the page")
        }
    }

    /// Whether `value` is a number, a boolean or `NSNull` by its exact type: the common case,
    /// decided without a cast (a failing `as?` to a Foundation type tries bridging first).
    static func isPlainScalar(_ value: Any) -> Bool {
        let type = ObjectIdentifier(Swift.type(of: value))
        return type == ObjectIdentifier(NSNumber.self) || type == ObjectIdentifier(Double.self) || type == ObjectIdentifier(Int.self)
            || type == ObjectIdentifier(Bool.self) || type == ObjectIdentifier(NSNull.self)
    }

    static func encode(_ value: any Encodable) throws -> Any? {
        do {
            let data = try JSONEncoder().encode(value)
            let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return object is NSNull ? nil : object
        } catch {
            throw ScriptMessageReplyError("a \(type(of: value)) does not encode: \(reason(error))")
        }
    }

    static func decode<T: Decodable>(_: T.Type, from value: Any?) throws -> T {
        // Checked first: Foundation traps on what JSON cannot hold (dates, data, NaN).
        let object = value ?? NSNull()
        guard JSONSerialization.isValidJSONObject([object]) else {
            throw FlexReject("a \(type(of: object)) has no JSON form")
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])
        return try JSONDecoder().decode(T.self, from: data)
    }

    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no value for \"\(key.stringValue)\""
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            "expected \(type) at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        case DecodingError.dataCorrupted(let context): context.debugDescription
        case let error as ScriptMessageReplyError: error.message
        default: String(describing: error)
        }
    }
}
