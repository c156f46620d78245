import CDuktape

/// One JS → Swift callback in progress on this thread: what `JSContext.current()` and friends
/// report. Frames form a per-thread stack through `previous`.
final class CallbackFrame {
    let context: JSContext
    let this: JSValue?
    let arguments: [JSValue]
    let callee: JSValue?
    let previous: UnsafeMutableRawPointer?

    init(context: JSContext, this: JSValue?, arguments: [JSValue], callee: JSValue?) {
        self.context = context
        self.this = this
        self.arguments = arguments
        self.callee = callee
        self.previous = cduk_current_frame()
    }

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
