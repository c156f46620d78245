import CDuktape
import Foundation

/// Limits that keep conversions from being a way to crash or hang the host.
enum ConversionLimits {
    /// Containers nested deeper than this fail with a RangeError instead of overflowing the
    /// native stack (a script can build `[[[[...]]]]` a million levels deep).
    static let maximumDepth = 500
    /// Arrays whose `length` is above this fail with a RangeError instead of allocating
    /// (`{length: 4294967295}` is a valid array-like).
    static let maximumArrayLength: Double = 16_777_216
}

/// Unwraps nested optionals hidden in an `Any` (`Optional<Optional<Int>>.some(.none)` is nil).
private protocol OptionalProtocol {
    var flattened: Any? { get }
}

/// An array of any element type, iterated as it is: a cast to `[Any]` would first copy it,
/// boxing every element (more than the conversion of an `Int` element itself).
private protocol AnyElements {
    func forEachElement(_ body: (Int, Any) throws(JSException) -> Void) throws(JSException)
}

extension Array: AnyElements {
    fileprivate func forEachElement(_ body: (Int, Any) throws(JSException) -> Void) throws(JSException) {
        for index in indices { try body(index, self[index]) }
    }
}

/// A dictionary with `String` keys and values of any type, iterated as it is (a cast to
/// `[String: Any]` would first copy it, as for arrays).
private protocol StringKeyedEntries {
    func forEachEntry(_ body: (String, Any) throws(JSException) -> Void) throws(JSException)
}

extension Dictionary: StringKeyedEntries where Key == String {
    fileprivate func forEachEntry(_ body: (String, Any) throws(JSException) -> Void) throws(JSException) {
        for (key, value) in self { try body(key, value) }
    }
}

/// The value of one of the commonest exact types, read from an opened existential: comparing
/// metatypes and reinterpreting is a few instructions, a dynamic cast (`value as? Double`) a
/// runtime call that costs more than pushing the number.
///
/// The one type table of the library, for values whose type is known only at run time: an `Any`
/// opened into `T` (no protocol to dispatch on), and a parameter pack's elements (iterated at run
/// time). Reads whose type is known at compile time choose by protocol instead
/// (`JSValueConvertible._exactValue(at:)`, `_fromJSArgument(_:)`).
@usableFromInline
enum ExactValue {
    case number(Double)
    case boolean(Bool)
    case string(String)
    case jsValue(JSValue)
    case other
}

/// Reads `value` if it is of one of `ExactValue`'s types. Called with an `Any`, the existential
/// is opened (its dynamic type becomes `T`), so the tests compare metatypes.
@inlinable @inline(__always)
func exactValue<T>(_ value: T) -> ExactValue {
    if T.self == Double.self { return .number(_identityCast(value, to: Double.self)) }
    if T.self == Int.self { return .number(Double(_identityCast(value, to: Int.self))) }
    if T.self == String.self { return .string(_identityCast(value, to: String.self)) }
    if T.self == Bool.self { return .boolean(_identityCast(value, to: Bool.self)) }
    if T.self == JSValue.self { return .jsValue(_identityCast(value, to: JSValue.self)) }
    return .other
}

extension Optional: OptionalProtocol {
    fileprivate var flattened: Any? {
        switch self {
        case .none: return nil
        case .some(let wrapped):
            if let nested = wrapped as? any OptionalProtocol { return nested.flattened }
            return wrapped
        }
    }
}

extension ExactValue {
    /// Debug checks of `InlineScalar` against the table.
    func isNumber(bitwiseEqualTo number: Double) -> Bool {
        if case .number(let value) = self { return value.bitPattern == number.bitPattern }
        return false
    }

    func isBoolean(_ flag: Bool) -> Bool {
        if case .boolean(let value) = self { return value == flag }
        return false
    }
}

/// A number or boolean read in place from an `Any` in memory, without copying the existential
/// out (a copy, a projection and a destroy cost about 60 instructions per argument of
/// `call(withArguments:)`, more than pushing the number).
///
/// By the Swift ABI's layout of an opaque existential container (docs/ABI/TypeLayout.rst): a
/// three-word value buffer, then the type metadata pointer. On 64-bit targets `Double`, `Int`
/// and `Bool` are stored inline in the buffer (they fit in it, are no more aligned than a word
/// and are bitwise-takable), at its start; elsewhere a `Double` may be boxed, so every value takes
/// the general path there.
enum InlineScalar {
    case number(Double)
    case boolean(Bool)

    /// The value of `element` if it holds exactly a `Double`, an `Int` or a `Bool`.
    @inline(__always)
    static func read(_ element: UnsafePointer<Any>) -> InlineScalar? {
        #if arch(x86_64) || arch(arm64)
        let raw = UnsafeRawPointer(element)
        let type = raw.load(fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer.self)
        if type == metadata(of: Double.self) { return .number(raw.load(as: Double.self)) }
        if type == metadata(of: Int.self) { return .number(Double(raw.load(as: Int.self))) }
        if type == metadata(of: Bool.self) { return .boolean(raw.load(as: Bool.self)) }
        return nil
        #else
        return nil
        #endif
    }

    @inline(__always)
    private static func metadata(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }
}

// MARK: - Swift → JavaScript (JSC's valueWithObject: table, extended for Swift)

extension EngineStack {
    /// Pushes a Swift value converted by the table in the Porting from JavaScriptCore article ("Conversion"), leaving exactly
    /// one value on the stack.
    @inline(__always)
    func push(any value: Any?, depth: Int = 0) throws(JSException) {
        guard let value else {
            try reserve(1)
            duk_push_undefined(ctx)
            return
        }
        try push(anyValue: value, depth: depth)
    }

    /// Whether `type` is a function type (a Swift closure), read from its metadata's kind
    /// (MetadataKind::Function). (A `@convention(block)` block never gets here on Linux: the
    /// toolchain's conversion of a block to `Any` makes an existential that crashes when it is
    /// first copied, before any of our code can look at it; the Getting started article.)
    static func isFunctionType(_ type: Any.Type) -> Bool {
        let kind = unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
        return kind == 0x302
    }

    /// `push(any:)` for a value that is not nil (it may still hold a nil optional).
    @inline(__always)
    func push(anyValue value: Any, depth: Int = 0) throws(JSException) {
        // The commonest types first, told apart by their dynamic type alone: a dynamic cast from
        // `Any` (`value as? Double`) costs more than pushing the number.
        try push(exactValue(value), of: value, depth: depth)
    }

    /// `push(reservedAnyValue:)` for an element of an `[Any]`, read in place.
    @inline(__always)
    func push(reservedAnyAt element: UnsafePointer<Any>) throws(JSException) {
        switch InlineScalar.read(element) {
        case .number(let number):
            assert(exactValue(element.pointee).isNumber(bitwiseEqualTo: number), "in-place read disagrees with the table")
            duk_push_number(ctx, number)
        case .boolean(let flag):
            assert(exactValue(element.pointee).isBoolean(flag), "in-place read disagrees with the table")
            duk_push_boolean(ctx, flag ? 1 : 0)
        case nil:
            try push(reservedAnyValue: element.pointee)
        }
    }

    /// `push(anyValue:)` into a slot the caller reserved: numbers, booleans and JSValues are
    /// pushed without reserving again (a call's arguments: one reservation covers them all).
    @inline(__always)
    func push(reservedAnyValue value: Any) throws(JSException) {
        let exact = exactValue(value)
        switch exact {
        case .number(let number): duk_push_number(ctx, number)
        case .boolean(let flag): duk_push_boolean(ctx, flag ? 1 : 0)
        case .jsValue(let jsValue): try push(reserved: jsValue)
        case .string, .other: try push(exact, of: value)
        }
    }

    /// `push(anyValue:)` once `value` has been read as `exact`. Scalars need no depth check:
    /// they do not nest.
    @inline(__always)
    func push(_ exact: ExactValue, of value: Any, depth: Int = 0) throws(JSException) {
        try reserve(4)
        switch exact {
        case .number(let number): duk_push_number(ctx, number)
        case .boolean(let flag): duk_push_boolean(ctx, flag ? 1 : 0)
        case .string(let string): try pushString(string)
        case .jsValue(let jsValue): try push(jsValue)
        case .other: try pushConverting(value, depth: depth)
        }
    }

    /// Everything but the exact fast paths of `push(anyValue:)`.
    private func pushConverting(_ value: Any, depth: Int) throws(JSException) {
        try checkConversionDepth(depth, limit: ConversionLimits.maximumDepth)
        // IMPLEMENTATION NOTE: the order matters for speed and for correctness. On Linux a
        // conditional cast of a bridgeable value (Array, Dictionary, String, numbers) to a class
        // type first bridges it to its Foundation class (a 10,000-entry dictionary becomes an
        // NSDictionary just to be tested), and an NSNumber casts to Bool, Int and Double. So:
        // exact-type fast paths first, class casts only for class instances, then value types.
        if let optional = value as? any OptionalProtocol {
            // `Optional<Optional<Int>>.some(.none)` is nil; a wrapped value is pushed as itself.
            guard let wrapped = optional.flattened else {
                duk_push_undefined(ctx)
                return
            }
            try push(anyValue: wrapped, depth: depth)
            return
        }
        let dynamicType = type(of: value)
        if dynamicType is AnyClass {
            try pushClassInstance(value, depth: depth)
            return
        }
        // The commonest containers by their exact type: each cast below to a protocol
        // (`any BinaryInteger`, `any AnyElements`…) is a conformance lookup, and an array or a
        // dictionary would fail six of them first. A cast to its own exact type is a copy.
        if dynamicType == [Any].self, let array = value as? [Any] { return try pushArray(array, depth: depth) }
        if dynamicType == [String].self, let array = value as? [String] { return try pushArray(array, depth: depth) }
        if dynamicType == [String: Any].self, let dictionary = value as? [String: Any] { return try pushObject(dictionary, depth: depth) }
        if dynamicType == [String: String].self, let dictionary = value as? [String: String] {
            return try pushObject(dictionary, depth: depth)
        }
        switch value {
        case let integer as any BinaryInteger: duk_push_number(ctx, Double(integer))
        case let number as any BinaryFloatingPoint: duk_push_number(ctx, Double(number))
        case let substring as Substring: try pushString(String(substring))
        case let character as Character: try pushString(String(character))
        case let date as Date: try check(cduk_ppush_date(ctx, Self.javaScriptTime(of: date)))
        case let data as Data: try pushBytes(data)
        // Exactly [UInt8]: an empty [Any], or one of NSNumbers, also casts to [UInt8].
        case let bytes as [UInt8] where type(of: value) == [UInt8].self: try pushBytes(bytes)
        case let array as any AnyElements: try pushArray(array, depth: depth)
        case let dictionary as any StringKeyedEntries: try pushObject(dictionary, depth: depth)
        case let dictionary as [AnyHashable: Any]: try pushStringKeyed(dictionary, depth: depth)
        case let exportedClass as any JSExport.Type:
            try pushConstructor(of: exportedClass.jsClass)
        case let convertible as any JSValueConvertible:
            try push(convertible.jsValue(in: context))
        default:
            if Self.isFunctionType(type(of: value)) {
                throw makeError(.typeError, """
                    cannot convert a Swift function of type \(type(of: value)) to JavaScript: wrap Swift \
                    closures with JSValue(newFunctionIn:)
                    """)
            }
            throw makeError(.typeError, "cannot convert a Swift value of type \(type(of: value)) to JavaScript")
        }
    }

    /// Stops a conversion nested past `limit` levels, or one that reaches the native stack guard
    /// (then with the engine's own message, as when JavaScript → Swift → JavaScript recursion
    /// reaches it inside the engine).
    @inline(__always)
    func checkConversionDepth(_ depth: Int, limit: Int) throws(JSException) {
        if depth > limit {
            throw makeError(.rangeError, "value nested too deeply to convert (limit \(ConversionLimits.maximumDepth))")
        }
        if cduk_native_stack_low() != 0 {
            throw makeError(.rangeError, "C stack depth limit")
        }
    }

    /// A Date as JavaScript's time value: whole milliseconds since 1970, sub-milliseconds dropped.
    ///
    /// Not just `floor(seconds * 1000)`: a Date holds seconds since 2001 as a Double, so a date
    /// made from an exact millisecond count reads back a few nanoseconds off, and flooring
    /// `-4237368.771 * 1000 = -4237368771.0000005` lost a whole millisecond (found by
    /// fuzz-convert). A value within a microsecond of a whole millisecond is that millisecond.
    static func javaScriptTime(of date: Date) -> Double {
        let milliseconds = date.timeIntervalSince1970 * 1000
        let nearest = milliseconds.rounded()
        return abs(milliseconds - nearest) <= 0.001 ? nearest : milliseconds.rounded(.down)
    }

    /// Class instances other than JSValue (an exact type): Foundation objects (NSNumber, NSNull,
    /// NSString, NSArray, NSDictionary, NSDate, NSData), managed values, exported objects,
    /// convertible classes.
    private func pushClassInstance(_ object: Any, depth: Int) throws(JSException) {
        switch object {
        case let number as NSNumber:
            if number.isBoolean {
                duk_push_boolean(ctx, number.boolValue ? 1 : 0)
            } else {
                duk_push_number(ctx, number.doubleValue)
            }
        case is NSNull: duk_push_null(ctx)
        case let managed as JSManagedValue:
            if let value = managed.value { try push(value) } else { duk_push_undefined(ctx) }
        case let exported as any JSExport:
            try pushWrapper(for: exported, of: type(of: exported).jsClass)
        case let convertible as any JSValueConvertible:
            try push(convertible.jsValue(in: context))
        case let string as NSString: try pushString(String(string))
        case let date as NSDate: try push(anyValue: date as Date, depth: depth)
        case let data as NSData: try pushBytes(data as Data)
        case let array as NSArray: try pushArray(array.map { $0 }, depth: depth)
        case let dictionary as NSDictionary: try pushStringKeyed(dictionary as? [AnyHashable: Any] ?? [:], depth: depth)
        default:
            throw makeError(.typeError, "cannot convert a Swift value of type \(type(of: object)) to JavaScript")
        }
    }

    /// JavaScriptCore copies only the entries whose keys are strings.
    private func pushStringKeyed(_ dictionary: [AnyHashable: Any], depth: Int) throws(JSException) {
        var strings: [String: Any] = [:]
        for (key, element) in dictionary {
            if let key = key.base as? String { strings[key] = element }
        }
        try pushObject(strings, depth: depth)
    }

    private func pushBytes<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSException) {
        try pushUint8Array(joining: CollectionOfOne(bytes))
    }

    /// [..] -> [.. Uint8Array of the chunks' bytes, one after another]. Each byte is copied once,
    /// into the array's own storage. A chunk that yields fewer bytes than its `count` said
    /// leaves zeros, and bytes past the counted total are dropped: no byte of the array is ever
    /// left unwritten.
    func pushUint8Array<Chunks: Collection>(joining chunks: Chunks) throws(JSException) where Chunks.Element: Collection<UInt8> {
        var total = 0
        for chunk in chunks {
            let (sum, overflow) = total.addingReportingOverflow(chunk.count)
            guard !overflow, sum >= 0, sum <= Self.largestByteArray else {
                throw makeError(.rangeError, "byte array too long to create (more than \(Self.largestByteArray) bytes)")
            }
            total = sum
        }
        var start: UnsafeMutableRawPointer?
        try check(cduk_ppush_new_uint8array(ctx, total, &start))
        guard let start, total > 0 else { return }
        let storage = UnsafeMutableRawBufferPointer(start: start, count: total)
        var written = 0
        for chunk in chunks where written < total {
            let room = UnsafeMutableRawBufferPointer(rebasing: storage[written...])
            let copied = chunk.withContiguousStorageIfAvailable { bytes in
                let count = min(bytes.count, room.count)
                room.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<count])))
                return count
            }
            if let copied {
                written += copied
            } else {
                for byte in chunk.prefix(room.count) {
                    storage[written] = byte
                    written += 1
                }
            }
        }
        if written < total {
            UnsafeMutableRawBufferPointer(rebasing: storage[written...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    /// The longest byte array `pushUint8Array(joining:)` creates (a typed array's length is a
    /// 32-bit quantity in Duktape).
    static let largestByteArray = 0x7fff_fffe

    private func pushArray(_ array: any AnyElements, depth: Int) throws(JSException) {
        try check(cduk_ppush_new(ctx, CDUK_NEW_ARRAY))
        let target = duk_get_top_index(ctx)
        try array.forEachElement { index, element throws(JSException) in
            try reserve(3)
            duk_dup(ctx, target)
            duk_push_number(ctx, Double(index))
            try pushElement(element, depth: depth)
            try defineElement()
        }
    }

    private func pushObject(_ dictionary: any StringKeyedEntries, depth: Int) throws(JSException) {
        try check(cduk_ppush_new(ctx, CDUK_NEW_OBJECT))
        let target = duk_get_top_index(ctx)
        try dictionary.forEachEntry { key, element throws(JSException) in
            try reserve(3)
            duk_dup(ctx, target)
            do throws(JSException) {
                try push(anyValue: element, depth: depth + 1)
            } catch {
                duk_pop(ctx)
                throw error
            }
            // The key goes in with the definition: one protected call an entry, not two.
            let status = StringCoding.withEngineBytes(key) { bytes, count in
                cduk_pdef_named_value(ctx, bytes, count, UInt32(CDUK_DEFPROP_DATA))
            }
            try check(status)
            duk_pop(ctx)
        }
    }

    /// [target key value] -> []: defines an own data property, as JSON.parse and
    /// CreateDataProperty do, rather than assigning it. So a key "__proto__" is kept as data
    /// instead of replacing the prototype, and no setter a script put on `Object.prototype` or
    /// `Array.prototype` sees the converted data.
    @inline(__always)
    private func defineElement() throws(JSException) {
        try check(cduk_pdef_prop(ctx, UInt32(CDUK_DEFPROP_DATA)))
        duk_pop(ctx)
    }

    /// Pushes a container element; on failure pops the target and key already pushed for it.
    private func pushElement(_ element: Any, depth: Int) throws(JSException) {
        do {
            try push(anyValue: element, depth: depth + 1)
        } catch {
            duk_pop_2(ctx)
            throw error
        }
    }
}

extension NSNumber {
    /// True for NSNumbers made from a Bool (`NSNumber(value: true)`, `true as NSNumber`): Foundation
    /// gives those the Objective-C type encoding of BOOL, "c" (Int8 numbers report "i" on Linux).
    fileprivate var isBoolean: Bool {
        let encoding = objCType.pointee
        return encoding == CChar(UInt8(ascii: "c")) || encoding == CChar(UInt8(ascii: "B"))
    }
}

// MARK: - JavaScript → Swift (JSC's toObject table)

/// One conversion from JavaScript to Swift (`toObject()`, `toArray()`, `toDictionary()`): the
/// objects on the path being converted (cycles), the containers already converted (shared
/// sub-objects), and the work done, bounded by the VM's deadline and memory limit.
final class ConversionState {
    /// Objects being converted: one met again is a back-reference (a cycle).
    @exclusivity(unchecked) var path: [UnsafeMutableRawPointer] = []
    /// Containers converted so far, by heap address: JavaScriptCore converts each object once per
    /// conversion and shares the result, so a DAG (`x = [x, x]`, 21 levels deep: 105 KB of heap)
    /// costs its size, not 2^21 copies.
    @exclusivity(unchecked) var converted: [UnsafeMutableRawPointer: Any] = [:]
    /// Elements and entries converted so far.
    @exclusivity(unchecked) var elements = 0
    /// At most this many elements (from the memory limit: each costs Swift memory the heap's
    /// limit does not see).
    let elementBudget: Int

    init(engine: Engine) {
        elementBudget = engine.memoryLimit.map { max(4096, $0 / 8) } ?? .max
    }

    /// Counts one element; every 1,024th also checks the deadline (reading elements allocates
    /// nothing the allocator's own deadline check could refuse).
    @inline(__always)
    func count(on stack: EngineStack) throws(JSException) {
        elements += 1
        if elements & 1023 == 0 {
            if stack.context.engine.isPastDeadline {
                throw stack.makeError(.rangeError, "execution timeout")
            }
            if elements > elementBudget {
                throw stack.makeError(.rangeError, "memory limit exceeded (converting \(elements) elements)")
            }
        }
    }
}

extension EngineStack {
    /// Converts the value at `index` by JSC's toObject rules (the Porting from JavaScriptCore article's table).
    ///
    /// Cycles: an object met again while it is still being converted (a back-reference) comes
    /// back as its `JSValue`, so a cyclic graph converts to a finite Swift value and nothing is
    /// lost. Shared, non-cyclic sub-objects are converted once and shared (Swift containers are
    /// copy-on-write values: the copies share storage).
    func any(at index: Int32) throws(JSException) -> Any? {
        try any(at: index, depth: 0, state: ConversionState(engine: context.engine))
    }

    private func any(at index: Int32, depth: Int, state: ConversionState) throws(JSException) -> Any? {
        switch Int32(duk_get_type(ctx, index)) {
        case Int32(DUK_TYPE_UNDEFINED), Int32(DUK_TYPE_NONE), Int32(DUK_TYPE_POINTER): return nil
        case Int32(DUK_TYPE_NULL): return NSNull()
        case Int32(DUK_TYPE_BOOLEAN): return duk_get_boolean(ctx, index) != 0
        case Int32(DUK_TYPE_NUMBER): return NSNumber(value: duk_get_number(ctx, index))
        case Int32(DUK_TYPE_STRING):
            return duk_is_symbol(ctx, index) != 0 ? nil : string(at: index)
        default: break
        }
        let index = duk_normalize_index(ctx, index)
        switch cduk_class_of(ctx, index) {
        case CDUK_CLASS_DATE:
            return Date(timeIntervalSince1970: try number(at: index) / 1000)
        case CDUK_CLASS_UINT8ARRAY:
            var count = 0
            guard let bytes = duk_get_buffer_data(ctx, index, &count), count > 0 else { return Data() }
            return Data(bytes: bytes, count: count)
        default: break
        }
        let pointer = duk_get_heapptr(ctx, index)
        if let pointer {
            if state.path.contains(pointer) { return try value(at: index) }
            if let done = state.converted[pointer] { return done }
        }
        // Wrappers give back their Swift object, constructors their class, and a function made
        // from a Swift closure the function itself (JavaScriptCore returns the block), as a JSValue.
        if let box = EngineBox.attached(to: index, on: self) {
            if let object = box.exportedObject { return object }
            if box is HostFunction { return try value(at: index) }
        }
        try checkConversionDepth(depth, limit: ConversionLimits.maximumDepth - 1)
        if let pointer { state.path.append(pointer) }
        defer { if pointer != nil { state.path.removeLast() } }
        let result: Any =
            duk_is_array(ctx, index) != 0
            ? try array(at: index, depth: depth, state: state)
            : try dictionary(at: index, depth: depth, state: state)
        if let pointer { state.converted[pointer] = result }
        return result
    }

    /// JSC's toArray body: `length` elements, holes and undefined as NSNull.
    func array(at index: Int32) throws(JSException) -> [Any] {
        let state = ConversionState(engine: context.engine)
        if let pointer = duk_get_heapptr(ctx, index) { state.path.append(pointer) }
        return try array(at: index, depth: 0, state: state)
    }

    private func array(at index: Int32, depth: Int, state: ConversionState) throws(JSException) -> [Any] {
        let index = duk_normalize_index(ctx, index)
        try reserve(3)
        duk_dup(ctx, index)
        var length = 0.0
        try check(cduk_plength(ctx, &length))
        guard length <= ConversionLimits.maximumArrayLength else {
            throw makeError(.rangeError, "array too long to convert (length \(Int(length)))")
        }
        var result: [Any] = []
        result.reserveCapacity(Int(length))
        for element in 0..<Int(length) {
            try state.count(on: self)
            try reserve(3)
            duk_dup(ctx, index)
            duk_push_number(ctx, Double(element))
            try getProperty()
            defer { duk_pop(ctx) }
            result.append(try any(at: -1, depth: depth + 1, state: state) ?? NSNull())
        }
        return result
    }

    /// JSC's toDictionary body: every enumerable property (inherited ones included, as for-in),
    /// undefined values omitted.
    func dictionary(at index: Int32) throws(JSException) -> [String: Any] {
        let state = ConversionState(engine: context.engine)
        if let pointer = duk_get_heapptr(ctx, index) { state.path.append(pointer) }
        return try dictionary(at: index, depth: 0, state: state)
    }

    /// One protected call enumerates the object; each entry comes back to `DictionaryVisitor`.
    private func dictionary(at index: Int32, depth: Int, state: ConversionState) throws(JSException) -> [String: Any] {
        let index = duk_normalize_index(ctx, index)
        try reserve(4)
        duk_dup(ctx, index)
        let visitor = DictionaryVisitor(stack: self, depth: depth, state: state)
        // Room for the own entries up front (no rehash as it grows), up to a bound: a hint that
        // a script inflated (entries later deleted) costs at most that much.
        visitor.result.reserveCapacity(min(cduk_own_entry_bound(ctx, index), 1 << 16))
        let status = cduk_pvisit(ctx, 0, { udata, _ in
            // The visitor outlives the visit (held below): no retain and release an entry.
            Unmanaged<DictionaryVisitor>.fromOpaque(udata)._withUnsafeGuaranteedRef { $0.visit() }
        }, Unmanaged.passUnretained(visitor).toOpaque())
        if let failure = visitor.failure { throw failure }
        try check(status)
        return visitor.result
    }

    /// Converts the value on top (an entry's value) for a container being built.
    fileprivate func entryValue(depth: Int, state: ConversionState) throws(JSException) -> Any? {
        try state.count(on: self)
        return try any(at: -1, depth: depth + 1, state: state)
    }

    /// ToNumber of the value at `index` (may run valueOf; errors propagate).
    func number(at index: Int32) throws(JSException) -> Double {
        if duk_is_number(ctx, index) != 0 { return duk_get_number(ctx, index) }
        try reserve(1)
        duk_dup(ctx, index)
        var result = 0.0
        try check(cduk_pto_number(ctx, &result))
        return result
    }
}

/// Builds a dictionary from `cduk_pvisit`'s entries ([.. key value] on top of the stack).
private final class DictionaryVisitor {
    let stack: EngineStack
    let depth: Int
    let state: ConversionState
    // Unchecked: touched only by the visit in progress (no overlapping access is possible), and
    // dynamic exclusivity checks would cost more than the rest of an entry's bookkeeping.
    @exclusivity(unchecked) var result: [String: Any] = [:]
    @exclusivity(unchecked) var failure: JSException?

    init(stack: EngineStack, depth: Int, state: ConversionState) {
        self.stack = stack
        self.depth = depth
        self.state = state
    }

    /// Returns 0 to go on, 1 to stop (with `failure` set).
    func visit() -> Int32 {
        guard let key = stack.stringIfString(at: -2) else { return 0 }
        do {
            if let element = try stack.entryValue(depth: depth, state: state) {
                result[key] = consume element  // moved in: no retain and release of the value
            }
            return 0
        } catch {
            failure = error
            return 1
        }
    }
}
