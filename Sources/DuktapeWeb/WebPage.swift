@_spi(Runtime) import DuktapeCore
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
/// `BrowserGlobals`, timers and `queueMicrotask` (DuktapeRuntime's `JSEventLoop`) and `console`.
/// It has no DOM tree. Every operation runs on the page's thread; the `async` methods return when
/// it is done there, and may be called from any thread or task.
public final class WebPage: @unchecked Sendable {
    // @unchecked: `context` and `control` are used only on the loop's thread (inside `submit`
    // and `post`); `currentURL` is behind `lock`; the rest is immutable.

    /// The configuration the page was made with.
    ///
    /// ```swift
    /// page.configuration.userContentController.add(name: "late") { _ in }
    /// ```
    public let configuration: WebPageConfiguration
    let context: JSContext
    private let loop: JSEventLoop
    private let control: PageSeam.Control
    /// What the page's bridges are given (`PageBridge`).
    let environment: PageSeam.BridgeEnvironment
    /// `fetch` and `WebSocket`, with the page's URL as their base.
    private let browserNetwork: BrowserNetwork
    var network: PageNetwork { browserNetwork.network }
    var webSockets: PageWebSockets { browserNetwork.webSockets }
    private let lock = NSLock()
    private var currentURL: URL?
    /// The reply handlers running for the page's messages (by their `replyActivity` token),
    /// cancelled when it closes.
    private var replies: [UInt64: Task<Void, Never>] = [:]
    private var closed = false
    /// Script messages handed to the host whose handler has not finished, and their size.
    private var messagesInFlight = (count: 0, bytes: 0)
    /// The bridges on the page (FlexComponent, WebViewJavascriptBridge), in the order added.
    private var bridges: [PageBridge] = []
    /// Told once when the page closes (the bridges fail what they wait for).
    private var closeObservers: [@Sendable () -> Void] = []
    /// The reply handlers' tasks, until each returns (`shutdown()` waits for them).
    private let replyActivity = ActivityCount()
    /// `callAsyncJavaScript`'s bodies, compiled once each (used on the page's thread only).
    private let compiledBodies = CompiledBodies()
    /// The token (in `replyActivity`) of the reply handler the current task runs: a
    /// `shutdown()` called from there does not wait for that handler.
    @TaskLocal private static var replyToken: UInt64?

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
        loop = JSEventLoop(context: context)
        _ = Console(context: context, output: output)
        // The page through a weak link: the context's functions must not keep the page alive.
        let link = PageLink()
        browserNetwork = try BrowserNetwork(
            context: context, loop: loop, configuration: configuration, documentURL: { [link] in link.page?.url },
            backlogIsHigh: { [link] in link.page?.messageBacklogIsHigh ?? false })
        let globals = browserNetwork.globals
        let post = JSValue(newFunctionIn: context) { (name: String, value: JSValue, replyID: Int, toBridge: Bool) throws in
            guard let page = link.page else { return }
            let body = value.toObject()
            let bytes = try page.admitMessage(body)
            // The document that posted: the page's URL now, on the page's thread, whatever
            // the page loads before the handler runs.
            let frame = FrameInfo(url: page.url)
            page.deliver(ScriptMessage(name: name, body: body, frameInfo: frame), replyID: replyID, bytes: bytes, toBridge: toBridge)
        }
        // document.cookie: the store's cookies for the page's URL that scripts may see.
        let store = configuration.cookieStore
        let getCookie = JSValue(newFunctionIn: context) { () -> String in
            guard let store, let url = link.page?.url else { return "" }
            return store.scriptCookies(for: url)
        }
        let setCookie = JSValue(newFunctionIn: context) { (text: String) in
            guard let store, let url = link.page?.url else { return }
            store.setFromScript(text, url: url)
        }
        control = try PageSeam.installPage(
            in: context, globals: globals, natives: PageSeam.PageNatives(post: post, getCookie: getCookie, setCookie: setCookie,
                                                                  copyPlain: try context.nativeHelper(.plainDataCopy)))
        guard let global = context.globalObject else { throw WebPageError.cannotCreateContext }
        environment = PageSeam.BridgeEnvironment(global: global, bridge: control.bridge)
        try control.setLocation(URLRecord.blankAttributes)
        try control.setUserAgent(configuration.userAgent)
        link.page = self
        for name in configuration.userContentController.attach(self) {
            try control.setHandler(name, Self.kind(configuration.userContentController.handler(named: name)))
        }
        try loop.start()
    }

    deinit {
        configuration.userContentController.detach(self)
        browserNetwork.close()
        loop.stop()
    }

    /// Stops the page: its timers are cancelled, operations not yet run fail with
    /// `WebPageError.closed`, and its thread ends. Idempotent.
    ///
    /// ```swift
    /// page.close()
    /// ```
    ///
    /// A script running when the page closes runs to its end (or its time limit) first; the
    /// reply handlers of the page's messages are cancelled.
    public func close() {
        configuration.userContentController.detach(self)
        let (running, observers) = lock.withLock { () -> ([Task<Void, Never>], [@Sendable () -> Void]) in
            closed = true
            defer { replies = [:]; closeObservers = [] }
            return (Array(replies.values), closeObservers)
        }
        for task in running { task.cancel() }
        for observer in observers { observer() }
        browserNetwork.close()
        loop.stop()
    }

    /// Closes the page as `close()` does, and returns once nothing of it runs any more: its
    /// thread has ended, its handler calls have returned (messages not yet handed to a handler
    /// are dropped, reply handlers are cancelled), and its requests and their connections are
    /// gone. Await it before a program exits. Also after `close()`, and from any number of
    /// tasks at once.
    ///
    /// ```swift
    /// let page = try WebPage()
    /// _ = try await page.evaluateJavaScript("fetch('http://127.0.0.1:8080/ping')")
    /// await page.shutdown()
    /// ```
    ///
    /// It waits for code of yours: a reply handler that ignores cancellation delays it, and a
    /// handler that blocks until it returns never ends. Called from reply handlers of this
    /// page, it does not wait for them. Like `close()`, it first waits for a script that is
    /// running to end (or reach its time limit).
    public func shutdown() async {
        close()
        // Messages posted before the close: past this point their handlers have returned (a
        // handler with a reply has started, or has seen the page closed).
        await withCheckedContinuation { continuation in
            configuration.userContentController.deliveries.async { continuation.resume() }
        }
        await replyActivity.idle(exempting: Self.replyToken)
        await browserNetwork.shutdown()
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
    /// document's `<script>` elements in document order (inline ones, and `src` ones resolved
    /// against `baseURL` and fetched through the page's networking, with its policy and
    /// cookies); then, as WebKit does, makes `document.readyState` "interactive" and fires
    /// `DOMContentLoaded` (on `document`, bubbling to `window`), runs the user scripts at
    /// document end, and fires `load` (on `window`, "complete"). Returns when `load` has been
    /// dispatched.
    ///
    /// ```swift
    /// let result = try await page.load(html: "<script src='app.js'></script><script>start()</script>",
    ///                                   baseURL: URL(string: "http://127.0.0.1:8080/"))
    /// ```
    ///
    /// A script that throws does not stop the load (its error is in the result and on the
    /// console, as browsers report it). While an external script loads, the page's timers and
    /// callbacks may run (as in browsers, where such a script blocks the parser, not the event
    /// loop); consecutive inline scripts run in one task. An external script that cannot be
    /// loaded (refused by the policy, a network error, a status other than 2xx) is skipped, with
    /// the reason in the result and on the console. Module scripts and data blocks are not run
    /// and are listed in the result. The globals of an earlier load stay (there is one context
    /// per page).
    @discardableResult
    public func load(html: String, baseURL: URL?) async throws -> PageLoad {
        let scripts = HTMLScript.scripts(in: html)
        let attributes = baseURL.flatMap { URLRecord.parse($0.absoluteString)?.attributes } ?? URLRecord.blankAttributes
        let base = baseURL.flatMap { URLRecord.parse($0.absoluteString) }
        let userScripts = configuration.userContentController.userScripts
        let output = configuration.consoleOutput
        let result = Accumulated()
        /// Runs JavaScript steps on the page's thread; an exception (a timeout included) is the
        /// page's error, reported as browsers report it, and the load goes on.
        func runSteps(_ steps: [@Sendable (JSContext) throws -> Void]) async throws {
            try await submit { [loop] context in
                for step in steps {
                    if loop.isStopped { throw WebPageError.closed }
                    do {
                        try step(context)
                    } catch {
                        let failure = WebPage.failure(error)
                        result.add(error: failure)
                        output.write(.error, "Uncaught \(failure)")
                    }
                }
            }
        }
        lock.withLock { currentURL = baseURL }
        var steps: [@Sendable (JSContext) throws -> Void] = [{ [control] _ in
            try control.setLocation(attributes)
            try control.setReadyState(.loading)
        }]
        for bridge in lock.withLock({ bridges }) {
            steps.append { [environment] context in try bridge.install(context, environment, baseURL) }
        }
        for script in userScripts where script.injectionTime == .atDocumentStart {
            steps.append { context in _ = try context.evaluate(script.source) }
        }
        for (index, script) in scripts.enumerated() {
            switch script.kind {
            case .module:
                result.skip(index, "type=\"module\": modules are not supported")
            case .other(let type):
                result.skip(index, "type \"\(type)\" is not JavaScript")
            case .classic:
                guard let source = script.source else {
                    let text = script.text
                    steps.append { context in _ = try context.evaluate(text, sourceURL: baseURL) }
                    continue
                }
                // The scripts before it run first; then it loads (the loop runs meanwhile).
                try await runSteps(steps)
                steps = []
                guard let url = URLRecord.parse(source, base: base) else {
                    result.skip(index, "src=\"\(source)\": not a valid URL")
                    output.write(.error, "Failed to load script \(source): not a valid URL")
                    continue
                }
                do {
                    let text = try await network.loadScript(url)
                    let sourceURL = URL(string: url.href)
                    steps.append { context in _ = try context.evaluate(text, sourceURL: sourceURL) }
                } catch {
                    if loop.isStopped { throw WebPageError.closed }
                    result.skip(index, "src=\"\(source)\": \(error)")
                    output.write(.error, "Failed to load script \(url.href): \(error)")
                }
            }
        }
        // As WebKit: the document is "interactive", DOMContentLoaded is dispatched, then the
        // user scripts at document end run (Document::finishedParsing), then `load`.
        steps.append { [control] _ in try control.setReadyState(.interactive) }
        for script in userScripts where script.injectionTime == .atDocumentEnd {
            steps.append { context in _ = try context.evaluate(script.source) }
        }
        steps.append { [control] _ in try control.setReadyState(.complete) }
        try await runSteps(steps)
        return result.value
    }

    /// Navigates to `url` (WebKit's `load(_:)` with a `URLRequest(url:)`): GETs the document
    /// through the page's network (the request policy on every hop, redirects followed as
    /// browsers follow them, the cookies of each hop sent and stored), then loads it as
    /// `load(html:baseURL:)` does with the URL after the redirects as its base, which becomes
    /// the page's `url`. An error status's page is loaded too, as browsers do (`statusCode`
    /// says which). Documents are decoded by the charset of their `Content-Type` (UTF-8 by
    /// default), at most 16 MB.
    ///
    /// ```swift
    /// let result = try await page.load(url: URL(string: "http://127.0.0.1:8080/app.html")!)
    /// print(result.url ?? "", result.statusCode ?? 0)
    /// ```
    ///
    /// Throws `WebPageError.navigationFailed` when there is no document (a scheme other than
    /// http, https and file, the policy's refusal, a network failure, a document too long): the
    /// page's document, globals and URL are then as they were.
    @discardableResult
    public func load(url: URL) async throws -> PageLoad {
        guard let record = URLRecord.parse(url.absoluteString), ["http", "https", "file"].contains(record.scheme) else {
            throw WebPageError.navigationFailed(url: url, reason: "only http, https and file URLs can be loaded")
        }
        let document: ScriptCollector.Loaded
        do {
            document = try await network.loadDocument(record)
        } catch let failure as FetchFailure {
            if loop.isStopped { throw WebPageError.closed }
            throw WebPageError.navigationFailed(url: url, reason: failure.description)
        }
        let landed = URL(string: document.url) ?? url
        var result = try await load(html: document.text, baseURL: landed)
        result.url = landed
        result.statusCode = record.scheme == "file" ? nil : document.status
        return result
    }

    /// A load's result, added to from the page's thread and read at the end.
    private final class Accumulated: @unchecked Sendable {
        // @unchecked: behind `lock`.
        private let lock = NSLock()
        private var result = PageLoad()
        var value: PageLoad { lock.withLock { result } }
        func add(error: WebPageError) { lock.withLock { result.scriptErrors.append(error) } }
        func skip(_ index: Int, _ reason: String) {
            lock.withLock { result.skippedScripts.append(.init(index: index, reason: reason)) }
        }
    }

    // MARK: - Evaluating

    /// Evaluates `script` in the page and returns its completion value as WebKit gives it:
    /// copied as a message is (own data only, within the copy's limits), then converted by
    /// `JSValue.toObject()` (numbers as `NSNumber`, strings, `Bool`, arrays, objects as
    /// dictionaries, dates, `NSNull`; undefined is nil).
    ///
    /// ```swift
    /// let sum = try await page.evaluateJavaScript("1 + 2") as? Int   // 3
    /// ```
    ///
    /// Throws `WebPageError.javaScriptException` if the script throws, and
    /// `.unsupportedResultType` for a function, symbol or promise (use `callAsyncJavaScript` to
    /// wait for a promise).
    public func evaluateJavaScript(_ script: String) async throws -> Any? {
        try await submit { [control] context in
            try WebPage.converted(try context.evaluate(script), copiedBy: control)
        }.value
    }

    /// `evaluateJavaScript(_:)` with a completion handler (WebKit's older form), called in the
    /// handler's isolation, as `Task` runs its closure: a `@MainActor` closure on the main actor
    /// (where WebKit calls it), a nonisolated one on the global executor.
    ///
    /// ```swift
    /// page.evaluateJavaScript("document.readyState") { @MainActor result, error in print(result ?? error ?? "") }
    /// ```
    public func evaluateJavaScript(_ script: String, completionHandler: (@isolated(any) @Sendable (Any?, (any Error)?) -> Void)?) {
        Task {
            do {
                let result = Box(value: try await evaluateJavaScript(script))
                await completionHandler?(result.value, nil)
            } catch {
                await completionHandler?(nil, error)
            }
        }
    }

    /// Runs `body` as the body of a function whose parameters are the keys of `arguments`, called
    /// with their values (converted as `JSValue(object:in:)` converts; never spliced into source),
    /// and returns its result, or, when the result is a promise, what it settles to (WebKit's
    /// `callAsyncJavaScript`). A body with modern syntax, `await` included, runs as the body of an
    /// async function (lowered, see DuktapeCore's "Modern JavaScript" article), as in WebKit; an ES5 body
    /// runs as a plain function's (its promise, if it returns one, is awaited all the same).
    ///
    /// ```swift
    /// let total = try await page.callAsyncJavaScript("return a + b", arguments: ["a": 1, "b": 2]) as? Int   // 3
    /// let later = try await page.callAsyncJavaScript(
    ///     "await new Promise((resolve) => setTimeout(resolve, 10)); return label",
    ///     arguments: ["label": "done"])   // "done"
    /// ```
    ///
    /// Throws `WebPageError.invalidArgumentName` for a key that is not a JavaScript identifier,
    /// `.javaScriptException` when the body throws or the promise rejects, and `.closed` when the
    /// page closes first.
    public func callAsyncJavaScript(_ body: String, arguments: [String: Any] = [:]) async throws -> Any? {
        let pairs = arguments.sorted { $0.key < $1.key }
        for (name, _) in pairs where !Self.isIdentifier(name) || Self.reservedWords.contains(name) {
            throw WebPageError.invalidArgumentName(name)
        }
        let names = pairs.map(\.key), values = Box(value: pairs.map(\.value))
        // What the call made on the page's thread is handed over through a lock: a happens-before
        // ThreadSanitizer can see (the resumption of an async call goes through libdispatch,
        // which it does not instrument). A result that is not a promise is converted there, in
        // the same turn.
        let handoff = Guarded<CallOutcome?>(nil)
        try await submit { [control, compiledBodies] context in
            let made = try compiledBodies.function(parameters: names.joined(separator: ", "), body: body, in: context)
            let value = try control.callMade(made, values.value)
            let outcome: CallOutcome = value.isPromise ? .promise(value) : .value(try Self.converted(value, copiedBy: control))
            handoff.withLock { $0 = outcome }
        }
        let result: JSValue
        switch handoff.withLock({ $0 }) {
        case nil: throw WebPageError.closed
        case .value(let converted)?: return converted.value
        case .promise(let promise)?: result = promise
        }
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
            guard let first = try await group.next(), let value = first else {
                try Task.checkCancellation()  // the caller gave up (not the page)
                throw WebPageError.closed
            }
            return value
        }
        return try await submit { [control] _ in try Self.converted(settled, copiedBy: control) }.value
    }

    // MARK: - Internals

    /// Adds `bridge`, whose file runs from the next load on, and tells `closed` when the page
    /// closes (false, and nothing added, when the page has a bridge of its name or is closed).
    func add(_ bridge: PageBridge, closed: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard !self.closed, !bridges.contains(where: { $0.name == bridge.name }) else { return false }
            bridges.append(bridge)
            closeObservers.append(closed)
            return true
        }
    }

    /// Runs `work` on the page's thread after the work posted before it (false when the page
    /// is closed).
    @discardableResult
    func post(_ work: @escaping @Sendable (JSContext) throws -> Void) -> Bool {
        loop.post(work)
    }

    /// A value that is not `Sendable`, handed across threads once (results made for the caller).
    struct Box<Value>: @unchecked Sendable {
        let value: Value
    }

    /// Runs `work` on the page's thread, its errors as `WebPageError`s.
    private func submit<T: Sendable>(_ work: @escaping @Sendable (JSContext) throws -> T) async throws -> T {
        do {
            return try await loop.submit(work)
        } catch JSEventLoopError.stopped {
            throw WebPageError.closed
        } catch {
            throw Self.failure(error)
        }
    }

    /// A result as WebKit gives it: copied as a message is (own properties only, within the
    /// copy's limits), then converted; a function, symbol or promise has no Swift form.
    static func converted(_ value: JSValue, copiedBy control: PageSeam.Control) throws -> Box<Any?> {
        if value.isPromise { throw WebPageError.unsupportedResultType("promise") }
        if value.isFunction { throw WebPageError.unsupportedResultType("function") }
        if value.isSymbol { throw WebPageError.unsupportedResultType("symbol") }
        return Box(value: try control.copy(value).toObject())
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

    /// ES5's reserved words (strict mode's included), which cannot name a parameter.
    static let reservedWords: Set<String> = [
        "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum",
        "export", "extends", "false", "finally", "for", "function", "if", "implements", "import", "in", "instanceof",
        "interface", "let", "new", "null", "package", "private", "protected", "public", "return", "static", "super",
        "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield", "eval", "arguments",
    ]

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIIAlpha || first == "_" || first == "$" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "_" || $0 == "$" }
    }

    /// Counts a script message (its body as the host received it) as in flight, and returns its
    /// estimated size; throws, to the posting script, when the page already has
    /// `maximumMessagesInFlight` messages, or `maximumMessageBytesInFlight` bytes of them,
    /// waiting for their handlers (a handler slower than the page once let the host's queue grow
    /// without bound). A message is counted until its handler has run, or its reply handler has
    /// answered; one message alone may be larger than the byte bound (the page's memory limit
    /// bounds it).
    func admitMessage(_ body: Any?) throws -> Int {
        let maximumCount = max(1, configuration.maximumMessagesInFlight)
        let maximumBytes = max(0, configuration.maximumMessageBytesInFlight)
        let bytes = Self.estimatedSize(of: body, upTo: maximumBytes &+ 1)
        let refusal = lock.withLock { () -> String? in
            guard messagesInFlight.count < maximumCount else {
                return "\(messagesInFlight.count) messages are waiting for their handlers (WebPageConfiguration.maximumMessagesInFlight)"
            }
            guard messagesInFlight.count == 0 || messagesInFlight.bytes + bytes <= maximumBytes else {
                return "\(messagesInFlight.bytes) bytes of messages are waiting for their handlers (WebPageConfiguration.maximumMessageBytesInFlight)"
            }
            messagesInFlight.count += 1
            messagesInFlight.bytes += bytes
            return nil
        }
        if let refusal { throw ScriptMessageRefusal(refusal) }
        return bytes
    }

    private func messageEnded(bytes: Int) {
        let relieved = lock.withLock { () -> Bool in
            messagesInFlight.count -= 1
            messagesInFlight.bytes -= bytes
            return !messageBacklogIsHighLocked
        }
        if relieved { webSockets.relieved() }
    }

    /// Whether the page's script messages waiting for their handlers are past half their
    /// limits: the page's WebSockets then stop reading (their messages would be posted on).
    var messageBacklogIsHigh: Bool {
        lock.withLock { messageBacklogIsHighLocked }
    }

    private var messageBacklogIsHighLocked: Bool {
        messagesInFlight.count > max(1, configuration.maximumMessagesInFlight) / 2
            || messagesInFlight.bytes > max(0, configuration.maximumMessageBytesInFlight) / 2
    }

    /// The messages in flight now (tests).
    var messagesInFlightCount: Int { lock.withLock { messagesInFlight.count } }

    /// A message body's size as the host holds it, estimated (bytes of data and text, 16 for a
    /// scalar or an empty container, its keys and elements), counting no further than `limit`.
    static func estimatedSize(of value: Any?, upTo limit: Int) -> Int {
        var total = 0
        var stack: [Any?] = [value]
        while let next = stack.popLast(), total < limit {
            switch MessagePart(next) {
            case .text(let text): total += text.utf8.count + 16
            case .bytes(let count): total += count + 16
            case .list(let list):
                total += 16
                for element in list.prefix(limit) { stack.append(element) }
            case .object(let object):
                total += 16
                for (key, value) in object.prefix(limit) {
                    total += key.utf8.count + 16
                    stack.append(value)
                }
            case .scalar: total += 16
            }
        }
        return min(total, limit)
    }

    /// What a message body's value is, for `estimatedSize`: told by its exact type first, since a
    /// failing cast to a Foundation type tries bridging, which costs more than the estimate.
    private enum MessagePart {
        case text(String), bytes(Int), list([Any]), object([String: Any]), scalar

        init(_ value: Any?) {
            guard let value else {
                self = .scalar
                return
            }
            let type = ObjectIdentifier(Swift.type(of: value))
            if type == ObjectIdentifier(String.self), let text = value as? String {
                self = .text(text)
            } else if type == ObjectIdentifier([Any].self), let list = value as? [Any] {
                self = .list(list)
            } else if type == ObjectIdentifier([String: Any].self), let object = value as? [String: Any] {
                self = .object(object)
            } else if BridgeValues.isPlainScalar(value) {
                self = .scalar
            } else {
                switch value {
                case let data as Data: self = .bytes(data.count)
                case let text as String: self = .text(text)
                case let list as [Any]: self = .list(list)
                case let object as [String: Any]: self = .object(object)
                default: self = .scalar
                }
            }
        }
    }

    /// A handler change from the controller: the page's `webkit.messageHandlers.<name>` is made
    /// to match the handler registered when the job runs (so changes posted in any order end
    /// in the controller's state).
    func handlerChanged(_ name: String) {
        let controller = configuration.userContentController
        loop.post { [control] _ in try control.setHandler(name, Self.kind(controller.handler(named: name))) }
    }

    /// What `webkit.messageHandlers.<name>` is for `handler`.
    static func kind(_ handler: UserContentController.Registered?) -> PageSeam.Control.HandlerKind {
        switch handler {
        case nil: .none
        case .plain: .plain
        case .withReply: .reply
        }
    }

    /// Hands `message` to its handler. A plain handler runs on the controller's serial queue; a
    /// handler with a reply is started from that queue as a task, and its answer settles promise
    /// `replyID` on the page's loop (kept alive meanwhile by a pending-work handle). Only the
    /// number is kept, not the promise's functions, so a handler that never returns keeps no
    /// context alive, and closing the page cancels it.
    func deliver(_ message: ScriptMessage, replyID: Int, bytes: Int, toBridge: Bool = false) {
        let controller = configuration.userContentController
        let handler = toBridge
            ? lock.withLock { bridges.first { $0.name == message.name } }.map {
                replyID > 0 ? UserContentController.Registered.withReply($0.answer) : .plain($0.receive)
            }
            : controller.handler(named: message.name)
        if replyID <= 0 {
            switch handler {
            case .plain(let handler):
                controller.deliveries.async { [weak self] in
                    defer { self?.messageEnded(bytes: bytes) }
                    // Closed since the page posted it: dropped, as a reply handler's message is.
                    if let self, lock.withLock({ closed }) { return }
                    handler(message)
                }
                return
            case .withReply: break  // runs as a task, below, without an answer
            case nil:
                messageEnded(bytes: bytes)
                return  // removed since the page saw it: dropped, as WebKit drops it
            }
        }
        let pending = replyID > 0 ? loop.beginPendingWork() : nil
        controller.deliveries.async { [weak self] in
            guard let self else {
                pending?.cancel()
                return
            }
            // Made under the lock: the task's own removal (under it too) always comes after.
            lock.lock()
            defer { lock.unlock() }
            guard !closed else {
                messagesInFlight.count -= 1
                messagesInFlight.bytes -= bytes
                pending?.cancel()
                return
            }
            let activity = replyActivity
            let token = activity.begin()
            replies[token] = activity.task(continuing: token) { [weak self] in
                defer { self?.messageEnded(bytes: bytes) }
                let outcome: (fulfilled: Bool, value: Box<Any?>)
                switch handler {
                case .withReply(let reply):
                    do {
                        let value = try await Self.$replyToken.withValue(token) { try await reply(message) }
                        outcome = (true, Box(value: value))
                    } catch let error as ScriptMessageReplyError {
                        outcome = (false, Box(value: error.message))
                    } catch {
                        outcome = (false, Box(value: "the message handler failed"))
                    }
                default:
                    outcome = (false, Box(value: "no message handler with a reply is named \(message.name)"))
                }
                self?.lock.withLock { _ = self?.replies.removeValue(forKey: token) }
                guard let pending else { return }
                guard let control = self?.control else {
                    pending.cancel()
                    return
                }
                pending.complete { _ in try control.settle(replyID, fulfilled: outcome.fulfilled, value: outcome.value.value) }
            }
        }
    }
}

/// The page, weakly, for the functions its context holds.
private final class PageLink: @unchecked Sendable {
    // @unchecked: set once, on the thread making the page, before the page's thread starts.
    weak var page: WebPage?
}

/// Why a script message was refused: the page has too many messages waiting for the host.
struct ScriptMessageRefusal: Error, LocalizedError {
    let reason: String
    init(_ reason: String) { self.reason = reason }
    var errorDescription: String? { "postMessage: the message was not sent: " + reason }
}

extension WebPage {
    /// What `callAsyncJavaScript`'s call gave on the page's thread.
    private enum CallOutcome {
        case value(Box<Any?>)
        case promise(JSValue)
    }

    /// The functions `callAsyncJavaScript` made of its bodies, by parameter list and body (a
    /// loader calls the same body for every request: compiled once, not per call), up to
    /// `maximumCount` of them, and only bodies up to `maximumBodyBytes` (past either, a body is
    /// compiled for its call only). Every document of a page runs in its one context, whose
    /// global scope the functions close over. Touched only on the page's thread.
    final class CompiledBodies: @unchecked Sendable {
        static let maximumCount = 32
        static let maximumBodyBytes = 64 << 10
        private var functions: [String: JSValue] = [:]

        /// The function for `body` with `parameters` (identifiers joined by ", "): a body that
        /// only an async function's can be (`await`) is one, as in WebKit (lowered with the rest
        /// of modern syntax); a body that closes its function early is refused with none of it
        /// run.
        func function(parameters: String, body: String, in context: JSContext) throws -> JSValue {
            let key = parameters + "\u{0}" + body
            if let cached = functions[key], cached.context === context { return cached }
            let function: JSValue?
            do {
                function = try context.evaluateFunctionExpression("(function (" + parameters + ") { " + body + "\n})", sourceName: nil)
            } catch let error as JSException where error.name == "SyntaxError" {
                function = try context.evaluateFunctionExpression("(async function (" + parameters + ") { " + body + "\n})", sourceName: nil)
            }
            guard let made = function else {
                throw WebPageError.javaScriptException(
                    name: "SyntaxError", message: "the body closes the function it is the body of (an unmatched '}')",
                    sourceURL: nil, line: nil, stack: nil)
            }
            if body.utf8.count <= Self.maximumBodyBytes {
                if functions.count >= Self.maximumCount { functions.removeAll() }
                functions[key] = made
            }
            return made
        }
    }
}
