/// A coding path kept as a chain of nodes, one per nested container's key: building a
/// `[any CodingKey]` for every nested value would copy the whole path at each level, and the
/// path is read only for errors and by custom `encode(to:)`/`init(from:)` code that asks.
final class CodingPath {
    let parent: CodingPath?
    let key: any CodingKey
    /// How many keys the path has (the nesting depth the conversion limit applies to).
    let depth: Int

    init(parent: CodingPath?, key: any CodingKey) {
        self.parent = parent
        self.key = key
        depth = (parent?.depth ?? 0) + 1
    }

    /// The path, outermost key first.
    static func keys(of path: CodingPath?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = path
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }

    /// `path` followed by `key`, for an error's context.
    static func keys(of path: CodingPath?, then key: any CodingKey) -> [any CodingKey] {
        keys(of: path) + [key]
    }
}
