import DuktapeCore

/// The loop's timers, in due order, with lazy deletion: the live entries by id, and their
/// nodes (due, sequence, id) in two orders: a FIFO lane for every node due no earlier than the
/// lane's last (which is where timers go when they share a delay, as `setTimeout(f, 0)` storms
/// and intervals do: appending and taking the head are O(1), in memory order), and a binary
/// min-heap for the rest. The earliest timer heads one of the two. A cleared or re-armed timer
/// leaves its old node behind; the node is skipped when it surfaces (its sequence no longer
/// matches the live entry's). Times are nanoseconds of the loop's clock.
struct TimerQueue {
    struct Entry {
        let callback: JSValue
        let arguments: [JSValue]
        /// The host memory this entry charged to the VM's memory limit (`account`), given back
        /// when it leaves the queue.
        let charged: Int
        /// The re-arm period of an interval, in nanoseconds; nil for a timeout.
        let interval: Int64?
        var due: Int64
        var sequence: Int
    }

    /// A node: where a timer sits in due order.
    private struct Node {
        let due: Int64
        let sequence: Int
        let id: Int

        func precedes(_ other: Node) -> Bool {
            due < other.due || (due == other.due && sequence < other.sequence)
        }
    }

    private(set) var entries = IDTable<Entry>()
    /// Where entries' host memory is charged (set with the loop's globals).
    var account: HostMemoryAccount?
    /// The lane: nodes in due order from `laneHead` on (the ones before it were taken).
    private var lane: [Node] = []
    private var laneHead = 0
    private var heap: [Node] = []
    private var nextSequence = 0
    /// Nodes of cleared timers not yet taken: both orders are rebuilt when they outnumber the
    /// live ones, so clearing timers that are far in the future cannot grow them unboundedly.
    private var staleNodes = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Nodes held, stale ones included (for tests of the rebuilding).
    var nodeCount: Int { lane.count - laneHead + heap.count }

    /// The sequence number of the timer scheduled (or re-armed) last.
    var lastSequence: Int { nextSequence }

    /// Adds (or re-arms) timer `id`, ordered after every timer already due at the same time.
    mutating func schedule(_ id: Int, _ entry: Entry) {
        var entry = entry
        nextSequence += 1
        entry.sequence = nextSequence
        entries.set(entry, for: id)
        let node = Node(due: entry.due, sequence: entry.sequence, id: id)
        // Sequences only grow, so a node due no earlier than the lane's last keeps it in order.
        if laneHead == lane.count || lane[lane.count - 1].due <= node.due {
            lane.append(node)
        } else {
            push(node)
        }
    }

    /// `now + delay` in nanoseconds, saturating (a loop's times are at most centuries).
    static func adding(_ delay: Int64, to now: Int64) -> Int64 {
        let (sum, overflow) = now.addingReportingOverflow(delay)
        return overflow ? .max : sum
    }

    /// Removes timer `id`, returning its entry (to be released outside the loop's lock).
    mutating func remove(_ id: Int) -> Entry? {
        guard let entry = entries.removeValue(for: id) else { return nil }
        account?.discharge(entry.charged)
        staleNodes += 1
        if staleNodes > 64, staleNodes > 2 * entries.count { rebuild() }
        return entry
    }

    /// Both orders of the live nodes only.
    private mutating func rebuild() {
        lane = lane[laneHead...].filter(isLive)
        laneHead = 0
        let live = heap.filter(isLive)
        heap = []
        staleNodes = 0
        for node in live { push(node) }
    }

    /// The due time of the earliest live timer.
    mutating func nextDue() -> Int64? {
        earliest()?.node.due
    }

    /// Takes the earliest live timer if it is due at `now` and was scheduled at or before
    /// `lastSequence` (a timer made or re-armed since waits for the next turn): a timeout leaves
    /// the queue; an interval is re-armed from its scheduled time, missed periods skipped.
    ///
    /// Stopping at a newer timer first in line is exact: any older timer due by `now` is due no
    /// later, so it would be first.
    mutating func popDue(at now: Int64, upTo lastSequence: Int) -> (id: Int, entry: Entry)? {
        guard let (top, inLane) = earliest(), top.due <= now, top.sequence <= lastSequence else { return nil }
        if inLane { takeLaneHead() } else { popTop() }
        // A timeout is moved out of the table; an interval stays, re-armed.
        guard let interval = entries.withValue(for: top.id, { $0.interval }) ?? nil, let entry = entries[top.id] else {
            guard let entry = entries.removeValue(for: top.id) else { return nil }
            account?.discharge(entry.charged)
            return (top.id, entry)
        }
        var next = entry
        if interval > 0 {
            next.due = Self.adding(interval, to: entry.due)
            if next.due <= now {
                // Skip the periods that were missed, in one step (`interval * missed` is at most
                // `now - next.due`: no overflow).
                let missed = (now - next.due) / interval
                next.due = Self.adding(interval, to: next.due + interval * missed)
            }
        } else {
            next.due = now
        }
        schedule(top.id, next)
        return (top.id, entry)
    }

    /// Empties the queue, returning the entries (to be released outside the loop's lock).
    mutating func removeAll() -> [Entry] {
        defer {
            lane = []
            laneHead = 0
            heap = []
            staleNodes = 0
        }
        let all = entries.removeAll()
        account?.discharge(all.reduce(0) { $0 + $1.charged })
        return all
    }

    /// The earliest live node (stale ones before it dropped), and whether it heads the lane.
    private mutating func earliest() -> (node: Node, inLane: Bool)? {
        while laneHead < lane.count, !isLive(lane[laneHead]) {
            takeLaneHead()
            staleNodes = max(0, staleNodes - 1)
        }
        while let top = heap.first, !isLive(top) {
            popTop()
            staleNodes = max(0, staleNodes - 1)
        }
        switch (laneHead < lane.count ? lane[laneHead] : nil, heap.first) {
        case (let first?, let top?): return top.precedes(first) ? (top, false) : (first, true)
        case (let first?, nil): return (first, true)
        case (nil, let top?): return (top, false)
        case (nil, nil): return nil
        }
    }

    private func isLive(_ node: Node) -> Bool {
        entries.withValue(for: node.id) { $0.sequence } == node.sequence
    }

    /// Drops the lane's head, releasing the lane's storage once it is all taken, and its taken
    /// part once that is most of it (under steady load the lane never empties).
    private mutating func takeLaneHead() {
        laneHead += 1
        if laneHead == lane.count {
            // Emptied: a small lane keeps its storage (timers that re-arm themselves), a burst's
            // is given back.
            lane.removeAll(keepingCapacity: lane.capacity <= 1024)
            laneHead = 0
        } else if laneHead >= 1024, laneHead * 2 >= lane.count {
            lane.removeFirst(laneHead)
            laneHead = 0
        }
    }

    private mutating func push(_ node: Node) {
        heap.append(node)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            if first == parent { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
