import ArgumentParser
import DuktapeCore
import DuktapeRuntime
import Foundation

extension DukJS {
    struct Repl: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read, evaluate and print JavaScript interactively.",
            discussion: """
                Incomplete input continues on the next line. Results are shown as Node shows them, and \
                _ holds the last one. Commands: .help, .exit, .load FILE, .break. Ctrl-C cancels the \
                input, or interrupts a running script; Ctrl-D exits. On a terminal, lines can be edited \
                and the history is kept in ~/.dukjs_history ($DUKJS_HISTORY names another file; empty: \
                none); output printed while you type (a timer's console.log) appears above the prompt, \
                which is drawn again with what you typed. With standard input not a terminal, there is \
                no prompt and no escape codes.
                """)

        @Option(
            name: .long, parsing: .unconditional,
            help: ArgumentHelp("Heap memory limit in bytes (suffixes K, M, G allowed).", valueName: "bytes"),
            transform: { try ByteCount(parsing: $0).bytes }
        )
        var memoryLimit: Int?

        func run() throws {
            let session = try ReplSession(limits: Limits(memoryLimit: memoryLimit), terminal: isatty(STDIN_FILENO) == 1)
            throw ExitCode(session.run())
        }
    }
}

/// A REPL session: evaluation on the calling thread, the event loop between inputs (on its own
/// thread on a terminal, so timers fire while you type), and Ctrl-C interrupting a running
/// script through the VM's time limit, measured on a clock that the interrupt moves forward.
final class ReplSession {
    private let host: ScriptHost
    private let clock = ManualClock()
    private let terminal: Bool
    private let editor: LineEditor?
    private let interrupted = Interrupt()
    private var signalSource: (any DispatchSourceSignal)?
    /// The time limit that the interrupt passes: long enough never to end a script by itself.
    private static let interruptibleLimit: TimeInterval = 1_000_000

    init(limits: Limits, terminal: Bool) throws {
        self.terminal = terminal
        host = try ScriptHost(limits: limits, arguments: [], scriptPath: nil, interactive: true, clock: clock)
        host.context.virtualMachine.executionTimeLimit = Self.interruptibleLimit
        editor = terminal ? LineEditor(historyFile: LineEditor.defaultHistoryFile) : nil
    }

    func run() -> Int32 {
        if terminal {
            printLine("Welcome to dukjs \(DukJS.version) (Duktape 2.7.0). Type .help for more information.")
            watchInterrupts()
            do { try host.loop.start() } catch { ScriptHost.printError("dukjs: \(error)") }
        }
        defer { if terminal { host.loop.stop() } }
        var buffer = ""
        var lastInterruptWasEmpty = false
        while true {
            interrupted.reset()  // a Ctrl-C from now on is for the next evaluation
            let prompt = buffer.isEmpty ? "> " : "... "
            let input: LineEditor.Input
            if let editor {
                input = editor.readLine(prompt: prompt)
            } else if let line = Swift.readLine(strippingNewline: true) {
                input = .line(line)
            } else {
                input = .endOfInput
            }
            switch input {
            case .endOfInput:
                return finishPipedInput()
            case .interrupt(let wasEmpty):
                if wasEmpty && buffer.isEmpty {
                    if lastInterruptWasEmpty { return 0 }
                    printLine("(To exit, press Ctrl+C again or Ctrl+D or type .exit)")
                }
                lastInterruptWasEmpty = wasEmpty && buffer.isEmpty
                buffer = ""
                continue
            case .line(let line):
                lastInterruptWasEmpty = false
                if buffer.isEmpty, line.hasPrefix(".") {
                    if let status = command(line) { return status }
                    continue
                }
                if line == ".break" {
                    buffer = ""
                    continue
                }
                buffer += line + "\n"
                if evaluate(buffer, name: "REPL") { buffer = "" }
            }
        }
    }

    /// Piped input ended: the loop runs until idle, as `dukjs run` does.
    private func finishPipedInput() -> Int32 {
        if !terminal {
            do { try host.loop.run() } catch { ScriptHost.printError("dukjs: \(error)") }
        }
        return 0
    }

    /// Evaluates `source`; returns false when it is incomplete (the compiler stopped at the end
    /// of the input), so that the next line continues it.
    private func evaluate(_ source: String, name: String) -> Bool {
        interrupted.setEvaluating(true)
        defer { interrupted.setEvaluating(false) }
        // Ctrl-C between the input and this point: the script does not run.
        if interrupted.isRequested {
            ScriptHost.printError("Interrupted: script execution was cancelled by Ctrl-C")
            return true
        }
        do {
            let value = try host.context.evaluate(source, sourceName: name)
            host.context.globalObject.setValue(value, forProperty: "_")
            printLine((try? host.console?.inspect(value)) ?? value.description)
        } catch let exception as JSException {
            if exception.name == "SyntaxError", exception.message.contains("end of input"), name == "REPL" {
                return false
            }
            if interrupted.isRequested {
                ScriptHost.printError("Interrupted: script execution was cancelled by Ctrl-C")
            } else {
                ScriptHost.printError("Uncaught " + (exception.name.map { "\($0): \(exception.message)" } ?? exception.message))
            }
        } catch {
            ScriptHost.printError("Uncaught \(error)")
        }
        if !terminal { try? host.loop.runReady() }
        return true
    }

    /// A `.command`; returns an exit status to end the session.
    private func command(_ line: String) -> Int32? {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        switch parts[0] {
        case ".exit":
            return 0
        case ".help":
            printLine("""
                .break    Leave a multi-line input
                .exit     Exit the REPL
                .help     Show this list
                .load     Run a file in this session: .load FILE
                Ctrl-C cancels the input or interrupts a running script; Ctrl-D exits.
                """)
        case ".break":
            break
        case ".load":
            guard parts.count == 2 else {
                ScriptHost.printError(".load needs a file name")
                return nil
            }
            let path = parts[1].trimmingCharacters(in: .whitespaces)
            guard let source = try? String(contentsOfFile: path, encoding: .utf8) else {
                ScriptHost.printError("Failed to load: \(path)")
                return nil
            }
            _ = evaluate(source, name: URL(fileURLWithPath: path).standardizedFileURL.path)
        default:
            ScriptHost.printError("Invalid REPL keyword \(parts[0]); .help lists them")
        }
        return nil
    }

    /// SIGINT while a script runs (the terminal is not in raw mode then): the VM's clock jumps
    /// past the deadline, so the script ends with a timeout, reported as an interrupt. The
    /// deadline is set from the clock when the script starts, so a Ctrl-C just before that
    /// would be absorbed: the clock is pushed again every 20 ms while the interrupted
    /// evaluation runs.
    private func watchInterrupts() {
        signal(SIGINT, SIG_IGN)
        // A parent may have started us with SIGINT blocked (the mask is inherited).
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let clock = self.clock
        let interrupted = self.interrupted
        source.setEventHandler {
            interrupted.request()
            Self.push(clock, until: interrupted)
        }
        source.resume()
        signalSource = source
    }

    private static func push(_ clock: ManualClock, until interrupted: Interrupt) {
        clock.advance(by: .seconds(2 * interruptibleLimit))
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
            if interrupted.isInterruptingAnEvaluation { push(clock, until: interrupted) }
        }
    }
}

/// Ctrl-C's state, set from the signal handler's queue and read by the REPL.
final class Interrupt: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false
    private var evaluating = false

    /// At the prompt: earlier Ctrl-Cs are spent.
    func reset() { lock.withLock { requested = false } }
    /// Ctrl-C (the signal handler's queue).
    func request() { lock.withLock { requested = true } }
    var isRequested: Bool { lock.withLock { requested } }
    func setEvaluating(_ value: Bool) { lock.withLock { evaluating = value } }
    /// Whether an evaluation that Ctrl-C interrupted is still running.
    var isInterruptingAnEvaluation: Bool { lock.withLock { requested && evaluating } }
}
