import Foundation

/// Which URLs a page may reach (the role of a web view controller's navigation and request
/// policy on iOS): http and https hosts, optionally only those in an allow-list, and `file:`
/// URLs only when a root directory is given, and only under it. Every request a page makes
/// (`fetch`, each redirect it follows, `<script src>`, a `WebSocket`'s handshake, whose ws and
/// wss URLs match the same hosts) is checked; one refused fails with a `TypeError` naming the
/// URL and the rule (a `WebSocket` gets `error` and `close` events).
///
/// ```swift
/// var configuration = WebPageConfiguration()
/// configuration.requestPolicy = RequestPolicy(allowedHosts: ["api.example.com", "127.0.0.1:8080"])
/// configuration.requestPolicy.fileAccessRoot = URL(fileURLWithPath: "/srv/pages")
/// ```
public struct RequestPolicy: Sendable, Equatable {
    /// The hosts http, https, ws and wss requests may go to, or nil for any host. An entry is a host
    /// (`example.com`, any port), a host and port (`127.0.0.1:8080`), or `*.example.com` (the
    /// subdomains of example.com, not example.com itself). Hosts compare as URLs spell them:
    /// lowercased, IPv6 addresses in brackets (`[::1]:8080`).
    ///
    /// ```swift
    /// policy.allowedHosts = ["example.com", "*.example.com"]
    /// ```
    public var allowedHosts: [String]?
    /// The directory `file:` URLs may read from (itself and what is under it, after symbolic
    /// links are resolved), or nil to refuse every `file:` URL (the default).
    ///
    /// ```swift
    /// policy.fileAccessRoot = Bundle.main.resourceURL
    /// ```
    public var fileAccessRoot: URL?

    /// A policy: any http or https host unless `allowedHosts` is given; no `file:` access
    /// unless `fileAccessRoot` is.
    ///
    /// ```swift
    /// let policy = RequestPolicy(allowedHosts: ["127.0.0.1"])
    /// ```
    public init(allowedHosts: [String]? = nil, fileAccessRoot: URL? = nil) {
        self.allowedHosts = allowedHosts
        self.fileAccessRoot = fileAccessRoot
    }

    /// Why `url` (a WHATWG-serialized absolute URL) may not be fetched, or nil when it may; a
    /// `webSocket`'s (the opening handshake of a `WebSocket`) is a ws or wss URL, checked
    /// against the same hosts.
    func refusal(of url: URLRecord, webSocket: Bool = false) -> String? {
        let isWebSocketScheme = url.scheme == "ws" || url.scheme == "wss"
        if webSocket != isWebSocketScheme {
            return "\(url.href) is refused: \(webSocket ? "a WebSocket's URL is ws or wss" : "ws and wss URLs are for WebSocket, not fetch")"
        }
        switch url.scheme {
        case "http", "https", "ws", "wss":
            guard let allowedHosts else { return nil }
            let host = url.host ?? ""
            let port = url.port ?? url.defaultPort ?? 0
            for rule in allowedHosts where Self.matches(rule.lowercased(), host: host, port: port) { return nil }
            return "\(url.href) is refused by the page's request policy: host \(host):\(port) is not in allowedHosts"
        case "file":
            guard let root = fileAccessRoot else {
                return "\(url.href) is refused by the page's request policy: file URLs are not enabled (no fileAccessRoot)"
            }
            guard let path = Self.filePath(url), Self.isPath(path, under: root) else {
                return "\(url.href) is refused by the page's request policy: the file is not under \(root.path)"
            }
            return nil
        default:
            return "\(url.href) is refused: the scheme '\(url.scheme)' is not supported (http, https, ws, wss and file are)"
        }
    }

    private static func matches(_ rule: String, host: String, port: Int) -> Bool {
        var ruleHost = rule
        var rulePort: Int?
        // "host:port", "[v6]:port"; a bare IPv6 address in brackets has no port.
        if let colon = rule.lastIndex(of: ":"), !rule.hasSuffix("]"), rule.first == "[" || rule.firstIndex(of: ":") == colon {
            guard let number = Int(rule[rule.index(after: colon)...]) else { return false }
            ruleHost = String(rule[..<colon])
            rulePort = number
        }
        if let rulePort, rulePort != port { return false }
        if ruleHost.hasPrefix("*.") {
            return host.hasSuffix(ruleHost.dropFirst())
        }
        return ruleHost == host
    }

    /// The local path of a `file:` URL (percent-decoded), or nil when it names a remote host.
    static func filePath(_ url: URLRecord) -> String? {
        guard url.host == nil || url.host == "" || url.host == "localhost" else { return nil }
        let decoded = PercentEncoding.decode(url.pathname)
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Whether a file opened for a file URL may be read: `realPath`, the opened descriptor's own
    /// path (what the kernel says it opened, after every link), is under `fileAccessRoot`. The
    /// check of `refusal(of:)` resolved the path before it was opened; a link changed in between
    /// is caught here.
    func allowsOpenedFile(atRealPath realPath: String) -> Bool {
        guard let root = fileAccessRoot else { return false }
        return Self.isPath(realPath, under: root)
    }

    private static func isPath(_ path: String, under root: URL) -> Bool {
        if path.utf8.contains(0) { return false }
        let resolved = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let base = root.standardizedFileURL.resolvingSymlinksInPath().path
        return resolved == base || resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }
}
