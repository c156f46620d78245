import Foundation

/// The pages' HTTP cache, on disk (a browser's private cache): GET responses with status 200
/// stored by URL, served while fresh, revalidated with `If-None-Match`/`If-Modified-Since`
/// when stale, and kept within a size by evicting the least recently used. It survives a
/// restart: a cache made on the same directory finds its entries.
///
/// ```swift
/// var configuration = WebPageConfiguration()
/// configuration.httpCache = try HTTPCache(directory: URL(fileURLWithPath: "/var/cache/app"), capacity: 100 << 20)
/// ```
///
/// Freshness is `Cache-Control: max-age`, else `Expires` minus `Date`, else a tenth of the time
/// since `Last-Modified`. Nothing is stored for `no-store` (in the request or the response),
/// `Vary: *`, a response without validators or freshness, or a body over an eighth of the
/// capacity. `no-cache` and `must-revalidate` (once stale) responses are revalidated before use.
/// A request's `cache` mode is honoured: `default`, `no-store` (neither read nor written),
/// `reload` (not read, written), `no-cache` (revalidated), `force-cache` (any entry, stale or
/// not) and `only-if-cached` (an entry or a network error). A successful POST, PUT, PATCH or
/// DELETE removes the URL's entry.
public final class HTTPCache: @unchecked Sendable {
    // @unchecked: the index is behind `lock`; files are written under temporary names and
    // renamed into place.

    /// Where the entries are (one `.meta` and one `.body` file each).
    public let directory: URL
    /// The most bytes of bodies kept.
    public let capacity: Int
    private let lock = NSLock()
    private var index: [String: Entry] = [:]

    struct Entry: Codable, Sendable {
        var url: String
        /// The cookie store whose cookies the request carried (responses to credentialed
        /// requests are kept per store), or nil for a request without credentials.
        var partition: String?
        var status: Int
        var statusText: String
        var headers: [String]  // name, value, name, value…
        var vary: [String: String]
        var storedAt: Date
        var responseDate: Date
        var lastUsed: Date
        var size: Int
    }

    /// A cache in `directory` (created when missing), holding at most `capacity` bytes of
    /// bodies. Throws when the directory cannot be created.
    ///
    /// ```swift
    /// let cache = try HTTPCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("cache"))
    /// ```
    public init(directory: URL, capacity: Int = 50 << 20) throws {
        self.directory = directory
        self.capacity = max(0, capacity)
        // Its owner's only: cached bodies may be private.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in files where name.hasSuffix(".partial") {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))  // a run that stopped mid-write
        }
        for name in files where name.hasSuffix(".meta") {
            let key = String(name.dropLast(5))
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path),
                  let entry = try? JSONDecoder().decode(Entry.self, from: data),
                  FileManager.default.fileExists(atPath: bodyFile(key).path) else {
                removeFiles(key)
                continue
            }
            index[key] = entry
        }
    }

    /// The default cache of pages: 50 MB in the user's cache directory (`~/.cache/DuktapeWeb`,
    /// readable by the user only), or nil when it cannot be made.
    static let shared: HTTPCache? = {
        guard let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first else { return nil }
        return try? HTTPCache(directory: caches.appendingPathComponent("DuktapeWeb"))
    }()

    /// The URLs with a stored response.
    ///
    /// ```swift
    /// print(cache.storedURLs)
    /// ```
    public var storedURLs: [String] {
        lock.withLock { index.values.map(\.url).sorted() }
    }

    /// Removes every entry.
    ///
    /// ```swift
    /// cache.removeAll()
    /// ```
    public func removeAll() {
        let keys = lock.withLock { () -> [String] in
            defer { index = [:] }
            return Array(index.keys)
        }
        for key in keys { removeFiles(key) }
    }

    // MARK: - For pages

    /// A stored response for `url`, if its `Vary` headers match `requestHeaders`.
    struct Stored: Sendable {
        var entry: Entry
        var body: URL
        var key: String

        /// The values of the header `name` joined by ", " (every line counts), or nil.
        func header(_ name: String) -> String? {
            var values: [String] = []
            var index = 0
            while index + 1 < entry.headers.count {
                if entry.headers[index].lowercased() == name { values.append(entry.headers[index + 1]) }
                index += 2
            }
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }

        /// The response's `Cache-Control` directives (lowercased names, values unquoted).
        var directives: [String: String] { HTTPCache.directives(header("cache-control")) }

        /// True while the response may be used without revalidation.
        func isFresh(now: Date) -> Bool {
            let controls = directives
            if controls["no-cache"] != nil { return false }
            let age = max(0, now.timeIntervalSince(entry.storedAt)) + (Double(header("age") ?? "") ?? 0)
            return age < freshnessLifetime
        }

        var freshnessLifetime: TimeInterval {
            let controls = directives
            if let maxAge = controls["max-age"], !maxAge.isEmpty, maxAge.allSatisfy({ $0.isASCII && $0.isNumber }) {
                return Double(maxAge) ?? 0
            }
            if let expires = header("expires") {
                // An Expires that is not a date means already expired (RFC 9111 §5.3).
                return HTTPCookie.parseDate(expires).map { $0.timeIntervalSince(entry.responseDate) } ?? 0
            }
            if let modified = header("last-modified").flatMap(HTTPCookie.parseDate) {
                return max(0, entry.responseDate.timeIntervalSince(modified)) / 10
            }
            return 0
        }
    }

    func lookup(_ url: String, partition: String?, requestHeaders: [(name: String, value: String)]) -> Stored? {
        let key = Self.key(url, partition: partition)
        return lock.withLock { () -> Stored? in
            guard var entry = index[key], entry.url == url, entry.partition == partition else { return nil }
            for (name, value) in entry.vary where Self.value(of: name, in: requestHeaders) != value { return nil }
            entry.lastUsed = Date()
            index[key] = entry
            return Stored(entry: entry, body: bodyFile(key), key: key)
        }
    }

    /// After a 304: the stored entry with the new response's headers merged, fresh again.
    func refresh(_ stored: Stored, with headers: [String], now: Date = Date()) -> Stored {
        var entry = stored.entry
        var merged = entry.headers
        var index = 0
        while index + 1 < headers.count {
            let name = headers[index].lowercased()
            if !["content-length", "content-encoding", "transfer-encoding"].contains(name) {
                var position = 0
                while position + 1 < merged.count {
                    if merged[position].lowercased() == name { merged.removeSubrange(position...position + 1) } else { position += 2 }
                }
                merged += [headers[index], headers[index + 1]]
            }
            index += 2
        }
        entry.headers = merged
        entry.storedAt = now
        entry.responseDate = Self.date(in: merged) ?? now
        entry.lastUsed = now
        let updated = Stored(entry: entry, body: stored.body, key: stored.key)
        lock.withLock {
            // Only an entry still there (not evicted or invalidated meanwhile) is refreshed.
            guard self.index[stored.key] != nil else { return }
            self.index[stored.key] = entry
            writeMeta(entry, key: stored.key)
        }
        return updated
    }

    /// Whether a 200 response to a GET may be stored.
    func mayStore(status: Int, headers: [String], requestHeaders: [(name: String, value: String)]) -> Bool {
        guard status == 200, capacity > 0 else { return false }
        let probe = Stored(entry: Entry(url: "", partition: nil, status: status, statusText: "", headers: headers, vary: [:], storedAt: Date(),
                                        responseDate: Self.date(in: headers) ?? Date(), lastUsed: Date(), size: 0),
                           body: directory, key: "")
        let response = probe.directives
        let request = Self.directives(Self.value(of: "cache-control", in: requestHeaders))
        if response["no-store"] != nil || request["no-store"] != nil { return false }
        if probe.header("vary")?.contains("*") == true { return false }
        return probe.header("etag") != nil || probe.header("last-modified") != nil || probe.freshnessLifetime > 0
    }

    /// A body being written: chunks appended to a temporary file, committed at its end. The
    /// writes happen on the writer's own queue (chunks come from a connection's event loop, which
    /// must not wait for the disk); past an eighth of the capacity nothing more is queued.
    final class Writer: @unchecked Sendable {
        // @unchecked: `accepted` is used by one transfer at a time (its chunks, then its commit or
        // discard, one after another); `handle` and `size` only on `writes`.
        private let cache: HTTPCache
        private let entry: Entry
        private let key: String
        private let temporary: URL
        private let writes = DispatchQueue(label: "DuktapeWeb.HTTPCache.Writer")
        private var accepted = 0
        private var handle: FileHandle?
        private var size = 0

        fileprivate init?(cache: HTTPCache, entry: Entry, key: String) {
            self.cache = cache
            self.entry = entry
            self.key = key
            temporary = cache.directory.appendingPathComponent("\(key)-\(UUID().uuidString).partial")
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = try? FileHandle(forWritingTo: temporary) else { return nil }
            self.handle = handle
        }

        /// Appends a chunk (copied); past an eighth of the capacity the body is abandoned.
        func append(_ bytes: some Collection<UInt8>) {
            guard accepted <= cache.capacity / 8 else { return }  // abandoned already: no copy
            let chunk = Data(bytes)
            accepted += chunk.count
            let tooLarge = accepted > cache.capacity / 8
            writes.async { [self] in
                guard let handle else { return }
                size += chunk.count
                if tooLarge || (try? handle.write(contentsOf: chunk)) == nil { drop() }
            }
        }

        /// Stores the body as the URL's entry, once the chunks appended are written.
        func commit() {
            writes.sync {
                guard let handle else { return }
                try? handle.close()
                self.handle = nil
                var entry = self.entry
                entry.size = size
                cache.install(entry, key: key, from: temporary)
            }
        }

        /// Drops the partial body (the transfer failed or was abandoned).
        func discard() {
            writes.sync { drop() }
        }

        private func drop() {
            guard let handle else { return }  // committed or dropped already
            try? handle.close()
            self.handle = nil
            try? FileManager.default.removeItem(at: temporary)
        }

        deinit { drop() }  // nothing else refers to the writer: no write is queued
    }

    func writer(
        url: String, partition: String?, status: Int, statusText: String, headers: [String], requestHeaders: [(name: String, value: String)]
    ) -> Writer? {
        let now = Date()
        var vary: [String: String] = [:]
        var index = 0
        while index + 1 < headers.count {
            if headers[index].lowercased() == "vary" {
                for name in headers[index + 1].split(separator: ",") {
                    let lowered = name.trimmingCharacters(in: .whitespaces).lowercased()
                    if !lowered.isEmpty { vary[lowered] = Self.value(of: lowered, in: requestHeaders) ?? "" }
                }
            }
            index += 2
        }
        let entry = Entry(url: url, partition: partition, status: status, statusText: statusText, headers: headers, vary: vary,
                          storedAt: now, responseDate: Self.date(in: headers) ?? now, lastUsed: now, size: 0)
        return Writer(cache: self, entry: entry, key: Self.key(url, partition: partition))
    }

    /// Removes the entries of `url` (an unsafe method succeeded on it, or its body went
    /// missing), in every partition.
    func invalidate(_ url: String) {
        lock.withLock {
            for (key, entry) in index where entry.url == url {
                index[key] = nil
                removeFiles(key)
            }
        }
    }

    // MARK: - Files

    /// Puts a finished body in place (renamed over the old one, atomically) with its meta, then
    /// evicts the least recently used past the capacity: all under the lock, so that files and
    /// index never disagree between transfers.
    private func install(_ entry: Entry, key: String, from temporary: URL) {
        lock.withLock {
            guard rename(temporary.path, bodyFile(key).path) == 0 else {
                try? FileManager.default.removeItem(at: temporary)
                return
            }
            writeMeta(entry, key: key)
            index[key] = entry
            var total = index.values.reduce(0) { $0 + $1.size }
            for (candidate, stored) in index.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) where total > capacity {
                guard candidate != key else { continue }
                index[candidate] = nil
                total -= stored.size
                removeFiles(candidate)
            }
        }
    }

    private func writeMeta(_ entry: Entry, key: String) {
        guard let data = try? JSONEncoder().encode(entry) else { return }
        let file = directory.appendingPathComponent(key + ".meta")
        try? data.write(to: file, options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    private func bodyFile(_ key: String) -> URL {
        directory.appendingPathComponent(key + ".body")
    }

    private func removeFiles(_ key: String) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(key + ".meta"))
        try? FileManager.default.removeItem(at: bodyFile(key))
    }

    // MARK: - Helpers

    /// A file name for `url` in `partition`: FNV-1a, 64 bits, in hex (the entry keeps both,
    /// checked on lookup).
    static func key(_ url: String, partition: String?) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ((partition.map { $0 + "\n" } ?? "") + url).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    static func value(of name: String, in headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }

    static func date(in headers: [String]) -> Date? {
        var index = 0
        while index + 1 < headers.count {
            if headers[index].lowercased() == "date" { return HTTPCookie.parseDate(headers[index + 1]) }
            index += 2
        }
        return nil
    }

    static func directives(_ header: String?) -> [String: String] {
        var result: [String: String] = [:]
        for part in (header ?? "").split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard let first = pieces.first else { continue }
            let name = first.trimmingCharacters(in: .whitespaces).lowercased()
            let value = pieces.count > 1 ? pieces[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : ""
            if result[name] == nil { result[name] = value }
        }
        return result
    }
}
