/// A clock that moves only when told to: for tests that drive time limits (and, in the runtime,
/// timers) without waiting.
///
/// A virtual machine made with a manual clock measures `executionTimeLimit` on it: a script's
/// deadline passes when the clock has been advanced past it, from any thread, whatever the wall
/// clock says.
///
/// ```swift
/// let clock = ManualClock()
/// let vm = JSVirtualMachine(clock: clock)!
/// vm.executionTimeLimit = 1
/// // on another thread, while a script loops:
/// clock.advance(by: .seconds(2))      // the script ends with "RangeError: execution timeout"
/// ```
public final class ManualClock: Sendable {
    let cell: ClockCell

    /// A clock whose time starts at `start` (zero by default).
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// ```
    public init(startingAt start: Duration = .zero) {
        cell = ClockCell(startingAt: Self.nanoseconds(start))
    }

    /// The time elapsed on this clock since its zero.
    ///
    /// ```swift
    /// clock.advance(by: .milliseconds(5)); clock.now   // 5 ms
    /// ```
    public var now: Duration {
        .nanoseconds(nanosecondsNow)
    }

    /// The time elapsed on this clock since its zero, in whole nanoseconds (saturated).
    package var nanosecondsNow: Int64 {
        Int64(clamping: cell.nanoseconds)
    }

    /// Moves the clock forward; a negative duration is ignored (the clock never goes back).
    ///
    /// ```swift
    /// clock.advance(by: .seconds(1))
    /// ```
    public func advance(by duration: Duration) {
        cell.advance(by: Self.nanoseconds(duration))
    }

    /// Whole nanoseconds of a duration, 0 for negative ones, saturated at the top.
    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000)).partialValue
    }
}
