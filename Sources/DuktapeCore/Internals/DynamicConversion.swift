import Foundation

/// Parameter and result types decided at run time: the general overloads of typed closures,
/// exported methods and `call(_:returning:)` accept types that are not `JSValueConvertible`,
/// above all JavaScriptCore's `id`, `NSArray *` and `NSDictionary *` parameters as Swift writes
/// them (`Any`, `[Any]`, `[String: Any]`, `[AnyHashable: Any]` and their optionals). The
/// `JSValueConvertible`-constrained overloads stay preferred, so the typed fast paths never
/// come here.
enum DynamicConversion {
    /// How a `JSValueConvertible` type reads a value.
    enum Rule {
        /// A closure's or method's argument: `fromJSArgument` (JavaScriptCore's coercions).
        case argument
        /// A typed call's result: `fromJSValue` (strict).
        case result
    }

    /// `value` as `T`: a `JSValueConvertible` type by `rule`; `Any` and `Any?` by `toObject()`
    /// (undefined is nil, null is `NSNull`); `[Any]` by `toArray()`; `[String: Any]` and
    /// `[AnyHashable: Any]` by `toDictionary()`; an optional of any of them is nil for undefined
    /// and null. Throws `Mismatch` for a value of another kind or a type no value converts to, and
    /// the engine's exception when a conversion fails (a limit).
    static func value<T>(_ value: JSValue, as type: T.Type, rule: Rule) throws -> T {
        if let convertible = T.self as? any JSValueConvertible.Type {
            return try cast(convertibleValue(value, as: convertible, rule: rule), to: T.self)
        }
        if T.self == Any.self || T.self == Any?.self {
            let object = try withPushed(value) { stack throws(JSException) in try stack.any(at: -1) }
            return try cast(object ?? (Any?.none as Any), to: T.self)
        }
        if let optional = T.self as? any DynamicOptional.Type {
            return try cast(optionalValue(value, as: optional, rule: rule), to: T.self)
        }
        if T.self == [Any].self {
            return try cast(container(value, expected: T.self) { stack throws(JSException) in try stack.array(at: -1) }, to: T.self)
        }
        if T.self == [String: Any].self {
            return try cast(container(value, expected: T.self) { stack throws(JSException) in try stack.dictionary(at: -1) }, to: T.self)
        }
        if T.self == [AnyHashable: Any].self {
            let dictionary = try container(value, expected: T.self) { stack throws(JSException) in try stack.dictionary(at: -1) }
            return try cast(dictionary as [AnyHashable: Any], to: T.self)
        }
        throw Mismatch(description: """
            \(T.self) is not a type JavaScript values convert to (use a JSValueConvertible type, \
            Any, [Any], [String: Any], [AnyHashable: Any] or JSValue)
            """)
    }

    /// A conversion that does not apply: the value is of another kind, or the type is not one
    /// values convert to.
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    private static func convertibleValue<C: JSValueConvertible>(_ value: JSValue, as type: C.Type, rule: Rule) throws -> C {
        switch rule {
        case .argument:
            return try C.fromJSArgument(value)
        case .result:
            guard let converted = C.fromJSValue(value) else {
                throw Mismatch(description: "expected \(C.self), got \(value.typeDescription)")
            }
            return converted
        }
    }

    private static func optionalValue<O: DynamicOptional>(_ value: JSValue, as type: O.Type, rule: Rule) throws -> O {
        if value.isUndefined || value.isNull {
            return O.wrapping(nil)
        }
        return O.wrapping(try DynamicConversion.value(value, as: O.Wrapped.self, rule: rule))
    }

    /// An object converted by `convert`; undefined, null and other primitives do not convert.
    private static func container<R>(
        _ value: JSValue, expected: Any.Type, _ convert: (EngineStack) throws(JSException) -> R
    ) throws -> R {
        let converted = try withPushed(value) { stack throws(JSException) -> R? in
            stack.isObject(at: -1) ? try convert(stack) : nil
        }
        guard let converted else {
            throw Mismatch(description: "expected \(expected), got \(value.typeDescription)")
        }
        return converted
    }

    private static func withPushed<R>(_ value: JSValue, _ body: (EngineStack) throws(JSException) -> R) throws -> R {
        try value.owner.withStack { stack throws(JSException) in
            try stack.push(value)
            return try body(stack)
        }
    }

    /// `value` as `T`, which it is (every caller converted to `T`): the cast cannot fail, but a
    /// failure is an error, never a trap.
    private static func cast<T>(_ value: Any, to type: T.Type) throws -> T {
        guard let typed = value as? T else {
            throw Mismatch(description: "internal error: a \(Swift.type(of: value)) is not a \(T.self)")
        }
        return typed
    }
}

/// `Optional`, opened to reach its wrapped type.
private protocol DynamicOptional {
    associatedtype Wrapped
    static func wrapping(_ wrapped: Wrapped?) -> Self
}

extension Optional: DynamicOptional {
    fileprivate static func wrapping(_ wrapped: Wrapped?) -> Self { wrapped }
}

extension ArgumentReader {
    /// The next argument as `T`, any type (`DynamicConversion`); a failure names the argument.
    mutating func nextDynamic<T>(_ type: T.Type) throws -> T {
        defer { index += 1 }
        do {
            return try DynamicConversion.value(call.argument(index), as: T.self, rule: .argument)
        } catch let exception as JSException {
            throw exception
        } catch {
            throw ArgumentMismatch(description: "argument \(index + 1): \(error)")
        }
    }
}

extension HostResult {
    /// A result of any type: `Void` is undefined; everything else goes through the Swift →
    /// JavaScript table (which throws a TypeError for a type it does not convert).
    static func dynamic<R>(_ value: R) -> HostResult {
        R.self == Void.self ? .undefined : .converted(value)
    }
}

extension EngineStack {
    /// The value at `index` as `Result` by `DynamicConversion`'s strict rule; a mismatch is a
    /// TypeError.
    func dynamicValue<Result>(at index: Int32, as type: Result.Type) throws(JSException) -> Result {
        let value = try value(at: index)
        do {
            return try DynamicConversion.value(value, as: Result.self, rule: .result)
        } catch let exception as JSException {
            throw exception
        } catch {
            throw makeError(.typeError, "\(error)")
        }
    }
}
