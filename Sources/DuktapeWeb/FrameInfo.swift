import Foundation

/// The document a script message came from (WebKit's `WKFrameInfo`). A page has one frame, so
/// `isMainFrame` is always true; WebKit's `request` is `url` here (`URLRequest` is in
/// FoundationNetworking on Linux, which this module does not link).
///
/// ```swift
/// controller.add(name: "bridge") { message in
///     guard message.frameInfo.securityOrigin == SecurityOrigin(protocol: "https", host: "app.example", port: 0) else { return }
/// }
/// ```
public struct FrameInfo: Sendable, Equatable {
    /// The document's URL when it posted: its base URL after redirects, nil for a document
    /// loaded without one.
    ///
    /// ```swift
    /// let path = message.frameInfo.url?.path
    /// ```
    public let url: URL?
    /// The document's origin when it posted (derived from `url` when asked: a message's post
    /// does not parse its URL).
    ///
    /// ```swift
    /// let host = message.frameInfo.securityOrigin.host
    /// ```
    public var securityOrigin: SecurityOrigin { SecurityOrigin(url: url) }
    /// True: a page has no frames but its own.
    ///
    /// ```swift
    /// if message.frameInfo.isMainFrame { /* always */ }
    /// ```
    public let isMainFrame = true

    init(url: URL?) {
        self.url = url
    }
}
