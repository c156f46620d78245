/// Interned property-key strings pinned by the VM, by text: `object["key"]` from Swift then pushes
/// the engine's string by address instead of transcoding and interning the key again.
///
/// Two-way set-associative with 128 sets. A small string (at most 15 UTF-8 bytes, the usual key)
/// holds its bytes in its own two words, so it is hashed by mixing those words; a longer one by
/// FNV-1a over its first 16 UTF-8 bytes. A lookup costs tens of instructions, where a
/// `[String: …]` lookup (SipHash, plus exclusivity checks) cost about 460, more than the property
/// access itself. Keys match by their UTF-8 bytes, JavaScript's equality, not by Swift's `==`
/// (canonical equivalence: "é" == "e\u{301}", two different property names). Collisions only
/// cost speed: a set that is full evicts its older entry, whose slot the caller unpins.
struct InternedKeyCache {
    struct Entry {
        var key: String
        var slot: UInt32
        var pointer: UnsafeMutableRawPointer
    }

    /// Keys longer than this (in UTF-8 bytes) are not cached.
    static let maximumKeyLength = 128
    private static let setCount = 128

    private var entries = [Entry?](repeating: nil, count: 2 * setCount)

    /// Number of cached keys (each holds a pinned slot).
    private(set) var count = 0

    /// The heap address of the interned string for `key`, if cached.
    @inline(__always)
    func pointer(for key: String) -> UnsafeMutableRawPointer? {
        let first = Self.firstIndex(of: key)
        if let entry = entries[first], Self.sameCodeUnits(entry.key, key) { return entry.pointer }
        if let entry = entries[first + 1], Self.sameCodeUnits(entry.key, key) { return entry.pointer }
        return nil
    }

    /// Caches `key`; returns the slot of the entry it evicted, if any, for the caller to unpin.
    mutating func insert(_ key: String, slot: UInt32, pointer: UnsafeMutableRawPointer) -> UInt32? {
        let first = Self.firstIndex(of: key)
        let entry = Entry(key: key, slot: slot, pointer: pointer)
        if entries[first] == nil {
            entries[first] = entry
            count += 1
            return nil
        }
        let evicted = entries[first + 1]
        // The newest entry goes first; the older one moves to the second way; the oldest leaves.
        entries[first + 1] = entries[first]
        entries[first] = entry
        if evicted == nil { count += 1 }
        return evicted?.slot
    }

    /// The discriminator bit of a small string in its second word (64-bit platforms).
    private static let smallStringFlag: UInt64 = 1 << 61

    @inline(__always)
    static func firstIndex(of key: String) -> Int {
        #if _pointerBitWidth(_64)
        let words = unsafeBitCast(key, to: (UInt64, UInt64).self)
        if words.1 & smallStringFlag != 0 {
            var hash = (words.0 ^ (words.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            return Int(hash % UInt64(setCount)) &* 2
        }
        #endif
        var hash: UInt32 = 2_166_136_261
        var remaining = 16
        for byte in key.utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
            remaining -= 1
            if remaining == 0 { break }
        }
        return Int(hash % UInt32(setCount)) &* 2
    }

    /// Equal UTF-8 bytes. The same representation (both words equal: the same small string, or
    /// the same storage) answers at once; anything else compares the bytes.
    @inline(__always)
    static func sameCodeUnits(_ a: String, _ b: String) -> Bool {
        #if _pointerBitWidth(_64)
        let x = unsafeBitCast(a, to: (UInt64, UInt64).self), y = unsafeBitCast(b, to: (UInt64, UInt64).self)
        if x.0 == y.0 && x.1 == y.1 { return true }
        #endif
        return a.utf8.elementsEqual(b.utf8)
    }
}
