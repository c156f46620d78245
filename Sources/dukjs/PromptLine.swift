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

    /// A line is read from now on, after `prompt`.
    func begin(prompt: String) {
        lock.withLock { editing = (prompt, "", 0) }
    }

    /// The typed text and the cursor's offset in it.
    func update(text: [Character], cursor: Int) {
        lock.withLock {
            if editing != nil { editing?.text = String(text); editing?.back = text.count - cursor }
        }
    }

    /// The line was taken (or abandoned): output no longer redraws it.
    func end() {
        lock.withLock { editing = nil }
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

    /// Writes the editor's own output (its echo and redraws) to standard output.
    func echo(_ text: String) {
        lock.withLock { try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) }
    }

    /// The prompt, the text, and the cursor moved back to its place.
    private static func drawing(_ line: (prompt: String, text: String, back: Int)) -> String {
        line.prompt + line.text + (line.back > 0 ? "\u{1B}[\(line.back)D" : "")
    }
}
