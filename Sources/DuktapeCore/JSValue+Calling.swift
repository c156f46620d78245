import CDuktape
import Foundation

// MARK: - Calling

extension JSValue {
    /// Calls the value as a function with the global object as `this`. Arguments are converted
    /// by the conversion table.
    ///
    /// ```swift
    /// let add = context.evaluateScript("(function (a, b) { return a + b })")!
    /// add.call(withArguments: [2, 3])!.toInt32()   // 5
    /// ```
    ///
    /// On an exception (including calling a non-function) the exception goes to
    /// `exceptionHandler` and the result is undefined. The throwing spelling is `call(_:)`.
    public func call(withArguments arguments: [Any]!) -> JSValue! {
        reportingCall { stack throws(JSException) in
            try stack.call(functionAt: -1, thisAt: nil, arguments: arguments, construct: false)
        }
    }

    /// `new self(...arguments)`.
    ///
    /// ```swift
    /// context.objectForKeyedSubscript("Date")!.construct(withArguments: [0])!.toDate()   // 1970-01-01
    /// ```
    public func construct(withArguments arguments: [Any]!) -> JSValue! {
        reportingCall { stack throws(JSException) in
            try stack.call(functionAt: -1, thisAt: nil, arguments: arguments, construct: true)
        }
    }

    /// Calls `self[method]` with `self` as `this`.
    ///
    /// ```swift
    /// context.evaluateScript("[3, 1, 2]")!.invokeMethod("join", withArguments: ["-"])!.toString()   // "3-1-2"
    /// ```
    public func invokeMethod(_ method: String!, withArguments arguments: [Any]!) -> JSValue! {
        reportingCall { stack throws(JSException) in
            try stack.getProperty(method ?? "undefined", ofValueAt: -1)
            try stack.call(functionAt: -1, thisAt: -2, arguments: arguments, construct: false)
        }
    }

    /// Calls the value as a function, throwing the JavaScript exception instead of reporting it.
    ///
    /// ```swift
    /// let result = try add.call(2, 3)
    /// ```
    @discardableResult
    public func call(_ arguments: Any?...) throws -> JSValue {
        try owner.withStack { stack throws(JSException) in
            try stack.push(self)
            try stack.call(functionAt: -1, thisAt: nil, arguments: arguments.map { $0 as Any }, construct: false)
            return try stack.value(at: -1)
        }
    }

    private func reportingCall(_ body: (EngineStack) throws(JSException) -> Void) -> JSValue {
        owner.reporting(JSValue(context: owner, storage: .undefined)) { stack throws(JSException) in
            try stack.push(self)
            try body(stack)
            return try stack.value(at: -1)
        }
    }
}

// MARK: - Comparing

extension JSValue {
    /// JavaScript's `===` against `value` converted by the conversion table.
    ///
    /// ```swift
    /// context.evaluateScript("42")!.isEqual(to: 42)     // true
    /// context.evaluateScript("42")!.isEqual(to: "42")   // false
    /// ```
    public func isEqual(to value: Any!) -> Bool {
        owner.reporting(false) { stack throws(JSException) in
            try stack.push(self)
            try stack.push(any: value)
            return duk_strict_equals(stack.ctx, -2, -1) != 0
        }
    }

    /// JavaScript's `==` against `value` (may run `valueOf`/`toString`; an exception reports to
    /// `exceptionHandler` and gives false).
    ///
    /// ```swift
    /// context.evaluateScript("42")!.isEqualWithTypeCoercion(to: "42")   // true
    /// ```
    public func isEqualWithTypeCoercion(to value: Any!) -> Bool {
        owner.reporting(false) { stack throws(JSException) in
            try stack.push(self)
            try stack.push(any: value)
            var equal: Int32 = 0
            try stack.check(cduk_pequals(stack.ctx, &equal))
            return equal != 0
        }
    }

    /// JavaScript's `instanceof`: `self instanceof value`. A `value` that is not callable is a
    /// TypeError (reported) and gives false.
    ///
    /// ```swift
    /// context.evaluateScript("[]")!.isInstance(of: context.objectForKeyedSubscript("Array"))   // true
    /// ```
    public func isInstance(of value: Any!) -> Bool {
        owner.reporting(false) { stack throws(JSException) in
            try stack.push(self)
            try stack.push(any: value)
            var result: Int32 = 0
            try stack.check(cduk_pinstanceof(stack.ctx, &result))
            return result != 0
        }
    }
}
