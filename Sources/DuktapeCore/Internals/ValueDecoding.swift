import CDuktape
import Foundation

/// One `JSValueDecoder.decode` call: the engine stack the value is read from, the options, and
/// the element count that bounds the work.
///
/// How values are read: the value being decoded sits at a fixed absolute index of the engine's
/// stack; a field is one protected call that pushes `object[name]` (`cduk_pget_at`: getters and
/// Proxy traps run there, and what they throw is a `DecodingError` naming the field). A
/// primitive field is popped as soon as it is read; a nested value stays on the stack while its
/// containers read it, and the value that owns it drops everything above its own index when it
/// is done.
final class ValueDecoding {
    let stack: EngineStack
    let ctx: OpaquePointer
    let keyStrategy: JSValueDecoder.KeyDecodingStrategy
    let userInfo: [CodingUserInfoKey: Any]
    /// Counts fields and elements: the deadline is checked every 1,024, and a value with more
    /// elements than the memory limit could hold fails (`ConversionState.count`).
    let budget: ConversionState
    /// The first failure of a non-throwing `Decoder` member (`allKeys`); the value being
    /// decoded fails with it when its `init(from:)` returns.
    var failure: (any Error)?

    init(stack: EngineStack, decoder: JSValueDecoder) {
        self.stack = stack
        ctx = stack.ctx
        keyStrategy = decoder.keyDecodingStrategy
        userInfo = decoder.userInfo
        budget = ConversionState(engine: stack.context.engine)
    }

    /// `JSValueDecoder.decode`: `value` read in an entry of its context; a failure to enter is
    /// `dataCorrupted`.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSValue, by decoder: JSValueDecoder) throws -> T {
        let outcome: Result<T, any Error>
        do {
            outcome = try value.owner.withStack { stack throws(JSException) in
                try stack.push(value)
                let index = duk_get_top_index(stack.ctx)
                let decoding = ValueDecoding(stack: stack, decoder: decoder)
                return Result { () throws -> T in try decoding.decode(T.self, at: index, path: nil) }
            }
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "the value could not be read: \(error)", underlyingError: error))
        }
        return try outcome.get()
    }

    // MARK: - Values

    /// The value at `index`, whose coding path is `path`, as a `T`.
    func decode<T: Decodable>(_ type: T.Type, at index: Int32, path: CodingPath?) throws -> T {
        if T.self == String.self { return _identityCast(try string(at: index, path: path), to: T.self) }
        if T.self == Double.self { return _identityCast(try number(at: index, as: Double.self, path: path), to: T.self) }
        if T.self == Int.self { return _identityCast(try integer(at: index, as: Int.self, path: path), to: T.self) }
        if T.self == Bool.self { return _identityCast(try boolean(at: index, path: path), to: T.self) }
        if T.self == Date.self { return _identityCast(try date(at: index, path: path), to: T.self) }
        if T.self == Data.self, let data = data(at: index) { return _identityCast(data, to: T.self) }
        if T.self == URL.self { return _identityCast(try url(at: index, path: path), to: T.self) }
        do {
            try stack.checkConversionDepth(path?.depth ?? 0, limit: ConversionLimits.maximumDepth)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path), debugDescription: error.message, underlyingError: error))
        }
        let top = duk_get_top(ctx)
        defer { duk_set_top(ctx, top) }
        let value = try T(from: ValueDecoder(decoding: self, path: path, index: index))
        if let failure { throw failure }
        return value
    }

    // MARK: - Scalars

    func boolean(at index: Int32, path: @autoclosure () -> CodingPath?) throws -> Bool {
        guard duk_is_boolean(ctx, index) != 0 else { throw mismatch(Bool.self, at: index, path: path()) }
        return duk_get_boolean(ctx, index) != 0
    }

    func string(at index: Int32, path: @autoclosure () -> CodingPath?) throws -> String {
        guard stack.isString(at: index) else { throw mismatch(String.self, at: index, path: path()) }
        return stack.string(at: index)
    }

    func number<F: BinaryFloatingPoint>(at index: Int32, as type: F.Type, path: @autoclosure () -> CodingPath?) throws -> F {
        guard duk_is_number(ctx, index) != 0 else { throw mismatch(F.self, at: index, path: path()) }
        let number = duk_get_number(ctx, index)
        let converted = F(number)
        if converted.isInfinite, number.isFinite {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path()),
                debugDescription: "JavaScript number <\(number)> does not fit in \(F.self)."))
        }
        return converted
    }

    func integer<I: FixedWidthInteger>(at index: Int32, as type: I.Type, path: @autoclosure () -> CodingPath?) throws -> I {
        guard duk_is_number(ctx, index) != 0 else { throw mismatch(I.self, at: index, path: path()) }
        let number = duk_get_number(ctx, index)
        guard let integer = I(exactly: number) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path()),
                debugDescription: "JavaScript number <\(number)> does not fit in \(I.self)."))
        }
        return integer
    }

    /// JavaScriptCore's table: a `Date` object; also a number of milliseconds since 1970, as
    /// JavaScriptCore reads an NSDate argument.
    func date(at index: Int32, path: @autoclosure () -> CodingPath?) throws -> Date {
        let milliseconds: Double
        if stack.isDate(at: index) {
            do {
                milliseconds = try stack.number(at: index)
            } catch {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: CodingPath.keys(of: path()), debugDescription: error.message, underlyingError: error))
            }
        } else if duk_is_number(ctx, index) != 0 {
            milliseconds = duk_get_number(ctx, index)
        } else {
            throw mismatch(Date.self, at: index, path: path())
        }
        guard milliseconds.isFinite else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path()), debugDescription: "Invalid Date."))
        }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// The bytes of a `Uint8Array` (or any other buffer: `ArrayBuffer`, typed arrays, `DataView`);
    /// nil for anything else, which `Data`'s own `init(from:)` then reads (an array of bytes).
    func data(at index: Int32) -> Data? {
        let kind = cduk_class_of(ctx, index)
        guard kind == CDUK_CLASS_UINT8ARRAY || kind == CDUK_CLASS_BUFFER_OTHER else { return nil }
        var count = 0
        guard let bytes = duk_get_buffer_data(ctx, index, &count), count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    func url(at index: Int32, path: @autoclosure () -> CodingPath?) throws -> URL {
        let text = try string(at: index, path: path())
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path()), debugDescription: "Invalid URL string."))
        }
        return url
    }

    func isNullOrUndefined(at index: Int32) -> Bool {
        Int32(duk_get_type(ctx, index)) <= Int32(DUK_TYPE_NULL)  // none, undefined or null
    }

    /// `typeMismatch` naming what was found, or `valueNotFound` for null and undefined.
    func mismatch(_ type: Any.Type, at index: Int32, path: CodingPath?) -> DecodingError {
        let found = description(at: index)
        let context = DecodingError.Context(
            codingPath: CodingPath.keys(of: path),
            debugDescription: isNullOrUndefined(at: index)
                ? "Expected \(type) value but found \(found) instead."
                : "Expected to decode \(type) but found \(found) instead.")
        return isNullOrUndefined(at: index) ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    /// "a string", "an array", "null"... for errors.
    func description(at index: Int32) -> String {
        switch Int32(duk_get_type(ctx, index)) {
        case Int32(DUK_TYPE_UNDEFINED), Int32(DUK_TYPE_NONE): return "undefined"
        case Int32(DUK_TYPE_NULL): return "null"
        case Int32(DUK_TYPE_BOOLEAN): return "a boolean"
        case Int32(DUK_TYPE_NUMBER): return "a number"
        case Int32(DUK_TYPE_STRING): return stack.isSymbol(at: index) ? "a symbol" : "a string"
        case Int32(DUK_TYPE_OBJECT):
            if duk_is_array(ctx, index) != 0 { return "an array" }
            if duk_is_function(ctx, index) != 0 { return "a function" }
            return "an object"
        default: return "a value of another kind"
        }
    }

    // MARK: - Fields

    /// [..] -> [.. object[name]] for `key`, by the key strategy; `renamed` maps converted names
    /// to the object's own (the strategies other than `.useDefaultKeys`), where a key it does
    /// not have reads as undefined. Returns the value's index; the caller pops it.
    func pushField(_ key: some CodingKey, of object: Int32, renamed: [String: String]?, path: CodingPath?) throws -> Int32 {
        do {
            try budget.count(on: stack)
            try stack.reserve(2)
            if let renamed {
                guard let name = renamed[key.stringValue] else {
                    duk_push_undefined(ctx)
                    return duk_get_top_index(ctx)
                }
                try stack.pushKey(name)
            } else {
                try stack.pushKey(key.stringValue)
            }
            try stack.check(cduk_pget_at(ctx, object))
            return duk_get_top_index(ctx)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path, then: key),
                debugDescription: "reading the value threw \(error)", underlyingError: error))
        }
    }

    /// [..] -> [.. array[position]]; returns the element's index.
    func pushElement(_ position: Int, of array: Int32, path: CodingPath?) throws -> Int32 {
        do {
            try budget.count(on: stack)
            try stack.reserve(2)
            duk_push_number(ctx, Double(position))
            try stack.check(cduk_pget_at(ctx, array))
            return duk_get_top_index(ctx)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path, then: PlainCodingKey(index: position)),
                debugDescription: "reading the value threw \(error)", underlyingError: error))
        }
    }

    /// The own enumerable string keys of the object at `index`, in the engine's order
    /// (`Object.keys`).
    func ownKeys(of index: Int32, path: CodingPath?) throws -> [String] {
        let collector = KeyCollector(stack: stack, budget: budget)
        do {
            try stack.reserve(2)
            duk_dup(ctx, index)
            let status = cduk_pvisit(ctx, 1, { udata, _ in
                // The collector outlives the visit (held here): no retain and release a key.
                Unmanaged<KeyCollector>.fromOpaque(udata)._withUnsafeGuaranteedRef { $0.visit() }
            }, Unmanaged.passUnretained(collector).toOpaque())
            if let failure = collector.failure { throw failure }
            try stack.check(status)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path), debugDescription: "listing the keys threw \(error)", underlyingError: error))
        }
        return collector.keys
    }
}

/// Collects keys from `cduk_pvisit` ([.. key value] on top of the stack).
private final class KeyCollector {
    let stack: EngineStack
    let budget: ConversionState
    var keys: [String] = []
    var failure: JSException?

    init(stack: EngineStack, budget: ConversionState) {
        self.stack = stack
        self.budget = budget
    }

    func visit() -> Int32 {
        do {
            try budget.count(on: stack)
        } catch {
            failure = error
            return 1
        }
        if let key = stack.stringIfString(at: -2) { keys.append(key) }
        return 0
    }
}
