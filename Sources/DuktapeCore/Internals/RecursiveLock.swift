import Synchronization

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
    // through pthread calls, which are thread-safe. `depth` and `owner` (debug builds) are written
    // only by the thread holding the mutex, and read by it (`assertHeld`, `releaseHold`).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// How many times the holder holds it (written only by the holder).
    private var depth = 0
    #if DEBUG
    private var owner: pthread_t?
    #endif
    /// Set by a thread that found the lock taken and left work for its holder: the holder looks
    /// at it after each release of its outermost hold (a getter's as well as an entry's), so
    /// work left after the holder's last look inside still runs now, not at a next entry that
    /// may never come. Sequentially consistent on both sides: the store and the failed
    /// `tryLock` of the thread leaving work, and the release and the load of the holder, must
    /// not pass each other.
    let workWaiting = Atomic<Bool>(false)
    /// Runs the work left (set once, by the engine, before the lock is shared).
    var whenWorkWaits: (@Sendable () -> Void)?

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
        depth += 1
        #if DEBUG
        owner = pthread_self()
        #endif
    }

    /// Takes the lock if no other thread holds it (the owner may always take it again).
    @inline(__always)
    func tryLock() -> Bool {
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        depth += 1
        #if DEBUG
        owner = pthread_self()
        #endif
        return true
    }

    /// Lets go of one hold; after the outermost, runs the work other threads left meanwhile.
    @inline(__always)
    func unlock() {
        if releaseHold() && workWaiting.load(ordering: .sequentiallyConsistent) { whenWorkWaits?() }
    }

    /// Lets go of one hold without looking for work left (the engine's own loop that runs it).
    @inline(__always)
    func unlockLeavingWork() {
        _ = releaseHold()
    }

    /// Lets go of one hold; true when it was the outermost.
    @inline(__always)
    private func releaseHold() -> Bool {
        depth -= 1
        let outermost = depth == 0
        #if DEBUG
        if outermost { owner = nil }
        #endif
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "DuktapeCore: pthread_mutex_unlock failed (\(status))")
        return outermost
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
