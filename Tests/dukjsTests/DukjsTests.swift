import ChildProcess
import Foundation
import Testing

/// Runs the built `dukjs` executable end to end.
@Suite("dukjs")
struct DukjsTests {
    static var executable: URL {
        Bundle.main.bundleURL.appendingPathComponent("dukjs")
    }

    func run(_ arguments: [String], input: String? = nil) throws -> ChildProcess.Output {
        try ChildProcess.run(Self.executable, arguments, input: input)
    }

    @Test func evalPrintsTheResult() throws {
        #expect(try run(["eval", "2 + 2"]).stdout == "4\n")
        #expect(try run(["eval", "'text'"]).stdout == "text\n")
        #expect(try run(["eval", "undefined"]).stdout == "undefined\n")
        // Objects as the REPL and `node -p` show them (one renderer: the console's inspect).
        #expect(try run(["eval", "({a: [1, 'two'], b: null})"]).stdout == "{ a: [ 1, 'two' ], b: null }\n")
        #expect(try run(["eval", "({a:1, b:[1,2], s:'x'})"]).stdout == "{ a: 1, b: [ 1, 2 ], s: 'x' }\n")
        #expect(try run(["eval", "(function named() {})"]).stdout == "[Function: named]\n")
        #expect(try run(["eval", "var c = {}; c.c = c; c"]).stdout == "<ref *1> { c: [Circular *1] }\n")
        #expect(try run(["eval", "new Date(0)"]).stdout == "1970-01-01T00:00:00.000Z\n")
        #expect(try run(["eval", "Promise.resolve(5)"]).stdout == "Promise { 5 }\n")
        #expect(try run(["eval", "new Promise(function () {})"]).stdout == "Promise { <pending> }\n")
        // A console the script put in its place is not overwritten to render the result.
        let replaced = try run(["eval", "console = { mine: true }; setTimeout(function () { process.exitCode = console.mine ? 7 : 1 }, 0); [1, 2]"])
        #expect(replaced.stdout == "1,2\n")
        #expect(replaced.status == 7)
        #expect(try run(["eval", "'😀'.length"]).stdout == "2\n")
    }

    /// `dukjs eval CODE` alone skips the argument parser (start-up time); with options, or code
    /// that looks like an option, it is parsed. Both must behave the same.
    @Test func evalWithoutOptionsMatchesTheParsedPath() throws {
        for code in ["2 + 2", "({a: 1})", "throw new RangeError('r')", "1 +", "'\u{0}x'", ""] {
            let fast = try run(["eval", code])
            let parsed = try run(["eval", "--time-limit", "10", code])
            #expect(fast.status == parsed.status, "\(code)")
            #expect(fast.stdout == parsed.stdout, "\(code)")
            #expect(fast.stderr == parsed.stderr, "\(code)")
        }
        // Code that starts with "-" is code (`-1`, `-x`); only option spellings are options.
        #expect(try run(["eval", "-1"]).stdout == "-1\n")
        let optionLike = try run(["eval", "--frobnicate"])
        #expect(optionLike.status == 64)
        #expect(optionLike.stderr.contains("Usage: dukjs eval"))
        #expect(try run(["eval", "--", "-1"]).stdout == "-1\n")
        #expect(try run(["eval", "1", "2"]).status == 64)
    }

    @Test func runExecutesAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dukjs-\(UUID()).js")
        try "var x = 20;\nconsole.log(x * 2 + 2)\nx".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        // A module: its completion value is not printed (as with Node).
        let output = try run(["run", file.path])
        #expect(output.status == 0)
        #expect(output.stdout == "42\n")
        #expect(try run(["run", "-"], input: "console.log('from stdin'); 'not printed'").stdout == "from stdin\n")
    }

    @Test func uncaughtExceptionsGoToStandardErrorWithAStack() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dukjs-\(UUID()).js")
        try "function fail() {\n  throw new TypeError('bad input')\n}\nfail()".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try run(["run", file.path])
        #expect(output.status == 1)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "\(file.path):2: TypeError: bad input\n    at fail@\(file.path):2\n    at @\(file.path):4\n")
        let thrown = try run(["eval", "throw 42"])
        #expect(thrown.status == 1)
        #expect(thrown.stderr == "Uncaught 42\n")
        let syntax = try run(["eval", "1 +"])
        #expect(syntax.status == 1)
        #expect(syntax.stderr.hasPrefix("Uncaught SyntaxError: Expression expected. (line 1, end of input)"))
    }

    @Test func limits() throws {
        let timeout = try run(["eval", "--time-limit", "0.05", "while (true) {}"])
        #expect(timeout.status == 1)
        #expect(timeout.stderr.hasPrefix("Uncaught RangeError: execution timeout"))
        let memory = try run(["eval", "--memory-limit", "1M", "var s = 'x'; for (;;) s += s"])
        #expect(memory.status == 1)
        #expect(memory.stderr.hasPrefix("Uncaught RangeError: memory limit exceeded (line 1)\n"))
        #expect(memory.stderr.contains("\n    at global code@:1"))
        #expect(try run(["eval", "--memory-limit", "64M", "--time-limit", "5", "1 + 1"]).stdout == "2\n")
    }

    @Test(arguments: ["9223372036854775807", "9223372036854775806", "8191G"])
    func hugeMemoryLimitsNeverTrap(limit: String) throws {
        // Added to the start-up usage, a limit near Int.max overflowed ("arithmetic overflow",
        // a trap); it saturates now.
        let output = try run(["eval", "--memory-limit", limit, "[1, 2, 3].length"])
        #expect(output.status == 0)
        #expect(output.stdout == "3\n")
    }

    @Test(arguments: [
        ["eval", "--time-limit", "0", "1"], ["eval", "--time-limit", "abc", "1"], ["eval", "--memory-limit", "-5", "1"],
        ["eval", "--memory-limit", "12Q", "1"], ["eval", "--memory-limit", "99999999999G", "1"], ["run", "/nonexistent/file.js"],
        ["run"], ["frobnicate"],
    ])
    func badArgumentsAreRefusedClearly(arguments: [String]) throws {
        let output = try run(arguments)
        #expect(output.status != 0)
        #expect(output.stderr.isEmpty == false)
        #expect(output.stdout.isEmpty)
    }

    /// The command-line cases of issue 14: each with its exit status and output.
    @Test func standardInputNegativeNumbersAndVersion() throws {
        #expect(try run(["eval", "-"], input: "6 * 7").stdout == "42\n")
        let fromStdin = try run(["eval", "-"], input: "null.x")
        #expect(fromStdin.status == 1)
        #expect(fromStdin.stderr.hasPrefix("Uncaught TypeError: cannot read property 'x' of null (<stdin>:1)\n"))
        #expect(try run(["run", "-"], input: "\nnull.x").stderr.hasPrefix("<stdin>:2: TypeError: cannot read property 'x' of null\n"))
        #expect(try run(["eval", "-1"]).stdout == "-1\n")
        #expect(try run(["eval", "-1 + 3"]).stdout == "2\n")
        #expect(try run(["eval", "--time-limit", "1", "--", "-1"]).stdout == "-1\n")
        let negativeLimit = try run(["eval", "--time-limit", "-1", "1"])
        #expect(negativeLimit.status != 0)
        #expect(negativeLimit.stderr.contains("--time-limit must be a positive number of seconds"))
        let negativeMemory = try run(["eval", "--memory-limit", "-1", "1"])
        #expect(negativeMemory.status != 0)
        #expect(negativeMemory.stderr.contains("is not a byte count"))
        let version = try run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("dukjs ") && version.stdout.contains("Duktape 2.7.0"))
    }

    @Test func directoriesAndSyntaxErrorsAreReportedOnce() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let output = try run(["run", directory])
        #expect(output.status != 0)
        #expect(output.stderr.contains("cannot read \(directory): is a directory"))
        #expect(!output.stderr.contains("NSCocoaErrorDomain"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dukjs-\(UUID()).js")
        try "var a = 1;\nvar = 2;".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let syntax = try run(["run", file.path])
        #expect(syntax.status == 1)
        #expect(syntax.stderr.hasPrefix("\(file.path):2: SyntaxError: "))
    }

    @Test func demoShowsASession() throws {
        let output = try run(["demo"])
        #expect(output.status == 0)
        for section in ["== Evaluate the embedded script", "== Swift → JavaScript", "== JavaScript → Swift", "== An exception", "== Limits"] {
            #expect(output.stdout.contains(section))
        }
        #expect(output.stdout.contains("result[\"total\"] → 17.85"))
        #expect(output.stdout.contains("message → item gift-card has no price"))
        #expect(output.stdout.contains("sourceURL → demo://pricing-rules.js"))
        #expect(output.stdout.contains("RangeError: execution timeout"))
    }
}
