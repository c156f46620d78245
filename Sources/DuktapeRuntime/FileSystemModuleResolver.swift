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
/// Filenames are real absolute paths (`.`, `..` and symbolic links resolved). Only regular
/// files of at most `maximumSourceSize` bytes are read.
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

    /// The largest module source read (a module is code, not data; a bigger file is refused
    /// rather than read into the host's memory).
    public static let maximumSourceSize = 64 << 20

    private var resolution: NodeResolution {
        NodeResolution(
            isFile: Self.isRegularFile,
            read: { path in try Self.contents(of: path) },
            roots: roots.map { NodeResolution.normalize($0.path) },
            base: NodeResolution.normalize(base.path))
    }

    /// Resolves as Node does, then follows symbolic links (as Node does by default): a module
    /// reached through two links is one module, keyed by its real path.
    public func resolve(_ specifier: String, from parent: String?) throws(ModuleNotFound) -> String {
        let found = try resolution.resolve(specifier, from: parent)
        return URL(fileURLWithPath: found).resolvingSymlinksInPath().path
    }

    public func source(at filename: String) throws -> String {
        try Self.contents(of: filename)
    }

    /// Only regular files are modules: a device (`/dev/zero`), a FIFO or a socket would block or
    /// never end, beyond any time limit.
    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads a module's text, at most `maximumSourceSize` bytes: the file is checked after it is
    /// opened (so it cannot be swapped for a FIFO in between) and read up to one byte past the
    /// limit, because a file's size may say nothing of its length (files under `/proc` give 0
    /// and can be endless). Bytes that are not UTF-8 decode as U+FFFD, as Node decodes them.
    private static func contents(of path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw ModuleReadError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw ModuleReadError(path: path, reason: "not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ModuleReadError(path: path, reason: String(cString: strerror(errno))) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > maximumSourceSize {
                throw ModuleReadError(path: path, reason: "larger than \(maximumSourceSize >> 20) MiB")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A module file that cannot be read as a module.
struct ModuleReadError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "cannot load module \(path): \(reason)" }
}
