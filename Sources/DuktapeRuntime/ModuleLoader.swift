@_spi(Runtime) import DuktapeCore
import Foundation

/// CommonJS modules as Node runs them: a global `require` in the context, the main module, and
/// the `require`, `module`, `exports`, `__filename` and `__dirname` each module sees.
///
/// - A module runs once, in a function of its own (it never sees the requiring module's
///   locals), compiled under its filename, so `JSException.sourceURL`, `line` and the stack
///   name it.
/// - `require.cache` is keyed by filename and deletable (the next `require` runs the module
///   again); a cycle gets the partly filled `exports` of the module still loading, as in Node;
///   a module that throws is not cached.
/// - `.json` modules are parsed (a syntax error names the file).
/// - A missing module throws an `Error` with `code` `'MODULE_NOT_FOUND'`, `requireStack` and
///   `paths` (every path tried).
///
/// ```swift
/// let modules = ModuleLoader(context: context, resolver: FileSystemModuleResolver())!
/// try modules.runMain("./main.js")                 // module.id '.', require.main
/// let config = try modules.require("./config.json")
/// ```
///
/// Without a resolver, contexts get the filesystem (from the current directory), except
/// sandboxed ones (`JSContext(sandbox:)`), which get none: there every `require` fails unless a
/// resolver is given explicitly. A `ModuleLoader` keeps its context alive, as a `JSValue` does.
public final class ModuleLoader: Sendable {
    /// Where modules come from; nil when there is none (a sandboxed context's default).
    public let resolver: (any ModuleResolver)?
    private let requireFunction: JSValue
    private let runMainFunction: JSValue

    /// The text each module's source is placed in (Node's wrapper): one function per module,
    /// its first line on the wrapper's line so that line numbers are the file's own.
    static let wrapperHead = "(function (exports, require, module, __filename, __dirname) { "
    static let wrapperTail = "\n})"

    /// Installs `require` in `context`, loading through `resolver` (see the type's description
    /// for the default).
    ///
    /// ```swift
    /// ModuleLoader(context: context, resolver: InMemoryModuleResolver(["/lib/a.js": "exports.a = 1"]))
    /// ```
    ///
    /// Returns nil, with the reason in `context.exception`, when the set-up cannot run (the
    /// context's memory limit is reached).
    public init?(context: JSContext, resolver: (any ModuleResolver)? = nil) {
        let resolver = resolver ?? (context.virtualMachine.sandbox == nil ? FileSystemModuleResolver() : nil)
        self.resolver = resolver
        let resolve = JSValue(newFunctionIn: context, name: "resolve") { (_: JSValue, arguments: [JSValue]) -> Any? in
            let specifier = arguments.first?.toString() ?? ""
            let parent = arguments.count > 1 && arguments[1].isString ? arguments[1].toString() : nil
            guard let resolver else { return [String]() }
            do throws(ModuleNotFound) {
                return try resolver.resolve(specifier, from: parent)
            } catch {
                return error.tried
            }
        }
        let source = JSValue(newFunctionIn: context) { (filename: String) throws -> String in
            guard let resolver else { throw ModuleNotFound(specifier: filename, parent: nil, tried: []) }
            return try resolver.source(at: filename)
        }
        let compile = JSValue(newFunctionIn: context) { (source: String, filename: String, _: JSValue) throws -> JSValue? in
            // The module's text is code, placed as Node places it; no value is spliced in: the
            // filename goes to the compiler as the source's name. Compiled once, and undefined
            // (nothing of it run) for a text that closes the wrapper's function (the caller throws
            // a SyntaxError, as Node does): see JSContext.evaluateFunctionExpression.
            try JSContext.current().evaluateFunctionExpression(Self.wrapperHead + source + Self.wrapperTail, sourceName: filename)
        }
        do {
            let natives = try HostScript.table([("resolve", resolve), ("source", source), ("compile", compile)], in: context)
            let made = try HostScript.run(HostScript.modules, in: context, natives: natives)
            requireFunction = made.forProperty("require")
            runMainFunction = made.forProperty("runMain")
            context.globalObject.setValue(requireFunction, forProperty: "require")
        } catch {
            context.exception = (error as? JSException)?.value
            return nil
        }
    }

    /// Runs `path` as the main module (`module.id` is `'.'`, and `require.main` is it),
    /// resolved from the resolver's base folder as a path (`"main.js"` is `"./main.js"`, as
    /// for `node main.js`), and returns its `module.exports`.
    ///
    /// ```swift
    /// try modules.runMain("/srv/scripts/main.js")
    /// ```
    @discardableResult
    public func runMain(_ path: String) throws -> JSValue {
        try runMainFunction.call(path)
    }

    /// `require(specifier)` from a script (relative paths resolve from the resolver's base).
    ///
    /// ```swift
    /// let pricing = try modules.require("./rules/pricing")
    /// ```
    public func require(_ specifier: String) throws -> JSValue {
        try requireFunction.call(specifier)
    }
}
