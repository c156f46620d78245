import DuktapeRuntime
import DuktapeWeb
import ExampleSupport
import Foundation
import NIOHTTP1

// FlexHybrid's `$flex` and WebViewJavascriptBridge on one page, served by a local server: the
// page calls a Swift interface, a typed (Codable) one, an action Swift settles later and one that
// times out, then a WebViewJavascriptBridge handler; Swift then calls the page both ways.

func say(_ text: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
}

/// The page: each step waits for the one before it, and says what it got on the console.
let appPage = """
    <!doctype html>
    <script>
    function show(value) { return JSON.stringify(value); }
    function done() { webkit.messageHandlers.done.postMessage(true); }
    $flex.web.title = function () {
        return new Promise(function (resolve) { setTimeout(function () { resolve('Bridges demo'); }, 5); });
    };
    WebViewJavascriptBridge.registerHandler('JS Echo', function (data, responseCallback) { responseCallback(data); });
    $flex.sum(1, 2, 3)
        .then(function (total) { console.log('$flex.sum(1, 2, 3) → ' + total); return $flex.mirror({ x: 1, y: 2 }); })
        .then(function (point) { console.log('$flex.mirror({x: 1, y: 2}) → {x: ' + point.x + ', y: ' + point.y + '}'); return $flex.pick('blue'); })
        .then(function (color) { console.log("$flex.pick('blue') → " + color + ' (settled later by Swift)'); return $flex.slow(); })
        .then(null, function (error) {
            console.log('$flex.slow() → ' + error.name + ': ' + error.message);
            WebViewJavascriptBridge.callHandler('Swift Echo', { hello: 'page' }, function (answer) {
                console.log("WebViewJavascriptBridge 'Swift Echo' answered " + show(answer));
                done();
            });
        });
    </script>
    """

struct Point: Codable {
    var x, y: Double
}

func runExample(base: String) async throws {
    // The $flex side: interfaces, set before the component is attached.
    let component = FlexComponent()
    try component.setBaseUrl("http://127\\.0\\.0\\.1:[0-9]+/.*")
    try component.setInterface("sum") { arguments in
        arguments.compactMap { ($0 as? NSNumber)?.doubleValue }.reduce(0, +)
    }
    try component.setInterface("mirror", argument: Point.self) { point in Point(x: -point.x, y: point.y) }
    try component.setAction("pick") { action, arguments in
        let color = arguments.first as? String ?? ""
        Task {
            try? await Task.sleep(for: .milliseconds(10))
            action.resolve(color.uppercased())
        }
    }
    try component.setAction("slow", timeout: 50) { action, _ in
        Task {
            try? await Task.sleep(for: .milliseconds(200))
            action.resolve("too late")
        }
    }

    let (finished, finish) = AsyncStream.makeStream(of: Void.self)
    var configuration = WebPageConfiguration()
    configuration.consoleOutput = ConsoleOutput { level, text in
        if level == .log { say("page: " + text) }
    }
    configuration.userContentController.add(name: "done") { _ in finish.yield() }
    let page = try WebPage(configuration: configuration)
    try component.attach(to: page)
    let bridge = try WebViewJavascriptBridge(page: page)
    bridge.registerHandler("Swift Echo") { data, responseCallback in responseCallback(data) }

    guard let url = URL(string: base + "/app.html") else { return }
    try await page.load(url: url)
    for await _ in finished { break }
    let title = try await component.evalFlexFunc("title")
    say("Swift: $flex.web.title() → \(title ?? "nil")")
    let echoed = try await bridge.callHandler("JS Echo", data: ["from", "Swift"])
    say("Swift: WebViewJavascriptBridge 'JS Echo' answered \(echoed ?? "nil")")
    await page.shutdown()
}

func main() async throws {
    let server = try await ExampleServer.start { head, _ in
        head.uri == "/app.html" ? ("text/html; charset=utf-8", Array(appPage.utf8)) : ("text/plain", Array("not found".utf8))
    }
    var failure: (any Error)?
    do {
        try await runExample(base: "http://127.0.0.1:\(server.port)")
    } catch {
        failure = error
    }
    try? await server.stop()
    if let failure { throw failure }
}

try await main()
