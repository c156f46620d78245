import CDuktape

/// One JS → Swift callback in progress on this thread: what `JSContext.current()` and friends
/// report. It lives on the Swift stack of `HostFunction.invoke` (no allocation per call); the
/// engine's per-thread current-frame pointer points at it while the body runs, and frames form a
/// stack through `previous`.
///
/// `this`, `callee` and `arguments` are made on first use: most callbacks never ask, and making
/// them pins values. They read the engine's current activation, which is this frame's whenever
/// code can ask (a nested callback's frame is innermost while it runs). What was made is kept
/// in a side object, so that the frame itself is plain data: a call that never asks pays
/// nothing to end it. Whoever makes a frame calls `end()` when the callback returns.
struct CallbackFrame {
    /// Unowned: the context is running this call, so something holds it for the call's length.
    unowned(unsafe) let context: JSContext
    let ctx: OpaquePointer
    let isConstruct: Bool
    /// How many arguments the call has: they are the callback's stack frame, indices 0..<count.
    let argumentCount: Int32
    let previous: UnsafeMutableRawPointer?
    /// Retained while set; released by `end()`.
    private var made: Unmanaged<MadeValues>?

    private final class MadeValues {
        var arguments: [JSValue]?
        var this: JSValue??
        var callee: JSValue??
    }

    init(context: JSContext, ctx: OpaquePointer, isConstruct: Bool, argumentCount: Int32) {
        self.context = context
        self.ctx = ctx
        self.isConstruct = isConstruct
        self.argumentCount = argumentCount
        self.previous = cduk_current_frame()
    }

    /// A frame for a callback that no JavaScript call made (a promise executor run from Swift):
    /// its `this` and arguments are given, its callee is nil.
    init(context: JSContext, this: JSValue, arguments: [JSValue]) {
        self.init(context: context, ctx: context.ctx, isConstruct: false, argumentCount: 0)
        let values = madeValues()
        values.this = .some(this)
        values.callee = .some(nil)
        values.arguments = arguments
    }

    /// Releases what the frame made. The frame is not used after.
    mutating func end() {
        made?.release()
        made = nil
    }

    private mutating func madeValues() -> MadeValues {
        if let made { return made.takeUnretainedValue() }
        let values = MadeValues()
        made = Unmanaged.passRetained(values)
        return values
    }

    /// Argument `index` as a JSValue (undefined past the end), read from the call's frame.
    func argument(_ index: Int) -> JSValue {
        guard index < Int(argumentCount), let value = EngineStack(ctx: ctx, context: context).pinnedValue(at: Int32(index))
        else { return JSValue(context: context, storage: .undefined) }
        return value
    }

    /// How many arguments `arguments` has, without making them.
    var argumentTotal: Int {
        made?.takeUnretainedValue().arguments?.count ?? Int(argumentCount)
    }

    /// Every argument, kept for the next ask (`currentArguments()`).
    var arguments: [JSValue] {
        mutating get {
            if let made = made?.takeUnretainedValue().arguments { return made }
            let made = makeArguments()
            madeValues().arguments = made
            return made
        }
    }

    /// Every argument, made anew (an untyped closure's, made once per call).
    func makeArguments() -> [JSValue] {
        var made: [JSValue] = []
        made.reserveCapacity(Int(argumentCount))
        for index in 0..<Int(argumentCount) { made.append(argument(index)) }
        return made
    }

    /// The call's `this`, kept for the next ask (`currentThis()`).
    var this: JSValue? {
        mutating get {
            if let made = made?.takeUnretainedValue().this { return made }
            let made = makeThis()
            madeValues().this = .some(made)
            return made
        }
    }

    /// The call's `this`, made anew: nil for `new`; the global object when the caller passed
    /// undefined or null (Duktape/C functions are strict; JavaScriptCore hands callbacks the
    /// global object).
    func makeThis() -> JSValue? {
        isConstruct ? nil : pinning {
            duk_push_this(ctx)
            if duk_is_undefined(ctx, -1) != 0 || duk_is_null(ctx, -1) != 0 {
                duk_pop(ctx)
                duk_push_global_object(ctx)
            }
        }
    }

    /// The function being called.
    var callee: JSValue? {
        mutating get {
            if let made = made?.takeUnretainedValue().callee { return made }
            let made = pinning { duk_push_current_function(ctx) }
            madeValues().callee = .some(made)
            return made
        }
    }

    /// Pins the one value `push` leaves on the engine stack, and pops it.
    private func pinning(_ push: () -> Void) -> JSValue? {
        guard duk_check_stack(ctx, 2) != 0 else { return nil }
        push()
        defer { duk_pop(ctx) }
        return EngineStack(ctx: ctx, context: context).pinnedValue(at: -1)
    }

    /// The innermost frame of the calling thread.
    static var current: UnsafeMutablePointer<CallbackFrame>? {
        cduk_current_frame().map { $0.assumingMemoryBound(to: CallbackFrame.self) }
    }
}
