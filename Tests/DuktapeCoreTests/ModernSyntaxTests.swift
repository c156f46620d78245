import Foundation
import Synchronization
import Testing

@testable import DuktapeCore

/// ES2015–ES2020 syntax through `evaluateScript`/`evaluate`: lowered by the transpiler (TypeScript
/// in the compiler VM) when Duktape cannot parse it. Needs Debian's node-typescript (`make deps`).
/// Serialized: the compiler VM lowers one source at a time anyway, and the suite's lowerings
/// are CPU-heavy under the sanitizers.
@Suite("Modern syntax", .serialized, .enabled(if: JSTranspiler.isAvailable, "node-typescript is not installed"))
struct ModernSyntaxTests {
    private func run(_ script: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let context = JSContext()!
        return eval(context, script, sourceLocation: sourceLocation).toString()
    }

    @Test func declarationsArrowsAndTemplates() {
        #expect(run("let a = 1; const b = 2; { let a = 10; } a + b") == "3")
        #expect(run("const twice = (x) => x * 2, self = { v: 7, get: function () { return [1].map(() => this.v)[0] } }; twice(21) + self.get()") == "49")
        #expect(run("const n = 'w'; `a${n}b${1 + 1}`") == "awb2")
        // Tagged templates get the raw strings.
        #expect(run("function tag(s, ...v) { return s.raw[0] + '|' + s[0] + '|' + v[0] } tag`x\\ny${5}`") == "x\\ny|x\ny|5")
        // ... in frozen arrays, as the specification makes them.
        #expect(run("function tag(s) { return s } const t = tag`a${1}b`; [Object.isFrozen(t), Object.isFrozen(t.raw), t.length, t.raw.join()].join()") == "true,true,2,a,b")
        // Closures in loops see their own iteration's binding.
        #expect(run("const fs = []; for (let i = 0; i < 3; i++) fs.push(() => i); fs.map(f => f()).join()") == "0,1,2")
    }

    @Test func destructuringDefaultsRestAndSpread() {
        #expect(run("const { a, b: [c, d = 4] = [], ...rest } = { a: 1, b: [3], e: 5, f: 6 }; [a, c, d, Object.keys(rest).join('')].join()") == "1,3,4,ef")
        #expect(run("function f(x, y = x + 1, ...more) { return [x, y, more.length] } f(1).join() + '|' + f(1, 5, 6, 7).join()") == "1,2,0|1,5,2")
        #expect(run("const s = new Set([1, 2]); [...s, ...'ab', ...[3]].join() + '|' + Math.max(...[1, 9, 3])") == "1,2,a,b,3|9")
        #expect(run("const o = { ...{ a: 1, b: 2 }, b: 3 }; JSON.stringify(o)") == "{\"a\":1,\"b\":3}")
    }

    @Test func classes() {
        #expect(run("""
            class Shape {
              constructor(name) { this.name = name }
              get label() { return 'shape:' + this.name }
              static of(name) { return new this(name) }
              describe() { return this.label }
            }
            class Square extends Shape {
              constructor(side) { super('square'); this.side = side }
              describe() { return super.describe() + ':' + this.side }
            }
            const s = Square.of(3);
            [s.describe(), s instanceof Shape, Object.getPrototypeOf(Square) === Shape].join()
            """) == "shape:square:3,true,true")
    }

    @Test func iteratorsAndGenerators() {
        #expect(run("""
            function* count(n) { for (let i = 0; i < n; i++) yield i }
            function* all() { yield* count(2); yield* ['a', 'b'] }
            const out = []; for (const v of all()) out.push(v); out.join()
            """) == "0,1,a,b")
        // for...of closes the iterator on break and on throw.
        #expect(run("""
            let closed = 0;
            const iterable = { [Symbol.iterator]() { let i = 0; return { next: () => ({ value: i++, done: false }), return() { closed++; return {} } } } };
            for (const v of iterable) { if (v === 2) break }
            try { for (const v of iterable) { throw new Error('x') } } catch (e) {}
            closed
            """) == "2")
        #expect(run("const m = new Map([['a', 1], ['b', 2]]); let s = ''; for (const [k, v] of m) s += k + v; s") == "a1b2")
        #expect(run("let n = 0; for (const c of 'a\\uD83D\\uDE00') n++; n") == "2")
    }

    /// An iterator, or an iterator result, that is not an object is a TypeError in for-of,
    /// spread, destructuring and yield*, as the specification's GetIterator and IteratorStep
    /// make it (TypeScript's helpers read `.done` of a number and looped forever: an outside
    /// attack). Iterators whose results are objects behave as before, `return` and `throw` included.
    @Test func iteratorsThatAreNotObjectsOrGiveNonObjectsAreTypeErrors() {
        #expect(run("""
            const bad = { [Symbol.iterator]() { return { next() { return 5 } } } };
            const notAnIterator = { [Symbol.iterator]() { return 7 } };
            const out = [];
            for (const [name, f] of [
                ['for-of', () => { for (const x of bad) { out.push('looped'); break } }],
                ['spread', () => [...bad]],
                ['destructuring', () => { const [a] = bad; return a }],
                ['yield*', () => { function* g() { yield* bad } return g().next() }],
                ['iterator', () => { for (const x of notAnIterator) {} }],
            ]) {
                try { f(); out.push(name + ' ran') } catch (e) { out.push(e instanceof TypeError ? name : name + ' ' + e) }
            }
            out.join()
            """) == "for-of,spread,destructuring,yield*,iterator")
        #expect(run("""
            let returned = 0, thrown = 0;
            const good = { [Symbol.iterator]() { let i = 0; return { next: v => ({ value: i++, done: i > 3 }), return() { returned++; return {} }, throw(e) { thrown++; return { done: true } } } } };
            const [a, b] = good;
            function* g() { return yield* good }
            const it = g(); it.next(); it.throw(new Error('in'));
            [a, b, [...good].join('-'), returned, thrown].join()
            """) == "0,1,0-1-2,1,1")
        // A delegate's return and throw that give a non-object are TypeErrors in yield*, and so
        // is a return that does at the close of a for-of left by break (a throw's own error wins).
        #expect(run("""
            const out = [];
            const delegate = { [Symbol.iterator]() { return { next: () => ({ value: 1, done: false }), return: () => 5, throw: () => 'x' } } };
            function* g() { yield* delegate }
            let it = g(); it.next();
            try { it.return(0); out.push('return ran') } catch (e) { out.push('return ' + e.name) }
            it = g(); it.next();
            try { it.throw(new Error('in')); out.push('throw ran') } catch (e) { out.push('throw ' + e.name) }
            try { for (const v of delegate) break; out.push('break ran') } catch (e) { out.push('break ' + e.name) }
            try { for (const v of delegate) throw new RangeError('own') } catch (e) { out.push('throw in body ' + e.name) }
            try { const [a] = delegate; out.push('destructuring ran') } catch (e) { out.push('destructuring ' + e.name) }
            out.join()
            """) == "return TypeError,throw TypeError,break TypeError,throw in body RangeError,destructuring TypeError")
        // An iterator whose next() throws or gives a non-object is not closed by destructuring.
        #expect(run("""
            let closed = 0;
            const it = { [Symbol.iterator]() { let n = 0; return { next: () => n++ ? 3 : { value: 1, done: false }, return() { closed++; return {} } } } };
            let name = '';
            try { const [a, b] = it } catch (e) { name = e.name }
            name + closed
            """) == "TypeError0")
    }

    /// for await over an async iterator whose next() settles to a non-object is a TypeError,
    /// not an endless loop (an outside review).
    @Test func forAwaitRejectsNonObjectResults() async throws {
        let context = JSContext()!
        let result = try #require(context.evaluateScript("""
            (async () => {
                const out = [];
                try { for await (const v of { [Symbol.asyncIterator]() { return { next() { return 7 } } } }) { out.push(v) } } catch (e) { out.push(e.name) }
                const good = { [Symbol.asyncIterator]() { let i = 0; return { next: () => Promise.resolve({ value: i++, done: i > 2 }) } } };
                for await (const v of good) out.push(v);
                for await (const v of [Promise.resolve('p'), 'q']) out.push(v);
                const closing = { [Symbol.asyncIterator]() { return { next: () => Promise.resolve({ value: 1, done: false }), return: () => Promise.resolve(9) } } };
                try { for await (const v of closing) break; out.push('closed') } catch (e) { out.push('close ' + e.name) }
                return out.join();
            })()
            """))
        #expect(try await result.awaited().toString() == "TypeError,0,1,p,q,close TypeError")
    }

    @Test func asyncFunctionsFollowTheJobOrder() {
        let context = JSContext()!
        eval(context, """
            var log = [];
            async function f() { log.push('f1'); await null; log.push('f2'); return 'r' }
            f().then(v => log.push('then:' + v));
            Promise.resolve().then(() => log.push('p1')).then(() => log.push('p2'));
            log.push('sync');
            """)
        // Jobs ran when the call returned (the spec's order for await of a non-promise).
        #expect(eval(context, "log.join()").toString() == "f1,sync,f2,p1,then:r,p2")
    }

    @Test func operatorsOfES2016To2020() {
        #expect(run("const o = { a: { b: 0 } }; [o?.a?.b, o?.x?.y, o.x?.(), o.a.b ?? 'd', null ?? 'd', 2 ** 10].join()") == "0,,,0,d,1024")
        // ?. short-circuits the whole chain: nothing after it is evaluated.
        #expect(run("let calls = 0; const n = null; n?.f(calls++); n?.[calls++]; calls") == "0")
        #expect(run("let x = null; x ??= 5; let y = 1; y ||= 9; let z = 1; z &&= 3; [x, y, z].join()") == "5,1,3")
    }

    @Test func linesAreTheOriginals() throws {
        let context = JSContext()!
        let exception = thrown(context, """
            const a = 1;
            class K {
              m() {
                return [1].map(x => {
                  throw new Error('here');
                });
              }
            }
            new K().m();
            """, sourceURL: URL(string: "file:///lines.js"))
        #expect(exception?.line == 5)
        #expect(exception?.stack?.contains("lines.js:5") == true)
    }

    @Test func syntaxErrorsNameTheOriginalPlace() {
        let context = JSContext()!
        let exception = thrown(context, "let ok = 1;\nconst broken = (a, => a;\n")
        #expect(exception?.name == "SyntaxError")
        #expect(exception?.line == 2)
        #expect(exception?.message.contains("line 2, column") == true)
    }

    @Test func constBindingsCannotBeAssigned() {
        // After evaluating the right side, as the spec's PutValue.
        #expect(run("const c = 1; let side = 0; try { c = (side = 5, 2) } catch (e) { [e.name, side, c].join() }") == "TypeError,5,1")
        #expect(run("const c = 1; try { c++ } catch (e) { e.name + ':' + c }") == "TypeError:1")
        #expect(run("const c = 1; try { c += 1 } catch (e) { e.message }") == "Assignment to constant variable 'c'.")
        // A `let` or `var` of the same name in an inner scope is not the const.
        #expect(run("const c = 1; { let c = 2; c = 3; } function f() { var c = 4; c = 5; return c } f() + c") == "6")
        // ES5 source that uses `const` (Duktape parses it as `var`) is lowered too.
        #expect(run("var r; const k = 1; try { k = 2 } catch (e) { r = e.name } r") == "TypeError")
        // Every kind of target: destructuring (with defaults, rest, nested), for-in and for-of
        // heads; the TypeError comes at that assignment, after the ones before it.
        #expect(run("const a = 1; let b; try { [b, a] = [5, 2] } catch (e) { [e.name, b, a].join() }") == "TypeError,5,1")
        #expect(run("const a = 1; try { ({ x: [a = 5] } = { x: [] }) } catch (e) { e.message }") == "Assignment to constant variable 'a'.")
        #expect(run("const a = 1; try { ({ a } = { a: 2 }) } catch (e) { e.name + a }") == "TypeError1")
        #expect(run("const a = []; try { [...a] = [1] } catch (e) { e.name + a.length }") == "TypeError0")
        #expect(run("""
            const a = 1; let closed = false;
            const it = { [Symbol.iterator]() { return { next() { return { value: 1, done: false } }, return() { closed = true; return {} } } } };
            try { for (a of it) {} } catch (e) { e.name + closed }
            """) == "TypeErrortrue")
        #expect(run("const a = 1; let r = 'none'; try { for (a in { x: 1 }) {} } catch (e) { r = e.name } for (a in {}) {} r + a") == "TypeError1")
        // Logical assignment assigns (and so throws) only when it would assign.
        #expect(run("const t = 1, f = 0, n = null; t ||= 2; f &&= 2; let r; try { n ??= 3 } catch (e) { r = e.name } [t, f, r].join()") == "1,0,TypeError")
        // A class's name is immutable inside the class, assignable outside (as a `let`).
        #expect(run("class C { static m() { C = 1 } } let r; try { C.m() } catch (e) { r = e.name } C = 5; r + C") == "TypeError5")
    }

    @Test func argumentsInArrowsIsTheEnclosingFunctions() {
        #expect(run("function f() { return [10, 20].map((v, i) => v + arguments[i]) } f(1, 2).join()") == "11,22")
        #expect(run("function g() { const inner = () => () => arguments.length; return inner()() } g(1, 2, 3)") == "3")
        #expect(run("var o = { m() { return (() => arguments[0])() } }; o.m('x')") == "x")
        // As a shorthand property the key stays `arguments`.
        #expect(run("function g() { return (() => ({ arguments }))() } const o = g(7, 8); Object.keys(o) + o.arguments.length") == "arguments2")
    }

    @Test func classesFollowES2015Rules() {
        #expect(run("class A {} try { A() } catch (e) { e.name + ': ' + e.message }") == "TypeError: Class constructor A cannot be invoked without 'new'")
        #expect(run("class B extends Object { constructor() { super(); this.v = 1 } } try { B.call({}) } catch (e) { e.name }") == "TypeError")
        // A constructor's own binding of the class's name (a parameter, a variable) is its own;
        // the class check still names the class.
        #expect(run("class C { constructor(C) { var o = { C }; this.v = C + o.C } } let r; try { C(1) } catch (e) { r = e.name } r + new C(2).v") == "TypeError4")
        #expect(run("class D { constructor(a) { var D = a * 2; this.v = D } } new D(3).v") == "6")
        #expect(run("""
            class HttpError extends Error {
              constructor(status, message) { super(message); this.name = 'HttpError'; this.status = status }
              get summary() { return this.status + ' ' + this.message }
            }
            const e = new HttpError(404, 'missing');
            [e instanceof HttpError, e instanceof Error, e.summary, String(e), Object.prototype.toString.call(e)].join()
            """) == "true,true,404 missing,HttpError: missing,[object Error]")
        #expect(run("""
            class Stack extends Array { top() { return this[this.length - 1] } }
            class Registry extends Map { register(k) { return this.set(k, true) } }
            const s = new Stack(); s.push(1, 2);
            const r = new Registry().register('a');
            [s.top(), s.length, Array.isArray(s), s instanceof Stack, r.has('a'), r instanceof Registry, r.size].join()
            """) == "2,2,true,true,true,true,1")
    }

    @Test func protoInALiteralSetsThePrototype() {
        #expect(run("const base = { hi() { return 'hi' } }; const o = { __proto__: base, x: 1 }; [o.hi(), Object.keys(o).join(), Object.getPrototypeOf(o) === base].join()") == "hi,x,true")
        #expect(run("var n = { __proto__: null }; Object.getPrototypeOf(n) === null && Object.keys(n).length === 0") == "true")
        // The prototype's expression runs in its place among the entries.
        #expect(run("""
            const log = []; const t = (x, tag) => (log.push(tag), x);
            const o = { a: t(1, 'a'), __proto__: t({ z: 9 }, 'p'), b: t(2, 'b') };
            const q = { __proto__: t({ y: 8 }, 'P'), m() {}, [t('k', 'k')]: 1 };
            log.join('') + o.z + q.y + Object.keys(o) + Object.keys(q)
            """) == "apbPk98a,bm,k")
        // A shorthand or method named __proto__ is an own property, as in ES2015.
        #expect(run("const __proto__ = 5; let o = { __proto__ }; Object.keys(o).join() + Object.getPrototypeOf(o).hasOwnProperty('toString')") == "__proto__true")
    }

    @Test func es5SourceIsNotLowered() throws {
        // ES5 compiles as it is: `arguments`, `this` and completion values are Duktape's own.
        #expect(run("var a = [1, 2]; (function () { return arguments.length })(1, 2, 3) + a.length") == "5")
        #expect(try JSTranspiler.transpile("let [a, b] = [1, 2];").contains("var"))
    }

    @Test func es5SourceIsLoweredOnlyForADeclaredConstOrALiteralsProto() {
        // What Duktape reads otherwise than ES2015: lowered.
        for source in ["const a = 1", "for (const k in o) {}", "const{a}=o", "const [a] = o", "var o = { __proto__: p }",
                       "f({ a: 1,\n __proto__ : p })", "var o = { '__proto__': p }", "var o = {\"__proto__\"\n: p}"] {
            #expect(Transpiler.needsLoweringThoughParsed(source), "\(source)")
        }
        // `const` as a property name (TypeScript's own compiler has `{ const: 85 }`: lowering its
        // 10 MB took 40 s), in strings and comments; `__proto__` read or assigned as a property.
        for source in ["var k = { const: 85, continue: 86 }", "x.const = 1; y = x . const", "'const a = 1'", "// const a\n/* const b */",
                       "o.__proto__ = p", "var q = o.__proto__", "a ? __proto__ : b", "f('__proto__', x)", "var constant = 1"] {
            #expect(!Transpiler.needsLoweringThoughParsed(source), "\(source)")
        }
        // A bundle over the limit keeps Duktape's reading.
        let bundle = "var t = ({ __proto__: [] } instanceof Array);\n" + String(repeating: "var x = 1;\n", count: Transpiler.parsedLoweringLimit / 10)
        #expect(!Transpiler.needsLoweringThoughParsed(bundle))
        #expect(Transpiler.needsLoweringThoughParsed(String(bundle.prefix(Transpiler.parsedLoweringLimit))))
    }

    @Test func strictDirectivesAndLineContinuationsSurviveTheLayout() {
        // 'use strict' after a comment line stays the prologue (a sloppy assignment would make a
        // global); a string continued over lines keeps its characters and the lines their numbers.
        #expect(run("// header\n'use strict';\nclass A {}\ntry { undeclared = 1; 'sloppy' } catch (e) { e.name }") == "ReferenceError")
        #expect(run("const s = 'ab\\\ncd'; let n = () => s.length; n()") == "4")
    }

    @Test func typeScriptSourcesLoseTheirTypes() throws {
        let es5 = try JSTranspiler.transpile("const n: number = 1; interface P { x: number }; const p = <P>{ x: n }; p.x", fileName: "a.ts")
        #expect(!es5.contains("number"))
        #expect(!es5.contains("interface"))
    }

    @Test func theLoweringsHelpersAreNeitherTheScriptsGlobalsNorTakenFromThem() throws {
        let context = JSContext()!
        // A script's own globals of the helpers' names (TypeScript's inline copies would have
        // used them, or overwritten them) stay the script's, and lowered code does not call them.
        eval(context, "var __extends = function () { throw new Error('the script\\'s __extends') }; this.__awaiter = function () { return 'not a promise' }; var __generator = 7")
        #expect(eval(context, "class A { m() { return 1 } } class B extends A { m() { return super.m() + 1 } } new B().m()").toInt32() == 2)
        #expect(eval(context, "async function f() { const [a, ...r] = [1, 2, 3]; return a + r.length } f() instanceof Promise").toBool())
        #expect(eval(context, "__generator === 7 && typeof __awaiter === 'function' && __awaiter() === 'not a promise'").toBool())
        // The lowering declares no global of its own; its helpers are one frozen, fixed global.
        #expect(eval(context, "Object.keys(this).filter(function (k) { return k.indexOf('__') === 0 }).sort().join()").toString() == "__awaiter,__extends,__generator")
        let described = eval(context, "var n = '__duktape' + 'Lowering', d = Object.getOwnPropertyDescriptor(this, n); [d.writable, d.enumerable, d.configurable, Object.isFrozen(this[n]), delete this[n]].join()")
        #expect(described.toString() == "false,false,false,true,false")
        // Modern source cannot name it; ES5 source that took the name first keeps it, and lowered
        // code there fails with a TypeError that says why.
        let named = try #require(thrown(context, "let __duktapeLowering = 1"))
        #expect(named.name == "SyntaxError")
        #expect(named.message.contains("reserved"))
        let other = JSContext()!
        eval(other, "var __duktapeLowering = 'mine'")
        let taken = try #require(thrown(other, "class C {} new C()"))
        #expect(taken.name == "TypeError")
        #expect(taken.message.contains("reserved"))
        #expect(eval(other, "__duktapeLowering").toString() == "mine")
        // JSTranspiler.transpile's output, evaluated as ES5 in a fresh context, finds the helpers.
        let es5 = try JSTranspiler.transpile("class P { constructor(x) { this.x = x } } class Q extends P {} new Q(5).x")
        #expect(es5.contains("__duktapeLowering"))
        #expect(eval(JSContext()!, es5).toInt32() == 5)
    }

    @Test func aLoweredSourceIsCachedAndRunsAgain() {
        let context = JSContext()!
        for round in 0..<3 {
            #expect(eval(context, "const r = [1, 2].map((v) => v * \(round)); r.join()").toString() == "\(round),\(round * 2)")
        }
    }
}

/// Hostile source through the transpiler: each ends within the limits with an error, and the
/// host (and the compiler VM) go on.
@Suite("Modern syntax, hostile", .serialized, .enabled(if: JSTranspiler.isAvailable, "node-typescript is not installed"))
struct ModernSyntaxHostileTests {
    @Test func deeplyNestedBracketsEndInAnError() {
        let context = JSContext()!
        let depth = 1 << 20
        let source = "let a = " + String(repeating: "[", count: depth / 2) + String(repeating: "]", count: depth / 2) + ";"
        let exception = thrown(context, source)
        #expect(exception != nil)
        #expect(eval(context, "let after = 1; after").toInt32() == 1)
    }

    @Test func aSourceTooSlowToLowerStopsAtTheTimeLimit() {
        let saved = JSTranspiler.timeLimit
        JSTranspiler.timeLimit = 2
        defer { JSTranspiler.timeLimit = saved }
        // About 10 MB of ES2015 (a source never lowered before: no cache helps).
        let statement = "((a = 1) => `${a}`)(\(UInt32.random(in: 0...UInt32.max)));\n"
        // (1 MB under the sanitizers: many times slower, it passes the time limit as surely.)
        let size = runsUnderASanitizer ? 1 << 20 : 10 << 20
        let source = String(repeating: statement, count: size / statement.utf8.count)
        let context = JSContext()!
        let started = Date()
        let exception = thrown(context, source)
        #expect(exception?.name == "SyntaxError")
        #expect(exception?.message.contains("transpiler stopped") == true)
        #expect(Date().timeIntervalSince(started) < 60)
        // The compiler VM still lowers the next source.
        #expect(eval(context, "const ok = () => 'ok'; ok()").toString() == "ok")
    }

    @Test func loweredSourcesAreKeptOnDiskBoundedAndCheckedWhenRead() throws {
        let saved = (JSTranspiler.cacheDirectory, JSTranspiler.diskCacheBytes)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lowered-\(UUID().uuidString)")
        JSTranspiler.cacheDirectory = directory
        defer {
            JSTranspiler.cacheDirectory = saved.0
            JSTranspiler.diskCacheBytes = saved.1
            try? FileManager.default.removeItem(at: directory)
        }
        let lowered = directory.appendingPathComponent("lowered")
        let unique = "unique\(UUID().uuidString.prefix(8))"
        let source = "const \(unique) = (x) => x ** 2; 7"
        let first = try JSTranspiler.transpile(source)
        // The cache directory is global: tests running beside this one may add their entries.
        // This test's entry is the one that holds its source.
        let entries = try FileManager.default.contentsOfDirectory(at: lowered, includingPropertiesForKeys: nil)
            .filter { (try? Data(contentsOf: $0))?.range(of: Data(unique.utf8)) != nil }
        #expect(entries.count == 1)
        // Read back from disk (not memory): the same code.
        Transpiler.shared.forgetRemembered()
        #expect(try JSTranspiler.transpile(source) == first)
        // A corrupt entry is not used: the source is lowered again, and the entry rewritten.
        let entry = try #require(entries.first)
        var bytes = try Data(contentsOf: entry)
        bytes[bytes.count - 2] ^= 0x20
        try bytes.write(to: entry)
        Transpiler.shared.forgetRemembered()
        #expect(try JSTranspiler.transpile(source) == first)
        #expect(try Data(contentsOf: entry) != bytes)
        // Bounded: with a small limit the oldest entries go.
        let limit = runsUnderASanitizer ? 1024 : 4096
        JSTranspiler.diskCacheBytes = limit
        for index in 0..<(runsUnderASanitizer ? 10 : 30) {
            _ = try JSTranspiler.transpile("let v\(index) = [\(index)].map((x) => `${x}`);")
        }
        let total = try FileManager.default.contentsOfDirectory(at: lowered, includingPropertiesForKeys: [.fileSizeKey])
            .reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
        #expect(total <= limit)
    }

    @Test func aSandboxsTimeLimitCapsTheLowering() {
        // A sandboxed script's source cannot keep the compiler VM busier than the script itself
        // could run: its time limit caps the lowering's.
        let context = JSContext(sandbox: JSSandbox(memoryLimit: 8 << 20, executionTimeLimit: 0.2))!
        let statement = "((a = 1) => `${a}`)(\(UInt32.random(in: 0...UInt32.max)));\n"
        let source = String(repeating: statement, count: (2 << 20) / statement.utf8.count)
        let started = Date()
        let exception = thrown(context, source)
        #expect(exception?.message.contains("transpiler stopped") == true)
        #expect(Date().timeIntervalSince(started) < 20)
        // The compiler VM goes on (checked outside the sandbox, whose 0.2 s a loaded machine
        // could spend on any lowering).
        #expect(eval(JSContext()!, "const small = () => 1; small()").toInt32() == 1)
    }

    @Test func waitingForTheCompilerIsNotTheScriptsTime() {
        // Another caller's long lowering holds the one compiler VM. A source lowered before does
        // not wait for it (it comes from the cache while the other still runs). A new source
        // waits, and neither the wait nor its own lowering counts against the script's time
        // limit (as parsing does not in JavaScriptCore): it runs.
        let token = UInt32.random(in: 0...UInt32.max)
        let cached = "const cached\(token) = (n = 1) => n * 7; cached\(token)()"
        #expect(eval(JSContext()!, cached).toInt32() == 7)
        let statement = "const f\(token) = async (a = 1, ...rest) => { for (const x of rest) await x; return `${a}`; };\n"
        let long = String(repeating: statement, count: 20)
        let otherDone = DispatchSemaphore(value: 0)
        Thread {
            _ = try? JSTranspiler.transpile(long)
            otherDone.signal()
        }.start()
        let started = Date()
        while Transpiler.shared.lowerings.load(ordering: .sequentiallyConsistent) == 0, Date().timeIntervalSince(started) < 60 {
            sched_yield()
        }
        #expect(Transpiler.shared.lowerings.load(ordering: .sequentiallyConsistent) == 1, "the other lowering never started")
        let vm = JSVirtualMachine()!
        vm.executionTimeLimit = 0.5
        #expect(eval(JSContext(virtualMachine: vm)!, cached).toInt32() == 7)
        #expect(Transpiler.shared.lowerings.load(ordering: .sequentiallyConsistent) == 1, "the cached source waited for the lowering")
        let context = JSContext(virtualMachine: vm)!
        #expect(eval(context, "const small\(token) = (n = 2) => n * 21; small\(token)()").toInt32() == 42)
        #expect(otherDone.wait(timeout: .now() + 300) == .success)
    }

    @Test func transpilerFailuresAreTypedErrors() {
        #expect(throws: JSTranspiler.Failure.self) { try JSTranspiler.transpile("let = = 1") }
        do {
            _ = try JSTranspiler.transpile("\n\nclass {")
            Issue.record("expected a syntax failure")
        } catch {
            guard case .syntax(_, let line, _, _) = error else {
                Issue.record("expected .syntax, got \(error)")
                return
            }
            #expect(line == 3)
        }
    }
}
