/// Native functions this package's web host (DuktapeWeb) calls where doing the work in script
/// was the cost. Not public: JavaScriptCore has no such thing.
package enum NativeHelper: Sendable {
    /// `copy(value)`: the copy a posted message carries (objects without a prototype, arrays,
    /// primitives), made without running script, for plain data only; undefined for anything
    /// else (a Date, bytes, an Error, a Proxy, a getter, a hole, a symbol, a function, a cycle,
    /// past the limits), which the page then copies, or refuses, itself.
    case plainDataCopy
    /// `ownSlot(self, key, unknown)`: the value of `self`'s own data property under the hidden
    /// key `key`, or undefined when there is none; `unknown` when script must decide (a key
    /// that is not hidden, a Proxy, an accessor).
    case ownSlot
}

extension JSContext {
    /// The native function `helper` (a new function object each call).
    package func nativeHelper(_ helper: NativeHelper) throws -> JSValue {
        try rethrowingSwiftErrors { () throws(JSException) -> JSValue in
            try withStack { stack throws(JSException) -> JSValue in
                try stack.pushNativeHelper(helper)
                return try stack.value(at: -1)
            }
        }
    }
}
