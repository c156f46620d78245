import DuktapeCore
import DuktapeRuntime
import Foundation

/// WebViewJavascriptBridge on a `WebPage`: handlers and calls both ways, with response
/// callbacks, in the original's v6 API (`registerHandler`, `callHandler`, `send`, `reset`), so
/// that a page written against the original's README runs unchanged.
///
/// ```swift
/// let page = try WebPage()
/// let bridge = try WebViewJavascriptBridge(page: page)
/// bridge.registerHandler("greet") { data, responseCallback in
///     responseCallback("Hello, \(data as? String ?? "you")")
/// }
/// try await page.load(url: URL(string: "http://127.0.0.1:8080/app.html")!)
/// let answer = try await bridge.callHandler("pageTitle")
/// ```
///
/// Messages sent before the page's document has loaded (its handlers registered) wait and are
/// delivered in order once it has, also across a navigation (the original lost them unless
/// `reset` was called). Messages travel as script messages, not through the original's queue
/// URL and `_fetchQueue`; values cross as values (numbers, booleans, strings, arrays,
/// dictionaries, dates, data), never as spliced source. Differences from the original, as
/// extensions: a Swift handler that throws, or a call to a handler that does not exist,
/// answers the page's callback with a second argument, the error's message; a response with an
/// unknown id is ignored (the original crashed).
public final class WebViewJavascriptBridge: @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`'s lock.

    /// Answers a call: its argument is the response data.
    public typealias ResponseCallback = @Sendable (_ responseData: Any?) -> Void
    /// A handler in the original's form: the data and a callback for the response (call it
    /// once; later calls are ignored).
    public typealias Handler = @Sendable (_ data: Any?, _ responseCallback: @escaping ResponseCallback) -> Void

    private enum Registered {
        case callback(Handler)
        case async(@Sendable (Any?) async throws -> Any?)
    }

    /// A message of Swift's for the page, and what its response goes to.
    private struct Outgoing {
        let message: BridgeValue
        let callbackID: String?
    }

    private struct State {
        weak var page: WebPage?
        var handlers: [String: Registered] = [:]
        var document = 0
        var control: PageSeam.BridgeControl?
        /// Whether the document now loaded has loaded (its messages flow).
        var ready = false
        /// Messages waiting for the document's load, in order.
        var startupQueue: [Outgoing] = []
        /// The callbacks of Swift's calls, by callbackId, with the document they were sent to.
        var responseCallbacks: [String: (document: Int, callback: @Sendable (Result<BridgeValue, WebViewJavascriptBridgeError>) -> Void)] = [:]
        var uniqueID = 0
        var closed = false
        /// The timeouts of Swift's calls waiting for a response, by callbackId.
        var timers: [String: Task<Void, Never>] = [:]
    }

    private let state = Guarded(State())
    /// The log of what the original logged (a missing handler, an unknown response).
    private let log: ConsoleOutput

    /// The bridge's name on the page.
    static let bridgeName = "WebViewJavascriptBridge"

    /// How long a call of Swift's waits for the page's response, in seconds (0: forever, as
    /// the original). Past it, `callHandler` throws `.timedOut` and a response callback gets nil.
    let responseTimeout: TimeInterval

    /// Puts the bridge in `page`'s documents from its next load on (the original's
    /// `bridgeForWebView:`). The page keeps the bridge; a page has at most one. A call of
    /// Swift's waits at most `responseTimeout` seconds for the page's response (0: forever, as
    /// the original; a page's handler that never answers then holds its call until the page
    /// closes).
    ///
    /// ```swift
    /// let bridge = try WebViewJavascriptBridge(page: page, responseTimeout: 10)
    /// ```
    public init(page: WebPage, responseTimeout: TimeInterval = 60) throws {
        self.responseTimeout = responseTimeout.isFinite ? max(0, responseTimeout) : 0
        log = page.configuration.consoleOutput
        state.withLock { $0.page = page }
        let bridge = PageBridge(
            name: Self.bridgeName,
            install: { context, environment, _ in try self.install(in: context, environment: environment) },
            answer: { _ in nil },
            receive: { message in self.receive(message) })
        guard page.add(bridge, closed: { self.pageClosed() }) else {
            throw WebViewJavascriptBridgeError.alreadyAttached
        }
    }

    /// The original's spelling: a bridge for `page`.
    ///
    /// ```swift
    /// let bridge = try WebViewJavascriptBridge.bridge(for: page)
    /// ```
    public static func bridge(for page: WebPage) throws -> WebViewJavascriptBridge {
        try WebViewJavascriptBridge(page: page)
    }

    // MARK: - Handlers

    /// Adds (or replaces) the handler the page calls as `callHandler(name, data, callback)`;
    /// it runs on a queue of the page's messages, in order, and answers through
    /// `responseCallback`.
    ///
    /// ```swift
    /// bridge.registerHandler("log") { data, responseCallback in
    ///     print(data ?? "nil")
    ///     responseCallback(nil)
    /// }
    /// ```
    public func registerHandler(_ name: String, handler: @escaping Handler) {
        state.withLock { $0.handlers[name] = .callback(handler) }
    }

    /// Adds (or replaces) a handler whose result is the response (synchronous or `async`; run
    /// as a task). A thrown error answers with its message as the callback's second argument
    /// (a `ScriptMessageReplyError`'s message, else a generic one).
    ///
    /// ```swift
    /// bridge.registerHandler("total") { data in
    ///     (data as? [Double] ?? []).reduce(0, +)
    /// }
    /// ```
    public func registerHandler(_ name: String, handler: @escaping @Sendable (_ data: Any?) async throws -> Any?) {
        state.withLock { $0.handlers[name] = .async(handler) }
    }

    /// Removes the handler named `name`.
    ///
    /// ```swift
    /// bridge.removeHandler("log")
    /// ```
    public func removeHandler(_ name: String) {
        state.withLock { _ = $0.handlers.removeValue(forKey: name) }
    }

    // MARK: - Calling the page

    /// Calls the page's handler `name` with `data`; its response goes to `responseCallback`
    /// (nil: none is wanted). A value a page cannot hold is refused before anything is sent.
    ///
    /// ```swift
    /// try bridge.callHandler("refresh", data: ["id": 7], responseCallback: nil)
    /// ```
    public func callHandler(_ name: String, data: Any? = nil, responseCallback: ResponseCallback?) throws {
        let converted = try BridgeValues.checked(data, of: "callHandler(\(name))")
        send(handlerName: name, data: converted, done: Self.done(responseCallback))
    }

    /// Calls the page's handler `name` with `data` and returns its response.
    ///
    /// ```swift
    /// let title = try await bridge.callHandler("title") as? String
    /// ```
    ///
    /// Throws `WebViewJavascriptBridgeError.documentReplaced` when the page loads another
    /// document before answering, `.pageClosed` when it closes.
    public func callHandler(_ name: String, data: Any? = nil) async throws -> Any? {
        let converted = try BridgeValues.checked(data, of: "callHandler(\(name))")
        let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<BridgeValue, any Error>) in
            send(handlerName: name, data: converted) { result in continuation.resume(with: result.mapError { $0 as any Error }) }
        }
        return value.value
    }

    /// Sends `data` without a handler name (the original's `send:`, for v5's default handler):
    /// a v6 page has no default handler, so it logs that none handles the message.
    ///
    /// ```swift
    /// try bridge.send(["ping": true], responseCallback: nil)
    /// ```
    public func send(_ data: Any?, responseCallback: ResponseCallback? = nil) throws {
        let converted = try BridgeValues.checked(data, of: "send")
        send(handlerName: nil, data: converted, done: Self.done(responseCallback))
    }

    /// The original's switch from dispatching Swift's messages in a timer to at once (its
    /// safety against alert boxes). Here each message from Swift runs in a task of its own
    /// either way, as the timer gave it; the switch applies to messages a page hands to
    /// `_handleMessageFromObjC` itself.
    ///
    /// ```swift
    /// bridge.disableJavscriptAlertBoxSafetyTimeout()
    /// ```
    public func disableJavscriptAlertBoxSafetyTimeout() {
        send(handlerName: "_disableJavascriptAlertBoxSafetyTimeout", data: nil, done: nil)
    }

    /// Forgets the messages waiting for the page and the callbacks waiting for responses, and
    /// holds later messages until the next document has loaded (the original's `reset`); a
    /// waiting `callHandler` throws `.reset`.
    ///
    /// ```swift
    /// bridge.reset()
    /// ```
    public func reset() {
        endWaiting(with: .reset) { $0.ready = false }
    }

    /// Drops the waiting messages and ends every waiting call with `error`, after `change`.
    private func endWaiting(with error: WebViewJavascriptBridgeError, _ change: (inout State) -> Void) {
        let callbacks = state.withLock { state in
            change(&state)
            defer {
                state.startupQueue = []
                state.responseCallbacks = [:]
                for timer in state.timers.values { timer.cancel() }
                state.timers = [:]
            }
            return state.responseCallbacks.values.map(\.callback)
        }
        for callback in callbacks { callback(.failure(error)) }
    }

    /// The original's response callback as a completion (a failure answers nil, as the
    /// original's callbacks have no error).
    private static func done(_ callback: ResponseCallback?) -> (@Sendable (Result<BridgeValue, WebViewJavascriptBridgeError>) -> Void)? {
        guard let callback else { return nil }
        return { result in
            switch result {
            case .success(let value): callback(value.value)
            case .failure: callback(nil)
            }
        }
    }

    private func send(handlerName: String?, data: Any?, done: (@Sendable (Result<BridgeValue, WebViewJavascriptBridgeError>) -> Void)?) {
        let (refused, callback) = state.withLock { state -> (WebViewJavascriptBridgeError?, String?) in
            guard !state.closed, let page = state.page else { return (.pageClosed, nil) }
            var message: [String: Any] = [:]
            if let handlerName { message["handlerName"] = handlerName }
            if let data { message["data"] = data }
            var callbackID: String?
            if let done {
                state.uniqueID += 1
                callbackID = "objc_cb_\(state.uniqueID)"
                message["callbackId"] = callbackID
                state.responseCallbacks[callbackID ?? ""] = (state.document, done)
            }
            let outgoing = Outgoing(message: BridgeValue(value: message), callbackID: callbackID)
            if state.ready, let control = state.control {
                Self.deliver(outgoing, to: control, on: page)
            } else {
                state.startupQueue.append(outgoing)
            }
            return (nil, callbackID)
        }
        if let refused {
            done?(.failure(refused))
            return
        }
        guard let callback, responseTimeout > 0 else { return }
        let seconds = min(responseTimeout, 1e9)
        let timer = Task {
            guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
            let waiting = self.state.withLock { state in
                state.timers[callback] = nil
                return state.responseCallbacks.removeValue(forKey: callback)
            }
            waiting?.callback(.failure(.timedOut))
        }
        let kept = state.withLock { state -> Bool in
            guard state.responseCallbacks[callback] != nil else { return false }
            state.timers[callback] = timer
            return true
        }
        if !kept { timer.cancel() }
    }

    private static func deliver(_ outgoing: Outgoing, to control: PageSeam.BridgeControl, on page: WebPage) {
        page.post { _ in try control.receive(outgoing.message.value as? [String: Any] ?? [:]) }
    }

    // MARK: - The page's side

    /// A document starts loading: its wvjb.js. Callbacks waiting on the previous document
    /// fail (`documentReplaced`); messages not yet delivered wait for this one.
    private func install(in context: JSContext, environment: PageSeam.BridgeEnvironment) throws {
        let (document, replaced) = state.withLock { state in
            state.document += 1
            state.control = nil
            state.ready = false
            let current = state.document
            let replaced = state.responseCallbacks.filter { $0.value.document < current && !Self.isQueued($0.key, state) }
            for key in replaced.keys {
                state.responseCallbacks.removeValue(forKey: key)
                state.timers.removeValue(forKey: key)?.cancel()
            }
            return (current, replaced.values.map(\.callback))
        }
        for callback in replaced { callback(.failure(.documentReplaced)) }
        let control = try PageSeam.installBridge(in: context, environment: environment, name: Self.bridgeName, document: document)
        state.withLock { (state: inout State) -> Void in
            if state.document == document { state.control = control }
        }
    }

    /// Whether the message of `callbackID` is still waiting to be delivered.
    private static func isQueued(_ callbackID: String, _ state: State) -> Bool {
        state.startupQueue.contains { $0.callbackID == callbackID }
    }

    /// What the page sends, in order: its `ready`, responses to Swift's calls, and calls of
    /// Swift's handlers.
    private func receive(_ message: ScriptMessage) {
        guard let body = message.body as? [String: Any] else {
            log.write(.warn, "WebViewJavascriptBridge: WARNING: a message that is not an object")
            return
        }
        if let ready = body["ready"] as? NSNumber {
            documentReady(ready.intValue)
            return
        }
        if let responseID = body["responseId"] as? String {
            let waiting = state.withLock { state in
                state.timers.removeValue(forKey: responseID)?.cancel()
                return state.responseCallbacks.removeValue(forKey: responseID)
            }
            guard let waiting else {
                log.write(.warn, "WebViewJavascriptBridge: WARNING: a response for no call (\(responseID)): ignored")
                return
            }
            let data = body["responseData"]
            waiting.callback(.success(BridgeValue(value: data is NSNull ? nil : data)))
            return
        }
        let name = body["handlerName"] as? String ?? ""
        let data = body["data"].flatMap { $0 is NSNull ? nil : $0 }
        let callbackID = body["callbackId"] as? String
        let respond: @Sendable (Any?, String?) -> Void = { responseData, error in
            guard let callbackID else { return }
            self.respond(to: callbackID, handlerName: name, data: responseData, error: error)
        }
        let handler = state.withLock { $0.handlers[name] }
        switch handler {
        case nil:
            log.write(.warn, "WebViewJavascriptBridge: WVJBNoHandlerException, no handler for message from JS: \(name)")
            respond(nil, "no handler named \(name)")
        case .callback(let handler):
            let answered = Guarded(false)
            handler(data) { responseData in
                guard answered.withLock({ done in defer { done = true }; return !done }) else { return }
                respond(responseData, nil)
            }
        case .async(let handler):
            let box = BridgeValue(value: data)
            Task {
                do {
                    respond(try await handler(box.value), nil)
                } catch let error as ScriptMessageReplyError {
                    respond(nil, error.message)
                } catch {
                    respond(nil, "the handler \(name) failed")
                }
            }
        }
    }

    /// Answers the page's call `callbackID` (with `error`: the extension's second argument).
    private func respond(to callbackID: String, handlerName: String, data: Any?, error: String?) {
        var response: (data: Any?, error: String?) = (nil, error)
        do {
            response.data = try BridgeValues.checked(data, of: "the response of \(handlerName)")
        } catch let refusal {
            response.error = error ?? BridgeValues.reason(refusal)
        }
        let box = BridgeValue(value: response.data)
        state.withLock { state in
            // At once, to the document now loaded (whether or not its load has ended): a
            // response meant for an earlier one finds no callback there and is ignored.
            guard let page = state.page, let control = state.control else { return }
            page.post { [error = response.error] _ in try control.respond(to: callbackID, data: box.value, error: error) }
        }
    }

    /// Document `document` has loaded: Swift's waiting messages go, in order.
    private func documentReady(_ document: Int) {
        state.withLock { state in
            guard state.document == document, !state.ready, let control = state.control, let page = state.page else { return }
            state.ready = true
            for outgoing in state.startupQueue { Self.deliver(outgoing, to: control, on: page) }
            state.startupQueue = []
        }
    }

    /// The page closed: every waiting call ends, and what the bridge kept of the page's context
    /// goes.
    private func pageClosed() {
        endWaiting(with: .pageClosed) { state in
            state.closed = true
            state.control = nil
        }
    }
}
