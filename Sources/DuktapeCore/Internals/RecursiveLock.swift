#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A recursive mutex: the JSLock equivalent, one per virtual machine (owned by its `Engine`).
///
/// Every public entry point of the library takes the lock of the VM it touches, so one VM can be
/// used from many threads (one at a time) and a callback may re-enter the API on the same thread.
/// Debug builds record the owning thread, so that code which requires the lock can `assertHeld()`.
final class RecursiveLock: @unchecked Sendable {
    // @unchecked: the mutex is the synchronisation primitive itself; its storage is only touched
    // through pthread calls, which are thread-safe. `owner` and `depth` (debug builds) are written
    // only by the thread holding the mutex and read by `assertHeld`, on that thread.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #if DEBUG
    private var owner: pthread_t?
    private var depth = 0
    #endif

    /// Nil when the system cannot make a recursive mutex.
    init?() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        guard pthread_mutexattr_init(&attributes) == 0 else {
            mutex.deallocate()
            return nil
        }
        defer { pthread_mutexattr_destroy(&attributes) }
        guard pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) == 0,
            pthread_mutex_init(mutex, &attributes) == 0
        else {
            mutex.deallocate()
            return nil
        }
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock. A failure here (EAGAIN past the recursion limit of 2^31, EINVAL for a
    /// destroyed mutex) means memory corruption or a runaway recursion the native stack guard
    /// should have stopped long before: not survivable, so it stops the process with a message.
    @inline(__always)
    func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "DuktapeCore: pthread_mutex_lock failed (\(status))")
        #if DEBUG
        owner = pthread_self()
        depth += 1
        #endif
    }

    /// Takes the lock if no other thread holds it (the owner may always take it again).
    @inline(__always)
    func tryLock() -> Bool {
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        #if DEBUG
        owner = pthread_self()
        depth += 1
        #endif
        return true
    }

    @inline(__always)
    func unlock() {
        #if DEBUG
        depth -= 1
        if depth == 0 { owner = nil }
        #endif
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "DuktapeCore: pthread_mutex_unlock failed (\(status))")
    }

    @inline(__always)
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Debug builds: stops when the calling thread does not hold the lock. Release builds: nothing.
    @inline(__always)
    func assertHeld(_ what: @autoclosure () -> String = "this", file: StaticString = #file, line: UInt = #line) {
        #if DEBUG
        assert(owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false,
               "\(what()) requires the VM lock", file: file, line: line)
        #endif
    }
}
