/// What a `WebLoader` request does (LWWebLoader's `LWWebLoadMethod`, with its values).
///
/// ```swift
/// let body = WebLoader.body(url: url, method: .downloadStream)
/// ```
public enum WebLoaderMethod: Int, Sendable, CaseIterable {
    /// GET the URL; the response is delivered once, as JSON, text or data by its content type.
    case getData = 0
    /// POST `postData` (JSON, or form-urlencoded when the content type says so); the response is
    /// delivered as for `getData`.
    case postData = 1
    /// POST `uploadData` as the `file` part of a `multipart/form-data` body, with `postData`'s
    /// other fields as parts (its `filename` names the file).
    case uploadData = 2
    /// GET the URL into memory (as `getData`).
    case downloadFile = 3
    /// GET the URL into a file, written as chunks arrive: `streamStart`, `streaming` with
    /// progress, then `streamEnd` with the file's URL.
    case downloadStream = 4
    /// Writes `methodArguments` to the loader's log through the page's `log` function.
    case nativeLog = 6

    /// The name of the page function the method runs (`getData`, `postData`…, `log`).
    ///
    /// ```swift
    /// print(WebLoaderMethod.downloadStream.functionName)   // prints: downloadStream
    /// ```
    public var functionName: String {
        switch self {
        case .getData: "getData"
        case .postData: "postData"
        case .uploadData: "uploadData"
        case .downloadFile: "downloadFile"
        case .downloadStream: "downloadStream"
        case .nativeLog: "log"
        }
    }

    /// True for the methods that end with a stream of messages (`downloadStream`).
    var isStream: Bool { self == .downloadStream }
}
