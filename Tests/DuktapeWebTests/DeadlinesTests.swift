import DuktapeCore
import Foundation
import Testing

@testable import DuktapeWeb

/// The deadlines thread behind requests' timeouts and idle pages.
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

    /// A deadline earlier than every other wakes the thread (else this one would wait an hour
    /// behind the first); equal ones run in the order they were scheduled.
    @Test func earlierDeadlinesWakeTheThreadAndEqualOnesKeepTheirOrder() async {
        let ran = Ran()
        let late = Deadlines.shared.schedule(after: .seconds(3600), ran.action("late"))
        defer { Deadlines.shared.cancel(late) }
        Deadlines.shared.schedule(after: .milliseconds(30), ran.action("c"))
        Deadlines.shared.schedule(after: .zero, ran.action("a"))
        Deadlines.shared.schedule(after: .milliseconds(10), ran.action("b1"))
        let tied = Duration.milliseconds(10)
        Deadlines.shared.schedule(after: tied, ran.action("b2"))
        let labels = await ran.next(4)
        #expect(labels.first == "a")
        #expect(Set(labels.dropFirst()).isSuperset(of: ["b1"]) && labels.contains("c"))
        #expect((labels.firstIndex(of: "b1") ?? 9) < (labels.firstIndex(of: "c") ?? 0))
    }

    /// A cancelled action never runs, even when its time has passed.
    @Test func aCancelledActionNeverRuns() async {
        let ran = Ran()
        let cancelled = Deadlines.shared.schedule(after: .milliseconds(5), ran.action("cancelled"))
        Deadlines.shared.cancel(cancelled)
        Deadlines.shared.schedule(after: .milliseconds(20), ran.action("kept"))
        #expect(await ran.next(1) == ["kept"])
        Deadlines.shared.cancel(cancelled)  // again, after its time: nothing
    }

    /// Cancelled nodes do not pile up: ten thousand hour-long timeouts scheduled and cancelled
    /// leave the heap within twice the live count.
    @Test func cancelledDeadlinesDoNotAccumulate() {
        for _ in 0..<10_000 {
            Deadlines.shared.cancel(Deadlines.shared.schedule(after: .seconds(3600)) {})
        }
        let (pending, nodes) = Deadlines.shared.counts
        #expect(nodes <= max(64, 2 * pending) + 1)
    }

    /// Delays far past any clock (and negative ones) are clamped, not trapped on.
    @Test func extremeDelaysAreClamped() async {
        let ran = Ran()
        let never = Deadlines.shared.schedule(after: .seconds(Int64.max), ran.action("never"))
        defer { Deadlines.shared.cancel(never) }
        Deadlines.shared.schedule(after: .seconds(-5), ran.action("now"))
        #expect(await ran.next(1) == ["now"])
    }
}
