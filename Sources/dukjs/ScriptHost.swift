import DuktapeCore
import DuktapeRuntime
import DuktapeWeb
import Foundation

/// One script run by dukjs: a context with the runtime (event loop, console on the standard
/// streams, `require` on the filesystem, `process`), its error policy, and the exit status.
///
/// As in Node, an uncaught exception (in the main script or any callback) or an unhandled
/// rejection prints the error and ends the process with status 1, unless a listener of
/// `process`'s `'uncaughtException'` (or `'unhandledRejection'`, by the `--unhandled-rejections`
/// mode) takes it; `process.exit(code)` ends it at once; otherwise the process exits with
/// `process.exitCode` once the loop is idle. Every exit emits `'exit'` first.
final class ScriptHost {
    let context: JSContext
    let loop: JSEventLoop
    /// Set when the host is interactive (the REPL): errors are printed, not fatal.
    let interactive: Bool
    /// `process`'s events.
    let events = ProcessEvents()
    /// What an unhandled rejection does.
    let unhandledRejections: UnhandledRejectionMode
    /// Set once the process began to exit (`'exit'` is emitted once).
    private var exiting = false
    /// `fetch` and `WebSocket` (`--web`).
    private var network: BrowserNetwork?

    /// `clock`, when given, is the VM's clock for time limits (the REPL moves it to interrupt a
    /// running script).
    init(
        limits: Limits, arguments: [String], scriptPath: String?, interactive: Bool = false, clock: ManualClock? = nil,
        unhandledRejections: UnhandledRejectionMode = .throw, web: Bool = false
    ) throws {
        self.unhandledRejections = unhandledRejections
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
        loop = JSEventLoop(context: context)
        installProcess(arguments: arguments, scriptPath: scriptPath)
        if web {
            var configuration = WebPageConfiguration()
            configuration.httpCache = nil  // a command-line run keeps no cache behind
            configuration.requestTimeout = nil  // as Node's fetch
            do {
                network = try BrowserNetwork(context: context, loop: loop, configuration: configuration)
            } catch {
                throw RuntimeError("could not install the web globals: \(error)")
            }
        }
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
            self.rejected(rejection)
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
            if printResult { printLine(ResultFormatter.format(value, console: value.isObject ? renderingConsole() : console)) }
        } catch let exception as JSException {
            uncaught(exception, evalStyle: printResult)
        } catch {
            Self.printError("dukjs: \(error)")
            return 1
        }
        return finish()
    }

    /// Drives the loop until idle; the exit status is `process.exitCode` (0 by default), after
    /// `'exit'` (which a non-interactive host emits, then exits).
    func finish() -> Int32 {
        do {
            try loop.run()
        } catch {
            Self.printError("dukjs: \(error)")
            return 1
        }
        if !interactive { exit(exitCode) }
        return exitCode
    }

    /// Ends the process with `status`, as Node does: `process.exitCode` becomes `status`,
    /// `'exit'` is emitted with it (its listeners may change `process.exitCode`, or call
    /// `process.exit`, which then ends the process at once), and the process exits with
    /// `process.exitCode`. An exception thrown by a listener is printed, and the status is 1.
    func exit(_ status: Int32) -> Never {
        guard !exiting else { Self.exitNow(status) }
        exiting = true
        exitCodeSet = JSValue(int32: status, in: context)
        do {
            try events.emit("exit", [status])
        } catch let exception as JSException {
            Self.printError(describe(exception))
            Self.exitNow(1)
        } catch {
            Self.printError("dukjs: \(error)")
            Self.exitNow(1)
        }
        Self.exitNow(exitCode)
    }

    /// The status `process.exitCode` gives (checked when it was set); 0 when unset.
    var exitCode: Int32 {
        exitCodeSet.flatMap { try? Self.exitStatus($0) } ?? 0
    }

    /// The value the script set `process.exitCode` to.
    private var exitCodeSet: JSValue?

    /// Node's rule for an exit code: undefined or null (unset), an integer, or a string holding
    /// one in decimal. Another type is a TypeError with code `ERR_INVALID_ARG_TYPE`, a number
    /// that is not a safe integer a RangeError with code `ERR_OUT_OF_RANGE`, both thrown to the
    /// script (so that `process.exit("2")` is not a success, nor `process.exit(2.9)` a silent
    /// 2). The process's status is the code's low 8 bits, as the system keeps it.
    static func exitStatus(_ value: JSValue) throws -> Int32? {
        if value.isUndefined || value.isNull { return nil }
        let number: Double
        if value.isNumber {
            number = value.toDouble()
        } else if value.isString, let text = value.toString(), text.range(of: #"^-?[0-9]{1,16}$"#, options: .regularExpression) != nil,
                  let parsed = Double(text) {
            number = parsed
        } else {
            throw exitCodeError(value, type: false, "must be an integer, or a string holding one")
        }
        guard let integer = Int64(exactly: number), abs(integer) < 1 << 53 else {
            throw exitCodeError(value, type: true, "must be a safe integer")
        }
        return Int32(truncatingIfNeeded: integer)
    }

    private static func exitCodeError(_ value: JSValue, type range: Bool, _ rule: String) -> JSException {
        let message = "The \"code\" argument \(rule)"
        let error: JSValue = range
            ? JSValue(newRangeErrorFromMessage: message, in: value.context)
            : JSValue(newTypeErrorFromMessage: message, in: value.context)
        error.setValue(range ? "ERR_OUT_OF_RANGE" : "ERR_INVALID_ARG_TYPE", forProperty: "code")
        return JSException(error)
    }

    // MARK: - Errors

    /// An uncaught exception: handed to `process`'s `'uncaughtException'` listeners when it
    /// has some (with the origin, "uncaughtException" or "unhandledRejection"; one that throws
    /// ends the process with status 7, as in Node); else printed as `file:line: Name: message`
    /// and the stack, and fatal unless the host is interactive. `evalStyle` keeps `dukjs
    /// eval`'s `Uncaught …` form.
    func uncaught(_ exception: JSException, inPromise: Bool = false, evalStyle: Bool = false) {
        if !interactive, !exiting, events.count("uncaughtException") > 0 {
            do {
                try events.emit("uncaughtException", [exception.value, inPromise ? "unhandledRejection" : "uncaughtException"])
                return
            } catch let thrown as JSException {
                Self.printError(describe(thrown))
            } catch {
                Self.printError("dukjs: \(error)")
            }
            exiting = true
            Self.exitNow(7)
        }
        if evalStyle {
            ResultFormatter.report(exception)
        } else {
            Self.printError(describe(exception, inPromise: inPromise))
        }
        if !interactive { exit(1) }
    }

    /// A rejection with no handler when the job queue emptied, or one that got a handler after
    /// it was reported (`'rejectionHandled'`), by the `--unhandled-rejections` mode.
    private func rejected(_ rejection: JSPromiseRejection) {
        guard rejection.kind == .unhandled else {
            emitReporting("rejectionHandled", [rejection.promise])
            return
        }
        let arguments: [Any] = [rejection.reason, rejection.promise]
        switch unhandledRejections {
        case .throw:
            if !emitReporting("unhandledRejection", arguments) { uncaught(JSException(rejection.reason), inPromise: true) }
        case .strict:
            uncaught(JSException(rejection.reason), inPromise: true)  // ends the process unless a listener took it
            emitReporting("unhandledRejection", arguments)
        case .warn:
            emitReporting("unhandledRejection", arguments)
            warn(rejection.reason)
        case .warnWithErrorCode:
            if !emitReporting("unhandledRejection", arguments) {
                warn(rejection.reason)
                exitCodeSet = JSValue(int32: 1, in: context)
            }
        case .none:
            emitReporting("unhandledRejection", arguments)
        }
    }

    /// `events.emit`, with an exception a listener throws handled as uncaught.
    @discardableResult
    private func emitReporting(_ event: String, _ arguments: [Any]) -> Bool {
        do {
            return try events.emit(event, arguments)
        } catch let exception as JSException {
            uncaught(exception)
        } catch {
            Self.printError("dukjs: \(error)")
        }
        return true
    }

    private func warn(_ reason: JSValue) {
        Self.printError("(dukjs:\(getpid())) UnhandledPromiseRejectionWarning: " + describe(JSException(reason), marked: false))
    }

    /// `exception` as dukjs prints it: `file:line: Name: message` and the stack (an error), or
    /// the value as the console renders it (`{ code: 42 }`; anything else thrown). `marked`
    /// adds "Uncaught" (and "(in promise)") as a fatal report has it.
    func describe(_ exception: JSException, inPromise: Bool = false, marked: Bool = true) -> String {
        var head = exception.name.map { "\($0): \(exception.message)" } ?? exception.message
        if exception.name == nil, exception.value.isObject, let rendered = try? renderingConsole()?.inspect(exception.value) {
            head = rendered
        }
        if inPromise, marked { head = "Uncaught (in promise) " + head }
        var location = exception.sourceURL.flatMap { url in exception.line.map { (url: url, line: $0) } }
        // Thrown in the runtime's own code (`require`, the console): the user's nearest frame
        // is the place, as Node reports it.
        if let place = location, place.url.hasPrefix(Self.runtimeFilePrefix) { location = Self.userFrame(in: exception.stack) }
        if let (sourceURL, line) = location {
            head = "\(Self.displayPath(sourceURL)):\(line): " + head
        } else if !inPromise, marked {
            head = "Uncaught " + head
        }
        var text = head
        if let stack = exception.stack, !stack.isEmpty {
            // The runtime's own frames (the module loader, the console) are left out.
            text += stack.split(separator: "\n").filter { !$0.contains("@" + Self.runtimeFilePrefix) }.map { "\n    at \($0)" }.joined()
        }
        return text
    }

    /// The source names of the runtime's own files (HostScript: "DuktapeRuntime/modules.js").
    static let runtimeFilePrefix = "DuktapeRuntime/"

    /// The file and line of the first frame of `stack` (Duktape's `name@file:line` lines) that
    /// is not the runtime's own.
    static func userFrame(in stack: String?) -> (url: String, line: Int)? {
        for frame in (stack ?? "").split(separator: "\n") {
            guard let at = frame.firstIndex(of: "@"), let colon = frame.lastIndex(of: ":"), at < colon else { continue }
            let file = frame[frame.index(after: at)..<colon]
            guard !file.isEmpty, !file.hasPrefix(runtimeFilePrefix), let line = Int(frame[frame.index(after: colon)...]) else { continue }
            return (String(file), line)
        }
        return nil
    }

    /// A file URL as its path; anything else as it is.
    static func displayPath(_ sourceURL: String) -> String {
        if sourceURL.hasPrefix("file://"), let url = URL(string: sourceURL) { return url.path }
        return sourceURL
    }

    static func printError(_ text: String) {
        PromptLine.shared.write(text + "\n", to: .standardError)
    }

    /// Ends the process now (output is unbuffered: nothing is lost).
    static func exitNow(_ status: Int32) -> Never {
        Foundation.exit(status)
    }

    // MARK: - Globals

    private(set) var console: Console?
    private(set) var modules: ModuleLoader?

    /// The values of the lazy globals (installed, or assigned by the script first), which their
    /// accessors return wherever the accessor is still there: a frozen or sealed global object
    /// keeps it.
    private var lazyValues: [String: JSValue] = [:]
    /// Lazy globals being installed now: their accessor's setter takes the installed value
    /// even where the global object refuses assignments.
    private var installing: Set<String> = []
    /// `Object.getOwnPropertyDescriptor`, `Object.defineProperty` and `Object.create` as they
    /// were before any script ran (held here: a JSValue captured by a function of its own
    /// context would keep the context alive through itself).
    private var lazyBuiltins: (describe: JSValue, define: JSValue, create: JSValue)?

    /// The console and `require` set their globals with a plain assignment: where the lazy
    /// accessor is still defined, its setter takes the value.
    func installConsole() {
        guard console == nil else { return }
        // The standard streams, above the line being typed at the REPL's prompt (PromptLine).
        console = Console(context: context, output: ConsoleOutput { level, text in
            PromptLine.shared.write(text + "\n", to: level.isDiagnostic ? .standardError : .standardOutput)
        })
    }

    /// The console, to render an object result with (`dukjs eval`): its first use when the
    /// script has not used it yet (read through the global, so a `console` the script put in
    /// its place is never overwritten; then nil).
    func renderingConsole() -> Console? {
        if console == nil { _ = context.globalObject.forProperty("console") }
        return console
    }

    func installModules() {
        guard modules == nil else { return }
        modules = ModuleLoader(context: context, resolver: FileSystemModuleResolver())
    }

    /// Defines `name` on the global object as an accessor that installs the real global on first
    /// read. The real global, or a value the script assigns first, replaces the accessor with a
    /// plain property, redefined in place so that a non-extensible global object keeps it. Where
    /// the accessor cannot be replaced (a frozen or sealed global object), it keeps returning the
    /// installed value and refuses the script's assignments, as a read-only property would. An
    /// assignment through an object inheriting from the global object makes that object's own
    /// property, as any assignment does. (The console's captured built-ins are those of its
    /// first use.)
    private func installLazily(_ name: String, install: @escaping (ScriptHost) -> Void) {
        // Read before any script runs: a script replacing `Object` cannot change them.
        if lazyBuiltins == nil {
            let object = context.objectForKeyedSubscript("Object")
            guard let describe = object?.forProperty("getOwnPropertyDescriptor"), let define = object?.forProperty("defineProperty"),
                  let create = object?.forProperty("create")
            else { return install(self) }
            lazyBuiltins = (describe, define, create)
        }
        /// A data property's descriptor without a prototype (an inherited `get` would make it an
        /// accessor's).
        func descriptor(_ value: JSValue, in host: ScriptHost, enumerable: Bool) throws -> JSValue {
            guard let create = host.lazyBuiltins?.create else { throw RuntimeError("no Object.create") }
            let descriptor = try create.call(NSNull())
            for (key, field) in [("value", value as Any), ("writable", true), ("configurable", true), ("enumerable", enumerable)] {
                descriptor.setValue(field, forProperty: key)
            }
            return descriptor
        }
        let getter = JSValue(newFunctionIn: context) { [unowned self] _, _ in
            if self.lazyValues[name] == nil {
                self.installing.insert(name)
                defer { self.installing.remove(name) }
                install(self)
            }
            return self.lazyValues[name]
        }
        let setter = JSValue(newFunctionIn: context) { [unowned self] this, arguments in
            guard let (describe, define, _) = self.lazyBuiltins else { return nil }
            let global: JSValue = JSContext.current().globalObject
            let value: JSValue = arguments.first ?? JSValue(undefinedIn: JSContext.current())
            guard this.isEqual(to: global) else {
                try define.call(this, name, try descriptor(value, in: self, enumerable: true))
                return nil
            }
            if try describe.call(global, name).forProperty("configurable").toBool() {
                try define.call(global, name, try descriptor(value, in: self, enumerable: false))
                self.lazyValues[name] = value
            } else if self.installing.contains(name) {
                self.lazyValues[name] = value
            }
            return nil
        }
        context.globalObject.defineProperty(
            name, descriptor: ["get": getter as Any, "set": setter as Any, "configurable": true, "enumerable": false])
    }

    /// `process`: `argv` (the executable, the script, its arguments), a frozen `env`, `exit`,
    /// `exitCode` and `platform`; and `global`.
    private func installProcess(arguments: [String], scriptPath: String?) {
        let process = JSValue(newObjectIn: context)!
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        process.setValue([executable] + (scriptPath.map { [$0] } ?? []) + arguments, forProperty: "argv")
        let environment = JSValue(object: ProcessInfo.processInfo.environment, in: context)!
        let freeze = context.objectForKeyedSubscript("Object").forProperty("freeze")
        _ = freeze?.call(withArguments: [environment])
        process.setValue(environment, forProperty: "env")
        process.setValue("linux", forProperty: "platform")
        // `exitCode` is checked when it is set, as Node checks it.
        process.defineProperty("exitCode", descriptor: [
            "get": JSValue(newFunctionIn: context) { [unowned self] _, _ in self.exitCodeSet } as Any,
            "set": JSValue(newFunctionIn: context) { [unowned self] _, arguments in
                let value: JSValue = arguments.first ?? JSValue(undefinedIn: JSContext.current())
                _ = try Self.exitStatus(value)
                self.exitCodeSet = value
                return nil
            } as Any,
            "enumerable": true, "configurable": false,
        ])
        process.setValue(
            JSValue(newFunctionIn: context, name: "exit") { [unowned self] _, arguments in
                let status = try arguments.first.flatMap { try Self.exitStatus($0) } ?? self.exitCode
                self.exit(status)
            }, forProperty: "exit")
        events.install(on: process, in: context)
        context.globalObject.setValue(process, forProperty: "process")
        // Node's `global`, the global object (as `globalThis`), which scripts written for Node
        // use (`global.adapter` in the Promises/A+ suite): writable and configurable, as Node's.
        context.globalObject.defineProperty("global", descriptor: [
            "value": context.globalObject as Any, "writable": true, "enumerable": false, "configurable": true,
        ])
    }
}

/// Writes `text` and a newline to standard output, unbuffered, as the console's standard-streams
/// output does: results and `console.log` lines come out in the order they were made.
func printLine(_ text: String) {
    PromptLine.shared.write(text + "\n", to: .standardOutput)
}
