import DuktapeCore
import DuktapeRuntime
import Foundation
import Testing

/// Issue 32's attacks on the runtime's globals.
@Suite("Hostile runtime scripts", .timeLimit(.minutes(3)))
struct HostileRuntimeTests {
    /// Class 7: running out of memory inside a native global (a timer or an immediate that
    /// cannot be queued) reaches the script's `catch` as a RangeError, and the host's exception
    /// handler as the memory-limit error, never as `undefined`.
    @Test(arguments: [
        "function f() { setImmediate(f); setImmediate(f) } f()",
        "function f() { setTimeout(f, 0); setTimeout(f, 0) } f()",
        "for (;;) setTimeout(function () {}, 1e9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)",
        "for (;;) setInterval(function () {}, 1e9, 'x')",
        "for (;;) setImmediate(function () {}, 1, 2)",
        "var list = []; for (;;) list.push(setTimeout(function () {}, 1e9))",
    ])
    func outOfMemoryInANativeGlobalIsARangeError(script: String) throws {
        let vm = JSVirtualMachine()!
        vm.memoryLimit = 8 << 20
        let context = JSContext(virtualMachine: vm)!
        let loop = EventLoop(context: context)
        let reported = LockedList()
        context.exceptionHandler = { _, exception in
            reported.append((exception?.isUndefined ?? true) ? "undefined" : (exception?.forProperty("name")?.toString() ?? "?") + ": " + (exception?.forProperty("message")?.toString() ?? "?"))
        }
        // What the script's own catch saw is kept in a preallocated slot, read afterwards.
        context.evaluateScript("var seen = [undefined, undefined]; seen.length = 2")
        context.evaluateScript("try { \(script) } catch (e) { seen[0] = e; seen[1] = (e instanceof RangeError) }")
        try? loop.run(until: Date().addingTimeInterval(3))
        loop.stop()
        let seen = context.objectForKeyedSubscript("seen")
        let caught = seen?.atIndex(0)
        if let caught, !caught.isUndefined {
            #expect(caught.forProperty("message")?.toString() == "memory limit exceeded", "\(script)")
            #expect(seen?.atIndex(1)?.toBool() == true, "\(script)")
        }
        #expect(!reported.values.contains("undefined"), "\(script): \(reported.values.prefix(3))")
        #expect(caught?.isUndefined == false || !reported.values.isEmpty, "\(script): nothing reported")
    }
}

/// Strings appended from callbacks.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ string: String) { lock.withLock { list.append(string) } }
    var values: [String] { lock.withLock { list } }
}
