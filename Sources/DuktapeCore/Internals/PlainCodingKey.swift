/// A key that is a position in an unkeyed container (Foundation's `"Index 3"`), or a plain
/// string (the `"super"` key, keys the key strategies produce).
struct PlainCodingKey: CodingKey, Sendable {
    private let name: String
    let intValue: Int?

    /// The name, or `"Index N"` for a position (made when asked: positions are keys of every
    /// element's path, and read only for errors).
    var stringValue: String { intValue.map { "Index \($0)" } ?? name }

    init(stringValue: String) {
        name = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        name = ""
        self.intValue = intValue
    }

    init(index: Int) {
        self.init(intValue: index)
    }

    static let superKey = PlainCodingKey(stringValue: "super")
}
