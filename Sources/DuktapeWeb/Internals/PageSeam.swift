import CDuktapeWebScripts
import DuktapeCore
import DuktapeRuntime
import Foundation
import NIOCore

/// The seam between the web host's JavaScript (`Sources/DuktapeWeb/JavaScript`) and its Swift,
/// declared once, as WebKit declares the messages between its processes: which files run in
/// which order, every native a file is given, every function of a file the host calls, and the
/// hidden keys. Property names of the JavaScript side appear in Swift only here.
///
/// ```
///  Swift                                   JavaScript (one factory per file, HostScript)
///  BrowserGlobals ── BrowserNatives ──────▶ helpers … abort.js   (the globals)
///  PageNetwork    ── FetchNatives ────────▶ streams … fetch.js   (fetch → one typed send)
///                 ◀── TransferEvents ───── head / available / end / fail, by transfer id
///  PageWebSockets ── WebSocketNatives ────▶ websocket.js         (open / send / close)
///                 ◀── WebSocketEvents ──── open / message / written / closing / error / close
///  WebPage        ── PageNatives ─────────▶ page.js              (post, copy, cookies)
///                 ◀── Control ──────────── location, user agent, ready state, handlers, replies
///  FlexComponent  ── FlexNatives ─────────▶ flex.js              ($flex, at every document start)
///                 ◀── FlexControl ──────── callWeb
///  WebViewJavascriptBridge ── BridgeNatives ▶ wvjb.js            (WebViewJavascriptBridge)
///                 ◀── BridgeControl ────── receive
/// ```
enum PageSeam {
    // MARK: - Files

    /// DuktapeWeb's embedded files (the .js files and loader.html), by name.
    static let files = HostScript.embeddedFiles { cduk_web_file_at($0, $1, $2) }

    /// DuktapeWeb's file `file` (empty when missing: `HostScript.run` reports it).
    static func script(_ file: String) -> HostScript {
        HostScript(library: "DuktapeWeb", file: file, source: files[file] ?? "")
    }

    /// The browser globals, in order (each file uses what the files before it return).
    static let globals = ["helpers.js", "dom-exception.js", "window.js", "encoding.js", "url.js", "events.js",
                          "headers.js", "blob.js", "abort.js"].map(script)
    /// `fetch` and its classes, run after the globals when the page has a network.
    static let fetch = ["streams.js", "bodies.js", "request.js", "response.js", "fetch.js"].map(script)
    /// `WebSocket`, `MessageEvent` and `CloseEvent`, after fetch's when the page has a network.
    static let webSocket = [script("websocket.js")]
    /// The last file: read-only prototypes, and the page host's `dispatch`.
    static let closing = [script("browser.js")]
    /// The page's own globals (`document`, `location`, `navigator`, `webkit.messageHandlers`).
    static let page = [script("page.js")]
    /// FlexComponent's `$flex`.
    static let flex = [script("flex.js")]
    /// WebViewJavascriptBridge's page side.
    static let bridge = [script("wvjb.js")]

    /// `loader.html`, the page a `WebLoader` runs.
    static let loaderHTML = files["loader.html"] ?? ""
    /// `websocket.html`, the page of a `WebLoader`'s WebSocket.
    static let webSocketHTML = files["websocket.html"] ?? ""

    /// The hidden keys of the globals' internal state (`natives.hiddenKeys.<name>`).
    static let hiddenKeyNames = ["decoder", "url", "params", "event", "listeners", "headers", "blob", "file", "form", "signal",
                                 "controller", "stream", "reader", "streamController", "body", "request", "response", "webSocket"]

    // MARK: - Natives

    /// What the globals' files are given (`natives.<name>`): byte and text work done natively
    /// (Duktape interns every intermediate string, so building strings byte by byte in script is
    /// quadratic), WHATWG URL parsing, exception reporting, and the hidden keys.
    struct BrowserNatives {
        var base64Encode, base64Decode, utf8Encode, utf8Decode, utf8Fits: JSValue
        /// `urlParse(input, base) → [String] | null`, `urlSet(href, name, value)`: a URL's
        /// attributes in `URLRecord.attributeNames`' order (`urlAttributeNames`).
        var urlParse, urlSet: JSValue
        var usv, formParse, formSerialize: JSValue
        /// An exception of a listener or callback, reported as the core reports them.
        var report: JSValue
    }

    /// `fetch`'s natives (`natives.fetch.<name>`): the page's network (`PageNetwork`).
    struct FetchNatives {
        /// `send(url, method, headers [name, value, …], body, redirect, timeout, credentials,
        /// cache) → id`: the request, as values; every outcome arrives as `TransferEvents`.
        var send: JSValue
        /// `read(id, count)`: the page read `count` bytes of the body (flow control).
        var read: JSValue
        /// `cancel(id)`: the page gave up the transfer.
        var cancel: JSValue
        /// `pull(id) → Uint8Array | undefined`: the oldest waiting bytes, or undefined (the next
        /// bytes then send `available`).
        var pull: JSValue
        /// `decodeText(bytes, contentType)`: a body's text in its charset.
        var decodeText: JSValue
        /// `documentURL() → string | null`: the page's URL, the base of relative requests.
        var documentURL: JSValue
    }

    /// `WebSocket`'s natives (`natives.webSocket.<name>`): the page's connections
    /// (`PageWebSockets`).
    struct WebSocketNatives {
        /// `open(url, protocols) → id`: connects to the absolute ws or wss `url`; every outcome
        /// arrives as `WebSocketEvents`.
        var open: JSValue
        /// `send(id, bytes, isOpen) → count`: sends the bytes of a Uint8Array as a binary message
        /// when `isOpen`, and returns their count either way.
        var send: JSValue
        /// `sendText(id, text, isOpen) → bytes`: the same for a text message (its size in UTF-8).
        var sendText: JSValue
        /// `close(id, code, reason)`: the closing handshake (`code` -1: none), or a connection
        /// still opening failed.
        var close: JSValue
        /// `documentURL() → string | null`: the base of relative URLs.
        var documentURL: JSValue
    }

    /// The page's natives (`natives.<name>` in page.js).
    struct PageNatives {
        /// `post(name, value, replyID, toBridge)`: a script message to handler `name`, or to
        /// the page's bridge `name` when `toBridge` (replyID 0: no reply wanted).
        var post: JSValue
        /// `getCookie() → string`, `setCookie(text)`: `document.cookie`.
        var getCookie, setCookie: JSValue
        /// `copyPlain(value) → copy | undefined`: a message's copy made natively when it is
        /// plain data (`NativeHelper.plainDataCopy`).
        var copyPlain: JSValue
    }

    /// What every bridge's file is given (`natives.<name>`), besides its own: its channel to its
    /// handler and the page's timers and console as they were when the page was made (a page
    /// that replaces `setTimeout` or `console` does not change how its bridges work).
    struct BridgeEnvironment: @unchecked Sendable {
        // @unchecked: JSValues, used only on the page's thread.
        /// `post(name, value, withReply, hooks, tag) → Promise | undefined` (page.js's `bridge`).
        let post: JSValue
        let setTimeout, clearTimeout, console: JSValue

        /// The environment of a page whose global object is `global` (read now).
        init(global: JSValue, bridge: JSValue) {
            post = bridge.forProperty("post")
            setTimeout = global.forProperty("setTimeout")
            clearTimeout = global.forProperty("clearTimeout")
            console = global.forProperty("console")
        }
        /// The entries every bridge file gets: `post`, `name`, `setTimeout`, `clearTimeout`,
        /// `console`.
        func members(name: String, in context: JSContext) -> [(String, JSValue)] {
            [("post", post), ("name", PageSeam.value(name, in: context)), ("setTimeout", setTimeout),
             ("clearTimeout", clearTimeout), ("console", console)]
        }
    }

    /// `value` converted for a file's natives (undefined if it has no JavaScript form).
    static func value(_ value: Any, in context: JSContext) -> JSValue {
        JSValue(object: value, in: context) ?? JSValue(undefinedIn: context)
    }

    /// flex.js's own natives.
    struct FlexNatives {
        /// The interfaces' names (`$flex.<name>`).
        var names: [String]
        /// Per-interface timeouts in milliseconds (0: none), by name; the others take
        /// `defaultTimeout` (0: none).
        var timeouts: [String: Int]
        var defaultTimeout: Int
        /// Milliseconds between `onFlexLoad`'s end and flexload.
        var flexLoadWait: Int
        /// Whether events and console lines are posted (the component has listeners).
        var reportEvents: Bool
        var version: String
        var device: [String: String]
        /// The document's number, in every message it posts (a late message of a replaced
        /// document is told apart).
        var document: Int
        /// The console's methods before flex.js wrapped them, kept across documents (an object
        /// the component keeps for the page).
        var consoleOriginals: JSValue
    }

    /// What flex.js returns: how Swift calls `$flex.web`.
    struct FlexControl: @unchecked Sendable {
        // @unchecked: a JSValue, called only on the page's thread.
        private let callWebFunction: JSValue
        /// `callWeb(id, name, value)`: calls `$flex.web.<name>(value)` once the document's
        /// flexload has happened; the outcome comes back as a `return` message with `id` (0: no
        /// outcome wanted).
        func callWeb(id: Int, name: String, value: Any?) throws {
            try callWebFunction.call(id, name, value ?? NSNull())
        }
        init(_ value: JSValue) {
            callWebFunction = value.forProperty("callWeb")
        }
    }

    /// Runs flex.js for the document now loading.
    static func installFlex(in context: JSContext, environment: BridgeEnvironment, name: String, natives: FlexNatives) throws -> FlexControl {
        func value(_ value: Any) -> JSValue { PageSeam.value(value, in: context) }
        let members = environment.members(name: name, in: context) + [
            ("names", value(natives.names)), ("timeouts", value(natives.timeouts)), ("defaultTimeout", value(natives.defaultTimeout)),
            ("flexLoadWait", value(natives.flexLoadWait)), ("reportEvents", value(natives.reportEvents)),
            ("version", value(natives.version)), ("device", value(natives.device)), ("document", value(natives.document)),
            ("consoleOriginals", natives.consoleOriginals),
        ]
        return FlexControl(try HostScript.run(flex, in: context, natives: HostScript.table(members, in: context)))
    }

    /// What wvjb.js returns: how Swift hands the page a message.
    struct BridgeControl: @unchecked Sendable {
        // @unchecked: JSValues, called only on the page's thread.
        private let receiveFunction, respondFunction: JSValue
        /// `receive(message)`: a message object from Swift (`handlerName`, `data`, `callbackId`),
        /// dispatched as the original's `_handleMessageFromObjC`.
        func receive(_ message: [String: Any]) throws {
            try receiveFunction.call(message)
        }
        /// `respond(responseId, responseData, error)`: the response to the page's call
        /// `responseId` (`error`: the extension's second argument, or undefined).
        func respond(to responseID: String, data: Any?, error: String?) throws {
            try respondFunction.call(responseID, data, error)
        }
        init(_ value: JSValue) {
            receiveFunction = value.forProperty("receive")
            respondFunction = value.forProperty("respond")
        }
    }

    /// Runs wvjb.js for the document now loading (`document`: its number, in its `ready`
    /// message).
    static func installBridge(in context: JSContext, environment: BridgeEnvironment, name: String, document: Int) throws -> BridgeControl {
        let members = environment.members(name: name, in: context)
            + [("document", value(document, in: context))]
        return BridgeControl(try HostScript.run(bridge, in: context, natives: HostScript.table(members, in: context)))
    }

    // MARK: - Installing

    /// What the host keeps of a context's browser globals.
    struct Globals {
        /// What the files returned (page.js takes its `dispatch`).
        let shared: JSValue
        /// The transfer events, when the globals have fetch.
        let transferEvents: TransferEvents?
        /// The WebSocket events, when the globals have `WebSocket`.
        let webSocketEvents: WebSocketEvents?
    }

    /// Runs the globals' files in `context`, then fetch's when `fetch` is given and
    /// websocket.js when `webSocket` is, then the closing file.
    static func installGlobals(in context: JSContext, natives: BrowserNatives, fetch: FetchNatives?,
                               webSocket: WebSocketNatives? = nil) throws -> Globals {
        let keys = try hiddenKeyNames.map { name in (name, try context.hiddenKey("DuktapeWeb." + name)) }
        var members: [(String, JSValue)] = [
            ("base64Encode", natives.base64Encode), ("base64Decode", natives.base64Decode), ("utf8Encode", natives.utf8Encode),
            ("utf8Decode", natives.utf8Decode), ("utf8Fits", natives.utf8Fits), ("urlParse", natives.urlParse),
            ("urlSet", natives.urlSet), ("usv", natives.usv), ("formParse", natives.formParse),
            ("formSerialize", natives.formSerialize), ("report", natives.report),
            ("hiddenKeys", try HostScript.table(keys, in: context)), ("ownSlot", try context.nativeHelper(.ownSlot)),
            ("urlAttributeNames", JSValue(object: URLRecord.attributeNames, in: context)),
        ]
        var scripts = globals
        if let fetch {
            members.append(("fetch", try HostScript.table([
                ("send", fetch.send), ("read", fetch.read), ("cancel", fetch.cancel), ("pull", fetch.pull),
                ("decodeText", fetch.decodeText), ("documentURL", fetch.documentURL),
            ], in: context)))
            scripts += Self.fetch
        }
        if let webSocket {
            members.append(("webSocket", try HostScript.table([
                ("open", webSocket.open), ("send", webSocket.send), ("sendText", webSocket.sendText), ("close", webSocket.close), ("documentURL", webSocket.documentURL),
            ], in: context)))
            scripts += Self.webSocket
        }
        let shared = try HostScript.run(scripts + closing, in: context, natives: HostScript.table(members, in: context))
        let events = fetch == nil ? nil : shared.forProperty("transferEvents").map(TransferEvents.init)
        let socketEvents = webSocket == nil ? nil : shared.forProperty("webSocketEvents").map(WebSocketEvents.init)
        return Globals(shared: shared, transferEvents: events, webSocketEvents: socketEvents)
    }

    /// Runs page.js in `context` (after `installGlobals`) and returns the page's control.
    static func installPage(in context: JSContext, globals: Globals, natives: PageNatives) throws -> Control {
        // The page's timers as they are before any document runs (the bridges' deadlines).
        guard let global = context.globalObject else { throw WebPageError.cannotCreateContext }
        let table = try HostScript.table([("post", natives.post), ("getCookie", natives.getCookie), ("setCookie", natives.setCookie),
                                          ("copyPlain", natives.copyPlain),
                                          ("setTimeout", global.forProperty("setTimeout")),
                                          ("clearTimeout", global.forProperty("clearTimeout"))], in: context)
        let shared = try HostScript.run(page, in: context, natives: table, shared: globals.shared)
        return Control(shared.forProperty("control"), bridge: shared.forProperty("bridge"))
    }

    // MARK: - Calls into the page

    /// fetch.js's handlers of a transfer's events. A call finds nothing to do for an id the page
    /// no longer knows (it aborted, or the transfer ended).
    struct TransferEvents: @unchecked Sendable {
        // @unchecked: JSValues, called only on the page's thread.
        private let head, available, end, fail: JSValue

        init(_ events: JSValue) {
            head = events.forProperty("head")
            available = events.forProperty("available")
            end = events.forProperty("end")
            fail = events.forProperty("fail")
        }

        /// The response's head (`headers` as [name, value, …]; `type` `basic`, `cors` or
        /// `opaqueredirect`).
        func head(_ id: Int, status: Int, statusText: String, url: String, redirected: Bool, headers: [String], type: String) {
            _ = head.call(withArguments: [id, status, statusText, url, redirected, headers, type])
        }

        /// Bytes wait for a stream that wanted some: it pulls them.
        func available(_ id: Int) {
            _ = available.call(withArguments: [id])
        }

        /// The body ended: the stream pulls what still waits, then closes.
        func end(_ id: Int) {
            _ = end.call(withArguments: [id])
        }

        /// The transfer failed: its error's name (`TimeoutError` or `TypeError`), its message,
        /// its kind's code and its reason (the `code` and `message` of the `TypeError`'s `cause`).
        func fail(_ id: Int, _ failure: FetchFailure) {
            _ = fail.call(withArguments: [id, failure.pageErrorName, failure.message, failure.kind.rawValue, failure.reason])
        }
    }

    /// websocket.js's handlers of a connection's events. A call finds nothing to do for an id
    /// the page no longer knows.
    struct WebSocketEvents: @unchecked Sendable {
        // @unchecked: JSValues, called only on the page's thread.
        private let openFunction, messageFunction, writtenFunction, closingFunction, errorFunction, closeFunction: JSValue

        init(_ events: JSValue) {
            openFunction = events.forProperty("open")
            messageFunction = events.forProperty("message")
            writtenFunction = events.forProperty("written")
            closingFunction = events.forProperty("closing")
            errorFunction = events.forProperty("error")
            closeFunction = events.forProperty("close")
        }

        /// The handshake succeeded: the subprotocol and the extensions the server chose.
        func open(_ id: Int, protocolName: String, extensions: String) {
            _ = openFunction.call(withArguments: [id, protocolName, extensions])
        }

        /// A text message (throws when the page's memory limit has no room for it).
        func message(_ id: Int, text: String) throws {
            guard let context = messageFunction.context else { return }
            let string = try JSValue(newString: text, in: context)
            _ = messageFunction.call(withArguments: [id, string])
        }

        /// A binary message: its bytes in a Uint8Array of their own (throws when the page's
        /// memory limit has no room for them).
        func message(_ id: Int, bytes: ByteBuffer) throws {
            guard let context = messageFunction.context else { return }
            let array = try JSValue(newUint8ArrayJoining: CollectionOfOne(bytes.readableBytesView), in: context)
            _ = messageFunction.call(withArguments: [id, array])
        }

        /// `count` bytes the page sent are written (`bufferedAmount` shrinks).
        func written(_ id: Int, _ count: Int) {
            _ = writtenFunction.call(withArguments: [id, count])
        }

        /// The server began the closing handshake (`readyState` is CLOSING).
        func closing(_ id: Int) {
            _ = closingFunction.call(withArguments: [id])
        }

        func error(_ id: Int) {
            _ = errorFunction.call(withArguments: [id])
        }

        func close(_ id: Int, code: Int, reason: String, wasClean: Bool) {
            _ = closeFunction.call(withArguments: [id, code, reason, wasClean])
        }
    }

    /// page.js's control of the page.
    struct Control: @unchecked Sendable {
        // @unchecked: JSValues, called only on the page's thread.
        private let setLocationFunction, setUserAgentFunction, setReadyStateFunction, setHandlerFunction: JSValue
        private let settleFunction, copyFunction, callMadeFunction: JSValue
        /// page.js's `bridge` (`post`): what a bridge's file is given to post to its
        /// handler (`PageBridge`).
        let bridge: JSValue

        /// What a page's `webkit.messageHandlers.<name>` is.
        enum HandlerKind: String {
            /// No such handler (removed).
            case none
            /// `postMessage` returns undefined.
            case plain
            /// `postMessage` returns a promise of the handler's reply.
            case reply
        }

        /// `document.readyState`. `interactive` fires `DOMContentLoaded`, `complete` `load`.
        enum ReadyState: String {
            case loading, interactive, complete
        }

        init(_ control: JSValue, bridge: JSValue) {
            self.bridge = bridge
            setLocationFunction = control.forProperty("setLocation")
            setUserAgentFunction = control.forProperty("setUserAgent")
            setReadyStateFunction = control.forProperty("setReadyState")
            setHandlerFunction = control.forProperty("setHandler")
            settleFunction = control.forProperty("settle")
            copyFunction = control.forProperty("copy")
            callMadeFunction = control.forProperty("callMade")
        }

        /// `location`'s attributes (`URLRecord.attributes`' order).
        func setLocation(_ attributes: [String]) throws {
            try setLocationFunction.call(attributes)
        }

        func setUserAgent(_ agent: String) throws {
            try setUserAgentFunction.call(agent)
        }

        func setReadyState(_ state: ReadyState) throws {
            try setReadyStateFunction.call(state.rawValue)
        }

        func setHandler(_ name: String, _ kind: HandlerKind) throws {
            try setHandlerFunction.call(name, kind.rawValue)
        }

        /// Settles the promise of message reply `replyID`: fulfilled with `value`, or rejected
        /// with an `Error` whose message is `value`.
        func settle(_ replyID: Int, fulfilled: Bool, value: Any?) throws {
            try settleFunction.call(replyID, fulfilled, value)
        }

        /// `value` copied as a message is (WebKit's structured serialization).
        func copy(_ value: JSValue) throws -> JSValue {
            try copyFunction.call(value)
        }

        /// `function` (compiled by the host for `callAsyncJavaScript`) called with `values`.
        func callMade(_ function: JSValue, _ values: Any?) throws -> JSValue {
            try callMadeFunction.call(function, values)
        }
    }
}
