import DuktapeCore
import Foundation

/// The answer of a `$flex` action, given later (FlexHybrid's `FlexAction`): the page's promise
/// waits until one of `resolve(_:)`, `resolveVoid()` or `reject(_:)` is called, once. A second
/// call is ignored, returns false, and is reported on the page's console; an action dropped
/// without an answer rejects the promise ("the action was never settled"), and one not settled
/// within the interface's timeout is rejected by it.
///
/// ```swift
/// try component.setAction("pick") { action, arguments in
///     DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { action.resolve("blue") }
/// }
/// ```
public final class FlexAction: @unchecked Sendable {
    // @unchecked: the state is behind `state`'s lock.

    /// The interface's name (`$flex.<name>`).
    ///
    /// ```swift
    /// print(action.name)
    /// ```
    public let name: String
    private let report: @Sendable (String) -> Void
    /// The answer, which the component waits on without holding the action (so that an action
    /// dropped unanswered is seen).
    let slot = Slot(State())
    typealias Slot = Guarded<State>

    struct State {
        var settled = false
        /// The answer given before anyone waited for it.
        var early: Result<BridgeValue, ScriptMessageReplyError>?
        var waiter: CheckedContinuation<BridgeValue, any Error>?
    }

    init(name: String, report: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.report = report
    }

    deinit {
        // Never answered: the page is told rather than left waiting until its timeout.
        Self.fail(slot, ScriptMessageReplyError("$flex.\(name): the action was never settled"))
    }

    /// Fulfils the page's promise with `value` (converted as an interface's result is).
    ///
    /// ```swift
    /// action.resolve(["total": 3])
    /// ```
    @discardableResult
    public func resolve(_ value: Any?) -> Bool {
        do {
            return settle(.success(BridgeValue(value: try BridgeValues.checked(value, of: name))))
        } catch {
            return settle(.failure(error as? ScriptMessageReplyError ?? ScriptMessageReplyError(BridgeValues.reason(error))))
        }
    }

    /// Fulfils the page's promise with undefined.
    ///
    /// ```swift
    /// action.resolveVoid()
    /// ```
    @discardableResult
    public func resolveVoid() -> Bool {
        settle(.success(BridgeValue(value: nil)))
    }

    /// Rejects the page's promise with an `Error` whose message is `reason` (a generic one when
    /// nil).
    ///
    /// ```swift
    /// action.reject("the user cancelled")
    /// ```
    @discardableResult
    public func reject(_ reason: String? = nil) -> Bool {
        settle(.failure(ScriptMessageReplyError(reason ?? "$flex.\(name) was rejected")))
    }

    private func settle(_ result: Result<BridgeValue, ScriptMessageReplyError>) -> Bool {
        let (first, waiter) = slot.withLock { state -> (Bool, CheckedContinuation<BridgeValue, any Error>?) in
            guard !state.settled else { return (false, nil) }
            state.settled = true
            defer { state.waiter = nil }
            if state.waiter == nil { state.early = result }
            return (true, state.waiter)
        }
        guard first else {
            report("$flex.\(name): the action was already settled; this answer is ignored")
            return false
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
        return true
    }

    /// Settles the action of `slot` as timed out (nothing when it is settled already).
    static func expire(_ slot: Slot, name: String) {
        fail(slot, ScriptMessageReplyError("$flex.\(name): no result within its timeout"))
    }

    /// Settles the action of `slot` with `failure`, unless it is settled already.
    private static func fail(_ slot: Slot, _ failure: ScriptMessageReplyError) {
        let waiter = slot.withLock { state -> CheckedContinuation<BridgeValue, any Error>? in
            guard !state.settled else { return nil }
            state.settled = true
            defer { state.waiter = nil }
            if state.waiter == nil { state.early = .failure(failure) }
            return state.waiter
        }
        waiter?.resume(throwing: failure)
    }

    /// Waits for the answer in `slot` (cancelled: the action is settled as rejected, and later
    /// answers are ignored).
    static func answer(in slot: Slot) async throws -> BridgeValue {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = slot.withLock { state -> Result<BridgeValue, ScriptMessageReplyError>?? in
                    if let early = state.early { return .some(early) }
                    if state.settled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                switch ready {
                case .some(.some(let result)): continuation.resume(with: result.mapError { $0 as any Error })
                case .some(.none): continuation.resume(throwing: CancellationError())
                case .none: break
                }
            }
        } onCancel: {
            let waiter = slot.withLock { state -> CheckedContinuation<BridgeValue, any Error>? in
                state.settled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
