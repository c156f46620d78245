import AsyncHTTPClient
import DuktapeCore
import Foundation
import NIOCore
import NIOHTTP1

/// Receives one HTTP response through async-http-client's delegate API: the head is awaited
/// (`head()`), then the body goes where the caller says (`receiveBody(_:)`), each part handed
/// on from the connection's event loop itself.
///
/// Why not the async API's body sequence: it holds one part at a time and asks the event loop
/// for the next only once the consuming task has taken it, so every read from the socket waits
/// for two thread switches. Here the event loop hands each part to the transfer and reads on,
/// and waits only when the page has more than `FetchTransfer.highWater` bytes unread.
///
/// A gzip or deflate body is inflated here, a step of at most `Inflater.stepSize` bytes at a
/// time, each step handed on before the next is made: a part that inflates to many megabytes
/// waits for room like any other bytes, so the host never holds more than the transfer's
/// flow control allows, whatever the compression ratio.
final class ResponseReceiver: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    /// Where the body goes.
    enum Body: Sendable {
        /// To the page, as the transfer's chunks (and to the cache, when it stores the response);
        /// `posted` is called when the transfer asks for a job to deliver a chunk.
        case stream(FetchTransfer, cache: HTTPCache.Writer?, posted: @Sendable () -> Void)
        /// Nowhere: read to the end (the body of `request`'s redirect or 304), failing past
        /// `limit` bytes.
        case discard(limit: Int, request: String)
    }

    private struct State {
        var task: HTTPClient.Task<Void>?
        var head: HTTPResponseHead?
        var headWaiter: CheckedContinuation<HTTPResponseHead, any Error>?
        var body: Body?
        /// A part that came before the caller said where the body goes, and the future it waits
        /// by (async-http-client hands over the next part only once it is completed).
        var early: ByteBuffer?
        var bodyGate: EventLoopPromise<Void>?
        /// The event loop the held part came on (where its inflating goes on).
        var earlyLoop: (any EventLoop)?
        /// The body's inflater, when it is compressed; or why it cannot be inflated (stacked
        /// codings), which fails the body once it goes to the page (a redirect's or a 304's
        /// body, discarded, does not matter).
        var inflater: Result<Inflater, Inflater.Failure>?
        var discarded = 0
        var finished = false
        var endWaiter: CheckedContinuation<Void, any Error>?
        var failure: (any Error)?
    }

    private let state = Guarded(State())
    /// "METHOD url", for the failures this receiver makes.
    private let requestName: String

    private init(requestName: String) {
        self.requestName = requestName
    }

    /// Sends `request` on `client` and returns its receiver (throws when the calling task is
    /// cancelled already: the page closed, or the transfer ended, before the request went out).
    static func start(_ request: HTTPClient.Request, on client: HTTPClient) throws -> ResponseReceiver {
        try Task.checkCancellation()
        let receiver = ResponseReceiver(requestName: "\(request.method.rawValue) \(request.url.absoluteString)")
        let task = client.execute(request: request, delegate: receiver)
        // A task that fails before it starts (the client is shutting down) tells its future
        // only, never the delegate: its failure is passed on, so that nothing waits for ever.
        task.futureResult.whenFailure { error in receiver.didReceiveError(task: task, error) }
        let cancelled = receiver.state.withLock { state -> Bool in
            state.task = task
            return state.failure is CancellationError
        }
        if cancelled { task.cancel() }
        return receiver
    }

    /// The response's head (throws the request's failure).
    func head() async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now = state.withLock { state -> Result<HTTPResponseHead, any Error>? in
                    if let head = state.head { return .success(head) }
                    if let failure = state.failure { return .failure(failure) }
                    state.headWaiter = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Sends the body to `body` and returns once it has all been received (throws the
    /// request's failure, or the discarded body's being too long). A part that arrived before
    /// goes first, and goes even when the request failed after it (a connection closed in the
    /// middle of the body): the page gets the bytes that came, then the error.
    func receiveBody(_ body: Body) async throws {
        let (early, loop, gate) = state.withLock { state -> (ByteBuffer?, (any EventLoop)?, EventLoopPromise<Void>?) in
            state.body = body
            return (state.early.take(), state.earlyLoop.take(), state.bodyGate.take())
        }
        // The held part goes even when the request has failed since (its gate then taken).
        if let early, let loop {
            handOn(early, to: body, on: loop).whenComplete { gate?.completeWith($0) }
        } else {
            gate?.succeed()
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Result<Void, any Error>? in
                    if let failure = state.failure { return .failure(failure) }
                    if state.finished { return .success(()) }
                    state.endWaiter = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// What a part asks of the event loop once handed on.
    private enum Next {
        case readOn
        case waitForRoom(FetchTransfer)
        case fail(any Error)
    }

    /// Hands a part of the body on to `body`, inflated first when the body is compressed; the
    /// future completes when the event loop may read on.
    private func handOn(_ buffer: ByteBuffer, to body: Body, on loop: any EventLoop) -> EventLoopFuture<Void> {
        guard case .stream = body, let inflater = state.withLock({ $0.inflater }) else {
            return future(of: take(buffer, into: body), on: loop)
        }
        switch inflater {
        case .success(let inflater): return inflate(buffer, with: inflater, into: body, on: loop)
        case .failure(let failure): return loop.makeFailedFuture(FetchFailure(.badResponse, "\(requestName): \(failure)"))
        }
    }

    /// Inflates `input` a step at a time into `body`, waiting for room between steps.
    private func inflate(_ input: ByteBuffer, with inflater: Inflater, into body: Body, on loop: any EventLoop) -> EventLoopFuture<Void> {
        var input = input
        while true {
            let output: ByteBuffer
            do {
                output = try inflater.inflate(&input)
            } catch {
                return loop.makeFailedFuture(FetchFailure(.badResponse, "\(requestName): \(error)"))
            }
            if output.readableBytes == 0 {
                if input.readableBytes == 0 { return loop.makeSucceededVoidFuture() }  // the part is used up
                continue  // only a header was used
            }
            let next = take(output, into: body)
            guard case .waitForRoom = next else {
                if case .readOn = next { continue }
                return future(of: next, on: loop)
            }
            // The rest once there is room; submitted, not chained, so that room that came at
            // once does not recurse.
            let rest = input
            return future(of: next, on: loop).flatMap { loop.flatSubmit { self.inflate(rest, with: inflater, into: body, on: loop) } }
        }
    }

    /// The future for what `take` asked of the event loop.
    private func future(of next: Next, on loop: any EventLoop) -> EventLoopFuture<Void> {
        switch next {
        case .readOn:
            return loop.makeSucceededVoidFuture()
        case .waitForRoom(let transfer):
            let room = loop.makePromise(of: Void.self)
            if transfer.whenRoom({ room.succeed() }) { room.succeed() }
            return room.futureResult
        case .fail(let error):
            return loop.makeFailedFuture(error)
        }
    }

    /// Hands `buffer` on to `body`.
    private func take(_ buffer: ByteBuffer, into body: Body) -> Next {
        switch body {
        case .stream(let transfer, let cache, let posted):
            // Ended (aborted, timed out, the page closed): the rest of the body is nobody's, and
            // the request fails rather than end as if the body were whole.
            guard !transfer.isEnded else { return .fail(CancellationError()) }
            cache?.append(buffer.readableBytesView)
            if transfer.queue(buffer) { posted() }
            return transfer.hasRoom ? .readOn : .waitForRoom(transfer)
        case .discard(let limit, let request):
            let discarded = state.withLock { state -> Int in
                state.discarded += buffer.readableBytes
                return state.discarded
            }
            guard discarded <= limit else {
                return .fail(FetchFailure(.tooLarge, "\(request): the body of its redirect or 304 is longer than \(limit) bytes"))
            }
            return .readOn
        }
    }

    /// Cancels the request (a task awaiting it was cancelled).
    private func cancel() {
        let task = state.withLock { state -> HTTPClient.Task<Void>? in
            if state.task == nil, state.failure == nil { state.failure = CancellationError() }
            return state.task
        }
        task?.cancel()
    }

    // MARK: - The delegate (on the connection's event loop)

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        // Codings the host does not inflate (stacked ones) fail a body for the page: its bytes
        // would reach the page still encoded, as if whole.
        let inflater: Result<Inflater, Inflater.Failure>?
        do {
            inflater = try Inflater(contentEncodings: head.headers[canonicalForm: "content-encoding"].map(String.init)).map { .success($0) }
        } catch {
            inflater = .failure(error)
        }
        state.withLock { state in
            state.head = head
            state.inflater = inflater
            return state.headWaiter.take()
        }?.resume(returning: head)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (body, held) = state.withLock { state -> (Body?, EventLoopFuture<Void>?) in
            guard let body = state.body else {
                // Held until the caller says where the body goes (`receiveBody` completes the gate).
                let gate = task.eventLoop.makePromise(of: Void.self)
                state.early = buffer
                state.earlyLoop = task.eventLoop
                state.bodyGate = gate
                return (nil, gate.futureResult)
            }
            return (body, nil)
        }
        guard let body else { return held ?? task.eventLoop.makeSucceededVoidFuture() }
        return handOn(buffer, to: body, on: task.eventLoop)
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        // Called by the client, and by the task's failed future (for a task that never started):
        // the first failure is the one told.
        let (failure, headWaiter, endWaiter, gate) = state.withLock { state in
            let failure = state.failure ?? error
            state.failure = failure
            state.body = nil  // the transfer and the cache writer are not kept by the client's task
            return (failure, state.headWaiter.take(), state.endWaiter.take(), state.bodyGate.take())
        }
        headWaiter?.resume(throwing: failure)
        endWaiter?.resume(throwing: failure)
        gate?.fail(failure)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        // A compressed body that stopped before its stream's end is not whole.
        let truncated = state.withLock { state in
            if case .success(let inflater) = state.inflater { return inflater.hasInput && !inflater.isComplete }
            return false
        }
        if truncated {
            didReceiveError(task: task, FetchFailure(.badResponse, "\(requestName): \(Inflater.Failure.truncated)"))
            return
        }
        state.withLock { state in
            state.finished = true
            state.body = nil
            return state.endWaiter.take()
        }?.resume()
    }
}
