import Foundation
import Testing

@testable import DuktapeCore

/// An exported class of its own, so that live counts are not shared with other suites.
final class SandboxedThing: JSExport {
    static let live = LiveCounter()
    var secret = 42
    init() { SandboxedThing.live.increment() }
    deinit { SandboxedThing.live.decrement() }

    static let jsClass = JSClass(SandboxedThing.self) { c in
        c.constructor { () in SandboxedThing() }
        c.property("secret", \.secret)
        c.method("peek()") { (thing: SandboxedThing) in thing.secret }
    }
}

@Suite("Sandbox", .serialized)
struct SandboxTests {
    @Test func defaultsAreDocumentedAndApplied() throws {
        let sandbox = JSSandbox()
        #expect(sandbox.memoryLimit == 64 << 20)
        #expect(sandbox.executionTimeLimit == 1)
        #expect(sandbox.maximumCallDepth == 1_000)
        #expect(!sandbox.exposesEngineGlobals)

        let context = try #require(JSContext(sandbox: sandbox))
        let vm = try #require(context.virtualMachine)
        #expect(vm.sandbox == sandbox)
        #expect(vm.memoryLimit == 64 << 20)
        #expect(vm.executionTimeLimit == 1)
        #expect(vm.maximumCallDepth == 1_000)
        #expect(JSVirtualMachine()!.sandbox == nil)
        #expect(JSVirtualMachine()!.maximumCallDepth == nil)
    }

    @Test func theDuktapeGlobalIsGoneFromEveryContextOfASandboxedVM() throws {
        let vm = try #require(JSVirtualMachine(sandbox: JSSandbox()))
        for context in [JSContext(virtualMachine: vm)!, JSContext(virtualMachine: vm)!] {
            #expect(eval(context, "typeof Duktape").toString() == "undefined")
            #expect(eval(context, "'Duktape' in globalThis").toBool() == false)
            #expect(thrown(context, "Duktape.fin({})")?.name == "ReferenceError")
            #expect(thrown(context, "Duktape.act(-1)")?.name == "ReferenceError")
            // The ordinary built-ins are all there.
            #expect(eval(context, "[typeof JSON, typeof Proxy, typeof Reflect, typeof Symbol, typeof Uint8Array].join()").toString()
                    == "object,function,object,function,function")
        }
        let own = try #require(JSContext(sandbox: JSSandbox()))
        #expect(eval(own, "typeof Duktape").toString() == "undefined")

        // Opting back in keeps the global, with `fin` guarded as everywhere else.
        let open = try #require(JSContext(sandbox: JSSandbox(exposesEngineGlobals: true)))
        #expect(eval(open, "typeof Duktape.fin").toString() == "function")
        // An ordinary VM is untouched.
        #expect(eval(JSContext()!, "typeof Duktape").toString() == "object")
    }

    @Test func maximumCallDepthEndsDeepRecursionWithARangeError() throws {
        var sandbox = JSSandbox()
        sandbox.maximumCallDepth = 100
        let context = try #require(JSContext(sandbox: sandbox))
        eval(context, "function depth(n) { return n === 0 ? 0 : 1 + depth(n - 1) }")
        #expect(eval(context, "depth(90)").toInt32() == 90)
        let exception = try #require(thrown(context, "depth(150)"))
        #expect(exception.name == "RangeError")
        #expect(exception.message == "callstack limit")
        // The limit can be changed on the VM, and nil restores Duktape's 10,000.
        context.virtualMachine.maximumCallDepth = 500
        #expect(eval(context, "depth(450)").toInt32() == 450)
        context.virtualMachine.maximumCallDepth = nil
        #expect(eval(context, "depth(9000)").toInt32() == 9000)
        #expect(thrown(context, "depth(100000)")?.message == "callstack limit")
        #expect(eval(context, "depth(3)").toInt32() == 3)
    }

    /// A timeout names where the script was stopped, as any error does (the engine records the
    /// place when the deadline stops it: its own error cannot be made past the deadline): in
    /// bytecode, in a native loop, in an allocating loop; a later entry gets its own place.
    @Test func aTimeoutNamesWhereTheScriptWasStopped() throws {
        let context = try #require(JSContext())
        context.virtualMachine.executionTimeLimit = 0.05
        let url = try #require(URL(string: "file:///app/spin.js"))
        let cases: [(String, Int, String)] = [
            ("var x = 0;\nfunction spin() {\n  while (true) { x++ }\n}\nspin();", 3, "spin@file:///app/spin.js:3"),
            ("var s = [];\nfunction grow() {\n  for (;;) s.push({ a: [1, 2, 3] });\n}\ngrow();", 3, "grow@file:///app/spin.js:3"),
            ("function big() {\n  return new Array(4294967295).join('x');\n}\nbig();", 2, "big@file:///app/spin.js:2"),
        ]
        for (script, line, frame) in cases {
            do {
                _ = try context.evaluate(script, sourceURL: url)
                Issue.record("no timeout: \(script)")
            } catch let error as JSException {
                #expect(error.name == "RangeError" && error.message == "execution timeout", "\(script)")
                #expect(error.sourceURL == url.absoluteString && error.line == line, "\(script): \(String(describing: error.line))")
                #expect(error.stack?.contains(frame) == true, "\(script): \(error.stack ?? "no stack")")
            }
            _ = try context.evaluate("s = null; 0")  // the heap back to small
        }
        // The next entry's error has its own place, not the timeout's.
        do {
            _ = try context.evaluate("1;\nnull.x", sourceURL: URL(string: "file:///app/other.js"))
        } catch let error as JSException {
            #expect(error.sourceURL == "file:///app/other.js" && error.line == 2)
        }
    }

    @Test func limitsOfTheSandboxAreEnforced() throws {
        let context = try #require(JSContext(sandbox: JSSandbox(memoryLimit: 4 << 20, executionTimeLimit: 0.05)))
        #expect(thrown(context, "while (true) {}")?.message == "execution timeout")
        context.virtualMachine.executionTimeLimit = 30  // sanitizer builds are slow; this part is about memory
        let bomb = try #require(thrown(context, "var s = 'ab'; for (;;) s += s"))
        #expect(exceptionDescription(bomb) == "RangeError: memory limit exceeded")
        eval(context, "s = null")
        #expect(eval(context, "[1, 2, 3].join('-')").toString() == "1-2-3")
    }

    /// Every way a script might spell or find one of the hidden keys that hold our Swift boxes.
    @Test func scriptsCannotReachHiddenKeys() throws {
        let context = try #require(JSContext(sandbox: JSSandbox()))
        context["Thing"] = SandboxedThing.self
        context["hook"] = JSValue(newFunctionIn: context) { (x: Int) in x + 1 }
        let found = eval(context, """
            var thing = new Thing(), seen = [];
            function collect(target) {
                Reflect.ownKeys(target).forEach(function (k) { seen.push(String(k)) });
                Object.getOwnPropertyNames(target).forEach(function (k) { seen.push(k) });
                Object.getOwnPropertySymbols(target).forEach(function (k) { seen.push(String(k)) });
                for (var k in target) seen.push(k);
                Object.getOwnPropertyNames(target).forEach(function (k) {
                    seen.push(JSON.stringify(Object.getOwnPropertyDescriptor(target, k)));
                });
            }
            [thing, hook, Thing, Thing.prototype, Object.getPrototypeOf(thing)].forEach(collect);
            seen.join('|');
            """).toString() ?? ""
        #expect(!found.contains("DuktapeCore"))

        // Spellings of the 0xFF prefix: each is a different, ordinary key.
        let spellings = eval(context, """
            var names = ['DuktapeCoreBox', 'DuktapeCoreWatched', 'DuktapeCoreRetained', 'DuktapeCoreChainedFinalizer'];
            var prefixes = [String.fromCharCode(0xFF), '\\xFF', JSON.parse('"\\\\u00ff"'),
                            new TextDecoder().decode(new Uint8Array([0xFF])),
                            String.fromCharCode(0x82), String.fromCharCode(0xDBFF)];
            var hits = [];
            prefixes.forEach(function (p) {
                names.forEach(function (n) {
                    [thing, hook].forEach(function (target) {
                        if (target[p + n] !== undefined) hits.push(n);
                        target[p + n] = 'overwritten';
                        delete target[p + n];
                    });
                });
            });
            hits.length + ':' + thing.peek() + ':' + hook(1);
            """).toString()
        #expect(spellings == "0:42:2")
    }

    @Test func aProxyAsThisSeesNoHiddenKeysAndIsRefused() throws {
        let context = try #require(JSContext(sandbox: JSSandbox()))
        context["Thing"] = SandboxedThing.self
        let exception = try #require(thrown(context, """
            var log = [];
            var spy = new Proxy(new Thing(), {
                get: function (t, k) { log.push(String(k)); return t[k] },
                has: function (t, k) { log.push('has ' + String(k)); return Reflect.has(t, k) },
                getOwnPropertyDescriptor: function (t, k) { log.push('gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k) }
            });
            spy.peek();
            """))
        #expect(exception.name == "TypeError", "\(exception)")
        #expect(!(eval(context, "log.join()").toString() ?? "").contains("DuktapeCore"))
    }

    @Test func scriptsCannotDetachTheFinalizersThatReleaseSwiftObjects() throws {
        #expect(SandboxedThing.live.value == 0)
        do {
            let context = try #require(JSContext(sandbox: JSSandbox(exposesEngineGlobals: true)))
            context["Thing"] = SandboxedThing.self
            eval(context, """
                var things = [];
                for (var i = 0; i < 20; i++) {
                    var t = new Thing();
                    Duktape.fin(t, function () {});           // replaced: chained, ours still runs
                    Object.freeze(t);
                    things.push(t);
                }
                Duktape.fin(things[0], undefined);
                things.push(Object.seal(new Thing()), Object.preventExtensions(new Thing()));
                """)
            #expect(SandboxedThing.live.value == 22)
            eval(context, "things = null; t = null")
            context.virtualMachine.garbageCollect()
            #expect(SandboxedThing.live.value == 0)
        }
        #expect(SandboxedThing.live.value == 0)
    }

    /// Duktape runs an inherited finalizer for objects that inherit one: an object made with
    /// `Object.create(wrapper)` must not release the wrapper's Swift object when it dies.
    @Test func objectsInheritingFromAWrapperDoNotReleaseItsSwiftObject() throws {
        let context = try #require(JSContext(sandbox: JSSandbox()))
        context["Thing"] = SandboxedThing.self
        context["hook"] = JSValue(newFunctionIn: context) { (x: Int) in x + 1 }
        eval(context, """
            var thing = new Thing();
            for (var i = 0; i < 100; i++) { Object.create(thing); Object.create(hook); Object.setPrototypeOf({}, thing) }
            """)
        context.virtualMachine.garbageCollect()
        #expect(eval(context, "thing.peek() + ':' + thing.secret + ':' + hook(41)").toString() == "42:42:42")
        // A child is not the wrapper: `this` is refused, and it converts as a plain object.
        #expect(thrown(context, "Thing.prototype.peek.call(Object.create(thing))")?.name == "TypeError")
        #expect(eval(context, "Object.create(thing)").toObject() as? SandboxedThing == nil)
    }

    @Test func aManagedProxyIsKeptAliveRatherThanLeftDangling() throws {
        let context = try #require(JSContext(sandbox: JSSandbox()))
        let managed = try #require(JSManagedValue(value: eval(context, "new Proxy({ answer: 42 }, {})")))
        context.virtualMachine.garbageCollect()
        #expect(managed.value?.forProperty("answer").toInt32() == 42)
    }

    @Test func frozenAndSealedObjectsCanStillBeWatchedAndOwned() throws {
        let context = try #require(JSContext(sandbox: JSSandbox()))
        context["Thing"] = SandboxedThing.self
        let owner = SandboxedThing()
        let frozen = eval(context, "Object.freeze({ payload: 1 })")
        let managed = try #require(JSManagedValue(value: frozen))
        context.virtualMachine.addManagedReference(managed, withOwner: owner)
        let wrapper = eval(context, "var w = Object.freeze(new Thing()); w")
        _ = wrapper
        #expect(managed.value?.forProperty("payload").toInt32() == 1)
        context.virtualMachine.removeManagedReference(managed, withOwner: owner)
        context.virtualMachine.garbageCollect()
        // `frozen` (a JSValue) still holds it.
        #expect(managed.value?.forProperty("payload").toInt32() == 1)
    }

    @Test func engineAbuseNeverReachesTheFatalHandler() throws {
        let context = try #require(JSContext(sandbox: JSSandbox(executionTimeLimit: 0.2)))
        for script in [
            "Object.defineProperty(globalThis, 'Object', { value: null }); 1",
            "Function.prototype.call = null; [1,2].map(function (x) { return x })",
            "Array.prototype.join = function () { throw new Error('no') }; String([1])",
            "Error.prototype.toString = function () { throw this }; throw new Error('x')",
            "Object.prototype.__proto__ = null",
            "Symbol.prototype.toString = null; String(Symbol('s'))",
            "var p = new Proxy({}, { get: function () { throw 1 } }); p + ''",
            "Uint8Array.allocPlain(16).buffer",
            "new Uint8Array(8).subarray(4, 2).length",
            "new Function('a', 'return a')(1)",
            "eval('(function () { return this })()')",
        ] {
            _ = try? context.evaluate(script)
        }
        #expect(fatalErrorCount == 0)
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }
}

private func exceptionDescription(_ exception: JSException) -> String {
    "\(exception.name ?? ""): \(exception.message)"
}
