import DuktapeWeb
import Foundation

// W15: round trips per second through the hybrid bridges beside the page host's own
// `postMessage` with a reply, in one process, one page each, the same load: COUNT calls from
// the page with WINDOW in flight, each answered by Swift with its argument. Each of ROUNDS
// rounds times the rows back to back; the medians (rates, and each bridge's ratio to the raw
// path of its own round) and the best rates are printed as JSON.

let count = 20_000, window = 64, rounds = 7

/// The page's loop: `call(i)` returns a promise of the answer; resolves with the elapsed ms.
func driver(_ call: String) -> String {
    """
    return new Promise(function (resolve) {
        var sent = 0, done = 0, started = Date.now();
        function one() {
            var i = sent++;
            \(call)(i).then(function (v) {
                if (v !== i) throw new Error('answer ' + v + ' for ' + i);
                if (++done === \(count)) resolve(Date.now() - started);
                else if (sent < \(count)) one();
            });
        }
        for (var k = 0; k < \(window); k++) one();
    });
    """
}

func makePage(_ configure: (inout WebPageConfiguration) -> Void) throws -> WebPage {
    var configuration = WebPageConfiguration()
    configuration.httpCache = nil
    configuration.cookieStore = nil
    configuration.maximumMessagesInFlight = 4 * window
    configure(&configuration)
    return try WebPage(configuration: configuration)
}

func measure(_ page: WebPage, _ call: String) async throws -> Double {
    let ms = try await page.callAsyncJavaScript(driver(call)) as? Double ?? .nan
    return Double(count) / (ms / 1000)
}

func main() async throws {
    let base = URL(string: "http://bench.test/index.html")
    let raw = try makePage { $0.userContentController.addWithReply(name: "echo") { $0.body } }
    try await raw.load(html: "", baseURL: base)

    let flexPage = try makePage { _ in }
    let component = FlexComponent()
    try component.setBaseUrl("http://bench\\.test/.*")
    try component.setInterface("echo") { arguments in arguments.first ?? nil }
    try component.setInterface("echoUntimed", timeout: 0) { arguments in arguments.first ?? nil }
    try component.attach(to: flexPage)
    try await flexPage.load(html: "", baseURL: base)

    let bridgePage = try makePage { _ in }
    let bridge = try WebViewJavascriptBridge(page: bridgePage)
    bridge.registerHandler("echo") { data, respond in respond(data) }
    try await bridgePage.load(html: "", baseURL: base)
    let bridgeCall = "(function (i) { return new Promise(function (r) { WebViewJavascriptBridge.callHandler('echo', i, r); }); })"

    // BRIDGE_BENCH_ONLY=flex (or raw, untimed, bridge) runs that row alone, for a profiler
    // (BRIDGE_BENCH_ROUNDS times).
    if let only = ProcessInfo.processInfo.environment["BRIDGE_BENCH_ONLY"] {
        let rows = ["raw": (raw, "webkit.messageHandlers.echo.postMessage"), "flex": (flexPage, "$flex.echo"),
                    "untimed": (flexPage, "$flex.echoUntimed"), "bridge": (bridgePage, bridgeCall)]
        guard let (page, call) = rows[only] else { fatalError("BRIDGE_BENCH_ONLY: one of \(rows.keys.sorted())") }
        let onlyRounds = ProcessInfo.processInfo.environment["BRIDGE_BENCH_ROUNDS"].flatMap { Int($0) } ?? rounds
        for _ in 0..<onlyRounds { print(only, try await measure(page, call)) }
        exit(0)
    }
    // Each round times the four back to back; a bridge's ratio is the median of its rounds'
    // ratios to the raw path of the same round (paired, as the other rows of RESULTS.md).
    var rates: [String: [Double]] = [:]
    for _ in 0..<rounds {
        let raw = try await measure(raw, "webkit.messageHandlers.echo.postMessage")
        rates["raw", default: []].append(raw)
        rates["flex", default: []].append(try await measure(flexPage, "$flex.echo"))
        rates["flex_untimed", default: []].append(try await measure(flexPage, "$flex.echoUntimed"))
        rates["bridge", default: []].append(try await measure(bridgePage, bridgeCall))
    }
    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    var result: [String: Any] = ["count": count, "window": window, "rounds": rounds]
    for (row, values) in rates {
        result[row + "_per_s"] = median(values)
        result[row + "_best_per_s"] = values.max() ?? .nan
        if row != "raw", let raws = rates["raw"] {
            result[row + "_of_raw"] = median(zip(values, raws).map { $0 / $1 })
        }
    }
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
    await raw.shutdown()
    await flexPage.shutdown()
    await bridgePage.shutdown()
}

try await main()
