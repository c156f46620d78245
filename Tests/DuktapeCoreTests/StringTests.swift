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
}
