import Foundation

/// A reference to a JavaScript value, with JavaScriptCore's API.
///
/// A `JSValue` keeps its value alive (and its context, which keeps its virtual machine) for as
/// long as it exists. Numbers, booleans, null and undefined are held inline; strings, objects and
/// symbols are pinned in the heap until the `JSValue` is released. Values can be used from any
/// thread: every operation takes the virtual machine's lock.
///
/// ```swift
/// let context = JSContext()!
/// let point = JSValue(object: ["x": 1, "y": 2], in: context)!
/// point.setValue(3, forProperty: "z")
/// print(point.forProperty("x")!.toInt32())          // prints: 1
/// print(point["y"].toDouble())                     // prints: 2.0
/// let sum = context.evaluateScript("(function (a, b) { return a + b })")!
/// print(sum.call(withArguments: [2, 3])!.toInt32()) // prints: 5
/// ```
public final class JSValue: @unchecked Sendable {
    // @unchecked: immutable after init; the engine value it refers to is only touched under the
    // VM lock, and `pointer` is a heap address that stays valid while the slot pins it.

    enum Storage {
        case undefined
        case null
        case boolean(Bool)
        case number(Double)
        /// A heap value (string, object, symbol, buffer) pinned in registry `slot`.
        case reference(slot: UInt32, pointer: UnsafeMutableRawPointer)
    }

    let owner: JSContext
    let storage: Storage

    init(context: JSContext, storage: Storage) {
        self.owner = context
        self.storage = storage
    }

    deinit {
        if case .reference(let slot, _) = storage {
            owner.vm.engine.release(slot)
        }
    }

    /// The context this value was created in.
    public var context: JSContext! { owner }

    // MARK: - Creating values

    /// Converts a Swift value by the conversion table (<doc:PortingFromJavaScriptCore>, "Conversion") and wraps the result.
    ///
    /// ```swift
    /// let value = JSValue(object: ["name": "Ada", "tags": ["a", "b"]], in: context)!
    /// print(value.forProperty("tags")!.atIndex(1)!.toString()!)   // prints: b
    /// ```
    ///
    /// Returns nil if `context` is nil. A value that cannot be converted (an unsupported Swift
    /// type, a JSValue of another VM) is reported to `exceptionHandler` and gives undefined.
    public convenience init!(object value: Any!, in context: JSContext!) {
        guard let context else { return nil }
        self.init(creatingIn: context) { stack throws(JSException) in try stack.push(any: value) }
    }

    /// A boolean value.
    ///
    /// ```swift
    /// print(JSValue(bool: true, in: context)!.isBoolean)   // prints: true
    /// ```
    public convenience init!(bool value: Bool, in context: JSContext!) {
        guard let context else { return nil }
        self.init(context: context, storage: .boolean(value))
    }

    /// A number value.
    ///
    /// ```swift
    /// print(JSValue(double: 0.5, in: context)!.toDouble())   // prints: 0.5
    /// ```
    public convenience init!(double value: Double, in context: JSContext!) {
        guard let context else { return nil }
        self.init(context: context, storage: .number(value))
    }

    /// A number value from a signed 32-bit integer.
    ///
    /// ```swift
    /// print(JSValue(int32: -7, in: context)!.toInt32())   // prints: -7
    /// ```
    public convenience init!(int32 value: Int32, in context: JSContext!) {
        guard let context else { return nil }
        self.init(context: context, storage: .number(Double(value)))
    }

    /// A number value from an unsigned 32-bit integer.
    ///
    /// ```swift
    /// print(JSValue(uInt32: 4_000_000_000, in: context)!.toUInt32())   // prints: 4000000000
    /// ```
    public convenience init!(uInt32 value: UInt32, in context: JSContext!) {
        guard let context else { return nil }
        self.init(context: context, storage: .number(Double(value)))
    }

    /// A new empty object, `{}`.
    ///
    /// ```swift
    /// let object = JSValue(newObjectIn: context)!
    /// ```
    public convenience init!(newObjectIn context: JSContext!) {
        guard let context else { return nil }
        self.init(creatingIn: context) { stack throws(JSException) in try stack.pushNewObject() }
    }

    /// A new empty array, `[]`.
    ///
    /// ```swift
    /// let array = JSValue(newArrayIn: context)!
    /// array.setValue("first", at: 0)
    /// ```
    public convenience init!(newArrayIn context: JSContext!) {
        guard let context else { return nil }
        self.init(creatingIn: context) { stack throws(JSException) in try stack.pushNewArray() }
    }

    /// A new `Uint8Array` holding the bytes of `chunks`, one after another (a Swift-first
    /// convenience: JavaScriptCore's Objective-C API has no typed-array initializer, so this one
    /// throws, as the Swift-first `evaluate` and `call` do, instead of reporting).
    ///
    /// Each byte is copied once, straight into the array, so joining the pieces of a body
    /// received in parts costs no intermediate buffer.
    ///
    /// ```swift
    /// let parts: [[UInt8]] = [[1, 2], [3]]
    /// let array = try JSValue(newUint8ArrayJoining: parts, in: context)
    /// print(array.forProperty("length")!.toInt32())   // prints: 3
    /// ```
    ///
    /// A chunk that yields fewer bytes than its `count` leaves zeros in their place; more bytes
    /// than counted are dropped. More than 2^31 − 2 bytes in all, or an allocation the memory
    /// limit refuses, throws a RangeError `JSException`.
    public convenience init<Chunks: Collection>(newUint8ArrayJoining chunks: Chunks, in context: JSContext) throws(JSException)
    where Chunks.Element: Collection<UInt8> {
        let storage = try context.withStack { stack throws(JSException) in
            try stack.pushUint8Array(joining: chunks)
            return try stack.storage(at: -1)
        }
        self.init(context: context, storage: storage)
    }

    /// A new string of `string`'s characters, throwing (a RangeError `JSException`) when the
    /// memory limit refuses it instead of reporting: for the library's hosts, which answer a
    /// message that does not fit by closing what sent it.
    package convenience init(newString string: String, in context: JSContext) throws(JSException) {
        let storage = try context.withStack { stack throws(JSException) in
            try stack.pushString(string)
            return try stack.storage(at: -1)
        }
        self.init(context: context, storage: storage)
    }

    /// A new regular expression, `new RegExp(pattern, flags)`.
    ///
    /// ```swift
    /// print(JSValue(newRegularExpressionFromPattern: "foo", flags: "gi", in: context)!.toString()!)   // prints: /foo/gi
    /// ```
    ///
    /// An invalid pattern or flags is reported to `exceptionHandler` and gives undefined.
    public convenience init!(newRegularExpressionFromPattern pattern: String!, flags: String!, in context: JSContext!) {
        guard let context else { return nil }
        self.init(creatingIn: context) { stack throws(JSException) in
            try stack.pushString(pattern ?? "")
            try stack.pushString(flags ?? "")
            try stack.callBuiltin(.regExp, argumentCount: 2, construct: true)
        }
    }

    /// A new error, `new Error(message)`.
    ///
    /// ```swift
    /// print(JSValue(newErrorFromMessage: "an error message", in: context)!.toString()!)   // prints: Error: an error message
    /// ```
    public convenience init!(newErrorFromMessage message: String!, in context: JSContext!) {
        self.init(newError: .error, message: message, in: context)
    }

    /// Swift-first: a new `TypeError(message)`, made with the realm's own constructor (a script
    /// that replaces the global `TypeError` does not change it). A callback throws it by
    /// assigning it to `context.exception`, or by throwing it as `JSException(value)`.
    ///
    /// ```swift
    /// JSValue(newTypeErrorFromMessage: "expected a function", in: context)!.toString()
    /// // "TypeError: expected a function"
    /// ```
    public convenience init!(newTypeErrorFromMessage message: String!, in context: JSContext!) {
        self.init(newError: .typeError, message: message, in: context)
    }

    /// Swift-first: a new `RangeError(message)`, made with the realm's own constructor.
    ///
    /// ```swift
    /// print(JSValue(newRangeErrorFromMessage: "too many", in: context)!.toString()!)   // prints: RangeError: too many
    /// ```
    public convenience init!(newRangeErrorFromMessage message: String!, in context: JSContext!) {
        self.init(newError: .rangeError, message: message, in: context)
    }

    /// `new B(message)` for the realm's error constructor B.
    private convenience init!(newError builtin: EngineStack.Builtin, message: String!, in context: JSContext!) {
        guard let context else { return nil }
        self.init(creatingIn: context) { stack throws(JSException) in
            try stack.pushString(message ?? "")
            try stack.callBuiltin(builtin, argumentCount: 1, construct: true)
        }
    }

    /// A new unique symbol, `Symbol(description)`.
    ///
    /// ```swift
    /// print(JSValue(newSymbolFromDescription: "tag", in: context)!.isSymbol)   // prints: true
    /// ```
    public convenience init!(newSymbolFromDescription description: String!, in context: JSContext!) {
        guard let context else { return nil }
        self.init(creatingIn: context) { stack throws(JSException) in
            try stack.push(any: description)
            try stack.callBuiltin(.symbol, argumentCount: 1, construct: false)
        }
    }

    /// The value `null`.
    ///
    /// ```swift
    /// print(JSValue(nullIn: context)!.isNull)   // prints: true
    /// ```
    public convenience init!(nullIn context: JSContext!) {
        guard let context else { return nil }
        self.init(context: context, storage: .null)
    }

    /// The value `undefined`.
    ///
    /// ```swift
    /// print(JSValue(undefinedIn: context)!.isUndefined)   // prints: true
    /// ```
    public convenience init!(undefinedIn context: JSContext!) {
        guard let context else { return nil }
        self.init(context: context, storage: .undefined)
    }

    /// Runs `push` (which leaves one value on the stack) and takes the result; on an exception,
    /// reports it to the context's `exceptionHandler` and holds undefined.
    private convenience init(creatingIn context: JSContext, _ push: (EngineStack) throws(JSException) -> Void) {
        let storage = context.reporting(Storage.undefined) { stack throws(JSException) in
            try push(stack)
            return try stack.storage(at: -1)
        }
        self.init(context: context, storage: storage)
    }
}
