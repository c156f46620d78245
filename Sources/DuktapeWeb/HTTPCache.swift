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
/// `Vary: *`, a response without validators or freshness, a body over an eighth of the
/// capacity, or headers over an eighth of the capacity. What counts against the capacity is
/// everything an entry takes: its body, its meta file (the headers as stored) and an estimate
/// of its index entry in memory; and the entries are at most `maximumEntries`. `no-cache` and
/// `must-revalidate` (once stale) responses are revalidated before use.
/// A request's `cache` mode is honoured: `default`, `no-store` (neither read nor written),
/// `reload` (not read, written), `no-cache` (revalidated), `force-cache` (any entry, stale or
/// not) and `only-if-cached` (an entry or a network error). A successful POST, PUT, PATCH or
/// DELETE removes the URL's entry.
public final class HTTPCache: @unchecked Sendable {
    // @unchecked: the index and its total cost are behind `lock`; files are written under
    // temporary names and renamed into place.

    /// Where the entries are (one `.meta` and one `.body` file each).
    public let directory: URL
    /// The most bytes kept: bodies, meta files and the index's estimated memory together.
    public let capacity: Int
    /// The most entries kept (the least recently used go first): by default one per KiB of
    /// capacity, at most `defaultMaximumEntries`.
    ///
    /// ```swift
    /// let cache = try HTTPCache(directory: directory, capacity: 1 << 20)  // maximumEntries 1,024
    /// ```
    public let maximumEntries: Int
    /// The most entries a cache keeps when not told otherwise, whatever its capacity: 10,000.
    ///
    /// ```swift
    /// let cache = try HTTPCache(directory: directory, capacity: 1 << 30)  // maximumEntries 10,000
    /// ```
    public static let defaultMaximumEntries = 10_000
    private let lock = NSLock()
    private var index: [String: Entry] = [:]
    /// The sum of the index's costs, kept as entries come and go (eviction checks it on every
    /// store and refresh: no walk over the index unless it is over).
    private var totalCost = 0
    /// Numbers refreshed entries, so that a meta write queued for one version is dropped when
    /// the entry was refreshed again, replaced or removed before it ran.
    private var refreshes = 0
    private var metaRewriteCount = 0
    /// Meta files rewritten after a 304 (off the page's thread: a revalidated response is served
    /// without waiting for the disk).
    private let metaWrites = DispatchQueue(label: "DuktapeWeb.HTTPCache.meta")

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
        /// The bytes of its meta file (not stored in it: set when written or read).
        var metaBytes = 0
        /// Which refresh made this version (not stored): see `refreshes`.
        var refresh = 0
        /// When this process last rewrote its meta file after a refresh (not stored).
        var metaWrittenAt: Date?
        /// A refresh not yet written to the meta file (not stored): see `metaRewriteInterval`.
        var metaDirty = false

        enum CodingKeys: String, CodingKey {
            case url, partition, status, statusText, headers, vary, storedAt, responseDate, lastUsed, size
        }

        /// An estimate of the entry's memory in the index: its strings' bytes, 16 more for each
        /// string, and 128 for the entry and its slot.
        var memoryEstimate: Int {
            var bytes = 128 + url.utf8.count + (partition?.utf8.count ?? 0) + statusText.utf8.count
            for header in headers { bytes += 16 + header.utf8.count }
            for (name, value) in vary { bytes += 32 + name.utf8.count + value.utf8.count }
            return bytes
        }

        /// What the entry counts against the capacity: its body, its meta file and its memory.
        var cost: Int { size + metaBytes + memoryEstimate }
    }

    /// A cache in `directory` (created when missing), holding at most `capacity` bytes (bodies,
    /// meta files and the index's memory) in at most `maximumEntries` entries (by default one
    /// per KiB of capacity, at most `defaultMaximumEntries`). Entries found in the directory
    /// are kept within both. Throws when the directory cannot be created.
    ///
    /// ```swift
    /// let cache = try HTTPCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("cache"))
    /// ```
    public init(directory: URL, capacity: Int = 50 << 20, maximumEntries: Int? = nil) throws {
        self.directory = directory
        self.capacity = max(0, capacity)
        self.maximumEntries = max(1, maximumEntries ?? min(max(0, capacity) / 1024, Self.defaultMaximumEntries))
        // Its owner's only: cached bodies may be private.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in files where name.hasSuffix(".partial") {
            Self.removeFile(directory.appendingPathComponent(name, isDirectory: false))  // a run that stopped mid-write
        }
        for name in files where name.hasSuffix(".meta") {
            let key = String(name.dropLast(5))
            let path = directory.appendingPathComponent(name, isDirectory: false).path
            // A meta file is read only when it could be an entry's (headers within the bound).
            guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
                  size.intValue <= 4 * maximumHeaderBytes + 4096,
                  let data = FileManager.default.contents(atPath: path),
                  var entry = try? JSONDecoder().decode(Entry.self, from: data),
                  entry.memoryEstimate <= maximumHeaderBytes,
                  FileManager.default.fileExists(atPath: bodyFile(key).path) else {
                removeFiles(key)
                continue
            }
            entry.metaBytes = data.count
            put(entry, at: key)
        }
        for name in files where name.hasSuffix(".body") && index[String(name.dropLast(5))] == nil {
            Self.removeFile(directory.appendingPathComponent(name, isDirectory: false))  // a body without its meta
        }
        evict(keeping: nil)  // within this cache's capacity and entry count, whatever made the files
    }

    /// The most bytes of an entry's headers (with its URL, as `Entry.memoryEstimate` counts
    /// them): an eighth of the capacity, as for bodies. A response with more is not stored.
    var maximumHeaderBytes: Int { capacity / 8 }

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
            defer {
                index = [:]
                totalCost = 0
            }
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
                return WebCookie.parseDate(expires).map { $0.timeIntervalSince(entry.responseDate) } ?? 0
            }
            if let modified = header("last-modified").flatMap(WebCookie.parseDate) {
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
            index[key] = entry  // the same cost: `lastUsed` is not part of it
            return Stored(entry: entry, body: bodyFile(key), key: key)
        }
    }

    /// After a 304: the stored entry with the new response's headers merged, fresh again. The
    /// index has it at once; its meta file is rewritten on the cache's own queue (until then, or
    /// if the process ends first, the file holds the version before: served stale, it is
    /// revalidated again).
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
        // Headers grown past the bound are served this once, not stored: the entry stays as it
        // was (stale, so revalidated again next time).
        guard entry.memoryEstimate <= maximumHeaderBytes else { return updated }
        let key = stored.key
        let refresh = lock.withLock { () -> Int? in
            // Only an entry still there (not evicted or invalidated meanwhile) is refreshed.
            guard let current = self.index[key] else { return nil }
            refreshes += 1
            entry.refresh = refreshes
            entry.metaBytes = current.metaBytes  // the file on disk until the new one is in place
            entry.metaWrittenAt = current.metaWrittenAt
            // Rewritten at most once an interval when only the times changed (Date, Age and
            // when it was stored: a meta file left behind then makes a reopened entry look
            // older, never fresher); kept in memory and written by the next refresh after the
            // interval (or `waitForMetaWrites`). Any other header is written at once.
            let withinInterval = current.metaWrittenAt.map { written in
                let elapsed = now.timeIntervalSince(written)
                return elapsed >= 0 && elapsed < Self.metaRewriteInterval
            } ?? false
            let recent = withinInterval && Self.headersExceptTimes(current.headers) == Self.headersExceptTimes(merged)
            entry.metaDirty = recent
            put(entry, at: key)
            evict(keeping: key, evenItself: false)  // its body is about to be served
            return recent ? nil : entry.refresh
        }
        if let refresh {
            metaWrites.async { self.rewriteMeta(key, refresh: refresh) }
        }
        return updated
    }

    /// The shortest time between two rewrites of one entry's meta file after refreshes that
    /// change only its times (a page that revalidates a resource on every request got a file
    /// written per request: 9.5 % of W12's CPU). The index in memory has every refresh; a meta
    /// file left behind by such refreshes makes a reopened cache see the entry as older than it
    /// is (revalidated sooner), never fresher. A refresh that changes another header (freshness,
    /// validators) is written at once.
    static let metaRewriteInterval: TimeInterval = 1

    /// A header list without the headers a 304 changes every time (Date, Age), names lowercased.
    static func headersExceptTimes(_ headers: [String]) -> [String] {
        var kept: [String] = []
        var index = 0
        while index + 1 < headers.count {
            let name = headers[index].lowercased()
            if name != "date" && name != "age" { kept += [name, headers[index + 1]] }
            index += 2
        }
        return kept
    }

    /// Returns once the meta writes queued so far are done, without flushing (tests).
    func metaWriteQueueDrained() {
        metaWrites.sync {}
    }

    /// Meta files rewritten after refreshes so far (tests).
    var metaRewrites: Int { lock.withLock { metaRewriteCount } }

    /// Writes the refreshes not yet written, and returns once the meta writes queued so far are
    /// done (tests; a cache reopened in the same process after a refresh).
    func waitForMetaWrites() {
        let dirty = lock.withLock { index.compactMap { $0.value.metaDirty ? ($0.key, $0.value.refresh) : nil } }
        for (key, refresh) in dirty {
            metaWrites.async { self.rewriteMeta(key, refresh: refresh) }
        }
        metaWriteQueueDrained()
    }

    /// Writes the meta file of `key`'s entry as refresh number `refresh` made it, unless the
    /// entry changed since: encoded and written outside the lock, put in place under it (so
    /// that a meta file never outlives its entry's removal).
    private func rewriteMeta(_ key: String, refresh: Int) {
        guard let snapshot = lock.withLock({ index[key].flatMap { $0.refresh == refresh ? $0 : nil } }),
              let data = try? JSONEncoder().encode(snapshot) else { return }
        guard let partial = partialMeta(data, named: key + ".meta.refresh.partial") else { return }
        lock.withLock {
            guard var latest = index[key], latest.refresh == refresh else {
                try? FileManager.default.removeItem(at: partial)
                return
            }
            guard commitMeta(partial, key: key) else { return }
            latest.metaBytes = data.count
            latest.metaWrittenAt = Date()
            latest.metaDirty = false
            metaRewriteCount += 1
            put(latest, at: key)
            evict(keeping: key, evenItself: false)
        }
    }

    /// Writes `data` to the partial file `name` (a refresh writes outside the lock, so it has a
    /// name of its own), readable by the owner only from its creation (no fsync: the rename
    /// that follows makes it the entry's, and a meta file lost in a crash costs a
    /// revalidation). Its URL, or nil (nothing left behind). `init` removes partial files.
    private func partialMeta(_ data: Data, named name: String) -> URL? {
        let partial = directory.appendingPathComponent(name, isDirectory: false)
        let descriptor = open(partial.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        let written = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        close(descriptor)
        guard written else {
            try? FileManager.default.removeItem(at: partial)
            return nil
        }
        return partial
    }

    /// Renames `partial` to `key`'s meta file; false (and the partial removed) when it cannot.
    private func commitMeta(_ partial: URL, key: String) -> Bool {
        guard rename(partial.path, directory.appendingPathComponent(key + ".meta", isDirectory: false).path) == 0 else {
            try? FileManager.default.removeItem(at: partial)
            return false
        }
        return true
    }

    /// Sets or removes `key`'s entry, keeping `totalCost`. Called with the lock held (or from
    /// `init`).
    private func put(_ entry: Entry?, at key: String) {
        if let old = index[key] { totalCost -= old.cost }
        index[key] = entry
        if let entry { totalCost += entry.cost }
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
            temporary = cache.directory.appendingPathComponent("\(key)-\(UUID().uuidString).partial", isDirectory: false)
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
        guard entry.memoryEstimate <= maximumHeaderBytes else { return nil }  // headers too large to keep
        return Writer(cache: self, entry: entry, key: Self.key(url, partition: partition))
    }

    /// Removes the entries of `url` (an unsafe method succeeded on it, or its body went
    /// missing), in every partition.
    func invalidate(_ url: String) {
        lock.withLock {
            for (key, entry) in index where entry.url == url {
                put(nil, at: key)
                removeFiles(key)
            }
        }
    }

    // MARK: - Files

    /// Puts a finished body in place (renamed over the old one, atomically) with its meta, then
    /// evicts the least recently used past the capacity or the entry count: all under the lock,
    /// so that files and index never disagree between transfers.
    private func install(_ entry: Entry, key: String, from temporary: URL) {
        lock.withLock {
            guard rename(temporary.path, bodyFile(key).path) == 0 else {
                try? FileManager.default.removeItem(at: temporary)
                return
            }
            var entry = entry
            entry.metaBytes = writeMeta(entry, key: key)
            put(entry, at: key)
            evict(keeping: key)
        }
    }

    /// Removes the least recently used entries (other than `key`'s) while the entries' costs
    /// exceed the capacity or they are more than `maximumEntries`; then, if `evenItself`, `key`'s
    /// own entry when the cache is still over. Called with the lock held (or from `init`).
    private func evict(keeping key: String?, evenItself: Bool = true) {
        guard totalCost > capacity || index.count > maximumEntries else { return }
        for (candidate, _) in index.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            guard totalCost > capacity || index.count > maximumEntries else { break }
            guard candidate != key else { continue }
            put(nil, at: candidate)
            removeFiles(candidate)
        }
        if let key, evenItself, totalCost > capacity || index.count > maximumEntries, index[key] != nil {
            put(nil, at: key)
            removeFiles(key)
        }
    }

    /// Writes `entry`'s meta file (under a temporary name, renamed into place); returns its
    /// size in bytes (what it will take once written; 0 when it could not be written).
    @discardableResult
    private func writeMeta(_ entry: Entry, key: String) -> Int {
        guard let data = try? JSONEncoder().encode(entry), let partial = partialMeta(data, named: key + ".meta.partial"),
              commitMeta(partial, key: key) else { return 0 }
        return data.count
    }

    private func bodyFile(_ key: String) -> URL {
        directory.appendingPathComponent(key + ".body", isDirectory: false)
    }

    private func removeFiles(_ key: String) {
        Self.removeFile(directory.appendingPathComponent(key + ".meta", isDirectory: false))
        Self.removeFile(bodyFile(key))
    }

    /// Removes the file at `url`; anything else there (a directory someone put in the cache's
    /// directory under an entry's name) is left alone.
    private static func removeFile(_ url: URL) {
        _ = unlink(url.path)
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
            if headers[index].lowercased() == "date" { return WebCookie.parseDate(headers[index + 1]) }
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
