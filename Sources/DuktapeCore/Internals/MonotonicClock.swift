import CDuktape

/// The system's monotonic clock (`CLOCK_MONOTONIC`), which a VM without a manual clock measures
/// its deadlines on; the runtime's timers use it too.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary start.
    package static var nanoseconds: Int64 { Int64(clamping: cduk_monotonic_ns()) }
}
