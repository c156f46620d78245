extension JSContext {
    /// Creates a context in a new virtual machine configured by `sandbox`.
    ///
    /// ```swift
    /// let context = JSContext(sandbox: JSSandbox())!
    /// print(try context.evaluate("typeof Duktape"))        // prints: undefined
    /// ```
    public convenience init!(sandbox: JSSandbox) {
        guard let vm = JSVirtualMachine(sandbox: sandbox) else { return nil }
        self.init(ownedVirtualMachine: vm)
    }
}
