import DuktapeCore
import Foundation
import NIOCore

/// A `<script src>` loading through the page's network, the same stages as `fetch`: collects
/// the body in Swift (at most `limit` bytes) and hands over its text. A status other than 2xx,
/// a body over the limit, a failure, or the transfer abandoned (the page closed, the load was
/// cancelled) ends it with an error; `done` is told once either way (the network then forgets
/// the transfer).
final class ScriptCollector: TransferSink {
    private struct State {
        var parts: [ByteBuffer] = []
        var count = 0
        var contentType: String?
        var result: Result<String, FetchFailure>?
        var waiter: CheckedContinuation<String, any Error>?
    }

    private let state = Guarded(State())
    private let limit: Int
    /// The request, for messages ("GET url").
    private let request: String
    private let done: @Sendable () -> Void

    init(request: String, limit: Int, done: @escaping @Sendable () -> Void) {
        self.request = request
        self.limit = limit
        self.done = done
    }

    /// The script's text, once the transfer ended.
    func text() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<String, FetchFailure>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }

    func head(_ head: TransferHead, of transfer: FetchTransfer) {
        guard (200..<300).contains(head.status) else {
            return settle(.failure(FetchFailure(.httpStatus, "GET \(head.url) answered \(head.status)")))
        }
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
        let (parts, contentType) = state.withLock { ($0.parts, $0.contentType) }
        var bytes = Data(capacity: parts.reduce(0) { $0 + $1.readableBytes })
        for part in parts { bytes.append(contentsOf: part.readableBytesView) }
        settle(.success(TextCharset(contentType: contentType).decode(bytes)))
    }

    func fail(_ transfer: FetchTransfer, _ failure: FetchFailure) {
        settle(.failure(failure))
    }

    /// The transfer was abandoned without an event.
    func abandoned() {
        settle(.failure(FetchFailure(.cancelled, "\(request): the load was cancelled (the page closed)")))
    }

    private var tooLong: FetchFailure {
        FetchFailure(.tooLarge, "\(request): the script is longer than " + (limit >= 1 << 20 ? "\(limit >> 20) MB" : "\(limit) bytes"))
    }

    private func settle(_ result: Result<String, FetchFailure>) {
        let waiter = state.withLock { state -> CheckedContinuation<String, any Error>?? in
            guard state.result == nil else { return nil }
            state.result = result
            state.parts = []
            return .some(state.waiter.take())
        }
        guard let waiter else { return }
        waiter?.resume(with: result)
        done()
    }
}
