import DuktapeCore
import Foundation
import Testing

@testable import DuktapeWeb

/// Parsing cases: (input, base, expected href, or nil for failure). Written from the URL
/// Standard's algorithms, covering each state of the parser and each host kind.
private let parsingCases: [(String, String?, String?)] = [
    // Whitespace, tabs and newlines.
    ("http://example\t.\norg", "http://example.org/foo/bar", "http://example.org/"),
    ("\t   :foo.com   \n", "http://example.org/foo/bar", "http://example.org/foo/:foo.com"),
    ("  \t", "http://example.org/foo/bar", "http://example.org/foo/bar"),
    ("http://f:21/ b ? d # e ", nil, "http://f:21/%20b%20?%20d%20#%20e"),
    // Credentials.
    ("http://user:pass@foo:21/bar;par?b#c", nil, "http://user:pass@foo:21/bar;par?b#c"),
    ("https://test:@test", nil, "https://test@test/"),
    ("https://:@test", nil, "https://test/"),
    ("non-special://test:@test/x", nil, "non-special://test@test/x"),
    ("http://&a:foo(b]c@d:2/", nil, "http://&a:foo(b%5Dc@d:2/"),
    ("http://::@c@d:2", nil, "http://:%3A%40c@d:2/"),
    ("http://user@/x", nil, nil),
    // Relative references.
    ("http:foo.com", "http://example.org/foo/bar", "http://example.org/foo/foo.com"),
    ("", "http://example.org/foo/bar", "http://example.org/foo/bar"),
    ("#", "http://example.org/foo/bar", "http://example.org/foo/bar#"),
    ("?", "http://example.org/foo/bar", "http://example.org/foo/bar?"),
    ("/", "http://example.org/foo/bar", "http://example.org/"),
    ("\\x", "http://example.org/foo/bar", "http://example.org/x"),
    ("\\\\x\\hello", "http://example.org/foo/bar", "http://x/hello"),
    ("//other/p", "https://example.org/a", "https://other/p"),
    ("../../../x", "http://a/b/c/d", "http://a/x"),
    ("foo", nil, nil),
    ("x", "mailto:a@b", nil),
    ("#frag", "mailto:a@b", "mailto:a@b#frag"),
    // Ports.
    ("http://f:/c", nil, "http://f/c"),
    ("http://f:0/c", nil, "http://f:0/c"),
    ("http://f:00000000000000000000080/c", nil, "http://f/c"),
    ("https://f:443/", nil, "https://f/"),
    ("ws://f:80/", nil, "ws://f/"),
    ("http://f:b/c", nil, nil),
    ("http://f: /c", nil, nil),
    ("http://f:999999/c", nil, nil),
    ("http://f:65536/", nil, nil),
    ("non-special://f:999999/c", nil, nil),
    // Paths and dot segments.
    ("http://example.com/foo/../bar/./baz/..", nil, "http://example.com/bar/"),
    ("http://example.com/a/%2e%2E/b", nil, "http://example.com/b"),
    ("http://example.com/foo/%2e", nil, "http://example.com/foo/"),
    ("http://example.com/{}`^|", nil, "http://example.com/%7B%7D%60%5E|"),
    ("http://example.com/\u{E9}\u{1F600}", nil, "http://example.com/%C3%A9%F0%9F%98%80"),
    // Queries and fragments.
    ("http://a/?'\"<>", nil, "http://a/?%27%22%3C%3E"),
    ("sc://a/?'", nil, "sc://a/?'"),
    ("http://a/#`\" x", nil, "http://a/#%60%22%20x"),
    ("http://a/?#", nil, "http://a/?#"),
    // Hosts: case, percent-decoding, forbidden code points, IDNA.
    ("http://EXAMPLE.com", nil, "http://example.com/"),
    ("http://ex%41mple.com", nil, "http://example.com/"),
    ("http://a b/", nil, nil),
    ("http://a<b", nil, nil),
    ("http://a%25b/", nil, nil),
    ("http://b\u{FC}cher.de/", nil, "http://xn--bcher-kva.de/"),
    ("http://M\u{FC}nchen.DE/", nil, "http://xn--mnchen-3ya.de/"),
    ("http://a\u{3002}b/", nil, "http://a.b/"),
    // ASCII hosts (read in one pass) and Punycode labels in any case (checked by decoding).
    ("http://XN--BCHER-KVA.de/", nil, "http://xn--bcher-kva.de/"),
    ("http://Xn--ls8h.LA/", nil, "http://xn--ls8h.la/"),
    ("http://xn--/", nil, nil),
    ("http://xn--abc-.com/", nil, nil),
    ("http://axn--b.c/", nil, "http://axn--b.c/"),
    ("http://a..B./", nil, "http://a..b./"),
    ("http://a\u{7F}b/", nil, nil),
    ("http:///x", nil, "http://x/"),
    ("http://", nil, nil),
    // IPv4 in its legacy forms.
    ("http://0x7f.1/", nil, "http://127.0.0.1/"),
    ("http://2130706433/", nil, "http://127.0.0.1/"),
    ("http://0300.0250.0.1/", nil, "http://192.168.0.1/"),
    ("http://10.0.0.1./", nil, "http://10.0.0.1/"),
    ("http://1.2.3/", nil, "http://1.2.0.3/"),
    ("http://256.0.0.1/", nil, nil),
    ("http://1.2.3.4.5/", nil, nil),
    ("http://4294967296/", nil, nil),
    ("http://0x/", nil, "http://0.0.0.0/"),
    ("http://1.2.3.09/", nil, nil),
    ("http://foo.09/", nil, nil),
    ("http://09.foo/", nil, "http://09.foo/"),
    // IPv6.
    ("http://[::1]/", nil, "http://[::1]/"),
    ("http://[0:0:0:0:0:0:0:1]", nil, "http://[::1]/"),
    ("http://[1:0:0:2::3:0]/", nil, "http://[1::2:0:0:3:0]/"),
    ("http://[::127.0.0.1]", nil, "http://[::7f00:1]/"),
    ("http://[FFFF::]:8080/", nil, "http://[ffff::]:8080/"),
    ("http://[1:2:3:4:5:6:7:8]/", nil, "http://[1:2:3:4:5:6:7:8]/"),
    ("http://[::1", nil, nil),
    ("http://[1::2::3]/", nil, nil),
    ("http://[1:2:3:4:5:6:7:8:9]/", nil, nil),
    ("http://[::1.2.3.256]/", nil, nil),
    ("http://[::01.2.3.4]/", nil, nil),
    // file:
    ("file:///etc/passwd", nil, "file:///etc/passwd"),
    ("file://localhost/x", nil, "file:///x"),
    ("file://host/share", nil, "file://host/share"),
    ("file:c:\\foo\\bar.html", "file:///tmp/mock/path", "file:///c:/foo/bar.html"),
    ("file:///C|/foo", nil, "file:///C:/foo"),
    ("file:///C:/a/../..", nil, "file:///C:/"),
    ("x", "file:///dir/file", "file:///dir/x"),
    ("file:", "file:///dir/file?q", "file:///dir/file?q"),
    // Other schemes: opaque paths and opaque hosts.
    ("mailto:someone@example.com", nil, "mailto:someone@example.com"),
    ("data:text/plain,hi there", nil, "data:text/plain,hi there"),
    ("lolscheme:x x#x x", nil, "lolscheme:x x#x%20x"),
    ("a:\t foo.com", nil, "a: foo.com"),
    ("sc://\u{F1}/", nil, "sc://%C3%B1/"),
    ("sc://a b/", nil, nil),
    ("sc://%/", nil, "sc://%/"),
    ("foo://", nil, "foo://"),
    ("non-spec:/.//p", nil, "non-spec:/.//p"),
    ("non-spec:/..//p", nil, "non-spec:/.//p"),
    ("sc:\\../", nil, "sc:\\../"),
]

@Suite("Browser globals: URL, URLSearchParams")
struct URLTests {
    @Test func parsingFollowsTheURLStandard() throws {
        for (input, base, expected) in parsingCases {
            let parsed = base.map { URLRecord.parse($0).flatMap { URLRecord.parse(input, base: $0) } } ?? URLRecord.parse(input)
            #expect(parsed?.href == expected, "\(input.debugDescription) against \(base ?? "no base")")
        }
    }

    @Test func theURLObjectHasEveryAttribute() throws {
        let page = try Page()
        #expect(try page.run("""
            var u = new URL('HTTPS://me:s%20cret@Example.COM:8443/a/./b/../c?x=1&y=%20#top');
            [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname,
             u.search, u.hash, String(u), JSON.stringify({ u: u })].join('|')
            """) == "https://me:s%20cret@example.com:8443/a/c?x=1&y=%20#top|https://example.com:8443|https:|me|s%20cret|example.com:8443|example.com|8443|/a/c|?x=1&y=%20|#top|https://me:s%20cret@example.com:8443/a/c?x=1&y=%20#top|{\"u\":\"https://me:s%20cret@example.com:8443/a/c?x=1&y=%20#top\"}")
        #expect(try page.run("var r = new URL('../x?q', 'http://h/a/b/c'); r.href + ' ' + new URL('mailto:a@b').origin + ' ' + new URL('file:///p').origin")
            == "http://h/a/x?q null null")
        #expect(try page.run("[URL.canParse('x'), URL.canParse('x', 'http://h/'), URL.parse('::'), URL.parse('/p', 'http://h').href].join()")
            == "false,true,,http://h/p")
        for call in ["new URL('nope')", "new URL('/x', 'not a base')", "new URL()", "URL('http://h')", "new URL(Symbol())",
                     "new URL('http://h', Symbol())"] {
            #expect(try page.run("try { \(call); 'made' } catch (e) { e.name }") == "TypeError", "\(call)")
        }
    }

    @Test func settersFollowTheStandard() throws {
        let page = try Page()
        let steps: [(String, String)] = [
            ("u.pathname = '/x y'", "http://a/x%20y?c#d"),
            ("u.pathname = 'no/slash?#'", "http://a/no/slash%3F%23?c#d"),
            ("u.search = 'q=1 2#'", "http://a/no/slash%3F%23?q=1%202%23#d"),
            ("u.hash = '#h`'", "http://a/no/slash%3F%23?q=1%202%23#h%60"),
            ("u.hash = ''", "http://a/no/slash%3F%23?q=1%202%23"),
            ("u.search = ''", "http://a/no/slash%3F%23"),
            ("u.port = '8080'", "http://a:8080/no/slash%3F%23"),
            ("u.port = '80'", "http://a/no/slash%3F%23"),
            ("u.port = '81abc'", "http://a:81/no/slash%3F%23"),
            ("u.port = 'abc'", "http://a:81/no/slash%3F%23"),
            ("u.port = '70000'", "http://a:81/no/slash%3F%23"),
            ("u.host = 'b:82'", "http://b:82/no/slash%3F%23"),
            ("u.hostname = 'c'", "http://c:82/no/slash%3F%23"),
            ("u.hostname = 'd:1'", "http://c:82/no/slash%3F%23"),
            ("u.host = 'x y'", "http://c:82/no/slash%3F%23"),
            ("u.host = ''", "http://c:82/no/slash%3F%23"),
            ("u.protocol = 'https'", "https://c:82/no/slash%3F%23"),
            ("u.protocol = 'foo'", "https://c:82/no/slash%3F%23"),
            ("u.protocol = '1x'", "https://c:82/no/slash%3F%23"),
            ("u.protocol = 'WSS:junk'", "wss://c:82/no/slash%3F%23"),
            ("u.username = 'me@'", "wss://me%40@c:82/no/slash%3F%23"),
            ("u.password = 'p:w'", "wss://me%40:p%3Aw@c:82/no/slash%3F%23"),
            ("u.origin = 'x'", "wss://me%40:p%3Aw@c:82/no/slash%3F%23"),
            ("u.href = 'http://new/'", "http://new/"),
        ]
        _ = try page.run("var u = new URL('http://a/b?c#d')")
        for (step, expected) in steps {
            #expect(try page.run("\(step); u.href") == expected, "\(step)")
        }
        #expect(try page.run("try { u.href = 'not a url'; 'set' } catch (e) { e.name + ' ' + u.href }") == "TypeError http://new/")
        // Setters that do not apply to a URL leave it as it is.
        #expect(try page.run("""
            var m = new URL('mailto:a@b'); m.pathname = 'x'; m.host = 'h'; m.port = '1'; m.username = 'u';
            var f = new URL('file:///p'); f.port = '1'; f.username = 'u'; f.host = 'localhost';
            m.href + ' ' + f.href
            """) == "mailto:a@b file:///p")
    }

    @Test func searchParamsAreLive() throws {
        let page = try Page()
        #expect(try page.run("""
            var u = new URL('http://a/?x=1&y=2'), p = u.searchParams, log = [];
            p.append('z', '3 4'); log.push(u.search);
            u.search = '?k=v'; log.push(p.get('k'), p.get('x'), p.size);
            p.delete('k'); log.push(u.href);
            u.href = 'http://b/?n=%C3%A9'; log.push(p.get('n'), u.searchParams === p);
            p.set('n', 'a+b'); log.push(u.search);
            log.join('|')
            """) == "?x=1&y=2&z=3+4|v||1|http://a/|é|true|?n=a%2Bb")
    }

    @Test func urlSearchParamsFollowTheStandard() throws {
        let page = try Page()
        #expect(try page.run("""
            var p = new URLSearchParams('?a=1&b=x+y%20z&a=3&&c&=e&%zz=%F0%9F%98%80');
            [p.getAll('a').join(','), p.get('b'), p.get('c'), p.get(''), p.get('%zz'), p.get('missing'), p.has('a'), p.has('a', '2'),
             p.size, p.toString()].join('|')
            """) == "1,3|x y z||e|😀||true|false|6|a=1&b=x+y+z&a=3&c=&=e&%25zz=%F0%9F%98%80")
        #expect(try page.run("""
            var q = new URLSearchParams([['z', '1'], ['a', '2'], ['z', '0'], ['a b', '\u{E7}&=*-._~']]);
            q.sort(); var order = []; q.forEach(function (value, name, self) { order.push(name + ':' + value + ':' + (self === q)) });
            q.delete('z', '1');
            var it = q.entries(), first = it.next(), keys = [], k = q.keys(), step;
            while (!(step = k.next()).done) keys.push(step.value);
            [order.join(','), q.toString(), first.value.join('='), keys.join(','), typeof it[Symbol.iterator]].join('|')
            """) == "a:2:true,a b:ç&=*-._~:true,z:1:true,z:0:true|a=2&a+b=%C3%A7%26%3D*-._%7E&z=0|a=2|a,a b,z|function")
        #expect(try page.run("""
            var r = new URLSearchParams({ one: 1, two: 'x y' }), copy = new URLSearchParams(r); r.append('three', 3);
            r.toString() + ' ' + copy.toString() + ' ' + new URLSearchParams(undefined).toString() + new URLSearchParams(null).toString()
            """) == "one=1&two=x+y&three=3 one=1&two=x+y null=")
        for call in ["new URLSearchParams([['a']])", "new URLSearchParams([1])", "URLSearchParams()", "new URLSearchParams().append('a')",
                     "new URLSearchParams().get()", "new URLSearchParams().forEach(1)", "URLSearchParams.prototype.get.call({}, 'a')",
                     "new URLSearchParams(Symbol())"] {
            #expect(try page.run("try { \(call); 'no error' } catch (e) { e.name }") == "TypeError", "\(call)")
        }
    }

    /// A label of up to `longestLabel` code points is kept, ASCII or not; a longer one is
    /// refused.
    @Test func labelsAreBoundedInLength() {
        let longest = String(repeating: "A", count: URLHost.longestLabel)
        #expect(URLRecord.parse("http://\(longest).com/")?.host == longest.lowercased() + ".com")
        #expect(URLRecord.parse("http://x.\(longest)a/") == nil)
        #expect(URLRecord.parse("http://" + String(repeating: "\u{E9}", count: URLHost.longestLabel + 1) + "/") == nil)
    }

    @Test func punycodeRefusesWhatWouldOverflowInsteadOfTrapping() {
        // (0xF008F - 0x80) × 4369 is exactly 2^32 - 1: the next step would overflow.
        #expect(Punycode.encode(Array(repeating: "a", count: 4368) + ["\u{F008F}"]) == nil)
        #expect(Punycode.encode(Array("bücher".unicodeScalars)) == "bcher-kva")
        #expect(Punycode.decode(Array("bcher-kva".unicodeScalars)).map { String(String.UnicodeScalarView($0)) } == "bücher")
        #expect(Punycode.decode(Array("99999999999".unicodeScalars)) == nil)
    }

    @Test func labelsAndPairsSplitOnCodePointsNotGraphemes() throws {
        let page = try Page()
        // "." and "&" followed by a combining mark are one grapheme cluster, but still separators.
        #expect(try page.run("try { new URL('http://a.\\u0301b/'); 'parsed' } catch (e) { e.name }") == "TypeError")
        #expect(try page.run("new URL('http://a.b\\u0301/').host.slice(0, 6)") == "a.xn--")
        #expect(try page.run("var p = new URLSearchParams('a=1&\\u0301b=2=3+\\u0301'); [p.size, p.get('a'), p.get('\\u0301b')].join('|')")
            == "2|1|2=3 \u{301}")
        // A label far longer than DNS allows is refused (Punycode's cost grows with its square).
        #expect(try page.run("try { new URL('http://' + new Array(1100).join('\\u00e9') + '/'); 'parsed' } catch (e) { e.name }") == "TypeError")
    }

    @Test func hostileURLs() throws {
        let page = try Page()
        // Long inputs stay linear (native parsing), odd code points are encoded, and nothing a
        // script passes can make the parser fail other than with a TypeError.
        #expect(try page.run("""
            var long = 'http://h/' + new Array(200001).join('a/') + '?' + new Array(100001).join('q');
            var u = new URL(long), odd = new URL('http://h/\\u0000\\ud800\\uffff?\\u0001#\\u007f');
            [u.pathname.length, u.search.length, odd.pathname, odd.search, odd.hash].join('|')
            """) == "400001|100001|/%00%EF%BF%BD%EF%BF%BF|?%01|#%7F")
        #expect(try page.run("""
            var bad = ['http://[', 'http://[::', 'http://[:::]', 'http://0x100000000/', 'http://1.2.3.4.5.6/', 'http://%', 'http://a:-1/',
                       'http://\\u0000/', 'http://[v1.x]/', 'http://[::ffff:1.2.3]/', '\\u0000'];
            bad.map(function (s) { try { new URL(s); return 'parsed ' + s } catch (e) { return e.name } }).join()
            """) == Array(repeating: "TypeError", count: 11).joined(separator: ","))
        // Linear in the input (quadratic work at these sizes would take minutes): 128 Ki
        // leading spaces, a 128 KiB fragment and query, set again through the setters.
        #expect(try page.run("""
            var spaces = new Array(1 << 17).join(' '), big = new Array(1 << 17).join('x');
            var u = new URL(spaces + 'http://a/?' + big + '#' + big + spaces);
            u.hash = big; u.search = big;
            [u.host, u.search.length, u.hash.length].join()
            """) == "a,131072,131072")
        #expect(page.exceptions.isEmpty)
    }
}
