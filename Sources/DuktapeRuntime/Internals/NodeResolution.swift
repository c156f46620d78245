import Foundation

/// Node's module resolution over a set of files (real or in memory):
/// 1. `./`, `../`, `/` (and `.`, `..`): the path, relative to the requiring module's folder;
/// 2. anything else: `node_modules/<name>` in the requiring module's folder and each folder
///    above it, then each configured root;
/// and for each candidate path X: the file X, X.js, X.json; then the folder X: its
/// `package.json`'s `main` (as a file, or a folder with an index), X/index.js, X/index.json.
struct NodeResolution {
    let isFile: (String) -> Bool
    let read: (String) throws -> String
    /// Folders searched for bare names after the `node_modules` folders.
    let roots: [String]
    /// The folder of scripts that are not modules (a REPL, `evaluateScript`).
    let base: String

    func resolve(_ specifier: String, from parent: String?) throws(ModuleNotFound) -> String {
        var tried: [String] = []
        let folder = parent.map(Self.dirname) ?? base
        if specifier.isEmpty || specifier.contains("\0") {
            throw ModuleNotFound(specifier: specifier, parent: parent, tried: [])
        }
        if Self.isPathLike(specifier) {
            let path = Self.normalize(specifier.hasPrefix("/") ? specifier : folder + "/" + specifier)
            if let found = file(path, &tried) ?? directory(path, &tried) { return found }
        } else {
            for candidate in Self.nodeModulesFolders(from: folder) + roots {
                let path = Self.normalize(candidate + "/" + specifier)
                if let found = file(path, &tried) ?? directory(path, &tried) { return found }
            }
        }
        throw ModuleNotFound(specifier: specifier, parent: parent, tried: tried)
    }

    static func isPathLike(_ specifier: String) -> Bool {
        specifier == "." || specifier == ".." || specifier.hasPrefix("/") || specifier.hasPrefix("./")
            || specifier.hasPrefix("../")
    }

    private func file(_ path: String, _ tried: inout [String]) -> String? {
        for candidate in [path, path + ".js", path + ".json"] {
            tried.append(candidate)
            if isFile(candidate) { return candidate }
        }
        return nil
    }

    private func index(_ path: String, _ tried: inout [String]) -> String? {
        for candidate in [path + "/index.js", path + "/index.json"] {
            tried.append(candidate)
            if isFile(candidate) { return candidate }
        }
        return nil
    }

    private func directory(_ path: String, _ tried: inout [String]) -> String? {
        let manifest = path + "/package.json"
        tried.append(manifest)
        if isFile(manifest), let main = mainField(of: manifest), !main.isEmpty {
            let target = Self.normalize(main.hasPrefix("/") ? main : path + "/" + main)  // Node's path.resolve
            if let found = file(target, &tried) ?? index(target, &tried) { return found }
        }
        return index(path, &tried)
    }

    /// `main` of a package.json; nil when it cannot be read or is not a string.
    private func mainField(of manifest: String) -> String? {
        guard let text = try? read(manifest),
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        else { return nil }
        return object["main"] as? String
    }

    /// `/a/b/node_modules`, `/a/node_modules`, `/node_modules` from `/a/b` (skipping folders
    /// that are themselves `node_modules`).
    static func nodeModulesFolders(from folder: String) -> [String] {
        let parts = folder.split(separator: "/", omittingEmptySubsequences: true)
        var folders: [String] = []
        for end in stride(from: parts.count, through: 0, by: -1) {
            if end > 0, parts[end - 1] == "node_modules" { continue }
            folders.append("/" + parts[..<end].joined(separator: "/") + (end > 0 ? "/" : "") + "node_modules")
        }
        return folders
    }

    /// The folder of a filename (`/a/b.js` → `/a`; `/b.js` → `/`).
    static func dirname(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// An absolute path without `.`, `..` or repeated slashes (`..` stops at the root).
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
