import Foundation
import Logging

/// Where a console's messages go: a swift-log `Logger` the host passes, the process's standard
/// output and error exactly as the script printed them (what `dukjs` uses), nowhere, or any
/// function.
///
/// ```swift
/// var logger = Logger(label: "plugins.pricing")
/// logger.logLevel = .debug
/// Console(context: context, output: .logger(logger))
/// Console(context: other, output: .standardStreams)
/// ```
public struct ConsoleOutput: Sendable {
    /// Receives each message: its kind and its text (lines joined with "\n", no final newline).
    public let write: @Sendable (ConsoleLevel, String) -> Void

    /// Output to a function of your own.
    ///
    /// ```swift
    /// let output = ConsoleOutput { level, text in lines.append("\(level): \(text)") }
    /// ```
    public init(_ write: @escaping @Sendable (ConsoleLevel, String) -> Void) {
        self.write = write
    }

    /// Each message logged on `logger` at its kind's level (`ConsoleLevel.logLevel`), with the
    /// console method in the metadata (`console: "warn"`).
    ///
    /// ```swift
    /// Console(context: context, output: .logger(Logger(label: "scripts")))
    /// ```
    public static func logger(_ logger: Logger) -> ConsoleOutput {
        ConsoleOutput { level, text in
            logger.log(level: level.logLevel, "\(text)", metadata: ["console": "\(level)"])
        }
    }

    /// The text alone, and a newline: log, info and debug on standard output; warn, error,
    /// trace and assert on standard error (as Node does).
    ///
    /// ```swift
    /// Console(context: context, output: .standardStreams)
    /// ```
    public static let standardStreams = ConsoleOutput { level, text in
        let handle = level.isDiagnostic ? FileHandle.standardError : FileHandle.standardOutput
        // A closed stream (EPIPE with SIGPIPE ignored) drops the text: it is not the script's
        // error, and must not stop the host.
        try? handle.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Nowhere: every message is dropped. The web page's default, as WKWebView's page console
    /// goes nowhere unless an inspector is attached.
    ///
    /// ```swift
    /// Console(context: context, output: .discarded)
    /// ```
    public static let discarded = ConsoleOutput { _, _ in }
}
