// Apple's JavaScriptCore module re-exports Foundation (its headers import it), so programs that
// `import JavaScriptCore` use `NSString`, `URL`, `NSNull` and `Date` without importing Foundation.
// Re-exporting it here keeps "change the import line" true for them.
@_exported import Foundation
