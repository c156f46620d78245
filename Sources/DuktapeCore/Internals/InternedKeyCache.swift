/// Interned property-key strings pinned by the VM, by text: `object["key"]` from Swift then pushes
/// the engine's string by address instead of transcoding and interning the key again.
///
/// Two-way set-associative with 128 sets. The hash is FNV-1a over at most the first 16 UTF-8
/// bytes: a lookup costs tens of instructions, where a `[String: …]` lookup
/// (SipHash, plus exclusivity checks) cost about 460, more than the property access itself.
/// Collisions only cost speed: a set that is full evicts its older entry, whose slot the caller
/// unpins.
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
        if let entry = entries[first], entry.key == key { return entry.pointer }
        if let entry = entries[first + 1], entry.key == key { return entry.pointer }
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

    @inline(__always)
    private static func firstIndex(of key: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        var remaining = 16
        for byte in key.utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
            remaining -= 1
            if remaining == 0 { break }
        }
        return Int(hash % UInt32(setCount)) &* 2
    }
}
