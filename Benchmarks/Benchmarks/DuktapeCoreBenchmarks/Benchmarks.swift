// Workloads W1–W11 (W1–W9 of issue 4, W10 promises, W11 the runtime's event loop), each measured for DuktapeCore ("ours"), raw Duktape ("raw") and
// JavaScriptCore ("jsc") in the same run. Benchmark names are "<workload> [<engine>]"; one
// iteration does `Batch.size(of:)` operations, and scripts/report.py turns the results into
// per-operation figures and ratios (Benchmarks/RESULTS.md).
import Baselines
import Benchmark
import DuktapeCore
import DuktapeRuntime
import Foundation

/// Operations per benchmark iteration, by workload (the report divides by these).
enum Batch {
    static let newContexts = 10
    static let evaluations = 1_000
    static let calls = 100_000
    static let properties = 100_000
    static let entries = 10_000
    static let stringBytes = 1 << 20
    static let exportedUses = 100_000
    static let chainSteps = 100_000
    static let allCount = 10_000
    static let hostPromises = 10_000
    static let timers = 100_000
    static let posts = 10_000
}

/// A counter exported to JavaScript: the W9 workload (`c.add(1); s += c.value`).
final class Counter: JSExport {
    var value = 0.0
    static let jsClass = JSClass(Counter.self) { c in
        c.method("add(_:)", as: "add") { (counter: Counter, amount: Double) -> Double in
            counter.value += amount
            return counter.value
        }
        c.property("value", \.value)
    }
}

/// The JavaScript every engine gets (the same text as in Baselines/raw.c and jsc.c).
let prelude = """
    function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
    function jsAdd(a, b) { return a + b }
    function callHost(n) { var s = 0; for (var i = 0; i < n; i++) s = add(s, 1); return s }
    function useCounter(c, n) { var s = 0; for (var i = 0; i < n; i++) { c.add(1); s += c.value } return s }
    function makeString(n) { return new Array(n + 1).join('x') }
    function inc(v) { return v + 1 }
    function chain(n) { var p = Promise.resolve(0); for (var i = 0; i < n; i++) p = p.then(inc);
      p.then(function (v) { chainResult = v }) }
    function allOf(n) { var a = []; for (var i = 0; i < n; i++) a.push(Promise.resolve(i));
      Promise.all(a).then(function (v) { allResult = v.length }) }
    var chainResult = 0, allResult = 0;
    """

func makeOurs() -> JSContext {
    let context = JSContext()!
    context["add"] = JSValue(newFunctionIn: context) { (a: Double, b: Double) in a + b }
    context.evaluateScript(prelude)
    context["counter"] = Counter()
    context.setObject(tenThousand, forKeyedSubscript: "received")
    return context
}

let bigString = String(repeating: "x", count: Batch.stringBytes)
let tenThousand: [String: Int] = Dictionary(uniqueKeysWithValues: (0..<Batch.entries).map { ("k\($0)", $0) })

/// The per-sample ratio of the paired benchmarks, ×100 (metrics hold integers; the export
/// writes values of 1,000 and more in thousands, so ×100 keeps two decimals below a ratio of 10).
let pairedRatio = BenchmarkMetric.custom("ratio", polarity: .prefersSmaller, useScalingFactor: false)

/// ours ÷ raw measured in pairs: each sample times one batch of each back to back, in the order
/// ours, raw, raw, ours, and records (ours₁ + ours₂) ÷ (raw₁ + raw₂). A slow stretch of this
/// machine (seconds long, up to 1.7×) then lands on both sides of a ratio instead of on whichever
/// engine happened to be measured during it, as it can between the separate [ours] and [raw]
/// benchmarks.
func paired(
    _ workload: String, ours: @escaping @Sendable (JSContext) -> Void, raw: @escaping @Sendable (OpaquePointer) -> Void
) {
    let configuration = Benchmark.Configuration(
        metrics: [pairedRatio], warmupIterations: 1, maxDuration: .seconds(3), maxIterations: 100)
    Benchmark("\(workload) [paired]", configuration: configuration) { benchmark in
        let context = makeOurs()
        guard let state = raw_create() else { return }
        defer { raw_destroy(state) }
        func time(_ body: () -> Void) -> UInt64 {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return DispatchTime.now().uptimeNanoseconds - start
        }
        for _ in benchmark.scaledIterations {
            let oursTime = time { ours(context) }
            let rawTime = time { raw(state) } + time { raw(state) }
            let total = oursTime + time { ours(context) }
            benchmark.measurement(pairedRatio, Int((Double(total) / Double(max(rawTime, 1)) * 100).rounded()))
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        timeUnits: .microseconds,
        warmupIterations: 2,
        maxDuration: .milliseconds(1_500),
        maxIterations: 300
    )

    func trio(
        _ workload: String,
        ours: (@Sendable (JSContext) -> Void)?,
        raw: @escaping @Sendable (OpaquePointer) -> Void,
        jsc: @escaping @Sendable (OpaquePointer) -> Void
    ) {
        // Each sample makes its engine state before the measurement starts.
        if let ours {
            Benchmark("\(workload) [ours]") { benchmark in
                let context = makeOurs()
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { ours(context) }
                benchmark.stopMeasurement()
            }
            paired(workload, ours: ours, raw: raw)
        }
        Benchmark("\(workload) [raw]") { benchmark in
            guard let state = raw_create() else { return }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { raw(state) }
            benchmark.stopMeasurement()
            raw_destroy(state)
        }
        Benchmark("\(workload) [jsc]") { benchmark in
            guard let state = jsc_create() else { return }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { jsc(state) }
            benchmark.stopMeasurement()
            jsc_destroy(state)
        }
    }

    // W1: a VM with one context, created and destroyed; a new context in a shared VM.
    Benchmark("W1 create+destroy VM and context [ours]") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(JSContext()) }
    }
    Benchmark("W1 create+destroy VM and context [raw]") { benchmark in
        for _ in benchmark.scaledIterations { raw_create_destroy_vm(1) }
    }
    Benchmark("W1 create+destroy VM and context [jsc]") { benchmark in
        for _ in benchmark.scaledIterations { jsc_create_destroy_vm(1) }
    }
    paired("W1 create+destroy VM and context", ours: { _ in blackHole(JSContext()) }, raw: { _ in raw_create_destroy_vm(1) })
    Benchmark("W1 new context in a shared VM [ours]") { benchmark in
        guard let vm = makeOurs().virtualMachine else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for _ in 0..<Batch.newContexts { blackHole(JSContext(virtualMachine: vm)) }
            vm.garbageCollect()
        }
        benchmark.stopMeasurement()
    }
    trio("W1 new context in a shared VM", ours: nil, raw: { raw_new_context($0, Int32(Batch.newContexts)) },
         jsc: { jsc_new_context($0, Int32(Batch.newContexts)) })
    paired("W1 new context in a shared VM",
           ours: { context in
               for _ in 0..<Batch.newContexts { blackHole(JSContext(virtualMachine: context.virtualMachine)) }
               context.virtualMachine.garbageCollect()
           },
           raw: { raw_new_context($0, Int32(Batch.newContexts)) })

    // W2–W9.
    trio("W2 evaluate 1+1",
         ours: { context in for _ in 0..<Batch.evaluations { blackHole(context.evaluateScript("1+1").toDouble()) } },
         raw: { blackHole(raw_eval($0, Int32(Batch.evaluations))) },
         jsc: { blackHole(jsc_eval($0, Int32(Batch.evaluations))) })
    trio("W3 fib(25)",
         ours: { blackHole($0.evaluateScript("fib(25)").toDouble()) },
         raw: { blackHole(raw_fib($0)) },
         jsc: { blackHole(jsc_fib($0)) })
    trio("W4 host function called from JS",
         ours: { blackHole($0.objectForKeyedSubscript("callHost").call(withArguments: [Batch.calls]).toDouble()) },
         raw: { blackHole(raw_host_calls($0, Int32(Batch.calls))) },
         jsc: { blackHole(jsc_host_calls($0, Int32(Batch.calls))) })
    trio("W5 JS function called from the host",
         ours: { context in
             let add = context.objectForKeyedSubscript("jsAdd")!
             var sum = 0.0
             for _ in 0..<Batch.calls { sum = add.call(withArguments: [sum, 1]).toDouble() }
             blackHole(sum)
         },
         raw: { blackHole(raw_js_calls($0, Int32(Batch.calls))) },
         jsc: { blackHole(jsc_js_calls($0, Int32(Batch.calls))) })
    trio("W6 property set+get from the host",
         ours: { context in
             let object = JSValue(newObjectIn: context)!
             var sum = 0.0
             for index in 0..<Batch.properties {
                 object.setValue(index, forProperty: "key")
                 sum += object.forProperty("key").toDouble()
             }
             blackHole(sum)
         },
         raw: { blackHole(raw_properties($0, Int32(Batch.properties))) },
         jsc: { blackHole(jsc_properties($0, Int32(Batch.properties))) })
    // W5 and W6 through the typed conveniences: no [Any] and no JSValue per operation.
    trio("W5 typed JS function call from the host",
         ours: { context in
             let add = context.objectForKeyedSubscript("jsAdd")!
             var sum = 0.0
             for _ in 0..<Batch.calls { sum = (try? add.call(sum, 1.0, returning: Double.self)) ?? .nan }
             blackHole(sum)
         },
         raw: { blackHole(raw_js_calls($0, Int32(Batch.calls))) },
         jsc: { blackHole(jsc_js_calls($0, Int32(Batch.calls))) })
    trio("W6 typed property set+get from the host",
         ours: { context in
             let object = JSValue(newObjectIn: context)!
             var sum = 0.0
             for index in 0..<Batch.properties {
                 object["key"] = index
                 sum += object["key"] ?? .nan
             }
             blackHole(sum)
         },
         raw: { blackHole(raw_properties($0, Int32(Batch.properties))) },
         jsc: { blackHole(jsc_properties($0, Int32(Batch.properties))) })
    trio("W7 10k-entry object host to JS",
         ours: { $0.setObject(tenThousand, forKeyedSubscript: "received") },
         raw: { blackHole(raw_object_to_js($0, Int32(Batch.entries))) },
         jsc: { blackHole(jsc_object_to_js($0, Int32(Batch.entries))) })
    trio("W7 10k-entry object JS to host",
         // toObject(): [String: Any], like the JSON route; toDictionary() re-keys to AnyHashable.
         ours: { blackHole($0.objectForKeyedSubscript("received").toObject()) },
         raw: { blackHole(raw_object_to_host($0, Int32(Batch.entries))) },
         jsc: { blackHole(jsc_object_to_host($0, Int32(Batch.entries))) })
    trio("W7 10k-entry object host to JS via JSON",
         ours: { context in
             let data = try? JSONSerialization.data(withJSONObject: tenThousand)
             let text = data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
             let parsed = context.objectForKeyedSubscript("JSON").invokeMethod("parse", withArguments: [text])
             context.setObject(parsed, forKeyedSubscript: "received")
         },
         raw: { blackHole(raw_json_to_js($0, Int32(Batch.entries))) },
         jsc: { blackHole(jsc_json_to_js($0, Int32(Batch.entries))) })
    trio("W7 10k-entry object JS to host via JSON",
         ours: { context in
             let text = context.objectForKeyedSubscript("JSON").invokeMethod("stringify", withArguments: [context.objectForKeyedSubscript("received")!]).toString() ?? "{}"
             blackHole(try? JSONSerialization.jsonObject(with: Data(text.utf8)))
         },
         raw: { blackHole(raw_json_to_host($0, Int32(Batch.entries))) },
         jsc: { blackHole(jsc_json_to_host($0, Int32(Batch.entries))) })
    trio("W8 1 MiB string host to JS",
         ours: { $0.setObject(bigString, forKeyedSubscript: "big") },
         raw: { state in bigString.withCString { blackHole(raw_string_to_js(state, $0, bigString.utf8.count)) } },
         jsc: { state in bigString.withCString { blackHole(jsc_string_to_js(state, $0, bigString.utf8.count)) } })
    trio("W8 1 MiB string JS to host",
         ours: { blackHole($0.objectForKeyedSubscript("makeString").call(withArguments: [Batch.stringBytes]).toString()) },
         raw: { blackHole(raw_string_to_host($0, Batch.stringBytes)) },
         jsc: { blackHole(jsc_string_to_host($0, Batch.stringBytes)) })
    // W10: promises. Each call drains its jobs before returning (JavaScriptCore's rule); raw
    // Duktape has no Promise, so its column runs the ES5 polyfill of Baselines/polyfill.h.
    trio("W10 100k-step then chain",
         ours: { context in
             context.objectForKeyedSubscript("chain").call(withArguments: [Batch.chainSteps])
             blackHole(context.objectForKeyedSubscript("chainResult").toDouble())
         },
         raw: { blackHole(raw_promise_chain($0, Int32(Batch.chainSteps))) },
         jsc: { blackHole(jsc_promise_chain($0, Int32(Batch.chainSteps))) })
    trio("W10 all() of 10k resolved promises",
         ours: { context in
             context.objectForKeyedSubscript("allOf").call(withArguments: [Batch.allCount])
             blackHole(context.objectForKeyedSubscript("allResult").toDouble())
         },
         raw: { blackHole(raw_promise_all($0, Int32(Batch.allCount))) },
         jsc: { blackHole(jsc_promise_all($0, Int32(Batch.allCount))) })
    // Ours: made with JSValue(newPromiseIn:), resolved from Swift, awaited from Swift. The
    // baselines: made, resolved and read (by a C reaction) from C.
    Benchmark("W10 10k promises resolved and awaited from Swift [ours]") { benchmark in
        let context = makeOurs()
        for _ in benchmark.scaledIterations {
            var sum = 0.0
            for index in 0..<Batch.hostPromises {
                var resolver: JSValue?
                let promise = JSValue(newPromiseIn: context) { resolve, _ in resolver = resolve }!
                resolver?.call(withArguments: [index])
                sum += (try? await promise.awaited().toDouble()) ?? .nan
            }
            blackHole(sum)
        }
    }
    // W11: the runtime's event loop (ours only; scripts/w11-node.js runs the same on Node).
    // One iteration schedules the callbacks from a script and runs the loop until idle.
    /// One iteration: a script queues n callbacks with `scheduler`, and the loop runs them.
    func loopBenchmark(_ name: String, scheduling scheduler: String) {
        Benchmark(name) { benchmark in
            let context = makeOurs()
            let loop = EventLoop(context: context)
            context.evaluateScript("""
                var fired = 0; function tick() { fired++ }
                function schedule(n, scheduler) { for (var i = 0; i < n; i++) scheduler(tick, 0) }
                """)
            let schedule: JSValue = context.objectForKeyedSubscript("schedule")
            let function: JSValue = context.objectForKeyedSubscript(scheduler)
            for _ in benchmark.scaledIterations {
                schedule.call(withArguments: [Batch.timers, function])
                try? loop.run()
            }
            blackHole(context.objectForKeyedSubscript("fired").toDouble())
        }
    }
    loopBenchmark("W11 100k setTimeout(f, 0) callbacks [ours]", scheduling: "setTimeout")
    loopBenchmark("W11 100k setImmediate callbacks [ours]", scheduling: "setImmediate")
    // Another thread posts 10k pieces of work, each calling a JS function, to the loop's own
    // thread; the iteration ends when the last has run.
    Benchmark("W11 10k posts from another thread [ours]") { benchmark in
        let context = makeOurs()
        let loop = EventLoop(context: context)
        context.evaluateScript("var received = 0; function onPost() { received++ }")
        let onPost: JSValue = context.objectForKeyedSubscript("onPost")
        try? loop.start()
        for _ in benchmark.scaledIterations {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                for _ in 0..<Batch.posts { loop.post { _ in onPost.call(withArguments: []) } }
                loop.post { _ in done.signal() }
            }
            done.wait()
        }
        loop.stop()
        blackHole(context.objectForKeyedSubscript("received").toDouble())
    }
    Benchmark("W10 10k promises resolved and awaited from Swift [raw]") { benchmark in
        guard let state = raw_create() else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(raw_promise_host(state, Int32(Batch.hostPromises))) }
        benchmark.stopMeasurement()
        raw_destroy(state)
    }
    Benchmark("W10 10k promises resolved and awaited from Swift [jsc]") { benchmark in
        guard let state = jsc_create() else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(jsc_promise_host(state, Int32(Batch.hostPromises))) }
        benchmark.stopMeasurement()
        jsc_destroy(state)
    }
    trio("W9 exported object method and property from JS",
         ours: { blackHole($0.objectForKeyedSubscript("useCounter").call(withArguments: [$0.objectForKeyedSubscript("counter")!, Batch.exportedUses]).toDouble()) },
         raw: { blackHole(raw_exported($0, Int32(Batch.exportedUses))) },
         jsc: { blackHole(jsc_exported($0, Int32(Batch.exportedUses))) })
}
