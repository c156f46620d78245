import DuktapeCore
import Foundation

extension WebLoader {
    /// Feeds `messages` (bridge message bodies, as the page would post them, `requestId` and
    /// token aside) to one request's state machine, then cancels the request, and checks the
    /// invariants every request keeps: at most one terminal message, none before the last
    /// message it handled, exactly one in all once cancelled, and no file left in `directory`
    /// but a reported stream (which the caller owns, and this removes). Returns what broke, or
    /// nil. For the fuzz harnesses (`Fuzz/`); not API.
    ///
    /// ```swift
    /// let problem = WebLoader._checkBridgeMessages([["type": "b64streamstart"]], directory: temporary)
    /// ```
    @_spi(Fuzzing)
    public static func _checkBridgeMessages(_ messages: [[String: Any]], directory: URL) -> String? {
        let log = DeliveryLog()
        let request = WebLoaderRequest(requestID: "fuzz", method: .downloadStream)
        let transfer = LoaderTransfer(request: request, directory: directory) { response, error in
            log.record(response, error)
        }
        let done = DispatchSemaphore(value: 0)
        let box = MessagesBox(messages: messages)
        Task {
            // As the bridge hands them over, except that an early chunk's turn is awaited only
            // once the request has ended (nothing later would bring it).
            var turns: [ChunkTurn] = []
            for message in box.messages {
                if case .early(let turn) = transfer.accept(message) { turns.append(turn) }
                await transfer.flush()
            }
            transfer.fail(.cancelled(requestID: "fuzz", url: nil))
            for turn in turns { _ = await turn.written() }
            await transfer.flush()
            done.signal()
        }
        done.wait()
        return log.check(directory: directory)
    }
}

/// The messages, handed to the task once.
private struct MessagesBox: @unchecked Sendable {
    let messages: [[String: Any]]
}

/// What the handler saw, checked at the end.
private final class DeliveryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var responses: [WebLoaderResponse] = []

    func record(_ response: WebLoaderResponse, _ error: (any Error)?) {
        lock.withLock { responses.append(response) }
    }

    func check(directory: URL) -> String? {
        let responses = lock.withLock { self.responses }
        let terminals = responses.filter(\.isTerminal).count
        guard terminals == 1 else { return "\(terminals) terminal messages: \(responses.map(\.type))" }
        guard responses.last?.isTerminal == true else { return "a message after the terminal one: \(responses.map(\.type))" }
        var reported: URL?
        if case .streamEnd(let file) = responses.last?.type { reported = file.standardizedFileURL }
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .map { directory.appendingPathComponent($0).standardizedFileURL }
        if let reported { try? FileManager.default.removeItem(at: reported) }
        let stray = left.filter { $0 != reported }
        return stray.isEmpty ? nil : "files left behind: \(stray.map(\.lastPathComponent)) after \(responses.map(\.type))"
    }
}

extension WebPage {
    /// The bytes the page's heap holds now (`JSVirtualMachine.memoryUsage`), read from any
    /// thread. For the fuzz harnesses (`Fuzz/`), which watch it over a long run; not API.
    ///
    /// ```swift
    /// print(page._heapBytes)
    /// ```
    @_spi(Fuzzing)
    public var _heapBytes: Int { context.virtualMachine.memoryUsage }
}
