import Foundation

/// The terminal's line being edited at the REPL's prompt, shared by the line editor and
/// whatever prints while the user types (a timer's `console.log`, an uncaught error): such
/// output clears the prompt line, is printed, and the prompt and the typed text are drawn again
/// below it with the cursor where it was, as Node's REPL does. All terminal output of the
/// process goes through `write`, under one lock, so an edit and an output never interleave.
final class PromptLine: @unchecked Sendable {
    // @unchecked: behind `lock`.
    /// The process's one terminal.
    static let shared = PromptLine()

    private let lock = NSLock()
    /// The prompt and the text being edited, and how many characters the cursor is from the
    /// end; nil when no line is being read.
    private var editing: (prompt: String, text: String, back: Int)?

    /// A line is read from now on: `prompt` is drawn, in the same step.
    func begin(prompt: String) {
        lock.withLock {
            editing = (prompt, "", 0)
            try? FileHandle.standardOutput.write(contentsOf: Data(prompt.utf8))
        }
    }

    /// The typed text and the cursor's offset in it are now these, and `echo` shows the change
    /// on the terminal: one step, so that an output never sees the one without the other.
    func update(text: [Character], cursor: Int, echo: String) {
        lock.withLock {
            if editing != nil { editing?.text = String(text); editing?.back = text.count - cursor }
            try? FileHandle.standardOutput.write(contentsOf: Data(echo.utf8))
        }
    }

    /// The line was taken (or abandoned), and `echo` (its end of line) is written in the same
    /// step: output from then on goes below it.
    func end(echo: String = "") {
        lock.withLock {
            let wasEditing = editing != nil
            editing = nil
            if wasEditing, !echo.isEmpty { try? FileHandle.standardOutput.write(contentsOf: Data(echo.utf8)) }
        }
    }

    /// Writes `text` to `handle`; while a line is being edited, above it: the line is cleared
    /// first and drawn again after.
    func write(_ text: String, to handle: FileHandle) {
        lock.withLock {
            guard let editing else {
                try? handle.write(contentsOf: Data(text.utf8))
                return
            }
            // The prompt line is on standard output: cleared there, then the output (on its own
            // stream, so standard error stays unbuffered and ordered), then the line again.
            try? FileHandle.standardOutput.write(contentsOf: Data("\r\u{1B}[K".utf8))
            try? handle.write(contentsOf: Data(text.utf8))
            try? FileHandle.standardOutput.write(contentsOf: Data(Self.drawing(editing).utf8))
        }
    }

    /// Writes the editor's own output that changes nothing of the line (a screen clear) to
    /// standard output.
    func echo(_ text: String) {
        lock.withLock { try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) }
    }

    /// The prompt, the text, and the cursor moved back to its place.
    private static func drawing(_ line: (prompt: String, text: String, back: Int)) -> String {
        line.prompt + line.text + (line.back > 0 ? "\u{1B}[\(line.back)D" : "")
    }
}
