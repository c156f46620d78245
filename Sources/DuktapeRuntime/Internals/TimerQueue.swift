import DuktapeCore

/// The loop's timers: a binary min-heap of (due, sequence, id) with lazy deletion, beside the
/// live entries by id. A cleared or re-armed timer leaves its old heap node behind; the node is
/// skipped when it surfaces (its sequence no longer matches the live entry's).
struct TimerQueue {
    struct Entry {
        let callback: JSValue
        let arguments: [JSValue]
        /// The host memory this entry charged to the VM's memory limit (`account`), given back
        /// when it leaves the queue.
        let charged: Int
        /// The re-arm period of an interval; nil for a timeout.
        let interval: Duration?
        var due: Duration
        var sequence: Int
    }

    /// A heap node: the due time in nanoseconds (compared inline, where `Duration`'s 128-bit
    /// comparison is a library call per step of a sift).
    private struct Node {
        let due: Int64
        let sequence: Int
        let id: Int

        func precedes(_ other: Node) -> Bool {
            due < other.due || (due == other.due && sequence < other.sequence)
        }
    }

    private(set) var entries: [Int: Entry] = [:]
    /// Where entries' host memory is charged (set with the loop's globals).
    var account: HostMemoryAccount?
    private var heap: [Node] = []
    private var nextSequence = 0
    /// Heap nodes of cleared timers not yet popped: the heap is rebuilt when they outnumber
    /// the live ones, so clearing timers that are far in the future cannot grow it unboundedly.
    private var staleNodes = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Heap nodes held, stale ones included (for tests of the heap's rebuilding).
    var nodeCount: Int { heap.count }

    /// The sequence number of the timer scheduled (or re-armed) last.
    var lastSequence: Int { nextSequence }

    /// Adds (or re-arms) timer `id`, ordered after every timer already due at the same time.
    mutating func schedule(_ id: Int, _ entry: Entry) {
        var entry = entry
        nextSequence += 1
        entry.sequence = nextSequence
        entries[id] = entry
        push(Node(due: Self.nanoseconds(entry.due), sequence: entry.sequence, id: id))
    }

    /// `duration` in nanoseconds, saturating (a loop's times are at most centuries).
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow || carry { return seconds < 0 ? .min : .max }
        return sum
    }

    /// Removes timer `id`, returning its entry (to be released outside the loop's lock).
    mutating func remove(_ id: Int) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        account?.discharge(entry.charged)
        staleNodes += 1
        if staleNodes > 64, staleNodes > 2 * entries.count { rebuild() }
        return entry
    }

    /// The heap of the live nodes only.
    private mutating func rebuild() {
        let live = heap.filter { entries[$0.id]?.sequence == $0.sequence }
        heap = []
        staleNodes = 0
        for node in live { push(node) }
    }

    /// The due time of the earliest live timer.
    mutating func nextDue() -> Duration? {
        dropStaleTop()
        return heap.first.flatMap { entries[$0.id]?.due }
    }

    /// Takes the earliest live timer if it is due at `now` and was scheduled at or before
    /// `lastSequence` (a timer made or re-armed since waits for the next turn): a timeout leaves
    /// the queue; an interval is re-armed from its scheduled time, missed periods skipped.
    ///
    /// Stopping at a newer timer on top is exact: any older timer due by `now` is due no later,
    /// so it would be on top first.
    mutating func popDue(at now: Duration, upTo lastSequence: Int) -> (id: Int, entry: Entry)? {
        let limit = Self.nanoseconds(now)
        var live: Dictionary<Int, Entry>.Index?
        while let top = heap.first {
            // One lookup per node: a stale node (its timer cleared or re-armed) is dropped.
            let index = entries.index(forKey: top.id)
            if let index, entries.values[index].sequence == top.sequence {
                live = index
                break
            }
            popTop()
            staleNodes = max(0, staleNodes - 1)
        }
        guard let top = heap.first, let index = live, top.due <= limit, top.sequence <= lastSequence else { return nil }
        let entry = entries.values[index]
        popTop()
        if let interval = entry.interval {
            var next = entry
            if interval > .zero {
                next.due = entry.due + interval
                if next.due <= now {
                    // Skip the periods that were missed, in one step.
                    let missed = ((now - next.due) / interval).rounded(.down)
                    next.due += interval * missed + interval
                }
            } else {
                next.due = now
            }
            schedule(top.id, next)
        } else {
            entries.remove(at: index)
            account?.discharge(entry.charged)
        }
        return (top.id, entry)
    }

    /// Empties the queue, returning the entries (to be released outside the loop's lock).
    mutating func removeAll() -> [Entry] {
        defer {
            entries = [:]
            heap = []
            staleNodes = 0
        }
        account?.discharge(entries.values.reduce(0) { $0 + $1.charged })
        return Array(entries.values)
    }

    private mutating func dropStaleTop() {
        while let top = heap.first, entries[top.id]?.sequence != top.sequence {
            popTop()
            staleNodes = max(0, staleNodes - 1)
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
