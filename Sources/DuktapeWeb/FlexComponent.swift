import DuktapeCore
import DuktapeRuntime
import Foundation

/// FlexHybrid's `$flex` on a `WebPage` (the `FlexComponent` role): Swift interfaces that the
/// page calls as `$flex.<name>(…)`, each returning a promise, and `$flex.web.<name>` functions
/// that Swift calls.
///
/// ```swift
/// let component = FlexComponent()
/// try component.setBaseUrl("http://127\\.0\\.0\\.1:8080/.*")
/// try component.setInterface("add") { arguments in
///     (arguments.compactMap { $0 as? Double }).reduce(0, +)
/// }
/// let page = try WebPage()
/// try component.attach(to: page)
/// try await page.load(url: URL(string: "http://127.0.0.1:8080/app.html")!)
/// // in the page: $flex.add(1, 2).then(function (sum) { … })
/// ```
///
/// Settings are made before `attach(to:)` and fixed after it (`FlexError.configurationLocked`,
/// the original's ERROR1). Every message of the page is checked against the base URL and the
/// allow-list, by the URL of the document that sent it: a page outside them gets a rejection,
/// and no interface runs for it (the original checked only when it injected its script).
/// Interfaces run off the page's thread, as tasks; a page is never blocked by one.
public final class FlexComponent: @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`'s lock.

    /// An interface: the call's arguments (converted as script messages are: numbers as
    /// `NSNumber`, `Bool`, `String`, arrays, dictionaries, `Date`, `Data`, `NSNull`) to its
    /// result (nil: undefined), or a thrown error (a `FlexReject`'s reason reaches the page).
    public typealias Interface = @Sendable (_ arguments: [Any?]) async throws -> Any?
    /// An action: given a `FlexAction` that answers the call later, and the arguments.
    public typealias Action = @Sendable (_ action: FlexAction, _ arguments: [Any?]) -> Void

    private enum Body {
        case interface(Interface)
        case action(Action)
    }

    private struct Entry {
        let body: Body
        /// Milliseconds (0: none); nil: the component's default.
        let timeout: Int?
    }

    private struct Pattern {
        let expression: NSRegularExpression
        let canFlexLoad: Bool

        /// Whether the pattern matches all of `text`.
        func matches(_ text: String) -> Bool {
            let whole = NSRange(text.startIndex..., in: text)
            return expression.firstMatch(in: text, options: [.anchored], range: whole)?.range == whole
        }
    }

    /// A call of Swift's to `$flex.web.<name>`.
    private struct WebCall {
        let id: Int
        let name: String
        let value: BridgeValue
        let done: (@Sendable (Result<BridgeValue, FlexError>) -> Void)?
    }

    private struct State {
        var baseURL: Pattern?
        var allowed: [Pattern] = []
        var entries: [String: Entry] = [:]
        var names: [String] = []
        var defaultTimeout = 60_000
        var flexLoadWait = 10
        var listeners: [@Sendable (FlexEvent) -> Void] = []
        var attached = false
        weak var page: WebPage?
        var closed = false
        /// The document now loaded: its number, its flex.js, whether its flexload happened.
        var document = 0
        var control: PageSeam.FlexControl?
        var loaded = false
        /// Swift's calls waiting for the document's flexload, in order.
        var queued: [WebCall] = []
        /// Swift's calls handed to document `document`, by id, waiting for their answers.
        var delivered: [Int: (document: Int, call: WebCall)] = [:]
        var nextCall = 0
        /// The timeouts of Swift's calls waiting for an answer, by id (cancelled when it comes).
        var timers: [Int: Task<Void, Never>] = [:]
        /// The console's methods before flex.js wrapped them (the page's thread only).
        var consoleOriginals: WebPage.Box<JSValue>?
        /// The last document URL the gate decided on, and its decision (the patterns do not
        /// change once attached, and a document's messages all carry its URL).
        var lastDecision: (url: URL, allowed: Bool)?
    }

    private let state = Guarded(State())

    /// The version `$flex.version` reports.
    ///
    /// ```swift
    /// print(FlexComponent.version)
    /// ```
    public static let version = "1.0.0-duktape"

    /// The bridge's name on the page, and the names interfaces may not take (`$flex`'s own).
    static let bridgeName = "$flex"
    static let ownNames: Set<String> = ["web", "version", "device", "isAndroid", "isiOS", "isScript", "addEventListener",
                                        "removeEventListener"]

    /// A component without interfaces, whose pages are all refused until `setBaseUrl(_:)`.
    ///
    /// ```swift
    /// let component = FlexComponent()
    /// ```
    public init() {}

    // MARK: - Settings

    /// The pages whose messages are answered: a regular expression that must match a
    /// document's whole URL (the original searched for it anywhere in the URL, so that
    /// "https://app.example" let "https://evil.example/?https://app.example" in). Without one,
    /// no page may call (as the original).
    ///
    /// ```swift
    /// try component.setBaseUrl("https://app\\.example/.*")
    /// ```
    public func setBaseUrl(_ pattern: String) throws {
        let compiled = try Self.compile(pattern, canFlexLoad: true)
        try configure { $0.baseURL = compiled }
    }

    /// More pages whose URL matches `pattern` (whole): with `canFlexLoad`, `$flex` works there
    /// too; without it, the pattern is recorded and gives no access (the original used it to let
    /// such pages load at all; a `WebPage` loads what its `RequestPolicy` lets it).
    ///
    /// ```swift
    /// try component.addAllowUrl("https://help\\.example/.*", canFlexLoad: true)
    /// ```
    public func addAllowUrl(_ pattern: String, canFlexLoad: Bool = false) throws {
        let compiled = try Self.compile(pattern, canFlexLoad: canFlexLoad)
        try configure { $0.allowed.append(compiled) }
    }

    /// The timeout of interfaces without their own, in milliseconds (60,000 by default; 0:
    /// none); also how long `evalFlexFunc` waits for a result.
    ///
    /// ```swift
    /// try component.setInterfaceTimeout(5_000)
    /// ```
    public func setInterfaceTimeout(_ milliseconds: Int) throws {
        try configure { $0.defaultTimeout = max(0, milliseconds) }
    }

    /// Milliseconds between the end of the page's `onFlexLoad` and flexload (10 by default).
    ///
    /// ```swift
    /// try component.setFlexOnloadWait(0)
    /// ```
    public func setFlexOnloadWait(_ milliseconds: Int) throws {
        try configure { $0.flexLoadWait = max(0, milliseconds) }
    }

    /// Adds `$flex.<name>`, answered by `body` (synchronous or `async`; its result fulfils the
    /// page's promise, its error rejects it). `timeout` is in milliseconds: 0 for none, nil for
    /// the component's default.
    ///
    /// ```swift
    /// try component.setInterface("greet", timeout: 1_000) { arguments in
    ///     "Hello, \(arguments.first as? String ?? "you")"
    /// }
    /// ```
    public func setInterface(_ name: String, timeout: Int? = nil, _ body: @escaping Interface) throws {
        try register(name, Entry(body: .interface(body), timeout: timeout.map { max(0, $0) }))
    }

    /// Adds `$flex.<name>` whose first argument decodes as `argument` (through its JSON form)
    /// and whose result is encoded: a page argument that does not decode rejects the call with
    /// the decoder's reason.
    ///
    /// ```swift
    /// struct Point: Codable { var x, y: Double }
    /// try component.setInterface("mirror", argument: Point.self) { point in
    ///     Point(x: -point.x, y: point.y)
    /// }
    /// ```
    public func setInterface<Argument: Decodable & SendableMetatype, Result: Encodable & SendableMetatype>(
        _ name: String, argument: Argument.Type, timeout: Int? = nil,
        _ body: @escaping @Sendable (Argument) async throws -> Result
    ) throws {
        try setInterface(name, timeout: timeout) { arguments in
            let decoded: Argument
            do {
                decoded = try BridgeValues.decode(Argument.self, from: arguments.first ?? nil)
            } catch {
                throw FlexReject("$flex.\(name): the argument is not a \(Argument.self): \(BridgeValues.reason(error))")
            }
            return try BridgeValues.encode(try await body(decoded))
        }
    }

    /// Adds `$flex.<name>` answered later through a `FlexAction` (FlexHybrid's `setAction`).
    ///
    /// ```swift
    /// try component.setAction("confirm") { action, arguments in
    ///     ask(arguments.first as? String ?? "") { yes in action.resolve(yes) }
    /// }
    /// ```
    public func setAction(_ name: String, timeout: Int? = nil, _ body: @escaping Action) throws {
        try register(name, Entry(body: .action(body), timeout: timeout.map { max(0, $0) }))
    }

    /// Adds a listener of the component's events (calls' outcomes, flexload, console lines),
    /// called on a queue of the page's messages, in order.
    ///
    /// ```swift
    /// try component.addEventListener { event in print(event.kind, event.functionName) }
    /// ```
    public func addEventListener(_ listener: @escaping @Sendable (FlexEvent) -> Void) throws {
        try configure { $0.listeners.append(listener) }
    }

    // MARK: - Attaching

    /// Puts `$flex` in `page`'s documents from its next load on (the original's
    /// `FlexWebView(frame:component:)`); the settings are fixed from now on. The page keeps the
    /// component; a page has at most one.
    ///
    /// ```swift
    /// let page = try WebPage()
    /// try component.attach(to: page)
    /// ```
    public func attach(to page: WebPage) throws {
        try state.withLock { (state: inout State) throws -> Void in
            guard !state.attached else { throw FlexError.alreadyAttached }
            state.attached = true
            state.page = page
        }
        let bridge = PageBridge(
            name: Self.bridgeName,
            install: { context, environment, url in try self.install(in: context, environment: environment, url: url) },
            answer: { message in try await self.answer(message) },
            receive: { message in self.receive(message) })
        guard page.add(bridge, closed: { self.pageClosed() }) else {
            state.withLock { (state: inout State) -> Void in
                state.attached = false
                state.page = nil
            }
            throw FlexError.alreadyAttached
        }
    }

    // MARK: - Calling the page

    /// Calls `$flex.web.<name>(sendData)` in the page and returns its result (a returned
    /// promise awaited), as FlexHybrid's `evalFlexFunc(_:sendData:response:)`. Calls made before
    /// the document's flexload wait for it and run in order after it; a document that is
    /// replaced first takes them over.
    ///
    /// ```swift
    /// let title = try await component.evalFlexFunc("currentTitle") as? String
    /// ```
    ///
    /// Throws `FlexError.webFunctionFailed` when the function throws, rejects or does not
    /// exist, `.timedOut` past the component's timeout, `.documentReplaced` when the page
    /// loads another document first, `.pageClosed`, and `.notAttached`.
    @discardableResult
    public func evalFlexFunc(_ name: String, sendData: Any? = nil) async throws -> Any? {
        let value = BridgeValue(value: try BridgeValues.checked(sendData, of: "$flex.web.\(name)"))
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<BridgeValue, any Error>) in
            send(name, value) { outcome in continuation.resume(with: outcome.mapError { $0 as any Error }) }
        }
        return result.value
    }

    /// Calls `$flex.web.<name>(sendData)` in the page, as `evalFlexFunc(_:sendData:)` does,
    /// and hands the outcome to `response` (on a queue of the page's messages); with a nil
    /// `response` nothing waits for the outcome (FlexHybrid's form without a callback). The
    /// call is queued before this returns: calls made one after another reach the page in that
    /// order.
    ///
    /// ```swift
    /// component.evalFlexFunc("notify", sendData: ["count": 3]) { result in print(result) }
    /// component.evalFlexFunc("refresh", sendData: nil, response: nil)
    /// ```
    public func evalFlexFunc(
        _ name: String, sendData: Any?, response: (@Sendable (Result<Any?, FlexError>) -> Void)?
    ) {
        let value: BridgeValue
        do {
            value = BridgeValue(value: try BridgeValues.checked(sendData, of: "$flex.web.\(name)"))
        } catch {
            response?(.failure(.webFunctionFailed(name: name, errorName: "TypeError", message: BridgeValues.reason(error))))
            return
        }
        guard let response else {
            send(name, value, done: nil)
            return
        }
        send(name, value) { outcome in response(outcome.map(\.value)) }
    }

    private func send(_ name: String, _ value: BridgeValue, done: (@Sendable (Result<BridgeValue, FlexError>) -> Void)?) {
        let outcome = state.withLock { state -> (FlexError?, id: Int, timeout: Int) in
            guard state.attached, let page = state.page else { return (.notAttached, 0, 0) }
            guard !state.closed else { return (.pageClosed, 0, 0) }
            state.nextCall += 1
            let call = WebCall(id: state.nextCall, name: name, value: value, done: done)
            if state.loaded, let control = state.control {
                Self.deliver(call, to: control, document: state.document, on: page, in: &state)
            } else {
                state.queued.append(call)
            }
            return (nil, call.id, state.defaultTimeout)
        }
        if let error = outcome.0 {
            done?(.failure(error))
            return
        }
        guard done != nil, outcome.timeout > 0 else { return }
        let id = outcome.id
        let timer = Task {
            guard (try? await Task.sleep(for: .milliseconds(outcome.timeout))) != nil else { return }
            self.finish(id) { call in .failure(.timedOut(call.name)) }
        }
        let kept = state.withLock { state -> Bool in
            guard state.delivered[id] != nil || state.queued.contains(where: { $0.id == id }) else { return false }
            state.timers[id] = timer
            return true
        }
        if !kept { timer.cancel() }
    }

    /// Hands `call` to the document (under the state's lock, so that calls reach the page in
    /// the order they were made).
    private static func deliver(_ call: WebCall, to control: PageSeam.FlexControl, document: Int, on page: WebPage, in state: inout State) {
        let id = call.done == nil ? 0 : call.id
        if call.done != nil { state.delivered[call.id] = (document, call) }
        let name = call.name, value = call.value
        page.post { _ in try control.callWeb(id: id, name: name, value: value.value) }
    }

    /// Ends call `id` (queued or delivered) with `outcome(call)`, once.
    private func finish(_ id: Int, _ outcome: (WebCall) -> Result<BridgeValue, FlexError>) {
        let call = state.withLock { state -> WebCall? in
            state.timers.removeValue(forKey: id)?.cancel()
            if let delivered = state.delivered.removeValue(forKey: id) { return delivered.call }
            guard let index = state.queued.firstIndex(where: { $0.id == id }) else { return nil }
            return state.queued.remove(at: index)
        }
        guard let call else { return }
        call.done?(outcome(call))
    }

    // MARK: - The page's side

    /// A document starts loading (the page's thread): its flex.js, when its URL may use
    /// `$flex`; Swift's calls handed to the document before it fail.
    private func install(in context: JSContext, environment: PageSeam.BridgeEnvironment, url: URL?) throws {
        // Made once, on the page's thread (where installs run), and kept across documents.
        if state.withLock({ $0.consoleOriginals }) == nil, let object = JSValue(newObjectIn: context) {
            state.withLock { $0.consoleOriginals = WebPage.Box(value: object) }
        }
        let (replaced, document, natives) = state.withLock { state -> ([WebCall], Int, PageSeam.FlexNatives?) in
            state.document += 1
            state.control = nil
            state.loaded = false
            let replaced = state.delivered.values.map(\.call)
            for call in replaced { state.timers.removeValue(forKey: call.id)?.cancel() }
            state.delivered = [:]
            guard Self.allows(url, &state), let originals = state.consoleOriginals else { return (replaced, state.document, nil) }
            var timeouts: [String: Int] = [:]
            for (name, entry) in state.entries { if let timeout = entry.timeout { timeouts[name] = timeout } }
            let natives = PageSeam.FlexNatives(
                names: state.names, timeouts: timeouts, defaultTimeout: state.defaultTimeout, flexLoadWait: state.flexLoadWait,
                reportEvents: !state.listeners.isEmpty, version: Self.version, device: ["platform": "Linux", "host": "DuktapeWeb"],
                document: state.document, consoleOriginals: originals.value)
            return (replaced, state.document, natives)
        }
        for call in replaced { call.done?(.failure(.documentReplaced)) }
        guard let natives else {
            // A document that may not use `$flex`: the previous document's goes.
            _ = context.globalObject?.deleteProperty(Self.bridgeName)
            return
        }
        let control = try PageSeam.installFlex(in: context, environment: environment, name: Self.bridgeName, natives: natives)
        state.withLock { (state: inout State) -> Void in
            if state.document == document { state.control = control }
        }
    }

    /// A call of flex.js (`$flex.<name>(…)`), answered; refused for a document outside the
    /// base URL and the allow-list.
    private func answer(_ message: ScriptMessage) async throws -> Any? {
        let url = message.frameInfo.url
        guard state.withLock({ Self.allows(url, &$0) }) else {
            throw ScriptMessageReplyError("$flex: \(url?.absoluteString ?? "this document") may not call native interfaces")
        }
        // flex.js's call: `[name, ...args]`.
        guard let body = message.body as? [Any], let name = body.first as? String else {
            throw ScriptMessageReplyError("$flex: not a call")
        }
        let arguments = body.dropFirst().map { $0 is NSNull ? nil : Optional($0) }
        return try await call(name, arguments).value
    }

    /// What else flex.js posts, in order: events, console lines, flexload, and the answers of
    /// `$flex.web` calls (ignored from a document outside the base URL and the allow-list).
    private func receive(_ message: ScriptMessage) {
        guard let body = message.body as? [String: Any], let kind = body["kind"] as? String else { return }
        let url = message.frameInfo.url
        let (allowed, listeners) = state.withLock { (Self.allows(url, &$0), $0.listeners) }
        guard allowed else { return }
        let document = (body["document"] as? NSNumber)?.intValue ?? -1
        switch kind {
        case "event":
            let type = body["type"] as? String ?? ""
            let event: FlexEvent.Kind? = switch type {
            case "success": .success
            case "error": .error
            case "timeout": .timeout
            default: nil
            }
            guard let event else { return }
            let text = body["message"] as? String
            for listener in listeners {
                listener(FlexEvent(kind: event, functionName: body["name"] as? String ?? "", url: url, message: text))
            }
        case "console":
            let level = body["level"] as? String ?? "log"
            for listener in listeners {
                listener(FlexEvent(kind: .console(level: level), functionName: "", url: url, message: body["text"] as? String))
            }
        case "load":
            guard documentLoaded(document) else { return }
            for listener in listeners { listener(FlexEvent(kind: .initialized, functionName: "", url: url, message: nil)) }
        case "return":
            guard let id = (body["id"] as? NSNumber)?.intValue, id > 0 else { return }
            let fulfilled = body["ok"] as? Bool ?? false
            let value = body["value"]
            let current = state.withLock { $0.delivered[id]?.document == document }
            guard current else { return }
            finish(id) { call in
                guard !fulfilled else { return .success(BridgeValue(value: value is NSNull ? nil : value)) }
                let error = value as? [String: Any]
                return .failure(.webFunctionFailed(
                    name: call.name, errorName: error?["name"] as? String ?? "Error",
                    message: error?["message"] as? String ?? String(describing: value ?? "undefined")))
            }
        default:
            break
        }
    }

    /// Document `document`'s flexload: the calls waiting for it are handed over, in order.
    private func documentLoaded(_ document: Int) -> Bool {
        state.withLock { state in
            guard state.document == document, !state.loaded, let control = state.control, let page = state.page else { return false }
            state.loaded = true
            let queued = state.queued
            state.queued = []
            for call in queued { Self.deliver(call, to: control, document: document, on: page, in: &state) }
            return true
        }
    }

    /// Runs interface `name` with `arguments`: an interface to its end, an action until it is
    /// settled or its timeout has passed.
    private func call(_ name: String, _ arguments: [Any?]) async throws -> BridgeValue {
        let (entry, defaultTimeout) = state.withLock { ($0.entries[name], $0.defaultTimeout) }
        guard let entry else { throw ScriptMessageReplyError("$flex.\(name) is not an interface") }
        let timeout = entry.timeout ?? defaultTimeout
        do {
            switch entry.body {
            case .interface(let body):
                // Run here, in the reply handler's task: the page's own timer ends the page's
                // wait, and an interface that never returns holds one message in flight (the
                // page's limit on those bounds them).
                return BridgeValue(value: try BridgeValues.checked(try await body(arguments), of: "$flex.\(name)"))
            case .action(let body):
                // The action is not kept here: one dropped unanswered rejects the call. One not
                // settled within the timeout (and a second more, so that the page's own timer
                // tells the page first) is settled as timed out, and later answers are ignored.
                // The console, not the component: an action kept by its interface's closure
                // must not keep the component (which keeps the closure).
                let output = state.withLock { $0.page }?.configuration.consoleOutput
                let report: @Sendable (String) -> Void = { text in output?.write(.warn, text) }
                let slot: FlexAction.Slot = {
                    let action = FlexAction(name: name, report: report)
                    body(action, arguments)
                    return action.slot
                }()
                guard timeout > 0 else { return try await FlexAction.answer(in: slot) }
                let deadline = Task {
                    try await Task.sleep(for: .milliseconds(timeout + 1_000))
                    FlexAction.expire(slot, name: name)
                }
                defer { deadline.cancel() }
                return try await FlexAction.answer(in: slot)
            }
        } catch let reject as FlexReject {
            throw ScriptMessageReplyError(reject.reason)
        } catch let error as ScriptMessageReplyError {
            throw error
        } catch is CancellationError {
            throw ScriptMessageReplyError("$flex.\(name) was cancelled")
        } catch {
            throw ScriptMessageReplyError("$flex.\(name) failed")
        }
    }

    /// The page closed: every call of Swift's still waiting fails, and what the component kept
    /// of the page's context goes (so that the context can go too).
    private func pageClosed() {
        let calls = state.withLock { state -> [WebCall] in
            state.closed = true
            defer {
                state.queued = []
                state.delivered = [:]
                for timer in state.timers.values { timer.cancel() }
                state.timers = [:]
                state.control = nil
                state.consoleOriginals = nil
            }
            return state.queued + state.delivered.values.map(\.call)
        }
        for call in calls { call.done?(.failure(.pageClosed)) }
    }

    // MARK: - Helpers

    private func configure(_ change: (inout State) throws -> Void) throws {
        try state.withLock { state in
            guard !state.attached else { throw FlexError.configurationLocked }
            try change(&state)
        }
    }

    private func register(_ name: String, _ entry: Entry) throws {
        guard Self.isIdentifier(name) else { throw FlexError.invalidName(name) }
        guard !name.contains("flex"), !Self.ownNames.contains(name) else { throw FlexError.reservedName(name) }
        try configure { state in
            guard state.entries[name] == nil else { throw FlexError.duplicateName(name) }
            state.entries[name] = entry
            state.names.append(name)
        }
    }

    private static func compile(_ pattern: String, canFlexLoad: Bool) throws -> Pattern {
        do {
            return Pattern(expression: try NSRegularExpression(pattern: pattern), canFlexLoad: canFlexLoad)
        } catch {
            throw FlexError.invalidPattern(pattern)
        }
    }

    /// Whether a document at `url` may use `$flex`.
    private static func allows(_ url: URL?, _ state: inout State) -> Bool {
        guard let url else { return false }
        if let last = state.lastDecision, last.url == url { return last.allowed }
        let text = url.absoluteString
        let allowed = state.baseURL?.matches(text) == true || state.allowed.contains { $0.canFlexLoad && $0.matches(text) }
        state.lastDecision = (url, allowed)
        return allowed
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$") }
    }

}
