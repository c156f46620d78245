import DuktapeCore

/// The loop's immediates, in order: an array with a moving head (ids increase along it, so
/// `clearImmediate` finds an id by binary search; cleared entries become nil in place).
struct ImmediateQueue {
    struct Entry {
        let callback: JSValue
        let arguments: [JSValue]
    }

    private var ids: [Int] = []
    private var entries: [Entry?] = []
    private var head = 0
    private(set) var liveCount = 0

    var isEmpty: Bool { liveCount == 0 }

    /// The position after the last immediate queued so far: a check phase runs up to it.
    var end: Int { ids.count }

    mutating func append(_ id: Int, _ entry: Entry) {
        ids.append(id)
        entries.append(entry)
        liveCount += 1
    }

    /// Takes the next live immediate before `end` (a position from `end` when the phase began,
    /// adjusted by `popNext` itself when the queue compacts). nil when the phase is done.
    mutating func popNext(before end: inout Int) -> Entry? {
        while head < end {
            let entry = entries[head]
            entries[head] = nil
            head += 1
            if let entry {
                liveCount -= 1
                compactIfDrained(&end)
                return entry
            }
        }
        compactIfDrained(&end)
        return nil
    }

    /// Removes immediate `id` if it has not run; returns it (to be released outside the lock).
    mutating func remove(_ id: Int) -> Entry? {
        var low = head, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        guard low < ids.count, ids[low] == id, let entry = entries[low] else { return nil }
        entries[low] = nil
        liveCount -= 1
        return entry
    }

    /// Empties the queue, returning the live entries (to be released outside the lock).
    mutating func removeAll() -> [Entry] {
        defer { self = ImmediateQueue() }
        return entries[head...].compactMap { $0 }
    }

    /// Once everything before the head has run, drops it (keeping the storage).
    private mutating func compactIfDrained(_ end: inout Int) {
        guard head == ids.count else { return }
        end -= head
        head = 0
        ids.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }
}
