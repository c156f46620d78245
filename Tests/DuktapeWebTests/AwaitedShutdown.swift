import DuktapeWeb

/// A page or a loader, which tests shut down and await at their end.
protocol AwaitedShutdown {
    func shutdown() async
}

extension WebPage: AwaitedShutdown {}
extension WebLoader: AwaitedShutdown {}

/// Runs `body` with `object`, then shuts `object` down and awaits it, whether `body` returned or
/// threw: the test ends after the object's threads, transfers and tasks. (`close()` in a `defer`
/// would leave them ending on other threads, which a leak checker run on part of the suite can
/// catch still alive.)
func using<Object: AwaitedShutdown, Result>(
    _ object: Object, _ body: (Object) async throws -> Result
) async throws -> Result {
    do {
        let result = try await body(object)
        await object.shutdown()
        return result
    } catch {
        await object.shutdown()
        throw error
    }
}
