import CDuktape

/// One JS → Swift callback in progress on this thread: what `JSContext.current()` and friends
/// report. Frames form a per-thread stack through `previous`.
///
/// `this` and `callee` are made on first use: most callbacks never ask, and making them pins a
/// value. They read the engine's current activation, which is this frame's whenever code can
/// ask (a nested callback's frame is innermost while it runs).
final class CallbackFrame {
    let context: JSContext
    let ctx: OpaquePointer
    let isConstruct: Bool
    /// How many arguments the call has: they are the callback's stack frame, indices 0..<count.
    let argumentCount: Int32
    let previous: UnsafeMutableRawPointer?

    init(context: JSContext, ctx: OpaquePointer, isConstruct: Bool, argumentCount: Int32) {
        self.context = context
        self.ctx = ctx
        self.isConstruct = isConstruct
        self.argumentCount = argumentCount
        self.previous = cduk_current_frame()
    }

    /// Argument `index` as a JSValue (undefined past the end), read from the call's frame.
    func argument(_ index: Int) -> JSValue {
        guard index < Int(argumentCount), let value = EngineStack(ctx: ctx, context: context).pinnedValue(at: Int32(index))
        else { return JSValue(context: context, storage: .undefined) }
        return value
    }

    /// Every argument, made on first use (untyped closures and `currentArguments()`).
    lazy var arguments: [JSValue] = (0..<Int(argumentCount)).map { argument($0) }

    /// The call's `this`: nil for `new`; the global object when the caller passed undefined or
    /// null (Duktape/C functions are strict; JavaScriptCore hands callbacks the global object).
    lazy var this: JSValue? = {
        guard !isConstruct, duk_check_stack(ctx, 2) != 0 else { return nil }
        duk_push_this(ctx)
        if duk_is_undefined(ctx, -1) != 0 || duk_is_null(ctx, -1) != 0 {
            duk_pop(ctx)
            duk_push_global_object(ctx)
        }
        defer { duk_pop(ctx) }
        return EngineStack(ctx: ctx, context: context).pinnedValue(at: -1)
    }()

    /// The function being called.
    lazy var callee: JSValue? = {
        guard duk_check_stack(ctx, 1) != 0 else { return nil }
        duk_push_current_function(ctx)
        defer { duk_pop(ctx) }
        return EngineStack(ctx: ctx, context: context).pinnedValue(at: -1)
    }()

    /// The innermost frame of the calling thread.
    static var current: CallbackFrame? {
        cduk_current_frame().map { Unmanaged<CallbackFrame>.fromOpaque($0).takeUnretainedValue() }
    }
}

extension JSContext {
    /// The context of the JavaScript → Swift callback running on this thread, or nil outside
    /// callbacks.
    ///
    /// ```swift
    /// // inside a callback:
    /// let context = JSContext.current()!
    /// ```
    public class func current() -> JSContext! {
        CallbackFrame.current?.context
    }

    /// The function object of the running callback, or nil outside callbacks (and inside a
    /// promise executor).
    public class func currentCallee() -> JSValue! {
        CallbackFrame.current?.callee
    }

    /// The `this` of the running callback, or nil outside callbacks (and for `new` on a closure).
    public class func currentThis() -> JSValue! {
        CallbackFrame.current?.this
    }

    /// Every argument the running callback was called with (however many it declares), or nil
    /// outside callbacks.
    public class func currentArguments() -> [Any]! {
        CallbackFrame.current?.arguments
    }
}
