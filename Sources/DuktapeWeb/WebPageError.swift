import Foundation

/// Why a page operation failed.
///
/// ```swift
/// let page = try WebPage()
/// do {
///     _ = try await page.evaluateJavaScript("undefinedFunction()")
/// } catch WebPageError.javaScriptException(let name, let message, _, _, _) {
///     print(name, message)   // prints: ReferenceError identifier 'undefinedFunction' undefined
/// }
/// await page.shutdown()
/// ```
public enum WebPageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The script threw (WebKit's `WKError.javaScriptExceptionOccurred`): the exception's name
    /// and message, and where known its source URL, line and stack.
    case javaScriptException(name: String, message: String, sourceURL: String?, line: Int?, stack: String?)
    /// The result was a function or symbol, which has no Swift form (WebKit's
    /// `WKError.javaScriptResultTypeIsUnsupported`).
    case unsupportedResultType(String)
    /// A `callAsyncJavaScript` argument name that is not a JavaScript identifier.
    case invalidArgumentName(String)
    /// The page was closed (or its loop stopped) before the operation finished.
    case closed
    /// `load(url:)` could not get the document: a URL it cannot load, the policy's refusal, a
    /// network failure, a document over 16 MB. The page's document and URL did not change.
    ///
    /// ```swift
    /// catch WebPageError.navigationFailed(let url, let reason) { print(url, reason) }
    /// ```
    case navigationFailed(url: URL, reason: String)
    /// No context could be made for the page (the process is out of memory).
    case cannotCreateContext

    /// The error in a sentence: for an exception `file:line: Name: message`, or
    /// `Name: message (line 3)` when the script had no source URL.
    ///
    /// ```swift
    /// let error = WebPageError.javaScriptException(
    ///     name: "TypeError", message: "cannot read property 'x' of null", sourceURL: nil, line: 1, stack: nil)
    /// print(error.description)   // prints: TypeError: cannot read property 'x' of null (line 1)
    /// ```
    public var description: String {
        switch self {
        case .javaScriptException(let name, let message, let sourceURL, let line, _):
            let headline = name.isEmpty ? message : "\(name): \(message)"
            switch (sourceURL, line) {
            case (let sourceURL?, let line?): return "\(sourceURL):\(line): \(headline)"
            case (let sourceURL?, nil): return "\(sourceURL): \(headline)"
            case (nil, let line?): return "\(headline) (line \(line))"
            case (nil, nil): return headline
            }
        case .unsupportedResultType(let type): return "the result (a \(type)) has no Swift form"
        case .invalidArgumentName(let name): return "'\(name)' is not a JavaScript identifier"
        case .closed: return "the page was closed"
        case .navigationFailed(let url, let reason): return "the page could not load \(url.absoluteString): \(reason)"
        case .cannotCreateContext: return "no JavaScript context could be made for the page"
        }
    }
}

/// `localizedDescription` is the `description` (Foundation's default on Linux names only the
/// type and case number).
extension WebPageError: LocalizedError {
    public var errorDescription: String? { description }
}
