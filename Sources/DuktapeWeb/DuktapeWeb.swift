// One import per module: a program that uses WebLoader or WebPage writes `import DuktapeWeb` and
// nothing else. Its public API is made of DuktapeCore's and DuktapeRuntime's types (JSValue,
// JSEventLoop, ConsoleOutput...) and Foundation's (URL, Data, Date), so they are re-exported.
// The networking stack (SwiftNIO, async-http-client) stays an implementation detail: no public
// signature uses its types.
@_exported import DuktapeCore
@_exported import DuktapeRuntime
@_exported import Foundation
