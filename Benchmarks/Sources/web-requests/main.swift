import AsyncHTTPClient
import DuktapeWeb
import Foundation

// W12's in-process half (scripts/web_bench.py runs it): `web-requests requests URL COUNT` times
// COUNT sequential getData requests of a small JSON file through one WebLoader; `web-requests
// bare URL COUNT` the same GETs through bare async-http-client (the floor of the web host's
// stack: its transport, without the page);
// `web-requests bridge URL` times downloadFile of a larger file with bytes crossing as
// Uint8Array/Data and as base64. Prints one JSON object.

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data((text + "\n").utf8))
    exit(1)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func run() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3, let url = URL(string: arguments[2]) else { fail("usage: web-requests requests|bare|bridge URL [COUNT]") }
    switch arguments[1] {
    case "requests":
        let count = arguments.count > 3 ? Int(arguments[3]) ?? 1000 : 1000
        let loader = WebLoader()
        defer { loader.close() }
        _ = try await loader.evaluate(WebLoader.body(url: url, method: .getData))  // the page, made once
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            for _ in 0..<count {
                let response = try await loader.evaluate(WebLoader.body(url: url, method: .getData))
                guard case .json = response.type else { fail("not JSON: \(response.type)") }
            }
        }
        print(#"{"requests": \#(count), "seconds": \#(seconds(elapsed))}"#)
    case "bare":
        let count = arguments.count > 3 ? Int(arguments[3]) ?? 1000 : 1000
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        func get() async throws {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
            guard response.status == .ok else { fail("status \(response.status)") }
            let body = try await response.body.collect(upTo: 1 << 20)
            guard (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) != nil else { fail("not JSON") }
        }
        do {
            try await get()  // the client's first connection, as the page is made before the timing
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                for _ in 0..<count { try await get() }
            }
            try await client.shutdown()
            print(#"{"requests": \#(count), "seconds": \#(seconds(elapsed))}"#)
        } catch {
            try? await client.shutdown()
            throw error
        }
    case "bridge":
        var results: [String] = []
        for encoding in [WebLoaderConfiguration.BinaryEncoding.bytes, .base64] {
            var configuration = WebLoaderConfiguration()
            configuration.binaryEncoding = encoding
            configuration.page.httpCache = nil
            let loader = WebLoader(configuration: configuration)
            defer { loader.close() }
            var best = Double.infinity
            var size = 0
            for _ in 0..<3 {
                let clock = ContinuousClock()
                let elapsed = try await clock.measure {
                    let response = try await loader.evaluate(WebLoader.body(url: url, method: .downloadFile))
                    guard case .data(let data) = response.type else { fail("not data: \(response.type)") }
                    size = data.count
                }
                best = min(best, seconds(elapsed))
            }
            results.append(#""\#(encoding.rawValue)": {"bytes": \#(size), "seconds": \#(best)}"#)
        }
        print("{" + results.joined(separator: ", ") + "}")
    default:
        fail("unknown mode \(arguments[1])")
    }
}

try await run()
