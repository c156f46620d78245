import Foundation

/// The cookie stage of the page's network: whether a request carries the page's cookies (its
/// credentials mode, and the page's origin), their `Cookie` header, and the `Set-Cookie` values
/// of its responses stored back, for `fetch` and `<script src>` alike.
struct CookieScope: Sendable {
    /// The page's cookie store (nil: the page keeps no cookies; a `Cookie` header the page
    /// writes then goes out as written).
    let store: CookieStore?
    /// The page's URL, read for each request (`same-origin` compares with its origin).
    let documentURL: @Sendable () -> URL?

    /// Whether the store's cookies go with (and come back from) `request`: never for `omit`,
    /// always for `include`, and for `same-origin` when the request's origin is the page's.
    func sends(_ request: FetchRequest) -> Bool {
        guard store != nil else { return false }
        switch request.credentials {
        case .include: return true
        case .omit: return false
        case .sameOrigin:
            guard let page = documentURL()?.absoluteString, let origin = URLRecord.parse(page)?.origin else { return false }
            return origin == request.url.origin && origin != "null"
        }
    }

    /// The `Cookie` header for a request to `url`, or nil when no cookie applies.
    func header(for url: URLRecord) -> String? {
        URL(string: url.href).flatMap { store?.header(for: $0) }
    }

    /// Stores the `Set-Cookie` values of a response from `url`.
    func receive(_ setCookies: [String], from url: URLRecord) {
        guard !setCookies.isEmpty, let address = URL(string: url.href) else { return }
        store?.receive(setCookies, from: address)
    }

    /// The store's cache partition: responses to requests that carried its cookies are cached
    /// apart from other stores' (nil without a store).
    var partition: String? { store?.partition }
}
