// Workloads W1–W11 (W1–W9 of issue 4, W10 promises, W11 the runtime's event loop), each measured
// for DuktapeCore ("ours", Sources/Workloads), raw Duktape ("raw"), raw Duktape with a safe
// wrapper's protection ("rawp") and JavaScriptCore ("jsc") in the same run. Benchmark names are
// "<workload> [<engine>]"; one iteration does `Batch` operations, and scripts/report.py turns the
// results into per-operation figures and ratios (Benchmarks/RESULTS.md).
import Baselines
import Benchmark
import DuktapeBaselines
import DuktapeCore
import DuktapeRuntime
import Foundation
import Workloads

/// The per-sample ratio of the paired benchmarks, ×100 (metrics hold integers; the export
/// writes values of 1,000 and more in thousands, so ×100 keeps two decimals below a ratio of 10).
let pairedRatio = BenchmarkMetric.custom("ratio", polarity: .prefersSmaller, useScalingFactor: false)

/// ours ÷ raw (or ÷ raw protected, as "[paired-protected]") measured together: each sample times
/// four batches of each, interleaved as ours, raw, raw, ours, raw, ours, ours, raw, and records
/// Σ ours ÷ Σ raw. A slow stretch of this machine (seconds long, up to 1.7×) then lands on both
/// sides of a ratio instead of on whichever engine happened to be measured during it, as it can
/// between the separate [ours] and [raw] benchmarks: the two sides' positions add up the same
/// (a linear drift cancels), and each side runs once right after itself and three times right
/// after the other. (The earlier order, ours, raw, raw, ours, gave the baseline a batch after
/// itself and ours none: a workload that allocates a 1 MiB string found the allocator warm for
/// the baseline only, and W8's paired ratio read 1.9-2.3 where the separate medians put ours
/// level with the floor.)
func paired(
    _ workload: String, ours: @escaping @Sendable (JSContext) -> Void, raw: @escaping @Sendable (OpaquePointer) -> Void,
    against baseline: String = "paired"
) {
    pairedRatios("\(workload) [\(baseline)]") {
        let context = makeOurs()
        guard let state = raw_create() else { return nil }
        return ({ ours(context) }, { raw(state) }, { raw_destroy(state) })
    }
}

/// The order of one paired sample's batches: true for ours, false for the baseline (ABBA BAAB).
let pairOrder = [true, false, false, true, false, true, true, false]

/// The paired-ratio benchmark `name`: `make` sets up the two sides (nil when it cannot) and a
/// clean-up; each sample records Σ ours ÷ Σ base ×100 over four batches of each, timed in the
/// order ours, base, base, ours, base, ours, ours, base (see `paired`).
func pairedRatios(
    _ name: String,
    make: @escaping @Sendable () -> (ours: () -> Void, base: () -> Void, cleanUp: () -> Void)?
) {
    let configuration = Benchmark.Configuration(
        metrics: [pairedRatio], warmupIterations: 1, maxDuration: .seconds(3), maxIterations: 100)
    Benchmark(name, configuration: configuration) { benchmark in
        guard let (ours, base, cleanUp) = make() else { return }
        defer { cleanUp() }
        func time(_ body: () -> Void) -> UInt64 {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return DispatchTime.now().uptimeNanoseconds - start
        }
        for _ in benchmark.scaledIterations {
            var oursTime: UInt64 = 0, baseTime: UInt64 = 0
            for side in pairOrder {
                if side { oursTime += time(ours) } else { baseTime += time(base) }
            }
            benchmark.measurement(pairedRatio, Int((Double(oursTime) / Double(max(baseTime, 1)) * 100).rounded()))
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

    /// One workload on every engine; `rawProtected` nil where the protected baseline is the
    /// raw one (W1) or has no meaning.
    func trio(
        _ workload: String,
        ours: (@Sendable (JSContext) -> Void)?,
        raw: @escaping @Sendable (OpaquePointer) -> Void,
        rawProtected: (@Sendable (OpaquePointer) -> Void)? = nil,
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
            if let rawProtected { paired(workload, ours: ours, raw: rawProtected, against: "paired-protected") }
        }
        func baseline(_ engine: String, _ body: @escaping @Sendable (OpaquePointer) -> Void) {
            Benchmark("\(workload) [\(engine)]") { benchmark in
                guard let state = raw_create() else { return }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { body(state) }
                benchmark.stopMeasurement()
                raw_destroy(state)
            }
        }
        baseline("raw", raw)
        if let rawProtected { baseline("rawp", rawProtected) }
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

    // W2–W9. The JavaScriptCore-spelled rows and their typed conveniences share baselines.
    let calls = Int32(Batch.calls), properties = Int32(Batch.properties), entries = Int32(Batch.entries)
    trio("W2 evaluate 1+1",
         ours: { blackHole(Ours.evaluate($0, count: Batch.evaluations)) },
         raw: { blackHole(raw_eval($0, Int32(Batch.evaluations))) },
         rawProtected: { blackHole(rawp_eval($0, Int32(Batch.evaluations))) },
         jsc: { blackHole(jsc_eval($0, Int32(Batch.evaluations))) })
    trio("W3 fib(25)",
         ours: { blackHole(Ours.fib($0)) },
         raw: { blackHole(raw_fib($0)) },
         rawProtected: { blackHole(rawp_fib($0)) },
         jsc: { blackHole(jsc_fib($0)) })
    for (workload, body) in [
        ("W4 typed host function called from JS", Ours.hostCalls),
        ("W4 untyped host function called from JS", Ours.untypedHostCalls),
    ] {
        trio(workload,
             ours: { blackHole(body($0, Batch.calls)) },
             raw: { blackHole(raw_host_calls($0, calls)) },
             rawProtected: { blackHole(rawp_host_calls($0, calls)) },
             jsc: { blackHole(jsc_host_calls($0, calls)) })
    }
    for (workload, body) in [
        ("W5 JS function called from the host", Ours.jsCalls),
        ("W5 typed JS function call from the host", Ours.typedJSCalls),
    ] {
        trio(workload,
             ours: { blackHole(body($0, Batch.calls)) },
             raw: { blackHole(raw_js_calls($0, calls)) },
             rawProtected: { blackHole(rawp_js_calls($0, calls)) },
             jsc: { blackHole(jsc_js_calls($0, calls)) })
    }
    // The method looked up on the global object for every call, in every column.
    trio("W5b JS method invoked from the host",
         ours: { blackHole(Ours.methodCalls($0, count: Batch.calls)) },
         raw: { blackHole(raw_method_calls($0, calls)) },
         rawProtected: { blackHole(rawp_method_calls($0, calls)) },
         jsc: { blackHole(jsc_method_calls($0, calls)) })
    for (workload, body) in [
        ("W6 property set+get from the host", Ours.properties),
        ("W6b global subscript set+get from the host", Ours.globalSubscripts),
        ("W6 typed property set+get from the host", Ours.typedProperties),
    ] {
        trio(workload,
             ours: { blackHole(body($0, Batch.properties)) },
             raw: { blackHole(raw_properties($0, properties)) },
             rawProtected: { blackHole(rawp_properties($0, properties)) },
             jsc: { blackHole(jsc_properties($0, properties)) })
    }
    trio("W7 10k-entry object host to JS",
         ours: { Ours.objectToJS($0) },
         raw: { blackHole(raw_object_to_js($0, entries)) },
         rawProtected: { blackHole(rawp_object_to_js($0, entries)) },
         jsc: { blackHole(jsc_object_to_js($0, entries)) })
    trio("W7 10k-entry object JS to host",
         // toObject(): [String: Any], like the JSON route; toDictionary() re-keys to AnyHashable.
         ours: { blackHole(Ours.objectToHost($0)) },
         raw: { blackHole(raw_object_to_host($0, entries)) },
         rawProtected: { blackHole(rawp_object_to_host($0, entries)) },
         jsc: { blackHole(jsc_object_to_host($0, entries)) })
    trio("W7 10k-entry object host to JS via JSON",
         ours: { Ours.jsonToJS($0) },
         raw: { blackHole(raw_json_to_js($0, entries)) },
         rawProtected: { blackHole(rawp_json_to_js($0, entries)) },
         jsc: { blackHole(jsc_json_to_js($0, entries)) })
    trio("W7 10k-entry object JS to host via JSON",
         ours: { blackHole(Ours.jsonToHost($0)) },
         raw: { blackHole(raw_json_to_host($0, entries)) },
         rawProtected: { blackHole(rawp_json_to_host($0, entries)) },
         jsc: { blackHole(jsc_json_to_host($0, entries)) })
    trio("W8 1 MiB string host to JS",
         ours: { Ours.stringToJS($0) },
         raw: { state in bigString.withCString { blackHole(raw_string_to_js(state, $0, bigString.utf8.count)) } },
         rawProtected: { state in bigString.withCString { blackHole(rawp_string_to_js(state, $0, bigString.utf8.count)) } },
         jsc: { state in bigString.withCString { blackHole(jsc_string_to_js(state, $0, bigString.utf8.count)) } })
    trio("W8 1 MiB string JS to host",
         ours: { blackHole(Ours.stringToHost($0)) },
         raw: { blackHole(raw_string_to_host($0)) },
         rawProtected: { blackHole(rawp_string_to_host($0)) },
         jsc: { blackHole(jsc_string_to_host($0)) })
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
    /// One iteration: a script queues n callbacks with `setTimeout(tick, 0)` or
    /// `setImmediate(tick)` (as scripts/w11-node.js does), and the loop runs them.
    func loopBenchmark(_ name: String, scheduling scheduler: String) {
        Benchmark(name) { benchmark in
            let context = makeOurs()
            let loop = JSEventLoop(context: context)
            context.evaluateScript(LoopWorkloads.script)
            let schedule: JSValue = context.objectForKeyedSubscript(scheduler)
            for _ in benchmark.scaledIterations {
                schedule.call(withArguments: [Batch.timers])
                try? loop.run()
            }
            blackHole(context.objectForKeyedSubscript("fired").toDouble())
        }
    }
    loopBenchmark("W11 100k setTimeout(f, 0) callbacks [ours]", scheduling: "timeouts")
    loopBenchmark("W11 100k setImmediate callbacks [ours]", scheduling: "immediates")
    // Another thread posts 10k pieces of work, each calling a JS function, to the loop's own
    // thread; the iteration ends when the last has run.
    Benchmark("W11 10k posts from another thread [ours]") { benchmark in
        let context = makeOurs()
        let loop = JSEventLoop(context: context)
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
         ours: { blackHole(Ours.exported($0, count: Batch.exportedUses)) },
         raw: { blackHole(raw_exported($0, Int32(Batch.exportedUses))) },
         rawProtected: { blackHole(rawp_exported($0, Int32(Batch.exportedUses))) },
         jsc: { blackHole(jsc_exported($0, Int32(Batch.exportedUses))) })

    // W16: a 1,000-element array of a 10-field struct, by JSValueEncoder/JSValueDecoder ("ours"),
    // by JSON text in our engine ("json": JSONEncoder + JSON.parse, JSON.stringify + JSONDecoder)
    // and by JSON text in JavaScriptCore ("jsc": the same Swift coders, its C API's JSON
    // functions). "[paired-json]": ours against our JSON route, back to back per sample.
    func codables(_ workload: String, ours: @escaping @Sendable (JSContext) -> Void, json: @escaping @Sendable (JSContext) -> Void,
                  jsc: @escaping @Sendable (OpaquePointer) -> Void) {
        for (engine, body) in [("ours", ours), ("json", json)] {
            Benchmark("\(workload) [\(engine)]") { benchmark in
                let context = makeOurs()
                Codables.encode(context)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { body(context) }
                benchmark.stopMeasurement()
            }
        }
        Benchmark("\(workload) [jsc]") { benchmark in
            guard let state = jsc_create() else { return }
            jsc_json_text_to_global(state, recordsJSON, recordsJSON.utf8.count)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { jsc(state) }
            benchmark.stopMeasurement()
            jsc_destroy(state)
        }
        pairedRatios("\(workload) [paired-json]") {
            let context = makeOurs()
            Codables.encode(context)
            return ({ ours(context) }, { json(context) }, {})
        }
    }
    codables("W16 1k structs host to JS",
             ours: { Codables.encode($0) },
             json: { Codables.encodeViaJSON($0) },
             jsc: { state in
                 let text = (try? JSONEncoder().encode(records)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
                 jsc_json_text_to_global(state, text, text.utf8.count)
             })
    codables("W16 1k structs JS to host",
             ours: { blackHole(Codables.decode($0)) },
             json: { blackHole(Codables.decodeViaJSON($0)) },
             jsc: { state in
                 var length = 0
                 guard let text = jsc_global_to_json_text(state, &length) else { return }
                 defer { free(text) }
                 blackHole(try? JSONDecoder().decode([Record].self, from: Data(bytes: text, count: length)))
             })
}
