import CDuktapeRuntimeScripts
import DuktapeCore
import Foundation

/// One of the package's own JavaScript files (`Sources/DuktapeRuntime/JavaScript`,
/// `Sources/DuktapeWeb/JavaScript`), embedded in the binary: its source name and its text.
///
/// Each file is one factory, `(function (global, primordials, natives, shared) { … return
/// { … }; })`, run by `run(_:in:natives:shared:)`: it takes the realm's global object, its
/// primordials (the built-ins captured once per realm, `primordials.js`), the natives the Swift
/// side declares for it, and `shared`, what the files before it returned; it installs its globals
/// and returns what later files use. Compiled as ES5 on the bare engine (never lowered) under
/// its own name, so a stack names `headers.js:42`.
package struct HostScript: Sendable {
    /// The source name: the library and the file (`"DuktapeWeb/headers.js"`).
    package let name: String
    package let source: String
    /// The primordials it uses (each `primordials.<name>` in its source).
    package let primordialNames: [String]

    /// `source`, named `file` of `library`.
    package init(library: String, file: String, source: String) {
        name = library + "/" + file
        self.source = source
        primordialNames = Self.names(after: "primordials.", in: source)
    }

    /// A library's embedded files by name, read through its C table (`cduk_runtime_file_at`,
    /// `cduk_web_file_at`: file `index`'s bytes, name and length; nil past the last).
    package static func embeddedFiles(
        _ fileAt: (Int, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafeMutablePointer<Int>) -> UnsafePointer<UInt8>?
    ) -> [String: String] {
        var files: [String: String] = [:]
        var index = 0
        var name: UnsafePointer<CChar>?
        var length = 0
        while let bytes = fileAt(index, &name, &length), let name {
            files[String(cString: name)] = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
            index += 1
        }
        return files
    }

    /// The distinct identifiers that follow `prefix` in `source`.
    static func names(after prefix: String, in source: String) -> [String] {
        var names: [String] = []
        var seen = Set<Substring>()
        var rest = source[...]
        while let found = rest.range(of: prefix) {
            rest = rest[found.upperBound...]
            let name = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "$") }
            if !name.isEmpty, seen.insert(name).inserted { names.append(String(name)) }
        }
        return names
    }

    /// DuktapeRuntime's embedded files, by name.
    package static let runtimeFiles = embeddedFiles { cduk_runtime_file_at($0, $1, $2) }

    /// DuktapeRuntime's file `file` (empty when missing: `run` reports it).
    package static func runtime(_ file: String) -> HostScript {
        HostScript(library: "DuktapeRuntime", file: file, source: runtimeFiles[file] ?? "")
    }

    static let primordials = runtime("primordials.js")
    /// `console` and the renderer `Console.inspect` uses.
    static let console = ["values.js", "inspect.js", "format.js", "console.js"].map(runtime)
    /// `require` (`ModuleLoader`).
    static let modules = [runtime("modules.js")]

    // MARK: - Running

    /// The realm's primordials (`primordials.js`), with at least `names` captured: the capture is
    /// made by the first host script run in the realm and kept on its global object under a
    /// hidden key, so every later one (console, modules, browser globals, the page) shares it.
    package static func primordials(in context: JSContext, capturing names: [String] = []) throws -> JSValue {
        var kept = try context.realmSlot("DuktapeRuntime.primordials")
        if !kept.isObject {
            kept = try factory(primordials, in: context).call(context.globalObject)
            try context.setRealmSlot("DuktapeRuntime.primordials", to: kept)
        }
        if !names.isEmpty { try kept.forProperty("capture").call(names) }
        return kept.forProperty("values")
    }

    /// An object without a prototype holding `members`: a native table or `shared`. (Without
    /// one, a name a factory reads and the table lacks would reach `Object.prototype`, where a
    /// script may have put a getter.)
    package static func table(_ members: [(String, JSValue)], in context: JSContext) throws -> JSValue {
        let table = try primordials(in: context, capturing: ["ObjectCreate"]).forProperty("ObjectCreate").call(NSNull())
        for (name, value) in members { table.setValue(value, forProperty: name) }
        return table
    }

    /// Runs `scripts` in order, each factory called with the global object, the primordials,
    /// `natives` and `shared` (a new table when nil); the own properties each returns are added
    /// to `shared`, which is returned.
    @discardableResult
    package static func run(_ scripts: [HostScript], in context: JSContext, natives: JSValue, shared: JSValue? = nil) throws -> JSValue {
        let primordials = try primordials(in: context, capturing: ["ObjectAssign"] + scripts.flatMap(\.primordialNames))
        let shared = try shared ?? table([], in: context)
        let assign: JSValue = primordials.forProperty("ObjectAssign")
        for script in scripts {
            let exports = try factory(script, in: context).call(context.globalObject, primordials, natives, shared)
            try assign.call(shared, exports)
        }
        return shared
    }

    private static func factory(_ script: HostScript, in context: JSContext) throws -> JSValue {
        let factory = try context.evaluateES5(script.source, sourceName: script.name)
        guard factory.isFunction else {
            throw JSException(JSValue(newTypeErrorFromMessage: "\(script.name) is not a factory function (is it embedded?)", in: context))
        }
        return factory
    }
}
