import CDuktape
import Foundation

/// The `Decoder` an `init(from:)` receives from `JSValueDecoder` (`ValueDecoding` says how
/// values are read from the engine's stack).
struct ValueDecoder: Decoder {
    let decoding: ValueDecoding
    let path: CodingPath?
    /// The value's absolute stack index.
    let index: Int32

    var codingPath: [any CodingKey] { CodingPath.keys(of: path) }
    var userInfo: [CodingUserInfoKey: Any] { decoding.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let ctx = decoding.ctx
        guard duk_is_object(ctx, index) != 0, duk_is_array(ctx, index) == 0 else {
            throw decoding.mismatch([String: Any].self, at: index, path: path)
        }
        return KeyedDecodingContainer(try KeyedValueDecoder<Key>(decoding: decoding, path: path, object: index))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try UnkeyedValueDecoder(decoding: decoding, path: path, array: index)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecoder(decoder: self)
    }
}

/// A JavaScript object's fields, read by name.
struct KeyedValueDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoding: ValueDecoding
    let path: CodingPath?
    let object: Int32
    /// Converted name → the object's own name, for the key strategies other than
    /// `.useDefaultKeys` (nil for that one: names are looked up as they are).
    let renamed: [String: String]?

    init(decoding: ValueDecoding, path: CodingPath?, object: Int32) throws {
        self.decoding = decoding
        self.path = path
        self.object = object
        switch decoding.keyStrategy {
        case .useDefaultKeys:
            renamed = nil
        case .convertFromSnakeCase:
            var map: [String: String] = [:]
            for name in try decoding.ownKeys(of: object, path: path) { map[SnakeCase.toCamelCase(name)] = name }
            renamed = map
        case .custom(let convert):
            var map: [String: String] = [:]
            for name in try decoding.ownKeys(of: object, path: path) {
                map[convert(CodingPath.keys(of: path, then: PlainCodingKey(stringValue: name))).stringValue] = name
            }
            renamed = map
        }
    }

    var codingPath: [any CodingKey] { CodingPath.keys(of: path) }

    /// The object's own enumerable keys that `Key` has a case for (`Object.keys` order).
    var allKeys: [Key] {
        if let renamed { return renamed.keys.compactMap { Key(stringValue: $0) } }
        do {
            return try decoding.ownKeys(of: object, path: path).compactMap { Key(stringValue: $0) }
        } catch {
            // `allKeys` cannot throw: the value being decoded fails when its `init(from:)` returns.
            if decoding.failure == nil { decoding.failure = error }
            return []
        }
    }

    /// True when the object has a value other than undefined for the key (undefined is how
    /// JavaScript says "absent": `JSON.stringify` leaves such keys out).
    func contains(_ key: Key) -> Bool {
        let index: Int32
        do {
            index = try decoding.pushField(key, of: object, renamed: renamed, path: path)
        } catch {
            if decoding.failure == nil { decoding.failure = error }  // thrown when the value is done
            return false
        }
        defer { duk_set_top(decoding.ctx, index) }
        return duk_is_undefined(decoding.ctx, index) == 0
    }

    /// Reads the field for `key` with `read`; undefined is `keyNotFound`.
    @inline(__always)
    private func field<T>(_ key: Key, _ read: (Int32, () -> CodingPath?) throws -> T) throws -> T {
        let index = try decoding.pushField(key, of: object, renamed: renamed, path: path)
        defer { duk_set_top(decoding.ctx, index) }
        if duk_is_undefined(decoding.ctx, index) != 0 { throw notFound(key) }
        // The field's path is made only when it is needed (an error, a nested value).
        return try read(index) { CodingPath(parent: path, key: key) }
    }

    /// Reads the field for `key` with `read`; nil for undefined and null.
    @inline(__always)
    private func fieldIfPresent<T>(_ key: Key, _ read: (Int32, () -> CodingPath?) throws -> T) throws -> T? {
        let index = try decoding.pushField(key, of: object, renamed: renamed, path: path)
        defer { duk_set_top(decoding.ctx, index) }
        if decoding.isNullOrUndefined(at: index) { return nil }
        // The field's path is made only when it is needed (an error, a nested value).
        return try read(index) { CodingPath(parent: path, key: key) }
    }

    private func notFound(_ key: Key) -> DecodingError {
        .keyNotFound(key, DecodingError.Context(
            codingPath: codingPath, debugDescription: "No value associated with key \"\(key.stringValue)\"."))
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let index = try decoding.pushField(key, of: object, renamed: renamed, path: path)
        defer { duk_set_top(decoding.ctx, index) }
        return decoding.isNullOrUndefined(at: index)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try field(key) { try decoding.boolean(at: $0, path: $1()) } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try field(key) { try decoding.string(at: $0, path: $1()) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try field(key) { try decoding.number(at: $0, as: type, path: $1()) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try field(key) { try decoding.number(at: $0, as: type, path: $1()) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try field(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try field(key) { try decoding.decode(type, at: $0, path: $1()) } }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try fieldIfPresent(key) { try decoding.boolean(at: $0, path: $1()) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try fieldIfPresent(key) { try decoding.string(at: $0, path: $1()) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try fieldIfPresent(key) { try decoding.number(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try fieldIfPresent(key) { try decoding.number(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try fieldIfPresent(key) { try decoding.integer(at: $0, as: type, path: $1()) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try fieldIfPresent(key) { try decoding.decode(type, at: $0, path: $1()) }
    }

    /// The nested containers and super decoders keep their value on the stack: it is dropped
    /// when the value that owns this container is done (`ValueDecoding.decode`).
    private func retainedField(_ key: Key) throws -> (Int32, CodingPath) {
        let index = try decoding.pushField(key, of: object, renamed: renamed, path: path)
        if duk_is_undefined(decoding.ctx, index) != 0 {
            duk_set_top(decoding.ctx, index)
            throw notFound(key)
        }
        return (index, CodingPath(parent: path, key: key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let (index, nestedPath) = try retainedField(key)
        return try ValueDecoder(decoding: decoding, path: nestedPath, index: index).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let (index, nestedPath) = try retainedField(key)
        return try ValueDecoder(decoding: decoding, path: nestedPath, index: index).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let index = try decoding.pushField(PlainCodingKey.superKey, of: object, renamed: renamed, path: path)
        return ValueDecoder(decoding: decoding, path: CodingPath(parent: path, key: PlainCodingKey.superKey), index: index)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let index = try decoding.pushField(key, of: object, renamed: renamed, path: path)
        return ValueDecoder(decoding: decoding, path: CodingPath(parent: path, key: key), index: index)
    }
}

/// A JavaScript array's elements (or a typed array's), read in order.
struct UnkeyedValueDecoder: UnkeyedDecodingContainer {
    let decoding: ValueDecoding
    let path: CodingPath?
    let array: Int32
    let count: Int?
    private(set) var currentIndex = 0

    init(decoding: ValueDecoding, path: CodingPath?, array: Int32) throws {
        let ctx = decoding.ctx
        let kind = cduk_class_of(ctx, array)
        guard duk_is_array(ctx, array) != 0 || kind == CDUK_CLASS_UINT8ARRAY else {
            throw decoding.mismatch([Any].self, at: array, path: path)
        }
        var length = 0.0
        do {
            try decoding.stack.reserve(1)
            duk_dup(ctx, array)
            try decoding.stack.check(cduk_plength(ctx, &length))
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path), debugDescription: "reading the length threw \(error)", underlyingError: error))
        }
        guard length <= ConversionLimits.maximumArrayLength else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPath.keys(of: path),
                debugDescription: "array too long to decode (length \(Int(length)), limit \(Int(ConversionLimits.maximumArrayLength)))"))
        }
        self.decoding = decoding
        self.path = path
        self.array = array
        count = Int(length)
    }

    var codingPath: [any CodingKey] { CodingPath.keys(of: path) }
    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    /// Reads the next element with `read`; advances only when it succeeds.
    @inline(__always)
    private mutating func next<T>(_ type: T.Type, _ read: (ValueDecoding, Int32, () -> CodingPath?) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: CodingPath.keys(of: path, then: PlainCodingKey(index: currentIndex)),
                debugDescription: "Unkeyed container is at end."))
        }
        let index = try decoding.pushElement(currentIndex, of: array, path: path)
        defer { duk_set_top(decoding.ctx, index) }
        let (path, position) = (path, currentIndex)
        let value = try read(decoding, index) { CodingPath(parent: path, key: PlainCodingKey(index: position)) }
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, DecodingError.Context(
                codingPath: CodingPath.keys(of: path, then: PlainCodingKey(index: currentIndex)),
                debugDescription: "Unkeyed container is at end."))
        }
        let index = try decoding.pushElement(currentIndex, of: array, path: path)
        defer { duk_set_top(decoding.ctx, index) }
        guard decoding.isNullOrUndefined(at: index) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.boolean(at: $1, path: $2()) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string(at: $1, path: $2()) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.number(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.number(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.integer(at: $1, as: type, path: $2()) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try $0.decode(type, at: $1, path: $2()) } }

    /// The next element, left on the stack for a nested container or super decoder.
    private mutating func retainedNext() throws -> (Int32, CodingPath) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                codingPath: CodingPath.keys(of: path, then: PlainCodingKey(index: currentIndex)),
                debugDescription: "Unkeyed container is at end."))
        }
        let index = try decoding.pushElement(currentIndex, of: array, path: path)
        let nestedPath = CodingPath(parent: path, key: PlainCodingKey(index: currentIndex))
        currentIndex += 1
        return (index, nestedPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (index, nestedPath) = try retainedNext()
        return try ValueDecoder(decoding: decoding, path: nestedPath, index: index).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (index, nestedPath) = try retainedNext()
        return try ValueDecoder(decoding: decoding, path: nestedPath, index: index).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (index, nestedPath) = try retainedNext()
        return ValueDecoder(decoding: decoding, path: nestedPath, index: index)
    }
}

/// The value itself.
struct SingleValueDecoder: SingleValueDecodingContainer {
    let decoder: ValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var decoding: ValueDecoding { decoder.decoding }
    private var index: Int32 { decoder.index }
    private var path: CodingPath? { decoder.path }

    func decodeNil() -> Bool { decoding.isNullOrUndefined(at: index) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoding.boolean(at: index, path: path) }
    func decode(_ type: String.Type) throws -> String { try decoding.string(at: index, path: path) }
    func decode(_ type: Double.Type) throws -> Double { try decoding.number(at: index, as: type, path: path) }
    func decode(_ type: Float.Type) throws -> Float { try decoding.number(at: index, as: type, path: path) }
    func decode(_ type: Int.Type) throws -> Int { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoding.integer(at: index, as: type, path: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoding.integer(at: index, as: type, path: path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoding.decode(type, at: index, path: path) }
}
