/// Resolves `require()` as Node does, over a dictionary of sources keyed by path: for tests, and
/// for embedding scripts in a program (no filesystem access at all).
///
/// ```swift
/// let resolver = InMemoryModuleResolver([
///     "/app/main.js": "module.exports = require('./lib/math').add(1, 2)",
///     "/app/lib/math.js": "exports.add = function (a, b) { return a + b }",
///     "/app/node_modules/greet/index.js": "module.exports = function (n) { return 'hi ' + n }",
/// ])
/// ```
///
/// Paths not starting with "/" are taken from the root ("lib/a.js" is "/lib/a.js"); folders
/// exist when a path lies under them.
public struct InMemoryModuleResolver: ModuleResolver {
    /// The sources by normalized absolute path.
    public let sources: [String: String]
    /// The folder that scripts which are not modules resolve relative paths against.
    public let base: String
    /// Folders searched for bare names after the `node_modules` folders.
    public let roots: [String]

    /// A resolver over `sources`, resolving scripts' relative paths from `base`.
    ///
    /// ```swift
    /// InMemoryModuleResolver(["/config.json": #"{"debug": true}"#])
    /// ```
    public init(_ sources: [String: String], base: String = "/", roots: [String] = []) {
        var normalized: [String: String] = [:]
        for (path, source) in sources { normalized[NodeResolution.normalize(path)] = source }
        self.sources = normalized
        self.base = NodeResolution.normalize(base)
        self.roots = roots.map(NodeResolution.normalize)
    }

    public func resolve(_ specifier: String, from parent: String?) throws(ModuleNotFound) -> String {
        let sources = self.sources
        return try NodeResolution(
            isFile: { sources[$0] != nil },
            read: { path in sources[path] ?? "" },
            roots: roots, base: base
        ).resolve(specifier, from: parent)
    }

    public func source(at filename: String) throws -> String {
        guard let source = sources[filename] else {
            throw ModuleNotFound(specifier: filename, parent: nil, tried: [filename])
        }
        return source
    }
}
