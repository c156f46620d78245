import Foundation
import Logging

/// How a `WebLoader` works: its pages, timeouts, where streams are written, and how bytes
/// cross the bridge.
///
/// ```swift
/// var configuration = WebLoaderConfiguration()
/// configuration.timeout = 30
/// configuration.streamDirectory = URL(fileURLWithPath: "/var/tmp/downloads")
/// let loader = WebLoader(configuration: configuration)
/// ```
public struct WebLoaderConfiguration: Sendable {
    /// How bytes cross between Swift and the page.
    public enum BinaryEncoding: String, Sendable {
        /// `Uint8Array` in the page, `Data` in Swift (the default: no encoding, one copy each way).
        case bytes
        /// Base64 strings both ways, as LWWebLoader's wire format.
        case base64
    }

    /// The configuration of the loader's pages (one per origin): their request policy,
    /// console, time and memory limits, user agent. Its user content controller is replaced
    /// by the loader's, and its `requestTimeout` by `timeout`.
    ///
    /// ```swift
    /// configuration.page.requestPolicy = RequestPolicy(allowedHosts: ["api.example.com"])
    /// ```
    public var page = WebPageConfiguration()
    /// How long a request may go without news from its page (its response, a chunk), in
    /// seconds, or nil for no limit. One-shot requests also have it as their `fetch` timeout.
    ///
    /// ```swift
    /// configuration.timeout = 30
    /// ```
    public var timeout: TimeInterval? = 60
    /// Where `downloadStream` writes its files (each named after a fresh UUID).
    ///
    /// ```swift
    /// configuration.streamDirectory = FileManager.default.temporaryDirectory
    /// ```
    public var streamDirectory = FileManager.default.temporaryDirectory
    /// How bytes cross the bridge: `Uint8Array`/`Data` by default, or base64 strings.
    ///
    /// ```swift
    /// configuration.binaryEncoding = .base64
    /// ```
    public var binaryEncoding = BinaryEncoding.bytes
    /// Where the page's `log(…)` (the `nativeLog` method and the `nativelog` handler) writes.
    ///
    /// ```swift
    /// configuration.logger = Logger(label: "loader")
    /// ```
    public var logger = Logger(label: "DuktapeWeb.WebLoader")

    /// The default configuration.
    ///
    /// ```swift
    /// let configuration = WebLoaderConfiguration()
    /// ```
    public init() {}
}
