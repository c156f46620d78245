/// A map from the loop's ids (positive, handed out by the loop in sequence) to values: the
/// values in a dense array, and an index of their positions by open addressing with linear
/// probing over a power-of-two table of integers, at most half full, the slot chosen by
/// Fibonacci hashing (one multiplication). `Dictionary` hashes every `Int` key with SipHash and
/// moves its values when it grows, which cost a timer about 650 instructions in the loop's W11
/// profile; here growing moves integers only, and a removal moves one value.
///
/// Scripts never choose ids (the loop hands them out), and Fibonacci hashing spreads
/// consecutive ids evenly over the table, so runs stay short. Removal shifts the run back (no
/// tombstones), and the index shrinks when it is mostly empty, so a burst of timers does not
/// keep its memory.
struct IDTable<Value> {
    /// The entries, in no particular order.
    private var items: [Item] = []
    /// Positions in `items`, plus one; 0 is an empty slot.
    private var index: [Int]
    private var shift: Int

    private struct Item {
        let id: Int
        var value: Value
    }

    private static var minimumCapacity: Int { 16 }

    init() {
        index = Array(repeating: 0, count: Self.minimumCapacity)
        shift = 64 - Self.minimumCapacity.trailingZeroBitCount
    }

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }

    subscript(id: Int) -> Value? {
        guard let slot = slot(of: id) else { return nil }
        return items[index[slot] - 1].value
    }

    /// What `read` makes of the value of `id` (read in place, without a copy), or nil.
    @inline(__always)
    func withValue<Result>(for id: Int, _ read: (Value) -> Result) -> Result? {
        guard let slot = slot(of: id) else { return nil }
        return read(items[index[slot] - 1].value)
    }

    /// Every value, in no particular order.
    var allValues: [Value] { items.map(\.value) }

    /// Sets the value of `id` (which must be positive), replacing any it had.
    mutating func set(_ value: Value, for id: Int) {
        assert(id > 0, "the loop's ids are positive")
        guard id > 0 else { return }
        if let slot = slot(of: id) {
            items[index[slot] - 1].value = value
            return
        }
        if (items.count + 1) * 2 > index.count { reindex(capacity: index.count * 2) }
        items.append(Item(id: id, value: value))
        index[freeSlot(for: id)] = items.count
    }

    /// Removes `id`, returning its value.
    @discardableResult
    mutating func removeValue(for id: Int) -> Value? {
        guard var hole = slot(of: id) else { return nil }
        let position = index[hole] - 1
        let mask = index.count - 1
        // Backward-shift deletion: move up each later entry of the run that may sit in the hole
        // (one whose home does not lie cyclically in (hole, next]).
        var next = (hole + 1) & mask
        while index[next] != 0 {
            let home = home(of: items[index[next] - 1].id)
            if (hole - home) & mask < (next - home) & mask {
                index[hole] = index[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        index[hole] = 0
        // The last entry takes the removed one's place.
        let last = items.count - 1
        if position != last, let lastSlot = slot(of: items[last].id) {
            items.swapAt(position, last)
            index[lastSlot] = position + 1
        }
        let removed = items.removeLast().value
        if index.count > Self.minimumCapacity, items.count * 8 < index.count {
            reindex(capacity: index.count / 2)
            if items.capacity > 4 * Swift.max(items.count, Self.minimumCapacity) {
                items = Array(items)  // the storage a burst grew, given back
            }
        }
        return removed
    }

    /// Empties the table, returning its values.
    mutating func removeAll() -> [Value] {
        defer { self = IDTable() }
        return allValues
    }

    private func home(of id: Int) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
    }

    private func slot(of id: Int) -> Int? {
        guard id > 0 else { return nil }
        var slot = home(of: id)
        while true {
            let position = index[slot]
            if position == 0 { return nil }
            if items[position - 1].id == id { return slot }
            slot = (slot + 1) & (index.count - 1)
        }
    }

    private func freeSlot(for id: Int) -> Int {
        var slot = home(of: id)
        while index[slot] != 0 { slot = (slot + 1) & (index.count - 1) }
        return slot
    }

    /// A new index of `capacity` slots (the values stay where they are).
    private mutating func reindex(capacity: Int) {
        index = Array(repeating: 0, count: capacity)
        shift = 64 - capacity.trailingZeroBitCount
        for position in items.indices {
            index[freeSlot(for: items[position].id)] = position + 1
        }
    }
}
