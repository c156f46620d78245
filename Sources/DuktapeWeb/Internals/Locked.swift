import Foundation

/// A value behind an `NSLock` (a pthread mutex). Not `Synchronization.Mutex`: on Linux that is
/// built on futexes that ThreadSanitizer does not see, so every access it guards would be
/// reported as a race in `make test-sanitize`.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
