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

    func progress(_ responses: [WebLoaderResponse]) -> [Double?] {
        responses.compactMap { response -> Double?? in
            if case .streaming(let progress) = response.type { return .some(progress) } else { return nil }
        }
    }

    @Test func chunksArrivingEarlyAreWrittenInTheirTurn() async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 8))
            for (order, text) in [(2, "ef"), (3, "gh"), (0, "ab"), (1, "cd")] { try await transfer.receive(chunk(order, text, total: 8)) }
            try await transfer.receive(end)
            let (responses, error) = await messages.terminal()
            #expect(error == nil)
            guard case .streamEnd(let file)? = responses.last?.type else {
                Issue.record("\(responses.map(\.type))")
                return
            }
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try String(contentsOf: file, encoding: .utf8) == "abcdefgh")
            #expect(progress(responses) == [0.25, 0.5, 0.75, 1])
            #expect(responses.map(\.received) == [0, 2, 4, 6, 8, 8])
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
            try await transfer.receive(end)
            let (responses, error) = await messages.terminal()
            #expect(error == nil)
            guard case .streamEnd(let file)? = responses.last?.type else {
                Issue.record("\(responses.map(\.type))")
                return
            }
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try String(contentsOf: file, encoding: .utf8) == expected)
            #expect(progress(responses) == Array(repeating: nil, count: 160))
            #expect(responses.map(\.received) == responses.map(\.received).sorted())
        }
    }

    /// A chunk repeated, one from the past, one too far ahead, and an end that leaves a chunk
    /// unwritten: each ends the request with a protocol violation, removes the partial file,
    /// and refuses what the page sends next.
    @Test(arguments: [
        [(1, "b"), (1, "b")],
        [(0, "a"), (0, "a")],
        [(LoaderTransfer.reorderWindow + 1, "far")],
        [(-1, "negative")],
        [(1, "gap")],
    ])
    func chunksOutOfTheProtocolEndTheRequest(chunks: [(Int, String)]) async throws {
        try await withDirectory { directory in
            let messages = Messages()
            let transfer = transfer(directory, messages)
            try await transfer.receive(start(total: 0))
            var refused = false
            for (order, text) in chunks {
                do { try await transfer.receive(chunk(order, text)) } catch { refused = true }
            }
            if !refused { try await transfer.receive(end) }
            let (responses, error) = await messages.terminal()
            guard case .protocolViolation(let id, let message)? = error as? WebLoaderError else {
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
