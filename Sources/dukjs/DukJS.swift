import ArgumentParser
import DuktapeCore
import Foundation

/// `dukjs`: run JavaScript from the command line on DuktapeCore.
///
/// The tool is a thin client of the public API: every engine behaviour lives in DuktapeCore.
@main
struct DukJS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dukjs",
        abstract: "Run JavaScript with DuktapeCore (Duktape 2.7, JavaScriptCore's API).",
        discussion: """
            With no arguments: a REPL on a terminal, else the script on standard input. \
            `dukjs FILE [ARGS…]` (options before FILE allowed) is `dukjs run FILE [ARGS…]`, as \
            `node FILE` is; a file named like a subcommand is written with its path (./repl).

            Language: ES2020. Duktape parses ES5.1; other syntax is lowered to ES5 by TypeScript's \
            compiler (Debian's node-typescript, or DUKTAPECORE_TYPESCRIPT), which starts on first \
            need. Errors name the original lines.
            """,
        version: "dukjs \(version) (DuktapeCore \(version), Duktape 2.7.0)",
        subcommands: [Run.self, Eval.self, Repl.self, Fetch.self, Demo.self]
    )

    /// The tool's and library's version (the engine is pinned to Duktape 2.7.0 at compile time).
    static let version = "0.1.0"

    /// `dukjs eval CODE` with no options, the commonest call (and W0 of the benchmarks), skips
    /// the argument parser: its reflection and protocol-conformance lookups were most of the
    /// instructions of the whole run (callgrind). So does code that starts with "-" (`-1`, `-x`),
    /// which the parser would take for an option; `-` itself (standard input), `-h` and anything
    /// spelled like a long option (`--help`, `--version`, `--frobnicate`) go to the parser.
    /// `dukjs` alone is the REPL on a terminal, and runs standard input otherwise (as Node does);
    /// `dukjs FILE …` is `dukjs run FILE …` (`implicitRun`).
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 1 {
            if isatty(STDIN_FILENO) == 1 {
                main(["repl"])
            } else {
                main(["run", "-"])
            }
            return
        }
        if let run = implicitRun(Array(arguments.dropFirst())) {
            main(run)
            return
        }
        guard arguments.count == 3, arguments[1] == "eval", arguments[2] != "-", arguments[2] != "-h",
              !arguments[2].hasPrefix("--")
        else {
            main(nil)
            return
        }
        do {
            let host = try ScriptHost(limits: Limits(), arguments: [], scriptPath: nil)
            Foundation.exit(host.runScript(arguments[2], sourceName: nil, printResult: true))
        } catch {
            exit(withError: error)
        }
    }
}

extension DukJS {
    /// The words the top-level command keeps: its subcommands, `help`, and its own options.
    private static let topLevelWords: Set<String> = ["run", "eval", "repl", "fetch", "demo", "help", "-h", "--help", "--version"]

    /// `words` as `run`'s when they do not start with a subcommand or a top-level option, so that
    /// `dukjs main.js one`, `dukjs --time-limit 2 main.js` and `dukjs -` run as with `node`
    /// (nil: the words go to the parser as they are).
    static func implicitRun(_ words: [String]) -> [String]? {
        guard let first = words.first, !topLevelWords.contains(first) else { return nil }
        return ["run"] + words
    }
}

/// Options shared by the commands that run scripts.
struct EngineOptions: ParsableArguments {
    // `.unconditional`: the next word is the value even when it starts with "-", so that
    // `--time-limit -1` says what is wrong with -1 instead of "missing value".
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Heap memory limit in bytes (suffixes K, M, G allowed).", valueName: "bytes"),
        transform: { try ByteCount(parsing: $0).bytes }
    )
    var memoryLimit: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Execution time limit in seconds.", valueName: "seconds"))
    var timeLimit: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "What an unhandled rejection does, as in Node: throw (the default), strict, warn, warn-with-error-code or none.",
            valueName: "mode"))
    var unhandledRejections: UnhandledRejectionMode = .throw

    @Flag(name: .long, help: "Give the script the browser globals with their network: fetch, WebSocket, URL, TextEncoder, Blob, EventTarget…")
    var web = false

    func validate() throws {
        if let timeLimit, !(timeLimit > 0 && timeLimit.isFinite) {
            throw ValidationError("--time-limit must be a positive number of seconds.")
        }
        if let memoryLimit, memoryLimit <= 0 {
            throw ValidationError("--memory-limit must be a positive number of bytes.")
        }
    }

    var limits: Limits { Limits(timeLimit: timeLimit, memoryLimit: memoryLimit) }
}

/// The VM limits a command applies.
struct Limits {
    var timeLimit: Double?
    var memoryLimit: Int?

    /// Applies the limits to `vm`. The memory limit counts from the VM's usage now, so that it
    /// governs the script, not start-up; it saturates (`--memory-limit 9223372036854775807`
    /// means "no practical limit", not a trap).
    func apply(to vm: JSVirtualMachine) {
        vm.executionTimeLimit = timeLimit
        vm.memoryLimit = memoryLimit.map { vm.memoryUsage.addingReportingOverflow($0).overflow ? .max : vm.memoryUsage + $0 }
    }
}

extension DukJS {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a script file as the main module, then its timers and callbacks until idle.",
            discussion: """
                The script sees its arguments in process.argv (after the executable and the script's \
                path), the environment in process.env, and ends with process.exit(code) or when \
                nothing is left to run (status process.exitCode, 0 by default). An uncaught exception \
                or unhandled rejection prints the error and its stack and exits with status 1.
                """)

        @OptionGroup var options: EngineOptions

        @Argument(help: "The script to run (- for standard input).")
        var file: String

        @Argument(parsing: .captureForPassthrough, help: "Arguments for the script (process.argv).")
        var arguments: [String] = []

        func run() throws {
            if file == "-" {
                let host = try ScriptHost(limits: options.limits, arguments: arguments, scriptPath: "-",
                                          unhandledRejections: options.unhandledRejections, web: options.web)
                throw ExitCode(host.runScript(readStandardInput(), sourceName: "<stdin>", printResult: false))
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw RuntimeError("cannot read \(file): no such file")
            }
            guard !isDirectory.boolValue else {
                throw RuntimeError("cannot read \(file): is a directory")
            }
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw RuntimeError("cannot read \(file): permission denied")
            }
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            let host = try ScriptHost(limits: options.limits, arguments: arguments, scriptPath: path,
                                      unhandledRejections: options.unhandledRejections, web: options.web)
            throw ExitCode(host.runMain(path))
        }
    }

    struct Eval: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evaluate code and print its result, then run its timers and callbacks until idle.")

        @Argument(help: "The JavaScript code (- for standard input; -- before code that starts with - and is followed by options).")
        var code: String

        @OptionGroup var options: EngineOptions

        func run() throws {
            let host = try ScriptHost(limits: options.limits, arguments: [], scriptPath: nil,
                                      unhandledRejections: options.unhandledRejections, web: options.web)
            if code == "-" {
                throw ExitCode(host.runScript(readStandardInput(), sourceName: "<stdin>", printResult: true))
            }
            throw ExitCode(host.runScript(code, sourceName: nil, printResult: true))
        }
    }
}

/// Standard input, whole (invalid UTF-8 repaired with U+FFFD).
func readStandardInput() -> String {
    String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
}

/// An error of the tool itself (not of the script), printed by ArgumentParser.
struct RuntimeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A byte count written as a number with an optional K, M or G suffix (powers of 1024).
struct ByteCount {
    let bytes: Int

    init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(trimmed)
        var multiplier = 1
        if let last = digits.last, let scale = multipliers[last] {
            multiplier = scale
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number > 0 else {
            throw ValidationError("'\(text)' is not a byte count (examples: 65536, 512K, 64M).")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw ValidationError("'\(text)' is too large.") }
        self.bytes = bytes
    }
}
