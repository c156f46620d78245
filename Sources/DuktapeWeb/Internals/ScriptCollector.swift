import DuktapeCore
import Foundation
import NIOCore

/// A `<script src>` or a document loading through the page's network, the same stages as
/// `fetch`: collects the body in Swift (at most `limit` bytes) and hands over its text. A body
/// over the limit, a failure, or the transfer abandoned (the page closed, the load was
/// cancelled) ends it with an error, and so does a status other than 2xx for a script (a
/// document's error page is a document); `done` is told once either way (the network then
/// forgets the transfer).
final class ScriptCollector: TransferSink {
    /// What was loaded: its text (decoded by the charset of its `Content-Type`), the response's
    /// status and final URL.
    struct Loaded: Sendable {
        var text: String
        var status: Int
        var url: String
    }

    private struct State {
        var parts: [ByteBuffer] = []
        var count = 0
        var head: TransferHead?
        var contentType: String?
        var result: Result<Loaded, FetchFailure>?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Guarded(State())
    private let limit: Int
    /// The request, for messages ("GET url").
    private let request: String
    /// True for a document: any status is loaded.
    private let anyStatus: Bool
    private let done: @Sendable () -> Void

    init(request: String, limit: Int, anyStatus: Bool = false, done: @escaping @Sendable () -> Void) {
        self.request = request
        self.limit = limit
        self.anyStatus = anyStatus
        self.done = done
    }

    /// What was loaded, once the transfer ended. (The result passes through the lock, not the
    /// continuation: see `EventQueue.append`.)
    func loaded() async throws -> Loaded {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settled = state.withLock { state -> Bool in
                if state.result == nil { state.waiter = continuation }
                return state.result != nil
            }
            if settled { continuation.resume() }
        }
        guard let result = state.withLock({ $0.result }) else {
            throw FetchFailure(.cancelled, "\(request): the load ended without a result")
        }
        return try result.get()
    }

    func head(_ head: TransferHead, of transfer: FetchTransfer) {
        guard anyStatus || (200..<300).contains(head.status) else {
            return settle(.failure(FetchFailure(.httpStatus, "GET \(head.url) answered \(head.status)")))
        }
        state.withLock { $0.head = head }
        var index = 0
        var length: Int?
        while index + 1 < head.headers.count {
            switch head.headers[index].lowercased() {
            case "content-type": state.withLock { $0.contentType = head.headers[index + 1] }
            case "content-length": length = Int(head.headers[index + 1])
            default: break
            }
            index += 2
        }
        if let length, length > limit { return settle(.failure(tooLong)) }
        available(transfer)  // asks for the first bytes
    }

    func available(_ transfer: FetchTransfer) {
        while let parts = transfer.pull() {
            let count = parts.reduce(0) { $0 + $1.readableBytes }
            let total = state.withLock { state -> Int in
                state.parts += parts
                state.count += count
                return state.count
            }
            guard total <= limit else { return settle(.failure(tooLong)) }
            transfer.read(count)
        }
    }

    func end(_ transfer: FetchTransfer) {
        available(transfer)
        let (parts, contentType, head) = state.withLock { ($0.parts, $0.contentType, $0.head) }
        var bytes = Data(capacity: parts.reduce(0) { $0 + $1.readableBytes })
        for part in parts { bytes.append(contentsOf: part.readableBytesView) }
        settle(.success(Loaded(text: TextCharset(contentType: contentType).decode(bytes), status: head?.status ?? 0,
                               url: head?.url ?? "")))
    }

    func fail(_ transfer: FetchTransfer, _ failure: FetchFailure) {
        settle(.failure(failure))
    }

    /// The transfer was abandoned without an event.
    func abandoned() {
        settle(.failure(FetchFailure(.cancelled, "\(request): the load was cancelled (the page closed)")))
    }

    private var tooLong: FetchFailure {
        FetchFailure(.tooLarge, "\(request): the \(anyStatus ? "document" : "script") is longer than "
            + (limit >= 1 << 20 ? "\(limit >> 20) MB" : "\(limit) bytes"))
    }

    private func settle(_ result: Result<Loaded, FetchFailure>) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>?? in
            guard state.result == nil else { return nil }
            state.result = result
            state.parts = []
            return .some(state.waiter.take())
        }
        guard let waiter else { return }
        waiter?.resume()
        done()
    }
}
