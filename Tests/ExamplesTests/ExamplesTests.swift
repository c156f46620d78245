import ChildProcess
import Foundation
import Testing

/// Runs each example executable and checks its whole output, so examples cannot rot.
@Suite("Examples")
struct ExamplesTests {
    /// The loader example's process runs without LeakSanitizer's exit check when the suite runs
    /// under it: its pages are torn down on other threads just after `shutdown()` returns, and
    /// an object still alive at exit that has ever been weakly referenced shows as a leaked
    /// Swift side table (LeakSanitizer cannot read the pointer to it that the object keeps). On
    /// a loaded machine that happened 8 runs in 14. The in-process web tests keep the check.
    func output(of example: String) throws -> String {
        var environment: [String: String] = [:]
        if example == "loader" || example == "bridges", let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] {
            environment["ASAN_OPTIONS"] = options + ":detect_leaks=0"
        }
        let result = try ChildProcess.run(Bundle.main.bundleURL.appendingPathComponent(example), [], environment: environment)
        #expect(result.status == 0)
        return result.stdout + result.stderr
    }

    @Test func async() throws {
        #expect(try output(of: "async") == """
            Hello, timers! (greeting #1)
            microtask: job (before any timer)
            immediate: after this script and its jobs
            timer: 10 ms
            timer: 20 ms
            chain: 42
            Swift awaited the chain: 42
            JS got from Swift: sunny in Lisbon
            the script's promise settled with 15
            uncaught: Error: in a timer
            Hello, again! (greeting #2)
            stopped: true

            """)
    }

    @Test func blocks() throws {
        #expect(try output(of: "blocks") == """
            add(2, 3) = 5
            makeColor({red: 255, green: 128, blue: 0}) = Color(red: 1.00, green: 0.50, blue: 0.00)
            factorial(5) = 120
            this.name = receiver, 3 arguments
            caught in JS: refused by Swift
            caught in Swift: refused by Swift

            """)
    }

    @Test func loader() throws {
        #expect(try output(of: "loader") == """
            GET /api/user.json → 200, name: Ada, languages: ["en", "fr"]
            POST /api/echo → application/json: ["greeting": "olá"]
            upload → 344 bytes of multipart/form-data, parts: file, album
            downloadFile → 1024 bytes, first [0, 1, 2, 3]
            stream started, 4194304 bytes
            progress: 25%
            progress: 50%
            progress: 75%
            progress: 100%
            stream ended: 4194304 bytes in a file

            """)
    }

    @Test func bridges() throws {
        #expect(try output(of: "bridges") == """
            page: $flex.sum(1, 2, 3) → 6
            page: $flex.mirror({x: 1, y: 2}) → {x: -1, y: 2}
            page: $flex.pick('blue') → BLUE (settled later by Swift)
            page: $flex.slow() → TimeoutError: $flex.slow: no result within 50 ms
            page: WebViewJavascriptBridge 'Swift Echo' answered {"hello":"page"}
            Swift: $flex.web.title() → Bridges demo
            Swift: WebViewJavascriptBridge 'JS Echo' answered ["from", "Swift"]

            """)
    }

    @Test func export() throws {
        #expect(try output(of: "export") == """
            OCObj.sum = OCObj.add(2, 3) → calculator.sum = 5
            the same object both ways: true
            new Vector(3, 4).plus(Vector.zero()) → 5, true, [object Vector]
            back in Swift: Vector(x: 3.0, y: 4.0)
            expected error, Vector(1, 2) without new → TypeError: Cannot call a class constructor without |new|
            expected error, v.plus({x: 1, y: 1}) → TypeError: argument 1: Argument does not match Swift class Vector

            """)
    }
}
