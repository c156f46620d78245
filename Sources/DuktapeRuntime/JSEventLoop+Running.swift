import DuktapeCore
import Foundation

extension JSEventLoop {
    enum Mode {
        case untilIdle
        case until(Date)
        case whileTrue(() -> Bool)
        case ready
        case advance(to: Duration)
        /// The loop's own thread: waits for work until stopped.
        case forever
    }

    /// What an idle loop does next.
    private enum Idle {
        case turnAgain
        case moveClock(to: Duration)
        case finish
    }

    /// The loop: turns until the mode says to return, the loop is stopped or its context gone.
    func drive(_ mode: Mode) throws(JSEventLoopError) {
        try claim(ownThread: { if case .forever = mode { true } else { false } }())
        defer {
            state.withLock { $0.runner = nil }
        }
        while true {
            if case .whileTrue(let condition) = mode, !condition() { return }
            guard let ran = turn() else {
                stop()  // the context was released
                return
            }
            if state.withLock({ $0.contextGone }) {
                // The loop's globals were released: with the context (stop), or because a script
                // deleted them all while the context lives on (carry on).
                if context == nil {
                    stop()
                    return
                }
                state.withLock { $0.contextGone = false }
            }
            if state.withLock({ $0.isStopped }) { return }
            if case .until(let deadline) = mode, Date() >= deadline { return }
            if ran > 0 { continue }
            switch idle(mode) {
            case .turnAgain: continue
            case .moveClock(let time):
                if let clock, time > clock.now { clock.advance(by: time - clock.now) }
            case .finish: return
            }
        }
    }

    private func claim(ownThread: Bool) throws(JSEventLoopError) {
        let refusal = state.withLock { state -> JSEventLoopError? in
            if state.isStopped { return .stopped }
            if state.runner != nil || (state.ownsThread && !ownThread) { return .alreadyRunning }
            state.runner = pthread_self()
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Decides, under the loop's lock, what an idle loop does; waits there (for a post, a
    /// timer's time, a stop, the context's release) when it has to. Time is read under the lock,
    /// so that a clock moved by `advance(by:)` just before cannot be missed.
    private func idle(_ mode: Mode) -> Idle {
        var decision = Idle.turnAgain
        state.withLock(waitingIf: { state in
            decision = .turnAgain
            if state.isStopped || state.contextGone || !state.posted.isEmpty || immediates.pendingCount > 0 {
                return (false, nil)
            }
            let now = self.now
            let next = state.timers.nextDue().map { Duration.nanoseconds($0) }
            if let next, next <= now { return (false, nil) }
            switch mode {
            case .ready:
                decision = .finish
                return (false, nil)
            case .advance(let target):
                if let next, next <= target {
                    decision = .moveClock(to: next)
                } else {
                    decision = target > now ? .moveClock(to: target) : .finish
                }
                return (false, nil)
            case .untilIdle, .until, .whileTrue:
                if next == nil && state.pending == 0 {
                    decision = .finish
                    return (false, nil)
                }
            case .forever:
                break
            }
            var timeout: Duration?
            if let next {
                if clock != nil {
                    // Virtual time: jump to the next timer, unless native work may still post.
                    if state.pending == 0, !isForever(mode) {
                        decision = .moveClock(to: next)
                        return (false, nil)
                    }
                } else {
                    timeout = next - now
                }
            }
            if case .until(let limit) = mode {
                let left = Duration.seconds(max(0, limit.timeIntervalSinceNow))
                timeout = min(timeout ?? left, left)
            }
            return (true, timeout)
        })
        return decision
    }

    private func isForever(_ mode: Mode) -> Bool {
        if case .forever = mode { true } else { false }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    // MARK: - One turn

    /// One turn: the timers due at its start (in due order, then creation order; timers made
    /// during the turn wait for the next), then the posted work queued so far, then the
    /// immediates queued before this phase. Jobs drain after each callback. Returns how many
    /// callbacks ran, or nil when the context is gone.
    private func turn() -> Int? {
        guard let context, let vm = context.virtualMachine else { return nil }
        // With automatic draining (the default), each callback's call drains the jobs itself.
        let drainsItself = vm.drainsMicrotasksAutomatically
        func finishMacrotask() {
            if !drainsItself, vm.hasPendingMicrotasks { vm.drainMicrotasks() }
        }
        var ran = 0
        let now = Self.nanosecondsNow(clock: clock, origin: origin)
        let lastSequence = state.withLock { $0.timers.lastSequence }
        while let (_, timer) = state.withLock({ $0.isStopped ? nil : $0.timers.popDue(at: now, upTo: lastSequence) }) {
            timer.callback.callDiscardingResult(withValues: timer.arguments)
            finishMacrotask()
            ran += 1
        }
        let posted = state.withLock { state in
            defer { state.posted = [] }
            return state.isStopped ? [] : state.posted
        }
        for (index, work) in posted.enumerated() {
            if state.withLock({ $0.isStopped }) {
                // Stopped by an earlier callback: the rest of the batch has not run, and fails.
                for dropped in posted[index...] { dropped.cancel?(.stopped) }
                break
            }
            do {
                try work.run(context)
            } catch {
                report(error, in: context)
            }
            // Posted work may make several calls, or none: jobs it left run now in any case.
            if vm.hasPendingMicrotasks { vm.drainMicrotasks() }
            ran += 1
        }
        ran += immediates.runPhase(in: context, afterEach: finishMacrotask)
        if immediatesKeepContext.load(), immediates.pendingCount == 0 {
            // Nothing waits any more: the context is no longer held for the immediates (checked
            // again under the lock setImmediate's first entry takes to hold it; released after).
            let kept = state.withLock { state -> JSContext? in
                guard immediates.pendingCount == 0 else { return nil }
                immediatesKeepContext.store(false)
                defer { state.immediatesKeepAlive = nil }
                return state.immediatesKeepAlive
            }
            withExtendedLifetime(kept) {}
        }
        return ran
    }

    /// Gives an error thrown by posted work to the context's exception handler, as the core
    /// reports every uncaught exception (the handler's re-entry budget and deadlines included).
    func report(_ error: any Error, in context: JSContext) {
        guard let value = (error as? JSException)?.value ?? JSValue(newErrorFromMessage: String(describing: error), in: context) else { return }
        context.notifyException(value)
    }
}
