import Foundation
import NIOHTTP1

/// The cache stage of the page's network, for one request (one hop of its redirects): the
/// cache's partition, the mode that applies, the stored response found, and what the response
/// does to the cache. For `fetch` and `<script src>` alike.
///
/// The cache is keyed by the page's origin, as browsers partition theirs, so no page learns what
/// another origin's pages fetched; and by the cookie store's partition when the store's cookies
/// went with the request. A page's own conditional or range request bypasses the cache (Fetch's
/// rule), as does a request with credentials in `Authorization`, or in a `Cookie` header the
/// page wrote itself (there is no store to partition by).
struct CachePlan {
    private let cache: HTTPCache?
    /// The request's URL without its fragment.
    let key: String
    let partition: String
    /// The headers sent, which the cache compares `Vary` against.
    let sentHeaders: [(name: String, value: String)]
    /// The request's cache mode, as it applies.
    let mode: FetchRequest.CacheMode
    /// Whether the response may be stored (and a stored one used).
    let cacheable: Bool
    /// The stored response for the request, if any.
    private(set) var stored: HTTPCache.Stored?

    /// Request headers with which a page makes its own conditional or range request.
    static let bypassingHeaders: Set<String> = ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since",
                                                "if-range", "range"]

    /// The plan for `request`, sent with `headers`, from a page of `pageOrigin` whose cookie
    /// store has `cookiePartition` (nil: the page has no store).
    init(request: FetchRequest, headers: HTTPHeaders, cache: HTTPCache?, pageOrigin: String, cookiePartition: String?) {
        var address = request.url
        address.fragment = nil
        key = address.href
        self.cache = cache
        sentHeaders = headers.map { (name: $0.name, value: $0.value) }
        let sendsCookie = headers.contains(name: "cookie")
        partition = sendsCookie && cookiePartition != nil ? pageOrigin + "\n" + (cookiePartition ?? "") : pageOrigin
        var mode = request.cache
        if mode == .default, request.headers.contains(where: { Self.bypassingHeaders.contains($0.name.lowercased()) }) {
            mode = .noStore
        }
        if headers.contains(name: "authorization") || (cookiePartition == nil && sendsCookie) {
            mode = .noStore
        }
        self.mode = mode
        cacheable = cache != nil && request.method == "GET" && mode != .noStore
        stored = cacheable && mode != .reload ? cache?.lookup(key, partition: partition, requestHeaders: sentHeaders) : nil
    }

    /// The stored response to answer with, without the network: any for `only-if-cached` and
    /// `force-cache`, a fresh one for `default`.
    func answer(now: Date) -> HTTPCache.Stored? {
        guard let stored else { return nil }
        switch mode {
        case .onlyIfCached, .forceCache: return stored
        case .default: return stored.isFresh(now: now) ? stored : nil
        case .noStore, .reload, .noCache: return nil
        }
    }

    /// The stored response's body went missing: the entry goes, and the network answers.
    mutating func lostBody() {
        cache?.invalidate(key)
        stored = nil
    }

    /// Throws when the request may not go to the network (`only-if-cached` with nothing stored).
    func checkNetworkAllowed() throws {
        if mode == .onlyIfCached, stored == nil {
            throw FetchFailure(.notCached, "\(key) is not in the cache (the request's cache mode is 'only-if-cached')")
        }
    }

    /// Adds `If-None-Match` and `If-Modified-Since` from the stored response; returns whether
    /// the request became conditional.
    func addValidators(to headers: inout HTTPHeaders) -> Bool {
        guard let stored else { return false }
        var added = false
        if let tag = stored.header("etag") {
            headers.replaceOrAdd(name: "If-None-Match", value: tag)
            added = true
        }
        if let modified = stored.header("last-modified") {
            headers.replaceOrAdd(name: "If-Modified-Since", value: modified)
            added = true
        }
        return added
    }

    /// A successful response to a method that changes the resource invalidates its entry.
    func responded(method: String, status: Int) {
        if method != "GET" && method != "HEAD" && (200..<400).contains(status) { cache?.invalidate(key) }
    }

    /// After a 304 to a conditional request: the stored response with `headers` merged.
    func refreshed(with headers: [String]) -> HTTPCache.Stored? {
        guard let stored, let cache else { return nil }
        return cache.refresh(stored, with: headers)
    }

    /// Where the response's body is stored as it arrives, when it may be stored.
    func writer(status: Int, statusText: String, headers: [String]) -> HTTPCache.Writer? {
        guard cacheable, let cache, cache.mayStore(status: status, headers: headers, requestHeaders: sentHeaders) else { return nil }
        return cache.writer(url: key, partition: partition, status: status, statusText: statusText, headers: headers,
                            requestHeaders: sentHeaders)
    }
}
