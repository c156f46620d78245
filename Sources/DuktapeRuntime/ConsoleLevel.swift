import Logging

/// The kind of a console message: which console method wrote it.
///
/// ```swift
/// ConsoleLevel.warn.logLevel        // .warning
/// ConsoleLevel.trace.isDiagnostic   // true: standard error
/// ```
public enum ConsoleLevel: Int, Sendable, CaseIterable {
    /// `console.debug`.
    case debug
    /// `console.log`, `dir`, `table`, `group`'s label.
    case log
    /// `console.info`, `count`, `time…`.
    case info
    /// `console.warn`, and the console's own warnings (an unknown `time` label).
    case warn
    /// `console.error`.
    case error
    /// `console.trace`: the message and the JavaScript stack.
    case trace
    /// A failed `console.assert`.
    case assert

    /// The swift-log level: debug and trace → `.debug`, log and info → `.info`, warn →
    /// `.warning`, error and assert → `.error`.
    public var logLevel: Logger.Level {
        switch self {
        case .debug, .trace: .debug
        case .log, .info: .info
        case .warn: .warning
        case .error, .assert: .error
        }
    }

    /// True for what Node writes to standard error: warn, error, trace and assert.
    public var isDiagnostic: Bool {
        switch self {
        case .warn, .error, .trace, .assert: true
        case .debug, .log, .info: false
        }
    }
}
