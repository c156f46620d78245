import DuktapeCore
import Foundation

/// A bridge of the package's own on a page (`FlexComponent`, `WebViewJavascriptBridge`): its
/// file, run at every document start before the user scripts, and the handler of what the file
/// posts. The file posts through `bridgePost`, a channel of the page's own that a script cannot
/// reach or replace through `webkit.messageHandlers`; its messages are script messages in every
/// other way (the page's limits on messages in flight, `frameInfo`, replies as promises).
struct PageBridge: Sendable {
    /// The name its messages are posted to (one bridge of a name per page).
    let name: String
    /// Runs the bridge's file for the document now loading (at `url`), on the page's thread.
    let install: @Sendable (_ context: JSContext, _ environment: PageSeam.BridgeEnvironment, _ url: URL?) throws -> Void
    /// Answers what the file posts with a reply, as a reply handler does.
    let answer: UserContentController.ReplyHandler
    /// Receives what the file posts without a reply, in order, as a plain handler does.
    let receive: UserContentController.Handler
}
