import Foundation
import Testing

@testable import DuktapeCore

/// Counts deinits of everything a context can hold on to.
final class LeakProbe: JSExport {
    static let live = LiveCounter()
    var handler: JSManagedValue?

    init() { LeakProbe.live.increment() }
    deinit { LeakProbe.live.decrement() }

    static let jsClass = JSClass(LeakProbe.self) { c in
        c.constructor { () in LeakProbe() }
        c.method("setHandler(_:)", as: "setHandler") { (probe: LeakProbe, handler: JSValue) in
            probe.handler = JSManagedValue(value: handler, andOwner: probe)
        }
        c.method("fire()") { (probe: LeakProbe) -> JSValue in
            probe.handler?.value?.call(withArguments: [probe]) ?? JSValue(undefinedIn: JSContext.current())
        }
    }
}

/// Something a closure captures, to prove closures are released.
final class Captured: @unchecked Sendable {
    static let live = LiveCounter()
    init() { Captured.live.increment() }
    deinit { Captured.live.decrement() }
    func describe() -> String { "captured" }
}

@Suite("Leaks", .serialized)
struct LeakTests {
    @Test func thousandsOfContextsReleaseEverything() {
        weak var lastVM: JSVirtualMachine?
        weak var lastContext: JSContext?
        for round in 0..<2000 {
            let context = JSContext()!
            let captured = Captured()
            // JavaScriptCore's patterns: closures use JSContext.current() and their arguments, not
            // a captured context; exported objects keep JS values as JSManagedValue.
            context["describe"] = JSValue(newFunctionIn: context) { (suffix: String) -> String in
                captured.describe() + suffix + (JSContext.current()?.evaluateScript("'!'").toString() ?? "")
            }
            context["LeakProbe"] = LeakProbe.self
            context.evaluateScript("""
                var probe = new LeakProbe();
                probe.setHandler(function (p) { return describe(' by handler') });
                var cycle = {probe: probe}; cycle.self = cycle;
                """)
            if round % 500 == 0 {
                #expect(context.evaluateScript("probe.fire()").toString() == "captured by handler!")
            }
            lastVM = context.virtualMachine
            lastContext = context
        }
        #expect(lastContext == nil)
        #expect(lastVM == nil)
        #expect(LeakProbe.live.value == 0)
        #expect(Captured.live.value == 0)
    }

    @Test func contextsInASharedVMReleaseTheirObjects() {
        let vm = JSVirtualMachine()!
        for _ in 0..<300 {
            let context = JSContext(virtualMachine: vm)!
            let captured = Captured()
            context["f"] = JSValue(newFunctionIn: context) { () in captured.describe() }
            context["p"] = LeakProbe()
            context.evaluateScript("f(); p.setHandler(function () {})")
        }
        vm.garbageCollect()
        #expect(LeakProbe.live.value == 0)
        #expect(Captured.live.value == 0)
        #expect(vm.pinnedValueCount == 0)
    }

    /// Each realm's promises are its own while realms of one VM take turns making them (the
    /// library keeps the last realm's Promise at hand), and a released realm is let go.
    @Test func promisesOfRealmsThatTakeTurnsStayTheirRealms() throws {
        let vm = try #require(JSVirtualMachine())
        let a = try #require(JSContext(virtualMachine: vm))
        var b = JSContext(virtualMachine: vm)
        for _ in 0..<3 {
            eval(a, "var pa = Promise.resolve('a')")
            let pb = try #require(b).evaluateScript("Promise.resolve('b')")
            a["pb"] = pb
            try #require(b)["pb"] = pb
            try #require(b)["pa"] = eval(a, "pa")
            #expect(eval(a, "Object.getPrototypeOf(pa) === Promise.prototype && Promise.resolve(pa) === pa").toBool())
            #expect(eval(a, "Object.getPrototypeOf(pb) !== Promise.prototype && Promise.resolve(pb) !== pb").toBool())
            #expect(try #require(b).evaluateScript("Promise.resolve(pa) !== pa && Promise.resolve(pb) === pb").toBool())
            #expect(try #require(b).evaluateScript("Object.getPrototypeOf(pa.then()) === Promise.prototype").toBool())
        }
        // b made the last promise; once it is released, nothing of its realm stays alive.
        try #require(b)["probe"] = LeakProbe()
        try #require(b).evaluateScript("Promise.prototype.probe = probe; probe = undefined; Promise.resolve(1)")
        eval(a, "pb = undefined")
        b = nil
        vm.garbageCollect()
        #expect(LeakProbe.live.value == 0)
        let c = try #require(JSContext(virtualMachine: vm))
        #expect(c.evaluateScript("Object.getPrototypeOf(Promise.resolve(1)) === Promise.prototype && !('probe' in Promise.prototype)").toBool())
        #expect(eval(a, "Promise.resolve(pa) === pa").toBool())
    }

    /// A coroutine of a realm whose context is gone can still run (another realm resumes it) and
    /// make promises: the library's cache of the last realm's Promise must not take that realm
    /// and keep it alive.
    @Test func aReleasedRealmsCoroutineMakingPromisesDoesNotKeepItAlive() throws {
        let vm = try #require(JSVirtualMachine())
        let a = try #require(JSContext(virtualMachine: vm))
        var c = JSContext(virtualMachine: vm)
        try #require(c)["probe"] = LeakProbe()
        a["thread"] = try #require(c).evaluateScript("""
            Promise.prototype.probe = probe; probe = undefined;
            new Duktape.Thread(function () { for (;;) Duktape.Thread.yield(Promise.resolve(1) instanceof Promise) })
            """)
        c = nil
        vm.garbageCollect()
        #expect(LeakProbe.live.value == 1)  // the coroutine still holds its realm
        // Resumed from a: the coroutine's promises are its (released) realm's.
        #expect(eval(a, "Duktape.Thread.resume(thread) === true && Duktape.Thread.resume(thread) === true").toBool())
        eval(a, "thread = undefined")
        vm.garbageCollect()
        #expect(LeakProbe.live.value == 0)
    }

    @Test func aCapturedContextIsTheDocumentedCycle() {
        // The counter-example: capturing the context in a closure stored in it keeps both alive,
        // exactly as in JavaScriptCore. Breaking the cycle by hand releases them.
        weak var weakContext: JSContext?
        do {
            let context = JSContext()!
            weakContext = context
            context["leaky"] = JSValue(newFunctionIn: context) { () in context.evaluateScript("1").toInt32() }
            #expect(context.evaluateScript("leaky()").toInt32() == 1)
            context["leaky"] = JSValue(undefinedIn: context)
            context.virtualMachine.garbageCollect()
        }
        #expect(weakContext == nil)
    }
}

@Suite("Callback recursion")
struct CallbackRecursionTests {
    @Test func javaScriptToSwiftToJavaScriptEndsInARangeError() throws {
        let context = JSContext()!
        context["down"] = JSValue(newFunctionIn: context) { (depth: Int) throws -> Int in
            Int(try JSContext.current().objectForKeyedSubscript("recurse").call(depth + 1).toInt32())
        }
        context.evaluateScript("var deepest = 0; function recurse(n) { deepest = n; return down(n) }")
        let exception = try #require(thrown(context, "recurse(0)"))
        #expect(exception.name == "RangeError")
        let deepest = context.evaluateScript("deepest").toInt32()
        #expect(deepest > 100)
        #expect(context.evaluateScript("recurse.length + 1").toInt32() == 2)
        #expect(fatalErrorCount == 0)
    }

    @Test func recursionOnASmallStackThreadEndsInARangeError() throws {
        // 256 KiB of stack: the native stack guard must stop it, not a crash.
        let finished = DispatchSemaphore(value: 0)
        final class Result: @unchecked Sendable { var name: String? }
        let result = Result()
        let thread = Thread {
            let context = JSContext()!
            context["down"] = JSValue(newFunctionIn: context) { (n: Int) throws -> Int in
                try JSContext.current().objectForKeyedSubscript("recurse").call(n + 1).toInt32() == 0 ? 0 : n
            }
            context.evaluateScript("function recurse(n) { return down(n) }")
            do {
                _ = try context.evaluate("recurse(0)")
            } catch let exception as JSException {
                result.name = exception.name ?? "nil name: \(exception)"
            } catch {
                result.name = "\(error)"
            }
            finished.signal()
        }
        thread.stackSize = 256 << 10
        thread.start()
        finished.wait()
        #expect(result.name == "RangeError")
    }
}
