import CDuktape

/// What the runtime's console reads that no script can (collection.c's entries, the property
/// table's named keys), and a Uint8Array's bytes in place.
extension EngineStack {
    /// `value`'s collection kind (0 none, 1 Map, 2 Set, 3 WeakMap, 4 WeakSet), a Map's or Set's
    /// size, and its first `limit` entries (cduk_pcollection_entries).
    func collectionEntries(_ value: JSValue, limit: Int) throws(JSException) -> (kind: Int, size: Int, entries: JSValue) {
        try push(value)
        var kind: Int32 = 0
        var size: duk_uint_t = 0
        try check(cduk_pcollection_entries(ctx, duk_uint_t(clamping: max(limit, 0)), &kind, &size))
        defer { duk_pop(ctx) }
        return (Int(kind), Int(size), try self.value(at: -1))
    }

    /// `value`'s own enumerable keys that are not array indices (cduk_pnamed_keys), or
    /// undefined for a proxy or a primitive.
    func namedKeys(_ value: JSValue) throws(JSException) -> JSValue {
        try push(value)
        try check(cduk_pnamed_keys(ctx))
        defer { duk_pop(ctx) }
        return try self.value(at: -1)
    }

    /// `body` with the bytes of the Uint8Array `value` where the engine keeps them (nil, without
    /// calling it, for any other value).
    func withUint8ArrayBytes<R>(_ value: JSValue, _ body: (UnsafeRawBufferPointer) -> R) throws(JSException) -> R? {
        try push(own: value)
        defer { duk_pop(ctx) }
        guard cduk_class_of(ctx, -1) == CDUK_CLASS_UINT8ARRAY else { return nil }
        var count = 0
        let bytes = duk_get_buffer_data(ctx, -1, &count)
        return body(UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: count))
    }
}
