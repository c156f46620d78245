import DuktapeRuntime
import Foundation
import Logging

/// How a `WebPage` is set up (WebKit's `WKWebViewConfiguration` and the web view's
/// `customUserAgent`).
///
/// ```swift
/// var configuration = WebPageConfiguration()
/// configuration.userAgent = "MyApp/1.0"
/// configuration.consoleOutput = .standardStreams
/// let page = try WebPage(configuration: configuration)
/// ```
public struct WebPageConfiguration: Sendable {
    /// The page's message handlers and user scripts.
    ///
    /// ```swift
    /// configuration.userContentController.add(name: "bridge") { _ in }
    /// ```
    public var userContentController = UserContentController()
    /// `navigator.userAgent` (and, with networking, the `User-Agent` header).
    ///
    /// ```swift
    /// configuration.userAgent = "MyApp/1.0"
    /// ```
    public var userAgent = "Mozilla/5.0 (X11; Linux x86_64) DuktapeWeb/1.0"
    /// Where the page's `console` writes, and where uncaught exceptions (in timers, listeners,
    /// promise reactions) are reported as `Uncaught …` errors. The default, `.discarded`, drops
    /// them, as WKWebView keeps a page's console to its inspector: pass your `Logger`
    /// (`.logger(logger)`) or `.standardStreams` to see them.
    ///
    /// ```swift
    /// configuration.consoleOutput = .standardStreams
    /// ```
    public var consoleOutput = ConsoleOutput.discarded
    /// How long one macrotask of the page (a script element, a timer, a message reply, an
    /// `evaluateJavaScript`) may run, in seconds, or nil for no limit
    /// (`JSVirtualMachine.executionTimeLimit`). A task past it throws an uncatchable error.
    ///
    /// ```swift
    /// configuration.executionTimeLimit = 0.5
    /// ```
    public var executionTimeLimit: TimeInterval?
    /// The most bytes the page's heap may hold, or nil for no limit (`JSVirtualMachine.memoryLimit`).
    ///
    /// ```swift
    /// configuration.memoryLimit = 64 << 20
    /// ```
    public var memoryLimit: Int?
    /// The most script messages (`webkit.messageHandlers.<name>.postMessage`) that may wait for
    /// their handlers at once: 1,024 by default. Past it, `postMessage` throws an `Error` (with a
    /// reply handler, its promise rejects) saying so; the page may post again once handlers
    /// have caught up.
    ///
    /// ```swift
    /// configuration.maximumMessagesInFlight = 64
    /// ```
    public var maximumMessagesInFlight = 1_024
    /// The most bytes of script messages (as the host holds them: data, text, keys) that may
    /// wait for their handlers at once: 64 MiB by default, refused as `maximumMessagesInFlight`
    /// is. A single message larger than this is taken when no other waits.
    ///
    /// ```swift
    /// configuration.maximumMessageBytesInFlight = 8 << 20
    /// ```
    public var maximumMessageBytesInFlight = 64 << 20
    /// The most `fetch` transfers (and `<script src>` loads) of the page that do network work at
    /// once: 32 by default. Later ones wait, in order, for one to end (their timeouts run while
    /// they wait). Each holds a connection and at most a megabyte of body the page has not read,
    /// so the page's unread bytes are bounded by about this many megabytes. Connections per host
    /// are 8.
    ///
    /// ```swift
    /// configuration.maximumConcurrentTransfers = 8
    /// ```
    public var maximumConcurrentTransfers = 32
    /// Which URLs the page may fetch: any http or https host by default, no `file:` URL.
    ///
    /// ```swift
    /// configuration.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1"])
    /// ```
    public var requestPolicy = RequestPolicy()
    /// How long one of the page's requests may take, from sending it to the end of its body,
    /// in seconds, or nil for no limit (60 by default, as `URLRequest`'s). A request past it
    /// fails with a `TimeoutError` `DOMException`. A request's own `timeout` (in milliseconds,
    /// a `RequestInit` member this host adds) takes precedence. A value that is not a finite
    /// number, 0 or more, means no limit.
    ///
    /// ```swift
    /// configuration.requestTimeout = 10
    /// ```
    public var requestTimeout: TimeInterval? = 60
    /// The page's cookies (`Set-Cookie`, the `Cookie` header, `document.cookie`), or nil for
    /// none. By default a store in memory, shared by the pages made with this configuration;
    /// give one with a file to keep them across runs.
    ///
    /// ```swift
    /// configuration.cookieStore = CookieStore(file: URL(fileURLWithPath: "cookies.json"))
    /// ```
    public var cookieStore: CookieStore? = CookieStore()
    /// The page's HTTP cache, or nil for none. By default one cache for the process, 50 MB in
    /// the user's cache directory (`~/.cache/DuktapeWeb`, readable by the user only), kept
    /// across runs; nil when that directory cannot be made.
    ///
    /// ```swift
    /// configuration.httpCache = try HTTPCache(directory: cacheDirectory, capacity: 200 << 20)
    /// configuration.httpCache = nil   // no caching
    /// ```
    public var httpCache: HTTPCache? = HTTPCache.shared
    /// What the page's `WebSocket`s may hold: message size, connections, unread and unsent
    /// bytes, the handshake's time (`WebSocketLimits`). The request policy applies to their
    /// URLs as to `fetch`'s.
    ///
    /// ```swift
    /// configuration.webSocketLimits.maximumConnections = 8
    /// ```
    public var webSocketLimits = WebSocketLimits()

    /// The default configuration: no handlers or user scripts, the default user agent, the
    /// console on swift-log.
    ///
    /// ```swift
    /// let configuration = WebPageConfiguration()
    /// ```
    public init() {}
}
