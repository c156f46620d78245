extension JSContext {
    /// The context of the JavaScript → Swift callback running on this thread, or nil outside
    /// callbacks.
    ///
    /// ```swift
    /// // inside a callback:
    /// let context = JSContext.current()!
    /// ```
    @discardableResult
    public class func current() -> JSContext! {
        CallbackFrame.current?.pointee.context
    }

    /// The function object of the running callback, or nil outside callbacks.
    @discardableResult
    public class func currentCallee() -> JSValue! {
        CallbackFrame.current?.pointee.callee
    }

    /// The `this` of the running callback, or nil outside callbacks (and for `new` on a closure).
    @discardableResult
    public class func currentThis() -> JSValue! {
        CallbackFrame.current?.pointee.this
    }

    /// Every argument the running callback was called with (however many it declares), or nil
    /// outside callbacks.
    @discardableResult
    public class func currentArguments() -> [Any]! {
        CallbackFrame.current?.pointee.arguments
    }

    /// How many arguments the running callback was called with, or nil outside callbacks:
    /// `currentArguments().count` without making a JSValue for each (Swift-first; JavaScriptCore
    /// has no such member). A typed closure declares the parameters it always reads and asks
    /// for the rest only when there are more.
    ///
    /// ```swift
    /// context["log"] = JSValue(newFunctionIn: context) { (first: String) in
    ///     let extra = (JSContext.currentArgumentCount() ?? 1) - 1   // arguments past `first`
    /// }
    /// ```
    public class func currentArgumentCount() -> Int? {
        CallbackFrame.current?.pointee.argumentTotal
    }
}
