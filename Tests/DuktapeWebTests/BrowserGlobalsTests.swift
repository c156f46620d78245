import DuktapeCore
import Foundation
import Testing

@testable import DuktapeWeb

/// A context with the browser globals, and exceptions recorded instead of stored.
final class Page: @unchecked Sendable {
    let context = JSContext()!
    private let lock = NSLock()
    private var reported: [String] = []
    var exceptions: [String] { lock.withLock { reported } }

    init() throws {
        try BrowserGlobals.install(in: context)
        context.exceptionHandler = { [weak self] _, exception in
            let text = exception?.toString() ?? "nil"
            self?.lock.withLock { self?.reported.append(text) }
        }
    }

    /// The script's completion value as a string (throws the script's exception).
    func run(_ script: String) throws -> String {
        try context.evaluate(script).toString() ?? "nil"
    }
}

@Suite("Browser globals: btoa, atob, DOMException")
struct Base64Tests {
    @Test func btoaEncodesLatin1Strings() throws {
        let page = try Page()
        #expect(try page.run("btoa('')") == "")
        #expect(try page.run("btoa('\\u00ff\\u00fe')") == "//4=")
        #expect(try page.run("btoa('ÿ')") == "/w==")
        #expect(try page.run("btoa('\\0a')") == "AGE=")
        // WebIDL DOMString conversions: null and undefined are strings; objects by toString.
        #expect(try page.run("btoa(null)") == "bnVsbA==")
        #expect(try page.run("btoa(undefined)") == "dW5kZWZpbmVk")
        #expect(try page.run("btoa({ toString: function () { return 'a' } })") == "YQ==")
        #expect(try page.run("btoa(12)") == "MTI=")
    }

    @Test func atobIsForgivingBase64() throws {
        let page = try Page()
        let cases: [(String, String)] = [
            ("''", ""), ("'abcd'", "69 b7 1d"), ("' ab\\tcd\\n'", "69 b7 1d"), ("'ab'", "69"), ("'abc'", "69 b7"),
            ("'ab=='", "69"), ("'abc='", "69 b7"), ("'/w=='", "ff"), ("null", "9e e9 65"), ("12", "d7"),
            ("'AAAA'", "00 00 00"), ("'AQID'", "01 02 03"),
        ]
        for (input, bytes) in cases {
            let decoded = try page.run("""
                (function (s) { var out = []; for (var i = 0; i < s.length; i++) out.push(('0' + s.charCodeAt(i).toString(16)).slice(-2)); return out.join(' ') })(atob(\(input)))
                """)
            #expect(decoded == bytes, "atob(\(input))")
        }
    }

    @Test func malformedBase64IsAnInvalidCharacterError() throws {
        let page = try Page()
        for input in ["'a'", "'abcde'", "'ab='", "'a==='", "'='", "'ab\\u00ff'", "'ab cd=e'", "'ab-_'", "undefined", "'abc=d'", "'ab===='"] {
            let outcome = try page.run("""
                try { atob(\(input)); 'no error' } catch (e) {
                    [e instanceof DOMException, e instanceof Error, e.name, e.code, e.message.length > 0].join()
                }
                """)
            #expect(outcome == "true,true,InvalidCharacterError,5,true", "atob(\(input))")
        }
        let outcome = try page.run("try { btoa('\\u0100') } catch (e) { e.name + ' ' + e.code + ' ' + (e instanceof DOMException) }")
        #expect(outcome == "InvalidCharacterError 5 true")
        // A lone surrogate is above U+00FF too.
        #expect(try page.run("try { btoa('\\ud800') } catch (e) { e.name }") == "InvalidCharacterError")
    }

    @Test func argumentsAreCheckedAsWebIDLDoes() throws {
        let page = try Page()
        for call in ["btoa()", "atob()", "btoa(Symbol())", "atob(Symbol('x'))"] {
            #expect(try page.run("try { \(call); 'no error' } catch (e) { e.name }") == "TypeError", "\(call)")
        }
        #expect(try page.run("try { btoa({ toString: function () { throw new RangeError('mine') } }) } catch (e) { e.message }") == "mine")
        #expect(page.exceptions.isEmpty)
    }

    @Test func everyByteRoundTrips() throws {
        let page = try Page()
        let result = try page.run("""
            var all = ''; for (var i = 0; i < 256; i++) all += String.fromCharCode(i);
            var big = ''; for (var j = 0; j < 12; j++) big += all;
            [atob(btoa(all)) === all, atob(btoa(big)) === big, btoa(all).length].join()
            """)
        #expect(result == "true,true,344")
    }

    @Test func domExceptionIsAnErrorWithANameAndALegacyCode() throws {
        let page = try Page()
        #expect(try page.run("""
            var e = new DOMException('gone', 'AbortError');
            [e instanceof DOMException, e instanceof Error, e.name, e.message, e.code, String(e),
             typeof e.stack, Object.keys(e).length, DOMException.ABORT_ERR, e.ABORT_ERR].join()
            """) == "true,true,AbortError,gone,20,AbortError: gone,string,0,20,20")
        #expect(try page.run("var d = new DOMException(); [d.name, d.message, d.code].join('|')") == "Error||0")
        #expect(try page.run("new DOMException('m', 'NotAnError').code") == "0")
        #expect(try page.run("try { DOMException('x') } catch (e) { e.name }") == "TypeError")
        #expect(try page.run("try { new DOMException(Symbol()) } catch (e) { e.name }") == "TypeError")
    }
}

@Suite("Browser globals: TextEncoder, TextDecoder")
struct TextCodingTests {
    @Test func encodeGivesUTF8Bytes() throws {
        let page = try Page()
        #expect(try page.run("Array.prototype.join.call(new TextEncoder().encode('é😀'), ' ')") == "195 169 240 159 152 128")
        #expect(try page.run("Array.prototype.join.call(new TextEncoder().encode('a\\0b'), ' ')") == "97 0 98")
        // A lone surrogate is a USVString's replacement character.
        #expect(try page.run("Array.prototype.join.call(new TextEncoder().encode('\\ud800x'), ' ')") == "239 191 189 120")
        #expect(try page.run("var t = new TextEncoder(); [t.encode().length, t.encode(undefined).length, t.encode(null).length, t.encoding, t.encode('') instanceof Uint8Array].join()")
            == "0,0,4,utf-8,true")
    }

    @Test func encodeIntoNeverSplitsACharacter() throws {
        let page = try Page()
        let result = try page.run("""
            var encoder = new TextEncoder(), results = [];
            [0, 1, 4, 5, 6, 10].forEach(function (size) {
                var destination = new Uint8Array(size), r = encoder.encodeInto('a😀b', destination);
                results.push(r.read + '/' + r.written + ':' + Array.prototype.join.call(destination, '.'));
            });
            results.join(' ')
            """)
        #expect(result == "0/0: 1/1:97 1/1:97.0.0.0 3/5:97.240.159.152.128 4/6:97.240.159.152.128.98 4/6:97.240.159.152.128.98.0.0.0.0")
        #expect(try page.run("try { new TextEncoder().encodeInto('a', [0]) } catch (e) { e.name }") == "TypeError")
    }

    @Test func decodeReplacesMalformedSequencesAsWHATWGDoes() throws {
        let page = try Page()
        let cases: [(String, String)] = [
            ("[0x61, 0x00, 0x62]", "61 0 62"),
            ("[0xFF]", "fffd"), ("[0xC0, 0x80]", "fffd fffd"), ("[0xE2, 0x82]", "fffd"),
            ("[0xF0, 0x80, 0x80]", "fffd fffd fffd"), ("[0xED, 0xA0, 0x80]", "fffd fffd fffd"),
            ("[0xF4, 0x90, 0x80, 0x80]", "fffd fffd fffd fffd"), ("[0xE2, 0x82, 0x41]", "fffd 41"),
            ("[0xF0, 0x9F, 0x98, 0x80]", "d83d de00"), ("[0xEF, 0xBB, 0xBF, 0x61]", "61"),
        ]
        for (bytes, expected) in cases {
            let decoded = try page.run("""
                (function (s) { var out = []; for (var i = 0; i < s.length; i++) out.push(s.charCodeAt(i).toString(16)); return out.join(' ') })(new TextDecoder().decode(new Uint8Array(\(bytes))))
                """)
            #expect(decoded == expected, "\(bytes)")
        }
        #expect(try page.run("new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xEF, 0xBB, 0xBF])).charCodeAt(0)") == "65279")
        #expect(try page.run("var d = new TextDecoder('utf-8', { fatal: true }); try { d.decode(new Uint8Array([0x61, 0xFF])) } catch (e) { e.name + ': ' + e.message }")
            == "TypeError: Failed to execute 'decode' on 'TextDecoder': The encoded data was not valid.")
        #expect(try page.run("new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xC3, 0xA9]))") == "é")
    }

    @Test func streamingDecodesAcrossEveryChunkBoundary() throws {
        let page = try Page()
        // Every split of a text mixing 1-, 2-, 3- and 4-byte characters (and a BOM), in two and
        // in three chunks, with and without a final flush, and with fatal on.
        let result = try page.run("""
            var text = 'a\\u00e9\\u20ac\\ud83d\\ude00z', bytes = new TextEncoder().encode('\\ufeff' + text), failures = [];
            for (var i = 0; i <= bytes.length; i++) {
                for (var j = i; j <= bytes.length; j++) {
                    [false, true].forEach(function (fatal) {
                        var d = new TextDecoder('utf-8', { fatal: fatal });
                        var out = d.decode(bytes.subarray(0, i), { stream: true }) + d.decode(bytes.subarray(i, j), { stream: true }) +
                            d.decode(bytes.subarray(j));
                        if (out !== text) failures.push(i + ',' + j + ',' + fatal);
                    });
                }
            }
            failures.length + ' of ' + (bytes.length + 1) * (bytes.length + 2)
            """)
        #expect(result == "0 of 240")
        // A stream that ends inside a character ends with a replacement character (or, fatal,
        // a TypeError), and the decoder then starts a new stream.
        #expect(try page.run("""
            var d = new TextDecoder(), first = d.decode(new Uint8Array([0x61, 0xE2, 0x82]), { stream: true }), end = d.decode();
            [first, end.charCodeAt(0).toString(16), d.decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x62]))].join()
            """) == "a,fffd,b")
        #expect(try page.run("""
            var f = new TextDecoder('utf-8', { fatal: true }); f.decode(new Uint8Array([0xE2]), { stream: true });
            try { f.decode(); 'no error' } catch (e) { e.name + ' ' + f.decode(new Uint8Array([0x63])) }
            """) == "TypeError c")
    }

    @Test func aSecondByteThatCanNeverFitIsDecodedAtOnce() throws {
        let page = try Page()
        // E0 80, ED A0, F0 80 and F4 90 can never start a valid sequence: not held back.
        #expect(try page.run("""
            ['E0 80', 'ED A0', 'F0 80', 'F4 90', 'E0 A0', 'F0 90 80'].map(function (hex) {
                var bytes = new Uint8Array(hex.split(' ').map(function (h) { return parseInt(h, 16) }));
                var lenient = new TextDecoder().decode(bytes, { stream: true }).length;
                try { new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true }); return lenient + ':held' }
                catch (e) { return lenient + ':' + e.name }
            }).join()
            """) == "2:TypeError,2:TypeError,2:TypeError,2:TypeError,0:held,0:held")
    }

    @Test func buffersOfEveryKindAndLabels() throws {
        let page = try Page()
        #expect(try page.run("""
            var bytes = new TextEncoder().encode('xhiy'), d = new TextDecoder(' UTF8\\n');
            [d.encoding, d.fatal, d.ignoreBOM, d.decode(bytes.buffer), d.decode(bytes.subarray(1, 3)),
             d.decode(new DataView(bytes.buffer, 1, 2)), d.decode(new Int8Array(bytes.buffer, 2, 1)), d.decode()].join()
            """) == "utf-8,false,false,xhiy,hi,hi,i,")
        for label in ["'latin1'", "'utf-16le'", "''", "'utf-8x'", "Symbol()"] {
            #expect(try page.run("try { new TextDecoder(\(label)); 'made' } catch (e) { e.name }") != "made", "\(label)")
        }
        #expect(try page.run("try { new TextDecoder('utf-8', 5) } catch (e) { e.name }") == "TypeError")
        #expect(try page.run("try { new TextDecoder().decode('text') } catch (e) { e.name }") == "TypeError")
        #expect(try page.run("try { TextDecoder.prototype.decode.call({}) } catch (e) { e.name }") == "TypeError")
        #expect(try page.run("try { TextDecoder() } catch (e) { e.name }") == "TypeError")
    }

    @Test func largeBuffersStayNative() throws {
        let page = try Page()
        // 1.3 MB each way: linear native work, not string building in script.
        #expect(try page.run("""
            var text = new Array(1 << 18).join('\\u00e9\\u20ac');
            var bytes = new TextEncoder().encode(text);
            [bytes.length, new TextDecoder().decode(bytes) === text, atob(btoa(text.slice(0, 300000).replace(/\\u20ac/g, 'x'))).length].join()
            """) == "1310715,true,300000")
    }
}

@Suite("Browser globals: EventTarget, Event, CustomEvent, window")
struct EventTests {
    @Test func listenersRunInOrderOnceEachAndDeduplicated() throws {
        let page = try Page()
        #expect(try page.run("""
            var target = new EventTarget(), log = [];
            function a(e) { log.push('a:' + e.type + ':' + (this === target) + ':' + (e.target === target) + ':' + e.eventPhase) }
            target.addEventListener('ping', a);
            target.addEventListener('ping', a);              // the same listener: ignored
            target.addEventListener('ping', a, true);        // another capture flag: a second listener
            target.addEventListener('ping', { handleEvent: function (e) { log.push('object:' + (this !== target)) } });
            target.addEventListener('ping', function () { log.push('once') }, { once: true });
            target.addEventListener('pong', function () { log.push('pong') });
            target.addEventListener('ping', null);
            var result = target.dispatchEvent(new Event('ping'));
            target.dispatchEvent(new Event('ping'));
            log.join(' ') + ' -> ' + result
            """) == "a:ping:true:true:2 a:ping:true:true:2 object:true once a:ping:true:true:2 a:ping:true:true:2 object:true -> true")
    }

    @Test func addingAndRemovingDuringADispatch() throws {
        let page = try Page()
        #expect(try page.run("""
            var target = new EventTarget(), log = [];
            function second() { log.push('second') }
            target.addEventListener('x', function first() {
                log.push('first');
                target.removeEventListener('x', second);
                target.addEventListener('x', function late() { log.push('late') });
            });
            target.addEventListener('x', second);
            target.dispatchEvent(new Event('x'));
            log.push('|');
            target.dispatchEvent(new Event('x'));
            log.join(' ')
            """) == "first | first late")
    }

    @Test func cancelingAndStopping() throws {
        let page = try Page()
        #expect(try page.run("""
            var target = new EventTarget(), log = [];
            target.addEventListener('c', function (e) { e.preventDefault(); log.push(e.defaultPrevented) });
            target.addEventListener('c', function (e) { e.stopImmediatePropagation(); log.push('stop') });
            target.addEventListener('c', function () { log.push('never') });
            var cancelable = target.dispatchEvent(new Event('c', { cancelable: true }));
            var plain = target.dispatchEvent(new Event('c'));
            target.addEventListener('p', function (e) { e.preventDefault(); log.push('passive:' + e.defaultPrevented) }, { passive: true });
            var passive = target.dispatchEvent(new Event('p', { cancelable: true }));
            log.join(' ') + ' -> ' + [cancelable, plain, passive].join()
            """) == "true stop false stop passive:false -> false,true,true")
    }

    @Test func anExceptionInAListenerIsReportedAndTheOthersRun() throws {
        let page = try Page()
        #expect(try page.run("""
            var target = new EventTarget(), log = [];
            target.addEventListener('e', function () { throw new Error('listener failed') });
            target.addEventListener('e', { handleEvent: 42 });
            target.addEventListener('e', function () { log.push('still ran') });
            target.dispatchEvent(new Event('e')) + ' ' + log.join()
            """) == "true still ran")
        #expect(page.exceptions == ["Error: listener failed", "TypeError: handleEvent is not a function"])
        // With the default handler (which stores the exception, to be thrown into the script),
        // the dispatch still returns normally.
        let plain = JSContext()!
        try BrowserGlobals.install(in: plain)
        #expect(try plain.evaluate("""
            var t = new EventTarget(); t.addEventListener('e', function () { throw new Error('x') }); t.dispatchEvent(new Event('e'))
            """).toBool())
    }

    @Test func propagationFlagsFollowTheDOM() throws {
        let page = try Page()
        #expect(try page.run("""
            var t = new EventTarget(), log = [];
            t.addEventListener('x', function (e) { log.push('ran') });
            var early = new Event('x'); early.stopPropagation();
            t.dispatchEvent(early);                              // stopped before: no listener runs
            log.push('after:' + early.cancelBubble);             // and the flag is cleared at the end
            var e = new Event('x', { cancelable: true });
            t.addEventListener('x', function (ev) { ev.returnValue = false; ev.cancelBubble = true });
            var result = t.dispatchEvent(e);
            log.push(result + ':' + e.defaultPrevented + ':' + e.returnValue);
            log.join(' ')
            """) == "after:false ran false:true:false")
    }

    @Test func internalStateIsOwnAndBrandChecked() throws {
        let page = try Page()
        for call in ["EventTarget.prototype.addEventListener.call(Object.prototype, 'x', function () {})",
                     "EventTarget.prototype.addEventListener.call({}, 'x', null)",
                     "Object.create(new TextDecoder()).decode(new Uint8Array(0))",
                     "Object.create(new Event('x')).type", "Object.create(new URL('http://a/')).href",
                     "URLSearchParams.prototype.get.call(Object.create(new URLSearchParams('a=1')), 'a')"] {
            #expect(try page.run("try { \(call); 'no error' } catch (e) { e.name }") == "TypeError", "\(call)")
        }
        // Subclasses sharing a prototype that is itself an EventTarget get listener lists of their own.
        #expect(try page.run("""
            function Child() { EventTarget.call(this) }
            Child.prototype = new EventTarget();
            var a = new Child(), b = new Child(), heard = [];
            a.addEventListener('x', function () { heard.push('a') });
            b.dispatchEvent(new Event('x')); a.dispatchEvent(new Event('x'));
            heard.join()
            """) == "a")
    }

    /// Events a script makes are untrusted, the abort event the host dispatches is trusted; every
    /// event's own `isTrusted` has one getter (WebIDL's unforgeable attributes share theirs),
    /// which refuses what is not an event.
    @Test func isTrustedTellsTheHostsEventsFromAScripts() throws {
        let page = try Page()
        #expect(try page.run("""
            var controller = new AbortController(), aborted;
            controller.signal.addEventListener('abort', function (e) { aborted = e.isTrusted; });
            controller.abort();
            var getter = Object.getOwnPropertyDescriptor(new Event('a'), 'isTrusted').get, refused;
            try { getter.call({}); refused = 'no error'; } catch (e) { refused = e.name; }
            [new Event('x').isTrusted, new CustomEvent('y').isTrusted, aborted,
             getter === Object.getOwnPropertyDescriptor(new CustomEvent('b'), 'isTrusted').get, refused].join()
            """) == "false,false,true,true,TypeError")
        // Dispatched again by a script, a host event is no longer trusted (the DOM's rule).
        #expect(try page.run("""
            var controller = new AbortController(), saved, seen;
            controller.signal.addEventListener('abort', function (e) { saved = e; });
            controller.abort();
            var target = new EventTarget();
            target.addEventListener('abort', function (e) { seen = e.isTrusted; });
            target.dispatchEvent(saved);
            [seen, saved.isTrusted].join()
            """) == "false,false")
        // What a script puts on Object.prototype changes neither the host's events nor isTrusted.
        #expect(try page.run("""
            Object.defineProperty(Object.prototype, 'trusted', { value: true, configurable: true });
            Object.defineProperty(Object.prototype, 'configurable', { value: true, configurable: true });
            var controller = new AbortController(), result;
            controller.signal.addEventListener('abort', function (e) {
                var descriptor = Object.getOwnPropertyDescriptor(e, 'isTrusted');
                result = [e.isTrusted, descriptor.configurable, new Event('x').isTrusted, e.type].join();
            });
            controller.abort();
            delete Object.prototype.trusted;
            delete Object.prototype.configurable;
            result
            """) == "true,false,false,abort")
    }

    @Test func eventsAndCustomEvents() throws {
        let page = try Page()
        #expect(try page.run("""
            var e = new CustomEvent('hello', { detail: { n: 1 }, bubbles: true });
            [e instanceof Event, e.type, e.bubbles, e.cancelable, e.detail.n, e.isTrusted, e.eventPhase, e.target,
             typeof e.timeStamp, new CustomEvent('x').detail, Event.AT_TARGET].join()
            """) == "true,hello,true,false,1,false,0,,number,,2")
        for call in ["Event()", "new Event()", "new Event(Symbol())", "new Event('x', 3)", "new EventTarget().dispatchEvent({ type: 'x' })",
                     "new EventTarget().addEventListener('x')", "EventTarget.prototype.dispatchEvent.call(5, new Event('x'))",
                     "new EventTarget().addEventListener('x', 5)"] {
            #expect(try page.run("try { \(call); 'no error' } catch (e) { e.name }") == "TypeError", "\(call)")
        }
        #expect(try page.run("""
            var t = new EventTarget(), again;
            t.addEventListener('r', function (e) { try { t.dispatchEvent(e) } catch (x) { again = x.name } });
            t.dispatchEvent(new Event('r')); again
            """) == "InvalidStateError")
    }

    @Test func windowIsTheGlobalObjectAndAnEventTarget() throws {
        let page = try Page()
        #expect(try page.run("""
            var heard = 0; window.addEventListener('load', function () { heard++ });
            dispatchEvent(new Event('load'));
            window = 5;  // read-only, as in browsers
            [window === this, self === this, this instanceof EventTarget, heard, typeof window.btoa,
             Object.keys(this).indexOf('TextDecoder')].join()
            """) == "true,true,true,1,function,-1")
    }

    @Test func hostileScriptsCannotChangeHowTheGlobalsWork() throws {
        let page = try Page()
        #expect(try page.run("""
            Reflect.apply = function () { throw new Error('hijacked') };
            String = function () { return 'hijacked' };
            Array.prototype.slice = function () { return [] };
            Object.defineProperty(Array.prototype, '0', { set: function () { throw new Error('setter') }, configurable: true });
            Object.prototype.fatal = true; Object.prototype.once = true;
            Uint8Array.prototype.set = function () { throw new Error('set') };
            var t = new EventTarget(), n = 0; t.addEventListener('x', function () { n++ });
            t.dispatchEvent(new Event('x')); t.dispatchEvent(new Event('x'));
            var d = new TextDecoder(), part = d.decode(new Uint8Array([0xC3]), { stream: true });
            [atob(btoa('ok')), n, part + d.decode(new Uint8Array([0xA9, 0xFF]))].join()
            """) == "ok,2,é\u{FFFD}")
        #expect(try page.run("""
            String.prototype.charCodeAt = function () { return 0xFEFF };
            String.prototype.charAt = function () { return '?' };
            Array.prototype.push = function () {};
            Array.prototype.sort = function () { return this };
            RegExp.prototype.test = function () { return true };
            Object.defineProperty(Object.prototype, 'detail', { set: function () { throw new Error('detail') }, configurable: true });
            var p = new URLSearchParams('?b=2&a=1'); p.append('c', '3'); p.sort();
            [new TextDecoder().decode(new Uint8Array([0x61, 0x62])), p.toString(), p.getAll('c').length,
             new CustomEvent('x', { detail: 5 }).detail].join('|')
            """) == "ab|a=1&b=2&c=3|1|5")
        #expect(try page.run("""
            var q = new URLSearchParams(); q.append('a', '\\ud800x'); q.append('\\udc00', 'y');
            [q.get('a') === '\\ufffdx', q.has('\\ufffd'), typeof q[Symbol.iterator], q[Symbol.iterator] === q.entries].join()
            """) == "true,true,function,true")
    }
}

@Suite("Browser globals: Headers, AbortController, AbortSignal")
struct FetchPrimitivesTests {
    @Test func headersAreCaseInsensitiveSortedAndCombined() throws {
        let page = try Page()
        #expect(try page.run("""
            var h = new Headers({ 'X-B': ' two ', 'Content-Type': 'text/plain' });
            h.append('x-b', 'three'); h.append('Set-Cookie', 'a=1'); h.append('set-cookie', 'b=2'); h.append('X-A', '');
            var seen = []; h.forEach(function (value, name) { seen.push(name + '=' + value) });
            [h.get('X-b'), h.get('CONTENT-TYPE'), h.get('missing'), h.has('x-a'), h.getSetCookie().join(';'), seen.join('|')].join(' / ')
            """) == "two, three / text/plain /  / true / a=1;b=2 / content-type=text/plain|set-cookie=a=1|set-cookie=b=2|x-a=|x-b=two, three")
        #expect(try page.run("""
            var h = new Headers([['A', '1'], ['a', '2'], ['B', '3']]);
            h.set('a', 'x'); h.delete('b');
            var entries = []; for (var it = h.entries(), step; !(step = it.next()).done;) entries.push(step.value.join(':'));
            [entries.join(), new Headers(h).get('a'), typeof h[Symbol.iterator], Array.prototype.join.call(h.keys().next().value)].join(' ')
            """) == "a:x x function a")
        for call in ["new Headers({ 'bad name': 'x' })", "new Headers().append('x', 'a\\nb')", "new Headers().append('x', 'a\\u0000')",
                     "new Headers([['a']])", "new Headers(5)", "Headers()", "new Headers().get()", "Headers.prototype.get.call({}, 'a')",
                     "new Headers().append('é', 'x')", "new Headers().set(Symbol(), 'x')"] {
            #expect(try page.run("try { \(call); 'no error' } catch (e) { e.name }") == "TypeError", "\(call)")
        }
    }

    @Test func abortControllersSignalOnceWithTheirReason() throws {
        let page = try Page()
        #expect(try page.run("""
            var controller = new AbortController(), signal = controller.signal, log = [];
            signal.addEventListener('abort', function (e) { log.push('listener:' + e.type + ':' + (e.target === signal)) });
            signal.onabort = function () { log.push('onabort') };
            log.push(signal.aborted + ':' + signal.reason);
            controller.abort(); controller.abort('again');
            log.push(signal.aborted + ':' + signal.reason.name + ':' + (signal.reason instanceof DOMException));
            try { signal.throwIfAborted() } catch (e) { log.push('threw ' + e.name) }
            var custom = new AbortController(); custom.abort('mine'); log.push(custom.signal.reason);
            var already = AbortSignal.abort(42); log.push(already.aborted + ':' + already.reason);
            var combined = AbortSignal.any([new AbortController().signal, custom.signal]); log.push(combined.reason);
            var source = new AbortController(), follower = AbortSignal.any([source.signal]);
            source.abort('later'); log.push(follower.aborted + ':' + follower.reason);
            log.join(' | ')
            """) == "false:undefined | listener:abort:true | onabort | true:AbortError:true | threw AbortError | mine | true:42 | mine | true:later")
        for call in ["new AbortSignal()", "AbortController()", "AbortController.prototype.abort.call({})",
                     "Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted').get.call({})", "AbortSignal.timeout(-1)"] {
            #expect(try page.run("try { \(call); 'no error' } catch (e) { e.name }") == "TypeError", "\(call)")
        }
    }

    @Test func timeoutSignalsNeedAndUseTheLoop() async throws {
        // Without timers (a bare context) AbortSignal.timeout says why; on a page it fires.
        let bare = try Page()
        #expect(try bare.run("try { AbortSignal.timeout(1) } catch (e) { e.message }") == "AbortSignal.timeout needs timers (an event loop)")
        try await using(try WebPage()) { page in
            let reason = try await page.callAsyncJavaScript("""
                var signal = AbortSignal.timeout(5);
                return new Promise(function (resolve) { signal.onabort = function () { resolve(signal.reason.name) } })
                """)
            #expect(reason as? String == "TimeoutError")
        }
    }
}

@Suite("Browser globals: Blob, File, FormData")
struct BodyPrimitivesTests {
    @Test func blobsHoldTheirBytes() async throws {
        try await using(try WebPage()) { page in
            let summary = try await page.callAsyncJavaScript("""
                var blob = new Blob(['é', new Uint8Array([1, 2]), new Blob(['x']), new Uint16Array([258]).buffer, 'a\\r\\nb'], { type: 'Text/Plain' });
                var native = new Blob(['a\\r\\nb\\rc'], { endings: 'native' });
                var parts = [blob.size, blob.type, native.size, blob.slice(-3).size, blob.slice(1, 3, 'X/Y').type,
                             new Blob([], { type: 'bad\\u00e9' }).type, new Blob(['\\ufeffhi']).size];
                return Promise.all([blob.slice(0, 2).text(), new Blob(['\\ufeffhi']).text(), blob.arrayBuffer(), blob.bytes()]).then(function (r) {
                    return parts.concat([r[0], r[1], r[2].byteLength, Array.prototype.join.call(r[3].subarray(2, 7), '.')]).join('|');
                });
                """)
            #expect(summary as? String == "11|text/plain|5|3|x/y||5|é|hi|11|1.2.120.2.1")
        }
    }

    @Test func filesAndFormData() async throws {
        try await using(try WebPage()) { page in
            let summary = try await page.callAsyncJavaScript("""
                var file = new File(['data'], 'a.txt', { type: 'text/plain', lastModified: 42 });
                var form = new FormData();
                form.append('name', 'Ada'); form.append('upload', file); form.append('blob', new Blob(['b'])); form.append('renamed', file, 'b.txt');
                form.append('name', 'Grace'); form.set('blob', new Blob(['c']), 'c.bin');
                var names = []; form.forEach(function (value, key) { names.push(key + ':' + (typeof value === 'string' ? value : value.name)) });
                var copied = form.get('renamed');
                form.delete('upload');
                return [names.join(','), form.getAll('name').join('+'), file instanceof Blob, file.name, file.lastModified,
                        copied instanceof File, copied.lastModified, copied.type, form.has('upload'), form.get('missing'),
                        typeof form[Symbol.iterator], form.keys().next().value].join('|');
                """)
            #expect(summary as? String == "name:Ada,upload:a.txt,blob:c.bin,renamed:b.txt,name:Grace|Ada+Grace|true|a.txt|42|true|42|text/plain|false||function|name")
            for call in ["new FormData({})", "FormData()", "new FormData().append('x')", "FormData.prototype.get.call({}, 'x')",
                         "new File(['x'])", "new Blob(5)", "Blob.prototype.slice.call({})", "new Blob([Symbol()])"] {
                #expect(try await page.evaluateJavaScript("try { \(call); 'no error' } catch (e) { e.name }") as? String == "TypeError", "\(call)")
            }
        }
    }
}

@Suite("Browser globals: state scripts cannot reach")
struct HiddenStateTests {
    @Test func stateIsUnderKeysScriptsCannotListOrForge() throws {
        let page = try Page()
        #expect(try page.run("""
            var objects = [new Headers(), new Blob(['x']), new File([], 'f'), new FormData(), new AbortController(),
                           new AbortController().signal, new Event('x'), new EventTarget(), new TextDecoder(), new URL('http://a/'),
                           new URLSearchParams('a=1')];
            objects.map(function (o) { return Object.getOwnPropertySymbols(o).length + Reflect.ownKeys(o).length }).join()
            """) == "0,0,0,0,0,0,1,0,0,0,0")  // an Event's one own key is isTrusted
        // A look-alike made from what scripts can see is no instance.
        #expect(try page.run("""
            var fake = Object.create(Headers.prototype);
            try { Headers.prototype.get.call(fake, 'a'); 'accepted' } catch (e) { e.name }
            """) == "TypeError")
    }

    @Test func reentrantConversionsAndHostileOverrides() throws {
        let page = try Page()
        #expect(try page.run("""
            var fd = new FormData(); fd.append('a', '1');
            fd.append('b', { toString: function () { fd.delete('a'); return '2' } });
            var p = new URLSearchParams('x=1');
            p.append({ toString: function () { p.delete('x'); return 'k' } }, 'v');
            [fd.has('b'), fd.has('a'), p.toString()].join()
            """) == "true,false,k=v")
        #expect(try page.run("""
            Object.defineProperty(Object.prototype, 'onabort', { get: function () { throw new Error('looked up') }, configurable: true });
            Object.defineProperty(DOMException, Symbol.hasInstance, { value: function () { return false } });
            Object.defineProperty(Event, Symbol.hasInstance, { value: function () { return false } });
            Blob.prototype = {};
            var c = new AbortController(), heard = 0; c.signal.addEventListener('abort', function () { heard++ });
            c.abort();
            [c.signal.aborted, c.signal.reason.name, heard, new Blob(['ab']).slice(1).size].join()
            """) == "true,AbortError,1,1")
        #expect(page.exceptions.isEmpty)
    }

    @Test func headerValuesAreBytesAndLargeListsStayFast() throws {
        let page = try Page()
        #expect(try page.run("try { new Headers({ a: '\\u20ac' }); 'accepted' } catch (e) { e.name }") == "TypeError")
        #expect(try page.run("new Headers({ a: '\\u00ff' }).get('a').charCodeAt(0)") == "255")
        #expect(try page.run("""
            var h = new Headers(); for (var i = 0; i < 2000; i++) h.append('h' + i, 'v' + i);
            for (var j = 0; j < 2000; j++) h.append('same', 'x');
            var count = 0, it = h.entries(); while (!it.next().done) count++;
            var padded = new Headers({ a: 'a' + new Array(100001).join(' ') + 'b' + new Array(100001).join(' ') });
            [count, h.get('same').length, padded.get('a').length].join()
            """) == "2001,5998,100002")
    }
}
