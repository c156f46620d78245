import CDuktape
import Foundation

/// The `Encoder` an `encode(to:)` receives from `JSValueEncoder` (`ValueEncoding` says how
/// values are laid out on the engine's stack).
struct ValueEncoder: Encoder {
    /// Where the value this encoder makes goes.
    enum Destination {
        /// At this absolute stack index (the top when the encoder was made): `ValueEncoding.push`.
        case top(Int32)
        /// Defined on a container as soon as it exists (`superEncoder`).
        case attached(AttachedSlot)
    }

    /// A `superEncoder`'s place in its parent container, and what was made there.
    final class AttachedSlot {
        enum Name {
            case property(String)
            case element(Int)
        }

        let parent: Int32
        let name: Name
        /// The stack index of the container made there; -2 once a single value was defined.
        var index: Int32?

        init(parent: Int32, name: Name) {
            self.parent = parent
            self.name = name
        }
    }

    let encoding: ValueEncoding
    let path: CodingPath?
    let destination: Destination

    var codingPath: [any CodingKey] { CodingPath.keys(of: path) }
    var userInfo: [CodingUserInfoKey: Any] { encoding.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object = encoding.container(.object, for: destination, path: path)
        return KeyedEncodingContainer(KeyedValueEncoder<Key>(encoding: encoding, path: path, object: object))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedValueEncoder(encoding: encoding, path: path, array: encoding.container(.array, for: destination, path: path))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncoder(encoder: self)
    }
}

/// A JavaScript object's fields.
struct KeyedValueEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoding: ValueEncoding
    let path: CodingPath?
    /// The object's stack index (-1: it could not be made, `encoding.failure` says why).
    let object: Int32

    var codingPath: [any CodingKey] { CodingPath.keys(of: path) }

    @inline(__always)
    private func put(_ key: Key, _ value: @autoclosure () -> Any, _ pushValue: () throws -> Void) throws {
        try encoding.put(
            in: object, key: key, path: path, value: value(),
            name: { () throws(JSException) in try encoding.pushName(for: key, path: path) }, value: pushValue)
    }

    private func number(_ number: Double, forKey key: Key) throws {
        try put(key, number) { try encoding.stack.pushNumber(number) }
    }

    private func number(_ integer: Int64, forKey key: Key) throws {
        try put(key, integer) { try encoding.stack.pushNumber(ValueEncoding.number(integer)) }
    }

    private func number(_ integer: UInt64, forKey key: Key) throws {
        try put(key, integer) { try encoding.stack.pushNumber(ValueEncoding.number(integer)) }
    }

    mutating func encodeNil(forKey key: Key) throws { try put(key, Optional<Any>.none as Any) { try encoding.pushNull() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(key, value) { try encoding.pushBoolean(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(key, value) { try encoding.stack.pushString(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(key, value) { try encoding.stack.pushNumber(value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(key, value) { try encoding.stack.pushNumber(Double(value)) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { try number(Int64(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try number(Double(value), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try number(Double(value), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try number(Double(value), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try number(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try number(UInt64(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try number(Double(value), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try number(Double(value), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try number(Double(value), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try number(value, forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try put(key, value) { try encoding.push(value, path: CodingPath(parent: path, key: key)) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let index = attach(.object, key)
        return KeyedEncodingContainer(KeyedValueEncoder<NestedKey>(encoding: encoding, path: CodingPath(parent: path, key: key), object: index))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedValueEncoder(encoding: encoding, path: CodingPath(parent: path, key: key), array: attach(.array, key))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: PlainCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: some CodingKey) -> any Encoder {
        let slot = ValueEncoder.AttachedSlot(parent: object, name: .property(encoding.name(for: key, path: path)))
        return ValueEncoder(encoding: encoding, path: CodingPath(parent: path, key: key), destination: .attached(slot))
    }

    private func attach(_ kind: ValueEncoding.ContainerKind, _ key: Key) -> Int32 {
        encoding.attachNew(kind, to: object, path: CodingPath(parent: path, key: key)) { () throws(JSException) in
            try encoding.pushName(for: key, path: path)
        }
    }
}

/// A JavaScript array's elements, appended in order.
struct UnkeyedValueEncoder: UnkeyedEncodingContainer {
    let encoding: ValueEncoding
    let path: CodingPath?
    /// The array's stack index (-1: it could not be made).
    let array: Int32

    var codingPath: [any CodingKey] { CodingPath.keys(of: path) }

    /// The array's length: read from the array itself, so that two containers asked of the
    /// same encoder append to the same end.
    var count: Int { array >= 0 ? Int(duk_get_length(encoding.ctx, array)) : 0 }

    @inline(__always)
    private func append(_ value: @autoclosure () -> Any, _ pushValue: () throws -> Void) throws {
        let position = count
        try encoding.put(
            in: array, key: PlainCodingKey(index: position), path: path, value: value(),
            name: { () throws(JSException) in try encoding.stack.pushNumber(Double(position)) }, value: pushValue)
    }

    private func number(_ number: Double) throws {
        try append(number) { try encoding.stack.pushNumber(number) }
    }

    private func number(_ integer: Int64) throws {
        try append(integer) { try encoding.stack.pushNumber(ValueEncoding.number(integer)) }
    }

    private func number(_ integer: UInt64) throws {
        try append(integer) { try encoding.stack.pushNumber(ValueEncoding.number(integer)) }
    }

    mutating func encodeNil() throws { try append(Optional<Any>.none as Any) { try encoding.pushNull() } }
    mutating func encode(_ value: Bool) throws { try append(value) { try encoding.pushBoolean(value) } }
    mutating func encode(_ value: String) throws { try append(value) { try encoding.stack.pushString(value) } }
    mutating func encode(_ value: Double) throws { try append(value) { try encoding.stack.pushNumber(value) } }
    mutating func encode(_ value: Float) throws { try append(value) { try encoding.stack.pushNumber(Double(value)) } }
    mutating func encode(_ value: Int) throws { try number(Int64(value)) }
    mutating func encode(_ value: Int8) throws { try number(Double(value)) }
    mutating func encode(_ value: Int16) throws { try number(Double(value)) }
    mutating func encode(_ value: Int32) throws { try number(Double(value)) }
    mutating func encode(_ value: Int64) throws { try number(value) }
    mutating func encode(_ value: UInt) throws { try number(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt16) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt32) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt64) throws { try number(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let position = count
        try append(value) { try encoding.push(value, path: CodingPath(parent: path, key: PlainCodingKey(index: position))) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (index, nestedPath) = attach(.object)
        return KeyedEncodingContainer(KeyedValueEncoder<NestedKey>(encoding: encoding, path: nestedPath, object: index))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (index, nestedPath) = attach(.array)
        return UnkeyedValueEncoder(encoding: encoding, path: nestedPath, array: index)
    }

    mutating func superEncoder() -> any Encoder {
        let position = count
        // The element exists at once (null until the encoder defines it), so that what is
        // appended next goes after it, as with Foundation's encoders.
        _ = try? append(Optional<Any>.none as Any) { try encoding.pushNull() }
        let slot = ValueEncoder.AttachedSlot(parent: array, name: .element(position))
        return ValueEncoder(
            encoding: encoding, path: CodingPath(parent: path, key: PlainCodingKey(index: position)), destination: .attached(slot))
    }

    private func attach(_ kind: ValueEncoding.ContainerKind) -> (Int32, CodingPath) {
        let position = count
        let nestedPath = CodingPath(parent: path, key: PlainCodingKey(index: position))
        let index = encoding.attachNew(kind, to: array, path: nestedPath) { () throws(JSException) in
            try encoding.stack.pushNumber(Double(position))
        }
        return (index, nestedPath)
    }
}

/// One value: pushed at the encoder's index, or defined on its parent (`superEncoder`).
struct SingleValueEncoder: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }
    private var encoding: ValueEncoding { encoder.encoding }

    private func put(_ value: @autoclosure () -> Any, _ pushValue: () throws -> Void) throws {
        if let failure = encoding.failure { throw failure }
        switch encoder.destination {
        case .top(let base):
            guard duk_get_top(encoding.ctx) == base else { throw twice(value()) }
            do {
                try pushValue()
            } catch let error as JSException {
                throw ValueEncoding.encodingError(error, value: value(), path: codingPath)
            } catch let error as ValueEncoding.Unrepresentable {
                throw EncodingError.invalidValue(value(), EncodingError.Context(codingPath: codingPath, debugDescription: error.description))
            }
        case .attached(let slot):
            guard slot.index == nil else { throw twice(value()) }
            let key = encoder.path?.key ?? PlainCodingKey.superKey
            try encoding.put(in: slot.parent, key: key, path: encoder.path?.parent, value: value(), name: { () throws(JSException) in
                try encoding.push(slot.name)
            }, value: pushValue)
            slot.index = -2
        }
    }

    private func twice(_ value: Any) -> EncodingError {
        EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: codingPath, debugDescription: "a single value container encoded a second value"))
    }

    private func number(_ number: Double) throws {
        try put(number) { try encoding.stack.pushNumber(number) }
    }

    private func number(_ integer: Int64) throws {
        try put(integer) { try encoding.stack.pushNumber(ValueEncoding.number(integer)) }
    }

    private func number(_ integer: UInt64) throws {
        try put(integer) { try encoding.stack.pushNumber(ValueEncoding.number(integer)) }
    }

    mutating func encodeNil() throws { try put(Optional<Any>.none as Any) { try encoding.pushNull() } }
    mutating func encode(_ value: Bool) throws { try put(value) { try encoding.pushBoolean(value) } }
    mutating func encode(_ value: String) throws { try put(value) { try encoding.stack.pushString(value) } }
    mutating func encode(_ value: Double) throws { try put(value) { try encoding.stack.pushNumber(value) } }
    mutating func encode(_ value: Float) throws { try put(value) { try encoding.stack.pushNumber(Double(value)) } }
    mutating func encode(_ value: Int) throws { try number(Int64(value)) }
    mutating func encode(_ value: Int8) throws { try number(Double(value)) }
    mutating func encode(_ value: Int16) throws { try number(Double(value)) }
    mutating func encode(_ value: Int32) throws { try number(Double(value)) }
    mutating func encode(_ value: Int64) throws { try number(value) }
    mutating func encode(_ value: UInt) throws { try number(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt16) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt32) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt64) throws { try number(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try put(value) { try encoding.push(value, path: encoder.path) }
    }
}
