import DuktapeCore
import DuktapeRuntime
import Foundation
import NIOCore

/// One `fetch` in flight on the native side: the task doing the I/O, the flow control between
/// it and the page, and the one terminal event it ends with.
///
/// Flow control: bytes received and not yet read by the page count as `unread`; past
/// `highWater` the body waits (`whenRoom`, `waitForRoom`) until the page reads below `lowWater`,
/// so a page that does not read does not make the host buffer the body (async-http-client then
/// stops reading the socket).
///
/// The page pulls: bytes wait in `waiting` until the page's stream asks for more (a read finds
/// its queue empty), and are then handed over at once (`pull`), up to `largestChunk` together.
/// When nothing waits, the page is marked as wanting, and the next bytes post one job that
/// makes the stream pull them; bytes that arrive before it runs join them. So a page that reads more slowly
/// than the network gets fewer, larger chunks instead of a job for every read from the socket,
/// and one that keeps up gets each read as it comes. A chunk keeps the network's buffers
/// by reference and the page's thread copies them once, straight into the chunk's `Uint8Array`;
/// reads smaller than `smallRead` are copied together into a buffer of the transfer's own, so a
/// trickle of tiny reads cannot pin a network buffer each.
///
/// Exactly one terminal: `finish` (end, error) or `abandon` (the page cancelled) wins once;
/// the pending-work handle ends with it, so the page's loop knows when the transfer is over.
final class FetchTransfer: Sendable {
    static let highWater = 1 << 20
    static let lowWater = 256 << 10
    static let largestChunk = 1 << 20
    static let smallRead = 16 << 10

    let id: Int
    private let pending: PendingWork
    private let onPause: (@Sendable (Int) -> Void)?
    private let onAbandon: (@Sendable () -> Void)?
    private let state = Guarded(State())
    private static let allocator = ByteBufferAllocator()

    /// Bytes for one job of the page's: the buffers they are in, in order.
    private struct Chunk {
        var parts: [ByteBuffer] = []
        var count = 0
    }

    private struct State {
        var unread = 0
        var waiting: [Chunk] = []
        /// Whether the last part of the last waiting chunk is a buffer of the transfer's own
        /// (small reads are copied into it while it has room).
        var ownsLastPart = false
        /// Whether the page asked for bytes when none waited (the next bytes post a job).
        var wanted = false
        /// Called once the page has read below `lowWater` (or the transfer ended).
        var waiter: (@Sendable () -> Void)?
        var ended = false
        var tasks: [Task<Void, Never>] = []
        var timeout: Deadlines.Token?
    }

    /// `onPause` is told the unread count each time the task waits for the page (tests);
    /// `onAbandon` is called once if the transfer is abandoned (its sink gets no terminal event).
    init(id: Int, pending: PendingWork, onPause: (@Sendable (Int) -> Void)? = nil, onAbandon: (@Sendable () -> Void)? = nil) {
        self.id = id
        self.pending = pending
        self.onPause = onPause
        self.onAbandon = onAbandon
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

    /// Runs `expire` after `delay` unless the transfer ended first (its timeout).
    func expire(after delay: Duration, _ expire: @escaping @Sendable (FetchTransfer) -> Void) {
        let token = Deadlines.shared.schedule(after: delay) { [weak self] in
            guard let self else { return }
            expire(self)
        }
        let cancelNow = state.withLock { state -> Bool in
            state.timeout = token
            return state.ended
        }
        if cancelNow { Deadlines.shared.cancel(token) }
    }

    var isEnded: Bool { state.withLock { $0.ended } }

    /// Hands `bytes` to the page: counted as unread first (so that the page reading them first
    /// can never leave them counted), then added to the last waiting chunk when they fit, or
    /// kept as a chunk of their own. Returns true when the page wants bytes and none were
    /// waiting: the caller then posts a job that makes the page's stream pull them (`pull`).
    func queue(_ bytes: ByteBuffer) -> Bool {
        let count = bytes.readableBytes
        guard count > 0 else { return false }
        return state.withLock { state -> Bool in
            state.unread += count
            let joins = state.waiting.last.map { $0.count + count <= Self.largestChunk } ?? false
            if !joins {
                state.waiting.append(Chunk())
                state.ownsLastPart = false
            }
            let last = state.waiting.count - 1
            state.waiting[last].count += count
            if count >= Self.smallRead {
                state.waiting[last].parts.append(bytes)
                state.ownsLastPart = false
            } else {
                if state.ownsLastPart, let part = state.waiting[last].parts.indices.last,
                    state.waiting[last].parts[part].readableBytes + count <= Self.smallRead
                {
                    state.waiting[last].parts[part].writeImmutableBuffer(bytes)  // grows it as needed
                } else {
                    var own = Self.allocator.buffer(capacity: count)
                    own.writeImmutableBuffer(bytes)
                    state.waiting[last].parts.append(own)
                    state.ownsLastPart = true
                }
            }
            defer { state.wanted = false }
            return state.wanted
        }
    }

    /// The buffers of the oldest waiting chunk, without marking the page as wanting when none
    /// waits (tests read the queue with it; the page's stream uses `pull`).
    func takeChunk() -> [ByteBuffer]? {
        state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst().parts }
    }

    /// The page's stream asks for bytes: the oldest waiting chunk, or nil after marking the
    /// page as wanting (the next bytes then post a job).
    func pull() -> [ByteBuffer]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.wanted = true
                return nil
            }
            return state.waiting.removeFirst().parts
        }
    }

    /// Whether the page has at most `highWater` bytes unread (or the transfer ended).
    var hasRoom: Bool { state.withLock { $0.unread <= Self.highWater || $0.ended } }

    /// Returns true when the page has room (at most `highWater` bytes unread, or the transfer
    /// ended); otherwise keeps `resume` until the page has read below `lowWater` or the transfer
    /// ends, and returns false. (The event loop's body parts wait by it.)
    func whenRoom(_ resume: @escaping @Sendable () -> Void) -> Bool {
        let unread = state.withLock { state -> Int? in
            guard state.unread > Self.highWater && !state.ended else { return nil }
            state.waiter = resume
            return state.unread
        }
        guard let unread else { return true }
        onPause?(unread)
        return false
    }

    /// Waits while more than `highWater` bytes are unread, until the page reads below
    /// `lowWater` (or the transfer ends).
    func waitForRoom() async {
        guard !hasRoom else { return }
        await withCheckedContinuation { continuation in
            if whenRoom({ continuation.resume() }) { continuation.resume() }
        }
    }

    /// The page read `count` bytes (a count the page cannot make negative or larger than what
    /// is unread).
    func read(_ count: Int) {
        guard count > 0 else { return }
        let waiter = state.withLock { state -> (@Sendable () -> Void)? in
            state.unread -= min(count, state.unread)
            return state.unread <= Self.lowWater ? state.waiter.take() : nil
        }
        waiter?()
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
        state.withLock { $0.waiting = [] }  // nobody will read them
        pending.cancel()
        for task in tasks { task.cancel() }
        onAbandon?()
    }

    /// Marks the transfer ended and wakes a task waiting for the page to read; returns its
    /// tasks to cancel, or nil when it had already ended.
    private func endOnce() -> [Task<Void, Never>]? {
        let (tasks, waiter, timeout) = state.withLock { state -> ([Task<Void, Never>]?, (@Sendable () -> Void)?, Deadlines.Token?) in
            guard !state.ended else { return (nil, nil, nil) }
            state.ended = true
            defer { state.tasks = [] }
            return (state.tasks, state.waiter.take(), state.timeout.take())
        }
        if let timeout { Deadlines.shared.cancel(timeout) }
        waiter?()
        return tasks
    }
}
