import DuktapeCore
import Foundation
import Testing

@testable import DuktapeWeb

/// The deadlines thread behind requests' timeouts and idle pages. Each test has an instance of
/// its own (its thread ends with it), so that others' deadlines do not disturb its counts.
@Suite("Deadlines", .timeLimit(.minutes(1)))
struct DeadlinesTests {
    /// Labels in the order their actions ran.
    private final class Ran: Sendable {
        let stream: AsyncStream<String>
        let continuation: AsyncStream<String>.Continuation
        init() { (stream, continuation) = AsyncStream.makeStream() }
        func action(_ label: String) -> @Sendable () -> Void { { [continuation] in continuation.yield(label) } }
        func next(_ count: Int) async -> [String] {
            var labels: [String] = []
            for await label in stream {
                labels.append(label)
                if labels.count == count { break }
            }
            return labels
        }
    }

    /// Holds the deadlines thread in an action of its own until `release`, so that a test can
    /// schedule and cancel while the thread cannot run anything (no race with the clock, however
    /// loaded the machine).
    private final class Blocker: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        func action(_ ran: Ran) -> @Sendable () -> Void {
            { [gate] in
                ran.continuation.yield("blocking")
                gate.wait()
            }
        }
        func release() { gate.signal() }
    }

    /// A deadline earlier than every other wakes the thread (else the blocker would wait an hour
    /// behind the first, past the suite's time limit); actions run in the order of their times,
    /// equal times in the order they were scheduled, whatever order they were scheduled in.
    @Test func actionsRunInTimeOrderAndEarlierOnesWakeTheThread() async {
        let deadlines = Deadlines(), ran = Ran(), blocker = Blocker()
        deadlines.schedule(after: .seconds(3600), ran.action("late"))
        deadlines.schedule(after: .zero, blocker.action(ran))
        #expect(await ran.next(1) == ["blocking"])
        let now = MonotonicClock.nanoseconds
        deadlines.schedule(atNanoseconds: now + 30_000_000, ran.action("d"))
        deadlines.schedule(atNanoseconds: now + 10_000_000, ran.action("b1"))
        deadlines.schedule(atNanoseconds: now + 10_000_000, ran.action("b2"))
        deadlines.schedule(atNanoseconds: now + 10_000_000, ran.action("b3"))
        deadlines.schedule(atNanoseconds: now, ran.action("a"))
        blocker.release()
        #expect(await ran.next(5) == ["a", "b1", "b2", "b3", "d"])
        #expect(deadlines.counts.pending == 1)
    }

    /// A cancelled action never runs, even when its time has passed before the thread looks;
    /// cancelling twice, or after the action ran, does nothing.
    @Test func aCancelledActionNeverRuns() async {
        let deadlines = Deadlines(), ran = Ran(), blocker = Blocker()
        deadlines.schedule(after: .zero, blocker.action(ran))
        #expect(await ran.next(1) == ["blocking"])
        let now = MonotonicClock.nanoseconds
        let cancelled = deadlines.schedule(atNanoseconds: now - 1_000_000, ran.action("cancelled"))
        deadlines.cancel(cancelled)
        let kept = deadlines.schedule(atNanoseconds: now, ran.action("kept"))
        blocker.release()
        #expect(await ran.next(1) == ["kept"])
        deadlines.cancel(cancelled)
        deadlines.cancel(kept)
        #expect(deadlines.counts.pending == 0)
    }

    /// Cancelled nodes do not pile up: ten thousand hour-long timeouts scheduled and cancelled
    /// leave at most 64 nodes (the heap is rebuilt once dropped ones outnumber live ones).
    @Test func cancelledDeadlinesDoNotAccumulate() {
        let deadlines = Deadlines()
        let kept = (0..<10).map { _ in deadlines.schedule(after: .seconds(3600)) {} }
        for _ in 0..<10_000 {
            deadlines.cancel(deadlines.schedule(after: .seconds(3600)) {})
        }
        let (pending, nodes) = deadlines.counts
        #expect(pending == kept.count && nodes <= 64)
    }

    /// Delays far past any clock (and negative ones) are clamped, not trapped on.
    @Test func extremeDelaysAreClamped() async {
        let deadlines = Deadlines(), ran = Ran()
        deadlines.schedule(after: .seconds(Int64.max), ran.action("never"))
        deadlines.schedule(atNanoseconds: .max, ran.action("never either"))
        deadlines.schedule(after: .seconds(-5), ran.action("now"))
        deadlines.schedule(atNanoseconds: .min, ran.action("at once"))
        #expect(Set(await ran.next(2)) == ["now", "at once"])
    }

    /// An instance that goes ends its thread; the actions it held are released unrun.
    @Test func aReleasedInstanceStopsAndReleasesItsActions() async {
        final class Marker: Sendable {}
        weak var held: Marker?
        do {
            let deadlines = Deadlines(), marker = Marker()
            held = marker
            deadlines.schedule(after: .seconds(3600)) { _ = marker }
        }
        #expect(held == nil)
    }
}
