import CDuktape
import Foundation

/// Access to one context's value stack. Exists only inside `JSContext.withStack`, i.e. with the
/// VM lock held and the stack top restored afterwards.
///
/// The rule that keeps longjmp out of Swift frames: methods here only call engine functions
/// that cannot throw (type checks, non-coercing getters, pops, pushes of primitives into stack
/// space reserved with `duk_check_stack`) or the protected `cduk_p*` shims, whose results are
/// checked with `check(_:)`.
///
/// `@usableFromInline`, with the few readers and pushers the typed conveniences use, so that
/// those can be `@inlinable` and specialized for the caller's types.
@usableFromInline
struct EngineStack {
    @usableFromInline let ctx: OpaquePointer
    @usableFromInline unowned(unsafe) let context: JSContext

    var vm: JSVirtualMachine { context.vm }

    /// The VM's engine, unretained (the context holds the VM, which holds it). The hot paths call
    /// it through `_withUnsafeGuaranteedRef`: through a reference, every call would retain and
    /// release it.
    var unmanagedEngine: Unmanaged<Engine> { Unmanaged.passUnretained(context.engine) }

    // MARK: - Errors

    /// Turns a shim's status into a thrown `JSException` (taking the error value off the stack).
    @inline(__always)
    func check(_ status: duk_int_t) throws(JSException) {
        if status == DUK_EXEC_SUCCESS { return }
        if status == CDUK_EXEC_NOSTACK {
            throw makeError(.rangeError, "value stack limit reached")
        }
        throw takeException()
    }

    /// How many values every entry (`JSContext.withStack`) reserves before its body runs: a
    /// body may push that many primitives (`push(reserved:)`, `push(reservedTyped:)`) without
    /// reserving again. A typed call with up to three arguments pushes five.
    static let entryReserve = 8

    /// Makes sure `count` more values can be pushed without an engine error.
    @inline(__always)
    func reserve(_ count: Int32) throws(JSException) {
        if duk_check_stack(ctx, count) == 0 {
            throw makeError(.rangeError, "value stack limit reached")
        }
    }

    /// The error constructors the library itself uses, from the realm's own built-ins.
    enum ErrorType {
        case error, typeError, rangeError

        var builtin: Builtin {
            switch self {
            case .error: .error
            case .typeError: .typeError
            case .rangeError: .rangeError
            }
        }

        var name: String {
            switch self {
            case .error: "Error"
            case .typeError: "TypeError"
            case .rangeError: "RangeError"
            }
        }
    }

    /// Built-ins of the realm the library calls (`cduk_pbuiltin`): never the globals of those
    /// names, which scripts can replace.
    enum Builtin {
        case error, typeError, rangeError, regExp, string, object, symbol

        var cValue: cduk_builtin {
            switch self {
            case .error: CDUK_BUILTIN_ERROR
            case .typeError: CDUK_BUILTIN_TYPE_ERROR
            case .rangeError: CDUK_BUILTIN_RANGE_ERROR
            case .regExp: CDUK_BUILTIN_REGEXP
            case .string: CDUK_BUILTIN_STRING
            case .object: CDUK_BUILTIN_OBJECT
            case .symbol: CDUK_BUILTIN_SYMBOL
            }
        }
    }

    /// Builds a JSException for an error of the given built-in type, created in this realm.
    /// Used for caller mistakes and host-side limits; never fails (falls back to a plain value).
    func makeError(_ type: ErrorType, _ message: String) -> JSException {
        context.engine.makingError { makeErrorUnbounded(type, message) }
    }

    private func makeErrorUnbounded(_ type: ErrorType, _ message: String) -> JSException {
        if duk_check_stack(ctx, 4) != 0,
            (try? pushString(message)) != nil
        {
            if cduk_pbuiltin(ctx, type.builtin.cValue, 1, 1) == DUK_EXEC_SUCCESS {
                return takeException()
            }
            duk_pop(ctx)
        }
        // Not even the error could be made (the heap is full): the realm's own, made in advance.
        if let limit = limitError() { return limit }
        return JSException(
            value: JSValue(context: context, storage: .undefined), name: type.name, message: message,
            stack: nil, line: nil, sourceURL: nil)
    }

    /// The realm's "RangeError: memory limit exceeded", made when the realm was installed, for
    /// failures that cannot make an error of their own; nil if even it cannot be pinned.
    func limitError() -> JSException? {
        guard duk_check_stack(ctx, 2) != 0, cduk_ppush_limit_error(ctx) == DUK_EXEC_SUCCESS else { return nil }
        defer { duk_pop(ctx) }
        guard duk_is_object(ctx, -1) != 0, let value = pinnedValue(at: -1) else { return nil }
        return JSException(value: value, name: "RangeError", message: "memory limit exceeded", stack: nil, line: nil, sourceURL: nil)
    }

    /// [] -> [the realm's limit error] (see `limitError`), for a callback's throw when nothing
    /// else can be made; false with nothing pushed if even that fails.
    func pushLimitError() -> Bool {
        guard duk_check_stack(ctx, 2) != 0 else { return false }
        return context.engine.makingError { cduk_ppush_limit_error(ctx) == DUK_EXEC_SUCCESS }
    }

    /// [args...] -> [B(args)] or [new B(args)] for the realm's built-in B.
    func callBuiltin(_ builtin: Builtin, argumentCount: Int32, construct: Bool) throws(JSException) {
        try check(cduk_pbuiltin(ctx, builtin.cValue, argumentCount, construct ? 1 : 0))
    }

    /// Pops the value on top of the stack (a thrown value) and describes it.
    ///
    /// Nothing here throws or describes a further exception: under memory exhaustion each step
    /// just yields less information, so describing an error can never recurse.
    func takeException() -> JSException {
        defer { duk_pop(ctx) }
        return context.engine.makingError { describeThrownValue() }
    }

    /// `takeException`'s reading of the thrown value on top (which stays there).
    private func describeThrownValue() -> JSException {
        let value = pinnedValue(at: -1) ?? JSValue(context: context, storage: .undefined)
        // Duktape reports a refused allocation by throwing the realm's preallocated limit error
        // (the allocator refuses the memory for Duktape's own `Error: alloc failed`, and the
        // limit error replaced Duktape's DoubleError when the realm was installed), or, when the
        // deadline refused it, as `Error: alloc failed` (with " (line N)" while compiling).
        // Callers and the exception handler get one clear RangeError instead, made now that the
        // allocator is relaxed; if even that cannot be allocated, the engine's value is kept
        // under the clear name and message.
        // The counters are read first: most exceptions are not allocation failures, and reading
        // an error's name and message is not free.
        let engine = vm.engine
        let limit = engine.deadlineReachedInEntry ? "execution timeout"
            : engine.memoryLimitReachedInEntry ? "memory limit exceeded" : nil
        let preallocated = limit != nil && cduk_is_limit_error(ctx, -1) != 0
        if let limit, preallocated || isLimitFailure(at: -1, timedOut: limit == "execution timeout") {
            // Where the script was stopped: the engine's own error recorded it; the preallocated
            // limit error has no place of its own, and the allocator recorded it instead.
            // An engine error made past the deadline may have no place either (its traceback
            // could not be allocated): the recorded site then.
            let own = duk_is_object(ctx, -1) == 0 || preallocated ? (stack: nil, line: nil, sourceURL: nil) : errorLocation(at: -1)
            let location = own.stack == nil && own.line == nil ? engine.limitSiteInEntry() ?? own : own
            let made = makeError(.rangeError, limit)
            return JSException(
                value: made.value.isUndefined ? value : made.value, name: "RangeError", message: limit,
                stack: location.stack, line: location.line, sourceURL: location.sourceURL)
        }
        guard duk_is_object(ctx, -1) != 0 else {
            return JSException(
                value: value, name: nil, message: describe(at: -1) ?? "", stack: nil, line: nil,
                sourceURL: nil)
        }
        let location = errorLocation(at: -1)
        return JSException(
            value: value,
            name: quietProperty("name", ofValueAt: -1) { $0.stringIfString(at: -1) },
            message: quietProperty("message", ofValueAt: -1) { $0.stringIfString(at: -1) }
                ?? describe(at: -1) ?? "",
            stack: location.stack, line: location.line, sourceURL: location.sourceURL,
            underlyingError: (EngineBox.attached(to: -1, on: self) as? SwiftErrorBox)?.error)
    }

    /// The stack, line and source URL of the error object at `index` (each nil when absent or
    /// empty: a script evaluated without a URL has the file name "", JavaScriptCore's absent
    /// sourceURL).
    private func errorLocation(at index: Int32) -> (stack: String?, line: Int?, sourceURL: String?) {
        let nonEmpty = { (text: String?) in text.flatMap { $0.isEmpty ? nil : $0 } }
        return (
            stack: nonEmpty(quietProperty("stack", ofValueAt: index) { $0.stringIfString(at: -1) }),
            line: quietProperty("lineNumber", ofValueAt: index) {
                duk_is_number($0.ctx, -1) != 0 ? Int(exactly: duk_get_number($0.ctx, -1)) : nil
            },
            sourceURL: nonEmpty(quietProperty("fileName", ofValueAt: index) { $0.stringIfString(at: -1) })
        )
    }

    /// Whether the thrown value at `index` is how the engine reports a limit the library set: its
    /// out-of-memory error (the allocator refused), or, past the deadline, the native recursion
    /// guard's RangeError (a regexp's backtracking stopped at the deadline).
    private func isLimitFailure(at index: Int32, timedOut: Bool) -> Bool {
        guard duk_is_object(ctx, index) != 0 else { return false }
        let name = quietProperty("name", ofValueAt: index) { $0.stringIfString(at: -1) }
        let message = quietProperty("message", ofValueAt: index) { $0.stringIfString(at: -1) } ?? ""
        return message.hasPrefix("alloc failed")
            || (timedOut && name == "RangeError" && message == "C stack depth limit")
    }


    /// `String(value)` for the value at `index` (works for symbols too), nil if it throws.
    func describe(at index: Int32) -> String? {
        guard duk_check_stack(ctx, 2) != 0 else { return nil }
        duk_dup(ctx, index)
        guard cduk_pbuiltin(ctx, CDUK_BUILTIN_STRING, 1, 0) == DUK_EXEC_SUCCESS else {
            duk_pop(ctx)
            return nil
        }
        defer { duk_pop(ctx) }
        return string(at: -1)
    }

    /// Reads `object[name]` and passes the stack to `read` with the result on top; any engine
    /// error gives nil and is dropped.
    private func quietProperty<T>(
        _ name: StaticString, ofValueAt index: Int32, _ read: (EngineStack) -> T?
    ) -> T? {
        guard duk_check_stack(ctx, 3) != 0 else { return nil }
        duk_dup(ctx, index)
        guard cduk_ppush_lstring(ctx, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self),
                                 name.utf8CodeUnitCount) == DUK_EXEC_SUCCESS else {
            duk_pop_2(ctx)
            return nil
        }
        // The shim, not `getProperty()`: its failure must be dropped, not described (which
        // would read properties of the new error, and so on).
        guard cduk_pget_prop(ctx) == DUK_EXEC_SUCCESS else {
            duk_pop(ctx)
            return nil
        }
        defer { duk_pop(ctx) }
        return read(self)
    }

    /// The value at `index` when it is a number (inlinable: a typed closure's `Double`
    /// arguments are read by it).
    @inlinable
    func number(at index: Int32) -> Double? {
        var number = 0.0
        return cduk_number_at(ctx, index, &number) != 0 ? number : nil
    }

    /// The value at `index` when it is a boolean.
    @usableFromInline
    func boolean(at index: Int32) -> Bool? {
        var flag: Int32 = 0
        return cduk_boolean_at(ctx, index, &flag) != 0 ? flag != 0 : nil
    }

    /// The string at `index` if it is a string (not a symbol).
    @usableFromInline
    func stringIfString(at index: Int32) -> String? {
        duk_is_string(ctx, index) != 0 && duk_is_symbol(ctx, index) == 0 ? string(at: index) : nil
    }

    // MARK: - Pushing

    func pushString(_ string: String) throws(JSException) {
        let status = StringCoding.withEngineBytes(string) { bytes, count in
            cduk_ppush_lstring(ctx, bytes, count)
        }
        try check(status)
    }

    /// [..] -> [.. function]: the native function `helper` (`JSContext.nativeHelper`).
    func pushNativeHelper(_ helper: NativeHelper) throws(JSException) {
        try reserve(1)
        switch helper {
        case .plainDataCopy: cduk_push_native_helper(ctx, CDUK_HELPER_PLAIN_COPY)
        case .ownSlot: cduk_push_native_helper(ctx, CDUK_HELPER_OWN_SLOT)
        }
    }

    /// [..] -> [.. symbol]: Duktape's hidden symbol `name` (the byte 0xFF, then `name` in
    /// UTF-8), pushed in a protected call as every string is.
    func pushHiddenSymbol(_ name: String) throws(JSException) {
        let bytes = [UInt8(0xFF)] + Array(name.utf8)
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cduk_ppush_lstring(ctx, $0.baseAddress, $0.count) }
        }
        try check(status)
    }

    /// Defines the global object's own property under the hidden key `name` as `value`
    /// (writable, configurable), whatever a script did to the global object (frozen, sealed).
    func setGlobalHiddenSlot(_ name: String, to value: JSValue) throws(JSException) {
        try reserve(2)
        duk_push_global_object(ctx)
        try push(reserved: value)
        let key = [UInt8(0xFF)] + Array(name.utf8)
        let status = key.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cduk_pdef_named_value(ctx, $0.baseAddress, $0.count, UInt32(CDUK_DEFPROP_METHOD)) }
        }
        try check(status)
        duk_pop(ctx)
    }

    /// Pushes a JSValue, refusing values of another VM.
    func push(_ value: JSValue) throws(JSException) {
        try reserve(1)
        try push(reserved: value)
    }

    /// Pushes a value of this stack's own context. Only for a `JSValue` method's `self` inside
    /// its owner's entry (`owner.withStack`, `owner.reporting`): there the VM check of
    /// `push(reserved:)` would compare the owner's engine with itself. Any other value, and
    /// every argument, goes through `push(_:)`: a foreign VM's pointer pushed here would corrupt
    /// this heap.
    @inline(__always)
    func push(own value: JSValue) throws(JSException) {
        try reserve(1)
        push(reservedOwn: value)
    }

    /// `push(own:)` into a slot the caller reserved.
    @inline(__always)
    func push(reservedOwn value: JSValue) {
        assert(value.owner === context, "a value pushed as its own context's belongs to another")
        push(reservedStorage: value.storage)
    }

    /// `push(_:)` into a slot the caller reserved.
    func push(reserved value: JSValue) throws(JSException) {
        guard Unmanaged.passUnretained(value.owner.engine).toOpaque() == unmanagedEngine.toOpaque() else {
            throw makeError(.typeError, "a JSValue from a different JSVirtualMachine cannot be used here")
        }
        push(reservedStorage: value.storage)
    }

    /// Pushes a value of this VM held by Swift.
    @inline(__always)
    func push(storage: JSValue.Storage) throws(JSException) {
        try reserve(1)
        push(reservedStorage: storage)
    }

    /// `push(storage:)` into a slot the caller reserved.
    @inline(__always)
    func push(reservedStorage storage: JSValue.Storage) {
        switch storage {
        case .undefined: duk_push_undefined(ctx)
        case .null: duk_push_null(ctx)
        case .boolean(let flag): duk_push_boolean(ctx, flag ? 1 : 0)
        case .number(let number): duk_push_number(ctx, number)
        case .reference(_, let pointer): duk_push_heapptr(ctx, pointer)
        }
    }

    /// Pushes a property key: a `String` through the interned-key cache, anything else converted
    /// like a value (numbers stay numbers, the engine's array fast path; JavaScript then applies
    /// ToPropertyKey).
    func pushKey(_ key: Any?) throws(JSException) {
        guard let key else { return try push(any: nil) }
        let exact = exactValue(key)
        if case .string(let name) = exact {
            try pushKey(name)
        } else {
            try push(exact, of: key)
        }
    }

    /// Pushes a string property key, through the VM's cache of interned keys.
    func pushKey(_ name: String) throws(JSException) {
        try reserve(1)
        if let interned = unmanagedEngine._withUnsafeGuaranteedRef({ $0.internedKey(name) }) {
            duk_push_heapptr(ctx, interned)
            return
        }
        try pushString(name)
        vm.engine.cacheInternedKey(name, at: -1, of: ctx)
    }

    // MARK: - Reading

    /// The string at `index` (which must be a string), decoded from the engine's form. What the
    /// decoding learns of a longer string (valid UTF-8, all ASCII) is recorded on it, so that the
    /// next read of the same string copies it without a scan.
    func string(at index: Int32) -> String {
        var length = 0
        var known: Int32 = 0
        guard let bytes = cduk_string_bytes(ctx, index, &length, &known) else { return "" }
        var learned: Int32 = 0
        let string = StringCoding.string(fromEngineBytes: UnsafeRawBufferPointer(start: bytes, count: length), known: known, learned: &learned)
        if learned != 0 { cduk_string_mark(ctx, index, learned) }
        return string
    }

    /// Wraps the value at `index` as a JSValue: primitives inline, everything else pinned.
    @usableFromInline
    func value(at index: Int32) throws(JSException) -> JSValue {
        JSValue(context: context, storage: try storage(at: index))
    }

    /// The storage for a JSValue of the value at `index`; heap values get a registry slot that
    /// the JSValue made from it owns.
    func storage(at index: Int32) throws(JSException) -> JSValue.Storage {
        guard let storage = pinnedStorage(at: index) else {
            throw makeError(.rangeError, vm.engine.memoryLimitReachedInEntry
                ? "memory limit exceeded" : "out of memory while keeping a value for Swift")
        }
        return storage
    }

    /// `value(at:)` without the error: nil when the value cannot be pinned (memory exhausted).
    func pinnedValue(at index: Int32) -> JSValue? {
        pinnedStorage(at: index).map { JSValue(context: context, storage: $0) }
    }

    private func pinnedStorage(at index: Int32) -> JSValue.Storage? {
        var scalar = 0.0
        switch cduk_type_at(ctx, index, &scalar) {
        case Int32(DUK_TYPE_NULL): return .null
        case Int32(DUK_TYPE_BOOLEAN): return .boolean(scalar != 0)
        case Int32(DUK_TYPE_NUMBER): return .number(scalar)
        case Int32(DUK_TYPE_STRING), Int32(DUK_TYPE_OBJECT), Int32(DUK_TYPE_BUFFER):
            guard let pointer = duk_get_heapptr(ctx, index) else { return .undefined }
            if pointer == context.globalPointer { return .reference(slot: Engine.contextOwnedSlot, pointer: pointer) }
            guard let slot = unmanagedEngine._withUnsafeGuaranteedRef({ $0.pin(valueAt: index, of: ctx) }) else { return nil }
            return .reference(slot: slot, pointer: pointer)
        default:
            return .undefined
        }
    }

    /// [..] -> [.. global object]
    func pushGlobalObject() throws(JSException) {
        try reserve(1)
        duk_push_global_object(ctx)
    }

    /// [..] -> [.. object] for a heap object kept alive by Swift (a watched or pinned object).
    func pushHeapObject(_ pointer: UnsafeMutableRawPointer) throws(JSException) {
        try reserve(1)
        duk_push_heapptr(ctx, pointer)
    }

    /// [..] -> [.. {}]
    func pushNewObject() throws(JSException) {
        try check(cduk_ppush_new(ctx, CDUK_NEW_OBJECT))
    }

    /// [..] -> [.. []]
    func pushNewArray() throws(JSException) {
        try check(cduk_ppush_new(ctx, CDUK_NEW_ARRAY))
    }

    // MARK: - Inspecting (never throw, never run code)

    func isObject(at index: Int32) -> Bool { duk_is_object(ctx, index) != 0 }
    func isArray(at index: Int32) -> Bool { duk_is_array(ctx, index) != 0 }
    func isSymbol(at index: Int32) -> Bool { duk_is_symbol(ctx, index) != 0 }
    func isString(at index: Int32) -> Bool { duk_is_string(ctx, index) != 0 && duk_is_symbol(ctx, index) == 0 }
    func isDate(at index: Int32) -> Bool { cduk_class_of(ctx, index) == CDUK_CLASS_DATE }

    /// ToBoolean of the value at `index` (no side effects, never throws).
    func truthiness(at index: Int32) -> Bool { duk_to_boolean(ctx, index) != 0 }

    /// `===` of two values on the stack.
    func strictlyEqual(_ first: Int32, _ second: Int32) -> Bool { duk_strict_equals(ctx, first, second) != 0 }

    // MARK: - Operations that may run script code

    /// [.. a b] -> [..]: `a == b` (may run valueOf/toString).
    func looselyEqual() throws(JSException) -> Bool {
        try flag { cduk_pequals(ctx, $0) }
    }

    /// [.. a b] -> [..]: `a instanceof b`.
    func instanceOf() throws(JSException) -> Bool {
        try flag { cduk_pinstanceof(ctx, $0) }
    }

    /// Runs a shim that answers yes or no through its out-parameter.
    private func flag(_ shim: (UnsafeMutablePointer<Int32>) -> duk_int_t) throws(JSException) -> Bool {
        var answer: Int32 = 0
        try check(shim(&answer))
        return answer != 0
    }

    /// ToString of the value at `index` (may run toString; symbols throw a TypeError).
    func toString(at index: Int32) throws(JSException) -> String {
        if let string = stringIfString(at: index) { return string }
        try reserve(1)
        duk_dup(ctx, index)
        try check(cduk_pto_string(ctx))
        defer { duk_pop(ctx) }
        return string(at: -1)
    }

    /// [.. value] -> [.. Object(value)] (primitives boxed, objects as they are).
    func convertToObject() throws(JSException) {
        if !isObject(at: -1) {
            try callBuiltin(.object, argumentCount: 1, construct: false)
        }
    }

    /// [.. obj] -> [.. obj]: watches the object on top for its finalization (JSManagedValue);
    /// returns its heap address, or nil (nothing done) for a primitive or a Proxy, whose death
    /// Duktape cannot report.
    func watchObject(at index: Int32) throws(JSException) -> UnsafeMutableRawPointer? {
        guard index == -1, isObject(at: -1), cduk_is_proxy(ctx, -1) == 0, let pointer = duk_get_heapptr(ctx, -1)
        else { return nil }
        try check(cduk_pwatch(ctx))
        return pointer
    }

    /// [..] -> [.. completion value]: compiles and runs `source` in this context's global scope
    /// (as program code when `asProgram`: its result is then undefined).
    func evaluate(_ source: String, sourceURL: String?, asProgram: Bool = false) throws(JSException) {
        try compileLowering(source, sourceURL: sourceURL, asProgram: asProgram)
        try callAsGlobalCode()
    }

    /// [..] -> [.. result]: `source` compiled as ES5, never lowered, and run as global code (the
    /// library's own scripts, which must run on the bare engine).
    func evaluateES5(_ source: String, sourceURL: String?) throws(JSException) {
        try check(compile(source, sourceURL: sourceURL, asProgram: false))
        try callAsGlobalCode()
    }

    /// [.. function] -> [.. result]: runs a compiled script with the global object as `this`.
    func callAsGlobalCode() throws(JSException) {
        try reserve(2)
        duk_push_global_object(ctx)
        try check(cduk_pcall(ctx, 0, 0))
    }

    /// [..] -> [.. function]: `source` compiled as global code.
    ///
    /// Source Duktape cannot parse (a SyntaxError from the compiler) is lowered to ES5 by the
    /// transpiler (`JSTranspiler`) and compiled again: ES2015+ syntax runs, and a real syntax
    /// error is reported by the transpiler, at the original's line and column. Source Duktape
    /// parses with ES5's reading of `const` or `__proto__:` is lowered too.
    func compileLowering(_ source: String, sourceURL: String?, asProgram: Bool = false) throws(JSException) {
        installLoweringHelpersIfNamed(source)
        var status = compile(source, sourceURL: sourceURL, asProgram: asProgram)
        if status == DUK_EXEC_ERROR, context.engine.lowersModernSyntax {
            let original = takeException()
            guard original.name == "SyntaxError" else { throw original }
            let lowered: Transpiler.Lowered
            do {
                lowered = try lower(source, sourceURL: sourceURL)
            } catch {
                throw syntaxError(for: error, original: original, sourceURL: sourceURL)
            }
            try installLoweringHelpers(for: lowered.code)
            status = compile(lowered.code, sourceURL: sourceURL, asProgram: asProgram)
        } else if status == DUK_EXEC_SUCCESS, context.engine.lowersModernSyntax,
            Transpiler.needsLoweringThoughParsed(source), JSTranspiler.isAvailable
        {
            // Parsed, but with ES5's reading of `const` or `__proto__:`: lowered for ES2015's
            // (without a compiler, Duktape's reading stands, as before).
            if let lowered = try? lower(source, sourceURL: sourceURL) {
                duk_pop(ctx)
                try installLoweringHelpers(for: lowered.code)
                status = compile(lowered.code, sourceURL: sourceURL, asProgram: asProgram)
            }
        }
        try check(status)
    }

    /// Defines this context's `__duktapeLowering` (the helpers lowered code calls: see
    /// transpiler.js) when `code` calls them and the context has none yet.
    private func installLoweringHelpers(for code: String) throws(JSException) {
        if Transpiler.namesLoweringHelpers(code) { try installLoweringHelpers() }
    }

    /// ES5 source that calls the helpers as lowered code does (`JSTranspiler.transpile`'s output,
    /// evaluated as it is) gets them too, when they can be had: if not (no compiler, or a script
    /// of this context took the name), the source runs as written.
    private func installLoweringHelpersIfNamed(_ source: String) {
        guard context.engine.lowersModernSyntax, Transpiler.namesLoweringHelpers(source) else { return }
        _ = try? installLoweringHelpers()
    }

    /// [..] -> [..]: defines this context's `__duktapeLowering` unless it has it: the helpers'
    /// library compiled (as typescript-helpers.js) and called, its result frozen. A TypeError
    /// when a script of the context took the name; an Error when there is no library.
    func installLoweringHelpers() throws(JSException) {
        guard cduk_has_lowering_helpers(ctx) == 0 else { return }
        let engine = context.engine
        let library: String
        do {
            library = try engine.outsideDeadline { () throws(JSTranspiler.Failure) -> String in
                try Transpiler.shared.helperLibrary(within: engine.timeLimit)
            }
        } catch {
            throw makeError(.error, "the helpers of lowered (ES2015+) code are unavailable: \(error)")
        }
        try check(compile(library, sourceURL: "duktapecore:typescript-helpers.js", asProgram: false))
        try callAsGlobalCode()  // [.. library function]
        try reserve(1)
        duk_push_undefined(ctx)
        try check(cduk_pcall(ctx, 0, 0))  // [.. helpers]
        try check(cduk_pinstall_lowering_helpers(ctx))
    }

    /// `source` lowered by the shared transpiler, within this VM's time limit; the time it takes
    /// (waiting for the compiler included) does not count against the entry's deadline.
    private func lower(_ source: String, sourceURL: String?) throws(JSTranspiler.Failure) -> Transpiler.Lowered {
        let engine = context.engine
        return try engine.outsideDeadline { () throws(JSTranspiler.Failure) -> Transpiler.Lowered in
            try Transpiler.shared.lowering(source, fileName: sourceURL, within: engine.timeLimit)
        }
    }

    /// [..] -> [.. program] and true when `source` is one parenthesized function expression and
    /// nothing else (a module's text placed in a wrapper function did not close it early); false
    /// with nothing pushed otherwise. One compile: Duktape's bytecode of the program is read (it
    /// may only make one closure and return it); lowered source is checked on TypeScript's tree.
    func compileFunctionExpression(_ source: String, sourceURL: String?) throws(JSException) -> Bool {
        installLoweringHelpersIfNamed(source)
        var status = compile(source, sourceURL: sourceURL, asProgram: false)
        let lowerable = context.engine.lowersModernSyntax
        var lowered: Transpiler.Lowered?
        if status == DUK_EXEC_ERROR, lowerable {
            let original = takeException()
            guard original.name == "SyntaxError" else { throw original }
            do {
                lowered = try lower(source, sourceURL: sourceURL)
            } catch {
                throw syntaxError(for: error, original: original, sourceURL: sourceURL)
            }
        } else if status == DUK_EXEC_SUCCESS, lowerable, Transpiler.needsLoweringThoughParsed(source), JSTranspiler.isAvailable,
            let parsedAgain = try? lower(source, sourceURL: sourceURL)
        {
            duk_pop(ctx)
            lowered = parsedAgain
        }
        if let lowered {
            guard lowered.isOneFunction else { return false }
            try installLoweringHelpers(for: lowered.code)
            status = compile(lowered.code, sourceURL: sourceURL, asProgram: false)
            try check(status)
            return true
        }
        try check(status)
        var functions: Int32 = 0
        var opcodes = [UInt8](repeating: 0, count: 16)
        let count = cduk_program_opcodes(ctx, -1, &functions, &opcodes, Int32(opcodes.count))
        // `(function (...) {...})` compiles to LDUNDEF, CLOSURE, LDREG, RETREG: anything else
        // (a call, a property access, a second closure) is code outside the function.
        let allowed: Set<UInt8> = [0, 1, 7, 152, 157, 158, 205]  // LDREG STREG LDUNDEF CLOSURE RETREG RETUNDEF NOP
        let closures = opcodes.prefix(Int(max(count, 0))).filter { $0 == 152 }.count
        guard functions == 1, count > 0, count <= Int32(opcodes.count), closures == 1,
            opcodes.prefix(Int(count)).allSatisfy(allowed.contains)
        else {
            duk_pop(ctx)
            return false
        }
        return true
    }

    /// [..] -> [.. function]: a script's cached bytecode (`JSScript`), with the lowering's helpers
    /// defined first when it calls them.
    func loadScript(_ bytecode: [UInt8]) throws(JSException) {
        if Transpiler.bytecodeCallsHelpers(bytecode) { try installLoweringHelpers() }
        try loadFunction(bytecode)
    }

    /// [.. function] -> [..]: the function's bytecode (duk_dump_function).
    func dumpFunction() throws(JSException) -> [UInt8] {
        try check(cduk_pdump_function(ctx))
        defer { duk_pop(ctx) }
        var size = 0
        guard let data = duk_get_buffer_data(ctx, -1, &size) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// [..] -> [.. function]: a function from bytecode `dumpFunction` made (checked first: see
    /// BytecodeImage).
    func loadFunction(_ bytecode: [UInt8]) throws(JSException) {
        let status = bytecode.withUnsafeBytes { raw in cduk_pload_function(ctx, raw.baseAddress, raw.count) }
        try check(status)
    }

    /// [..] -> [.. function]: `source` compiled as global code (with eval semantics, so that the
    /// completion value of its last statement is the result); the status of cduk_pcompile_eval.
    private func compile(_ source: String, sourceURL: String?, asProgram: Bool) -> duk_int_t {
        StringCoding.withEngineBytes(source) { sourceBytes, sourceCount in
            guard let sourceURL else {
                return cduk_pcompile_eval(ctx, sourceBytes, sourceCount, nil, 0, asProgram ? 1 : 0)
            }
            return StringCoding.withEngineBytes(sourceURL) { urlBytes, urlCount in
                cduk_pcompile_eval(ctx, sourceBytes, sourceCount, urlBytes, urlCount, asProgram ? 1 : 0)
            }
        }
    }

    /// The SyntaxError for a source the transpiler could not lower: its message at the original's
    /// line and column; or, with no transpiler, Duktape's own message and what to install.
    private func syntaxError(for failure: JSTranspiler.Failure, original: JSException, sourceURL: String?) -> JSException {
        let message: String
        let line: Int?
        switch failure {
        case .syntax(_, let at, _, _):
            message = failure.description
            line = at
        case .unavailable(let reason):
            message = "\(original.message) (\(reason))"
            line = original.line
        case .failed(let reason):
            message = "\(original.message) (\(reason))"
            line = original.line
        }
        return context.engine.makingError { () -> JSException in
            guard duk_check_stack(ctx, 6) != 0, (try? pushString(message)) != nil else { return original }
            guard cduk_pbuiltin(ctx, CDUK_BUILTIN_SYNTAX_ERROR, 1, 1) == DUK_EXEC_SUCCESS else {
                duk_pop(ctx)
                return original
            }
            // [error] -> [error]: putProperty takes [error key value] (a copy of the error).
            func put(_ key: String, _ pushValue: () throws(JSException) -> Void) {
                duk_dup(ctx, -1)
                do {
                    try pushString(key)
                } catch {
                    duk_pop(ctx)
                    return
                }
                do {
                    try pushValue()
                } catch {
                    duk_pop_2(ctx)
                    return
                }
                _ = try? putProperty()
            }
            if let line {
                put("lineNumber") { () throws(JSException) in duk_push_int(ctx, Int32(clamping: line)) }
            }
            if let sourceURL {
                put("fileName") { () throws(JSException) in try pushString(sourceURL) }
            }
            return takeException()
        }
    }

    // MARK: - Properties

    /// [.. obj key] -> [.. obj[key]]: the one property read (the fast path for an own data
    /// property of an ordinary object is inside the shim).
    @inline(__always)
    func getProperty() throws(JSException) {
        try check(cduk_pget_prop(ctx))
    }

    /// [.. obj key value] -> [..]: `obj[key] = value`, non-strict (a read-only property ignores
    /// the write, as JSObjectSetProperty does).
    @inline(__always)
    func putProperty() throws(JSException) {
        try check(cduk_pput_prop(ctx))
    }

    /// [.. obj key] -> [..]: `delete obj[key]`, non-strict; false for a non-configurable property.
    func deleteProperty() throws(JSException) -> Bool {
        try flag { cduk_pdel_prop(ctx, $0) }
    }

    /// [.. obj key] -> [..]: `key in obj`.
    func hasProperty() throws(JSException) -> Bool {
        try flag { cduk_phas_prop(ctx, $0) }
    }

    /// [.. obj key descriptor] -> [..]: `Object.defineProperty` as the realm's built-in is,
    /// whatever a script did to the global one (a pending built-in is made first).
    func defineProperty() throws(JSException) {
        try check(cduk_pdefine_property(ctx))
    }

    /// [..] -> [.. obj[key]] for the value at `index`.
    func getProperty(_ key: String, ofValueAt index: Int32) throws(JSException) {
        let object = duk_normalize_index(ctx, index)
        try reserve(2)
        duk_dup(ctx, object)
        do {
            try pushKey(key)
        } catch {
            duk_pop(ctx)
            throw error
        }
        try getProperty()
    }

    /// [.. function this] -> [.. result]: calls the function with `this` and the
    /// `argumentCount` values `pushArguments` pushes into room the caller reserved (each exactly
    /// one, checked in debug builds), or constructs with it. On a failure the entry's end
    /// restores the stack. (The JavaScriptCore spellings' and the typed calls' path.)
    @inline(__always)
    func call(argumentCount: Int32, construct: Bool, pushing pushArguments: () throws(JSException) -> Void) throws(JSException) {
        #if DEBUG
        let base = duk_get_top(ctx)
        #endif
        try pushArguments()
        #if DEBUG
        assert(duk_get_top(ctx) == base + argumentCount, "an argument pushed other than one value")
        #endif
        try check(cduk_pcall(ctx, argumentCount, construct ? 1 : 0))
    }

    /// [.. obj] -> [.. obj[name] obj]: a method and its `this`, in room the caller reserved
    /// (three slots while the key is pushed).
    func replaceWithMethod(_ name: String) throws(JSException) {
        duk_dup_top(ctx)
        try pushKey(name)
        try getProperty()
        duk_swap_top(ctx, -2)
    }

    /// [..] -> [.. global object], into a slot the caller reserved.
    @inline(__always)
    func pushReservedGlobalObject() {
        duk_push_global_object(ctx)
    }

    /// [.. function] -> [.. result]: calls the function on top with `this` at `this` (or the
    /// global object when nil) and the arguments `pushArguments` pushes, or constructs with it.
    func call(
        thisAt this: Int32?, construct: Bool, pushingArguments pushArguments: () throws(JSException) -> Void
    ) throws(JSException) {
        let this = this.map { duk_normalize_index(ctx, $0) }
        try reserve(1)
        if let this { duk_dup(ctx, this) } else { duk_push_global_object(ctx) }
        let base = duk_get_top(ctx)
        do {
            try pushArguments()
        } catch {
            duk_set_top(ctx, base - 1)
            throw error
        }
        try check(cduk_pcall(ctx, duk_get_top(ctx) - base, construct ? 1 : 0))
    }
}
