/// Finds and reads the modules `require()` loads: the filesystem (`FileSystemModuleResolver`),
/// a dictionary of sources (`InMemoryModuleResolver`), or a source of your own (a database, an
/// archive, a bundle).
///
/// ```swift
/// struct BundleResolver: ModuleResolver {
///     let files: [String: String]
///     func resolve(_ specifier: String, from parent: String?) throws(ModuleNotFound) -> String {
///         guard files[specifier] != nil else { throw ModuleNotFound(specifier: specifier, parent: parent, tried: [specifier]) }
///         return specifier
///     }
///     func source(at filename: String) throws -> String { files[filename] ?? "" }
/// }
/// ```
public protocol ModuleResolver: Sendable {
    /// The filename of the module `specifier` names when required from the module `parent`
    /// (a filename this resolver returned), or from a script when `parent` is nil. The filename
    /// is the module's identity: `require.cache`'s key, `module.filename`, `__filename`, and
    /// the source URL its errors and stack frames show. A name ending in `.json` is a JSON
    /// module.
    func resolve(_ specifier: String, from parent: String?) throws(ModuleNotFound) -> String

    /// The source text of a resolved module.
    func source(at filename: String) throws -> String
}

/// No module for a specifier: what was looked for, from where, and every path tried. In
/// JavaScript it is an `Error` with `code` `'MODULE_NOT_FOUND'`, as in Node.
///
/// ```swift
/// throw ModuleNotFound(specifier: "./missing", parent: "/app/main.js", tried: ["/app/missing", "/app/missing.js"])
/// ```
public struct ModuleNotFound: Error, Sendable, Equatable, CustomStringConvertible {
    /// What `require` was given.
    public let specifier: String
    /// The requiring module's filename; nil when a script required it.
    public let parent: String?
    /// The paths tried, in order.
    public let tried: [String]

    public init(specifier: String, parent: String?, tried: [String]) {
        self.specifier = specifier
        self.parent = parent
        self.tried = tried
    }

    public var description: String {
        var text = "Cannot find module '\(specifier)'"
        if let parent { text += "\nRequire stack:\n- \(parent)" }
        if !tried.isEmpty { text += "\nTried:\n" + tried.map { "- \($0)" }.joined(separator: "\n") }
        return text
    }
}
