
/// Swift closures as JavaScript functions.
///
/// The function retains the closure until the function is garbage-collected (or its heap is
/// destroyed). A closure that captures its context, or a JSValue, makes a retain cycle
/// (context → function → closure → context), as in JavaScriptCore: use `JSContext.current()`
/// and the arguments inside the closure instead.
extension JSValue {
    /// A function whose body receives `this` and every argument as JSValues, and returns any
    /// convertible Swift value (nil for undefined).
    ///
    /// ```swift
    /// context["log"] = JSValue(newFunctionIn: context) { this, arguments in
    ///     print(arguments.map { $0.description }.joined(separator: " "))
    ///     return nil
    /// }
    /// ```
    ///
    /// Inside the body, `JSContext.current()`, `currentThis()`, `currentArguments()` and
    /// `currentCallee()` describe the call. A thrown Swift error becomes a JavaScript `Error` with
    /// the error's description as message; if the script does not catch it, the throwing API
    /// (`evaluate`, `call`) rethrows the same Swift error. Setting `JSContext.current()?.exception`
    /// throws that value into JavaScript when the body returns.
    ///
    /// `this` is undefined for `new f()`: a body called as a constructor must return an object,
    /// or JavaScript gets a TypeError.
    public convenience init(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (_ this: JSValue, _ arguments: [JSValue]) throws -> Any?
    ) {
        self.init(hostFunctionIn: context, name: name, length: 0) { call in
            HostResult(try body(call.makeThis() ?? JSValue(context: call.context, storage: .undefined), call.makeArguments()))
        }
    }

    /// A function with typed parameters and result (any number of parameters).
    ///
    /// ```swift
    /// context["add"] = JSValue(newFunctionIn: context) { (a: Int, b: Int) in a + b }
    /// print(context.evaluateScript("add(2, 3)")!.toInt32())   // prints: 5
    /// ```
    ///
    /// Each argument is converted by its type's `fromJSArgument` rule (JavaScriptCore's rules: see
    /// <doc:SwiftClosures>, "Arguments"); missing arguments are undefined and extra ones are reachable
    /// through `JSContext.currentArguments()`. An argument that does not convert makes the call
    /// throw a TypeError such as "argument 2: expected String, got undefined".
    @inlinable
    public convenience init<each Argument: JSValueConvertible, Result: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (repeat each Argument) throws -> Result
    ) {
        self.init(hostFunctionIn: context, name: name, length: JSValue.arity(of: (repeat (each Argument).self))) {
            call in
            var arguments = ArgumentReader(call: call)
            return try HostResult.result(body(repeat try arguments.next((each Argument).self)), in: call.context)
        }
    }

    /// A function with typed parameters and no result (JavaScript gets undefined).
    ///
    /// ```swift
    /// var received: [String] = []
    /// context["send"] = JSValue(newFunctionIn: context) { (message: String) in received.append(message) }
    /// ```
    @inlinable
    public convenience init<each Argument: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (repeat each Argument) throws -> Void
    ) {
        self.init(hostFunctionIn: context, name: name, length: JSValue.arity(of: (repeat (each Argument).self))) {
            call in
            var arguments = ArgumentReader(call: call)
            try body(repeat try arguments.next((each Argument).self))
            return .undefined
        }
    }

    /// The typed function with one parameter: the same function, with the parameter's type
    /// known at compile time (a parameter pack's arguments are stored through their types'
    /// metadata at run time, about 15 instructions each). Overload resolution picks it for you.
    ///
    /// ```swift
    /// context["double"] = JSValue(newFunctionIn: context) { (x: Double) in x * 2 }
    /// ```
    @inlinable
    public convenience init<A: JSValueConvertible, Result: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (A) throws -> Result
    ) {
        self.init(hostFunctionIn: context, name: name, length: 1) { call in
            var arguments = ArgumentReader(call: call)
            let a = try arguments.next(A.self)
            return try HostResult.result(body(a), in: call.context)
        }
    }

    /// The typed function with two parameters, their types known at compile time.
    ///
    /// ```swift
    /// context["add"] = JSValue(newFunctionIn: context) { (a: Double, b: Double) in a + b }
    /// ```
    @inlinable
    public convenience init<A: JSValueConvertible, B: JSValueConvertible, Result: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (A, B) throws -> Result
    ) {
        self.init(hostFunctionIn: context, name: name, length: 2) { call in
            var arguments = ArgumentReader(call: call)
            let a = try arguments.next(A.self)
            let b = try arguments.next(B.self)
            return try HostResult.result(body(a, b), in: call.context)
        }
    }

    /// The typed function with three parameters, their types known at compile time.
    ///
    /// ```swift
    /// context["clamp"] = JSValue(newFunctionIn: context) { (x: Int, low: Int, high: Int) in min(max(x, low), high) }
    /// ```
    @inlinable
    public convenience init<A: JSValueConvertible, B: JSValueConvertible, C: JSValueConvertible, Result: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (A, B, C) throws -> Result
    ) {
        self.init(hostFunctionIn: context, name: name, length: 3) { call in
            var arguments = ArgumentReader(call: call)
            let a = try arguments.next(A.self)
            let b = try arguments.next(B.self)
            let c = try arguments.next(C.self)
            return try HostResult.result(body(a, b, c), in: call.context)
        }
    }

    /// The typed function with one parameter and no result, its type known at compile time.
    ///
    /// ```swift
    /// context["log"] = JSValue(newFunctionIn: context) { (message: String) in print(message) }
    /// ```
    @inlinable
    public convenience init<A: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (A) throws -> Void
    ) {
        // The result form's reads, with an undefined result (a nil `JSValue?` is pushed as
        // undefined without making a value).
        self.init(newFunctionIn: context, name: name) { (a: A) throws -> JSValue? in
            try body(a)
            return nil
        }
    }

    /// The typed function with two parameters and no result, their types known at compile time.
    ///
    /// ```swift
    /// var settings: [String: Double] = [:]
    /// context["store"] = JSValue(newFunctionIn: context) { (key: String, value: Double) in settings[key] = value }
    /// ```
    @inlinable
    public convenience init<A: JSValueConvertible, B: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (A, B) throws -> Void
    ) {
        self.init(newFunctionIn: context, name: name) { (a: A, b: B) throws -> JSValue? in
            try body(a, b)
            return nil
        }
    }

    /// The typed function with three parameters and no result, their types known at compile time.
    ///
    /// ```swift
    /// var moves: [(id: Int, x: Double, y: Double)] = []
    /// context["move"] = JSValue(newFunctionIn: context) { (id: Int, x: Double, y: Double) in moves.append((id, x, y)) }
    /// ```
    @inlinable
    public convenience init<A: JSValueConvertible, B: JSValueConvertible, C: JSValueConvertible>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (A, B, C) throws -> Void
    ) {
        self.init(newFunctionIn: context, name: name) { (a: A, b: B, c: C) throws -> JSValue? in
            try body(a, b, c)
            return nil
        }
    }

    /// A function whose parameter or result types include ones that cannot be
    /// `JSValueConvertible`: JavaScriptCore's `id`, `NSArray *` and `NSDictionary *` parameters,
    /// written `Any`, `[Any]`, `[String: Any]` or `[AnyHashable: Any]` (or optionals of them).
    ///
    /// ```swift
    /// context["luminance"] = JSValue(newFunctionIn: context) { (color: [String: Any]) -> Double in
    ///     let red = color["red"] as? Double ?? 0, green = color["green"] as? Double ?? 0
    ///     return 0.3 * red + 0.7 * green
    /// }
    /// print(context.evaluateScript("luminance({red: 1, green: 0})")!.toDouble())   // prints: 0.3
    /// ```
    ///
    /// By JavaScriptCore's rules for each declared type: `Any` receives `toObject()` (an
    /// undefined argument is a nil `Any?` inside the `Any`; declare `Any?` to test for it),
    /// `[Any]` receives `toArray()`, `[String: Any]` and `[AnyHashable: Any]` receive
    /// `toDictionary()`, and an optional of them is nil for undefined and null. An argument of
    /// another kind (a number for `[Any]`) makes the call throw a TypeError naming it, as does
    /// a parameter type that no value converts to. `JSValueConvertible` types in the same
    /// closure convert by their `fromJSArgument`. The result converts by the Swift →
    /// JavaScript table (`Void` is undefined). Closures whose types are all
    /// `JSValueConvertible` use the typed overloads above, which convert without `Any`.
    @_disfavoredOverload
    public convenience init<each Argument, Result>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping (repeat each Argument) throws -> Result
    ) {
        self.init(hostFunctionIn: context, name: name, length: JSValue.arity(of: (repeat (each Argument).self))) {
            call in
            var arguments = ArgumentReader(call: call)
            return HostResult.dynamic(try body(repeat try arguments.nextDynamic((each Argument).self)))
        }
    }

    @inlinable
    static func arity<each Argument>(of types: (repeat (each Argument).Type)) -> Int {
        var count = 0
        for _ in repeat each types { count += 1 }
        return count
    }

    @usableFromInline
    convenience init(
        hostFunctionIn context: JSContext, name: String?, length: Int,
        _ body: @escaping (HostCall) throws -> HostResult
    ) {
        let function = HostFunction(context: context, body: body)
        let storage = context.reporting(Storage.undefined) { stack throws(JSException) in
            try function.push(on: stack, name: name, length: length)
            return try stack.storage(at: -1)
        }
        self.init(context: context, storage: storage)
    }
}
