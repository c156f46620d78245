import Foundation

/// A response's head as a transfer reports it: the final URL (without its fragment) and the
/// headers as [name, value, …] byte strings (without `Set-Cookie`).
struct TransferHead: Sendable {
    var status: Int
    var statusText: String
    var url: String
    var redirected: Bool
    var headers: [String]
    /// The response type Fetch gives scripts: "basic", or "opaqueredirect" for a manual redirect.
    var type: String
}

/// Where the page's network delivers a transfer's events: fetch.js, through the page's loop
/// (`PageNetwork` itself), or a `<script src>` being loaded (`ScriptCollector`). The network
/// calls `head` at most once, before any bytes; then `available` when bytes wait and the sink
/// asked for them (`FetchTransfer.pull`); then one of `end` and `fail`, unless the transfer was
/// abandoned.
protocol TransferSink: Sendable {
    func head(_ head: TransferHead, of transfer: FetchTransfer)
    func available(_ transfer: FetchTransfer)
    func end(_ transfer: FetchTransfer)
    func fail(_ transfer: FetchTransfer, _ failure: FetchFailure)
}
