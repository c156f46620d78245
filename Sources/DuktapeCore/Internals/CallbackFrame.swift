import CDuktape

/// One JS → Swift callback in progress on this thread: what `JSContext.current()` and friends
/// report. It lives on the Swift stack of `HostFunction.invoke` (no allocation per call); the
/// engine's per-thread current-frame pointer points at it while the body runs, and frames form a
/// stack through `previous`.
///
/// `this`, `callee` and `arguments` are made on first use: most callbacks never ask, and making
/// them pins values. They read the engine's current activation, which is this frame's whenever
/// code can ask (a nested callback's frame is innermost while it runs).
struct CallbackFrame {
    /// Unowned: the context is running this call, so something holds it for the call's length.
    unowned(unsafe) let context: JSContext
    let ctx: OpaquePointer
    let isConstruct: Bool
    /// How many arguments the call has: they are the callback's stack frame, indices 0..<count.
    let argumentCount: Int32
    let previous: UnsafeMutableRawPointer?
    private var madeArguments: [JSValue]?
    private var madeThis: JSValue??
    private var madeCallee: JSValue??

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
        madeThis = .some(this)
        madeCallee = .some(nil)
        madeArguments = arguments
    }

    /// Argument `index` as a JSValue (undefined past the end), read from the call's frame.
    func argument(_ index: Int) -> JSValue {
        guard index < Int(argumentCount), let value = EngineStack(ctx: ctx, context: context).pinnedValue(at: Int32(index))
        else { return JSValue(context: context, storage: .undefined) }
        return value
    }

    /// How many arguments `arguments` has, without making them.
    var argumentTotal: Int {
        madeArguments?.count ?? Int(argumentCount)
    }

    /// Every argument (untyped closures and `currentArguments()`).
    var arguments: [JSValue] {
        mutating get {
            if let madeArguments { return madeArguments }
            let made = (0..<Int(argumentCount)).map { argument($0) }
            madeArguments = made
            return made
        }
    }

    /// The call's `this`: nil for `new`; the global object when the caller passed undefined or
    /// null (Duktape/C functions are strict; JavaScriptCore hands callbacks the global object).
    var this: JSValue? {
        mutating get {
            if let madeThis { return madeThis }
            let made = isConstruct ? nil : pinning {
                duk_push_this(ctx)
                if duk_is_undefined(ctx, -1) != 0 || duk_is_null(ctx, -1) != 0 {
                    duk_pop(ctx)
                    duk_push_global_object(ctx)
                }
            }
            madeThis = .some(made)
            return made
        }
    }

    /// The function being called.
    var callee: JSValue? {
        mutating get {
            if let madeCallee { return madeCallee }
            let made = pinning { duk_push_current_function(ctx) }
            madeCallee = .some(made)
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
