import Foundation

/// libFuzzer's driver (from `-sanitize=fuzzer`), called from each harness's `main.swift`: the
/// harness keeps its own `main`, as every SwiftPM executable must, and hands the command line
/// to libFuzzer with its test function.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with `test` as the function under test and returns its exit status.
///
/// ```swift
/// exit(runFuzzer { data, size in fuzzEvaluate(data, size) })
/// ```
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv, test)
}

/// Stops the harness with `text` on standard error; libFuzzer reports the input (a broken
/// invariant is a finding, as a crash is).
///
/// ```swift
/// if terminals != 1 { fail("\(terminals) terminal messages") }
/// ```
public func fail(_ text: String) -> Never {
    _ = (text + "\n").withCString { write(2, $0, strlen($0)) }
    abort()
}

/// Writes every thread's stack of this process to standard error (with gdb, when the machine
/// has it), for a finding that is a hang: where each thread waits is the first thing to know.
///
/// ```swift
/// dumpThreads()
/// fail("the call did not end")
/// ```
public func dumpThreads() {
    let gdb = URL(fileURLWithPath: "/usr/bin/gdb")
    guard FileManager.default.isExecutableFile(atPath: gdb.path) else { return }
    let process = Process()
    process.executableURL = gdb
    process.arguments = ["-p", String(getpid()), "-batch", "-nx", "-ex", "thread apply all bt 40"]
    process.standardOutput = FileHandle.standardError
    process.standardError = FileHandle.standardError
    guard (try? process.run()) != nil else { return }
    process.waitUntilExit()
}
