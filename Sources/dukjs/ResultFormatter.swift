import DuktapeCore
import Foundation

/// How dukjs shows values and exceptions.
enum ResultFormatter {
    /// Strings as they are; undefined, functions and symbols by `String(value)`; other values as
    /// indented JSON when they have a JSON form (`String(value)` otherwise, e.g. for cycles).
    static func format(_ value: JSValue) -> String {
        if value.isString || value.isUndefined || value.isSymbol {
            return value.description
        }
        let stringify = value.context.objectForKeyedSubscript("JSON").forProperty("stringify")
        if let json = try? stringify?.call(value, NSNull(), 2), json.isString, let text = json.toString() {
            return text
        }
        return value.description
    }

    /// Prints an uncaught exception and its stack to standard error.
    static func report(_ exception: JSException) {
        var text = "Uncaught \(exception)\n"
        if let stack = exception.stack, !stack.isEmpty {
            text += stack.split(separator: "\n").map { "    at \($0)\n" }.joined()
        }
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
