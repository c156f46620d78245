// swift-tools-version: 6.1
// Fuzz: libFuzzer harnesses for DuktapeCore. A separate package because each harness has no
// `main` of its own (libFuzzer supplies it), so they link only with `-sanitize=fuzzer`.
// `make fuzz SECONDS=N` (in the repository root) builds them with the fuzzer and
// AddressSanitizer and runs each for N seconds over the committed seed corpus (Corpus/).
import Foundation
import PackageDescription

/// The root package is a path dependency, whose identity is its directory's name (which differs
/// between checkouts): derive it rather than hard-code it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootPackage = root.lastPathComponent.lowercased()
let core = Target.Dependency.product(name: "DuktapeCore", package: rootPackage)
let web = Target.Dependency.product(name: "DuktapeWeb", package: rootPackage)
let runtime = Target.Dependency.product(name: "DuktapeRuntime", package: rootPackage)

let package = Package(
    name: "DuktapeCoreFuzz",
    dependencies: [.package(path: "../")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [core]),
        .executableTarget(name: "fuzz-evaluate", dependencies: [core, "FuzzSupport"]),
        .executableTarget(name: "fuzz-convert", dependencies: [core, "FuzzSupport"]),
        .executableTarget(name: "fuzz-callbacks", dependencies: [core, "FuzzSupport"]),
        .executableTarget(name: "fuzz-bridge", dependencies: [web, runtime, "FuzzSupport"]),
        .executableTarget(name: "fuzz-peers", dependencies: [web, runtime, "FuzzSupport"]),
        .executableTarget(name: "fuzz-hybrid", dependencies: [web, runtime, "FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
