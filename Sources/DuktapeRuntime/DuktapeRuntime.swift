// One import per module: a program that uses the runtime writes `import DuktapeRuntime` and
// nothing else. Its public API is made of DuktapeCore's types (JSContext, JSValue...),
// Foundation's (Date, URL) and swift-log's `Logger` (`ConsoleOutput.logger`), so all three are
// re-exported (DuktapeCore itself re-exports Foundation, as Apple's JavaScriptCore does).
@_exported import DuktapeCore
@_exported import Foundation
@_exported import Logging
