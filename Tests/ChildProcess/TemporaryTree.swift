import Foundation

/// A folder of files made by a test (paths relative to it, folders created as needed), removed
/// when it is released.
///
/// ```swift
/// let tree = try TemporaryTree(["app/main.js": "require('./lib')", "app/lib.js": ""])
/// tree.path("app/main.js")
/// ```
public final class TemporaryTree {
    public let root: URL

    public init(_ files: [String: String]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// The absolute path of `relative` in the tree.
    public func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    deinit { try? FileManager.default.removeItem(at: root) }
}
