import DuktapeCore

/// The loop's immediates, in order: an array with a moving head; cleared entries become nil in
/// place. Ids increase along it (so `clearImmediate` finds an id by binary search) until the id
/// counter wraps; then the search is linear until the queue has drained.
struct ImmediateQueue {
    struct Entry {
        let callback: JSValue
        let arguments: [JSValue]
        /// The host memory this entry charged to the VM's memory limit (`account`), given back
        /// when it leaves the queue.
        let charged: Int
    }

    /// Where entries' host memory is charged (set with the loop's globals).
    var account: HostMemoryAccount?
    private var ids: [Int] = []
    private var entries: [Entry?] = []
    private var head = 0
    private(set) var liveCount = 0
    /// False after an id smaller than the last one was appended (the counter wrapped).
    private var sorted = true

    init(account: HostMemoryAccount? = nil) {
        self.account = account
    }

    var isEmpty: Bool { liveCount == 0 }

    /// Entries held, spent ones included (for tests of the queue's compaction).
    var storedCount: Int { ids.count }

    /// The position after the last immediate queued so far: a check phase runs up to it.
    var end: Int { ids.count }

    mutating func append(_ id: Int, _ entry: Entry) {
        if let last = ids.last, id < last { sorted = false }
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
                account?.discharge(entry.charged)
                compactIfDrained(&end)
                return entry
            }
        }
        compactIfDrained(&end)
        return nil
    }

    /// Removes immediate `id` if it has not run; returns it (to be released outside the lock).
    mutating func remove(_ id: Int) -> Entry? {
        guard let index = position(of: id), let entry = entries[index] else { return nil }
        entries[index] = nil
        liveCount -= 1
        account?.discharge(entry.charged)
        return entry
    }

    /// True when immediate `id` is queued and has not run.
    func contains(_ id: Int) -> Bool {
        position(of: id).map { entries[$0] != nil } ?? false
    }

    private func position(of id: Int) -> Int? {
        guard sorted else { return ids[head...].firstIndex(of: id) }
        var low = head, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == id ? low : nil
    }

    /// Empties the queue, returning the live entries (to be released outside the lock).
    mutating func removeAll() -> [Entry] {
        let account = self.account
        defer { self = ImmediateQueue(account: account) }
        let live = entries[head...].compactMap { $0 }
        account?.discharge(live.reduce(0) { $0 + $1.charged })
        return live
    }

    /// Drops what the head has passed: all of it once everything has run (keeping the storage),
    /// and under steady load (immediates that queue immediates) once it is most of the array, so
    /// the queue never grows without bound.
    private mutating func compactIfDrained(_ end: inout Int) {
        if head == ids.count {
            end -= head
            head = 0
            ids.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
            sorted = true
        } else if head >= 1024, head * 2 >= ids.count {
            ids.removeFirst(head)
            entries.removeFirst(head)
            end -= head
            head = 0
        }
    }
}
