import DuktapeCore
import Foundation

/// What every harness does with a value a script produced: every conversion of the public API,
/// each of which must return (a value or nil, possibly reporting an exception), never trap.
public func exercise(_ value: JSValue?, depth: Int = 0) {
    guard let value else { return }
    _ = (value.isUndefined, value.isNull, value.isBoolean, value.isNumber, value.isString)
    _ = (value.isSymbol, value.isObject, value.isArray, value.isDate, value.isBigInt)
    _ = value.toBool()
    _ = value.toDouble()
    _ = value.toInt32()
    _ = value.toUInt32()
    _ = value.toInt64()
    _ = value.toUInt64()
    _ = value.toNumber()
    _ = value.toString()
    _ = value.toDate()
    _ = value.toArray()
    _ = value.toDictionary()
    _ = value.toObject()
    _ = value.toPoint()
    _ = value.toRect()
    _ = value.description
    _ = (String.fromJSValue(value), Int.fromJSValue(value), Double.fromJSValue(value))
    _ = ([String: Int].fromJSValue(value), [Double].fromJSValue(value), Date.fromJSValue(value))
    _ = value.forProperty("length")
    _ = value.atIndex(0)
    _ = value.hasProperty("constructor")
    _ = value.isEqual(to: value)
    _ = value.isEqualWithTypeCoercion(to: 1)
    // Convert what came out back in: every result must be a valid argument.
    if let object = value.toObject(), let context = value.context {
        _ = JSValue(object: object, in: context)
    }
    if depth == 0, value.isObject {
        _ = value.call(withArguments: [1, "two", NSNull()])
        _ = value.construct(withArguments: [])
        exercise(value.forProperty("then"), depth: 1)
    }
}

/// A bounded, deterministic reader of fuzzer bytes.
public struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func uint32() -> UInt32 {
        (0..<4).reduce(0) { value, _ in value << 8 | UInt32(byte()) }
    }

    public mutating func uint64() -> UInt64 {
        UInt64(uint32()) << 32 | UInt64(uint32())
    }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + count)
        defer { offset = end }
        return Array(bytes[min(offset, end)..<end])
    }

    /// The rest of the input as text (invalid UTF-8 repaired with U+FFFD).
    public mutating func remainingText() -> String {
        String(decoding: bytes(bytes.count), as: UTF8.self)
    }
}
