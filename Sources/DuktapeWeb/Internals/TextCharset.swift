import Foundation

/// Decoding a body's bytes to text by the charset its `Content-Type` names (WHATWG Encoding's
/// labels for the encodings a headless host meets), UTF-8 when it names none or one we do not
/// know. A byte-order mark overrides the label, as the Encoding standard's decode does.
enum TextCharset {
    /// `converted`: an encoding glibc's iconv converts (its iconv name).
    case utf8, utf16LittleEndian, utf16BigEndian, windows1252, converted(String)

    /// The charset of `contentType` (a `Content-Type` value), UTF-8 by default.
    init(contentType: String?) {
        guard let label = contentType.flatMap(MIMEType.init)?.parameter("charset") else {
            self = .utf8
            return
        }
        self = Self.labels[label.trimmingCharacters(in: .whitespaces).lowercased()] ?? .utf8
    }

    /// `bytes` as text: malformed sequences become U+FFFD.
    func decode(_ bytes: Data) -> String {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return String(decoding: bytes.dropFirst(3), as: UTF8.self) }
        if bytes.starts(with: [0xFE, 0xFF]) { return Self.utf16(bytes.dropFirst(2), bigEndian: true) }
        if bytes.starts(with: [0xFF, 0xFE]) { return Self.utf16(bytes.dropFirst(2), bigEndian: false) }
        switch self {
        case .utf8: return String(decoding: bytes, as: UTF8.self)
        case .utf16LittleEndian: return Self.utf16(bytes[...], bigEndian: false)
        case .utf16BigEndian: return Self.utf16(bytes[...], bigEndian: true)
        case .windows1252:
            var scalars = String.UnicodeScalarView()
            for byte in bytes {
                let value = (0x80...0x9F).contains(byte) ? Self.windows1252High[Int(byte) - 0x80] : UInt32(byte)
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            }
            return String(scalars)
        case .converted(let name):
            return Self.convert(bytes, from: name)
        }
    }

    /// `bytes` in iconv's encoding `name` as text, each byte that does not begin a valid sequence
    /// (and a sequence cut off at the end) as U+FFFD, and decoding going on after it, as the
    /// Encoding standard's decoders do. (Foundation's decoding gives nothing at all for a body
    /// with one bad byte.) UTF-8 when the system has no such converter.
    private static func convert(_ bytes: Data, from name: String) -> String {
        guard !bytes.isEmpty else { return "" }
        let converter = iconv_open("UTF-8", name)
        guard converter != iconv_t(bitPattern: -1) else { return String(decoding: bytes, as: UTF8.self) }
        defer { iconv_close(converter) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let start = raw.baseAddress else { return }
            var input: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: start.assumingMemoryBound(to: CChar.self))
            var left = raw.count
            var flushed = false
            while !flushed {
                chunk.withUnsafeMutableBytes { target in
                    var next = target.baseAddress?.assumingMemoryBound(to: CChar.self)
                    var room = target.count
                    let result: Int
                    if left > 0 {
                        result = iconv(converter, &input, &left, &next, &room)
                    } else {
                        // The input done: a stateful encoding (ISO-2022-JP) returns to its initial state.
                        result = iconv(converter, nil, nil, &next, &room)
                        flushed = true
                    }
                    let failure = result == -1 ? errno : 0
                    output.append(contentsOf: target.prefix(target.count - room))
                    guard result == -1, !flushed else { return }
                    switch failure {
                    case E2BIG:
                        break  // the chunk is full: on with the next
                    case EILSEQ:
                        output.append(contentsOf: [0xEF, 0xBF, 0xBD])
                        input = input.map { $0 + 1 }
                        left -= 1
                    default:  // EINVAL: a sequence cut off at the end
                        output.append(contentsOf: [0xEF, 0xBF, 0xBD])
                        left = 0
                    }
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func utf16(_ bytes: Data.SubSequence, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2 + 1)
        var index = bytes.startIndex
        while bytes.index(after: index) < bytes.endIndex {
            let first = UInt16(bytes[index]), second = UInt16(bytes[bytes.index(after: index)])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index = bytes.index(index, offsetBy: 2)
        }
        var text = String(decoding: units, as: UTF16.self)
        if index < bytes.endIndex { text.append("\u{FFFD}") }  // an odd byte at the end
        return text
    }

    /// windows-1252's 0x80–0x9F (the Encoding standard's index; the five unassigned bytes map
    /// to the C1 controls of the same value).
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    private static let labels: [String: TextCharset] = {
        var labels: [String: TextCharset] = [:]
        for label in ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"] { labels[label] = .utf8 }
        for label in ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"] { labels[label] = .utf16LittleEndian }
        for label in ["unicodefffe", "utf-16be"] { labels[label] = .utf16BigEndian }
        for label in ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
                      "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"] {
            labels[label] = .windows1252
        }
        for label in ["csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2", "iso_8859-2:1987", "l2", "latin2"] {
            labels[label] = .converted("ISO-8859-2")
        }
        for label in ["cp1250", "windows-1250", "x-cp1250"] { labels[label] = .converted("CP1250") }
        for label in ["cp1251", "windows-1251", "x-cp1251"] { labels[label] = .converted("CP1251") }
        for label in ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"] { labels[label] = .converted("CP932") }  // the Encoding standard's Shift_JIS is windows-31j
        for label in ["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"] { labels[label] = .converted("EUC-JP") }
        for label in ["csiso2022jp", "iso-2022-jp"] { labels[label] = .converted("ISO-2022-JP") }
        return labels
    }()
}
