import DuktapeRuntime
@_spi(Fuzzing) import DuktapeWeb
import Foundation
import FuzzSupport

/// Harness 4: the web host's message paths.
/// - First byte even: fuzzed `bridge` messages (types, values of every kind, chunk orders,
///   `done`, totals) fed to one WebLoader request's state machine, whose invariants must hold:
///   exactly one terminal message, nothing after it, no file left behind
///   (`WebLoader._checkBridgeMessages`).
/// - First byte odd: a value built in the page from the remaining bytes (nested arrays and
///   objects, strings with lone surrogates and NULs, numbers, dates, errors, typed arrays and
///   buffers, functions, symbols, cycles, getters that throw, huge lengths) posted to a plain
///   handler and to one with a reply, which echoes it back: `postMessage` must either deliver
///   it or throw a `TypeError`, and the page must go on answering.
/// A broken invariant traps, which libFuzzer reports with the input.

let directory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-bridge-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

let page: WebPage = {
    var configuration = WebPageConfiguration()
    configuration.consoleOutput = ConsoleOutput { _, _ in }
    configuration.executionTimeLimit = 2
    configuration.memoryLimit = 256 << 20
    configuration.requestPolicy = RequestPolicy(allowedHosts: [])
    configuration.cookieStore = nil
    configuration.httpCache = nil
    configuration.userContentController.add(name: "sink") { message in _ = message.body }
    configuration.userContentController.addWithReply(name: "echo") { message in message.body }
    guard let page = try? WebPage(configuration: configuration) else { fail("fuzz-bridge: no page could be made") }
    let ready = DispatchSemaphore(value: 0)
    Task {
        _ = try? await page.load(html: "", baseURL: nil)
        ready.signal()
    }
    ready.wait()
    return page
}()

/// The page-side builder: a value from bytes, posted both ways; returns what happened.
let builder = """
    var i = 0;
    function next() { return i < bytes.length ? bytes[i++] : 0; }
    function text() {
        var n = next() % 12, s = '';
        for (var k = 0; k < n; k++) s += String.fromCharCode(next() * 256 + next());
        return s;
    }
    var made = [];
    function build(depth) {
        var op = depth > 40 ? next() % 6 : next() % 20;
        switch (op) {
        case 0: return null;
        case 1: return undefined;
        case 2: return next() % 2 === 0;
        case 3: return next() - 128;
        case 4: return [NaN, Infinity, -Infinity, -0, 1e308, 5e-324, 2147483648, 9007199254740993][next() % 8];
        case 5: return text();
        case 6: case 7: {
            var a = [], n = next() % 6;
            made.push(a);
            for (var k = 0; k < n; k++) a.push(build(depth + 1));
            if (next() % 16 === 0) a.length = next() * 65536;
            return a;
        }
        case 8: case 9: {
            var o = {}, m = next() % 6;
            made.push(o);
            for (var k = 0; k < m; k++) o[text()] = build(depth + 1);
            return o;
        }
        case 10: return new Date(next() * 1e10 - 1e12);
        case 11: { var e = new (next() % 2 ? TypeError : Error)(text()); e.extra = build(depth + 1); return e; }
        case 12: { var u = new Uint8Array(next() * 4); return next() % 2 ? u.subarray(1) : u; }
        case 13: return new ArrayBuffer(next());
        case 14: return function () {};
        case 15: return Symbol(text());
        case 16: return made.length ? made[next() % made.length] : null;
        case 17: { var g = {}; Object.defineProperty(g, 'x', { enumerable: true, get: function () { throw new Error('getter') } }); return g; }
        case 18: return new Float64Array([next(), NaN]);
        default: return Object.create(null);
        }
    }
    var value = build(0), results = [];
    try { webkit.messageHandlers.sink.postMessage(value); results.push('sent'); } catch (e) { results.push(e.name); }
    var echoed;
    try { echoed = webkit.messageHandlers.echo.postMessage(value); } catch (e) { results.push(e.name); }
    if (!echoed) return Promise.resolve(results.join(','));
    return echoed.then(function () { return results.join(',') + ',echoed'; }, function (e) { return results.join(',') + ',' + e.name; });
    """

func fuzzBridge(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes[0] % 2 == 0 {
        var reader = Reader(bytes: Array(bytes.dropFirst()))
        var messages: [[String: Any]] = []
        while !reader.atEnd && messages.count < 64 { messages.append(reader.message()) }
        if let problem = WebLoader._checkBridgeMessages(messages, directory: directory) {
            fail("bridge: \(problem)\n  messages: \(String(describing: messages).prefix(2000))")
        }
        return 0
    }
    let finished = DispatchSemaphore(value: 0)
    let outcome = Outcome()
    let input = Data(bytes.dropFirst())
    Task {
        do {
            outcome.value = try await page.callAsyncJavaScript(builder, arguments: ["bytes": input]) as? String
        } catch {
            outcome.value = "threw: \(error)"
        }
        finished.signal()
    }
    finished.wait()
    guard let result = outcome.value else { fail("postMessage: no result") }
    // The page must go on answering (a closed page would make every later input pass).
    if result.hasPrefix("threw: ") && result.contains("closed") { fail("postMessage: the page closed: \(result)") }
    // Every post is delivered or refused with a TypeError (a RangeError past the engine's limits).
    let allowed: Set<Substring> = ["sent", "echoed", "TypeError", "RangeError", "Error"]
    if !result.hasPrefix("threw: "), !result.split(separator: ",").allSatisfy(allowed.contains) {
        fail("postMessage: unexpected outcome \(result)")
    }
    return 0
}

private final class Outcome: @unchecked Sendable {
    var value: String?
}

/// Bridge messages from bytes: the known types and some unknown, values of each kind.
struct Reader {
    let bytes: [UInt8]
    var index = 0
    var atEnd: Bool { index >= bytes.count }

    mutating func next() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }

    mutating func message() -> [String: Any] {
        let types = ["json", "plaintext", "b64text", "error", "b64streamstart", "b64streaming", "b64streamend", "", "ws_opened"]
        var message: [String: Any] = [:]
        let flags = next()
        message["type"] = flags & 0x80 != 0 ? types[Int(next()) % types.count] : String(decoding: [next(), next()], as: UTF8.self)
        if flags & 1 != 0 { message["value"] = value() }
        if flags & 2 != 0 { message["chrunkOrder"] = NSNumber(value: Int(next()) - 8) }
        if flags & 4 != 0 { message["done"] = next() % 3 == 0 ? NSNumber(value: 1) : next() % 2 == 0 }
        if flags & 8 != 0 { message["total"] = NSNumber(value: [0, -1, 1, 100, Int64.max, Int64.min][Int(next()) % 6]) }
        if flags & 16 != 0 { message["status"] = NSNumber(value: Int(next()) * 4) }
        if flags & 32 != 0 { message["contentType"] = value() }
        return message
    }

    mutating func value() -> Any {
        switch next() % 8 {
        case 0: return NSNull()
        case 1: return Data((0..<Int(next() % 64)).map { _ in next() })
        case 2: return String(decoding: (0..<Int(next() % 16)).map { _ in next() }, as: UTF8.self)
        case 3: return "aGVsbG8=" + (next() % 2 == 0 ? "" : "!")
        case 4: return NSNumber(value: Double(next()) / 3)
        case 5: return ["nested": value()]
        case 6: return [value(), value()]
        default: return next() % 2 == 0
        }
    }
}
