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
        version: "dukjs \(version) (DuktapeCore \(version), Duktape 2.7.0)",
        subcommands: [Run.self, Eval.self, Demo.self]
    )

    /// The tool's and library's version (the engine is pinned to Duktape 2.7.0 at compile time).
    static let version = "0.1.0"

    /// `dukjs eval CODE` with no options, the commonest call (and W0 of the benchmarks), skips
    /// the argument parser: its reflection and protocol-conformance lookups were most of the
    /// instructions of the whole run (callgrind). So does code that starts with "-" (`-1`, `-x`),
    /// which the parser would take for an option; `-` itself (standard input), `-h` and anything
    /// spelled like a long option (`--help`, `--version`, `--frobnicate`) go to the parser.
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, arguments[1] == "eval", arguments[2] != "-", arguments[2] != "-h",
              !arguments[2].hasPrefix("--")
        else {
            main(nil)
            return
        }
        do {
            try runAndPrint(arguments[2], sourceName: nil, context: EngineOptions.makeContext(timeLimit: nil, memoryLimit: nil))
        } catch {
            exit(withError: error)
        }
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

    func validate() throws {
        if let timeLimit, !(timeLimit > 0 && timeLimit.isFinite) {
            throw ValidationError("--time-limit must be a positive number of seconds.")
        }
        if let memoryLimit, memoryLimit <= 0 {
            throw ValidationError("--memory-limit must be a positive number of bytes.")
        }
    }

    /// A fresh context with the limits applied.
    func makeContext() throws -> JSContext {
        try Self.makeContext(timeLimit: timeLimit, memoryLimit: memoryLimit)
    }

    /// A context in a virtual machine of its own (which gives it the heap's own global
    /// environment: no second realm to build), with the limits applied.
    static func makeContext(timeLimit: Double?, memoryLimit: Int?) throws -> JSContext {
        guard let context = JSContext() else {
            throw RuntimeError("could not create a JavaScript heap")
        }
        let vm: JSVirtualMachine = context.virtualMachine
        vm.executionTimeLimit = timeLimit
        // Applied after the context exists, so the limit governs the script, not start-up.
        // Saturating: `--memory-limit 9223372036854775807` means "no practical limit", not a trap.
        vm.memoryLimit = memoryLimit.map { vm.memoryUsage.addingReportingOverflow($0).overflow ? .max : vm.memoryUsage + $0 }
        return context
    }
}

extension DukJS {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run a script file and print its result.")

        @Argument(help: "The script to run (- for standard input).")
        var file: String

        @OptionGroup var options: EngineOptions

        func run() throws {
            if file == "-" {
                try runAndPrint(readStandardInput(), sourceName: "<stdin>", options: options)
                return
            }
            let url = URL(fileURLWithPath: file)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw RuntimeError("cannot read \(file): no such file")
            }
            guard !isDirectory.boolValue else {
                throw RuntimeError("cannot read \(file): is a directory")
            }
            let source: String
            do {
                source = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw RuntimeError("cannot read \(file): \(error.localizedDescription)")
            }
            try runAndPrint(source, sourceName: url.absoluteString, options: options)
        }
    }

    struct Eval: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Evaluate code and print its result.")

        @Argument(help: "The JavaScript code (- for standard input; -- before code that starts with - and is followed by options).")
        var code: String

        @OptionGroup var options: EngineOptions

        func run() throws {
            if code == "-" {
                try runAndPrint(readStandardInput(), sourceName: "<stdin>", options: options)
            } else {
                try runAndPrint(code, sourceName: nil, options: options)
            }
        }
    }
}

/// Standard input, whole (invalid UTF-8 repaired with U+FFFD).
func readStandardInput() -> String {
    String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
}

/// Evaluates `source`, prints its value to standard output, or the exception to standard error
/// (exit status 1). `sourceName` is the script's source URL in errors and stacks.
func runAndPrint(_ source: String, sourceName: String?, options: EngineOptions) throws {
    try runAndPrint(source, sourceName: sourceName, context: options.makeContext())
}

/// `runAndPrint(_:sourceName:options:)` in a context already made.
func runAndPrint(_ source: String, sourceName: String?, context: JSContext) throws {
    do {
        let value = try context.evaluate(source, sourceName: sourceName)
        print(ResultFormatter.format(value))
    } catch let exception as JSException {
        ResultFormatter.report(exception)
        throw ExitCode.failure
    }
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
