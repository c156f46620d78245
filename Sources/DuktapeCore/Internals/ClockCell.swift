import CDuktape

/// The storage of a `ManualClock`: an atomic nanosecond count in C, which the engine's interrupt
/// check and allocator read on the thread running a script while another thread advances it.
final class ClockCell: @unchecked Sendable {
    // @unchecked: the C cell is atomic; the pointer itself never changes.
    let pointer: OpaquePointer

    init(startingAt nanoseconds: UInt64) {
        // cduk_clock_create fails only when malloc does (16 bytes): nothing survivable follows.
        guard let pointer = cduk_clock_create(nanoseconds) else {
            preconditionFailure("DuktapeCore: out of memory creating a clock")
        }
        self.pointer = pointer
    }

    deinit {
        cduk_clock_destroy(pointer)
    }

    var nanoseconds: UInt64 { cduk_clock_read(pointer) }

    func advance(by nanoseconds: UInt64) {
        cduk_clock_advance(pointer, nanoseconds)
    }
}
