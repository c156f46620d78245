import CDuktape
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Transcoding between Swift strings (UTF-8) and Duktape's internal string form.
///
/// Duktape stores strings as CESU-8-like "extended UTF-8": a UTF-16 surrogate pair made in JS is two
/// 3-byte sequences, and a 4-byte UTF-8 sequence pushed from C becomes a single non-BMP code unit
/// (`"😀".length == 1`, unlike every other engine). So:
/// - Swift → JS: every scalar above U+FFFF is written as a surrogate pair (CESU-8), so JS sees
///   UTF-16 semantics (`"😀".length == 2`).
/// - JS → Swift: surrogate pairs become the scalar they encode; a lone surrogate becomes U+FFFD;
///   bytes that are not UTF-8 (a string made from a buffer) are repaired as Swift repairs UTF-8,
///   each maximal invalid subsequence becoming one U+FFFD.
///
/// Both directions keep embedded NULs: strings always cross as (pointer, length). A string without
/// the sequences that differ between the two forms (every ASCII and BMP string one way, every
/// string that is valid UTF-8 the other) crosses with one scan and one copy, and a Swift string
/// whose storage is known to be ASCII without the scan; the scan and the transcoders for the rest
/// are C (strings.c).
enum StringCoding {
    /// Calls `body` with the string's bytes in Duktape's internal form.
    ///
    /// Strings without 4-byte sequences (all of ASCII and the BMP) are passed through without a copy.
    static func withEngineBytes<R>(
        _ string: String,
        _ body: (UnsafePointer<CChar>, Int) -> R
    ) -> R {
        var string = string
        if string.utf8.count > shortStringBytes { return withLongEngineBytes(string, body) }
        return string.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else {
                return withUnsafePointer(to: 0 as CChar) { body($0, 0) }
            }
            let lead = fourByteLead(utf8)
            if lead == utf8.count {
                return base.withMemoryRebound(to: CChar.self, capacity: lead) { body($0, lead) }
            }
            return transcoded(utf8, from: lead, body)
        }
    }

    /// `withEngineBytes` of a string longer than `shortStringBytes`: no scan when Swift knows the
    /// string is ASCII, else the vectorized one. (Out of line, so that the short strings' path, a
    /// key or a small value, stays small enough to be inlined whole.)
    @inline(never)
    private static func withLongEngineBytes<R>(
        _ string: String,
        _ body: (UnsafePointer<CChar>, Int) -> R
    ) -> R {
        var string = string
        let knownASCII = isKnownASCII(string)
        return string.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else {
                return withUnsafePointer(to: 0 as CChar) { body($0, 0) }
            }
            let count = utf8.count
            let lead = knownASCII ? count : cduk_utf8_four_byte_lead(base, count)
            if lead == count {
                return base.withMemoryRebound(to: CChar.self, capacity: count) { body($0, count) }
            }
            return transcoded(utf8, from: lead, body)
        }
    }

    /// The CESU-8 form of a string with a 4-byte sequence at `lead`, in a temporary buffer.
    @inline(never)
    private static func transcoded<R>(
        _ utf8: UnsafeBufferPointer<UInt8>,
        from lead: Int,
        _ body: (UnsafePointer<CChar>, Int) -> R
    ) -> R {
        let count = utf8.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + count / 2 + 1) { out in
            guard let target = out.baseAddress, let base = utf8.baseAddress else {
                return withUnsafePointer(to: 0 as CChar) { body($0, 0) }
            }
            target.initialize(from: base, count: lead)
            let length = lead + cduk_utf8_to_cesu8(base + lead, count - lead, target + lead)
            return target.withMemoryRebound(to: CChar.self, capacity: length) { body($0, length) }
        }
    }

    /// True when the string's storage records that it is all ASCII (Swift computes this when it
    /// makes a native string): such a string needs no scan. False means "not known", not "not
    /// ASCII".
    @inline(__always)
    private static func isKnownASCII(_ string: String) -> Bool {
        #if compiler(>=6.2) && !canImport(Darwin)
        string.utf8Span.isKnownASCII
        #else
        false
        #endif
    }

    /// Up to this length (a key, a short value) the scan runs inline, not as a call into C.
    private static let shortStringBytes = 32

    @inline(__always)
    private static func fourByteLead(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        for index in utf8.indices where utf8[index] >= 0xF0 { return index }
        return utf8.count
    }

    /// Decodes Duktape's internal bytes into a Swift string.
    ///
    /// Bytes that are valid UTF-8 (no surrogate encoding, which UTF-8 forbids) become the string
    /// with one copy (`validUTF8String`). The others are transcoded into the new string's own
    /// storage (a pair's six bytes become four, a lone surrogate's three become U+FFFD's three),
    /// which it then validates, repairing what is still not UTF-8.
    static func string(fromEngineBytes bytes: UnsafeRawBufferPointer) -> String {
        var learned: Int32 = 0
        return string(fromEngineBytes: bytes, known: 0, learned: &learned)
    }

    /// `string(fromEngineBytes:)` of a string of which an earlier read learned `known`
    /// (`CDUK_STRING_*`: valid UTF-8, all ASCII); what this read learned of a longer string is in
    /// `learned`, to be recorded on it (`cduk_string_mark`). A string known to be valid UTF-8 is
    /// copied without a scan.
    static func string(fromEngineBytes bytes: UnsafeRawBufferPointer, known: Int32, learned: inout Int32) -> String {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return "" }
        let source = base.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        if count <= smallStringBytes {
            // Inline storage: the standard decoder costs less than the generic validating one.
            if memchr(base, 0xED, count) == nil {
                return String(decoding: UnsafeBufferPointer(start: source, count: count), as: UTF8.self)
            }
        } else if let string = validUTF8String(UnsafeBufferPointer(start: source, count: count), known: known, learned: &learned) {
            return string
        }
        return String(unsafeUninitializedCapacity: count) { out in
            guard let target = out.baseAddress else { return 0 }
            return cduk_cesu8_to_utf8(source, count, target)
        }
    }

    /// The string `bytes` hold when they are valid UTF-8, else nil; one pass over each byte and
    /// one copy, or only the copy when `known` says they are valid. The vectorized scan finds the
    /// ASCII prefix (all of most strings), Swift validates only the rest, and the string is made
    /// from bytes known to be valid, so that nothing is validated twice. (`String(validating:)`
    /// reads every byte twice before its copy when the string is not all ASCII: once in its ASCII
    /// test, again in its full validation.)
    private static func validUTF8String(_ bytes: UnsafeBufferPointer<UInt8>, known: Int32, learned: inout Int32) -> String? {
        #if compiler(>=6.2) && !canImport(Darwin)
        guard let base = bytes.baseAddress else { return "" }
        if known & CDUK_STRING_UTF8 != 0 {
            return String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: known & CDUK_STRING_ASCII != 0))
        }
        let prefix = cduk_ascii_prefix(base, bytes.count)
        if prefix < bytes.count {
            guard (try? UTF8Span(validating: UnsafeBufferPointer(rebasing: bytes[prefix...]).span)) != nil else { return nil }
        }
        // The prefix ends before a byte that is not ASCII, so at a scalar's start: the whole is
        // valid when the rest is.
        learned = CDUK_STRING_UTF8 | (prefix == bytes.count ? CDUK_STRING_ASCII : 0)
        return String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: prefix == bytes.count))
        #else
        return String(validating: bytes, as: UTF8.self)
        #endif
    }

    /// The longest string Swift stores inline (no allocation) on 64-bit platforms.
    private static let smallStringBytes = 15
}

extension StringCoding {
    /// String.prototype.normalize's Unicode tables (methods.c calls it; see cduk_set_normalizer):
    /// the engine's bytes in, the normalized string's engine bytes out (malloc'd), or nil to leave
    /// the string as it is, which is what happens when it holds a lone surrogate (decoding would
    /// replace it with U+FFFD).
    static let installNormalizer: Void = {
        cduk_set_normalizer { bytes, count, form, length in
            let input = UnsafeRawBufferPointer(start: bytes, count: count)
            let string = StringCoding.string(fromEngineBytes: input)
            if string.unicodeScalars.contains("\u{FFFD}") && !StringCoding.containsReplacementCharacter(input) {
                return nil
            }
            let normalized: String
            switch form {
            case 1: normalized = string.decomposedStringWithCanonicalMapping
            case 2: normalized = string.precomposedStringWithCompatibilityMapping
            case 3: normalized = string.decomposedStringWithCompatibilityMapping
            default: normalized = string.precomposedStringWithCanonicalMapping
            }
            return StringCoding.withEngineBytes(normalized) { pointer, count in
                guard let copy = malloc(max(count, 1)) else { return nil }
                memcpy(copy, pointer, count)
                length.pointee = count
                return copy.assumingMemoryBound(to: CChar.self)
            }
        }
    }()

    /// True when the bytes hold U+FFFD itself (EF BF BD), so that a U+FFFD after decoding is not
    /// a replaced lone surrogate.
    private static func containsReplacementCharacter(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 3 else { return false }
        for index in 0...(bytes.count - 3) where bytes[index] == 0xEF && bytes[index + 1] == 0xBF && bytes[index + 2] == 0xBD {
            return true
        }
        return false
    }
}
