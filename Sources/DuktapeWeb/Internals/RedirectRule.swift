import Foundation

/// The redirect stage of the page's network: what a response with a redirect status and a
/// `Location` makes of the request that got it (Fetch's "HTTP-redirect fetch"), for `fetch`
/// and `<script src>` alike.
enum RedirectRule {
    /// The statuses that redirect when the response has a `Location`.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// The most redirects one request follows.
    static let maximumHops = 20

    /// What the redirect does.
    enum Outcome: Sendable {
        /// The request to send next (`follow`).
        case follow(FetchRequest)
        /// The page gets an opaque-redirect response (`manual`).
        case manual
    }

    /// The outcome of `status` redirecting `request` to `location` after `hops` earlier
    /// redirects, in the request's redirect mode. Throws for `error` mode, past
    /// `maximumHops`, and for a location that is not an http(s) URL. A 303 (but to HEAD), and a
    /// 301 or 302 to POST, turn the request into a GET without a body or its body's headers;
    /// credentials (Authorization, Cookie, Proxy-Authorization) stay with their origin.
    static func apply(status: Int, location: String, to request: FetchRequest, hops: Int) throws -> Outcome {
        switch request.redirect {
        case .error:
            throw FetchFailure(.redirect, "\(request.url.href) redirected (\(status)) and the request's redirect mode is 'error'")
        case .manual:
            return .manual
        case .follow:
            guard hops < maximumHops else { throw FetchFailure(.redirect, "\(request.url.href): more than \(maximumHops) redirects") }
            guard let next = URLRecord.parse(location, base: request.url), next.scheme == "http" || next.scheme == "https" else {
                throw FetchFailure(.redirect, "\(request.url.href) redirected to '\(location)', which is not an http(s) URL")
            }
            var followed = request
            if (status == 303 && request.method != "HEAD") || ((status == 301 || status == 302) && request.method == "POST") {
                followed.method = "GET"
                followed.body = nil
                followed.headers.removeAll { bodyHeaders.contains($0.name.lowercased()) }
            }
            if next.origin != request.url.origin {
                followed.headers.removeAll { credentialHeaders.contains($0.name.lowercased()) }
            }
            followed.url = next
            return .follow(followed)
        }
    }

    private static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]
    private static let bodyHeaders: Set<String> = ["content-encoding", "content-language", "content-location", "content-type"]
}
