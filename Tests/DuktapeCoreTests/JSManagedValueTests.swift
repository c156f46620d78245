import Foundation
import Testing

@testable import DuktapeCore

/// An exported owner, the JavaScriptCore pattern: it stores a JS callback as a managed value.
final class Button: JSExport {
    var onClick: JSManagedValue?
    var children: [Button] = []

    static let jsClass = JSClass(Button.self) { c in
        c.constructor { () in Button() }
        c.method("setOnClick(_:)", as: "setOnClick") { (button: Button, handler: JSValue) in
            button.onClick = JSManagedValue(value: handler, andOwner: button)
        }
        c.method("click()") { (button: Button) -> JSValue in
            button.onClick?.value?.call(withArguments: []) ?? JSValue(undefinedIn: JSContext.current())
        }
    }
}

final class PlainOwner {}

@Suite("JSManagedValue", .serialized)
struct JSManagedValueTests {
    let vm = JSVirtualMachine()!
    let context: JSContext

    init() {
        context = JSContext(virtualMachine: vm)
    }

    /// A managed value for a fresh object nothing else references.
    private func managedFreshObject(_ script: String = "({payload: [1, 2, 3]})") -> JSManagedValue {
        JSManagedValue(value: context.evaluateScript(script))
    }

    @Test func weakOnItsOwn() {
        let managed = managedFreshObject()
        vm.garbageCollect()
        #expect(managed.value == nil)
    }

    @Test func aliveWhileJavaScriptReachesIt() {
        let managed = managedFreshObject("var kept = {name: 'kept'}; kept")
        vm.garbageCollect()
        #expect(managed.value?.forProperty("name").toString() == "kept")
        context.evaluateScript("kept = null")
        vm.garbageCollect()
        #expect(managed.value == nil)
    }

    @Test func aliveWhileAJSValueHoldsIt() {
        let value = context.evaluateScript("({})")!
        let managed = JSManagedValue(value: value)!
        vm.garbageCollect()
        #expect(managed.value?.isEqual(to: value) == true)
        _ = value
    }

    @Test func ownerReachableThroughAWrapperKeepsItAlive() {
        context["Button"] = Button.self
        context.evaluateScript("var button = new Button(); button.setOnClick(function () { return 'clicked' })")
        vm.garbageCollect()
        vm.garbageCollect()
        #expect(context.evaluateScript("button.click()").toString() == "clicked")
        let button = context.evaluateScript("button").toObject() as? Button
        #expect(button?.onClick?.value != nil)
        // Drop the wrapper: the owner is no longer reachable from JS, so the handler may go.
        context.evaluateScript("button = null")
        vm.garbageCollect()
        vm.garbageCollect()
        #expect(button?.onClick?.value == nil)
    }

    @Test func edgesAreCountedAndTransitive() throws {
        let root = Button()
        let middle = PlainOwner()
        context["root"] = root  // a wrapper makes `root` reachable from JS
        // Reference counting frees an unreferenced object at once: keep a JSValue until the edges exist.
        var value: JSValue? = context.evaluateScript("({})")
        let managed = JSManagedValue(value: value)!
        vm.addManagedReference(middle, withOwner: root)
        vm.addManagedReference(managed, withOwner: middle)
        vm.addManagedReference(managed, withOwner: middle)
        value = nil
        vm.garbageCollect()
        #expect(managed.value != nil)
        vm.removeManagedReference(managed, withOwner: middle)
        vm.garbageCollect()
        #expect(managed.value != nil)  // one count left
        vm.removeManagedReference(managed, withOwner: middle)
        vm.garbageCollect()
        #expect(managed.value == nil)
        _ = middle
    }

    @Test func ownerWithoutAWrapperDoesNotKeepIt() {
        let owner = PlainOwner()
        let managed = JSManagedValue(value: context.evaluateScript("({})"), andOwner: owner)!
        vm.garbageCollect()
        #expect(managed.value == nil)
        _ = owner
    }

    @Test func initWithOwnerKeepsItWhileTheOwnersWrapperLives() {
        let owner = Button()
        context["owner"] = owner
        let managed = JSManagedValue(value: context.evaluateScript("({x: 1})"), andOwner: owner)!
        vm.garbageCollect()
        #expect(managed.value?.forProperty("x").toInt32() == 1)
        // Removing the owner edge releases it even though the owner is still reachable.
        vm.removeManagedReference(managed, withOwner: owner)
        vm.garbageCollect()
        #expect(managed.value == nil)
    }

    @Test func primitivesAreKeptByValueUntilTheContextDies() {
        var managed: [JSManagedValue] = []
        do {
            let context = JSContext(virtualMachine: vm)!
            for script in ["42", "true", "null", "undefined", "'text'"] {
                managed.append(JSManagedValue(value: context.evaluateScript(script)))
            }
            vm.garbageCollect()
            #expect(managed[0].value?.toInt32() == 42)
            #expect(managed[1].value?.toBool() == true)
            #expect(managed[2].value?.isNull == true)
            #expect(managed[3].value?.isUndefined == true)
            #expect(managed[4].value?.toString() == "text")
        }
        // The context is gone: every kind reads nil.
        #expect(managed.allSatisfy { $0.value == nil })
    }

    @Test func noOpsAndConversion() {
        vm.addManagedReference(nil, withOwner: PlainOwner())
        vm.removeManagedReference(PlainOwner(), withOwner: nil)
        // Value types are not graph nodes (only class instances are): adding one is a no-op.
        let keep = JSManagedValue(value: context.evaluateScript("({})"))!
        vm.addManagedReference(keep, withOwner: 42)
        vm.addManagedReference("not an object", withOwner: PlainOwner())
        #expect(vm.managedEdges.isEmpty)
        let managed = managedFreshObject()
        vm.garbageCollect()
        vm.addManagedReference(managed, withOwner: PlainOwner())  // value already gone: harmless
        #expect(JSValue(object: managed, in: context).isUndefined)
        let live = context.evaluateScript("var live = {n: 5}; live")!
        let liveManaged = JSManagedValue(value: live)!
        #expect(context.evaluateScript("(function (v) { return v.n })").call(withArguments: [liveManaged]).toInt32() == 5)
        #expect(JSManagedValue(value: nil) == nil)
    }

    @Test func scriptsCannotDetachTheFinalizers() {
        let managed = managedFreshObject("var watched = {}; watched")
        // A script's own finalizer is chained and still runs; ours stays.
        context.evaluateScript("var ran = 0; Duktape.fin(watched, function () { ran++ }); typeof Duktape.fin(watched)")
        context.evaluateScript("watched = null")
        vm.garbageCollect()
        #expect(managed.value == nil)
        #expect(context.evaluateScript("ran").toInt32() == 1)
        // Plain objects keep Duktape's behaviour.
        #expect(context.evaluateScript("var o = {}; var f = function () {}; Duktape.fin(o, f); Duktape.fin(o) === f").toBool())
    }
}
