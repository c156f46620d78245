import DuktapeCore
import DuktapeRuntime
import Foundation

/// A headless page (WebKit's `WKWebView` without the view): one JavaScript context with the
/// browser globals, running on an event loop thread of its own, that loads HTML documents and
/// runs their scripts.
///
/// ```swift
/// let configuration = WebPageConfiguration()
/// configuration.userContentController.add(name: "bridge") { message in print(message.body ?? "") }
/// let page = try WebPage(configuration: configuration)
/// try await page.load(html: "<script>webkit.messageHandlers.bridge.postMessage({ ready: true })</script>",
///                     baseURL: URL(string: "https://app.example/"))
/// let title = try await page.evaluateJavaScript("document.readyState")   // "complete"
/// page.close()
/// ```
///
/// A page has `window`/`self`, `document` (an `EventTarget` with `readyState`), `location` (the
/// base URL's parts), `navigator.userAgent`, `webkit.messageHandlers`, the globals of
/// `BrowserGlobals`, timers and `queueMicrotask` (DuktapeRuntime's `EventLoop`) and `console`.
/// It has no DOM tree. Every operation runs on the page's thread; the `async` methods return when
/// it is done there, and may be called from any thread or task.
public final class WebPage: @unchecked Sendable {
    // @unchecked: `context` and `control` are used only on the loop's thread (inside `submit`
    // and `post`); `currentURL` is behind `lock`; the rest is immutable.

    /// The configuration the page was made with.
    public let configuration: WebPageConfiguration
    private let context: JSContext
    private let loop: EventLoop
    private let control: JSValue
    private let lock = NSLock()
    private var currentURL: URL?

    /// Makes a page and starts its thread. Throws the `JSException` of a context that cannot set
    /// up the page (a VM whose memory limit is already reached).
    ///
    /// ```swift
    /// let page = try WebPage()
    /// ```
    public init(configuration: WebPageConfiguration = WebPageConfiguration()) throws {
        self.configuration = configuration
        guard let context = JSContext() else { throw WebPageError.cannotCreateContext }
        self.context = context
        context.virtualMachine.executionTimeLimit = configuration.executionTimeLimit
        context.virtualMachine.memoryLimit = configuration.memoryLimit
        let output = configuration.consoleOutput
        context.exceptionHandler = { _, exception in
            output.write(.error, "Uncaught " + (exception.map { WebPage.describe(JSException($0)) } ?? "exception"))
        }
        loop = EventLoop(context: context)
        _ = Console(context: context, output: output)
        let internals = try BrowserGlobals.installReturningInternals(in: context)
        let controller = configuration.userContentController
        let post = JSValue(newFunctionIn: context) { [loop] (name: String, value: JSValue, resolve: JSValue?, reject: JSValue?) in
            WebPage.deliver(ScriptMessage(name: name, body: value.toObject()), resolve: resolve, reject: reject, via: controller, loop: loop)
        }
        control = try context.evaluate(PageScript.source, sourceName: "web:page.js")
            .call(context.globalObject, internals, ["post": post])
        try control.forProperty("setUserAgent").call(configuration.userAgent)
        for (name, kind) in controller.attach(self) {
            try control.forProperty("setHandler").call(name, kind)
        }
        try loop.start()
    }

    deinit {
        configuration.userContentController.detach(self)
        loop.stop()
    }

    /// Stops the page: its timers are cancelled, operations not yet run fail with
    /// `WebPageError.closed`, and its thread ends. Idempotent.
    ///
    /// ```swift
    /// page.close()
    /// ```
    public func close() {
        configuration.userContentController.detach(self)
        loop.stop()
    }

    /// The base URL of the last load (nil before one, or for a load without a base URL).
    ///
    /// ```swift
    /// let origin = page.url?.host
    /// ```
    public var url: URL? {
        lock.withLock { currentURL }
    }

    // MARK: - Loading

    /// Loads `html` as the page's document: runs the user scripts at document start, the
    /// document's `<script>` elements in document order, the user scripts at document end,
    /// then fires `DOMContentLoaded` (on `document`, bubbling to `window`) and `load` (on
    /// `window`), with `document.readyState` going from "loading" to "interactive" to
    /// "complete". Returns when `load` has been dispatched.
    ///
    /// ```swift
    /// let result = try await page.load(html: "<script>var ready = true</script>", baseURL: nil)
    /// ```
    ///
    /// A script that throws does not stop the load (its error is in the result and on the
    /// console, as browsers report it). Module scripts, data blocks and `src` scripts are not run
    /// and are listed in the result. The globals of an earlier load stay (there is one
    /// context per page).
    @discardableResult
    public func load(html: String, baseURL: URL?) async throws -> PageLoad {
        let scripts = HTMLScript.scripts(in: html)
        let attributes = baseURL.flatMap { URLRecord.parse($0.absoluteString)?.attributes }
        let userScripts = configuration.userContentController.userScripts
        let output = configuration.consoleOutput
        lock.withLock { currentURL = baseURL }
        return try await submit { [control] context in
            var result = PageLoad()
            if let attributes { try control.forProperty("setLocation").call(attributes) }
            try control.forProperty("setReadyState").call("loading")
            func run(_ source: String, sourceURL: URL?) {
                do {
                    _ = try context.evaluate(source, sourceURL: sourceURL)
                } catch {
                    let failure = WebPage.failure(error)
                    result.scriptErrors.append(failure)
                    output.write(.error, "Uncaught \(failure)")
                }
            }
            for script in userScripts where script.injectionTime == .atDocumentStart {
                run(script.source, sourceURL: nil)
            }
            for (index, script) in scripts.enumerated() {
                switch script.kind {
                case .module:
                    result.skippedScripts.append(.init(index: index, reason: "type=\"module\": modules are not supported"))
                case .other(let type):
                    result.skippedScripts.append(.init(index: index, reason: "type \"\(type)\" is not JavaScript"))
                case .classic:
                    if let source = script.source {
                        result.skippedScripts.append(.init(
                            index: index, reason: "src=\"\(source)\": external scripts need the page's networking (not built yet)"))
                    } else {
                        run(script.text, sourceURL: baseURL)
                    }
                }
            }
            for script in userScripts where script.injectionTime == .atDocumentEnd {
                run(script.source, sourceURL: nil)
            }
            try control.forProperty("setReadyState").call("interactive")
            try control.forProperty("setReadyState").call("complete")
            return result
        }
    }

    // MARK: - Evaluating

    /// Evaluates `script` in the page and returns its completion value converted as WebKit
    /// converts it (`JSValue.toObject()`: numbers as `NSNumber`, strings, `Bool`, arrays, objects
    /// as dictionaries, dates, `NSNull`; undefined is nil).
    ///
    /// ```swift
    /// let sum = try await page.evaluateJavaScript("1 + 2") as? Int   // 3
    /// ```
    ///
    /// Throws `WebPageError.javaScriptException` if the script throws, and
    /// `.unsupportedResultType` for a function, symbol or promise (use `callAsyncJavaScript` to
    /// wait for a promise).
    public func evaluateJavaScript(_ script: String) async throws -> Any? {
        try await submit { context in
            try WebPage.converted(try context.evaluate(script))
        }.value
    }

    /// `evaluateJavaScript(_:)` with a completion handler (WebKit's older form), called on an
    /// arbitrary thread.
    ///
    /// ```swift
    /// page.evaluateJavaScript("document.readyState") { result, error in print(result ?? error ?? "") }
    /// ```
    public func evaluateJavaScript(_ script: String, completionHandler: (@Sendable (Any?, (any Error)?) -> Void)?) {
        Task {
            do {
                let result = Box(value: try await evaluateJavaScript(script))
                completionHandler?(result.value, nil)
            } catch {
                completionHandler?(nil, error)
            }
        }
    }

    /// Runs `body` as the body of a function whose parameters are the keys of `arguments`, called
    /// with their values (converted as `JSValue(object:in:)` converts; never spliced into source),
    /// and returns its result, or, when the result is a promise, what it settles to (WebKit's
    /// `callAsyncJavaScript`; Duktape has no `await`, so an asynchronous body returns a promise).
    ///
    /// ```swift
    /// let total = try await page.callAsyncJavaScript("return a + b", arguments: ["a": 1, "b": 2]) as? Int   // 3
    /// let later = try await page.callAsyncJavaScript(
    ///     "return new Promise(function (resolve) { setTimeout(function () { resolve(label) }, 10) })",
    ///     arguments: ["label": "done"])   // "done"
    /// ```
    ///
    /// Throws `WebPageError.invalidArgumentName` for a key that is not a JavaScript identifier,
    /// `.javaScriptException` when the body throws or the promise rejects, and `.closed` when the
    /// page closes first.
    public func callAsyncJavaScript(_ body: String, arguments: [String: Any] = [:]) async throws -> Any? {
        let pairs = arguments.sorted { $0.key < $1.key }
        for (name, _) in pairs where !Self.isIdentifier(name) { throw WebPageError.invalidArgumentName(name) }
        let names = pairs.map(\.key), values = Box(value: pairs.map(\.value))
        let result = try await submit { [control] _ in
            try control.forProperty("callFunction").call(names, body, values.value)
        }
        guard result.isPromise else { return try Self.converted(result).value }
        let settled = try await withThrowingTaskGroup(of: JSValue?.self) { group in
            group.addTask {
                do {
                    return try await result.awaited()
                } catch {
                    throw Self.failure(error)
                }
            }
            group.addTask {
                await self.loop.waitUntilStopped()
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw WebPageError.closed }
            return value
        }
        return try await submit { _ in try Self.converted(settled) }.value
    }

    // MARK: - Internals

    /// A value that is not `Sendable`, handed across threads once (results made for the caller).
    struct Box<Value>: @unchecked Sendable {
        let value: Value
    }

    /// Runs `work` on the page's thread, its errors as `WebPageError`s.
    private func submit<T: Sendable>(_ work: @escaping @Sendable (JSContext) throws -> T) async throws -> T {
        do {
            return try await loop.submit(work)
        } catch EventLoopError.stopped {
            throw WebPageError.closed
        } catch {
            throw Self.failure(error)
        }
    }

    static func converted(_ value: JSValue) throws -> Box<Any?> {
        if value.isPromise { throw WebPageError.unsupportedResultType("promise") }
        if value.isFunction { throw WebPageError.unsupportedResultType("function") }
        if value.isSymbol { throw WebPageError.unsupportedResultType("symbol") }
        return Box(value: value.toObject())
    }

    static func failure(_ error: any Error) -> WebPageError {
        if let failure = error as? WebPageError { return failure }
        guard let exception = error as? JSException else {
            return .javaScriptException(name: "Error", message: String(describing: error), sourceURL: nil, line: nil, stack: nil)
        }
        return .javaScriptException(
            name: exception.name ?? "Error", message: exception.message, sourceURL: exception.sourceURL, line: exception.line,
            stack: exception.stack)
    }

    static func describe(_ exception: JSException) -> String {
        failure(exception).description
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIIAlpha || first == "_" || first == "$" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "_" || $0 == "$" }
    }

    /// A handler change from the controller: installs or removes `webkit.messageHandlers.<name>`.
    func handlerChanged(_ name: String, kind: Int) {
        loop.post { [control] _ in try control.forProperty("setHandler").call(name, kind) }
    }

    /// Hands `message` to its handler on the controller's queue. A message with a reply (the
    /// promise's `resolve` and `reject`) keeps the page's loop alive until the handler answers,
    /// then settles the promise there.
    static func deliver(
        _ message: ScriptMessage, resolve: JSValue?, reject: JSValue?, via controller: UserContentController, loop: EventLoop
    ) {
        let handler = controller.handler(named: message.name)
        guard let resolve, let reject else {
            if case .plain(let handler) = handler { controller.deliveries.async { handler(message) } }
            return
        }
        let pending = loop.beginPendingWork()
        controller.deliveries.async {
            Task {
                let outcome: Box<Result<Any?, any Error>>
                do {
                    guard case .withReply(let reply) = handler else {
                        throw WebPageError.javaScriptException(
                            name: "Error", message: "no handler with a reply named \(message.name)", sourceURL: nil, line: nil,
                            stack: nil)
                    }
                    outcome = Box(value: .success(try await reply(message)))
                } catch {
                    outcome = Box(value: .failure(error))
                }
                pending.complete { context in
                    switch outcome.value {
                    case .success(let value):
                        try resolve.call(value)
                    case .failure(let error):
                        try reject.call(JSValue(newErrorFromMessage: String(describing: error), in: context))
                    }
                }
            }
        }
    }
}
