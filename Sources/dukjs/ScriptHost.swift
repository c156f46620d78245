import DuktapeCore
import DuktapeRuntime
import Foundation

/// One script run by dukjs: a context with the runtime (event loop, console on the standard
/// streams, `require` on the filesystem, `process`), its error policy, and the exit status.
///
/// As in Node, an uncaught exception (in the main script or any callback) or an unhandled
/// rejection prints the error and ends the process with status 1; `process.exit(code)` ends it
/// at once; otherwise the process exits with `process.exitCode` once the loop is idle.
final class ScriptHost {
    let context: JSContext
    let loop: EventLoop
    /// Set when the host is interactive (the REPL): errors are printed, not fatal.
    let interactive: Bool

    /// `clock`, when given, is the VM's clock for time limits (the REPL moves it to interrupt a
    /// running script).
    init(limits: Limits, arguments: [String], scriptPath: String?, interactive: Bool = false, clock: ManualClock? = nil) throws {
        let vm: JSVirtualMachine = try clock.map { clock in
            guard let vm = JSVirtualMachine(clock: clock) else { throw RuntimeError("could not create a JavaScript heap") }
            return vm
        } ?? {
            guard let vm = JSVirtualMachine() else { throw RuntimeError("could not create a JavaScript heap") }
            return vm
        }()
        guard let context = JSContext(virtualMachine: vm) else { throw RuntimeError("could not create a JavaScript heap") }
        self.context = context
        self.interactive = interactive
        loop = EventLoop(context: context)
        installProcess(arguments: arguments, scriptPath: scriptPath)
        if interactive {
            installConsole()
            installModules()
        } else {
            // Installed on first use: a script that prints nothing starts as fast as before.
            installLazily("console") { $0.installConsole() }
            installLazily("require") { $0.installModules() }
        }
        context.exceptionHandler = { [unowned self] _, exception in
            guard let exception else { return }
            self.uncaught(JSException(exception))
        }
        context.unhandledRejectionHandler = { [unowned self] _, rejection in
            guard rejection.kind == .unhandled else { return }
            self.uncaught(JSException(rejection.reason), inPromise: true)
        }
        limits.apply(to: vm)
    }

    // MARK: - Running

    /// Runs `path` as the main module, then the loop until idle; returns the exit status.
    func runMain(_ path: String) -> Int32 {
        do {
            installModules()
            guard let modules = self.modules else { throw RuntimeError("could not set up require()") }
            try modules.runMain(path)
        } catch let exception as JSException {
            uncaught(exception)
        } catch {
            Self.printError("dukjs: \(error)")
            return 1
        }
        return finish()
    }

    /// Runs `source` as a script named `sourceName`, then the loop until idle; returns the
    /// exit status. `printResult` prints the completion value first, and errors in
    /// `Uncaught …` form (`dukjs eval`).
    func runScript(_ source: String, sourceName: String?, printResult: Bool) -> Int32 {
        do {
            let value = try context.evaluate(source, sourceName: sourceName)
            if printResult { printLine(ResultFormatter.format(value)) }
        } catch let exception as JSException {
            uncaught(exception, evalStyle: printResult)
        } catch {
            Self.printError("dukjs: \(error)")
            return 1
        }
        return finish()
    }

    /// Drives the loop until idle; the exit status is `process.exitCode` (0 by default).
    func finish() -> Int32 {
        do {
            try loop.run()
        } catch {
            Self.printError("dukjs: \(error)")
            return 1
        }
        return exitCode
    }

    var exitCode: Int32 {
        let code = context.objectForKeyedSubscript("process")?.forProperty("exitCode")
        guard let code, code.isNumber, let value = Int32(exactly: code.toDouble()) else { return 0 }
        return value
    }

    // MARK: - Errors

    /// An uncaught exception: printed as `file:line: Name: message` and the stack; fatal
    /// unless the host is interactive. `evalStyle` keeps `dukjs eval`'s `Uncaught …` form.
    func uncaught(_ exception: JSException, inPromise: Bool = false, evalStyle: Bool = false) {
        if evalStyle {
            ResultFormatter.report(exception)
        } else {
            Self.printError(Self.describe(exception, inPromise: inPromise))
        }
        if !interactive { Self.exitNow(1) }
    }

    static func describe(_ exception: JSException, inPromise: Bool = false) -> String {
        var head = exception.name.map { "\($0): \(exception.message)" } ?? exception.message
        if inPromise { head = "Uncaught (in promise) " + head }
        if let sourceURL = exception.sourceURL, let line = exception.line {
            head = "\(Self.displayPath(sourceURL)):\(line): " + head
        } else if !inPromise {
            head = "Uncaught " + head
        }
        var text = head
        if let stack = exception.stack, !stack.isEmpty {
            // The runtime's own frames (the module loader, the console) are left out.
            text += stack.split(separator: "\n").filter { !$0.contains("@runtime:") }.map { "\n    at \($0)" }.joined()
        }
        return text
    }

    /// A file URL as its path; anything else as it is.
    static func displayPath(_ sourceURL: String) -> String {
        if sourceURL.hasPrefix("file://"), let url = URL(string: sourceURL) { return url.path }
        return sourceURL
    }

    static func printError(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Ends the process now (output is unbuffered: nothing is lost).
    static func exitNow(_ status: Int32) -> Never {
        exit(status)
    }

    // MARK: - Globals

    private(set) var console: Console?
    private(set) var modules: ModuleLoader?

    /// Globals still defined by `installLazily`'s accessor.
    private var lazyGlobals: Set<String> = []

    func installConsole() {
        guard console == nil else { return }
        removeLazyGlobal("console")
        console = Console(context: context, output: .standardStreams)
    }

    func installModules() {
        guard modules == nil else { return }
        removeLazyGlobal("require")
        modules = ModuleLoader(context: context, resolver: FileSystemModuleResolver())
    }

    private func removeLazyGlobal(_ name: String) {
        if lazyGlobals.remove(name) != nil { context.globalObject.deleteProperty(name) }
    }

    /// Defines `name` on the global object as an accessor that installs the real global (which
    /// replaces it) on first read; assigning to it first makes it a plain property holding the
    /// value, as for any global. (The console's captured built-ins are those of its first use.)
    private func installLazily(_ name: String, install: @escaping (ScriptHost) -> Void) {
        lazyGlobals.insert(name)
        let getter = JSValue(newFunctionIn: context) { [unowned self] _, _ in
            install(self)
            return JSContext.current().globalObject.forProperty(name)
        }
        let setter = JSValue(newFunctionIn: context) { [unowned self] _, arguments in
            self.removeLazyGlobal(name)
            JSContext.current().globalObject.setValue(arguments.first, forProperty: name)
            return nil
        }
        context.globalObject.defineProperty(
            name, descriptor: ["get": getter as Any, "set": setter as Any, "configurable": true, "enumerable": false])
    }

    /// `process`: `argv` (the executable, the script, its arguments), a frozen `env`, `exit`,
    /// `exitCode` and `platform`.
    private func installProcess(arguments: [String], scriptPath: String?) {
        let process = JSValue(newObjectIn: context)!
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        process.setValue([executable] + (scriptPath.map { [$0] } ?? []) + arguments, forProperty: "argv")
        let environment = JSValue(object: ProcessInfo.processInfo.environment, in: context)!
        let freeze = context.objectForKeyedSubscript("Object").forProperty("freeze")
        _ = freeze?.call(withArguments: [environment])
        process.setValue(environment, forProperty: "env")
        process.setValue("linux", forProperty: "platform")
        process.setValue(JSValue(undefinedIn: context), forProperty: "exitCode")
        process.setValue(
            JSValue(newFunctionIn: context, name: "exit") { _, arguments in
                let process = JSContext.current().objectForKeyedSubscript("process")
                let code = arguments.first.flatMap { $0.isUndefined ? nil : $0 } ?? process?.forProperty("exitCode")
                let status = code.flatMap { $0.isNumber ? Int32(exactly: $0.toDouble().rounded(.towardZero)) : nil } ?? 0
                Self.exitNow(status)
            }, forProperty: "exit")
        context.globalObject.setValue(process, forProperty: "process")
    }
}

/// Writes `text` and a newline to standard output, unbuffered, as the console's standard-streams
/// output does: results and `console.log` lines come out in the order they were made.
func printLine(_ text: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
}
