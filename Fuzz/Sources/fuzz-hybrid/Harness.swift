import DuktapeRuntime
import DuktapeWeb
import Foundation
import FuzzSupport

/// Harness 6: the hybrid bridges (`$flex`, WebViewJavascriptBridge) on one page. Each input is
/// a program of steps read from its bytes, run in the page: `$flex` calls (known and unknown
/// names, values of every kind, as many as 16), `$flex.web` functions defined or broken,
/// WebViewJavascriptBridge calls both ways, forged messages through `_handleMessageFromObjC`
/// (text that is not JSON, unknown response ids, ids of real calls), handlers replaced, and the
/// bridges' globals overwritten; Swift calls the page back with values from the same bytes.
/// Every `$flex` promise and every Swift call must end (a value or an error) before its
/// deadline, and the page must go on answering. A broken invariant traps, which libFuzzer
/// reports with the input.

let component: FlexComponent = {
    let component = FlexComponent()
    do {
        try component.setBaseUrl("http://app\\.test/.*")
        try component.setFlexOnloadWait(0)
        try component.setInterfaceTimeout(200)
        try component.setInterface("echo") { arguments in arguments.first ?? nil }
        try component.setInterface("refuse") { _ in throw FlexReject("refused") }
        try component.setAction("later") { action, arguments in
            let count = arguments.count
            Task { action.resolve(count) }
        }
        try component.setAction("twice") { action, _ in
            action.resolveVoid()
            action.reject("again")
        }
        try component.setInterface("quick", timeout: 1) { _ in
            try await Task.sleep(for: .milliseconds(5))
            return 1
        }
    } catch {
        fail("fuzz-hybrid: the component could not be set up: \(error)")
    }
    return component
}()

let page: WebPage = {
    var configuration = WebPageConfiguration()
    configuration.consoleOutput = ConsoleOutput { _, _ in }
    configuration.executionTimeLimit = 2
    configuration.memoryLimit = 256 << 20
    configuration.requestPolicy = RequestPolicy(allowedHosts: [])
    configuration.cookieStore = nil
    configuration.httpCache = nil
    guard let page = try? WebPage(configuration: configuration) else { fail("fuzz-hybrid: no page could be made") }
    do {
        try component.attach(to: page)
        let bridge = try WebViewJavascriptBridge(page: page, responseTimeout: 0.2)
        bridge.registerHandler("echo") { data, respond in respond(data) }
        bridge.registerHandler("throws") { (_: Any?) async throws -> Any? in throw FlexReject("no") }
        hybridBridge.bridge = bridge
    } catch {
        fail("fuzz-hybrid: the bridges could not be attached: \(error)")
    }
    let ready = DispatchSemaphore(value: 0)
    Task {
        _ = try? await page.load(html: "<script>$flex.web.echo = function (v) { return v; };"
                                     + "WebViewJavascriptBridge.registerHandler('echo', function (d, r) { r(d); });</script>",
                                 baseURL: URL(string: "http://app.test/index.html"))
        ready.signal()
    }
    ready.wait()
    return page
}()

/// The bridge, kept for the Swift side's calls.
final class HybridBridge: @unchecked Sendable {
    // @unchecked: set once, while the page is made (before any input runs).
    var bridge: WebViewJavascriptBridge?
}
let hybridBridge = HybridBridge()

/// The page-side program: steps from `bytes`; resolves with the number of outcomes once every
/// promise it started has settled.
let program = """
    var i = 0;
    function next() { return i < bytes.length ? bytes[i++] : 0; }
    function text() {
        var n = next() % 10, s = '';
        for (var k = 0; k < n; k++) s += String.fromCharCode(next() * 256 + next());
        return s;
    }
    function value(depth) {
        switch (depth > 4 ? next() % 6 : next() % 11) {
        case 0: return null;
        case 1: return undefined;
        case 2: return next() % 2 === 0;
        case 3: return next() - 128.5;
        case 4: return text();
        case 5: return [NaN, Infinity, -0, 1e308][next() % 4];
        case 6: return [value(depth + 1), value(depth + 1)];
        case 7: { var o = {}; o[text()] = value(depth + 1); return o; }
        case 8: return new Date(next() * 1e9);
        case 9: return new Uint8Array([next(), next()]);
        default: return function () {};
        }
    }
    var names = ['echo', 'refuse', 'later', 'twice', 'quick', 'missing', 'web', 'addEventListener'];
    var pending = [], outcomes = 0;
    function track(promise) {
        if (promise && typeof promise.then === 'function') {
            pending.push(promise.then(function () { outcomes++; }, function () { outcomes++; }));
        }
    }
    var steps = next() % 16;
    for (var s = 0; s < steps; s++) {
        try {
            switch (next() % 10) {
            case 0: case 1: case 2: {
                var f = $flex[names[next() % names.length]];
                if (typeof f === 'function') track(f(value(0), value(0)));
                break;
            }
            case 3: $flex.web[['echo', 'broken', 'slow'][next() % 3]] = [
                function (v) { return v; }, function () { throw new Error(text()); },
                function () { return new Promise(function (r) { setTimeout(r, next()); }); }][next() % 3];
                break;
            case 4: track(new Promise(function (resolve) {
                WebViewJavascriptBridge.callHandler(['echo', 'throws', 'nobody'][next() % 3], value(0), function (d, e) { resolve(); });
            })); break;
            case 5: WebViewJavascriptBridge._handleMessageFromObjC([text(), '{"responseId":"cb_1_0"}', '{"responseId":' + next() + '}',
                '{"handlerName":"echo","callbackId":"objc_cb_' + next() + '","data":1}', 'null', '[]'][next() % 6]); break;
            case 6: WebViewJavascriptBridge.registerHandler('echo', function (d, r) { if (next() % 2) r(value(0)); }); break;
            case 7: WebViewJavascriptBridge.disableJavscriptAlertBoxSafetyTimeout(); break;
            case 8: $flex.addEventListener(['success', 'error', 'timeout', 'init', text()][next() % 5], function () { throw new Error('listener'); }); break;
            default: track(Promise.resolve().then(function () { return $flex.echo(value(0)); })); break;
            }
        } catch (e) { outcomes++; }
    }
    return Promise.all(pending).then(function () { return outcomes; });
    """

func fuzzHybrid(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    _ = page
    let finished = DispatchSemaphore(value: 0)
    let outcome = Outcome()
    Task {
        do {
            _ = try await page.callAsyncJavaScript(program, arguments: ["bytes": bytes])
            outcome.set("done")
        } catch {
            outcome.set("threw: \(error)")
        }
        // Swift's side: calls with values from the same bytes, each of which must end.
        let text = String(decoding: bytes.prefix(32), as: UTF8.self)
        let values: [Any?] = [nil, text, bytes.count, bytes.first.map { $0 % 2 == 0 } ?? false, ["k": text], [text, 1.5], Data(bytes.prefix(8))]
        let value = values[Int(bytes.last ?? 0) % values.count]
        _ = try? await component.evalFlexFunc(["echo", "broken", "slow", "missing"][Int(bytes.first ?? 0) % 4], sendData: value)
        _ = try? await hybridBridge.bridge?.callHandler("echo", data: value)
        finished.signal()
    }
    // Every call ends within its timeout (0.2 s; the page's script limit is 2 s): 30 s is a hang.
    if finished.wait(timeout: .now() + 30) == .timedOut {
        dumpThreads()
        fail("hybrid: an input did not end within 30 s")
    }
    let result = outcome.get() ?? ""
    if result.contains("closed") { fail("hybrid: the page closed: \(result)") }
    return 0
}

private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    func set(_ text: String) { lock.withLock { value = text } }
    func get() -> String? { lock.withLock { value } }
}
