import Foundation
import Testing

@testable import DuktapeCore

/// The natives DuktapeWeb's page uses in place of script: the plain-data copy of a posted
/// message and the own internal-state slot.
@Suite("Native helpers")
struct NativeHelperTests {
    private func context() throws -> JSContext {
        let context = try #require(JSContext())
        context.setObject(try context.nativeHelper(.plainDataCopy), forKeyedSubscript: "copy")
        context.setObject(try context.nativeHelper(.ownSlot), forKeyedSubscript: "ownSlot")
        context.setObject(try context.hiddenKey("NativeHelperTests.state"), forKeyedSubscript: "KEY")
        return context
    }

    private func run(_ context: JSContext, _ source: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let result = context.evaluateScript(source)
        #expect(context.exception == nil, "\(context.exception?.toString() ?? "")", sourceLocation: sourceLocation)
        context.exception = nil
        return result?.toString()
    }

    /// Plain data comes back as a copy with the same JSON, no prototype at any level, nothing
    /// shared with the original, own enumerable string keys only, in their order.
    @Test func plainDataIsCopiedWithoutPrototypes() throws {
        let context = try context()
        #expect(run(context, """
            function bare(v) {
                if (v === null || typeof v !== 'object') return true;
                if (Object.getPrototypeOf(v) !== null) return false;
                return Object.keys(v).every(function (k) { return bare(v[k]); });
            }
            var values = [{}, [], { a: 1, b: 'x', c: null, d: undefined, e: true, f: -0, g: 1.5e300, h: '\\ud800' },
                [1, [2, [3, {}]], { x: [] }], JSON.parse('{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}'),
                Object.create(null), { __proto__: null, k: 1 }, { 'é': 'ü', '': 0 }];
            values.every(function (v) {
                var c = copy(v);
                return c !== v && bare(c) && JSON.stringify(c) === JSON.stringify(v) && Array.isArray(c) === Array.isArray(v);
            })
            """) == "true")
        // Own enumerable string keys only, in order; a symbol key, a non-enumerable one and an
        // inherited one stay behind; an array's extra properties too; undefined stays a value.
        #expect(run(context, """
            var o = { z: 1, a: 2 }; Object.defineProperty(o, 'hidden', { value: 3, enumerable: false });
            o[Symbol('s')] = 4; var a = [1, undefined, 3]; a.extra = 5;
            var co = copy(o), ca = copy(a);
            [Object.keys(co).join(), Object.getOwnPropertySymbols(co).length, ca.length, 'extra' in ca, 1 in ca, ca[1]].join('|')
            """) == "z,a|0|3|false|true|")
        // The copy is new at every level, even for a value seen twice (not a cycle).
        #expect(run(context, "var s = { v: 1 }, c = copy({ a: s, b: s }); [c.a !== c.b, c.a !== s, c.a.v].join()") == "true,true,1")
    }

    /// Anything outside plain data is left to the page's script (undefined), which copies it or
    /// names what is wrong.
    @Test func anythingElseIsLeftToScript() throws {
        let context = try context()
        let cases = [
            "new Date(0)", "new Uint8Array(2)", "new ArrayBuffer(2)", "new Error('e')", "new Proxy({}, {})", "[new Proxy({}, {})]",
            "({ get g() { return 1 } })", "[1, , 3]", "(function () { var o = {}; o.self = o; return o })()",
            "(function () { var a = []; a.push({ back: a }); return a })()", "({ s: Symbol('x') })", "({ f: function () {} })",
            "({ 0: 'index key' })", "new (function Klass() { this.a = 1 })()", "({ d: new Date(0) })", "Object.create({ inherited: 1 })",
            "(function () { var o = {}; o[Symbol.toStringTag] = 'Date'; return o })()", "new Map()", "/x/", "new String('s')",
            "(function () { var a = []; a.length = 5; return a })()", "(function () { var a = [1]; a[100000] = 2; return a })()",
        ]
        for source in cases {
            #expect(run(context, "copy(\(source)) === undefined") == "true", "\(source)")
        }
        // Depth: 256 levels below the top are copied, one more is not.
        #expect(run(context, "function nest(n) { var v = {}; for (var i = 0; i < n; i++) v = { v: v }; return v } copy(nest(256)) !== undefined") == "true")
        #expect(run(context, "copy(nest(257)) === undefined") == "true")
        // Values: a million at most, arrays checked by length first.
        #expect(run(context, "var big = []; for (var i = 0; i < 999999; i++) big.push(0); copy(big) !== undefined") == "true")
        #expect(run(context, "big.push(0); copy(big) === undefined") == "true")
        #expect(run(context, "copy([big.slice(0, 999999)]) === undefined") == "true")
        // A @@toStringTag on Object.prototype makes every plain object script's to copy.
        #expect(run(context, "Object.defineProperty(Object.prototype, Symbol.toStringTag, { value: 'X', configurable: true }); copy({}) === undefined") == "true")
        #expect(run(context, "delete Object.prototype[Symbol.toStringTag]; copy({}) !== undefined") == "true")
        // Primitives and a missing argument.
        #expect(run(context, "[copy(1), copy('s'), copy(null), copy(), copy(true)].join()") == "1,s,,,true")
    }

    /// `ownSlot` reads an own data slot under a hidden key; inherited ones are not its own;
    /// where script must decide (a Proxy, an accessor, a key that is not hidden) it says so.
    @Test func ownSlotReadsOnlyOwnHiddenDataSlots() throws {
        let context = try context()
        #expect(run(context, """
            var U = {}, o = {}; o[KEY] = 'state';
            var inherited = Object.create(o), fn = function () {}; fn[KEY] = 7;
            var accessor = {}; Object.defineProperty(accessor, KEY, { get: function () { return 'got' } });
            [ownSlot(o, KEY, U), ownSlot(inherited, KEY, U), ownSlot({}, KEY, U), ownSlot(fn, KEY, U), ownSlot(1, KEY, U),
             ownSlot(null, KEY, U), ownSlot(undefined, KEY, U), ownSlot(new Proxy(o, {}), KEY, U) === U,
             ownSlot(accessor, KEY, U) === U, ownSlot({ plain: 1 }, 'plain', U) === U, ownSlot(o, 5, U) === U, ownSlot(o)].join('|')
            """) == "state|||7||||true|true|true|true|")
    }
}
