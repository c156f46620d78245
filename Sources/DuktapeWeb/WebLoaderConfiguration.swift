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
    public var page = WebLoaderConfiguration.defaultPage
    /// The loader pages' defaults: a page's, with a memory limit (`defaultPageMemoryLimit`), so
    /// that no response can grow a loader's page without bound.
    ///
    /// ```swift
    /// print(WebLoaderConfiguration.defaultPage.memoryLimit ?? 0)   // prints: 268435456
    /// ```
    public static var defaultPage: WebPageConfiguration {
        var page = WebPageConfiguration()
        page.memoryLimit = defaultPageMemoryLimit
        return page
    }
    /// The memory limit of a loader's pages by default: 256 MiB.
    ///
    /// ```swift
    /// configuration.page.memoryLimit = WebLoaderConfiguration.defaultPageMemoryLimit * 2
    /// ```
    public static let defaultPageMemoryLimit = 256 << 20
    /// The most bytes a body read by an in-memory method (`getData`, `postData`, `uploadData`,
    /// `downloadFile`) may have, or nil for no limit; 32 MiB by default. A longer body fails the
    /// request with an error that says so, as soon as its Content-Length or the bytes read pass
    /// the limit. `downloadStream` writes a body of any size to a file and has no such limit.
    ///
    /// ```swift
    /// configuration.maximumBodySize = 4 << 20
    /// ```
    public var maximumBodySize: Int? = 32 << 20
    /// The most pages (one per origin, each with a thread of its own) the loader keeps: 16 by
    /// default. A request to a new origin when the pool is full closes the page least recently
    /// used that has no request running; when every page has requests running, it fails with an
    /// error that says so.
    ///
    /// ```swift
    /// configuration.maximumPages = 4
    /// ```
    public var maximumPages = 16
    /// How long a page with no request running is kept for the next request to its origin, in
    /// seconds: 30 by default; nil keeps idle pages until the pool needs room or the loader
    /// closes.
    ///
    /// ```swift
    /// configuration.pageIdleTimeout = 5
    /// ```
    public var pageIdleTimeout: TimeInterval? = 30
    /// How long a request may go without news from its page (its response, a chunk), in
    /// seconds, or nil for no limit. One-shot requests also have it as their `fetch` timeout.
    ///
    /// ```swift
    /// configuration.timeout = 30
    /// ```
    public var timeout: TimeInterval? = 60
    /// Where `downloadStream` writes its files, unless a request names its own directory
    /// (`WebLoaderRequest.streamDirectory`): the temporary directory by default. Each file is
    /// new (`DuktapeWeb-<UUID>.download`, created with `O_EXCL`, so never an existing file or a
    /// link's target) and readable and writable by its owner only (mode 0600: the temporary
    /// directory is shared). A stream that fails or is cancelled removes its file; after
    /// `streamEnd` the file is the caller's, to move or remove. Choose a directory on the
    /// file system where the file should end up, so that moving it is a rename.
    ///
    /// ```swift
    /// configuration.streamDirectory = URL(fileURLWithPath: "/var/lib/myapp/downloads")
    /// ```
    public var streamDirectory = FileManager.default.temporaryDirectory
    /// Whether a response with a status of 400 or more fails its request with
    /// `WebLoaderError.httpStatus` (its body not delivered, its stream file not kept). False by
    /// default: such a response is delivered as any other, with its `status`, as `fetch` and
    /// `URLSession` deliver it and as LWWebLoader did (an error body, JSON or text, often says
    /// what went wrong).
    ///
    /// ```swift
    /// configuration.httpErrorsFail = true   // a 404 page is never saved as the download
    /// ```
    public var httpErrorsFail = false
    /// How bytes cross the bridge: `Uint8Array`/`Data` by default, or base64 strings.
    ///
    /// ```swift
    /// configuration.binaryEncoding = .base64
    /// ```
    public var binaryEncoding = BinaryEncoding.bytes
    /// Where the page's `log(…)` (the `nativeLog` method and the `nativelog` handler) writes.
    /// The default logs nothing: a library takes its host's logger rather than choosing where
    /// logs go (swift-log's advice), so pass yours to see them.
    ///
    /// ```swift
    /// configuration.logger = Logger(label: "loader")
    /// ```
    public var logger = Logger(label: "DuktapeWeb.WebLoader") { _ in SwiftLogNoOpLogHandler() }

    /// The default configuration.
    ///
    /// ```swift
    /// let configuration = WebLoaderConfiguration()
    /// ```
    public init() {}
}
