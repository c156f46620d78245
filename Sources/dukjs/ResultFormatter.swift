import DuktapeCore
import DuktapeRuntime
import Foundation

/// How dukjs shows values and exceptions.
enum ResultFormatter {
    /// `dukjs eval`'s result: a string as it is (as `node -p` prints one); anything else as the
    /// REPL shows it, the console's renderer (`{ a: [ 1, 2 ] }`, `[Function: f]`, dates
    /// unquoted); `String(value)` without a console.
    static func format(_ value: JSValue, console: Console?) -> String {
        if value.isString { return value.description }
        return (try? console?.inspect(value)) ?? value.description
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
