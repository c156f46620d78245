extension JSVirtualMachine {
    /// Creates a virtual machine for untrusted scripts: its limits come from `sandbox`, and
    /// every context created in it has the sandbox's globals.
    ///
    /// The limits can still be changed later through the VM's properties; the globals of a
    /// context are fixed when it is created.
    ///
    /// ```swift
    /// let vm = JSVirtualMachine(sandbox: JSSandbox(memoryLimit: 16 << 20))!
    /// let context = JSContext(virtualMachine: vm)!
    /// ```
    public convenience init!(sandbox: JSSandbox) {
        self.init()
        configure(sandbox)
    }
}
