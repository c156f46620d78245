import DuktapeRuntime
@_spi(Fuzzing) import DuktapeWeb
import Foundation
import FuzzSupport

/// Harness 5: what peers and pages can send the web host (issue 32's blind spots). The mode is
/// the first byte % 3, or `FUZZ_PEERS_MODE`'s:
/// - 0: the rest, under one of four prefixes (none, a status line's start, a
///   status line, a `Set-Cookie` header's start), is the whole HTTP response a raw server on
///   127.0.0.1 sends for the page's `fetch`: status lines of any kind, headers, cookie
///   attributes, bodies, chunking, early close. The fetch must settle within its timeout, the
///   process must not trap, and the cookie jar must stay within its bounds.
/// - 1: cookie strings (the bytes split at 0xFF) set through `document.cookie`: every cookie
///   stored within RFC 6265bis's limits, the jar within its bounds.
/// - 2: a flood of script messages (counts and sizes from the bytes) to a reply handler that
///   does not answer until the flood is over: each `postMessage` is delivered or refused (its promise rejected) with
///   an `Error`, no more are in flight than the page's bounds allow, and once the handler
///   answers, the page takes messages again.
/// A broken invariant traps, which libFuzzer reports with the input.

let server = RawServer()
let origin: URL = {
    guard let url = URL(string: "http://127.0.0.1:\(server.port)/") else { fail("fuzz-peers: no origin") }
    return url
}()
let store = CookieStore()
let console = RecentLines()
let inputs = Counter()
/// `FUZZ_PEERS_MODE=response|cookies|flood` runs every input in that mode (its first byte is
/// then ignored), to give each blind spot a run of its own.
let forcedMode: Int? = ProcessInfo.processInfo.environment["FUZZ_PEERS_MODE"].flatMap { ["response": 0, "cookies": 1, "flood": 2][$0] }
let gate = Gate()
let maximumMessages = 8
let maximumMessageBytes = 64 << 10

let page: WebPage = {
    var configuration = WebPageConfiguration()
    configuration.consoleOutput = ConsoleOutput { _, line in console.append(line) }
    configuration.executionTimeLimit = 5
    configuration.memoryLimit = 64 << 20
    configuration.requestTimeout = 5
    configuration.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1"])
    configuration.cookieStore = store
    configuration.httpCache = nil
    configuration.maximumMessagesInFlight = maximumMessages
    configuration.maximumMessageBytesInFlight = maximumMessageBytes
    configuration.userContentController.addWithReply(name: "held") { message in
        await gate.wait()
        return nil
    }
    guard let page = try? WebPage(configuration: configuration) else { fail("fuzz-peers: no page could be made") }
    guard (try? run { try await page.load(html: "", baseURL: origin) }) != nil else { fail("fuzz-peers: the page did not load") }
    return page
}()

public func fuzzPeers(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The page's heap over a long run: a host or page structure that grows input after input
    // shows here long before it fills the memory limit.
    if inputs.next() % 500 == 0 {
        report("fuzz-peers: \(inputs.value) inputs, page heap \(page._heapBytes) bytes")
    }
    switch forcedMode ?? Int(bytes[0] % 3) {
    case 0: response(Array(bytes.dropFirst()))
    case 1: cookies(Array(bytes.dropFirst()))
    default: flood(Array(bytes.dropFirst()))
    }
    checkTheJar()
    return 0
}

/// A response made of the bytes; the page fetches it and reads its body.
private func response(_ bytes: [UInt8]) {
    let prefixes = ["", "HTTP/1.1 ", "HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nSet-Cookie: "]
    let prefix = bytes.first.map { prefixes[Int($0) % prefixes.count] } ?? ""
    server.serve(Data(prefix.utf8) + Data(bytes.dropFirst()))
    let started = Date()
    let outcome = try? run {
        try await page.callAsyncJavaScript(
            "return fetch('/r').then(function (r) { return r.text() }).then(function (t) { return t.length }, function (e) { return String(e) })")
    }
    // The request timeout is 5 s (a peer that stops mid-response waits that long), reading the
    // body's end included; anything far past it is a hang.
    if Date().timeIntervalSince(started) > 20 { fail("fetch: settled only after \(Date().timeIntervalSince(started)) s") }
    if outcome == nil { fail("fetch: the page gave no answer") }
}

/// Cookie strings set by the page.
private func cookies(_ bytes: [UInt8]) {
    let strings = bytes.split(separator: 0xFF, omittingEmptySubsequences: false).prefix(32).map { part in
        // Long attributes from short inputs: a byte 0xFE repeats the one before it 4,096 times.
        var text: [UInt8] = []
        for byte in part {
            if byte == 0xFE, let last = text.last { text += repeatElement(last, count: 4096) } else { text.append(byte) }
        }
        return String(decoding: text, as: UTF8.self)
    }
    let outcome = try? run {
        try await page.callAsyncJavaScript(
            "for (var i = 0; i < list.length; i++) document.cookie = list[i]; return document.cookie.length",
            arguments: ["list": strings])
    }
    if outcome == nil { fail("cookies: the page gave no answer") }
}

/// Messages posted faster than their handler answers.
private func flood(_ bytes: [UInt8]) {
    gate.close()
    let sizes = bytes.prefix(64).map { Int($0) * 512 }
    let outcome = Result {
        try run {
        try await page.callAsyncJavaScript(
            """
            // A reply handler's post refuses by rejecting its promise (seen a turn later).
            var refused = 0, odd = [];
            function refuse(e) { if (e instanceof Error) refused++; else odd.push(String(e)) }
            function text(n) { var s = 'x'; while (s.length < n) s += s; return s.substring(0, n) }
            for (var i = 0; i < sizes.length; i++) {
                try { webkit.messageHandlers.held.postMessage(text(sizes[i])).then(null, refuse) }
                catch (e) { refuse(e) }
            }
            return new Promise(function (resolve) {
                setTimeout(function () { resolve(odd.length ? odd : [sizes.length - refused, refused]) }, 0)
            })
            """, arguments: ["sizes": sizes])
        }
    }
    gate.open()
    guard let counts = (try? outcome.get()) as? [Any], counts.count == 2, let accepted = counts[0] as? Int, let refused = counts[1] as? Int else {
        fail("flood: \(String(describing: outcome))")
    }
    if accepted + refused != sizes.count { fail("flood: \(accepted) + \(refused) of \(sizes.count)") }
    if accepted > maximumMessages { fail("flood: \(accepted) messages in flight at once, bound \(maximumMessages)") }
    // Once the handler has answered them all, the page takes messages again.
    let deadline = Date().addingTimeInterval(10)
    while true {
        let taken = try? run {
            try await page.callAsyncJavaScript(
                "return webkit.messageHandlers.held.postMessage(1).then(function () { return true }, function () { return false })")
        }
        if taken as? Bool == true { break }
        if Date() > deadline { fail("flood: the page's messages were not given back after \(accepted) in flight") }
    }
}

/// The jar's bounds (CookieStore, WebCookie).
private func checkTheJar() {
    let all = store.allCookies
    if all.count > CookieStore.maximumCookies { fail("jar: \(all.count) cookies") }
    let total = all.reduce(0) { $0 + $1.byteCount }
    if total > CookieStore.maximumBytes { fail("jar: \(total) bytes") }
    for cookie in all {
        if cookie.name.utf8.count + cookie.value.utf8.count > WebCookie.maximumNameAndValueBytes {
            fail("jar: a cookie of \(cookie.name.utf8.count) + \(cookie.value.utf8.count) bytes")
        }
        for attribute in [cookie.path, cookie.domain, cookie.sameSite ?? ""]
        where attribute.utf8.count > WebCookie.maximumAttributeValueBytes {
            fail("jar: an attribute of \(attribute.utf8.count) bytes")
        }
    }
    if all.count > 200 { store.removeAll() }  // keep each input's work small
}

/// Runs `body` to its end from this synchronous function (the fuzzer's thread); a call that
/// has not ended after 25 s is a finding, named with `what` (libFuzzer's own timeout would
/// not say which call hung).
private func run(_ what: String = #function, line: Int = #line, _ body: @escaping @Sendable () async throws -> Any?) throws -> Any? {
    let finished = DispatchSemaphore(value: 0)
    let outcome = Outcome()
    Task {
        do { outcome.value = .success(try await body()) } catch { outcome.value = .failure(error) }
        finished.signal()
    }
    if finished.wait(timeout: .now() + 25) == .timedOut {
        report("the page's last console lines:\n" + console.lines.joined(separator: "\n"))
        report("page heap \(page._heapBytes) bytes after \(inputs.value) inputs")
        dumpThreads()
        fail("\(what) (line \(line)): no answer after 25 s")
    }
    return try outcome.value?.get() ?? nil
}

private final class Outcome: @unchecked Sendable {
    var value: Result<Any?, any Error>?
}

/// A door the held handler waits at: closed during a flood, open otherwise.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = true
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if isOpen { return true }
                waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func close() {
        lock.withLock { isOpen = false }
    }

    func open() {
        let released = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiting.removeAll() }
            return waiting
        }
        for continuation in released { continuation.resume() }
    }
}

/// The last lines the page wrote to its console (printed with a finding).
final class RecentLines: @unchecked Sendable {
    // @unchecked: behind `lock`.
    private let lock = NSLock()
    private var recent: [String] = []

    func append(_ line: String) {
        lock.withLock {
            recent.append(String(line.prefix(300)))
            if recent.count > 30 { recent.removeFirst() }
        }
    }

    var lines: [String] { lock.withLock { recent } }
}

/// How many inputs the harness has run.
final class Counter: @unchecked Sendable {
    // @unchecked: behind `lock`.
    private let lock = NSLock()
    private var count = 0

    func next() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}

private func report(_ text: String) {
    _ = (text + "\n").withCString { write(2, $0, strlen($0)) }
}
