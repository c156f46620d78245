import Foundation
import Testing

@testable import DuktapeWeb

@Suite("MIME types and charsets")
struct TextAndMIMETests {
    @Test func mimeTypesParseAsWHATWGSays() throws {
        let html = try #require(MIMEType(#"Text/HTML ; Charset="utf-8" ; q=1"#))
        #expect(html.essence == "text/html" && html.parameter("charset") == "utf-8" && html.parameter("q") == "1")
        #expect(MIMEType(#"a/b; p="x\"y\\"; p=second"#)?.parameter("p") == #"x"y\"#)  // escapes; the first wins
        #expect(MIMEType("a/b;;;charset=x")?.parameter("charset") == "x")
        #expect(MIMEType("a/b; =x; novalue; empty=")?.parameters.isEmpty == true)
        for invalid in ["", "text", "text/", "/html", " / ", "te xt/html", "text/ht(ml", "ü/x"] {
            #expect(MIMEType(invalid) == nil, "\(invalid)")
        }
    }

    @Test func bodiesDecodeByTheirCharset() {
        #expect(TextCharset(contentType: "text/plain; charset=ISO-8859-1").decode(Data([0x63, 0xE9, 0x80, 0x81])) == "c\u{e9}\u{20AC}\u{81}")
        #expect(TextCharset(contentType: "text/plain; charset=us-ascii").decode(Data([0xA0])) == "\u{a0}")
        #expect(TextCharset(contentType: "text/plain; charset=utf-16be").decode(Data([0x00, 0x41, 0xD8, 0x3D, 0xDE, 0x00])) == "A\u{1F600}")
        #expect(TextCharset(contentType: "text/plain; charset=utf-16").decode(Data([0x41, 0x00, 0x42])) == "A\u{FFFD}")
        // A byte-order mark wins over the label; an unknown label or none is UTF-8.
        #expect(TextCharset(contentType: "text/plain; charset=latin1").decode(Data([0xEF, 0xBB, 0xBF, 0xC3, 0xA9])) == "\u{e9}")
        #expect(TextCharset(contentType: "text/plain").decode(Data([0xFF, 0xFE, 0x41, 0x00])) == "A")
        #expect(TextCharset(contentType: "text/plain; charset=klingon").decode(Data([0xC3, 0xA9, 0xFF])) == "\u{e9}\u{FFFD}")
        #expect(TextCharset(contentType: nil).decode(Data()) == "")
        #expect(TextCharset(contentType: "garbage").decode(Data("ok".utf8)) == "ok")
    }

    /// The multi-byte and other converted charsets: a byte that does not begin a valid sequence
    /// is U+FFFD and decoding goes on after it; a sequence cut off at the end is U+FFFD (an
    /// outside review: one bad byte made Foundation's decoding give nothing, and the whole body
    /// was read as UTF-8).
    @Test(arguments: [
        ("shift_jis", [0x83, 0x65, 0x83, 0x58, 0x83, 0x67], "テスト"),
        ("shift_jis", [0x83, 0x65, 0xFF, 0x83, 0x58, 0x41, 0x83], "テ\u{FFFD}スA\u{FFFD}"),
        ("euc-jp", [0xA5, 0xC6, 0xA5, 0xB9, 0xA5, 0xC8], "テスト"),
        ("euc-jp", [0xA5, 0xC6, 0xFF, 0xA5, 0xB9, 0xA5], "テ\u{FFFD}ス\u{FFFD}"),
        ("iso-2022-jp", [0x1B, 0x24, 0x42, 0x25, 0x46, 0x25, 0x39, 0x1B, 0x28, 0x42, 0x41], "テスA"),
        ("windows-1251", [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "Привет"),
        ("iso-8859-2", [0x50, 0xF8, 0xED, 0x6C, 0x69, 0x9A], "Příli\u{9A}"),
        ("shift_jis", [], ""),
    ] as [(String, [UInt8], String)])
    func convertedCharsetsReplaceWhatIsNotValidAndGoOn(_ charset: String, _ bytes: [UInt8], _ text: String) {
        #expect(TextCharset(contentType: "text/plain; charset=\(charset)").decode(Data(bytes)) == text)
    }
}
