import Foundation

/// The page's message handlers and user scripts (WebKit's `WKUserContentController`): handlers
/// receive what scripts post with `webkit.messageHandlers.<name>.postMessage(value)`; handlers
/// with a reply fulfil (or reject) the promise that `postMessage` returns.
///
/// ```swift
/// let controller = UserContentController()
/// controller.add(name: "log") { message in print(message.body ?? "nil") }
/// controller.addWithReply(name: "lookup") { message in
///     try await database.value(for: message.body as? String ?? "")   // the promise's value
/// }
/// controller.addUserScript(UserScript(source: "window.native = true", injectionTime: .atDocumentStart))
/// ```
///
/// Messages are delivered in the order they were posted, on a serial queue of the controller's
/// (never on the page's thread, so a handler may wait for the page). Handlers and user scripts
/// can change at any time; a page sees handler changes at once and user scripts at its next
/// load. A controller may serve several pages.
public final class UserContentController: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`.

    /// A handler without a reply.
    public typealias Handler = @Sendable (ScriptMessage) -> Void
    /// A handler whose result fulfils the `postMessage` promise (converted as
    /// `JSValue(object:in:)` converts), and whose thrown error rejects it with an `Error` whose
    /// message is the error's description.
    public typealias ReplyHandler = @Sendable (ScriptMessage) async throws -> Any?

    enum Registered {
        case plain(Handler)
        case withReply(ReplyHandler)
    }

    private let lock = NSLock()
    private var handlers: [String: Registered] = [:]
    private var scripts: [UserScript] = []
    private var pages: [ObjectIdentifier: WeakPage] = [:]
    let deliveries = DispatchQueue(label: "DuktapeWeb.UserContentController")

    /// An empty controller.
    ///
    /// ```swift
    /// let controller = UserContentController()
    /// ```
    public init() {}

    /// Adds a handler for `webkit.messageHandlers.<name>` (replacing one of the same name).
    ///
    /// ```swift
    /// controller.add(name: "bridge") { message in handle(message.body) }
    /// ```
    public func add(name: String, handler: @escaping Handler) {
        register(name, .plain(handler))
    }

    /// Adds a handler whose result answers the message (WebKit's
    /// `WKScriptMessageHandlerWithReply`): `postMessage` returns a promise of it.
    ///
    /// ```swift
    /// controller.addWithReply(name: "sum") { message in
    ///     (message.body as? [Int] ?? []).reduce(0, +)
    /// }
    /// // in the page: webkit.messageHandlers.sum.postMessage([1, 2]).then(function (n) { ... })
    /// ```
    public func addWithReply(name: String, handler: @escaping ReplyHandler) {
        register(name, .withReply(handler))
    }

    /// Removes the handler named `name`; `webkit.messageHandlers.<name>` disappears from pages.
    ///
    /// ```swift
    /// controller.removeScriptMessageHandler(forName: "bridge")
    /// ```
    public func removeScriptMessageHandler(forName name: String) {
        let (removed, observers) = lock.withLock { (handlers.removeValue(forKey: name) != nil, livePages()) }
        if removed { for page in observers { page.handlerChanged(name, kind: 0) } }
    }

    /// Removes every handler.
    ///
    /// ```swift
    /// controller.removeAllScriptMessageHandlers()
    /// ```
    public func removeAllScriptMessageHandlers() {
        let (names, observers) = lock.withLock { () -> ([String], [WebPage]) in
            defer { handlers = [:] }
            return (Array(handlers.keys), livePages())
        }
        for page in observers { for name in names { page.handlerChanged(name, kind: 0) } }
    }

    /// Adds a user script, run by every later load of the pages using this controller.
    ///
    /// ```swift
    /// controller.addUserScript(UserScript(source: "window.embedded = true", injectionTime: .atDocumentStart))
    /// ```
    public func addUserScript(_ script: UserScript) {
        lock.withLock { scripts.append(script) }
    }

    /// Removes every user script.
    ///
    /// ```swift
    /// controller.removeAllUserScripts()
    /// ```
    public func removeAllUserScripts() {
        lock.withLock { scripts = [] }
    }

    /// The user scripts, in the order they were added.
    ///
    /// ```swift
    /// let count = controller.userScripts.count
    /// ```
    public var userScripts: [UserScript] {
        lock.withLock { scripts }
    }

    // MARK: - Pages

    private func register(_ name: String, _ handler: Registered) {
        let observers = lock.withLock { () -> [WebPage] in
            handlers[name] = handler
            return livePages()
        }
        for page in observers { page.handlerChanged(name, kind: Self.kind(of: handler)) }
    }

    /// 1 for a plain handler, 2 for one with a reply (PageScript's `setHandler` kinds).
    static func kind(of handler: Registered) -> Int {
        if case .withReply = handler { 2 } else { 1 }
    }

    /// Starts telling `page` about handler changes; returns the handlers it must install now.
    func attach(_ page: WebPage) -> [String: Int] {
        lock.withLock {
            pages[ObjectIdentifier(page)] = WeakPage(page: page)
            return handlers.mapValues(Self.kind(of:))
        }
    }

    func detach(_ page: WebPage) {
        _ = lock.withLock { pages.removeValue(forKey: ObjectIdentifier(page)) }
    }

    func handler(named name: String) -> Registered? {
        lock.withLock { handlers[name] }
    }

    private func livePages() -> [WebPage] {
        pages = pages.filter { $0.value.page != nil }
        return pages.values.compactMap(\.page)
    }
}

private struct WeakPage {
    weak var page: WebPage?
}
