import Foundation

/// A document's origin as WebKit's `WKSecurityOrigin` gives it: the scheme, the host, and the
/// port, 0 when it is the scheme's default. An opaque origin (a document without a URL, a
/// `file:` or `data:` one) has all three empty: it equals only another opaque origin here,
/// where browsers make each unique, so a check that wants an origin compares with one.
///
/// ```swift
/// let origin = SecurityOrigin(protocol: "http", host: "127.0.0.1", port: 8080)
/// if message.frameInfo.securityOrigin == origin { /* from that server's pages */ }
/// ```
public struct SecurityOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercase, without ":" ("https"); empty for an opaque origin.
    ///
    /// ```swift
    /// let secure = origin.protocol == "https"
    /// ```
    public let `protocol`: String
    /// The host, lowercase (an IPv6 address without brackets); empty for an opaque origin.
    ///
    /// ```swift
    /// let host = origin.host
    /// ```
    public let host: String
    /// The port, 0 for the scheme's default (and for an opaque origin).
    ///
    /// ```swift
    /// let port = origin.port
    /// ```
    public let port: Int

    /// An origin from its parts, as given (compare with a page's: lowercase, 0 for the default
    /// port).
    ///
    /// ```swift
    /// let origin = SecurityOrigin(protocol: "https", host: "app.example", port: 0)
    /// ```
    public init(protocol: String, host: String, port: Int) {
        self.protocol = `protocol`
        self.host = host
        self.port = port
    }

    /// The origin of a document at `url` (opaque for nil and for schemes without one).
    init(url: URL?) {
        guard let url, var record = URLRecord.parse(url.absoluteString), record.origin != "null" else {
            self.init(protocol: "", host: "", port: 0)
            return
        }
        if record.scheme == "blob", let inner = URLRecord.parse(record.pathname) { record = inner }
        let host = record.host ?? ""
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.init(protocol: record.scheme, host: bare, port: record.port ?? 0)
    }

    /// The origin as browsers serialize it ("https://app.example", "null" when opaque).
    ///
    /// ```swift
    /// let origin = SecurityOrigin(protocol: "http", host: "127.0.0.1", port: 8080)
    /// print(origin)   // prints: http://127.0.0.1:8080
    /// ```
    public var description: String {
        guard !`protocol`.isEmpty else { return "null" }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(`protocol`)://\(hostPart)" + (port == 0 ? "" : ":\(port)")
    }
}
