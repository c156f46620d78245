import Foundation
import Testing

@testable import DuktapeWeb

/// The stream protocol as the host sees it: loader.html keeps several chunks waiting for their
/// replies, whose handlers run concurrently, so chunks can arrive out of order and the host puts
/// them back in order; anything else out of order is a protocol violation that ends the request.
@Suite("Loader stream protocol", .timeLimit(.minutes(5)))
struct LoaderTransferTests {
    func transfer(_ directory: URL, _ messages: Messages) -> LoaderTransfer {
        LoaderTransfer(request: WebLoaderRequest(requestID: "r", method: .downloadStream), directory: directory,
                       handler: messages.handler)
    }

    func start(total: Int) -> [String: Any] { ["type": "b64streamstart", "total": NSNumber(value: total)] }
    /// A chunk as loader.html sends it (with the stream's total, 8 bytes or 0 for unknown).
    func chunk(_ order: Int, _ text: String, total: Int = 0) -> [String: Any] {
        ["type": "b64streaming", "chrunkOrder": NSNumber(value: order), "value": Data(text.utf8), "total": NSNumber(value: total)]
    }
    let end: [String: Any] = ["type": "b64streamend", "done": true]

    /// Sends the end; returns the finished file's text (the file removed) and every message, or
    /// nil (an issue recorded) when the stream did not end with a file.
    func endedText(_ transfer: LoaderTransfer, _ messages: Messages) async throws -> (String, [WebLoaderResponse])? {
        try await transfer.receive(end)
        let (responses, error) = await messages.terminal()
        #expect(error == nil)
        guard case .streamEnd(let file)? = responses.last?.type else {
            Issue.record("\(responses.map(\.type))")
            return nil
        }
        defer { try? FileManager.default.removeItem(at: file) }
        return (try String(contentsOf: file, encoding: .utf8), responses)
    }

    func progress(_ responses: [WebLoaderResponse]) -> [Double?] {
        responses.compactMap { response -> Double?? in
            if case .streaming(let progress) = response.type { return .some(progress) } else { return nil }
        }
    }

    /// A stream that fails removes its file only while the path is still that file: one the
    /// caller moved away (its path came with `streamStart`) and replaced is left alone.
    @Test func aFailedStreamNeverRemovesWhatReplacedItsFile() async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 0))
            let path = try #require(files(in: directory).first)
            let file = directory.appendingPathComponent(path), moved = directory.appendingPathComponent("moved")
            try FileManager.default.moveItem(at: file, to: moved)
            try Data("the caller's".utf8).write(to: file)
            transfer.fail(.cancelled(requestID: "r", url: nil))
            _ = await messages.terminal()
            #expect(try String(contentsOf: file, encoding: .utf8) == "the caller's")
        }
    }

    @Test func chunksArrivingEarlyAreWrittenInTheirTurn() async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 8))
            var turns: [ChunkTurn] = []
            for (order, text) in [(3, "gh"), (2, "ef")] {
                if case .early(let turn) = transfer.accept(chunk(order, text, total: 8)) { turns.append(turn) }
            }
            #expect(turns.count == 2)
            for (order, text) in [(0, "ab"), (1, "cd")] { try await transfer.receive(chunk(order, text, total: 8)) }
            for turn in turns { #expect(await turn.written()) }
            guard let (text, responses) = try await endedText(transfer, messages) else { return }
            #expect(text == "abcdefgh")
            #expect(progress(responses) == [0.25, 0.5, 0.75, 1])
            #expect(responses.map(\.received) == [0, 2, 4, 6, 8, 8])
        }
    }

    /// A chunk that comes early is not answered until it is written: the page, which sends the
    /// next chunk only for an answer, can never get further ahead than its own 8.
    @Test func anEarlyChunksReplyWaitsForItsTurn() async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 0))
            var turns: [ChunkTurn] = []
            for order in 1..<LoaderTransfer.reorderWindow {
                guard case .early(let turn) = transfer.accept(chunk(order, "\(order)")) else {
                    Issue.record("chunk \(order) was not kept")
                    return
                }
                turns.append(turn)
            }
            #expect(turns.allSatisfy { !$0.hasEnded })
            try await transfer.receive(chunk(0, "0"))
            for turn in turns { #expect(await turn.written()) }
            guard let (text, _) = try await endedText(transfer, messages) else { return }
            #expect(text == "01234567")
        }
    }

    /// Early chunks that hold too many bytes, and a failure while chunks wait for their turn:
    /// the request ends, and the waiting chunks' replies are refusals.
    @Test func earlyChunksAreBoundedAndEndWithTheRequest() async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 0))
            var big = chunk(1, "")
            big["value"] = Data(count: LoaderTransfer.earlyBytesLimit)
            guard case .early(let turn) = transfer.accept(big) else {
                Issue.record("the first early chunk was not kept")
                return
            }
            _ = transfer.accept(chunk(2, "x"))
            #expect(await turn.written() == false)
            let (_, error) = await messages.terminal()
            guard case .protocolViolation(_, _, let message)? = error as? WebLoaderError else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(message.contains("bytes"))
            #expect(files(in: directory).isEmpty)
        }
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 0))
            let late = UncheckedMessage(value: chunk(3, "late"))
            let waiting = Task { try await transfer.receive(late.value) }
            try await transfer.receive(["type": "b64streamend", "done": false, "value": "TypeError: Failed to fetch: network",
                                        "errorName": "TypeError", "errorCode": "ECONNRESET", "errorReason": "network"])
            await #expect(throws: ScriptMessageReplyError.self) { try await waiting.value }
            let (_, error) = await messages.terminal()
            #expect(error as? WebLoaderError == .connectionFailed(requestID: "r", url: nil, reason: "network"))
            #expect(files(in: directory).isEmpty)
        }
    }

    /// As the page's bridge delivers them: one task per message, started in order, running
    /// concurrently.
    @Test func concurrentChunksMakeTheSameFile() async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 0))
            var expected = ""
            for round in 0..<20 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<8 {
                        let message = chunk(round * 8 + index, "[\(round * 8 + index)]")
                        let sendable = UncheckedMessage(value: message)
                        group.addTask { try await transfer.receive(sendable.value) }
                        expected += "[\(round * 8 + index)]"
                    }
                    try await group.waitForAll()
                }
            }
            guard let (text, responses) = try await endedText(transfer, messages) else { return }
            #expect(text == expected)
            #expect(progress(responses) == Array(repeating: nil, count: 160))
            #expect(responses.map(\.received) == responses.map(\.received).sorted())
        }
    }

    /// A chunk repeated, one from the past, one too far ahead (8, where loader.html never has
    /// more than 8 chunks unanswered), and an end that leaves a chunk unwritten: each ends the request with a protocol violation, removes the partial file,
    /// and refuses what the page sends next.
    @Test(arguments: [
        [(1, "b"), (1, "b")],
        [(0, "a"), (0, "a")],
        [(LoaderTransfer.reorderWindow, "far")],
        [(-1, "negative")],
        [(1, "gap")],
    ])
    func chunksOutOfTheProtocolEndTheRequest(chunks: [(Int, String)]) async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 0))
            // `accept`, not `receive`: an early chunk's reply would wait for a turn that never comes.
            for (order, text) in chunks { _ = transfer.accept(chunk(order, text)) }
            if !transfer.isEnded { try await transfer.receive(end) }
            let (responses, error) = await messages.terminal()
            guard case .protocolViolation(let id, _, let message)? = error as? WebLoaderError else {
                Issue.record("\(String(describing: error)) \(responses.map(\.type))")
                return
            }
            #expect(id == "r" && message.contains("chunk"))
            #expect(files(in: directory).isEmpty)
            await #expect(throws: ScriptMessageReplyError.self) { try await transfer.receive(chunk(0, "late")) }
            let terminals = await messages.terminal().responses.filter(\.isTerminal)
            #expect(terminals.count == 1)
        }
    }
}

/// A message dictionary handed to a task (its values are plain Foundation values).
private struct UncheckedMessage: @unchecked Sendable {
    let value: [String: Any]
}
