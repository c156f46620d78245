import DuktapeCore
import Foundation

/// Calls a `WebLoader` request's handler with its messages one at a time, in the order they
/// were sent, in the handler's isolation (a `@MainActor` closure's on the main actor, a
/// nonisolated one's on the global executor). One task per request drains them.
final class Deliveries: Sendable {
    private enum Item: Sendable {
        case message(WebLoaderResponse, (any Error)?)
        /// Resumed once everything sent before it was delivered.
        case barrier(CheckedContinuation<Void, Never>)
        /// The last item: run after the terminal message, then the task ends.
        case last(@Sendable () -> Void)
    }

    private let continuation: AsyncStream<Item>.Continuation
    /// Whether every item was delivered (the deliveries ended), and who waits for that.
    private let drained = Guarded<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(_ handler: @escaping @isolated(any) @Sendable (WebLoaderResponse, (any Error)?) -> Void) {
        let (items, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        let drained = self.drained
        Task {
            defer {
                for waiter in drained.withLock({ state in
                    state.done = true
                    defer { state.waiters = [] }
                    return state.waiters
                }) { waiter.resume() }
            }
            for await item in items {
                switch item {
                case .message(let response, let error): await handler(response, error)
                case .barrier(let waiter): waiter.resume()
                case .last(let body): body()
                }
            }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Queues a message for the handler.
    func send(_ response: WebLoaderResponse, _ error: (any Error)?) {
        continuation.yield(.message(response, error))
    }

    /// Queues `body`, to run after everything queued so far, and ends the deliveries.
    func finish(then body: @escaping @Sendable () -> Void) {
        continuation.yield(.last(body))
        continuation.finish()
    }

    /// Returns once every message queued so far was delivered.
    func flush() async {
        await withCheckedContinuation { waiter in
            guard case .terminated = continuation.yield(.barrier(waiter)) else { return }
            // Finished: what is left is delivered before the task ends.
            let now = drained.withLock { state -> Bool in
                if state.done { return true }
                state.waiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }
}
