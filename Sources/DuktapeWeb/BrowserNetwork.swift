import DuktapeCore
import DuktapeRuntime
import Foundation

/// The networked browser globals in a context of your own: `fetch` (with `Request`,
/// `Response`, `ReadableStream`) and `WebSocket` (with `MessageEvent`, `CloseEvent`), beside
/// the globals of `BrowserGlobals`, on your `JSEventLoop` — what `dukjs --web` gives a script.
/// Keep it while the script runs; `shutdown()` closes its connections.
///
/// ```swift
/// let context = JSContext()!
/// let loop = JSEventLoop(context: context)
/// let network = try BrowserNetwork(context: context, loop: loop)
/// try loop.start()
/// _ = try await loop.evaluate("fetch('http://127.0.0.1:8080/ping').then(function (r) { return r.status })")
/// await network.shutdown()
/// ```
///
/// The context has no document: relative URLs are errors, the `Origin` of requests and
/// handshakes is "null", and `same-origin` credentials send no cookies. The configuration's
/// request policy, timeout, cookie store, HTTP cache and WebSocket limits apply as in a page.
public final class BrowserNetwork: Sendable {
    let network: PageNetwork
    let webSockets: PageWebSockets
    /// What the globals' files returned (a page's page.js takes its `dispatch`).
    let globals: PageSeam.Globals

    /// Installs the globals in `context`, whose loop is `loop`, with the networking of
    /// `configuration` (its user content controller, console and limits are not used).
    /// Throws the `JSException` of a context that cannot run the set-up.
    ///
    /// ```swift
    /// let network = try BrowserNetwork(context: context, loop: loop, configuration: WebPageConfiguration())
    /// ```
    public convenience init(context: JSContext, loop: JSEventLoop, configuration: WebPageConfiguration = WebPageConfiguration()) throws {
        try self.init(context: context, loop: loop, configuration: configuration, documentURL: { nil })
    }

    /// The globals of a page whose URL `documentURL` reads (the base of relative URLs, the
    /// origin of requests); its WebSockets stop reading while `backlogIsHigh`.
    init(context: JSContext, loop: JSEventLoop, configuration: WebPageConfiguration, documentURL: @escaping @Sendable () -> URL?,
         backlogIsHigh: @escaping @Sendable () -> Bool = { false }) throws {
        network = PageNetwork(
            loop: loop, policy: configuration.requestPolicy, userAgent: configuration.userAgent,
            defaultTimeout: configuration.requestTimeout.flatMap { seconds in
                seconds.isFinite && seconds >= 0 ? .milliseconds(Int64((min(seconds, 1e9) * 1000).rounded())) : nil
            },
            cookies: configuration.cookieStore, cache: configuration.httpCache,
            maximumConcurrentTransfers: configuration.maximumConcurrentTransfers, documentURL: documentURL)
        webSockets = PageWebSockets(
            loop: loop, policy: configuration.requestPolicy, userAgent: configuration.userAgent, cookies: configuration.cookieStore,
            limits: configuration.webSocketLimits, documentURL: documentURL, backlogIsHigh: backlogIsHigh)
        let documentURLFunction = JSValue(newFunctionIn: context) { () -> String? in documentURL()?.absoluteString }
        globals = try BrowserGlobals.install(in: context, fetch: network.natives(in: context, documentURL: documentURLFunction),
                                             webSocket: webSockets.natives(in: context, documentURL: documentURLFunction))
        network.events = globals.transferEvents
        webSockets.events = globals.webSocketEvents
    }

    deinit {
        close()
    }

    /// Abandons the transfers and closes the WebSockets (1001); idempotent.
    ///
    /// ```swift
    /// network.close()
    /// ```
    public func close() {
        network.cancelAll()
        webSockets.closeAll()
    }

    /// `close()`, then returns once nothing of the network runs any more.
    ///
    /// ```swift
    /// await network.shutdown()
    /// ```
    public func shutdown() async {
        await network.shutdown()
        await webSockets.shutdown()
    }
}
