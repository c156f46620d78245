/// A JavaScript exception, thrown by the Swift-first throwing API.
///
/// It carries the thrown value itself (an `Error` object, or whatever the script threw:
/// `throw 42` and `throw null` included) and what could be read from it when it was caught.
///
/// ```swift
/// do {
///     _ = try context.evaluate("null.x", sourceURL: URL(string: "file:///app/main.js"))
/// } catch let error as JSException {
///     print(error.name ?? "-", error.message)   // prints: TypeError cannot read property 'x' of null
///     print(error.line ?? 0, error.sourceURL ?? "")   // prints: 1 file:///app/main.js
/// }
/// ```
public struct JSException: Error, CustomStringConvertible {
    /// The thrown value.
    public let value: JSValue
    /// The error's `name` (`"TypeError"`, `"RangeError"`...), or nil when the thrown value is not
    /// an object with a string `name`.
    public let name: String?
    /// The error's `message`; for a thrown non-object, its string form (`"42"`, `"null"`).
    public let message: String
    /// The stack trace Duktape recorded, when the thrown value has one.
    public let stack: String?
    /// The line the error was created at (JavaScriptCore's `line`, Duktape's `lineNumber`).
    public let line: Int?
    /// The column: nil with this engine, which does not record columns. Kept for JavaScriptCore parity.
    public let column: Int?
    /// The source URL of the script the error was created in (JavaScriptCore's `sourceURL`,
    /// Duktape's `fileName`).
    public let sourceURL: String?
    /// The Swift error a callback threw, when this exception is that error travelling back out
    /// of JavaScript. The throwing API rethrows it instead of the JSException.
    public let underlyingError: (any Error)?

    /// A one-line summary: `"TypeError: message (file:line)"`.
    public var description: String {
        // The compiler ends a SyntaxError's message with its line ("parse error (line 2)"):
        // said once, with the source URL when there is one.
        var message = message
        if let line, let suffix = message.range(of: " (line \(line)", options: .backwards), message.hasSuffix(")") {
            if let sourceURL {
                message = "\(message[..<suffix.lowerBound]) (\(sourceURL):\(line))"
            }
            return name.map { "\($0): \(message)" } ?? message
        }
        var text = name.map { "\($0): \(message)" } ?? message
        if let sourceURL, let line {
            text += " (\(sourceURL):\(line))"
        } else if let line {
            text += " (line \(line))"
        }
        return text
    }

    /// Swift-first: the exception for a thrown value, described as the throwing API describes
    /// what it catches. A callback that throws it throws `value` itself into the script.
    ///
    /// ```swift
    /// throw JSException(JSValue(newTypeErrorFromMessage: "expected a function", in: context))
    /// ```
    public init(_ value: JSValue) {
        self = (try? value.owner.withStack { stack throws(JSException) in
            try stack.push(value)
            return stack.takeException()
        }) ?? JSException(value: value, name: nil, message: "", stack: nil, line: nil, sourceURL: nil)
    }

    init(
        value: JSValue, name: String?, message: String, stack: String?, line: Int?, sourceURL: String?,
        underlyingError: (any Error)? = nil
    ) {
        self.value = value
        self.name = name
        self.message = message
        self.stack = stack
        self.line = line
        self.column = nil
        self.sourceURL = sourceURL
        self.underlyingError = underlyingError
    }
}

extension JSException {
    /// True for an error the library described but could not make as a JavaScript value (the
    /// heap was full): its value is undefined while it has a name. A script's own
    /// `throw undefined` has no name.
    var isUnmade: Bool { value.isUndefined && name != nil }
}
