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
