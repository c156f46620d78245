import Foundation

/// One request for a `WebLoader` (LWWebLoader's `WLEvaluateBody`): the URL, the method, a
/// request id, and the method's arguments. Made by `WebLoader.body(url:method:…)`.
///
/// ```swift
/// let body = WebLoader.body(url: URL(string: "https://api.example.com/items"), method: .getData,
///                           headers: ["Authorization": "Bearer t0ken"])
/// print(body.requestID)   // "5F0C…" (a UUID)
/// ```
public struct WebLoaderRequest: @unchecked Sendable {
    // @unchecked: `postData` holds JSON-compatible values (strings, numbers, booleans, arrays,
    // dictionaries, NSNull), which are immutable value types or never mutated after creation.

    /// The URL to load: an absolute http or https URL (a relative one with its base counts).
    /// A request without one, or with another, fails with `WebLoaderError.invalidRequest`
    /// naming what was given (LWWebLoader sent a request without a URL to `http://localhost`;
    /// `URL(string: "127.0.0.1:8765/items.json")` is nil, and sending that to port 80 of
    /// localhost hid the mistake). `nativeLog` needs none.
    public var url: URL?
    /// The request's id, echoed in every message of the request (a UUID string by default).
    public var requestID: String
    /// What the request does.
    public var method: WebLoaderMethod
    /// `nativeLog`'s text.
    public var methodArguments: String?
    /// The `User-Agent` header, or nil for the loader's.
    public var userAgent: String?
    /// The `Content-Type` header of the request body, or nil for the method's default
    /// (`application/json` for `postData`; always the multipart boundary for `uploadData`).
    public var contentType: String?
    /// `postData`'s body (sent as JSON, or form-urlencoded when `contentType` says so), or
    /// `uploadData`'s extra fields (`filename` names the uploaded file).
    public var postData: [String: Any]?
    /// `uploadData`'s file bytes.
    public var uploadData: Data?
    /// More request headers (a Swift-first addition; `userAgent` and `contentType` win over
    /// entries of the same names).
    public var headers: [String: String] = [:]
    /// The HTTP method, replacing the method's own (GET, or POST for `postData` and
    /// `uploadData`): a Swift-first addition, used by `dukjs fetch --method`.
    public var httpMethod: String?
    /// The request body for `getData`, `downloadFile` and `downloadStream` (a Swift-first
    /// addition, used by `dukjs fetch --data`); `postData` and `uploadData` build their own.
    public var httpBody: Data?
    /// Where `downloadStream` writes this request's file, or nil for the loader's
    /// `WebLoaderConfiguration.streamDirectory` (a Swift-first addition). The file is new, mode
    /// 0600, and the caller's once `streamEnd` delivers it.
    public var streamDirectory: URL?

    /// The page `nativeLog` logs in when the request has no URL.
    static let localhost = URL(string: "http://localhost") ?? URL(fileURLWithPath: "/")

    /// A request; `WebLoader.body(url:method:…)` is the usual spelling.
    ///
    /// ```swift
    /// let body = WebLoaderRequest(url: url, method: .postData, postData: ["name": "x"])
    /// ```
    public init(
        url: URL? = nil, requestID: String = UUID().uuidString, method: WebLoaderMethod, methodArguments: String? = nil,
        userAgent: String? = nil, contentType: String? = nil, postData: [String: Any]? = nil, uploadData: Data? = nil,
        headers: [String: String] = [:]
    ) {
        self.url = url
        self.headers = headers
        self.requestID = requestID
        self.method = method
        self.methodArguments = methodArguments
        self.userAgent = userAgent
        self.contentType = contentType
        self.postData = postData
        self.uploadData = uploadData
    }
}
