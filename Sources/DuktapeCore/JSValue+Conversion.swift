import Foundation

// MARK: - Type checks

extension JSValue {
    /// True for `undefined`.
    ///
    /// ```swift
    /// print(context.evaluateScript("void 0")!.isUndefined)   // prints: true
    /// ```
    public var isUndefined: Bool {
        if case .undefined = storage { return true }
        return false
    }

    /// True for `null`.
    public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    /// True for `true` and `false` (not for `Boolean` objects).
    public var isBoolean: Bool {
        if case .boolean = storage { return true }
        return false
    }

    /// True for numbers (not for `Number` objects).
    public var isNumber: Bool {
        if case .number = storage { return true }
        return false
    }

    /// True for strings (not for symbols or `String` objects).
    ///
    /// ```swift
    /// print(context.evaluateScript("'a' + 1")!.isString)   // prints: true
    /// ```
    public var isString: Bool {
        inspect { stack in stack.isString(at: -1) }
    }

    /// True for symbols.
    public var isSymbol: Bool {
        inspect { stack in stack.isSymbol(at: -1) }
    }

    /// True for objects, functions included.
    public var isObject: Bool {
        inspect { stack in stack.isObject(at: -1) }
    }

    /// True for functions (`typeof value === 'function'`). A Swift-first addition: JavaScriptCore
    /// has no such property.
    ///
    /// ```swift
    /// print(context.evaluateScript("(function () {})")!.isFunction)   // prints: true
    /// ```
    public var isFunction: Bool {
        guard case .reference(_, let pointer) = storage else { return false }
        return owner.engine.isCallable(pointer)
    }

    /// True for arrays (`Array.isArray`).
    public var isArray: Bool {
        inspect { stack in stack.isArray(at: -1) }
    }

    /// True for `Date` objects (from any context of the VM).
    public var isDate: Bool {
        inspect { stack in stack.isDate(at: -1) }
    }

    /// Always false: Duktape 2.7 has no BigInt. Kept for JavaScriptCore parity.
    public var isBigInt: Bool { false }

    /// Runs a non-throwing check on the pushed value (heap values only; primitives answer false).
    private func inspect(_ check: (EngineStack) -> Bool) -> Bool {
        guard case .reference = storage else { return false }
        return (try? owner.withStack { stack throws(JSException) in
            try stack.push(own: self)
            return check(stack)
        }) ?? false
    }
}

// MARK: - Conversions to Swift

extension JSValue {
    /// Converts to a Swift value by JavaScriptCore's rules (<doc:PortingFromJavaScriptCore>, "Conversion").
    ///
    /// undefined → nil, null → `NSNull`, booleans → `Bool`, numbers → `NSNumber` (so `as? Int`
    /// and `as? Double` both work for integral values), strings → `String`, `Date` → `Date`,
    /// `Uint8Array` → `Data`, arrays → `[Any]`, other objects → `[String: Any]`.
    ///
    /// ```swift
    /// let object = context.evaluateScript("({a: [1, 'two', null], b: true})")!.toObject()
    /// let dictionary = object as? [String: Any]          // ["a": [1, "two", NSNull()], "b": true]
    /// ```
    @discardableResult
    public func toObject() -> Any! {
        switch storage {
        case .undefined: return nil
        case .null: return NSNull()
        case .boolean(let flag): return flag
        case .number(let number): return NSNumber(value: number)
        case .reference:
            return owner.reporting(nil) { stack throws(JSException) in
                try stack.push(own: self)
                return try stack.any(at: -1)
            }
        }
    }

    /// `toObject()` if the result is an instance of `expectedClass` (or a subclass), else nil.
    ///
    /// ```swift
    /// context.evaluateScript("new Date(0)")!.toObjectOf(NSDate.self)   // a Date
    /// ```
    @discardableResult
    public func toObjectOf(_ expectedClass: AnyClass!) -> Any! {
        guard let expectedClass, let object = toObject() else { return nil }
        if let instance = object as? NSObject, type(of: object) is AnyClass {
            return instance.isKind(of: expectedClass) ? object : nil
        }
        // Swift value types stand for their Foundation counterparts, as bridging does on Apple.
        let bridged: AnyClass? =
            switch object {
            case is String: NSString.self
            case is Date: NSDate.self
            case is Data: NSData.self
            case is [Any]: NSArray.self
            case is [String: Any]: NSDictionary.self
            case is Bool: NSNumber.self
            default: nil
            }
        guard let bridged else { return nil }
        return bridged == expectedClass || (bridged as? NSObject.Type)?.isSubclass(of: expectedClass) == true
            ? object : nil
    }

    /// JavaScript's ToBoolean: false for undefined, null, false, 0, NaN and ""; true otherwise.
    ///
    /// ```swift
    /// print(JSValue(object: "", in: context)!.toBool())   // prints: false
    /// ```
    @discardableResult
    public func toBool() -> Bool {
        switch storage {
        case .undefined, .null: return false
        case .boolean(let flag): return flag
        case .number(let number): return !(number == 0 || number.isNaN)
        case .reference:
            return (try? owner.withStack { stack throws(JSException) in
                try stack.push(own: self)
                return stack.truthiness(at: -1)
            }) ?? true
        }
    }

    /// JavaScript's ToNumber (`+value`). NaN if the conversion throws (the exception goes to
    /// `exceptionHandler`).
    ///
    /// ```swift
    /// print(JSValue(object: "12", in: context)!.toDouble())   // prints: 12.0
    /// ```
    @discardableResult
    public func toDouble() -> Double {
        do {
            return try numberThrowing()
        } catch {
            owner.notifyException(error.value)
            return .nan
        }
    }

    /// ToNumber, throwing the script's exception (a symbol, a `valueOf` that throws) where
    /// `toDouble()` reports it and gives NaN. Typed closures' numeric parameters convert so, as
    /// JavaScriptCore converts a block's arguments: the exception is thrown to the caller.
    @inline(__always)
    func numberThrowing() throws(JSException) -> Double {
        switch storage {
        case .undefined: return .nan
        case .null: return 0
        case .boolean(let flag): return flag ? 1 : 0
        case .number(let number): return number
        case .reference:
            return try owner.withStack { stack throws(JSException) in
                try stack.push(own: self)
                return try stack.number(at: -1)
            }
        }
    }

    /// ECMAScript ToInt32 of `toDouble()`: modulo 2^32, NaN and ±Infinity give 0.
    ///
    /// ```swift
    /// print(JSValue(double: 4294967297, in: context)!.toInt32())   // prints: 1
    /// ```
    @discardableResult
    public func toInt32() -> Int32 {
        Int32(truncatingIfNeeded: JSValue.modulo(toDouble(), bits: 32))
    }

    /// ECMAScript ToUint32 of `toDouble()`: modulo 2^32, NaN and ±Infinity give 0.
    ///
    /// ```swift
    /// print(JSValue(double: -1, in: context)!.toUInt32())   // prints: 4294967295
    /// ```
    @discardableResult
    public func toUInt32() -> UInt32 {
        UInt32(truncatingIfNeeded: JSValue.modulo(toDouble(), bits: 32))
    }

    /// `toDouble()` truncated to a signed 64-bit integer, modulo 2^64 (NaN and ±Infinity give 0).
    ///
    /// ```swift
    /// print(JSValue(double: 4294967297, in: context)!.toInt64())   // prints: 4294967297
    /// ```
    @discardableResult
    public func toInt64() -> Int64 {
        Int64(truncatingIfNeeded: JSValue.modulo(toDouble(), bits: 64))
    }

    /// `toDouble()` truncated to an unsigned 64-bit integer, modulo 2^64 (NaN and ±Infinity give 0).
    @discardableResult
    public func toUInt64() -> UInt64 {
        JSValue.modulo(toDouble(), bits: 64)
    }

    /// The integer part of `number` modulo 2^bits, as the low bits of a UInt64.
    ///
    /// Exact: below 2^63 in magnitude the integer converts directly; above, doubles are
    /// multiples of 2^11, so the remainder and the final addition are exact too.
    static func modulo(_ number: Double, bits: Int) -> UInt64 {
        guard number.isFinite else { return 0 }
        let truncated = number.rounded(.towardZero)
        if truncated.magnitude < 9_223_372_036_854_775_808.0 {
            let wide = UInt64(bitPattern: Int64(truncated))
            return bits == 64 ? wide : wide & 0xFFFF_FFFF
        }
        let modulus = bits == 64 ? 18_446_744_073_709_551_616.0 : 4_294_967_296.0
        var remainder = truncated.truncatingRemainder(dividingBy: modulus)
        if remainder < 0 { remainder += modulus }
        return remainder < modulus ? UInt64(remainder) : 0
    }

    /// A boolean as a Bool NSNumber; anything else as `NSNumber(value: toDouble())`.
    ///
    /// ```swift
    /// print(JSValue(object: "abc", in: context)!.toNumber()!.doubleValue.isNaN)   // prints: true
    /// ```
    @discardableResult
    public func toNumber() -> NSNumber! {
        if case .boolean(let flag) = storage { return NSNumber(value: flag) }
        return NSNumber(value: toDouble())
    }

    /// JavaScript's ToString (`String(value)` for everything but symbols). nil if it throws
    /// (symbols, objects whose `toString` throws); the exception goes to `exceptionHandler`.
    ///
    /// ```swift
    /// print(JSValue(double: 1.0 / 3, in: context)!.toString()!)   // prints: 0.3333333333333333
    /// ```
    @discardableResult
    public func toString() -> String! {
        do {
            return try stringThrowing()
        } catch {
            owner.notifyException(error.value)
            return nil
        }
    }

    /// ToString, throwing the script's exception (a symbol, a `toString` that throws) where
    /// `toString()` reports it and gives nil (for typed closures' `String` parameters).
    @inline(__always)
    func stringThrowing() throws(JSException) -> String {
        switch storage {
        case .undefined: return "undefined"
        case .null: return "null"
        case .boolean(let flag): return flag ? "true" : "false"
        case .number, .reference:
            return try owner.withStack { stack throws(JSException) in
                try stack.push(own: self)
                return try stack.toString(at: -1)
            }
        }
    }

    /// The value as a date: `toDouble()` read as milliseconds since 1970.
    ///
    /// ```swift
    /// print(context.evaluateScript("new Date(1500)")!.toDate()!.timeIntervalSince1970)   // prints: 1.5
    /// ```
    @discardableResult
    public func toDate() -> Date! {
        Date(timeIntervalSince1970: toDouble() / 1000)
    }

    /// The value as an array: nil for null and undefined; a TypeError ("Cannot convert primitive
    /// to NSArray", reported to `exceptionHandler`) and nil for other primitives; otherwise
    /// `length` elements converted by `toObject()`'s rules, holes and undefined as `NSNull`.
    ///
    /// ```swift
    /// context.evaluateScript("[1, , 'x']")!.toArray()   // [1, NSNull(), "x"]
    /// ```
    @discardableResult
    public func toArray() -> [Any]! {
        convertContainer("NSArray") { stack throws(JSException) in try stack.array(at: -1) }
    }

    /// The value as a dictionary: nil for null and undefined; a TypeError ("Cannot convert
    /// primitive to NSDictionary") and nil for other primitives; otherwise every enumerable
    /// property (inherited ones included, as `for-in`), converted by `toObject()`'s rules, with
    /// undefined values left out.
    ///
    /// ```swift
    /// let dictionary = context.evaluateScript("({a: 1, b: undefined})")!.toDictionary()!
    /// dictionary["a"] as? Int   // 1; "b" is absent
    /// ```
    @discardableResult
    public func toDictionary() -> [AnyHashable: Any]! {
        let dictionary: [String: Any]? = convertContainer("NSDictionary") { stack throws(JSException) in
            try stack.dictionary(at: -1)
        }
        return dictionary.map { $0 as [AnyHashable: Any] }
    }

    private func convertContainer<T>(_ typeName: String, _ convert: (EngineStack) throws(JSException) -> T) -> T? {
        switch storage {
        case .undefined, .null: return nil
        case .boolean, .number:
            owner.reporting(()) { stack throws(JSException) in
                throw stack.makeError(.typeError, "Cannot convert primitive to \(typeName)")
            }
            return nil
        case .reference:
            return owner.reporting(nil) { stack throws(JSException) in
                try stack.push(own: self)
                guard stack.isObject(at: -1) else {
                    throw stack.makeError(.typeError, "Cannot convert primitive to \(typeName)")
                }
                return try convert(stack)
            }
        }
    }
}

// MARK: - Description

extension JSValue: CustomStringConvertible {
    /// `String(value)` (symbols included); never reports an exception.
    ///
    /// ```swift
    /// print(JSValue(object: [1, 2], in: context)!)   // prints: 1,2
    /// ```
    public var description: String {
        switch storage {
        case .undefined: return "undefined"
        case .null: return "null"
        case .boolean(let flag): return flag ? "true" : "false"
        case .number, .reference:
            return (try? owner.withStack { stack throws(JSException) in
                try stack.push(own: self)
                return stack.describe(at: -1)
            }) ?? nil ?? "<value whose toString threw>"
        }
    }
}
