import Foundation

/// True when the test process runs under a sanitizer (`make test` sets `ASAN_OPTIONS`, `make
/// test-sanitize` sets `TSAN_OPTIONS`): resident memory then says nothing of ours, and
/// everything takes longer.
public let runsUnderASanitizer: Bool = {
    let environment = ProcessInfo.processInfo.environment
    return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
}()

/// True under ThreadSanitizer (`make test-sanitize`), where the process runs 5 to 15 times
/// slower on two cores shared by every test: the tests that exist for volume (thousands of
/// connections, tens of megabytes) run a smaller volume there, enough for the interleavings
/// ThreadSanitizer is for; the other runs keep the full volume.
public let runsUnderThreadSanitizer: Bool = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil
