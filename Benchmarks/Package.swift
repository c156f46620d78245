// swift-tools-version: 6.1
// Benchmarks: DuktapeCore against raw Duktape and JavaScriptCore, measured in one run.
// A separate package so that the library never depends on the benchmark tooling. `make bench`
// (in the repository root) installs what it needs and runs everything.
import Foundation
import PackageDescription

/// The root package is a path dependency, whose identity is its directory's name (which differs
/// between checkouts): derive it rather than hard-code it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootPackage = root.lastPathComponent.lowercased()

let package = Package(
    name: "DuktapeCoreBenchmarks",
    dependencies: [
        .package(path: "../"),
        // W12's floor: the same GETs through bare async-http-client (the root's own dependency).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.25.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .systemLibrary(
            name: "CJavaScriptCore",
            pkgConfig: "javascriptcoregtk-4.1",
            providers: [.apt(["libjavascriptcoregtk-4.1-dev"])]
        ),
        // The raw and raw-protected Duktape baselines in C. They call the engine DuktapeCore links
        // (CDuktape), through Debian's public duktape.h.
        .target(name: "DuktapeBaselines"),
        // The JavaScriptCore baseline in C.
        .target(name: "Baselines", dependencies: ["DuktapeBaselines", "CJavaScriptCore"]),
        // DuktapeCore's side of the workloads, shared by the benchmarks and instruction-probe.
        .target(
            name: "Workloads",
            dependencies: ["DuktapeBaselines", .product(name: "DuktapeCore", package: rootPackage)]
        ),
        // Instruction counts under callgrind (`make bench-check`): needs neither JavaScriptCore
        // nor package-benchmark.
        .executableTarget(
            name: "instruction-probe",
            dependencies: [
                "DuktapeBaselines", "Workloads", .product(name: "DuktapeCore", package: rootPackage),
                .product(name: "DuktapeRuntime", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "DuktapeCoreBenchmarks",
            dependencies: [
                "Baselines",
                "Workloads",
                .product(name: "DuktapeCore", package: rootPackage),
                .product(name: "DuktapeRuntime", package: rootPackage),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/DuktapeCoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "memory-probe",
            dependencies: ["Baselines", "DuktapeBaselines", .product(name: "DuktapeCore", package: rootPackage)]
        ),
        // W13: modern JavaScript (the compiler VM's start, a 10 KB ES2017 module against its ES5
        // form, Map and Set against plain properties).
        .executableTarget(
            name: "modern-probe",
            dependencies: [.product(name: "DuktapeCore", package: rootPackage)]
        ),
        .executableTarget(
            name: "startup-raw",
            cSettings: [.unsafeFlags(["-I../Sources/CDuktape/include", "-D_GNU_SOURCE"])],
            linkerSettings: [.linkedLibrary("m")]
        ),
        .executableTarget(name: "startup-jsc", dependencies: ["CJavaScriptCore"]),
        // W12: WebLoader's requests and bridge encodings (scripts/web_bench.py).
        .executableTarget(name: "web-requests", dependencies: [
            .product(name: "DuktapeWeb", package: rootPackage), .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        // W14: WebSocket, the page's client and WebSocketServer (scripts/ws_bench.py, beside
        // Python's websockets on the same load).
        .executableTarget(name: "ws-bench", dependencies: [.product(name: "DuktapeWeb", package: rootPackage)]),
        .executableTarget(name: "bridge-bench", dependencies: [.product(name: "DuktapeWeb", package: rootPackage)]),
    ]
)
