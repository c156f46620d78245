import CDuktape
import Foundation
import Testing

@testable import DuktapeCore

/// DESIGN invariant 5: strings are JS strings.
@Suite("Strings")
struct StringTests {
    let context = JSContext()!
    let length: JSValue
    let codeUnits: JSValue

    init() {
        length = context.evaluateScript("(function (s) { return s.length })")
        codeUnits = context.evaluateScript("(function (s) { var r = []; for (var i = 0; i < s.length; i++) r.push(s.charCodeAt(i)); return r.join(',') })")
    }

    @Test(arguments: [
        ("", 0), ("ascii", 5), ("é", 1), ("日本", 2), ("😀", 2), ("a😀b", 4), ("👩‍👩‍👧", 8), ("\u{10FFFF}", 2),
    ])
    func swiftStringsHaveUTF16Length(string: String, expected: Int32) {
        #expect(length.call(withArguments: [string]).toInt32() == expected)
    }

    @Test func nonBMPBecomesASurrogatePair() {
        #expect(codeUnits.call(withArguments: ["😀"]).toString() == "55357,56832")
        // A non-BMP character written in source behaves the same.
        #expect(context.evaluateScript("'😀'.length").toInt32() == 2)
        #expect(context.evaluateScript("'😀'.charCodeAt(1)").toInt32() == 0xDE00)
    }

    @Test(arguments: [
        ("'\\uD83D\\uDE00'", "😀"),
        ("String.fromCharCode(0xD83D, 0xDE00) + '!'", "😀!"),
        ("'a\\uD83Db'", "a\u{FFFD}b"),
        ("'\\uDE00x'", "\u{FFFD}x"),
        ("'\\uD83D'", "\u{FFFD}"),
        ("'\\uD83D\\uD83D\\uDE00'", "\u{FFFD}😀"),
        ("'\\uDE00\\uD83D'", "\u{FFFD}\u{FFFD}"),
        ("'\\uD7FF\\uE000'", "\u{D7FF}\u{E000}"),
        ("'한국어'", "한국어"),
    ])
    func javaScriptStringsReadBackAsScalars(script: String, expected: String) {
        #expect(context.evaluateScript(script).toString() == expected)
    }

    @Test func roundTripsKeepEveryScalar() {
        let samples = ["", "plain", "tab\tnewline\n", "é😀日本\u{10FFFF}", "👩‍👩‍👧 family", String(repeating: "😀a", count: 1000)]
        let identity = context.evaluateScript("(function (s) { return s })")!
        for sample in samples {
            #expect(identity.call(withArguments: [sample]).toString() == sample)
            #expect(JSValue(object: sample, in: context).toObject() as? String == sample)
        }
    }

    @Test func embeddedNULsSurviveBothWays() {
        let withNUL = "a\0b\0"
        #expect(length.call(withArguments: [withNUL]).toInt32() == 4)
        #expect(codeUnits.call(withArguments: [withNUL]).toString() == "97,0,98,0")
        #expect(context.evaluateScript("'x\\u0000y'").toString() == "x\0y")
        context.setObject(withNUL, forKeyedSubscript: "k\0ey")
        #expect(context.objectForKeyedSubscript("k\0ey").toString() == withNUL)
        #expect(context.evaluateScript("this['k\\u0000ey'].length").toInt32() == 4)
        // NULs in source code too.
        #expect(context.evaluateScript("'\0'.length").toInt32() == 1)
    }

    @Test func largeStringsCrossIntact() {
        let big = String(repeating: "0123456789", count: 1_000_000)
        #expect(length.call(withArguments: [big]).toInt32() == 10_000_000)
        let made = context.evaluateScript("new Array(1000001).join('ab')")!
        #expect(made.toString()?.utf8.count == 2_000_000)
    }

    @Test func propertyNamesWithNonBMPCharacters() {
        let object = JSValue(newObjectIn: context)!
        object.setValue(1, forProperty: "😀key")
        #expect(context.evaluateScript("(function (o) { return Object.keys(o)[0].length })").call(withArguments: [object]).toInt32() == 5)
        #expect((object.toDictionary()?.keys.first?.base as? String) == "😀key")
    }

    // The fast paths (StringCoding, strings.c): a string without the sequences that differ
    // between UTF-8 and the engine's CESU-8 crosses as it is, with a scan in 256-byte blocks (an
    // ASCII test, then a test for 4-byte leads) one way and UTF-8 validation the other. Each
    // boundary of those scans, each kind of Swift string, and the fallbacks.

    /// Lengths and positions around the scan's blocks and Swift's inline strings (15 bytes).
    static let boundaries = [0, 1, 14, 15, 16, 17, 63, 64, 65, 255, 256, 257, 511, 512, 513, 4095, 4096]

    @Test(arguments: [false, true])
    func astralCharactersAtEveryBoundaryCrossIntact(nonASCIIPrefix: Bool) {
        let identity = context.evaluateScript("(function (s) { return s })")!
        for total in StringTests.boundaries where total > 0 {
            for position in StringTests.boundaries where position < total {
                let head = (nonASCIIPrefix ? "é" : "") + String(repeating: "a", count: position)
                let string = head + "😀" + String(repeating: "b", count: total - position - 1)
                let units = string.utf16.map(String.init).joined(separator: ",")
                #expect(codeUnits.call(withArguments: [string]).toString() == units, "\(total) \(position)")
                #expect(identity.call(withArguments: [string]).toString() == string, "\(total) \(position)")
            }
        }
    }

    @Test func onlyAstralCharacterIsTheLastBytes() {
        for count in [15, 16, 255, 256, 1_048_572] {
            let string = String(repeating: "x", count: count) + "😀"
            #expect(length.call(withArguments: [string]).toInt32() == Int32(count + 2))
            #expect(context.evaluateScript("(function (s) { return s.charCodeAt(s.length - 1) })")
                .call(withArguments: [string]).toInt32() == 0xDE00)
        }
    }

    @Test func javaScriptStringsWithSurrogatesAtEveryBoundary() {
        let tails: [(units: [Int], swift: String)] = [
            ([0xD83D, 0xDE00], "😀"), ([0xD83D], "\u{FFFD}"), ([0xDE00], "\u{FFFD}"),
            ([0xD55C], "한"), ([0xD83D, 0xD55C], "\u{FFFD}한"), ([0xD83D, 0xDE00, 0x7A], "😀z"),
        ]
        let make = context.evaluateScript("(function (n, units) { return 'x'.repeat(n) + String.fromCharCode.apply(null, units) })")!
        for count in StringTests.boundaries {
            for tail in tails {
                let made = make.call(withArguments: [count, tail.units]).toString()
                #expect(made == String(repeating: "x", count: count) + tail.swift, "\(count) \(tail.units)")
            }
        }
    }

    /// A Swift string whose storage records "all ASCII" crosses without the scan: the flag must
    /// be what Swift sets for the usual ways of making one, and the bytes must be the string's.
    @Test func swiftStringsKnownToBeASCIICrossAsTheirBytes() throws {
        for count in StringTests.boundaries {
            let repeated = String(repeating: "a", count: count)
            let decoded = String(decoding: Array(repeating: UInt8(ascii: "b"), count: count), as: UTF8.self)
            let prefix = String((repeated + "😀").prefix(count))
            var edited = repeated + "😀"
            edited.removeLast()  // ASCII again, but not known to be: scanned
            for string in [repeated, decoded, prefix, edited] {
                let bytes = StringCoding.withEngineBytes(string) { pointer, count in
                    Array(UnsafeRawBufferPointer(start: pointer, count: count))
                }
                #expect(bytes == Array(string.utf8), "\(count)")
                #expect(length.call(withArguments: [string]).toInt32() == Int32(count))
            }
            #if compiler(>=6.2) && !canImport(Darwin)
            #expect(repeated.utf8Span.isKnownASCII && decoded.utf8Span.isKnownASCII && prefix.utf8Span.isKnownASCII)
            #endif
        }
        let literal = "a literal longer than the fifteen bytes kept inline"
        #expect(JSValue(object: literal, in: context).toString() == literal)
    }

    /// A longer string read into Swift records what it was found to be (valid UTF-8, all ASCII)
    /// on the engine's string; the next read copies it without a scan, and must read the same.
    /// Strings that are not UTF-8 (surrogate pairs, lone surrogates) are never marked.
    @Test func aStringReadTwiceReadsTheSameAndIsMarkedOnlyWhenValid() throws {
        let make = context.evaluateScript("""
            (function (n, kind) {
                var body = 'x'.repeat(n);
                switch (kind) {
                case 0: return body;
                case 1: return body + 'é한';
                case 2: return body + '\\ud83d\\ude00';
                case 3: return body + '\\ud83d';
                default: return body + new TextDecoder('latin1').decode(new Uint8Array([0xff]));
                }
            })
            """)!
        for count in [16, 17, 64, 4096] {
            for kind in 0..<5 {
                let value = make.call(withArguments: [count, kind])!
                let first = value.toString() ?? ""
                let second = value.toString() ?? ""
                #expect(Array(first.utf16) == Array(second.utf16), "\(count) \(kind)")
                #expect(first.utf16.count == Int(length.call(withArguments: [value]).toInt32()) || kind == 2, "\(count) \(kind)")
                let known = try context.withStack { stack throws(JSException) -> Int32 in
                    try stack.push(value)
                    var length = 0
                    var known: Int32 = 0
                    _ = cduk_string_bytes(stack.ctx, -1, &length, &known)
                    return known
                }
                switch kind {
                case 0: #expect(known == CDUK_STRING_UTF8 | CDUK_STRING_ASCII)
                case 1, 4: #expect(known == CDUK_STRING_UTF8)  // U+00FF (kind 4) is two UTF-8 bytes
                default: #expect(known == 0, "\(kind)")  // surrogate encodings: transcoded each time
                }
            }
        }
    }

    @Test func everyKindOfSwiftStringCrosses() throws {
        let long = String(repeating: "0123456789abcdef", count: 40)
        let source = "é" + long + "😀" + long + "한"
        let bridged = NSString(string: source)
        let decoded = try #require(String(data: Data(source.utf8), encoding: .utf8))
        let sliced = source.dropFirst(3).dropLast(2)
        let expected = source.utf16.map(String.init).joined(separator: ",")
        #expect(codeUnits.call(withArguments: [bridged]).toString() == expected)
        #expect(codeUnits.call(withArguments: [decoded]).toString() == expected)
        #expect(JSValue(object: bridged, in: context).toString() == source)
        #expect(codeUnits.call(withArguments: [String(sliced)]).toString()
            == sliced.utf16.map(String.init).joined(separator: ","))
        #expect(JSValue(object: sliced, in: context).toString() == String(sliced))
        for small in ["😀", "a😀", "0123456789a😀", "0123456789ab😀"] {  // 4, 5, 15 and 16 bytes
            #expect(codeUnits.call(withArguments: [small]).toString() == small.utf16.map(String.init).joined(separator: ","))
        }
    }

    @Test(arguments: [
        ([0xFF, 0x61], "\u{FFFD}a"),
        ([0xED, 0xA0, 0x41], "\u{FFFD}\u{FFFD}A"),  // a surrogate's lead without its third byte
        ([0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80], "\u{10000}"),
        ([0xED, 0xB0, 0x80, 0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}"),
        ([0xED, 0x95, 0x9C], "한"),
        ([0xF0, 0x9F, 0x98, 0x80], "😀"),  // a 4-byte sequence (pushed from C) stays one scalar
        ([0xC0, 0x80], "\u{FFFD}\u{FFFD}"),
    ] as [([UInt8], String)])
    func engineBytesThatAreNotUTF8AreRepaired(bytes: [UInt8], expected: String) {
        for padding in [0, 20, 300] {  // inline, allocated, past the first block
            let pad = [UInt8](repeating: 0x78, count: padding)
            let decoded = (pad + bytes + pad).withUnsafeBytes { StringCoding.string(fromEngineBytes: $0) }
            let x = String(repeating: "x", count: padding)
            #expect(decoded == x + expected + x, "\(bytes) \(padding)")
        }
    }

    /// JS to Swift: an ASCII prefix ending at each boundary of the scan's blocks, then each kind
    /// of sequence (valid UTF-8 of every length, CESU-8's pair and lone surrogate, malformed and
    /// cut sequences, NUL), then ASCII again or nothing.
    @Test func engineBytesAfterAnASCIIPrefixAtEveryBoundary() {
        let surrogates: [([UInt8], String)] = [([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], "😀"), ([0xED, 0xA0, 0xBD], "\u{FFFD}")]
        let others: [[UInt8]] = [
            [0xC3, 0xA9], [0xED, 0x95, 0x9C], [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xFF], [0xC3], [0xE0, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0x00],
        ]
        let tails = surrogates + others.map { ($0, String(decoding: $0, as: UTF8.self)) }
        for prefix in StringTests.boundaries {
            for (tail, expected) in tails {
                for suffix in [0, 1, 300] {
                    let bytes = [UInt8](repeating: 0x78, count: prefix) + tail + [UInt8](repeating: 0x79, count: suffix)
                    let decoded = bytes.withUnsafeBytes { StringCoding.string(fromEngineBytes: $0) }
                    let x = String(repeating: "x", count: prefix), y = String(repeating: "y", count: suffix)
                    // UTF-16 too: a string flagged ASCII by mistake still compares equal.
                    #expect(decoded == x + expected + y, "\(prefix) \(tail) \(suffix)")
                    #expect(Array(decoded.utf16) == Array((x + expected + y).utf16), "\(prefix) \(tail) \(suffix)")
                }
            }
        }
    }

    /// JS to Swift against the route without the ASCII scan (Swift's validation of the whole,
    /// else the transcoder), on random bytes: long ASCII runs between the bytes that start,
    /// continue, cut or break sequences.
    @Test func engineBytesDecodeAsWithoutTheScan() {
        func reference(_ bytes: [UInt8]) -> String {
            if let valid = String(validating: bytes, as: UTF8.self) { return valid }
            return String(unsafeUninitializedCapacity: bytes.count) { out in
                bytes.withUnsafeBufferPointer { source in
                    guard let base = source.baseAddress, let target = out.baseAddress else { return 0 }
                    return cduk_cesu8_to_utf8(base, source.count, target)
                }
            }
        }
        let pool: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                             0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        // Valid sequences of each length, and CESU-8's pair and lone surrogate.
        let sequences: [[UInt8]] = [[0xC3, 0xA9], [0xE1, 0x88, 0xB4], [0xEE, 0x80, 0x80], [0xF1, 0x80, 0x80, 0x80],
                                    [0xF0, 0x9F, 0x98, 0x80], [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], [0xED, 0xB0, 0x80]]
        var generator = SeededGenerator(seed: 0x5CA7)
        for round in 0..<3_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                // Half of the rounds end their first ASCII run on a scan block's edge.
                let run = round % 2 == 0 && bytes.isEmpty ? 256 * Int.random(in: 1...2, using: &generator) - Int.random(in: 0...1, using: &generator)
                    : Int.random(in: 0...300, using: &generator)
                bytes += [UInt8](repeating: 0x61, count: run)
                for _ in 0..<Int.random(in: 0...4, using: &generator) {
                    if Bool.random(using: &generator) {
                        bytes += sequences.randomElement(using: &generator) ?? []
                    } else {
                        bytes.append(pool.randomElement(using: &generator) ?? 0)
                    }
                }
            }
            let decoded = bytes.withUnsafeBytes { StringCoding.string(fromEngineBytes: $0) }
            let expected = reference(bytes)
            #expect(decoded == expected, "\(bytes)")
            #expect(Array(decoded.utf16) == Array(expected.utf16), "\(bytes)")
        }
    }

    @Test func engineBytesAreCESU8() {
        // The reference: each UTF-16 code unit as its own 1-, 2- or 3-byte sequence.
        func cesu8(_ string: String) -> [UInt8] {
            string.utf16.flatMap { unit -> [UInt8] in
                let value = UInt32(unit)
                switch value {
                case ..<0x80: return [UInt8(value)]
                case ..<0x800: return [UInt8(0xC0 | value >> 6), UInt8(0x80 | value & 0x3F)]
                default: return [UInt8(0xE0 | value >> 12), UInt8(0x80 | (value >> 6) & 0x3F), UInt8(0x80 | value & 0x3F)]
                }
            }
        }
        var generator = SeededGenerator(seed: 38)
        let pieces = ["a", "é", "한", "😀", "\u{10FFFF}", "\0", String(repeating: "z", count: 250)]
        for _ in 0..<200 {
            let string = (0..<Int.random(in: 0...40, using: &generator))
                .map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            let bytes = StringCoding.withEngineBytes(string) { pointer, count in
                Array(UnsafeRawBufferPointer(start: pointer, count: count))
            }
            #expect(bytes == cesu8(string))
            #expect(bytes.withUnsafeBytes { StringCoding.string(fromEngineBytes: $0) } == string)
        }
    }
}

/// A repeatable generator (SplitMix64) for the randomized string tests.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
