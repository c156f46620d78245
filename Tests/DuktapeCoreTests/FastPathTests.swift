import Foundation
import Testing

@testable import DuktapeCore

/// The shortcuts taken for speed (issue 4) must give exactly the general path's results: the
/// property fast paths (an ordinary object's own data property, read or overwritten without a
/// protected call), the interned-key cache, the exact-type conversions, and callback frames
/// kept on the stack.
@Suite("Fast paths")
struct FastPathTests {
    let context = JSContext()!

    // MARK: - Property reads and writes from Swift

    @Test func ownDataPropertiesReadAndWrite() {
        let object = eval(context, "({a: 1, b: 'two'})")
        #expect(object.forProperty("a").toInt32() == 1)
        object.setValue(5, forProperty: "a")
        object.setValue(nil, forProperty: "b")
        #expect(eval(context, "(function (o) { return o.a + ':' + o.b })").call(withArguments: [object]).toString() == "5:undefined")
    }

    @Test func readOnlyAndFrozenPropertiesIgnoreWrites() {
        let readOnly = eval(context, "Object.defineProperty({}, 'x', {value: 1, writable: false, enumerable: true})")
        readOnly.setValue(2, forProperty: "x")
        #expect(readOnly.forProperty("x").toInt32() == 1)
        let frozen = eval(context, "Object.freeze({x: 1})")
        frozen.setValue(2, forProperty: "x")
        #expect(frozen.forProperty("x").toInt32() == 1)
        #expect(context.exception == nil)
    }

    @Test func accessorsRunTheirFunctions() {
        let object = eval(context, """
            var log = [];
            ({ get x() { log.push('get'); return 7 }, set x(v) { log.push('set ' + v) } })
            """)
        #expect(object.forProperty("x").toInt32() == 7)
        object.setValue(3, forProperty: "x")
        #expect(eval(context, "log.join()").toString() == "get,set 3")
    }

    @Test func inheritedSettersSeeWritesOnlyWithoutAnOwnProperty() {
        let object = eval(context, """
            var seen = [];
            var proto = { set y(v) { seen.push(v) } };
            var o = Object.create(proto);
            o
            """)
        object.setValue(1, forProperty: "y")  // no own property: the inherited setter runs
        #expect(eval(context, "seen.join() + '|' + Object.keys(o).length").toString() == "1|0")
        eval(context, "Object.defineProperty(o, 'y', {value: 0, writable: true, enumerable: true, configurable: true})")
        object.setValue(2, forProperty: "y")  // own writable data property: overwritten
        #expect(eval(context, "seen.join() + '|' + o.y").toString() == "1|2")
    }

    @Test func exoticObjectsKeepTheirBehavior() {
        let array = eval(context, "[1, 2, 3]")
        array.setValue(1, forProperty: "length")
        #expect(eval(context, "(function (a) { return JSON.stringify(a) })").call(withArguments: [array]).toString() == "[1]")
        array.setValue("x", forProperty: "0")
        #expect(array.forProperty("0").toString() == "x")

        let string = eval(context, "new String('abc')")
        #expect(string.forProperty("length").toInt32() == 3)
        #expect(string.forProperty("1").toString() == "b")

        let bytes = eval(context, "new Uint8Array(2)")
        bytes.setValue(300, forProperty: "1")
        #expect(bytes.forProperty("1").toInt32() == 44)

        let arguments = eval(context, "(function (a) { return arguments })(1, 2)")
        arguments.setValue(9, forProperty: "0")
        #expect(arguments.forProperty("0").toInt32() == 9)
        #expect(arguments.forProperty("length").toInt32() == 2)
    }

    @Test func proxiesGetTheirTraps() {
        let proxy = eval(context, """
            var traps = [];
            new Proxy({}, {
                get: function (t, k) { traps.push('get ' + String(k)); return 42 },
                set: function (t, k, v) { traps.push('set ' + String(k) + '=' + v); return true }
            })
            """)
        #expect(proxy.forProperty("p").toInt32() == 42)
        proxy.setValue(1, forProperty: "p")
        #expect(eval(context, "traps.join()").toString() == "get p,set p=1")
    }

    @Test func symbolAndProtoKeysAreOwnData() {
        let symbol = JSValue(newSymbolFromDescription: "tag", in: context)!
        let object = JSValue(newObjectIn: context)!
        object.setValue("first", forProperty: symbol)
        object.setValue("second", forProperty: symbol)
        #expect(object.forProperty(symbol).toString() == "second")

        let withProto = JSValue(object: ["__proto__": 1], in: context)!
        withProto.setValue(2, forProperty: "__proto__")
        #expect(withProto.forProperty("__proto__").toInt32() == 2)
        #expect(eval(context, "(function (o) { return Object.getPrototypeOf(o) === Object.prototype })")
            .call(withArguments: [withProto]).toBool())
    }

    @Test func overwritingReleasesTheOldValueAndRunsItsFinalizer() {
        let finalized = LiveCounter()
        context["noteFinalized"] = JSValue(newFunctionIn: context) { () in finalized.increment() }
        let holder = eval(context, "({slot: null})")
        for _ in 0..<100 {
            let value = eval(context, "(function () { var o = {}; Duktape.fin(o, function () { noteFinalized() }); return o })()")
            holder.setValue(value, forProperty: "slot")
        }
        holder.setValue(0, forProperty: "slot")
        context.virtualMachine.garbageCollect()
        #expect(finalized.value == 100)
        #expect(holder.forProperty("slot").toInt32() == 0)
    }

    /// String keys skip the `Any` box (`objectForKeyedSubscript(_: String)`, `invokeMethod`):
    /// every key must read what the `Any` spelling reads, odd ones included.
    @Test func stringKeysOnTheGlobalObjectMatchTheAnySpelling() {
        context.evaluateScript("""
            this[''] = 'empty'; this['a\\u0000b'] = 'nul'; this['\\ud83d\\ude00'] = 'emoji';
            this['0'] = 'zero'; this[new Array(200).join('k')] = 'long';
            Object.defineProperty(this, 'computed', { get: function () { return 'got' }, configurable: true });
            this.method = function (x) { return 'm' + x };
            """)
        let keys = ["", "a\u{0}b", "😀", "0", String(repeating: "k", count: 199), "computed", "__proto__", "absent"]
        for key in keys {
            let typed = context.objectForKeyedSubscript(key)!
            let boxed = context.objectForKeyedSubscript(key as Any)!
            #expect(typed.isEqual(to: boxed), "\(key.debugDescription)")
        }
        #expect(context.objectForKeyedSubscript("a\u{0}b").toString() == "nul")
        #expect(context.objectForKeyedSubscript("computed").toString() == "got")
        context.setObject(1, forKeyedSubscript: "a\u{0}b")
        #expect(context.objectForKeyedSubscript("a\u{0}b").toInt32() == 1)
        #expect(context.globalObject.invokeMethod("method", withArguments: [1]).toString() == "m1")
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(context.globalObject.invokeMethod("absent", withArguments: []).isUndefined)
        #expect(context.globalObject.invokeMethod("", withArguments: []).isUndefined)
        #expect(recorder.messages.count == 2)
    }

    // MARK: - Registry slots

    /// Slots are reused without a protected call once the registry has grown past them: values
    /// pinned in reused slots stay alive through collections, and releasing the last reference
    /// to one runs its finalizer (inline, as the protected clear did).
    @Test func reusedRegistrySlotsKeepAndReleaseTheirValues() {
        let finalized = LiveCounter()
        context["noteFinalized"] = JSValue(newFunctionIn: context) { () in finalized.increment() }
        // The finalizer is made outside `make`: a closure inside it would hold `make`'s scope,
        // and with it `o` (a cycle, which only a full collection frees).
        let make = eval(context, """
            var fin = function () { noteFinalized() };
            (function (i) { var o = {i: i}; Duktape.fin(o, fin); return o })
            """)
        var held: [JSValue] = (0..<200).map { make.call(withArguments: [$0]) }
        held.removeSubrange(0..<100)  // frees 100 slots, each finalizing its object
        #expect(finalized.value == 100)
        held += (200..<300).map { make.call(withArguments: [$0]) }  // reuses them
        context.virtualMachine.garbageCollect()
        #expect(held.map { $0.forProperty("i").toInt32() } == (100..<300).map(Int32.init))
        #expect(finalized.value == 100)
        held = []
        #expect(finalized.value == 300)
    }

    /// A release while the heap's own thread runs under another realm's thread (a script of the
    /// VM's first context calling Swift, which runs a script of a second context) cannot run the
    /// value's finalizer then: the slot is cleared, and the finalizer runs, when the outermost
    /// call ends, never skipped.
    @Test func releasesWhileTheHeapThreadIsBusyWaitForTheOutermostCall() {
        final class Holder: @unchecked Sendable { var value: JSValue? }
        let other = JSContext(virtualMachine: context.virtualMachine)!
        let finalized = LiveCounter()
        let holder = Holder()
        context["noteFinalized"] = JSValue(newFunctionIn: context) { () in finalized.increment() }
        holder.value = context.evaluateScript("""
            var fin = function () { noteFinalized() };
            (function () { var o = {}; Duktape.fin(o, fin); return o })()
            """)
        other["drop"] = JSValue(newFunctionIn: other) { () in holder.value = nil }
        // Weak: the function lives in the VM that `other` holds (a strong capture is a cycle).
        context["viaOther"] = JSValue(newFunctionIn: context) { [weak other] () in
            other?.evaluateScript("drop()")
            return finalized.value  // not yet: the heap thread is running
        }
        #expect(context.evaluateScript("viaOther()").toInt32() == 0)
        #expect(finalized.value == 1)
        #expect(context.exception == nil && other.exception == nil)
    }

    /// A context's own global object is kept alive by the realm, so its JSValues take no slot;
    /// another context's global object is pinned like any value.
    @Test func theOwnGlobalObjectTakesNoSlot() {
        let vm = context.virtualMachine!
        let other = JSContext(virtualMachine: vm)!
        let baseline = vm.pinnedValueCount
        var globals: [JSValue] = (0..<10).map { _ in context.globalObject }
        globals.append(eval(context, "this"))
        globals.append(context.evaluateScript("(function () { return this })").call(withArguments: []))
        #expect(vm.pinnedValueCount == baseline)
        let foreign = other.evaluateScript("globalThis")!  // the other context's own: no slot
        #expect(vm.pinnedValueCount == baseline)
        context["theirs"] = foreign
        let theirs = context.objectForKeyedSubscript("theirs")!  // seen from this context: pinned
        #expect(vm.pinnedValueCount == baseline + 1)
        #expect(theirs.isEqual(to: foreign))
        #expect(context.evaluateScript("theirs === this").toBool() == false)
        vm.garbageCollect()
        for global in globals { global.setValue(1, forProperty: "seen") }
        #expect(context.evaluateScript("seen").toInt32() == 1)
        #expect(globals.allSatisfy { $0.isEqual(to: context.globalObject) })
        globals = []
        #expect(vm.pinnedValueCount == baseline + 1)
    }

    // MARK: - Interned keys

    @Test func manyKeysAndCollidingPrefixesStayDistinct() {
        let object = JSValue(newObjectIn: context)!
        let prefix = String(repeating: "p", count: 16)  // the hash reads only the first 16 bytes
        var keys = (0..<2_000).map { "k\($0)" } + (0..<300).map { prefix + "\($0)" }
        keys += ["", "\u{0}", "a\u{0}b", "😀", "é", "e\u{301}", String(repeating: "long", count: 40)]
        let baseline = context.virtualMachine.pinnedValueCount
        for (index, key) in keys.enumerated() {
            object.setValue(index, forProperty: key)
        }
        for (index, key) in keys.enumerated() {
            #expect(object.forProperty(key).toInt32() == Int32(index), "key \(key.debugDescription)")
        }
        #expect(object.forProperty("nope").isUndefined)
        // The cache is bounded: 256 keys at most are pinned for it.
        #expect(context.virtualMachine.pinnedValueCount == baseline)
        let keysSeen = eval(context, "(function (o) { return Object.keys(o).length })").call(withArguments: [object])
        #expect(keysSeen?.toInt32() == Int32(keys.count))
    }

    /// Cached keys match by UTF-8 bytes (JavaScript's property names), not by Swift's `==`,
    /// which calls canonically equivalent strings equal; equal texts in different
    /// representations (small, native storage, bridged, sliced) land in the same set and match.
    @Test func cachedKeysMatchByCodeUnits() {
        #expect("é" == "e\u{301}")  // Swift's view
        #expect(!InternedKeyCache.sameCodeUnits("é", "e\u{301}"))
        #expect(!InternedKeyCache.sameCodeUnits("Å", "A\u{30A}"))
        let long = String(repeating: "long key ", count: 4)
        let representations = [
            long, String(long.utf8.map { Character(UnicodeScalar($0)) }), String(("x" + long).dropFirst()),
            NSString(string: long) as String, String(decoding: Array(long.utf8), as: UTF8.self),
        ]
        for other in representations {
            #expect(InternedKeyCache.sameCodeUnits(long, other))
            #expect(InternedKeyCache.firstIndex(of: long) == InternedKeyCache.firstIndex(of: other))
        }
        for small in ["key", "k42", "é", ""] {
            let copies = [small, String(("x" + small).dropFirst()), NSString(string: small) as String]
            #expect(copies.allSatisfy { InternedKeyCache.firstIndex(of: $0) == InternedKeyCache.firstIndex(of: small) })
            #expect(copies.allSatisfy { InternedKeyCache.sameCodeUnits($0, small) })
        }
        // Through the API: two names Swift calls equal are two properties.
        let object = JSValue(newObjectIn: context)!
        object.setValue(1, forProperty: "é")
        object.setValue(2, forProperty: "e\u{301}")
        #expect(object.forProperty("é").toInt32() == 1)
        #expect(object.forProperty("e\u{301}").toInt32() == 2)
    }

    // MARK: - Conversions by exact type

    @Test func exactTypesAndTheirNeighbours() {
        let typeOf = eval(context, "(function (v) { return typeof v + ':' + String(v) })")
        let cases: [(Any?, String)] = [
            (1.5, "number:1.5"), (Int.max, "number:9223372036854776000"), ("s", "string:s"), (true, "boolean:true"),
            (Optional<Int>.none as Any, "undefined:undefined"), (Optional(Optional(2)) as Any, "number:2"),
            (Int8(-3), "number:-3"), (Float(0.5), "number:0.5"), (Substring("sub"), "string:sub"),
            (NSNumber(value: true), "boolean:true"), (NSNumber(value: 7), "number:7"), (NSNull(), "object:null"),
            (JSValue(int32: 4, in: context)!, "number:4"), (nil, "undefined:undefined"),
        ]
        for (value, expected) in cases {
            #expect(typeOf.call(withArguments: [value as Any]).toString() == expected, "\(String(describing: value))")
        }
    }

    // MARK: - Typed closures (specialized in the caller's module)

    /// Every argument a script can pass, and no argument at all.
    static let argumentScripts = [
        "1.5", "-0", "NaN", "Infinity", "-Infinity", "9007199254740993", "1e300", "-2147483649", "3",
        "'7'", "''", "'a\\u0000b\\ud83d\\ude00'", "true", "false", "null", "undefined", "({})", "[2]",
        "({valueOf: function () { return 4 }})", "Symbol('s')", "new Number(5)", "new String('boxed')",
    ]

    /// The typed reads take shortcuts for exact types; whatever the script passes, they must give
    /// what the type's general `fromJSArgument` rule gives for that value (or its TypeError).
    @Test func typedArgumentsMatchTheGeneralRule() {
        probe(Double.self) { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) }
        probe(Int.self, ==)
        probe(Bool.self, ==)
        probe(String.self, ==)
        probe(Int32.self, ==)
        probe(String?.self, ==)
        // Extra arguments are ignored; a missing one is undefined.
        context["pair"] = JSValue(newFunctionIn: context) { (a: Int, b: String?) in "\(a) \(b ?? "nil")" }
        #expect(eval(context, "pair(1, 'x', 3) + '|' + pair(2)").toString() == "1 x|2 nil")
    }

    private func probe<T: JSValueConvertible>(
        _ type: T.Type, _ same: @escaping (T, T) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var received: [T] = []
        context["take"] = JSValue(newFunctionIn: context) { (x: T) in received.append(x) }
        for script in Self.argumentScripts + [""] {
            received.removeAll()
            eval(context, "var threw = false; try { take(\(script)) } catch (e) { threw = e instanceof TypeError }")
            let value = script.isEmpty ? JSValue(undefinedIn: context)! : eval(context, "(\(script))")
            if let expected = try? T.fromJSArgument(value) {
                #expect(received.count == 1 && received.first.map { same($0, expected) } == true,
                        "\(T.self) from \(script): \(received) vs \(expected)", sourceLocation: sourceLocation)
            } else {
                #expect(received.isEmpty && eval(context, "threw").toBool(), "\(T.self) from \(script)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A typed closure's result reaches JavaScript as the conversion table makes the same value.
    @Test func typedResultsMatchTheConversionTable() {
        let typeOf = eval(context, "(function (v) { return typeof v + ':' + String(v) + ':' + (v === v ? '' : 'NaN') })")
        func check<R: JSValueConvertible>(_ value: R, sourceLocation: SourceLocation = #_sourceLocation) {
            context["give"] = JSValue(newFunctionIn: context) { () in value }
            let expected = typeOf.call(withArguments: [value]).toString()
            #expect(typeOf.call(withArguments: [eval(context, "give()")]).toString() == expected, sourceLocation: sourceLocation)
        }
        check(1.5)
        check(-0.0)
        check(Double.nan)
        check(Int.max)
        check(Int.min)
        check(true)
        check("a\u{0}b😀")
        check("")
        check(Optional<Int>.none)
        check(Optional(3))
        check([1, 2])
        check(JSValue(newObjectIn: context)!)
        check(Float(0.25))
        context["nothing"] = JSValue(newFunctionIn: context) { () in }
        #expect(eval(context, "nothing()").isUndefined)
    }

    /// An exported object's wrapper can die after its context: the wrapper cache entry to remove
    /// is found through the VM, and a later context of the VM has a cache of its own.
    @Test func wrappersOutlivingTheirContextAreReleased() {
        let vm = JSVirtualMachine()!
        weak var released: Tracked?
        do {
            let object = Tracked()
            released = object
            let first = JSContext(virtualMachine: vm)!
            first["tracked"] = object
            #expect(eval(first, "tracked === tracked").toBool())
            let second = JSContext(virtualMachine: vm)!
            second["tracked"] = object
            #expect(eval(second, "tracked === tracked").toBool())
        }
        // Both contexts are gone; their wrappers die with the next collection.
        vm.garbageCollect()
        vm.garbageCollect()
        #expect(released == nil)
        let third = JSContext(virtualMachine: vm)!
        third["again"] = Tracked()
        #expect(eval(third, "again === again && String(again)").toString() == "[object Tracked]")
    }

    // MARK: - Typed containers (Swift -> JS without a copy to [Any] / [String: Any])

    /// Arrays and String-keyed dictionaries of any element type are iterated as they are; the
    /// result must be what the `[Any]` / `[String: Any]` copies gave.
    @Test func typedContainersConvertLikeTheirAnyCopies() {
        // JSON text with object keys sorted: two dictionaries iterate in different orders.
        let json = eval(context, """
            (function canon(v, top) {
                if (Array.isArray(v)) v = v.map(function (e) { return canon(e, false) });
                else if (v && typeof v === 'object') {
                    var o = {};
                    Object.keys(v).sort().forEach(function (k) { o[k] = canon(v[k], false) });
                    v = o;
                }
                return top === false ? v : JSON.stringify(v);
            })
            """)
        func same(_ typed: Any, _ erased: Any, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(json.call(withArguments: [typed]).toString() == json.call(withArguments: [erased]).toString(),
                    sourceLocation: sourceLocation)
        }
        same([1, 2, 3], [1, 2, 3] as [Any])
        same([Int?.none, 2], [Int?.none as Any, 2])
        same([[1.5], []], [[1.5] as [Any], [] as [Any]] as [Any])
        same(["a": 1, "b": 2], ["a": 1, "b": 2] as [String: Any])
        same(["n": Int?.none, "v": 3], ["n": Int?.none as Any, "v": 3] as [String: Any])
        same(["nested": ["x": [true]]], ["nested": ["x": [true] as [Any]] as [String: Any]] as [String: Any])
        let keys = ["", "a\u{0}b", "😀", "é", "__proto__", String(repeating: "k", count: 300)]
        let dictionary = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let object = JSValue(object: dictionary, in: context)!
        for (index, key) in keys.enumerated() {
            #expect(object.forProperty(key).toInt32() == Int32(index), "\(key.debugDescription)")
        }
        // "__proto__" is an own data property; the prototype is untouched.
        #expect(object.invokeMethod("hasOwnProperty", withArguments: ["__proto__"]).toBool())
        #expect(eval(context, "Object.prototype").isEqual(to: context.objectForKeyedSubscript("Object").invokeMethod("getPrototypeOf", withArguments: [object])))
        // A value that cannot convert fails the whole conversion with a TypeError and leaves the
        // stack as it was.
        struct Opaque {}
        var failure: String?
        context.exceptionHandler = { _, exception in failure = exception?.toString() }
        #expect(JSValue(object: ["fine": 1, "bad": Opaque()] as [String: Any], in: context).isUndefined)
        #expect(JSValue(object: [[1], [Opaque()]] as [[Any]], in: context).isUndefined)
        #expect(failure?.hasPrefix("TypeError: cannot convert a Swift value of type Opaque") == true)
        context.exceptionHandler = nil
        #expect(eval(context, "1 + 1").toInt32() == 2)
    }

    // MARK: - Object enumeration (JS -> Swift dictionaries)

    /// The fast enumeration must give for-in's keys, with their current values, for the objects
    /// it takes and for those it leaves to Duktape's enumerator.
    @Test(arguments: [
        "({a: 1, b: 'two', c: null, d: [1], e: {f: true}})",
        "(function () { var o = {x: 1, y: 2, z: 3}; delete o.y; o.w = 4; return o })()",
        "({b: 1, 1: 'one', a: 2, 0: 'zero'})",
        "(function () { var o = {a: 1}; o[Symbol('s')] = 2; Object.defineProperty(o, 'hidden', {value: 3}); return o })()",
        "({get g() { return 'got' }, plain: 1, set s(v) {}})",
        "Object.create({inherited: 1}, {own: {value: 2, enumerable: true}})",
        "Object.create(Object.create(null, {quiet: {value: 0}}), {own: {value: 2, enumerable: true}})",
        "(function () { var o = Object.create(null); o.n = 1; return o })()",
        "(function () { var o = {}; for (var i = 0; i < 3000; i++) o['k' + i] = i; return o })()",
        "new Proxy({p: 1, q: 2}, {})",
        "(function () { function F() { this.a = 1 } F.prototype.m = function () {}; return new F() })()",
        "({})",
    ])
    func enumerationMatchesForIn(script: String) throws {
        let object = eval(context, "var subject = \(script); subject")
        // Undefined values are left out of dictionaries (JavaScriptCore's rule), on either path.
        let keys = eval(context, """
            (function () { var k = []; for (var key in subject) if (subject[key] !== undefined) k.push(key); return k.sort() })()
            """)
        let dictionary = try #require(object.toObject() as? [String: Any])
        #expect(dictionary.keys.sorted() == (keys.toArray() as? [String]))
        for (key, value) in dictionary {
            let expected = object.forProperty(key)!
            #expect(expected.isObject || expected.isEqual(to: value), "\(key)")
        }
    }

    /// `toDictionary()` re-keys `toObject()`'s dictionary by `AnyHashable` (one upcast, no key
    /// comparisons): the same entries; keys Swift calls equal ("é", "e\u{301}") are one entry in
    /// both, as they would be in any `[String: Any]`.
    @Test func toDictionaryHasTheEntriesOfToObject() throws {
        let object = eval(context, "(function () { var o = {'é': 1, 'e\\u0301': 1}; for (var i = 0; i < 3000; i++) o['k' + i] = i; return o })()")
        let strings = try #require(object.toObject() as? [String: Any])
        let hashables = try #require(object.toDictionary())
        #expect(strings.count == 3001)
        #expect(hashables.count == strings.count)
        for (key, value) in strings {
            #expect((hashables[AnyHashable(key)] as? Int) == (value as? Int), "\(key)")
        }
        #expect(hashables["k2999"] as? Int == 2999)
    }

    /// A getter of a nested object that rebuilds the object being enumerated (deleting the keys
    /// not visited yet, adding hundreds so that the property table is reallocated) must not break
    /// the enumeration: keys deleted before their turn are skipped; nothing is read from freed
    /// memory (AddressSanitizer runs this in `make test-sanitize`).
    @Test func enumerationSurvivesAGetterThatRebuildsTheObject() throws {
        let object = eval(context, """
            (function () {
                var o = {};
                o.first = {get trigger() {
                    for (var i = 0; i < 50; i++) delete o['k' + i];
                    for (var j = 0; j < 500; j++) o['added' + j] = j;
                    o.later = 'changed';
                    return 'fired';
                }};
                for (var i = 0; i < 50; i++) o['k' + i] = i;
                o.later = 'original';
                return o;
            })()
            """)
        let dictionary = try #require(object.toObject() as? [String: Any])
        #expect((dictionary["first"] as? [String: Any])?["trigger"] as? String == "fired")
        #expect(dictionary["later"] as? String == "changed")
        #expect(dictionary.keys.allSatisfy { !$0.hasPrefix("k") })
        #expect(dictionary.keys.allSatisfy { $0 == "first" || $0 == "later" || $0.hasPrefix("added") })
    }

    // MARK: - Callback frames

    @Test func nestedCallbacksSeeTheirOwnFrames() {
        var seen: [String] = []
        context["inner"] = JSValue(newFunctionIn: context) { this, arguments in
            seen.append("inner \(arguments.count) \(JSContext.currentArguments().count)")
            return nil
        }
        context["outer"] = JSValue(newFunctionIn: context) { this, arguments in
            let before = JSContext.currentArguments().count
            JSContext.current().evaluateScript("inner(1, 2, 3)")
            let after = JSContext.currentArguments().count
            seen.append("outer \(before) \(after) \(JSContext.currentThis().forProperty("tag").toString() ?? "")")
            return nil
        }
        eval(context, "({tag: 'me', outer: outer}).outer('a')")
        #expect(seen == ["inner 3 3", "outer 1 1 me"])
        #expect(JSContext.current() == nil)
    }

    @Test func argumentCountsWithoutMakingTheArguments() throws {
        var counts: [Int?] = []
        context["count"] = JSValue(newFunctionIn: context) { (first: Double) in
            counts.append(JSContext.currentArgumentCount())
            // Asking for the arguments afterwards (or before) gives as many.
            counts.append(JSContext.currentArguments().count)
        }
        eval(context, "count(); count(1); count(1, undefined); count.apply(null, new Array(300))")
        #expect(counts == [0, 0, 1, 1, 2, 2, 300, 300])
        #expect(JSContext.currentArgumentCount() == nil)
        // A promise executor's frame has the two resolving functions as its arguments.
        var executorCount: Int?
        _ = JSValue(newPromiseIn: context, fromExecutor: { _, _ in executorCount = JSContext.currentArgumentCount() })
        #expect(executorCount == 2)
    }

    @Test func argumentConversionsThatThrowThrowToTheCaller() throws {
        // As JavaScriptCore converts a block's arguments: the script's exception goes to the
        // caller (catchable there), the closure does not run, and nothing is reported.
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        var ran: [String] = []
        context["number"] = JSValue(newFunctionIn: context) { (value: Double) in ran.append("number \(value)") }
        context["integer"] = JSValue(newFunctionIn: context) { (value: Int32) in ran.append("integer \(value)") }
        context["text"] = JSValue(newFunctionIn: context) { (value: String) in ran.append("text \(value)") }
        context["texts"] = JSValue(newFunctionIn: context) { (values: [String]) in ran.append("texts \(values.count)") }
        let caught = eval(context, """
            var hostile = { valueOf: function () { throw new RangeError('valueOf') },
                            toString: function () { throw new URIError('toString') } };
            [function () { number(Symbol()) }, function () { number(hostile) }, function () { integer(Symbol()) },
             function () { integer(hostile) }, function () { text(Symbol()) }, function () { text(hostile) },
             function () { texts(['a', hostile]) },
             function () { number('7'); integer({ valueOf: function () { return 4294967297 } }); text(12) }
            ].map(function (f) { try { f(); return 'ok' } catch (e) { return e.name } }).join()
            """).toString()
        #expect(caught == "TypeError,RangeError,TypeError,RangeError,TypeError,URIError,URIError,ok")
        #expect(ran == ["number 7.0", "integer 1", "text 12"])
        #expect(recorder.messages.isEmpty)
    }

    @Test func optionalResultsOfTypedClosures() throws {
        context["maybeInt"] = JSValue(newFunctionIn: context) { (give: Bool) -> Int? in give ? 42 : nil }
        context["maybeDouble"] = JSValue(newFunctionIn: context) { (give: Bool) -> Double? in give ? 0.5 : nil }
        context["maybeString"] = JSValue(newFunctionIn: context) { (give: Bool) -> String? in give ? "a\u{0}😀" : nil }
        context["maybeBool"] = JSValue(newFunctionIn: context) { (give: Bool) -> Bool? in give ? false : nil }
        context["maybeValue"] = JSValue(newFunctionIn: context) { (give: Bool) -> JSValue? in
            give ? JSValue(newObjectIn: JSContext.current()) : nil
        }
        context["maybeArray"] = JSValue(newFunctionIn: context) { (give: Bool) -> [Int]? in give ? [1, 2] : nil }
        let results = eval(context, """
            ['maybeInt', 'maybeDouble', 'maybeString', 'maybeBool', 'maybeValue', 'maybeArray'].map(function (name) {
                var f = this[name];
                return [typeof f(true), JSON.stringify(f(true)), f(false) === undefined];
            }, this)
            """).toArray() as? [[Any]]
        let expected: [[Any]] = [
            ["number", "42", true], ["number", "0.5", true], ["string", "\"a\\u0000😀\"", true],
            ["boolean", "false", true], ["object", "{}", true], ["object", "[1,2]", true],
        ]
        #expect(results?.map { $0.map { "\($0)" } } == expected.map { $0.map { "\($0)" } })
    }

    @Test func callbacksFromACoroutineAndFromAFinalizerFindTheirContext() {
        // Identities, not the contexts: a closure holding its context would be a retain cycle.
        let expected = ObjectIdentifier(context)
        var contexts: [ObjectIdentifier?] = []
        context["probe"] = JSValue(newFunctionIn: context) { () in contexts.append(JSContext.current().map(ObjectIdentifier.init)) }
        eval(context, "var t = new Duktape.Thread(function () { probe(); return 1 }); Duktape.Thread.resume(t)")
        // A finalizer run when Swift releases the last reference: no script of any context is
        // running, and Duktape runs it on the heap's own thread.
        var value: JSValue? = eval(context, "(function () { var o = {}; Duktape.fin(o, function () { probe() }); return o })()")
        #expect(value?.isObject == true)
        value = nil
        context.virtualMachine.garbageCollect()
        #expect(contexts.count == 2)
        #expect(contexts.allSatisfy { $0 == expected })
    }

    // MARK: - Calls from the host (one entry, one reservation)

    @Test func jsCSpelledCallsPastTheEntryReservation() throws {
        let count = eval(context, "(function () { return arguments.length + ':' + Array.prototype.join.call(arguments) })")
        // Zero to 300 arguments: the entry's own reservation covers five, more reserve their room.
        let holder = JSValue(newObjectIn: context)!
        holder.setValue(count, forProperty: "f")
        for total in [0, 1, 5, 6, 7, 300] {
            let arguments = (0..<total).map { $0 }
            let expected = "\(total):" + arguments.map(String.init).joined(separator: ",")
            #expect(count.call(withArguments: arguments).toString() == expected)
            #expect(holder.invokeMethod("f", withArguments: arguments).toString() == expected)
        }
        let pair = eval(context, "(function (a, b) { this.sum = a + b })")
        #expect(pair.construct(withArguments: [2, 3]).forProperty("sum").toInt32() == 5)
    }

    /// `call(withArguments:)` reads `Double`, `Int` and `Bool` elements in place from the array's
    /// storage; every neighbour type (wrapped, sized, boxed, bridged) takes the general path and
    /// must give the same as it would alone.
    @Test func argumentsReadInPlaceMatchTheTable() {
        let describe = eval(context, """
            (function () {
                return Array.prototype.map.call(arguments, function (v) {
                    return typeof v + ':' + (Object.is(v, -0) ? '-0' : String(v))
                }).join(' ')
            })
            """)
        let arguments: [Any] = [
            1.5, -0.0, Double.nan, -Double.infinity, Int.min, 0, Int(1) << 53 + 1, true, false,
            Optional(true) as Any, Optional(2.5) as Any, UInt(3), Int32(-4), Float(0.25), CGFloat(1.25),
            NSNumber(value: false), "1.5", [1.5, true] as [Any], JSValue(bool: true, in: context)!,
        ]
        let expected = [
            "number:1.5", "number:-0", "number:NaN", "number:-Infinity", "number:-9223372036854776000",
            "number:0", "number:9007199254740992", "boolean:true", "boolean:false", "boolean:true",
            "number:2.5", "number:3", "number:-4", "number:0.25", "number:1.25", "boolean:false",
            "string:1.5", "object:1.5,true", "boolean:true",
        ]
        #expect(describe.call(withArguments: arguments).toString() == expected.joined(separator: " "))
        let constructor = eval(context, "(function (f) { return function () { this.text = f.apply(null, arguments) } })")
            .call(withArguments: [describe])!
        #expect(constructor.construct(withArguments: arguments).forProperty("text").toString() == expected.joined(separator: " "))
        // One at a time, through the other two spellings that read arguments the same way.
        let holder = JSValue(newObjectIn: context)!
        holder.setValue(describe, forProperty: "f")
        for (argument, text) in zip(arguments, expected) {
            #expect(holder.invokeMethod("f", withArguments: [argument]).toString() == text)
            #expect(describe.call(withArguments: [argument]).toString() == text)
        }
    }

    /// The in-place read itself: it must take exactly `Double`, `Int` and `Bool` (so that the
    /// test above exercises it), and leave every other type, however close, to the general path.
    @Test func inPlaceReadTakesExactlyItsThreeTypes() {
        let values: [Any] = [
            2.5, -7, true, Optional(2.5) as Any, Int64(3), Int32(4), Float(0.5), CGFloat(1.5), NSNumber(value: 6),
            "2.5", [2.5] as [Any], Optional<Bool>.none as Any,
        ]
        var read: [String] = []
        values.withUnsafeBufferPointer { buffer in
            for index in buffer.indices {
                switch InlineScalar.read(buffer.baseAddress.unsafelyUnwrapped + index) {
                case .number(let number): read.append("number \(number)")
                case .boolean(let flag): read.append("boolean \(flag)")
                case nil: read.append("general")
                }
            }
        }
        #if arch(x86_64) || arch(arm64)
        #expect(read == ["number 2.5", "number -7.0", "boolean true"] + Array(repeating: "general", count: 9))
        #else
        #expect(read == Array(repeating: "general", count: 12))
        #endif
    }

    @Test func invokeMethodFindsTheMethodAsAGetWould() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let object = eval(context, """
            ({ own: function (a) { return this.tag + a }, tag: 't',
               get viaGetter() { return function () { return 'getter ' + this.tag } } })
            """)
        let derived = eval(context, "(function (o) { var d = Object.create(o); d.tag = 'd'; return d })").call(withArguments: [object])!
        let proxy = eval(context, "(function (o) { return new Proxy(o, { get: function (t, k) { return k === 'own' ? function () { return 'trapped ' + this.tag } : t[k] } }) })")
            .call(withArguments: [object])!
        #expect(object.invokeMethod("own", withArguments: [1]).toString() == "t1")
        #expect(object.invokeMethod("viaGetter", withArguments: []).toString() == "getter t")
        #expect(derived.invokeMethod("own", withArguments: ["!"]).toString() == "d!")
        #expect(proxy.invokeMethod("own", withArguments: []).toString() == "trapped t")
        #expect(eval(context, "'abc'").invokeMethod("toUpperCase", withArguments: nil).toString() == "ABC")
        #expect(recorder.messages.isEmpty)
        // Not a function, a missing method, a primitive without it, undefined: a TypeError each,
        // reported, and the stack left as it was (the next call works).
        #expect(object.invokeMethod("tag", withArguments: []).isUndefined)
        #expect(object.invokeMethod("missing", withArguments: [1, 2, 3, 4, 5, 6, 7]).isUndefined)
        #expect(eval(context, "7").invokeMethod("nope", withArguments: []).isUndefined)
        #expect(eval(context, "undefined").invokeMethod("x", withArguments: []).isUndefined)
        #expect(recorder.messages.count == 4)
        #expect(recorder.messages.allSatisfy { $0.hasPrefix("TypeError") })
        #expect(object.invokeMethod("own", withArguments: [2]).toString() == "t2")
    }

    @Test func aFailedArgumentLeavesTheStackAsItWas() {
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let other = JSContext()!
        let foreign = JSValue(newObjectIn: other)!
        let add = eval(context, "(function (a, b) { return a + b })")
        let object = JSValue(newObjectIn: context)!
        object.setValue(add, forProperty: "add")
        for _ in 0..<100 {
            #expect(add.call(withArguments: [1, foreign]).isUndefined)
            #expect(object.invokeMethod("add", withArguments: [1, 2, 3, 4, 5, 6, foreign]).isUndefined)
        }
        #expect(recorder.messages.count == 200)
        #expect(add.call(withArguments: [1, 2]).toInt32() == 3)
        #expect(eval(context, "1 + 1").toInt32() == 2)
    }

    @Test func typedCallsPushTheirArgumentsIntoTheEntrysRoom() throws {
        let join = eval(context, "(function () { return Array.prototype.join.call(arguments, '|') })")
        #expect(try join.call(1.5, returning: String.self) == "1.5")
        #expect(try join.call(1, 2.5, returning: String.self) == "1|2.5")
        #expect(try join.call(1, "b", true, returning: String.self) == "1|b|true")
        #expect(try join.call(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, returning: String.self) == "1|2|3|4|5|6|7|8|9|10")
        let thrower = eval(context, "(function () { throw new RangeError('no') })")
        #expect(throws: JSException.self) { try thrower.call(1, 2, 3, returning: Double.self) }
        // The stack is as it was after the exception: the next call reads its own result.
        #expect(try eval(context, "(function (x) { return x })").call(4, returning: Int.self) == 4)
    }

    @Test func untypedClosuresGetFreshValuesAndTheFrameKeepsItsOwn() {
        var seen: [String] = []
        context["probe"] = JSValue(newFunctionIn: context) { (this: JSValue, arguments: [JSValue]) -> Any? in
            let current = JSContext.currentArguments()!.compactMap { $0 as? JSValue }
            // The closure's values and the frame's are equal values (not the same objects), and
            // asking the frame twice gives what it made the first time.
            seen.append("\(arguments.count) \(current.count) \(arguments.map { $0.toString()! }) \(current[0].isEqual(to: arguments[0]))")
            seen.append("\((JSContext.currentArguments()![0] as? JSValue) === current[0]) \(this.isEqual(to: JSContext.currentThis()))")
            return arguments.last
        }
        #expect(eval(context, "probe('a', {}, 3)").toInt32() == 3)
        #expect(eval(context, "probe.call(null, 'x')").toString() == "x")
        #expect(seen == ["3 3 [\"a\", \"[object Object]\", \"3\"] true", "true true", "1 1 [\"x\"] true", "true true"])
    }
}
