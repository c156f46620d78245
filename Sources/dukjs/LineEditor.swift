import Foundation

/// Line editing on a terminal, written on termios: the terminal is in raw mode only while a line
/// is being read (so output, and Ctrl-C as SIGINT, behave normally while a script runs).
///
/// Keys: arrows, Home/End, Ctrl-A/E/B/F, Backspace, Delete, Ctrl-K/U/W (kill), Ctrl-L (clear),
/// Up/Down and Ctrl-P/N (history), Ctrl-C (cancel the line), Ctrl-D (end, on an empty line).
final class LineEditor {
    enum Input {
        case line(String)
        /// Ctrl-C: the line was cancelled (`wasEmpty` when nothing had been typed).
        case interrupt(wasEmpty: Bool)
        case endOfInput
    }

    private var history: [String] = []
    private let historyFile: URL?
    private static let historyLimit = 1000

    /// `historyFile`: lines are loaded from it and appended to it (nil: the session only).
    init(historyFile: URL?) {
        self.historyFile = historyFile
        if let historyFile, let text = try? String(contentsOf: historyFile, encoding: .utf8) {
            history = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(Self.historyLimit).map(String.init)
        }
    }

    /// The history file: `$DUKJS_HISTORY` (empty: none), else `~/.dukjs_history`.
    static var defaultHistoryFile: URL? {
        if let path = ProcessInfo.processInfo.environment["DUKJS_HISTORY"] {
            return path.isEmpty ? nil : URL(fileURLWithPath: path)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".dukjs_history")
    }

    func readLine(prompt: String) -> Input {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return .endOfInput }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(ICRNL | IXON)
        // TCSANOW, not TCSAFLUSH: input typed ahead while a script ran is kept.
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        let shared = PromptLine.shared
        defer { shared.end() }

        var line: [Character] = []
        var cursor = 0
        var historyIndex = history.count
        var draft: [Character] = []
        shared.begin(prompt: prompt)

        func redraw() {
            var text = "\r" + prompt + String(line) + "\u{1B}[K"
            let back = line.count - cursor
            if back > 0 { text += "\u{1B}[\(back)D" }
            shared.update(text: line, cursor: cursor, echo: text)
        }
        func recall(_ index: Int) {
            if historyIndex == history.count { draft = line }
            historyIndex = index
            line = index == history.count ? draft : Array(history[index])
            cursor = line.count
            redraw()
        }

        while let byte = readByte() {
            switch byte {
            case 13, 10:
                // Cooked mode is back before the newline is shown: once the output says the
                // line was taken, Ctrl-C is a signal again (not a byte left in the queue).
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                shared.end(echo: "\r\n")
                let text = String(line)
                remember(text)
                return .line(text)
            case 3:
                shared.end(echo: "^C\r\n")
                return .interrupt(wasEmpty: line.isEmpty)
            case 4:
                if line.isEmpty {
                    shared.end(echo: "\r\n")
                    return .endOfInput
                }
                if cursor < line.count {
                    line.remove(at: cursor)
                    redraw()
                }
            case 127, 8:
                if cursor > 0 {
                    cursor -= 1
                    line.remove(at: cursor)
                    redraw()
                }
            case 1: cursor = 0; redraw()
            case 5: cursor = line.count; redraw()
            case 2: if cursor > 0 { cursor -= 1; redraw() }
            case 6: if cursor < line.count { cursor += 1; redraw() }
            case 11: line.removeSubrange(cursor...); redraw()
            case 21: line.removeSubrange(..<cursor); cursor = 0; redraw()
            case 23:
                var start = cursor
                while start > 0, line[start - 1] == " " { start -= 1 }
                while start > 0, line[start - 1] != " " { start -= 1 }
                line.removeSubrange(start..<cursor)
                cursor = start
                redraw()
            case 12: write("\u{1B}[H\u{1B}[2J"); redraw()
            case 16: if historyIndex > 0 { recall(historyIndex - 1) }
            case 14: if historyIndex < history.count { recall(historyIndex + 1) }
            case 27:
                guard let next = readByte() else { break }
                guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O"), let key = readByte() else { break }
                switch key {
                case UInt8(ascii: "A"): if historyIndex > 0 { recall(historyIndex - 1) }
                case UInt8(ascii: "B"): if historyIndex < history.count { recall(historyIndex + 1) }
                case UInt8(ascii: "C"): if cursor < line.count { cursor += 1; redraw() }
                case UInt8(ascii: "D"): if cursor > 0 { cursor -= 1; redraw() }
                case UInt8(ascii: "H"): cursor = 0; redraw()
                case UInt8(ascii: "F"): cursor = line.count; redraw()
                case UInt8(ascii: "3"):
                    if readByte() == UInt8(ascii: "~"), cursor < line.count { line.remove(at: cursor); redraw() }
                default: break
                }
            default:
                guard byte >= 32 else { break }
                guard let character = readCharacter(startingWith: byte) else { break }
                line.insert(character, at: cursor)
                cursor += 1
                if cursor == line.count {
                    shared.update(text: line, cursor: cursor, echo: String(character))
                } else {
                    redraw()
                }
            }
        }
        return .endOfInput
    }

    private func remember(_ text: String) {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty, history.last != text else { return }
        history.append(text)
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        guard let historyFile else { return }
        if !FileManager.default.fileExists(atPath: historyFile.path) {
            _ = FileManager.default.createFile(atPath: historyFile.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        if let handle = try? FileHandle(forWritingTo: historyFile) {
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data((text + "\n").utf8))
            try? handle.close()
        }
    }

    /// A UTF-8 sequence's character, given its first byte (nil for invalid input).
    private func readCharacter(startingWith first: UInt8) -> Character? {
        let length = first < 0x80 ? 1 : first >> 5 == 0b110 ? 2 : first >> 4 == 0b1110 ? 3 : first >> 3 == 0b11110 ? 4 : 0
        guard length > 0 else { return nil }
        var bytes = [first]
        while bytes.count < length, let next = readByte() { bytes.append(next) }
        return String(validating: bytes, as: UTF8.self)?.first
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private func write(_ text: String) {
        PromptLine.shared.echo(text)
    }
}
