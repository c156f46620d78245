import Foundation

extension JSContext {
    /// Evaluates a script and returns the value of its last statement.
    ///
    /// On an exception (a syntax error included) the exception goes to `exceptionHandler` and the
    /// result is undefined, as in JavaScriptCore. `evaluate(_:sourceURL:)` throws instead.
    ///
    /// ```swift
    /// context.evaluateScript("var x = 6 * 7; x")!.toInt32()   // 42
    /// ```
    ///
    /// The corresponding Duktape functions are `duk_compile` and `duk_call`.
    @discardableResult
    public func evaluateScript(_ script: String!) -> JSValue! {
        evaluateScript(script, withSourceURL: nil)
    }

    /// Evaluates a script that came from `sourceURL`. The URL is informative: it appears in stack
    /// traces and as the `sourceURL` (and Duktape's `fileName`) of errors created by the script.
    ///
    /// ```swift
    /// context.evaluateScript("throw new Error('x')", withSourceURL: URL(string: "file:///a.js"))
    /// print(context.exception!.forProperty("sourceURL")!.toString()!)   // prints: file:///a.js
    /// ```
    @discardableResult
    public func evaluateScript(_ script: String!, withSourceURL sourceURL: URL!) -> JSValue! {
        reporting(JSValue(context: self, storage: .undefined)) { stack throws(JSException) in
            try stack.evaluate(script ?? "", sourceURL: sourceURL?.absoluteString)
            return try stack.value(at: -1)
        }
    }

    /// Evaluates a `JSScript`: its cached bytecode when it has a valid cache, else its source
    /// (lowered when it is modern JavaScript). An exception is reported as by `evaluateScript`;
    /// a script made for another VM is a TypeError.
    ///
    /// ```swift
    /// let script = try JSScript(of: .program, withSource: "6 * 7", andSourceURL: URL(string: "file:///a.js")!,
    ///                           andBytecodeCache: nil, inVirtualMachine: context.virtualMachine)
    /// print(context.evaluateJSScript(script)!.toInt32())   // prints: 42
    /// ```
    @discardableResult
    public func evaluateJSScript(_ script: JSScript!) -> JSValue! {
        reporting(JSValue(context: self, storage: .undefined)) { stack throws(JSException) in
            guard let script else { return JSValue(context: self, storage: .undefined) }
            guard script.virtualMachine === virtualMachine else {
                throw stack.makeError(.typeError, "the JSScript was made for another JSVirtualMachine")
            }
            if let bytecode = script.cachedBytecode {
                try stack.loadScript(bytecode)
            } else {
                try stack.compileLowering(script.source, sourceURL: script.sourceURL.absoluteString)
            }
            try stack.callAsGlobalCode()
            return try stack.value(at: -1)
        }
    }

    /// Evaluates a script, throwing its exception (`JSException`) instead of reporting it.
    /// `exceptionHandler` is not called.
    ///
    /// ```swift
    /// do {
    ///     let value = try context.evaluate("JSON.parse(input)")
    /// } catch let exception as JSException {
    ///     print(exception.name ?? "", exception.message, exception.line ?? 0)
    /// }
    /// ```
    ///
    /// A Swift error thrown by a callback and not caught by the script comes out as that same
    /// Swift error.
    @discardableResult
    public func evaluate(_ script: String, sourceURL: URL? = nil) throws -> JSValue {
        try evaluate(script, sourceName: sourceURL?.absoluteString)
    }

    /// `evaluate(_:sourceURL:)` with the source named by any string, not only a URL (as
    /// JavaScriptCore's C API takes one): `"<stdin>"`, `"rules/pricing.js"`. Nil or empty is no
    /// name (errors then have no `sourceURL`).
    ///
    /// ```swift
    /// try context.evaluate(input, sourceName: "<stdin>")
    /// ```
    @discardableResult
    public func evaluate(_ script: String, sourceName: String?) throws -> JSValue {
        try rethrowingSwiftErrors { () throws(JSException) -> JSValue in
            try withStack { stack throws(JSException) in
                try stack.evaluate(script, sourceURL: sourceName)
                return try stack.value(at: -1)
            }
        }
    }

    /// For the runtime's `require`: evaluates `text`, which must be one parenthesized function
    /// expression and nothing else (`(function (exports, ...) { <module> \n})`), and returns that
    /// function; nil, with nothing run, when the text is more than that (a module whose text
    /// closes its wrapper early). Compiles once; modern syntax is lowered as by `evaluate`.
    ///
    /// ```swift
    /// let factory = try context.evaluateFunctionExpression("(function (a) { return a * 2\n})", sourceName: "m.js")
    /// ```
    @_spi(Runtime)
    public func evaluateFunctionExpression(_ text: String, sourceName: String?) throws -> JSValue? {
        try rethrowingSwiftErrors { () throws(JSException) -> JSValue? in
            try withStack { stack throws(JSException) -> JSValue? in
                guard try stack.compileFunctionExpression(text, sourceURL: sourceName) else { return nil }
                try stack.callAsGlobalCode()
                return try stack.value(at: -1)
            }
        }
    }

    /// For the package's own scripts (DuktapeRuntime's and DuktapeWeb's `.js` files): evaluates
    /// `script` as ES5 on the bare engine, never lowered (a syntax error is an error, even with
    /// the transpiler installed), and returns its completion value.
    package func evaluateES5(_ script: String, sourceName: String) throws -> JSValue {
        try rethrowingSwiftErrors { () throws(JSException) -> JSValue in
            try withStack { stack throws(JSException) in
                try stack.evaluateES5(script, sourceURL: sourceName)
                return try stack.value(at: -1)
            }
        }
    }

    /// Runs `body`, throwing a Swift error that travelled through JavaScript as itself.
    @inline(__always)
    func rethrowingSwiftErrors<T>(_ body: () throws(JSException) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw error.underlyingError ?? error
        }
    }

    // MARK: - Global properties

    /// `globalObject[key]`: the key is converted to a JavaScript value, then to a property key.
    ///
    /// ```swift
    /// print(context.objectForKeyedSubscript("Math")!.invokeMethod("max", withArguments: [1, 5])!)   // prints: 5
    /// ```
    @discardableResult
    public func objectForKeyedSubscript(_ key: Any!) -> JSValue! {
        global { stack throws(JSException) in try stack.pushKey(key) }
    }

    /// `objectForKeyedSubscript(_:)` for a string key: the same, without boxing the key in an
    /// `Any` (copying and unboxing it cost about a tenth of a read).
    ///
    /// ```swift
    /// let math = context.objectForKeyedSubscript("Math")!
    /// ```
    @discardableResult
    public func objectForKeyedSubscript(_ key: String) -> JSValue! {
        global { stack throws(JSException) in try stack.pushKey(key) }
    }

    /// `globalObject[key]`, the key pushed by `pushKey`; an exception is reported.
    @inline(__always)
    private func global(pushingKey pushKey: (EngineStack) throws(JSException) -> Void) -> JSValue {
        reporting(JSValue(context: self, storage: .undefined)) { stack throws(JSException) in
            try stack.pushGlobalObject()
            try pushKey(stack)
            try stack.getProperty()
            return try stack.value(at: -1)
        }
    }

    /// `globalObject[key] = object`, with the object converted by the conversion table.
    ///
    /// ```swift
    /// context.setObject(["debug": true], forKeyedSubscript: "config")
    /// ```
    public func setObject(_ object: Any!, forKeyedSubscript key: String) {
        setGlobal(object, key: key)
    }

    /// `globalObject[key] = object` with a Foundation key, the spelling of JavaScriptCore's Swift
    /// overlay (`forKeyedSubscript: "a" as NSString`).
    public func setObject(_ object: Any!, forKeyedSubscript key: (any NSCopying & NSObjectProtocol)!) {
        setGlobal(object, key: key.map { ($0 as? NSString).map { String($0) } ?? $0.description })
    }

    private func setGlobal(_ object: Any?, key: String?) {
        reporting(()) { stack throws(JSException) in
            try stack.pushGlobalObject()
            if let key { try stack.pushKey(key) } else { try stack.push(any: nil) }
            try stack.push(any: object)
            try stack.putProperty()
        }
    }

    /// A global variable as a JSValue; assigning a JSValue sets it.
    ///
    /// ```swift
    /// context["add"] = context.evaluateScript("(function (a, b) { return a + b })")
    /// context["add"].call(withArguments: [1, 2])
    /// ```
    public subscript(key: String) -> JSValue {
        get { objectForKeyedSubscript(key) }
        set { setGlobal(newValue, key: key) }
    }

    /// A global variable read as a Swift value (nil if absent or not convertible); assigning
    /// converts the Swift value.
    ///
    /// ```swift
    /// context["message"] = "Hello"
    /// let message: String? = context["message"]
    /// ```
    public subscript<Value: JSValueConvertible>(key: String) -> Value? {
        get { Value.fromJSValue(objectForKeyedSubscript(key)) }
        set { setGlobal(newValue.map { $0.jsValue(in: self) }, key: key) }
    }

    /// An exported class as a global: assigning puts its constructor there; reading gives the
    /// class when the global is that constructor.
    ///
    /// ```swift
    /// context["Point"] = Point.self
    /// context.evaluateScript("new Point(1, 2)")
    /// ```
    public subscript<Exported: JSExport>(key: String) -> Exported.Type? {
        get { objectForKeyedSubscript(key).toObject() as? Exported.Type }
        set { setGlobal(newValue, key: key) }
    }
}
