import DuktapeWeb
import Foundation

// An LWWebLoader-style controller as an app writes one, compiled as a consumer compiles it:
// only the public API (no @testable), Swift 6 language mode, and warnings as errors
// (Package.swift). Its state belongs to the main actor and changes from the loader's
// completion handlers, which are `@MainActor` closures: the loader calls them on the main
// actor, as WebKit and LWWebLoader call theirs on the main thread. Without that, Swift 6 refuses
// the code ("main actor-isolated property … can not be mutated from a Sendable closure").

/// A list of items loaded from a JSON URL, and a file downloaded with progress.
@MainActor
public final class ItemsController {
    /// The keys of the loaded JSON object, sorted.
    public private(set) var items: [String] = []
    /// What the last request did, in words ("loaded 200", "offline: …").
    public private(set) var status = "idle"
    /// The download's progress messages: 0 at its start (-1 when the length is unknown), then
    /// each fraction.
    public private(set) var progress: [Double] = []
    /// The downloaded file, once the stream ended.
    public private(set) var downloaded: URL?
    /// Called on the main actor after every change (a view would redraw).
    public var onChange: (@MainActor () -> Void)?
    private let loader: WebLoader

    /// A controller loading through `loader`.
    public init(loader: WebLoader) {
        self.loader = loader
    }

    /// LWWebLoader's `evaluateWithBody:dataLoadCompletionHandler:` with a per-request header.
    public func reload(from url: URL?) {
        status = "loading"
        let body = WebLoader.body(url: url, method: .getData, headers: ["Accept": "application/json"])
        loader.evaluate(body) { @MainActor response, error in
            if let error = error as? WebLoaderError {
                switch error {
                case .timedOut: self.status = "timed out"
                case .connectionFailed: self.status = "offline: \(error.reason)"
                case .invalidRequest: self.status = "invalid: \(error.reason)"
                default: self.status = "failed: \(error.description)"
                }
            } else if case .json(let value) = response.type, let object = value as? [String: Any] {
                self.items = object.keys.sorted()
                self.status = "loaded \(response.status)"
            } else {
                self.status = "unexpected \(response.type)"
            }
            self.onChange?()
        }
    }

    /// A stream into `directory`, with progress.
    public func download(_ url: URL, into directory: URL) {
        var body = WebLoader.body(url: url, method: .downloadStream)
        body.streamDirectory = directory
        loader.evaluate(body) { @MainActor response, error in
            switch response.type {
            case .streamStart(let total, _, _): self.progress = [total.map { _ in 0 } ?? -1]
            case .streaming(let fraction): self.progress.append(fraction ?? -1)
            case .streamEnd(let file): self.downloaded = file
            case .error: self.status = "download failed: \(error.map { "\($0)" } ?? "")"
            default: break
            }
            self.onChange?()
        }
    }

    /// The same request with `async`/`await`.
    public func load(from url: URL) async {
        do {
            let response = try await loader.evaluate(WebLoader.body(url: url, method: .getData))
            if case .json(let value) = response.type { items = (value as? [String: Any])?.keys.sorted() ?? [] }
            status = "loaded \(response.status)"
        } catch {
            status = "failed: \(error.localizedDescription)"
        }
        onChange?()
    }
}
