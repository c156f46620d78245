import Foundation

// MARK: - Calling

extension JSValue {
    /// Calls the value as a function with the global object as `this`. Arguments are converted
    /// by the conversion table.
    ///
    /// ```swift
    /// let add = context.evaluateScript("(function (a, b) { return a + b })")!
    /// print(add.call(withArguments: [2, 3])!.toInt32())   // prints: 5
    /// ```
    ///
    /// On an exception (including calling a non-function) the exception goes to
    /// `exceptionHandler` and the result is undefined. The throwing spelling is `call(_:)`.
    @discardableResult
    public func call(withArguments arguments: [Any]!) -> JSValue! {
        reportingCall(method: nil, arguments: arguments, construct: false)
    }

    /// `new self(...arguments)`.
    ///
    /// ```swift
    /// context.objectForKeyedSubscript("Date")!.construct(withArguments: [0])!.toDate()   // 1970-01-01
    /// ```
    @discardableResult
    public func construct(withArguments arguments: [Any]!) -> JSValue! {
        reportingCall(method: nil, arguments: arguments, construct: true)
    }

    /// Calls `self[method]` with `self` as `this`.
    ///
    /// ```swift
    /// print(context.evaluateScript("[3, 1, 2]")!.invokeMethod("join", withArguments: ["-"])!.toString()!)   // prints: 3-1-2
    /// ```
    @discardableResult
    public func invokeMethod(_ method: String!, withArguments arguments: [Any]!) -> JSValue! {
        reportingCall(method: .some(method ?? "undefined"), arguments: arguments, construct: false)
    }

    /// Calls the value as a function, throwing the JavaScript exception instead of reporting it.
    ///
    /// ```swift
    /// let result = try add.call(2, 3)
    /// ```
    ///
    /// A Swift error thrown by a callback and not caught by the script comes out as that same
    /// Swift error.
    @discardableResult
    public func call(_ arguments: Any?...) throws -> JSValue {
        try owner.rethrowingSwiftErrors { () throws(JSException) -> JSValue in
            try owner.withStack { stack throws(JSException) in
                try stack.push(own: self)
                try stack.call(thisAt: nil, construct: false) { () throws(JSException) in
                    for argument in arguments { try stack.push(any: argument) }
                }
                return try stack.value(at: -1)
            }
        }
    }

    /// Calls the value as a function with typed arguments and reads the result as `Result`,
    /// throwing the JavaScript exception. No `Any` and no `JSValue` are made for the standard
    /// types: this is the fast way to call a script function from a hot loop.
    ///
    /// ```swift
    /// let add = context.objectForKeyedSubscript("add")!
    /// let sum = try add.call(2.5, 3, returning: Double.self)          // 5.5
    /// let name = try greet.call("Ada", returning: String.self)
    /// let any = try build.call([1, 2], returning: JSValue.self)       // any result
    /// ```
    ///
    /// Arguments convert by their types' `jsValue(in:)`; `this` is the global object, as for
    /// `call(withArguments:)`. The result converts by `Result.fromJSValue`'s strict rule: a
    /// result of another kind (a string for `Double`, `1.5` for `Int`) throws a TypeError
    /// `JSException` ("expected Double, got a string"); declare `Double?` to accept undefined
    /// and null, or `JSValue` to take anything. A Swift error thrown by a callback and not
    /// caught by the script comes out as that same Swift error.
    @inlinable
    public func call<each Argument: JSValueConvertible, Result: JSValueConvertible>(
        _ arguments: repeat each Argument, returning resultType: Result.Type
    ) throws -> Result {
        try callPushing(JSValue.argumentCount(repeat (each Argument).self)) { stack throws(JSException) in
            repeat try stack.push(typed: each arguments)
        } reading: { stack throws(JSException) in
            try stack.converted(at: -1, as: Result.self)
        }
    }

    /// `call(_:returning:)` with one argument: the same call, with the argument's type known at
    /// compile time (a parameter pack's elements are iterated at run time, which costs about a
    /// sixth of a call). Overload resolution picks it for you.
    ///
    /// ```swift
    /// let twice = try double.call(21, returning: Int.self)   // 42
    /// ```
    @inlinable
    public func call<A: JSValueConvertible, Result: JSValueConvertible>(
        _ a: A, returning resultType: Result.Type
    ) throws -> Result {
        try callPushing(1) { stack throws(JSException) in
            try stack.push(reservedTyped: a)
        } reading: { stack throws(JSException) in
            try stack.converted(at: -1, as: Result.self)
        }
    }

    /// `call(_:returning:)` with two arguments, their types known at compile time.
    ///
    /// ```swift
    /// let sum = try add.call(2.5, 3, returning: Double.self)   // 5.5
    /// ```
    @inlinable
    public func call<A: JSValueConvertible, B: JSValueConvertible, Result: JSValueConvertible>(
        _ a: A, _ b: B, returning resultType: Result.Type
    ) throws -> Result {
        try callPushing(2) { stack throws(JSException) in
            try stack.push(reservedTyped: a)
            try stack.push(reservedTyped: b)
        } reading: { stack throws(JSException) in
            try stack.converted(at: -1, as: Result.self)
        }
    }

    /// `call(_:returning:)` with three arguments, their types known at compile time.
    ///
    /// ```swift
    /// let clamped = try clamp.call(15, 0, 10, returning: Int.self)   // 10
    /// ```
    @inlinable
    public func call<A: JSValueConvertible, B: JSValueConvertible, C: JSValueConvertible, Result: JSValueConvertible>(
        _ a: A, _ b: B, _ c: C, returning resultType: Result.Type
    ) throws -> Result {
        try callPushing(3) { stack throws(JSException) in
            try stack.push(reservedTyped: a)
            try stack.push(reservedTyped: b)
            try stack.push(reservedTyped: c)
        } reading: { stack throws(JSException) in
            try stack.converted(at: -1, as: Result.self)
        }
    }

    /// A typed call whose argument or result types include ones that cannot be
    /// `JSValueConvertible` (`Any`, `[Any]`, `[String: Any]`, `[AnyHashable: Any]` and their
    /// optionals): arguments convert by the Swift → JavaScript table, the result as
    /// `JSValue(newFunctionIn:_:)`'s general form reads arguments, strictly (a result of another
    /// kind throws a TypeError `JSException`; an optional accepts undefined and null).
    ///
    /// ```swift
    /// let settings = try load.call("app.json", returning: [String: Any].self)
    /// ```
    @_disfavoredOverload
    public func call<each Argument, Result>(
        _ arguments: repeat each Argument, returning resultType: Result.Type
    ) throws -> Result {
        try callPushing(JSValue.argumentCount(repeat (each Argument).self)) { stack throws(JSException) in
            repeat try stack.push(anyValue: each arguments)
        } reading: { stack throws(JSException) in
            try stack.dynamicValue(at: -1, as: Result.self)
        }
    }

    /// How many types a parameter pack holds (each argument pushes one value).
    @inlinable
    static func argumentCount<each Value>(_ types: repeat (each Value).Type) -> Int32 {
        var total: Int32 = 0
        for _ in repeat each types { total += 1 }
        return total
    }

    /// The typed call's untyped part, compiled once: calls `self` with the `argumentCount`
    /// values `pushArguments` pushes, and `read`s the result on top of the stack. The entry's own
    /// reservation (`EngineStack.entryReserve`) covers the callee and `this`.
    @usableFromInline
    func callPushing<Result>(
        _ argumentCount: Int32,
        _ pushArguments: (EngineStack) throws(JSException) -> Void,
        reading read: (EngineStack) throws(JSException) -> Result
    ) throws -> Result {
        try owner.rethrowingSwiftErrors { () throws(JSException) -> Result in
            try owner.withStack { stack throws(JSException) -> Result in
                stack.push(reservedOwn: self)
                stack.pushReservedGlobalObject()
                try stack.call(argumentCount: argumentCount, construct: false) { () throws(JSException) in try pushArguments(stack) }
                return try read(stack)
            }
        }
    }

    /// `call(withArguments:)` for an event loop's callbacks: the arguments are values already,
    /// and no result value is made. An exception goes to `exceptionHandler`, as there.
    package func callDiscardingResult(withValues arguments: [JSValue]) {
        owner.reporting(()) { stack throws(JSException) in
            try stack.push(own: self)
            try stack.reserve(Int32(min(arguments.count, 1_000_000)))
            try stack.call(thisAt: nil, construct: false) { () throws(JSException) in
                for argument in arguments { try stack.push(argument) }
            }
        }
    }

    /// The JavaScriptCore spellings' call, in one entry: `self(...arguments)`, `new self(...)`, or
    /// `self[method](...)` with `self` as `this`; an exception goes to `exceptionHandler` and
    /// gives undefined. One stack reservation covers the callee, `this` and the arguments (the
    /// entry's own, for up to five arguments), and the array is read in place: these are the
    /// calls ported code makes in its hot loops.
    private func reportingCall(method: String?, arguments: [Any]?, construct: Bool) -> JSValue {
        do throws(JSException) {
            return try owner.withStack { stack throws(JSException) -> JSValue in
                // The callee, `this` (or the key while the method is read) and the arguments.
                let needed = 3 + min(arguments?.count ?? 0, 1_000_000)
                if needed > EngineStack.entryReserve { try stack.reserve(Int32(needed)) }
                stack.push(reservedOwn: self)
                if let method {
                    try stack.replaceWithMethod(method)
                } else {
                    stack.pushReservedGlobalObject()
                }
                try stack.call(argumentCount: Int32(arguments?.count ?? 0), construct: construct) { () throws(JSException) in
                    // Read in place: iterating the array would copy each existential out.
                    try arguments?.withUnsafeBufferPointer { buffer throws(JSException) in
                        guard let base = buffer.baseAddress else { return }
                        for index in buffer.indices { try stack.push(reservedAnyAt: base + index) }
                    }
                }
                return try stack.value(at: -1)
            }
        } catch {
            owner.notifyException(error.value)
            return JSValue(context: owner, storage: .undefined)
        }
    }
}

// MARK: - Comparing

extension JSValue {
    /// JavaScript's `===` against `value` converted by the conversion table.
    ///
    /// ```swift
    /// print(context.evaluateScript("42")!.isEqual(to: 42))     // prints: true
    /// print(context.evaluateScript("42")!.isEqual(to: "42"))   // prints: false
    /// ```
    @discardableResult
    public func isEqual(to value: Any!) -> Bool {
        owner.reporting(false) { stack throws(JSException) in
            try stack.push(own: self)
            try stack.push(any: value)
            return stack.strictlyEqual(-2, -1)
        }
    }

    /// JavaScript's `==` against `value` (may run `valueOf`/`toString`; an exception reports to
    /// `exceptionHandler` and gives false).
    ///
    /// ```swift
    /// print(context.evaluateScript("42")!.isEqualWithTypeCoercion(to: "42"))   // prints: true
    /// ```
    @discardableResult
    public func isEqualWithTypeCoercion(to value: Any!) -> Bool {
        owner.reporting(false) { stack throws(JSException) in
            try stack.push(own: self)
            try stack.push(any: value)
            return try stack.looselyEqual()
        }
    }

    /// JavaScript's `instanceof`: `self instanceof value`. A `value` that is not callable is a
    /// TypeError (reported) and gives false.
    ///
    /// ```swift
    /// print(context.evaluateScript("[]")!.isInstance(of: context.objectForKeyedSubscript("Array")))   // prints: true
    /// ```
    @discardableResult
    public func isInstance(of value: Any!) -> Bool {
        owner.reporting(false) { stack throws(JSException) in
            try stack.push(own: self)
            try stack.push(any: value)
            return try stack.instanceOf()
        }
    }
}

// MARK: - Numeric comparison (JavaScriptCore's BigInt-era API)

/// The result of `JSValue.compare(_:)`.
public enum JSRelationCondition: UInt32, Sendable {
    /// The values are not comparable (NaN on either side).
    case undefined = 0
    /// The values are equal.
    case equal = 1
    /// The receiver is greater.
    case greaterThan = 2
    /// The receiver is smaller.
    case lessThan = 3
}

extension JSValue {
    /// Compares the numeric values (`toDouble()`) of the receiver and `other`.
    ///
    /// ```swift
    /// JSValue(int32: 2, in: context)!.compare(JSValue(int32: 3, in: context)!)   // .lessThan
    /// ```
    ///
    /// Duktape has no BigInt, so every comparison is between doubles.
    public func compare(_ other: JSValue) -> JSRelationCondition {
        JSValue.relation(toDouble(), other.toDouble())
    }

    /// Compares `toDouble()` with an integer (exactly, also beyond 2^53).
    public func compare(_ other: Int64) -> JSRelationCondition {
        let number = toDouble()
        guard !number.isNaN else { return .undefined }
        if number < -9_223_372_036_854_775_808.0 { return .lessThan }
        if number >= 9_223_372_036_854_775_808.0 { return .greaterThan }
        let integer = Int64(number.rounded(.towardZero))
        if integer != other { return integer < other ? .lessThan : .greaterThan }
        let fraction = number - number.rounded(.towardZero)
        return fraction == 0 ? .equal : (fraction > 0 ? .greaterThan : .lessThan)
    }

    /// Compares `toDouble()` with an unsigned integer (exactly, also beyond 2^53).
    public func compare(_ other: UInt64) -> JSRelationCondition {
        let number = toDouble()
        guard !number.isNaN else { return .undefined }
        if number < 0 { return .lessThan }
        if number >= 18_446_744_073_709_551_616.0 { return .greaterThan }
        let integer = UInt64(number.rounded(.towardZero))
        if integer != other { return integer < other ? .lessThan : .greaterThan }
        return number == number.rounded(.towardZero) ? .equal : .greaterThan
    }

    /// Compares `toDouble()` with a double.
    public func compare(_ other: Double) -> JSRelationCondition {
        JSValue.relation(toDouble(), other)
    }

    private static func relation(_ left: Double, _ right: Double) -> JSRelationCondition {
        if left.isNaN || right.isNaN { return .undefined }
        return left == right ? .equal : (left < right ? .lessThan : .greaterThan)
    }
}

// MARK: - BigInt (not available in Duktape 2.7)

extension JSValue {
    /// JavaScriptCore's BigInt initializer. Duktape 2.7 has no BigInt: this reports a TypeError
    /// to the context's `exceptionHandler` and returns nil.
    public convenience init?(newBigIntFrom string: String, in context: JSContext) {
        JSValue.reportNoBigInt(in: context)
        return nil
    }

    /// JavaScriptCore's BigInt initializer; always nil here (see `init(newBigIntFrom:in:)` for a string).
    public convenience init?(newBigIntFrom int64: Int64, in context: JSContext) {
        JSValue.reportNoBigInt(in: context)
        return nil
    }

    /// JavaScriptCore's BigInt initializer; always nil here (see `init(newBigIntFrom:in:)` for a string).
    public convenience init?(newBigIntFrom uint64: UInt64, in context: JSContext) {
        JSValue.reportNoBigInt(in: context)
        return nil
    }

    /// JavaScriptCore's BigInt initializer; always nil here (see `init(newBigIntFrom:in:)` for a string).
    public convenience init?(newBigIntFrom double: Double, in context: JSContext) {
        JSValue.reportNoBigInt(in: context)
        return nil
    }

    private static func reportNoBigInt(in context: JSContext) {
        context.reporting(()) { stack throws(JSException) in
            throw stack.makeError(.typeError, "BigInt is not supported by this engine (Duktape 2.7)")
        }
    }
}
