import DuktapeCore
import DuktapeRuntime
import Foundation

// The runtime in one program: an event loop on its own thread, timers, a promise chain, a JS
// promise awaited from Swift, a Swift async function awaited from JS, console output, and a
// module required from the folder next to this file (scripts/).

/// Swift's own lines, written unbuffered like the console's, so the two interleave in order.
func say(_ text: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
}

/// The example, in a function: its values are released when it returns (top-level code's would
/// live until exit).
func runExample() async throws {
    let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("scripts")
    let context = JSContext()!
    context.exceptionHandler = { _, exception in say("uncaught: \(exception?.toString() ?? "?")") }
    let loop = JSEventLoop(context: context)
    _ = Console(context: context, output: .standardStreams)
    let modules = ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: scripts))!

    // A Swift async function: JavaScript gets a promise, settled when the task finishes.
    context.setObject(
        JSValue(newFunctionIn: context) { (city: String) async throws -> String in
            try await Task.sleep(for: .milliseconds(5))   // stands for a network call
            return "sunny in \(city)"
        }, forKeyedSubscript: "fetchWeather" as NSString)

    try loop.start()

    // main.js exports a promise; awaiting it from Swift lets the loop run its timers meanwhile.
    let chain = try await loop.submit { _ in try modules.runMain("./main.js") }
    let answer = try await chain.awaited(as: Int.self)
    say("Swift awaited the chain: \(answer)")

    // JavaScript awaiting Swift: the promise from fetchWeather, chained in script.
    let weather = try await loop.evaluate("""
        fetchWeather('Lisbon').then(function (report) {
            console.log('JS got from Swift: ' + report);
            return report.length;
        })
        """)
    say("the script's promise settled with \(weather.toInt32())")

    // Errors in callbacks go to the exception handler; the loop goes on.
    _ = try await loop.evaluate("setTimeout(function () { throw new Error('in a timer') }, 1); 0")
    let last = try await loop.evaluate("new Promise(function (resolve) { setTimeout(resolve, 5, require('./lib/greeting').greet('again')) })")
    say(last.toString())

    loop.stop()
    say("stopped: \(loop.isStopped)")
}

try await runExample()
