/// Checks UTF-8 as it arrives, a part at a time, so that a WebSocket text message (or a close
/// reason) split across frames fails at the first byte that cannot be UTF-8, as RFC 6455 §8.1
/// asks ("fail fast"), without holding the message to check it whole. Well-formed means
/// Unicode's table 3-7: no overlong forms, no surrogates (`ED A0`–`ED BF`), nothing above
/// U+10FFFF.
struct UTF8Validator {
    /// Continuation bytes still expected in the current sequence.
    private var remaining = 0
    /// The range the next continuation byte must be in (narrower than 80–BF only for the
    /// second byte after E0, ED, F0 and F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether everything fed so far could begin valid UTF-8.
    private(set) var isValid = true

    /// Whether everything fed so far is complete, valid UTF-8 (no sequence left open).
    var isComplete: Bool { isValid && remaining == 0 }

    /// Feeds `bytes`; returns `isValid` after them.
    @discardableResult
    mutating func feed(_ bytes: some Sequence<UInt8>) -> Bool {
        guard isValid else { return false }
        if let result = bytes.withContiguousStorageIfAvailable({ feed(contiguous: UnsafeRawBufferPointer($0)) }) { return result }
        for byte in bytes where !step(byte) { return false }
        return true
    }

    /// `feed` over contiguous bytes: runs of ASCII are skipped eight bytes at a time.
    private mutating func feed(contiguous bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            if remaining == 0 && index + 8 <= count && bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            guard step(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// One byte; false (and `isValid` false) when it cannot continue valid UTF-8.
    private mutating func step(_ byte: UInt8) -> Bool {
        if remaining > 0 {
            guard byte >= lower && byte <= upper else {
                isValid = false
                return false
            }
            remaining -= 1
            lower = 0x80
            upper = 0xBF
            return true
        }
        switch byte {
        case 0x00...0x7F: break
        case 0xC2...0xDF: remaining = 1
        case 0xE0: remaining = 2; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: remaining = 2
        case 0xED: remaining = 2; upper = 0x9F
        case 0xF0: remaining = 3; lower = 0x90
        case 0xF1...0xF3: remaining = 3
        case 0xF4: remaining = 3; upper = 0x8F
        default:
            isValid = false
            return false
        }
        return true
    }

    /// Whether `bytes`, whole, are valid UTF-8.
    static func isValid(_ bytes: some Sequence<UInt8>) -> Bool {
        var validator = UTF8Validator()
        validator.feed(bytes)
        return validator.isComplete
    }
}
