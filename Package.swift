// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "DuktapeCore",
    products: [
        .library(name: "DuktapeCore", targets: ["DuktapeCore"]),
        .library(name: "DuktapeRuntime", targets: ["DuktapeRuntime"]),
        .library(name: "DuktapeWeb", targets: ["DuktapeWeb"]),
        .executable(name: "dukjs", targets: ["dukjs"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.25.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        // `make docs` only: a command plugin, never built into a product, so a package depending
        // on this one resolves it but compiles nothing of it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // The engine: Debian's shipped duktape.c compiled with our config overlay (engine.c),
        // plus the protected-call shims (shims.c). Needs `duktape-dev` (`make deps`).
        .target(
            name: "CDuktape",
            exclude: ["scripts"],
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("m")]
        ),
        .target(
            name: "DuktapeCore",
            dependencies: ["CDuktape"],
            swiftSettings: swiftSettings
        ),
        // The event loop (timers, posted work), console and require on top of the core.
        .target(
            name: "DuktapeRuntime",
            dependencies: ["DuktapeCore", "CDuktapeRuntimeScripts", .product(name: "Logging", package: "swift-log")],
            exclude: ["JavaScript"],
            swiftSettings: swiftSettings
        ),
        // The JavaScript each library runs, in .js files beside its Swift (Sources/DuktapeRuntime/
        // JavaScript, Sources/DuktapeWeb/JavaScript), embedded in the binary by C's #embed: no
        // resource bundle travels with a program. (SwiftPM's .embedInCode makes a Swift array
        // literal of the bytes: 60 s of type checking for 130 KB in a debug build, here.)
        .target(name: "CDuktapeRuntimeScripts"),
        .target(name: "CDuktapeWebScripts"),
        // The system's zlib (`zlib1g-dev`, `make deps`): gzip and deflate bodies are inflated
        // by the web host itself, under each transfer's flow control.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The headless web host: the page, the browser globals and fetch. The only target that
        // depends on the networking stack.
        .target(
            name: "DuktapeWeb",
            dependencies: [
                "DuktapeCore",
                "DuktapeRuntime",
                "CDuktapeWebScripts",
                "CZlib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["JavaScript", "Resources"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DuktapeWebTests",
            dependencies: [
                "DuktapeWeb",
                "DuktapeRuntime",
                "TestServer",
                "LoaderConsumer",
                "ChildProcess",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // A real HTTP server on 127.0.0.1 for the tests (raw NIO, so that it can misbehave).
        .target(
            name: "TestServer",
            dependencies: [
                "CZlib",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TestServer",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DuktapeRuntimeTests",
            dependencies: ["DuktapeRuntime", "ChildProcess", .product(name: "Logging", package: "swift-log")],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "dukjs",
            dependencies: [
                "DuktapeCore",
                "DuktapeRuntime",
                "DuktapeWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Examples: executables run by ExamplesTests and by `make demo`.
        .executableTarget(
            name: "blocks",
            dependencies: ["DuktapeCore"],
            path: "Sources/Examples/blocks",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "async",
            dependencies: ["DuktapeCore", "DuktapeRuntime"],
            path: "Sources/Examples/async",
            exclude: ["scripts"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "loader",
            dependencies: ["DuktapeWeb", "ExampleSupport", .product(name: "NIOHTTP1", package: "swift-nio")],
            path: "Sources/Examples/loader",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "bridges",
            dependencies: ["DuktapeWeb", "ExampleSupport", .product(name: "NIOHTTP1", package: "swift-nio")],
            path: "Sources/Examples/bridges",
            swiftSettings: swiftSettings
        ),
        // The examples' local HTTP server.
        .target(
            name: "ExampleSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Examples/support",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "export",
            dependencies: ["DuktapeCore"],
            path: "Sources/Examples/export",
            swiftSettings: swiftSettings
        ),
        // Runs the built executables for their tests (posix_spawn, see the file for why).
        .target(
            name: "ChildProcess",
            path: "Tests/ChildProcess",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExamplesTests",
            dependencies: ["async", "blocks", "bridges", "export", "loader", "ChildProcess"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DuktapeCoreTests",
            dependencies: ["DuktapeCore", "CDuktape"],
            swiftSettings: swiftSettings
        ),
        // A JavaScriptCore program ported by its import line alone, built with warnings as
        // errors (Tests/PortedSample/PortedProgram.swift says why). Not in any product.
        .target(
            name: "PortedSample",
            dependencies: ["DuktapeCore"],
            path: "Tests/PortedSample",
            swiftSettings: swiftSettings + [.unsafeFlags(["-warnings-as-errors"])]
        ),
        // An LWWebLoader-style controller compiled as a consumer's code is: the public API only,
        // Swift 6, warnings as errors, none of this package's upcoming features.
        .target(
            name: "LoaderConsumer",
            dependencies: ["DuktapeWeb"],
            path: "Tests/LoaderConsumer",
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .testTarget(
            name: "PortingTests",
            dependencies: ["PortedSample"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "dukjsTests",
            dependencies: ["dukjs", "ChildProcess", "TestServer"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `make snippets`: every Swift example of the README, the DocC articles and the doc comments that
// claim output, generated into Tests/DocSnippets by Documentation/snippets.py (not in git) and
// built as a consumer's code is (Swift 6, warnings as errors, none of this package's upcoming
// features). Only then is the target declared: a checkout without the generated files builds.
if Context.environment["DUKTAPECORE_SNIPPETS"] != nil {
    package.targets.append(
        .executableTarget(
            name: "doc-snippets",
            dependencies: ["DuktapeCore", "DuktapeRuntime", "DuktapeWeb"],
            path: "Tests/DocSnippets",
            exclude: ["snippets.json"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ))
}

var swiftSettings: [SwiftSetting] {
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
