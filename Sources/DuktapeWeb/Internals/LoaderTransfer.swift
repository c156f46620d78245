import DuktapeCore
import Foundation
import Synchronization

/// One `WebLoader` request in flight: the caller's handler, the state of its stream file, and
/// the guarantee of exactly one terminal message.
///
/// Messages arrive from the page's bridge, each handled by a task of its own: a stream's page
/// keeps a few numbered chunks waiting for their replies, so chunks may arrive out of order. One
/// that arrives early is kept until those before it are written, and its reply waits until then
/// too, so the page can never run further ahead than its own limit (a chunk more than
/// `reorderWindow` ahead, or early chunks of more than `earlyBytesLimit` bytes, are protocol
/// violations). `fail` may come from any thread (cancellation, timeout). What to deliver is decided
/// under a lock, in order, and handed to the transfer's `Deliveries`, which call the handler one
/// message at a time, in order, in the handler's isolation: the handler never runs under a lock,
/// so it may cancel requests (its own included) without deadlocking anything.
final class LoaderTransfer: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`; `ended` is atomic.
    let request: WebLoaderRequest
    /// The host's private id for this run of the request: messages carry it, so that late
    /// messages of an earlier request with the same `requestID` never reach this one.
    let token = UUID().uuidString
    private let deliveries: Deliveries
    private let onEnd: @Sendable (LoaderTransfer) -> Void
    private let directory: URL
    /// Whether a status of 400 or more fails the request (`WebLoaderConfiguration.httpErrorsFail`).
    private let httpErrorsFail: Bool
    private let lock = NSLock()
    private let ended = Atomic<Bool>(false)
    /// How far ahead of the next chunk to write a chunk may arrive: loader.html keeps at most
    /// 8 waiting for replies, so the furthest is 7 ahead.
    static let reorderWindow = 8
    /// The most bytes early chunks may hold (loader.html's chunks are at most a megabyte).
    static let earlyBytesLimit = 64 << 20
    private var nextChunk = 0
    /// Chunks that arrived before their turn, by order, with the turn their reply waits for.
    private var early: [Int: (data: Data, turn: ChunkTurn)] = [:]
    private var file: FileHandle?
    private var fileURL: URL?
    private var received: Int64 = 0
    private var lastNews = ContinuousClock.now
    /// The request's watchdog, cancelled when the request ends.
    private var watchdog: Deadlines.Token?
    /// The page the request runs on, once known (for aborting it there).
    private var runningPage: WebPage?

    /// `onEnd` runs after the terminal message was delivered (the loader forgets the request).
    init(
        request: WebLoaderRequest, directory: URL, httpErrorsFail: Bool = false,
        onEnd: @escaping @Sendable (LoaderTransfer) -> Void = { _ in },
        handler: @escaping @isolated(any) @Sendable (WebLoaderResponse, (any Error)?) -> Void
    ) {
        self.request = request
        self.directory = directory
        self.httpErrorsFail = httpErrorsFail
        self.onEnd = onEnd
        self.deliveries = Deliveries(handler)
    }

    var isEnded: Bool { ended.load(ordering: .acquiring) }
    var lastActivity: ContinuousClock.Instant { lock.withLock { lastNews } }
    /// The page the request runs on; nil once it ended (a transfer does not keep its page).
    var page: WebPage? {
        get { lock.withLock { runningPage } }
        set { lock.withLock { if !isEnded { runningPage = newValue } } }
    }

    /// Keeps `token` (the request's watchdog, replacing the one that armed it) until the
    /// request ends, then cancels it.
    func own(_ token: Deadlines.Token) {
        let cancelNow = lock.withLock { () -> Bool in
            if isEnded { return true }
            watchdog = token
            return false
        }
        if cancelNow { Deadlines.shared.cancel(token) }
    }

    /// Handles one bridge message of this request and returns once the handler has seen what
    /// it produced (so the page's reply to a chunk waits for the chunk to be written and
    /// handled; a chunk that came early waits for its turn first). Throws for a stream's start
    /// or chunk that is not taken (the request ended, a write failed, the message broke the
    /// protocol), which rejects the page's reply and stops its stream.
    func receive(_ message: [String: Any]) async throws {
        switch accept(message) {
        case .ignored: break
        case .handled: await flush()
        case .early(let turn): if await turn.written() { await flush() }
        }
        let type = message["type"] as? String
        if (type == "b64streamstart" || type == "b64streaming") && isEnded {
            throw ScriptMessageReplyError("the request \(request.requestID) has ended")
        }
    }

    /// What `accept` did with a message.
    enum Acceptance {
        /// The request had ended: nothing.
        case ignored
        /// Handled now (its deliveries are queued).
        case handled
        /// A chunk kept until those before it are written (or the request ends).
        case early(ChunkTurn)
    }

    /// The part of `receive` that never waits: handles `message`, or keeps an early chunk. (The
    /// fuzz harness calls it directly: it sends messages one after another, so nothing would
    /// ever bring an early chunk's turn.)
    func accept(_ message: [String: Any]) -> Acceptance {
        let type = message["type"] as? String ?? ""
        return lock.withLock { () -> Acceptance in
            guard !isEnded else { return .ignored }
            lastNews = .now
            return handle(message, type: type).map { .early($0) } ?? .handled
        }
    }

    /// Ends the request with `error` (unless it ended already).
    func fail(_ error: WebLoaderError, status: Int = 0, contentType: String = "") {
        lock.withLock {
            guard !isEnded else { return }
            finish(WebLoaderResponse(requestID: request.requestID, type: .error(error.description), status: status,
                                     contentType: contentType, received: received, total: nil), error: error)
        }
    }

    /// Ends a `nativeLog` request.
    func logged(_ text: String) {
        lock.withLock {
            guard !isEnded else { return }
            finish(WebLoaderResponse(requestID: request.requestID, type: .plainText(text), status: 0, contentType: "",
                                     received: 0, total: nil), error: nil)
        }
    }

    /// Returns once every delivery queued so far has been made.
    func flush() async {
        await deliveries.flush()
    }

    // MARK: - Internals (under the lock)

    /// Returns the turn of a chunk kept for later.
    private func handle(_ message: [String: Any], type: String) -> ChunkTurn? {
        let status = (message["status"] as? NSNumber)?.intValue ?? 0
        let contentType = message["contentType"] as? String ?? ""
        let total = (message["total"] as? NSNumber)?.int64Value ?? 0
        let value = message["value"]
        func response(_ body: WebLoaderResponse.BodyType) -> WebLoaderResponse {
            WebLoaderResponse(requestID: request.requestID, type: body, status: status, contentType: contentType,
                              received: received, total: total > 0 ? total : nil)
        }
        func failure(_ error: WebLoaderError) -> ChunkTurn? {
            finish(response(.error(error.description)), error: error)
            return nil
        }
        func violation(_ text: String) -> ChunkTurn? {
            failure(.protocolViolation(requestID: request.requestID, url: request.url, reason: text))
        }
        func fileFailure(_ error: any Error) -> ChunkTurn? {
            failure(.fileError(requestID: request.requestID, url: request.url, reason: "\(error)"))
        }
        // A status that fails the request: its body is not delivered, its stream not written
        // (also when reading the body failed: the status is the failure that counts).
        if httpErrorsFail, status >= 400, ["json", "plaintext", "b64text", "b64streamstart", "error"].contains(type) {
            return failure(.httpStatus(requestID: request.requestID, url: request.url, status: status))
        }
        switch type {
        case "json":
            finish(response(.json(value ?? NSNull())), error: nil)
        case "plaintext":
            finish(response(.plainText(value as? String ?? "")), error: nil)
        case "b64text":
            guard let data = Self.bytes(value) else { return violation("a data message whose value is not bytes") }
            finish(response(.data(data)), error: nil)
        case "error":
            return failure(pageFailure(message))
        case "b64streamstart":
            guard file == nil else { return violation("a second b64streamstart") }
            let url = directory.appendingPathComponent("DuktapeWeb-\(UUID().uuidString).download")
            do {
                // A new file or nothing (O_EXCL: never an existing file or a link's target),
                // readable by its owner only: the temporary directory is shared.
                let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [
                        NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
                    ])
                }
                fileURL = url
                UnfinishedFiles.register(url.path)
                file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            } catch {
                return fileFailure(error)
            }
            deliver(response(.streamStart(total: total > 0 ? total : nil, contentType: contentType, file: url)), error: nil)
        case "b64streaming":
            guard let file else { return violation("a chunk before b64streamstart") }
            let order = (message["chrunkOrder"] as? NSNumber)?.intValue ?? -1
            guard let data = Self.bytes(value) else { return violation("a chunk whose value is not bytes") }
            guard order == nextChunk else {
                guard order > nextChunk, order - nextChunk < Self.reorderWindow, early[order] == nil else {
                    return violation("chunk \(order) where chunk \(nextChunk) was expected")
                }
                guard early.values.reduce(data.count, { $0 + $1.data.count }) <= Self.earlyBytesLimit else {
                    return violation("chunks ahead of chunk \(nextChunk) hold more than \(Self.earlyBytesLimit) bytes")
                }
                let turn = ChunkTurn()
                early[order] = (data, turn)
                return turn
            }
            var next: (data: Data, turn: ChunkTurn?)? = (data, nil)
            while let (data, turn) = next {
                do {
                    try file.write(contentsOf: data)
                } catch {
                    return fileFailure(error)
                }
                nextChunk += 1
                received += Int64(data.count)
                deliver(response(.streaming(progress: total > 0 ? min(1, Double(received) / Double(total)) : nil)), error: nil)
                turn?.end(written: true)
                next = early.removeValue(forKey: nextChunk).map { ($0.data, $0.turn) }
            }
        case "b64streamend":
            guard let file, let fileURL else { return violation("b64streamend before b64streamstart") }
            guard message["done"] as? Bool == true else { return failure(pageFailure(message)) }
            guard early.isEmpty else { return violation("b64streamend before chunk \(nextChunk)") }
            do {
                try file.close()
            } catch {
                return fileFailure(error)
            }
            self.file = nil
            self.fileURL = nil  // the caller's now: never removed by the loader
            UnfinishedFiles.unregister(fileURL.path)
            finish(response(.streamEnd(fileURL)), error: nil)
        default:
            return violation("an unknown message type '\(type)'")
        }
        return nil
    }

    /// The failure a page's `error` message (or failed `b64streamend`) reports, by its kind:
    /// the error's name and code (`FetchFailure.Kind`'s codes, loader.html's own).
    private func pageFailure(_ message: [String: Any]) -> WebLoaderError {
        let id = request.requestID, url = request.url
        let text = message["errorReason"] as? String ?? message["value"].map { "\($0)" } ?? ""
        let reason = text.isEmpty ? "the page reported a failure without a reason" : text
        if message["errorName"] as? String == "TimeoutError" { return .timedOut(requestID: id, url: url, reason: reason) }
        if message["errorName"] as? String == "AbortError" { return .cancelled(requestID: id, url: url) }
        switch (message["errorCode"] as? String).flatMap(FetchFailure.Kind.init(rawValue:)) {
        case .timedOut?: return .timedOut(requestID: id, url: url, reason: reason)
        case .connectionRefused?, .connectionReset?, .hostNotFound?, .unreachable?, .tls?:
            return .connectionFailed(requestID: id, url: url, reason: reason)
        case .refusedByPolicy?: return .refusedByPolicy(requestID: id, url: url, reason: reason)
        case .badResponse?, .redirect?: return .badResponse(requestID: id, url: url, reason: reason)
        case .tooLarge?: return .tooLarge(requestID: id, url: url, reason: reason)
        case .invalidRequest?: return .invalidRequest(requestID: id, url: url, reason: reason)
        case .cancelled?: return .cancelled(requestID: id, url: url)
        case .httpStatus?, .notCached?, .noSuchFile?, .other?, nil: return .failed(requestID: id, url: url, reason: reason)
        }
    }

    /// Queues a message for the handler.
    private func deliver(_ response: WebLoaderResponse, error: (any Error)?) {
        deliveries.send(response, error)
    }

    /// Marks the request ended, removes an unfinished stream file, cancels its watchdog, then
    /// queues the terminal message.
    private func finish(_ terminal: WebLoaderResponse, error: (any Error)?) {
        ended.store(true, ordering: .releasing)
        if let fileURL {
            // The file it created, and only while it is still that file: `.streamStart` gave
            // its path away, and a caller may have moved it and put something else there.
            if let file { Self.unlink(fileURL, ifStillOpenAs: file.fileDescriptor) }
            UnfinishedFiles.unregister(fileURL.path)
            self.fileURL = nil
        }
        if let file {
            try? file.close()
            self.file = nil
        }
        for (_, kept) in early { kept.turn.end(written: false) }
        early = [:]
        if let watchdog { Deadlines.shared.cancel(watchdog) }
        watchdog = nil
        runningPage = nil
        deliver(terminal, error: error)
        let onEnd = self.onEnd
        deliveries.finish { onEnd(self) }
    }

    /// Removes the file at `url` only while it is still the file open as `descriptor` (same
    /// device and inode): its path was given away, and a caller may have moved it and put
    /// something else there.
    static func unlink(_ url: URL, ifStillOpenAs descriptor: Int32) {
        var opened = stat(), atPath = stat()
        guard fstat(descriptor, &opened) == 0, lstat(url.path, &atPath) == 0,
              opened.st_dev == atPath.st_dev, opened.st_ino == atPath.st_ino else { return }
        Foundation.unlink(url.path)
    }

    /// A bridge message's bytes: Data, or base64 text (the loader's `binaryEncoding`).
    static func bytes(_ value: Any?) -> Data? {
        if let data = value as? Data { return data }
        if let text = value as? String { return Data(base64Encoded: text) }
        return nil
    }
}

/// The turn of a chunk that arrived early: it ends when the chunk is written, or when the
/// request ends first (the chunk is then dropped).
final class ChunkTurn: Sendable {
    private let state = Guarded<(written: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

    /// Ends the turn (once: later calls do nothing).
    func end(written: Bool) {
        state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.written == nil else { return nil }
            state.written = written
            return state.waiter.take()
        }?.resume(returning: written)
    }

    /// Whether the chunk was written, once the turn has ended.
    func written() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool? in
                if let written = state.written { return written }
                state.waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Whether the turn has ended (tests).
    var hasEnded: Bool { state.withLock { $0.written != nil } }
}
