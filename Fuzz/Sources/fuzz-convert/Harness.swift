import DuktapeCore
import Foundation
import FuzzSupport

/// Harness 2: random Swift values (nested arrays and dictionaries, strings with non-BMP
/// characters, NULs and odd keys, integers, doubles with every bit pattern, dates, data)
/// converted to JavaScript and back with `toObject()`; the result must equal the input under
/// the README's conversion tables. Values nested deeper than the 500-level limit must fail
/// cleanly instead. A mismatch traps, which libFuzzer reports with the input.

func fuzzConvert(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    var reader = ByteReader(data, size)
    let model = Model.generate(&reader, depth: 0)
    guard let context = JSContext(sandbox: JSSandbox(memoryLimit: 64 << 20, executionTimeLimit: 1)) else { return 0 }
    context.exceptionHandler = { context, _ in context?.exception = nil }

    let value = JSValue(object: model.swiftValue, in: context)
    if model.depth > 490 {
        // At or past the 500-level limit: a RangeError, or a value; never a crash.
        exercise(value)
        return 0
    }
    guard let back = value?.toObject() else { fail("conversion to JavaScript failed", model, nil) }
    if !model.matches(back) { fail("round trip differs", model, back) }

    // The same value as a property and through JSValueConvertible-free paths.
    context.setObject(model.swiftValue, forKeyedSubscript: "v")
    guard let again = context.objectForKeyedSubscript("v")?.toObject(), model.matches(again) else {
        fail("round trip through a global differs", model, context.objectForKeyedSubscript("v")?.toObject())
    }
    exercise(context.evaluateScript("JSON.parse(JSON.stringify([v]))[0]"))

    // Shared: the same object at several places converts once, to equal values everywhere.
    if model.depth < 200 {
        let shared = context.evaluateScript("var w = [v, v, { a: v, b: [v] }]; w.push(w[2]); w")?.toObject()
        guard let items = shared as? [Any], items.count == 4, model.matches(items[0]), model.matches(items[1]),
            let third = items[2] as? [String: Any], let a = third["a"], model.matches(a),
            let b = third["b"] as? [Any], b.count == 1, model.matches(b[0]),
            let fourth = items[3] as? [String: Any], fourth.count == 2
        else { fail("shared round trip differs", model, shared) }
    }
    return 0
}

private func fail(_ what: String, _ model: Model, _ back: Any?) -> Never {
    let report = "fuzz-convert: \(what)\n  in:  \(model)\n  out: \(String(describing: back).prefix(2000))\n"
    _ = report.withCString { write(2, $0, strlen($0)) }
    abort()
}

/// A Swift value with what `toObject()` must give back for it.
indirect enum Model: CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case date(Double)
    case data([UInt8])
    case array([Model])
    case dictionary([String: Model])
    case chain(Int)

    static let keys = ["", "__proto__", "constructor", "length", "0", "4294967295", "-1", "toString", "valueOf", "a\u{0}b", "😀", "\u{FFFD}", "prototype"]

    static func generate(_ reader: inout ByteReader, depth: Int) -> Model {
        let tag = reader.byte()
        switch tag % 10 {
        case 0: return .null
        case 1: return .bool(tag & 0x80 != 0)
        case 2: return .int(Int(truncatingIfNeeded: Int64(bitPattern: reader.uint64())))
        case 3: return .double(Double(bitPattern: reader.uint64()))
        case 4: return .string(string(&reader))
        case 5:
            // Any millisecond count JavaScript's Date accepts, with a sub-millisecond part.
            let ms = Double(Int64(bitPattern: reader.uint64()) % 8_640_000_000_000_000)
            return .date(ms / 1000 + Double(reader.byte()) / 256_000)
        case 6: return .data(reader.bytes(Int(reader.byte())))
        case 7 where depth < 40:
            return .array((0..<Int(reader.byte() % 8)).map { _ in generate(&reader, depth: depth + 1) })
        case 8 where depth < 40:
            var dictionary: [String: Model] = [:]
            for _ in 0..<Int(reader.byte() % 8) {
                let pick = reader.byte()
                let key = pick < 128 ? keys[Int(pick) % keys.count] : string(&reader)
                dictionary[key] = generate(&reader, depth: depth + 1)
            }
            return .dictionary(dictionary)
        case 9: return .chain(Int(reader.byte()) * 3)
        default: return .null
        }
    }

    static func string(_ reader: inout ByteReader) -> String {
        var text = ""
        let count = Int(reader.byte() % 24)
        for _ in 0..<count {
            let pick = reader.byte()
            let scalar: UInt32 = switch pick % 8 {
            case 0: 0
            case 1: UInt32(pick) & 0x7F
            case 2: 0x80 + reader.uint32() % 0x780
            case 3: 0x800 + reader.uint32() % (0xD800 - 0x800)
            case 4: 0xE000 + reader.uint32() % 0x2000
            case 5: 0x10000 + reader.uint32() % 0x100000
            case 6: [0xFFFD, 0xFEFF, 0x2028, 0xD7FF, 0xE000, 0x10FFFF, 0xFFFF][Int(pick >> 3) % 7]
            default: 0x1F600 + UInt32(pick >> 3)
            }
            text.unicodeScalars.append(Unicode.Scalar(scalar) ?? "?")
        }
        return text
    }

    var depth: Int {
        switch self {
        case .array(let items): 1 + (items.map(\.depth).max() ?? 0)
        case .dictionary(let entries): 1 + (entries.values.map(\.depth).max() ?? 0)
        case .chain(let levels): levels + 1
        default: 0
        }
    }

    var swiftValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .date(let seconds): Date(timeIntervalSince1970: seconds)
        case .data(let bytes): Data(bytes)
        case .array(let items): items.map(\.swiftValue)
        case .dictionary(let entries): entries.mapValues(\.swiftValue)
        case .chain(let levels): (0..<levels).reduce([Any]()) { inner, _ in [inner] }
        }
    }

    func matches(_ value: Any) -> Bool {
        switch self {
        case .null: return value is NSNull
        case .bool(let expected): return type(of: value) == Bool.self && (value as? Bool) == expected
        case .int(let expected): return (value as? NSNumber)?.doubleValue == Double(expected)
        case .double(let expected):
            guard let number = value as? NSNumber else { return false }
            return expected.isNaN ? number.doubleValue.isNaN : number.doubleValue == expected
        case .string(let expected): return (value as? String) == expected
        case .date(let seconds):
            // Sub-milliseconds are dropped, never a whole millisecond. A Date far from 2001 is
            // itself coarser than that (its Double holds 0.24 ms steps in the year 63,000).
            guard let date = value as? Date else { return false }
            let dropped = seconds - date.timeIntervalSince1970
            let slack = max(1e-6, 4 * (seconds.magnitude + 978_307_200).ulp)
            return dropped > -slack && dropped < 0.001 + slack
        case .data(let bytes): return (value as? Data).map { Array($0) } == bytes
        case .array(let items):
            guard let array = value as? [Any], array.count == items.count else { return false }
            return zip(items, array).allSatisfy { $0.matches($1) }
        case .dictionary(let entries):
            guard let dictionary = value as? [String: Any], dictionary.count == entries.count else { return false }
            return entries.allSatisfy { key, model in dictionary[key].map { model.matches($0) } ?? false }
        case .chain(let levels):
            var current = value
            for _ in 0..<levels {
                guard let array = current as? [Any], array.count == 1 else { return false }
                current = array[0]
            }
            return (current as? [Any])?.isEmpty == true
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .int(let value): "int \(value)"
        case .double(let value): "double \(value) (\(value.bitPattern))"
        case .string(let value): "\(value.unicodeScalars.map { String($0.value, radix: 16) })"
        case .date(let seconds): "date \(seconds)"
        case .data(let bytes): "data \(bytes)"
        case .array(let items): "[\(items.map(\.description).joined(separator: ", "))]"
        case .dictionary(let entries): "{\(entries.map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", "))}"
        case .chain(let levels): "chain \(levels)"
        }
    }
}
