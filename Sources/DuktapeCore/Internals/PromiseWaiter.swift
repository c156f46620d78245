/// One Swift `await` of a JavaScript promise (`JSValue.awaited()`): the continuation and the
/// outcome, whichever arrives first; the first outcome wins (fulfillment, rejection or
/// cancellation), later ones are ignored.
final class PromiseWaiter: Sendable {
    private enum State {
        case waiting
        case started(CheckedContinuation<JSValue, any Error>)
        case finishedEarly(Result<JSValue, any Error>)
        case done
    }

    private let state = Guarded<State>(.waiting)

    /// Gives the continuation; resumes it now if the outcome is already known.
    func start(_ continuation: CheckedContinuation<JSValue, any Error>) {
        let early = state.withLock { state -> Result<JSValue, any Error>? in
            switch state {
            case .finishedEarly(let outcome):
                state = .done
                return outcome
            default:
                state = .started(continuation)
                return nil
            }
        }
        if let early { continuation.resume(with: early) }
    }

    /// Whether an outcome was delivered.
    var isFinished: Bool {
        state.withLock { state in
            switch state {
            case .waiting, .started: return false
            case .finishedEarly, .done: return true
            }
        }
    }

    /// Delivers the outcome (once).
    func finish(_ outcome: Result<JSValue, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<JSValue, any Error>? in
            switch state {
            case .waiting:
                state = .finishedEarly(outcome)
                return nil
            case .started(let continuation):
                state = .done
                return continuation
            case .finishedEarly, .done:
                return nil
            }
        }
        continuation?.resume(with: outcome)
    }

    deinit {
        // The reactions that held this waiter were released without running (their heap was
        // destroyed): the await ends instead of hanging.
        if case .started(let continuation) = state.withLock({ $0 }) {
            continuation.resume(throwing: PromiseAbandoned())
        }
    }
}

/// The promise's virtual machine was destroyed before it settled.
struct PromiseAbandoned: Error, CustomStringConvertible {
    var description: String { "the promise's virtual machine was destroyed before it settled" }
}
