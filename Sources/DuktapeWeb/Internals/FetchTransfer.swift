import DuktapeCore
import DuktapeRuntime
import Foundation

/// One `fetch` in flight on the native side: the task doing the I/O, the flow control between
/// it and the page, and the one terminal event it ends with.
///
/// Flow control: chunks handed to the page and not yet read by it count as `unread`; past
/// `highWater` the task waits until the page reads below `lowWater`, so a page that does not
/// read does not make the host buffer the body (async-http-client then stops reading the socket).
///
/// Chunks wait for the page's thread in `waiting`, one posted job each; bytes that arrive while
/// the last one still waits join it (up to `largestChunk`), so a busy page gets fewer, larger
/// chunks instead of a job for every read from the socket.
///
/// Exactly one terminal: `finish` (end, error) or `abandon` (the page cancelled) wins once;
/// the pending-work handle ends with it, so the page's loop knows when the transfer is over.
final class FetchTransfer: Sendable {
    static let highWater = 1 << 20
    static let lowWater = 256 << 10
    static let largestChunk = 1 << 20

    let id: Int
    private let pending: PendingWork
    private let onPause: (@Sendable (Int) -> Void)?
    private let state = Guarded(State())

    private struct State {
        var unread = 0
        var waiting: [Data] = []
        /// Whether the last waiting chunk has room for `largestChunk` bytes.
        var lastHasRoom = false
        var waiter: CheckedContinuation<Void, Never>?
        var ended = false
        var tasks: [Task<Void, Never>] = []
    }

    /// `onPause` is told the unread count each time the task waits for the page (tests).
    init(id: Int, pending: PendingWork, onPause: (@Sendable (Int) -> Void)? = nil) {
        self.id = id
        self.pending = pending
        self.onPause = onPause
    }

    /// Starts `work` as one of the transfer's tasks (the I/O, its timeout), all cancelled when
    /// the transfer ends.
    func start(_ work: @escaping @Sendable (FetchTransfer) async -> Void) {
        let task = Task { await work(self) }
        let cancelNow = state.withLock { state -> Bool in
            state.tasks.append(task)
            return state.ended
        }
        if cancelNow { task.cancel() }
    }

    var isEnded: Bool { state.withLock { $0.ended } }

    /// Hands `bytes` to the page: counted as unread first (so that the page reading them first
    /// can never leave them counted), then added to the last waiting chunk when they fit, or
    /// queued as a chunk of their own. Returns true for a chunk of their own, for which the
    /// caller posts a job that takes it (`takeChunk`). Each byte is copied once, here (the
    /// first join gives the chunk room for `largestChunk`, so it never grows again).
    func queue<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        let count = bytes.count
        return state.withLock { state -> Bool in
            state.unread += count
            guard let last = state.waiting.indices.last, state.waiting[last].count + count <= Self.largestChunk else {
                state.waiting.append(Data(bytes))
                state.lastHasRoom = false
                return true
            }
            if !state.lastHasRoom {
                var roomy = Data(capacity: Self.largestChunk)
                roomy.append(state.waiting[last])
                state.waiting[last] = roomy
                state.lastHasRoom = true
            }
            state.waiting[last].append(contentsOf: bytes)
            return false
        }
    }

    /// The oldest waiting chunk (each job posted for a chunk takes one).
    func takeChunk() -> Data? {
        state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
    }

    /// Waits while more than `highWater` bytes are unread, until the page reads below
    /// `lowWater` (or the transfer ends).
    func waitForRoom() async {
        let unread = state.withLock { state -> Int? in
            state.unread > Self.highWater && !state.ended ? state.unread : nil
        }
        guard let unread else { return }
        onPause?(unread)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.ended || state.unread <= Self.lowWater || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiter.take() }?.resume()
        }
    }

    /// The page read `count` bytes (a count the page cannot make negative or larger than what
    /// is unread).
    func read(_ count: Int) {
        guard count > 0 else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.unread -= min(count, state.unread)
            return state.unread <= Self.lowWater ? state.waiter.take() : nil
        }
        waiter?.resume()
    }

    /// Ends the transfer with `work` posted to the page (its terminal event), unless it already
    /// ended. Returns whether this call ended it.
    @discardableResult
    func finish(posting work: @escaping @Sendable (JSContext) throws -> Void) -> Bool {
        guard let tasks = endOnce() else { return false }
        pending.complete(work)
        for task in tasks { task.cancel() }
        return true
    }

    /// Ends the transfer without a terminal event (the page aborted or cancelled it, or the page
    /// closed) and cancels its tasks.
    func abandon() {
        guard let tasks = endOnce() else { return }
        pending.cancel()
        for task in tasks { task.cancel() }
    }

    /// Marks the transfer ended and wakes a task waiting for the page to read; returns its
    /// tasks to cancel, or nil when it had already ended.
    private func endOnce() -> [Task<Void, Never>]? {
        let (tasks, waiter) = state.withLock { state -> ([Task<Void, Never>]?, CheckedContinuation<Void, Never>?) in
            guard !state.ended else { return (nil, nil) }
            state.ended = true
            defer { state.tasks = [] }
            return (state.tasks, state.waiter.take())
        }
        waiter?.resume()
        return tasks
    }
}
