import PortedSample
import Testing

/// The ported JavaScriptCore program (Tests/PortedSample) compiles with warnings as errors and
/// prints what it prints against Apple's framework.
@Suite("Porting from JavaScriptCore")
struct PortingTests {
    @Test func thePortedProgramRuns() {
        let output = runPortedProgram()
        #expect(output == [
            "report: null",
            "total: 15.66",
            "label: Tea (EUR)",
            "color: #FF7F00",
            "point: 3,4",
            "keys: [\"key\"]",
            "tags: [\"a\", \"b\"]",
            "epoch: 0.0",
            "managed: 42",
            "JS error: TypeError: undefined not callable (property 'missing' of [object Object])",
            "exception: TypeError",
        ])
    }
}
