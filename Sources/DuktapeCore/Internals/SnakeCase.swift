/// `JSONEncoder`'s and `JSONDecoder`'s snake-case key conversions, written for these coders
/// (and checked against Foundation's by the tests, key by key).
enum SnakeCase {
    /// `"myURLValue"` → `"my_url_value"`, word for word as Foundation splits keys: from the
    /// second character on, each uppercase letter ends the word before it; a capital followed
    /// by a lowercase letter starts a word, and a run of capitals is a word of its own up to the
    /// capital before the next lowercase letter. The words are lowercased and joined with `_`.
    /// (So also Foundation's odd cases: `"ID"` → `"i_d"`, `"camel_Snake"` → `"camel__snake"`;
    /// the tests compare with `JSONEncoder` key by key.)
    static func fromCamelCase(_ key: String) -> String {
        let characters = Array(key)
        guard characters.count > 1 else { return key.lowercased() }
        var words: [ArraySlice<Character>] = []
        var wordStart = 0
        var searchFrom = 1
        while let upper = characters[searchFrom...].firstIndex(where: \.isUppercase) {
            words.append(characters[wordStart..<upper])
            guard let lower = characters[upper...].firstIndex(where: \.isLowercase) else {
                wordStart = upper
                searchFrom = characters.count
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(characters[upper..<(lower - 1)])
                wordStart = lower - 1
            }
            searchFrom = lower + 1
        }
        words.append(characters[wordStart...])
        return words.map { String($0).lowercased() }.joined(separator: "_")
    }

    /// `"my_url_value"` → `"myUrlValue"`: the words between underscores, the first lowercased
    /// and the others capitalized; leading and trailing underscores are kept, and a key with no
    /// inner underscore is left as it is.
    static func toCamelCase(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while key[last] == "_" { last = key.index(before: last) }
        let body = key[first...last]
        let words = body.split(separator: "_", omittingEmptySubsequences: true)
        guard words.count > 1 else { return key }
        var result = String(key[..<first])
        result += words[0].lowercased()
        for word in words.dropFirst() {
            result += word.prefix(1).uppercased() + word.dropFirst().lowercased()
        }
        result += key[key.index(after: last)...]
        return result
    }
}
