import CDuktape
import Foundation

/// One `JSValueEncoder.encode` call: the engine stack the value is built on, the options, and
/// the failure a non-throwing `Encoder` method met.
///
/// How values are laid out: a value being encoded sits at a fixed absolute index of the
/// engine's stack; its containers (objects, arrays) are created there, and each field is one
/// protected call that defines `object[key] = value` by that index (`cduk_pdef_at`). A nested
/// container is created above, attached to its parent at once (objects are references) and
/// left on the stack until the value that owns it is done, which then drops everything above
/// its own index. Every push is reserved and every engine call protected: the memory limit,
/// the deadline and a getter cannot longjmp through these Swift frames.
final class ValueEncoding {
    let stack: EngineStack
    let ctx: OpaquePointer
    let keyStrategy: JSValueEncoder.KeyEncodingStrategy
    let userInfo: [CodingUserInfoKey: Any]
    /// The first failure of a non-throwing `Encoder` method (creating a container); the next
    /// throwing call throws it.
    var failure: (any Error)?
    /// Snake-case conversions already made, by key.
    private var snakeCaseNames: [String: String] = [:]

    init(stack: EngineStack, encoder: JSValueEncoder) {
        self.stack = stack
        ctx = stack.ctx
        keyStrategy = encoder.keyEncodingStrategy
        userInfo = encoder.userInfo
    }

    /// A number the engine cannot hold exactly (an integer past ±2^53).
    struct Unrepresentable: Error {
        let description: String
    }

    /// `JSValueEncoder.encode`: `value` built in an entry of `context`, as storage with a slot
    /// of its own; an engine failure is an `EncodingError`.
    static func encode<T: Encodable>(_ value: T, in context: JSContext, by encoder: JSValueEncoder) throws -> JSValue.Storage {
        let outcome: Result<JSValue.Storage, any Error>
        do {
            outcome = try context.withStack { stack throws(JSException) in
                Result { () throws -> JSValue.Storage in
                    try ValueEncoding(stack: stack, encoder: encoder).push(value, path: nil)
                    return try stack.storage(at: -1)
                }
            }
        } catch {
            outcome = .failure(error)
        }
        return try outcome.mapError { encodingError($0, value: value, path: []) }.get()
    }

    // MARK: - Values

    /// [..] -> [.. value]: the JavaScript value of `value`, whose coding path is `path`.
    func push<T: Encodable>(_ value: T, path: CodingPath?) throws {
        if T.self == String.self { return try stack.pushString(_identityCast(value, to: String.self)) }
        if T.self == Double.self { return try stack.pushNumber(_identityCast(value, to: Double.self)) }
        if T.self == Int.self { return try stack.pushNumber(Self.number(Int64(_identityCast(value, to: Int.self)))) }
        if T.self == Bool.self { return try pushBoolean(_identityCast(value, to: Bool.self)) }
        if T.self == Date.self {
            try stack.reserve(1)
            return try stack.check(cduk_ppush_date(ctx, EngineStack.javaScriptTime(of: _identityCast(value, to: Date.self))))
        }
        if T.self == Data.self {
            return try stack.pushUint8Array(joining: CollectionOfOne(_identityCast(value, to: Data.self)))
        }
        if T.self == URL.self { return try stack.pushString(_identityCast(value, to: URL.self).absoluteString) }
        try stack.checkConversionDepth(path?.depth ?? 0, limit: ConversionLimits.maximumDepth)
        let base = duk_get_top(ctx)
        try value.encode(to: ValueEncoder(encoding: self, path: path, destination: .top(base)))
        if let failure { throw failure }
        let top = duk_get_top(ctx)
        if top == base {
            try stack.pushNewObject()  // a value that encoded nothing is {}, as JSONEncoder makes
        } else if top > base + 1 {
            duk_set_top(ctx, base + 1)  // its nested containers, already attached
        }
    }

    func pushBoolean(_ flag: Bool) throws(JSException) {
        try stack.reserve(1)
        duk_push_boolean(ctx, flag ? 1 : 0)
    }

    func pushNull() throws(JSException) {
        try stack.reserve(1)
        duk_push_null(ctx)
    }

    /// A 64-bit integer as a JavaScript number, if the number is exactly that integer (all
    /// within ±2^53, and the powers of two past it). Concrete overloads, not one generic over
    /// `BinaryInteger`: unspecialized, `I(exactly:)` looked up metadata at run time and cost more
    /// than the field's whole definition.
    @inline(__always)
    static func number(_ integer: Int64) throws(Unrepresentable) -> Double {
        let number = Double(integer)
        guard integer.magnitude <= 1 << 53 || Int64(exactly: number) == integer else {
            throw Unrepresentable(description: "\(integer) is not exactly representable as a JavaScript number")
        }
        return number
    }

    @inline(__always)
    static func number(_ integer: UInt64) throws(Unrepresentable) -> Double {
        let number = Double(integer)
        guard integer <= 1 << 53 || UInt64(exactly: number) == integer else {
            throw Unrepresentable(description: "\(integer) is not exactly representable as a JavaScript number")
        }
        return number
    }

    // MARK: - Keys

    /// The property name for `key` by the key strategy.
    func name(for key: some CodingKey, path: CodingPath?) -> String {
        switch keyStrategy {
        case .useDefaultKeys:
            return key.stringValue
        case .convertToSnakeCase:
            let name = key.stringValue
            if let converted = snakeCaseNames[name] { return converted }
            let converted = SnakeCase.fromCamelCase(name)
            if snakeCaseNames.count < 4096 { snakeCaseNames[name] = converted }
            return converted
        case .custom(let convert):
            return convert(CodingPath.keys(of: path, then: key)).stringValue
        }
    }

    /// [..] -> [.. name]: the property name for `key` by the key strategy.
    func pushName(for key: some CodingKey, path: CodingPath?) throws(JSException) {
        try stack.pushKey(name(for: key, path: path))
    }

    // MARK: - Containers

    enum ContainerKind {
        case object, array

        var description: String { self == .object ? "a keyed" : "an unkeyed" }
    }

    /// The index of the container `destination` holds, created there on first request; -1 (with
    /// `failure` set) when it cannot be made.
    func container(_ kind: ContainerKind, for destination: ValueEncoder.Destination, path: CodingPath?) -> Int32 {
        switch destination {
        case .top(let base):
            if duk_get_top(ctx) > base {
                return isContainer(kind, at: base) ? base : conflict(kind, path: path)
            }
            return (try? pushContainer(kind)) == nil ? -1 : base
        case .attached(let slot):
            if let index = slot.index {
                return index >= 0 && isContainer(kind, at: index) ? index : conflict(kind, path: path)
            }
            let index = attachNew(kind, to: slot.parent, path: path) { () throws(JSException) in
                try self.push(slot.name)
            }
            slot.index = index
            return index
        }
    }

    /// A new container attached to the container at `parent` under the name `pushName`
    /// pushes; its index, or -1 with `failure` set.
    func attachNew(_ kind: ContainerKind, to parent: Int32, path: CodingPath?, name pushName: () throws(JSException) -> Void) -> Int32 {
        guard parent >= 0 else { return -1 }
        do throws(JSException) {
            try pushContainer(kind)
            let index = duk_get_top_index(ctx)
            try stack.reserve(2)
            try pushName()
            duk_dup(ctx, index)
            try stack.check(cduk_pdef_at(ctx, parent))
            return index
        } catch {
            record(Self.encodingError(error, value: kind == .object ? [String: Any]() : [Any](), path: CodingPath.keys(of: path)))
            return -1
        }
    }

    /// [..] -> [.. name] for an attached slot's name.
    func push(_ name: ValueEncoder.AttachedSlot.Name) throws(JSException) {
        switch name {
        case .property(let key): try stack.pushKey(key)
        case .element(let position): try stack.pushNumber(Double(position))
        }
    }

    private func pushContainer(_ kind: ContainerKind) throws(JSException) {
        do throws(JSException) {
            try stack.check(cduk_ppush_new(ctx, kind == .object ? CDUK_NEW_OBJECT : CDUK_NEW_ARRAY))
        } catch {
            record(Self.encodingError(error, value: kind == .object ? [String: Any]() : [Any](), path: []))
            throw error
        }
    }

    private func isContainer(_ kind: ContainerKind, at index: Int32) -> Bool {
        let isArray = duk_is_array(ctx, index) != 0
        return duk_is_object(ctx, index) != 0 && (kind == .array) == isArray
    }

    private func conflict(_ kind: ContainerKind, path: CodingPath?) -> Int32 {
        record(EncodingError.invalidValue(kind == .object ? [String: Any]() : [Any](), EncodingError.Context(
            codingPath: CodingPath.keys(of: path),
            debugDescription: "requested \(kind.description) container for a value already encoded otherwise")))
        return -1
    }

    func record(_ error: any Error) {
        if failure == nil { failure = error }
    }

    /// The failure to throw for a container that could not be made.
    var containerFailure: any Error {
        failure ?? EncodingError.invalidValue([Any](), EncodingError.Context(codingPath: [], debugDescription: "no container"))
    }

    // MARK: - Fields

    /// Defines `object[name] = value`, with the name and value pushed by `pushName` and
    /// `pushValue`; an engine failure becomes an `EncodingError` at `path` + `key`.
    @inline(__always)
    func put(
        in object: Int32, key: @autoclosure () -> any CodingKey, path: CodingPath?, value: @autoclosure () -> Any,
        name pushName: () throws(JSException) -> Void, value pushValue: () throws -> Void
    ) throws {
        guard object >= 0 else { throw containerFailure }
        do {
            try stack.reserve(2)
            try pushName()
            try pushValue()
            try stack.check(cduk_pdef_at(ctx, object))
        } catch let error as JSException {
            throw Self.encodingError(error, value: value(), path: CodingPath.keys(of: path, then: key()))
        } catch let error as Unrepresentable {
            throw EncodingError.invalidValue(value(), EncodingError.Context(
                codingPath: CodingPath.keys(of: path, then: key()), debugDescription: error.description))
        }
    }

    /// An engine failure while encoding `value` at `path`.
    static func encodingError(_ error: any Error, value: Any, path: [any CodingKey]) -> any Error {
        guard let exception = error as? JSException else { return error }
        return EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: path, debugDescription: "the JavaScript value could not be made: \(exception)",
            underlyingError: exception))
    }
}
