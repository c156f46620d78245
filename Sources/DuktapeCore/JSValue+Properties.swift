import Foundation

/// Property descriptor key `"writable"`, for `defineProperty(_:descriptor:)`.
public let JSPropertyDescriptorWritableKey: String = "writable"
/// Property descriptor key `"enumerable"`.
public let JSPropertyDescriptorEnumerableKey: String = "enumerable"
/// Property descriptor key `"configurable"`.
public let JSPropertyDescriptorConfigurableKey: String = "configurable"
/// Property descriptor key `"value"`.
public let JSPropertyDescriptorValueKey: String = "value"
/// Property descriptor key `"get"`.
public let JSPropertyDescriptorGetKey: String = "get"
/// Property descriptor key `"set"`.
public let JSPropertyDescriptorSetKey: String = "set"

extension JSValue {
    /// `self[property]`, or undefined when absent. The key may be any value (strings, numbers,
    /// symbols as JSValue...); JavaScript turns it into a property key.
    ///
    /// ```swift
    /// print(context.evaluateScript("({a: 1})")!.forProperty("a")!.toInt32())   // prints: 1
    /// ```
    ///
    /// A getter that throws (or a primitive base like null) reports to `exceptionHandler` and
    /// gives undefined.
    @discardableResult
    public func forProperty(_ property: Any!) -> JSValue! {
        valueForKey(pushedBy: { stack throws(JSException) in try stack.pushKey(property) })
    }

    /// `forProperty(_:)` for a string key. The same, without the cost of unboxing an `Any`
    /// (measured: a third of a property read).
    @discardableResult
    public func forProperty(_ property: String) -> JSValue! {
        valueForKey(pushedBy: { stack throws(JSException) in try stack.pushKey(property) })
    }

    /// `self[key]`, the key pushed by `pushKey`.
    @inline(__always)
    private func valueForKey(pushedBy pushKey: (EngineStack) throws(JSException) -> Void) -> JSValue {
        reportingProperty(JSValue(context: owner, storage: .undefined), pushingKey: pushKey) { stack throws(JSException) in
            try stack.value(at: -1)
        }
    }

    /// Pushes `self[key]` (the key pushed by `pushKey`) and `read`s it; on an exception, reports
    /// it and gives `fallback`.
    @inline(__always)
    private func reportingProperty<T>(
        _ fallback: @autoclosure () -> T,
        pushingKey pushKey: (EngineStack) throws(JSException) -> Void,
        _ read: (EngineStack) throws(JSException) -> T
    ) -> T {
        owner.reporting(fallback()) { stack throws(JSException) in
            try stack.push(own: self)
            try pushKey(stack)
            try stack.getProperty()
            return try read(stack)
        }
    }

    /// `self[property] = value`, with non-strict semantics: a write to a read-only property is
    /// ignored. A setter that throws reports to `exceptionHandler`.
    ///
    /// ```swift
    /// object.setValue([1, 2, 3], forProperty: "list")
    /// ```
    public func setValue(_ value: Any!, forProperty property: Any!) {
        setValue(value, pushingKey: { stack throws(JSException) in try stack.pushKey(property) })
    }

    /// `setValue(_:forProperty:)` for a string key, without unboxing an `Any` key.
    public func setValue(_ value: Any!, forProperty property: String) {
        setValue(value, pushingKey: { stack throws(JSException) in try stack.pushKey(property) })
    }

    /// `self[key] = value`, the key pushed by `pushKey`.
    @inline(__always)
    private func setValue(_ value: Any?, pushingKey pushKey: (EngineStack) throws(JSException) -> Void) {
        setValue(pushingKey: pushKey) { stack throws(JSException) in try stack.push(any: value) }
    }

    /// `self[key] = value`, the key pushed by `pushKey` and the value by `pushValue`.
    @inline(__always)
    private func setValue(
        pushingKey pushKey: (EngineStack) throws(JSException) -> Void,
        value pushValue: (EngineStack) throws(JSException) -> Void
    ) {
        owner.reporting(()) { stack throws(JSException) in
            try stack.push(own: self)
            try pushKey(stack)
            try pushValue(stack)
            try stack.putProperty()
        }
    }

    /// `delete self[property]`: true if the property is gone (also when it never existed), false
    /// for a non-configurable property. Never a thrown error: an exception (a Proxy trap, a
    /// primitive base) is reported to `exceptionHandler` and gives false.
    ///
    /// ```swift
    /// print(context.evaluateScript("Object.freeze({a: 1})")!.deleteProperty("a"))   // prints: false
    /// ```
    @discardableResult
    public func deleteProperty(_ property: Any!) -> Bool {
        owner.reporting(false) { stack throws(JSException) in
            try stack.push(own: self)
            try stack.pushKey(property)
            return try stack.deleteProperty()
        }
    }

    /// `property in self`. False when the value is not an object.
    ///
    /// ```swift
    /// print(context.evaluateScript("[]")!.hasProperty("length"))   // prints: true
    /// ```
    @discardableResult
    public func hasProperty(_ property: Any!) -> Bool {
        guard case .reference = storage else { return false }
        return owner.reporting(false) { stack throws(JSException) in
            try stack.push(own: self)
            guard stack.isObject(at: -1) else { return false }
            try stack.pushKey(property)
            return try stack.hasProperty()
        }
    }

    /// `Object.defineProperty(self, property, descriptor)`. The descriptor is converted like any
    /// value (a dictionary with the `JSPropertyDescriptor…Key` keys, or a JSValue).
    ///
    /// ```swift
    /// object.defineProperty("id", descriptor: [
    ///     JSPropertyDescriptorValueKey: 7, JSPropertyDescriptorWritableKey: false,
    /// ])
    /// ```
    ///
    /// Invalid descriptors and non-object targets report a TypeError to `exceptionHandler`.
    public func defineProperty(_ property: Any!, descriptor: Any!) {
        owner.reporting(()) { stack throws(JSException) in
            try stack.push(own: self)
            try stack.pushKey(property)
            try stack.push(any: descriptor)
            try stack.defineProperty()
        }
    }

    /// `self[index]`. Indices from 2^32 − 1 up are ordinary property names (the string of the
    /// number), as in JavaScriptCore.
    ///
    /// ```swift
    /// print(context.evaluateScript("['a', 'b']")!.atIndex(1)!.toString()!)   // prints: b
    /// ```
    @discardableResult
    public func atIndex(_ index: Int) -> JSValue! {
        forProperty(index)
    }

    /// `self[index] = value`. For arrays, an index of 2^32 − 1 or more is an ordinary property and
    /// does not change `length`.
    ///
    /// ```swift
    /// array.setValue("x", at: 2)
    /// ```
    public func setValue(_ value: Any!, at index: Int) {
        setValue(value, forProperty: index)
    }

    // MARK: Subscript support (JavaScriptCore's spellings)

    /// Same as `forProperty(_:)`.
    @discardableResult
    public func objectForKeyedSubscript(_ key: Any!) -> JSValue! {
        forProperty(key)
    }

    /// Same as `atIndex(_:)`.
    @discardableResult
    public func objectAtIndexedSubscript(_ index: Int) -> JSValue! {
        atIndex(index)
    }

    /// Same as `setValue(_:forProperty:)`.
    public func setObject(_ object: Any!, forKeyedSubscript key: Any!) {
        setValue(object, forProperty: key)
    }

    /// Same as `setValue(_:at:)`.
    public func setObject(_ object: Any!, atIndexedSubscript index: Int) {
        setValue(object, at: index)
    }

    // MARK: Swift subscripts

    /// `self[key]` as a JSValue; assigning a JSValue sets it.
    ///
    /// ```swift
    /// let name = person["name"]
    /// person["friend"] = otherPerson
    /// ```
    public subscript(key: String) -> JSValue {
        get { forProperty(key) }
        set { setValue(newValue, forProperty: key) }
    }

    /// `self[index]` as a JSValue; assigning a JSValue sets it.
    public subscript(index: Int) -> JSValue {
        get { atIndex(index) }
        set { setValue(newValue, at: index) }
    }

    /// `self[key]` read as a Swift value (nil if absent or not convertible); assigning converts
    /// the Swift value (nil assigns undefined).
    ///
    /// ```swift
    /// person["age"] = 36
    /// let age: Int? = person["age"]
    /// ```
    ///
    /// The fast way to read and write properties: for the standard types no `Any` and no
    /// `JSValue` are made. Reading follows `Value.fromJSValue`'s strict rule (`"36"` is not an
    /// `Int`); a getter or setter that throws reports to `exceptionHandler` (a read gives nil).
    @inlinable
    public subscript<Value: JSValueConvertible>(key: String) -> Value? {
        get {
            property(key) { stack throws(JSException) in try stack.typedValue(at: -1, as: Value.self) }
        }
        set {
            setProperty(key) { stack throws(JSException) in
                if let newValue { try stack.push(typed: newValue) } else { try stack.push(HostResult.undefined) }
            }
        }
    }

    /// `self[key]` read by `read` (nil on an exception, which is reported).
    @usableFromInline
    func property<T>(_ key: String, _ read: (EngineStack) throws(JSException) -> T?) -> T? {
        reportingProperty(nil, pushingKey: { stack throws(JSException) in try stack.pushKey(key) }, read)
    }

    /// `self[key] = ` what `pushValue` pushes (an exception is reported).
    @usableFromInline
    func setProperty(_ key: String, _ pushValue: (EngineStack) throws(JSException) -> Void) {
        setValue(pushingKey: { stack throws(JSException) in try stack.pushKey(key) }, value: pushValue)
    }

    /// An exported class as a property: assigning puts its constructor there; reading gives the
    /// class when the property is that constructor.
    public subscript<Exported: JSExport>(key: String) -> Exported.Type? {
        get { forProperty(key).toObject() as? Exported.Type }
        set { setValue(newValue, forProperty: key) }
    }

    /// `self[index]` read as a Swift value; assigning converts the Swift value.
    public subscript<Value: JSValueConvertible>(index: Int) -> Value? {
        get { Value.fromJSValue(atIndex(index)) }
        set { setValue(newValue.map { $0.jsValue(in: owner) }, at: index) }
    }
}
