import CDuktape

/// What a host function's body gives JavaScript: primitives are pushed as they are, with no
/// existential or `JSValue` between; anything else goes through the conversion table.
@usableFromInline
enum HostResult {
    case undefined
    case number(Double)
    case boolean(Bool)
    case string(String)
    /// A value converted by the table (a `JSValue`, a container, an exported object...).
    case converted(Any)

    /// A closure's untyped result: nil is undefined.
    init(_ value: Any?) {
        if let value { self = .converted(value) } else { self = .undefined }
    }

    /// A typed Swift value (a typed closure's result, a typed call's argument): the exact types
    /// of `exactValue` directly, anything else by its `jsValue(in:)` in `context` (throwing
    /// what a `Codable` type's encoding could not do).
    ///
    /// By the type table, not by a protocol requirement: a parameter pack's elements are
    /// iterated at run time, not specialized one by one, so their types are as unknown at compile
    /// time as an `Any`'s, and a metatype comparison is cheaper there than a witness call (W5's
    /// typed row measured both). Always inlined, so that where the type is
    /// known (a closure's result) the tests fold away.
    @inlinable @inline(__always)
    static func result<R: JSValueConvertible>(_ value: R, in context: JSContext) throws -> HostResult {
        switch exactValue(value) {
        case .number(let number): return .number(number)
        case .boolean(let flag): return .boolean(flag)
        case .string(let string): return .string(string)
        case .jsValue(let jsValue): return .converted(jsValue)
        case .other: return try optional(value) ?? .converted(value._jsValue(throwingIn: context))
        }
    }

    /// An optional of one of `exactValue`'s types (nil is undefined), without the `JSValue`
    /// that `Optional.jsValue(in:)` makes; nil for any other type.
    @inlinable @inline(__always)
    static func optional<T>(_ value: T) -> HostResult? {
        if T.self == Int?.self { return _identityCast(value, to: Int?.self).map { .number(Double($0)) } ?? .undefined }
        if T.self == Double?.self { return _identityCast(value, to: Double?.self).map { .number($0) } ?? .undefined }
        if T.self == String?.self { return _identityCast(value, to: String?.self).map { .string($0) } ?? .undefined }
        if T.self == Bool?.self { return _identityCast(value, to: Bool?.self).map { .boolean($0) } ?? .undefined }
        if T.self == JSValue?.self { return _identityCast(value, to: JSValue?.self).map { .converted($0) } ?? .undefined }
        return nil
    }
}

extension EngineStack {
    /// [..] -> [.. result]
    @usableFromInline
    func push(_ result: consuming HostResult) throws(JSException) {
        switch consume result {
        case .undefined:
            try reserve(1)
            duk_push_undefined(ctx)
        case .number(let number):
            try reserve(1)
            duk_push_number(ctx, number)
        case .boolean(let flag):
            try reserve(1)
            duk_push_boolean(ctx, flag ? 1 : 0)
        case .string(let string):
            try reserve(1)
            try pushString(string)
        case .converted(let value):
            try push(anyValue: value)
        }
    }
}
