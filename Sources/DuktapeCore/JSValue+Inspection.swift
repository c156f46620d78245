import Foundation

/// What the host reads of values beyond JavaScriptCore's API (package: the runtime's console and
/// the web host use it).
extension JSValue {
    /// A `Map`'s or `Set`'s first `limit` entries (a Map's as [key, value, key, value…]) and its
    /// size, or only the kind of a `WeakMap` or `WeakSet` (no entries, no size), for inspecting it
    /// (the runtime's console shows `Map(1) { 'a' => 1 }`, as Node does); nil for anything else,
    /// an object that only claims to be one included. Runs no script.
    package func collectionInspection(limit: Int) -> (kind: String, size: Int?, entries: JSValue?)? {
        guard case .reference = storage,
            let found = try? owner.withStack({ stack throws(JSException) in try stack.collectionEntries(self, limit: limit) })
        else { return nil }
        switch found.kind {
        case 1: return ("Map", found.size, found.entries)
        case 2: return ("Set", found.size, found.entries)
        case 3: return ("WeakMap", nil, nil)
        case 4: return ("WeakSet", nil, nil)
        default: return nil
        }
    }

    /// The object's own enumerable keys that are not array indices (strings, then symbols),
    /// read without listing its indices: the runtime's console shows a large array's named
    /// properties this way. nil for a proxy or a primitive. Runs no script.
    package var namedOwnKeys: JSValue? {
        guard case .reference = storage,
            let keys = try? owner.withStack({ stack throws(JSException) in try stack.namedKeys(self) }), !keys.isUndefined
        else { return nil }
        return keys
    }

    /// Calls `body` with the bytes of a `Uint8Array` (what `toObject()` gives as `Data`) where
    /// the engine keeps them, without a copy; nil, without calling it, for any other value. The
    /// bytes are valid only inside `body`, which runs with the VM locked and must not reach the
    /// VM (the web host copies a `WebSocket` message into its network buffer this way).
    package func withUnsafeUint8ArrayBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard case .reference = storage else { return nil }
        return (try? owner.withStack { stack throws(JSException) in try stack.withUint8ArrayBytes(self, body) }) ?? nil
    }
}
