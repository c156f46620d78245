// W13, modern JavaScript. Three measurements, each printing one JSON object:
//
//   modern-probe ready CACHE_DIR      the first lowering of a process: the compiler VM's start
//                                     (from the image in CACHE_DIR when one is there, else
//                                     compiling TypeScript and writing the image), in ms; the
//                                     source is new each time (never in the disk cache)
//   modern-probe module ES2017 ES5 CACHE_DIR
//                                     a 10 KB ES2017 module: its first run (lowered, the compiler
//                                     VM started from CACHE_DIR's image; CACHE_DIR must not hold
//                                     the module's lowering), its later runs (the lowering kept
//                                     in memory), and the hand-written ES5 module's runs, in ms
//   modern-probe maps                 Map and Set operations against plain property reads and
//                                     writes, in ns an operation, timed in one context
import DuktapeCore
import Foundation

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

/// Evaluates a CommonJS-shaped module (it assigns exports.run) in a fresh context and calls run().
func runModule(_ source: String, name: String) throws -> String {
    let context = JSContext()!
    context.setObject(JSValue(newObjectIn: context), forKeyedSubscript: "exports")
    try context.evaluate(source, sourceName: name)
    return try context.objectForKeyedSubscript("exports").forProperty("run").call().toString()
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "ready":
    JSTranspiler.cacheDirectory = URL(fileURLWithPath: arguments[2])
    let source = "let a = '\(UUID().uuidString)'"
    let time = try milliseconds { _ = try JSTranspiler.transpile(source) }
    emit(["ready_ms": time])
case "module":
    JSTranspiler.cacheDirectory = URL(fileURLWithPath: arguments[4])
    let modern = try String(contentsOfFile: arguments[2], encoding: .utf8)
    let es5 = try String(contentsOfFile: arguments[3], encoding: .utf8)
    var expected = ""
    let first = try milliseconds { expected = try runModule(modern, name: "module.es2017.js") }
    var cached: [Double] = []
    var plain: [Double] = []
    for _ in 0..<30 {
        cached.append(try milliseconds {
            guard try runModule(modern, name: "module.es2017.js") == expected else { fatalError("ES2017 run differs") }
        })
        plain.append(try milliseconds {
            guard try runModule(es5, name: "module.es5.js") == expected else { fatalError("ES5 run differs") }
        })
    }
    var evaluateOnly: [Double] = []
    for _ in 0..<10 {
        let context = JSContext()!
        context.setObject(JSValue(newObjectIn: context), forKeyedSubscript: "exports")
        evaluateOnly.append(try milliseconds { try context.evaluate(es5, sourceName: "module.es5.js") })
    }
    let lowering = try milliseconds { _ = try JSTranspiler.transpile(modern + "\n//", fileName: "again.js") }
    emit([
        "first_ms": first, "cached_ms": median(cached), "es5_ms": median(plain),
        "lowering_ms": lowering, "bytes": modern.utf8.count, "es5_evaluate_ms": median(evaluateOnly),
    ])
case "maps":
    let context = JSContext()!
    let script = """
        (function () {
          var N = 200000, i, keys = [], o = {}, m = new Map(), s = new Set(), sum = 0, t, out = {};
          for (i = 0; i < 1000; i++) keys.push('k' + i);
          function time(name, body) { var best = Infinity; for (var r = 0; r < 5; r++) { var t0 = Date.now(); body(); var t = Date.now() - t0; if (t < best) best = t; } out[name] = best * 1e6 / N; }
          time('object_set', function () { for (var i = 0; i < N; i++) o[keys[i % 1000]] = i; });
          time('map_set', function () { for (var i = 0; i < N; i++) m.set(keys[i % 1000], i); });
          time('object_get', function () { for (var i = 0; i < N; i++) sum += o[keys[i % 1000]]; });
          time('map_get', function () { for (var i = 0; i < N; i++) sum += m.get(keys[i % 1000]); });
          time('object_has', function () { for (var i = 0; i < N; i++) sum += (keys[i % 1000] in o) ? 1 : 0; });
          time('set_add', function () { for (var i = 0; i < N; i++) s.add(keys[i % 1000]); });
          time('set_has', function () { for (var i = 0; i < N; i++) sum += s.has(keys[i % 1000]) ? 1 : 0; });
          time('native_call', function () { for (var i = 0; i < N; i++) sum += Math.abs(i); });
          return JSON.stringify(out);
        })()
        """
    print(try context.evaluate(script).toString() ?? "{}")
default:
    FileHandle.standardError.write(Data("usage: modern-probe ready CACHE_DIR | module ES2017 ES5 CACHE_DIR | maps\n".utf8))
    exit(2)
}
