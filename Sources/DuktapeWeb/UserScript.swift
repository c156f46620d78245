/// A script the page runs on every load, before or after the document's own scripts
/// (WebKit's `WKUserScript`).
///
/// ```swift
/// let script = UserScript(source: "window.appVersion = '2.1'", injectionTime: .atDocumentStart)
/// configuration.userContentController.addUserScript(script)
/// ```
public struct UserScript: Sendable, Equatable {
    /// When a user script runs (WebKit's `WKUserScriptInjectionTime`).
    public enum InjectionTime: Sendable, Equatable {
        /// After the page's globals exist, before the document's first script.
        case atDocumentStart
        /// After the document's scripts, before `DOMContentLoaded`.
        case atDocumentEnd
    }

    /// The script's source.
    ///
    /// ```swift
    /// let length = script.source.count
    /// ```
    public let source: String
    /// When the script runs.
    ///
    /// ```swift
    /// if script.injectionTime == .atDocumentStart { /* before the document's scripts */ }
    /// ```
    public let injectionTime: InjectionTime

    /// A user script of `source`, run at `injectionTime`.
    ///
    /// ```swift
    /// UserScript(source: "log('ready')", injectionTime: .atDocumentEnd)
    /// ```
    public init(source: String, injectionTime: InjectionTime) {
        self.source = source
        self.injectionTime = injectionTime
    }
}
