import CDuktape
import Foundation

/// A Swift object attached to a JS object (a closure, an exported object, a Swift error).
///
/// Ownership, in one place: `attach(to:)` retains the box once (`Unmanaged.passRetained`) and
/// hands the pointer to the engine; the JS object's finalizer (run when it is collected, and at
/// heap destruction) calls `releaseBox`, which lets the box clean up and balances that retain.
/// The finalizer clears the pointer first, so the release happens exactly once.
class EngineBox {
    /// Called by the finalizer just before the engine's reference is released.
    func willRelease() {}

    /// What the JS object converts back to in Swift, for boxes that stand for a Swift object
    /// (an exported object, an exported class's constructor); nil for the others.
    var exportedObject: Any? { nil }

    /// The exported Swift instance (not class) this box retains, unretained; nil for the other
    /// boxes.
    var exportedInstanceReference: Unmanaged<AnyObject>? { nil }

    /// Runs a call from JavaScript to the function this box is attached to (see
    /// `HostFunction`); other boxes are never called: the trampoline is only on host functions.
    func invoke(ctx: OpaquePointer, isConstruct: Bool) -> duk_int_t { 0 }

    /// [obj] -> [obj]: attaches this box to the object on top of the stack.
    func attach(on stack: EngineStack) throws(JSException) {
        let pointer = Unmanaged.passRetained(self).toOpaque()
        let status = cduk_pattach_box(stack.ctx, pointer)
        if status != DUK_EXEC_SUCCESS {
            Unmanaged<EngineBox>.fromOpaque(pointer).release()
        }
        try stack.check(status)
    }

    /// The box attached to the value at `index`, if any (never a Proxy's: boxes are own slots).
    static func attached(to index: Int32, on stack: EngineStack) -> EngineBox? {
        cduk_box_at(stack.ctx, index).map { Unmanaged<EngineBox>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Installs the engine's entry points into Swift (once per process).
    static let installCallbacks: Void = {
        cduk_set_box_callbacks(
            { pointer in
                let box = Unmanaged<EngineBox>.fromOpaque(pointer)
                box.takeUnretainedValue().willRelease()
                box.release()
            },
            { ctx, pointer, isConstruct in
                // Not retained for the call: the function object being called owns the box and
                // cannot be collected while its call runs.
                Unmanaged<EngineBox>.fromOpaque(pointer)._withUnsafeGuaranteedRef {
                    $0.invoke(ctx: ctx, isConstruct: isConstruct != 0)
                }
            },
            { owner, object in
                Unmanaged<JSVirtualMachine>.fromOpaque(owner).takeUnretainedValue().objectFinalized(object)
            })
    }()
}

/// A Swift error thrown by a callback, travelling through JavaScript inside the `Error` made for
/// it, so that it comes out of the throwing API as the same Swift error.
final class SwiftErrorBox: EngineBox {
    let error: any Error

    init(_ error: any Error) {
        self.error = error
    }
}
