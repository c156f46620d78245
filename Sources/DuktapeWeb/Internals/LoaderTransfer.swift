import Foundation

/// One `WebLoader` request in flight: the caller's handler, the state of its stream file, and
/// the guarantee of exactly one terminal message.
///
/// Messages arrive from the page's bridge (in order for a request: the page waits for each
/// reply before it posts the next); `fail` may come from any thread (cancellation, timeout). A
/// recursive lock serializes the handler's calls, so a handler that cancels its own request
/// from inside a callback sees its terminal message nested, never concurrent.
final class LoaderTransfer: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`.
    let request: WebLoaderRequest
    private let handler: @Sendable (WebLoaderResponse, (any Error)?) -> Void
    private let directory: URL
    private let lock = NSRecursiveLock()
    private var ended = false
    private var nextChunk = 0
    private var file: FileHandle?
    private var fileURL: URL?
    private var received: Int64 = 0
    private var lastNews = ContinuousClock.now

    init(request: WebLoaderRequest, directory: URL, handler: @escaping @Sendable (WebLoaderResponse, (any Error)?) -> Void) {
        self.request = request
        self.directory = directory
        self.handler = handler
    }

    var isEnded: Bool { lock.withLock { ended } }
    var lastActivity: ContinuousClock.Instant { lock.withLock { lastNews } }

    /// Handles one bridge message of this request. Throws for a stream's start or chunk that
    /// is not taken (the request ended: cancelled, timed out, a write failed), which rejects
    /// the page's reply and stops its stream; other messages are answered normally.
    func receive(_ message: [String: Any]) throws {
        lock.lock()
        defer { lock.unlock() }
        let type = message["type"] as? String ?? ""
        let streaming = type == "b64streamstart" || type == "b64streaming"
        guard !ended else {
            if streaming { throw ScriptMessageReplyError("the request \(request.requestID) has ended") }
            return
        }
        lastNews = .now
        let status = (message["status"] as? NSNumber)?.intValue ?? 0
        let contentType = message["contentType"] as? String ?? ""
        let total = (message["total"] as? NSNumber)?.int64Value ?? 0
        let value = message["value"]
        func respond(_ body: WebLoaderResponse.BodyType, error: (any Error)? = nil) {
            deliver(WebLoaderResponse(requestID: request.requestID, type: body, status: status, contentType: contentType,
                                      received: received, total: total > 0 ? total : nil), error: error)
        }
        switch type {
        case "json":
            finish { respond(.json(value ?? NSNull())) }
        case "plaintext":
            finish { respond(.plainText(value as? String ?? "")) }
        case "b64text":
            guard let data = bytes(value) else { return violation("a data message whose value is not bytes", status, contentType) }
            finish { respond(.data(data)) }
        case "error":
            let text = value.map { "\($0)" } ?? "unknown error"
            let failure = WebLoaderError.failed(requestID: request.requestID, message: text)
            finish { respond(.error(failure.description), error: failure) }
        case "b64streamstart":
            guard file == nil else { return violation("a second b64streamstart", status, contentType) }
            do {
                let url = directory.appendingPathComponent("DuktapeWeb-\(UUID().uuidString).download")
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                }
                fileURL = url
                file = try FileHandle(forWritingTo: url)
            } catch {
                return fileFailure(error, status, contentType)
            }
            respond(.streamStart)
        case "b64streaming":
            guard let file else { return violation("a chunk before b64streamstart", status, contentType) }
            let order = (message["chrunkOrder"] as? NSNumber)?.intValue ?? -1
            guard order == nextChunk else {
                return violation("chunk \(order) where chunk \(nextChunk) was expected", status, contentType)
            }
            guard let data = bytes(value) else { return violation("a chunk whose value is not bytes", status, contentType) }
            do {
                try file.write(contentsOf: data)
            } catch {
                return fileFailure(error, status, contentType)
            }
            nextChunk += 1
            received += Int64(data.count)
            respond(.streaming(progress: total > 0 ? Double(received) / Double(total) : nil))
        case "b64streamend":
            guard let file, let fileURL else { return violation("b64streamend before b64streamstart", status, contentType) }
            guard message["done"] as? Bool == true else {
                let text = value.map { "\($0)" } ?? "the stream failed"
                let failure = WebLoaderError.failed(requestID: request.requestID, message: text.isEmpty ? "the stream failed" : text)
                finish { respond(.error(failure.description), error: failure) }
                return
            }
            do {
                try file.close()
            } catch {
                return fileFailure(error, status, contentType)
            }
            self.file = nil
            self.fileURL = nil  // the caller's now: never removed by the loader
            ended = true
            respond(.streamEnd(fileURL))
        default:
            violation("an unknown message type '\(type)'", status, contentType)
        }
        if ended && streaming { throw ScriptMessageReplyError("the request \(request.requestID) has ended") }
    }

    /// Ends the request with `error` (unless it ended already).
    func fail(_ error: WebLoaderError, status: Int = 0, contentType: String = "") {
        lock.lock()
        defer { lock.unlock() }
        guard !ended else { return }
        finish {
            deliver(WebLoaderResponse(requestID: request.requestID, type: .error(error.description), status: status,
                                      contentType: contentType, received: received, total: nil), error: error)
        }
    }

    /// Ends a `nativeLog` request.
    func logged(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard !ended else { return }
        finish {
            deliver(WebLoaderResponse(requestID: request.requestID, type: .plainText(text), status: 0, contentType: "",
                                      received: 0, total: nil), error: nil)
        }
    }

    // MARK: - Internals (under the lock)

    private func deliver(_ response: WebLoaderResponse, error: (any Error)?) {
        handler(response, error)
    }

    /// Marks the request ended, removes an unfinished stream file, then delivers the terminal.
    private func finish(_ terminal: () -> Void) {
        ended = true
        if let file {
            try? file.close()
            self.file = nil
        }
        if let fileURL {
            try? FileManager.default.removeItem(at: fileURL)
            self.fileURL = nil
        }
        terminal()
    }

    private func violation(_ message: String, _ status: Int, _ contentType: String) {
        fail(.protocolViolation(requestID: request.requestID, message: message), status: status, contentType: contentType)
    }

    private func fileFailure(_ error: any Error, _ status: Int, _ contentType: String) {
        fail(.fileError(requestID: request.requestID, message: "\(error)"), status: status, contentType: contentType)
    }

    private func bytes(_ value: Any?) -> Data? {
        if let data = value as? Data { return data }
        if let text = value as? String { return Data(base64Encoded: text) }
        return nil
    }
}
