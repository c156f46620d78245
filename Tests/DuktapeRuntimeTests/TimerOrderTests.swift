import DuktapeCore
@testable import DuktapeRuntime
import Foundation
import Testing

/// The timer queue's two orders (a FIFO lane for timers due no earlier than the lane's last, a
/// heap for the rest) and the id table behind them, against simple models.
@Suite("Timer order and the id table")
struct TimerOrderTests {
    /// A deterministic generator (the tests repeat exactly).
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1330_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: [1, 2, 3])
    func idTableAgreesWithADictionary(seed: UInt64) {
        var random = SplitMix(state: seed)
        var table = IDTable<Int>()
        var model: [Int: Int] = [:]
        var nextID = 1
        for step in 0..<60_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:  // a fresh id, as the loop hands them out
                table.set(step, for: nextID)
                model[nextID] = step
                nextID += Int.random(in: 1...3, using: &random)
            case 5:  // replacing a value
                if let id = model.keys.randomElement(using: &random) {
                    table.set(-step, for: id)
                    model[id] = -step
                }
            case 6..<9:  // removing a live id
                if let id = model.keys.randomElement(using: &random) {
                    #expect(table.removeValue(for: id) == model.removeValue(forKey: id))
                }
            default:  // ids that are not there, zero and negative ones included
                let id = Int.random(in: -2...(nextID + 100), using: &random)
                #expect(table.removeValue(for: id) == model.removeValue(forKey: id))
            }
            if step % 997 == 0 {
                #expect(table.count == model.count)
                for (id, value) in model { #expect(table[id] == value) }
            }
        }
        // Drained, it shrinks and still works.
        for id in model.keys { table.removeValue(for: id) }
        #expect(table.isEmpty && table.allValues.isEmpty)
        table.set(7, for: 12345)
        #expect(table[12345] == 7 && table[12346] == nil && table[0] == nil && table[-1] == nil)
    }

    /// Timers with mixed delays, some cleared, some scheduled by the callbacks themselves, fire
    /// in (due, creation) order: what the heap alone gave, whichever order each went in.
    @Test(arguments: [11, 12, 13])
    func mixedDelaysFireInDueThenCreationOrder(seed: UInt64) throws {
        var random = SplitMix(state: seed)
        let context = try #require(JSContext())
        let loop = JSEventLoop(context: context, clock: ManualClock())
        var delays: [Int] = []
        for _ in 0..<2_000 {
            // Runs of equal delays (the lane), and jumps back and forth (the heap).
            delays.append(Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0...50, using: &random) : delays.last ?? 0)
        }
        let cleared = (0..<200).map { _ in Int.random(in: 0..<delays.count, using: &random) }
        context.setObject(delays, forKeyedSubscript: "delays" as NSString)
        context.setObject(cleared, forKeyedSubscript: "cleared" as NSString)
        context.evaluateScript("""
            var fired = [], ids = [];
            delays.forEach(function (delay, i) {
                ids.push(setTimeout(function () {
                    fired.push(i);
                    // A timer made by a callback, later than every timer made before it.
                    if (i % 97 === 0) setTimeout(function () { fired.push(-(i + 1)) }, 1);
                }, delay));
            });
            cleared.forEach(function (i) { clearTimeout(ids[i]) });
            """)
        try loop.run()
        #expect(context.exception == nil)
        let fired = try #require(context.objectForKeyedSubscript("fired").toArray() as? [Int])
        // The model: every timer by (due, when it was made). The first ones were all made at
        // time 0 in index order; each second one when its parent fired, due a millisecond later.
        let clearedSet = Set(cleared)
        let firstOnes = delays.indices.filter { !clearedSet.contains($0) }.sorted { (delays[$0], $0) < (delays[$1], $1) }
        var model: [(due: Int, made: Int, label: Int)] = firstOnes.map { (delays[$0], $0, $0) }
        for (rank, index) in firstOnes.enumerated() where index % 97 == 0 {
            model.append((delays[index] + 1, delays.count + rank, -(index + 1)))
        }
        let expected = model.sorted { ($0.due, $0.made) < ($1.due, $1.made) }.map(\.label)
        #expect(fired == expected)
    }

    /// Far timers cleared leave nodes in both orders; the rebuild keeps them bounded and the
    /// live ones in order.
    @Test func clearedTimersInBothOrdersAreDropped() throws {
        let context = try #require(JSContext())
        let loop = JSEventLoop(context: context, clock: ManualClock())
        context.evaluateScript("""
            var fired = [];
            for (var i = 0; i < 20000; i++) {
                // Alternating delays: the lane takes the long ones, the heap the short ones.
                var id = setTimeout(function () {}, i % 2 ? 1000 : 10);
                if (i % 100) clearTimeout(id); else (function (n) { setTimeout(function () { fired.push(n) }, 5) })(i);
            }
            """)
        #expect(loop.state.withLock { $0.timers.nodeCount } < 3000)
        try loop.run()
        let fired = try #require(context.objectForKeyedSubscript("fired").toArray() as? [Int])
        #expect(fired == Array(stride(from: 0, to: 20000, by: 100)))
    }
}
