import Foundation
import Testing

@testable import DuktapeCore

/// One VM is safe from many threads (its lock serialises them); separate VMs run in parallel.
@Suite("Threads")
struct ThreadingTests {
    @Test func manyThreadsHammeringOneVM() async throws {
        let context = try #require(JSContext())
        context.evaluateScript("var counter = 0; function bump(n) { counter += n; return counter }")
        let bump = try #require(context.objectForKeyedSubscript("bump"))
        let threads = 8, iterations = 500
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for iteration in 0..<iterations {
                        _ = bump.call(withArguments: [1])
                        let value = JSValue(object: ["thread": thread, "i": iteration, "s": "😀\(iteration)"], in: context)!
                        let back = value.toObject() as? [String: Any]
                        if back?["i"] as? Int != iteration || back?["s"] as? String != "😀\(iteration)" {
                            Issue.record("inconsistent round trip on thread \(thread)")
                        }
                        context.setObject(value, forKeyedSubscript: "last\(thread)")
                    }
                }
            }
        }
        #expect(context.evaluateScript("counter").toInt32() == Int32(threads * iterations))
        #expect(context.exception == nil)
    }

    @Test func separateVirtualMachinesRunInParallel() async throws {
        let results = await withTaskGroup(of: Double.self) { group in
            for seed in 0..<8 {
                group.addTask {
                    let context = JSContext()!
                    context.setObject(seed, forKeyedSubscript: "seed")
                    return context.evaluateScript("var s = seed; for (var i = 0; i < 200000; i++) s = (s * 31 + i) % 1000003; s").toDouble()
                }
            }
            var all: [Double] = []
            for await result in group { all.append(result) }
            return all
        }
        let expected = (0..<8).map { seed -> Double in
            var value = Double(seed)
            for index in 0..<200_000 { value = (value * 31 + Double(index)).truncatingRemainder(dividingBy: 1_000_003) }
            return value
        }
        #expect(results.sorted() == expected.sorted())
    }

    @Test func contextsOfOneVMOnDifferentThreads() async throws {
        let vm = try #require(JSVirtualMachine())
        let shared = try #require(JSContext(virtualMachine: vm))
        let box = eval(shared, "({items: []})")
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let mine = JSContext(virtualMachine: vm)!
                    let push = mine.evaluateScript("(function (box, v) { box.items.push(v) })")!
                    for index in 0..<250 { _ = push.call(withArguments: [box, worker * 1000 + index]) }
                }
            }
        }
        #expect(box.forProperty("items").forProperty("length").toInt32() == 1000)
    }

    @Test func valuesCreatedAndDroppedAcrossThreads() async throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        let baseline = vm.pinnedValueCount
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for index in 0..<300 {
                        let value = JSValue(object: "string \(index)", in: context)!
                        _ = value.toString()
                    }
                }
            }
        }
        #expect(vm.pinnedValueCount == baseline)
    }
}
