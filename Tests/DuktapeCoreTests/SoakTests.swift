import Foundation
import Testing

@testable import DuktapeCore

/// An exported class of the soak test's own (live counts are per class).
final class SoakThing: JSExport {
    static let jsClass = JSClass(SoakThing.self) { c in
        c.constructor { () in SoakThing() }
        c.method("peek()") { (_: SoakThing) in 42 }
    }
}

/// Long runs that must leave memory where they found it.
@Suite("Soak")
struct SoakTests {
    /// 100,000 cycles of evaluate + convert both ways + a Swift callback + an exported method:
    /// once warmed up, the heap (`memoryUsage`, from the allocator hooks) must come back to its
    /// starting level, and every value pinned for Swift must be released.
    @Test func hundredThousandCyclesReturnMemoryToItsStartingLevel() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        context["Thing"] = SoakThing.self
        context["twice"] = JSValue(newFunctionIn: context) { (value: Double) in value * 2 }
        eval(context, "var thing = new Thing(); function step(input) { return { n: twice(input.n), label: input.label + input.n, peek: thing.peek() } }")
        let step = try #require(context.objectForKeyedSubscript("step"))

        func cycle(_ i: Int) {
            // Swift -> JS conversion, a JS call, a Swift callback, an exported method, JS -> Swift.
            let back = step.call(withArguments: [["n": i, "label": "😀"]])?.toObject() as? [String: Any]
            if back?["n"] as? Int != 2 * i || back?["label"] as? String != "😀\(i)" || back?["peek"] as? Int != 42 {
                Issue.record("cycle \(i) gave \(String(describing: back))")
            }
            // A fresh script each time: compiled, run and dropped.
            _ = context.evaluateScript("var scratch = [\(i % 10), {k: \(i % 3)}]")
        }

        for i in 0..<1_000 { cycle(i) }  // warm-up: caches, interned keys, the shape of the heap
        vm.garbageCollect()
        let baseline = vm.memoryUsage
        let pinned = vm.pinnedValueCount
        for i in 0..<100_000 { cycle(i) }
        vm.garbageCollect()
        let after = vm.memoryUsage
        print("soak: memoryUsage \(baseline) B after warm-up, \(after) B after 100,000 cycles (\(after - baseline) B), peak \(vm.peakMemoryUsage) B")
        #expect(after - baseline < 16 << 10, "grew by \(after - baseline) bytes")
        #expect(vm.pinnedValueCount == pinned)
        #expect(context.exception == nil)
    }
}
