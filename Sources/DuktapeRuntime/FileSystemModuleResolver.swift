import Foundation

/// Resolves `require()` as Node does, on the filesystem: relative and absolute paths, the `.js`
/// and `.json` extensions, `package.json`'s `main`, `index.js`, `node_modules` folders from the
/// requiring module's folder upward, then `roots`.
///
/// ```swift
/// let resolver = FileSystemModuleResolver(base: URL(fileURLWithPath: "/srv/scripts"), roots: [URL(fileURLWithPath: "/srv/shared")])
/// let modules = ModuleLoader(context: context, resolver: resolver)
/// ```
///
/// Filenames are absolute paths with `.` and `..` removed (symbolic links are not resolved: a
/// module reached through two links is two modules).
public struct FileSystemModuleResolver: ModuleResolver {
    /// The folder that scripts which are not modules resolve relative paths against.
    public let base: URL
    /// Folders searched for bare names (`require('lodash')`) after the `node_modules` folders.
    public let roots: [URL]

    /// A resolver whose scripts resolve from `base` (default: the current directory).
    ///
    /// ```swift
    /// FileSystemModuleResolver()   // relative to the current directory, node_modules lookup only
    /// ```
    public init(base: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath), roots: [URL] = []) {
        self.base = base
        self.roots = roots
    }

    private var resolution: NodeResolution {
        NodeResolution(
            isFile: { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            },
            read: { path in try String(contentsOfFile: path, encoding: .utf8) },
            roots: roots.map { NodeResolution.normalize($0.path) },
            base: NodeResolution.normalize(base.path))
    }

    public func resolve(_ specifier: String, from parent: String?) throws(ModuleNotFound) -> String {
        try resolution.resolve(specifier, from: parent)
    }

    public func source(at filename: String) throws -> String {
        try String(contentsOfFile: filename, encoding: .utf8)
    }
}
