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
/// (never on the page's thread, so a handler may wait for the page): plain handlers run there
/// one at a time; handlers with a reply are started there, in order, as tasks that may run
/// concurrently. Handlers and user scripts can change at any time; a page sees handler changes
/// at once and user scripts at its next load. A controller may serve several pages.
///
/// A reply handler's error rejects the page's promise with a generic message, unless it is a
/// `ScriptMessageReplyError`, whose message the page sees (as WebKit's `replyHandler(nil,
/// errorMessage)`): a Swift error's description never reaches the page by accident.
public final class UserContentController: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`.

    /// A handler without a reply.
    public typealias Handler = @Sendable (ScriptMessage) -> Void
    /// A handler whose result fulfils the `postMessage` promise (converted as
    /// `JSValue(object:in:)` converts), and whose thrown error rejects it with an `Error`
    /// ("the message handler failed", or a `ScriptMessageReplyError`'s message).
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
        if removed { for page in observers { page.handlerChanged(name) } }
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
        for page in observers { for name in names { page.handlerChanged(name) } }
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
        for page in observers { page.handlerChanged(name) }
    }

    /// Starts telling `page` about handler changes; returns the names it must install now.
    func attach(_ page: WebPage) -> [String] {
        lock.withLock {
            pages[ObjectIdentifier(page)] = WeakPage(page: page)
            return Array(handlers.keys)
        }
    }

    func detach(_ page: WebPage) {
        _ = lock.withLock { pages.removeValue(forKey: ObjectIdentifier(page)) }
    }

    func handler(named name: String) -> Registered? {
        lock.withLock { handlers[name] }
    }

    /// The pages still alive (the dead ones forgotten). Called under the lock; the strong
    /// references it returns are released by the caller after the lock, so that a page's last
    /// release (and its deinit, which takes this lock) never happens under it.
    private func livePages() -> [WebPage] {
        var live: [WebPage] = []
        for (identifier, entry) in pages {
            if let page = entry.page { live.append(page) } else { pages[identifier] = nil }
        }
        return live
    }
}

private struct WeakPage {
    weak var page: WebPage?
}
