import Foundation

/// What a `WebPage.load(html:baseURL:)` or `load(url:)` did: the document's scripts that threw
/// (the page goes on loading, as browsers do) and those it did not run (or could not load); for
/// `load(url:)`, the document's final URL and status.
///
/// ```swift
/// let result = try await page.load(html: html, baseURL: nil)
/// for error in result.scriptErrors { print(error) }
/// ```
public struct PageLoad: Sendable, Equatable {
    /// A `<script>` element the page did not run, and why.
    public struct SkippedScript: Sendable, Equatable {
        /// The element's position among the document's `<script>` elements (from 0).
        ///
        /// ```swift
        /// let indices = result.skippedScripts.map(\.index)
        /// ```
        public let index: Int
        /// Why: `type="module"` (modules are not supported), a type that is not JavaScript (a
        /// data block), or a `src` that could not be loaded (and why).
        ///
        /// ```swift
        /// for skipped in result.skippedScripts { print(skipped.index, skipped.reason) }
        /// ```
        public let reason: String
    }

    /// The exceptions thrown by the document's scripts and the user scripts, in order.
    ///
    /// ```swift
    /// if !result.scriptErrors.isEmpty { print("the page has errors") }
    /// ```
    public internal(set) var scriptErrors: [WebPageError] = []
    /// The `<script>` elements not run.
    ///
    /// ```swift
    /// let skipped = result.skippedScripts.count
    /// ```
    public internal(set) var skippedScripts: [SkippedScript] = []
    /// For `load(url:)`: the document's URL after its redirects (the page's `url` now).
    ///
    /// ```swift
    /// let landed = try await page.load(url: URL(string: "http://127.0.0.1:8080/start")!).url
    /// ```
    public internal(set) var url: URL?
    /// For `load(url:)`: the document's HTTP status (an error page is loaded as a document, as
    /// browsers do); nil for `load(html:baseURL:)` and `file:` documents.
    ///
    /// ```swift
    /// if let status = result.statusCode, status >= 400 { print("an error page") }
    /// ```
    public internal(set) var statusCode: Int?
}
