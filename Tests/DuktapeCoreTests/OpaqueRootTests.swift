import Foundation
import Testing

@testable import DuktapeCore

/// WebKit testapi's TinyDOMNode: children held by Swift, reported to the VM as managed
/// references, so a wrapper reachable only through them stays alive (behaviours 46 and 47).
final class TinyDOMNode: JSExport, @unchecked Sendable {
    static let live = LiveCounter()
    private(set) var children: [TinyDOMNode] = []
    init() { TinyDOMNode.live.increment() }
    deinit { TinyDOMNode.live.decrement() }

    func appendChild(_ child: TinyDOMNode) {
        JSContext.current()?.virtualMachine.addManagedReference(child, withOwner: self)
        children.append(child)
    }

    func removeChild(_ child: TinyDOMNode) {
        guard let index = children.firstIndex(where: { $0 === child }) else { return }
        JSContext.current()?.virtualMachine.removeManagedReference(child, withOwner: self)
        children.remove(at: index)
    }

    static let jsClass = JSClass(TinyDOMNode.self) { c in
        c.constructor { () in TinyDOMNode() }
        c.method("appendChild(_:)") { (node: TinyDOMNode, child: TinyDOMNode) in node.appendChild(child) }
        c.method("removeChild(_:)") { (node: TinyDOMNode, child: TinyDOMNode) in node.removeChild(child) }
        c.property("numberOfChildren", get: { $0.children.count })
        c.method("childAtIndex(_:)") { (node: TinyDOMNode, index: Int) -> TinyDOMNode? in
            node.children.indices.contains(index) ? node.children[index] : nil
        }
    }
}

@Suite("Opaque roots: wrappers kept alive through managed references", .serialized)
struct OpaqueRootTests {
    static let chain = """
        function getLastNodeInChain(node) {
            if (!node) return undefined;
            while (node.numberOfChildren > 0) node = node.childAtIndex(0);
            return node;
        }
        var root = new TinyDOMNode();
        var lastNode = root;
        for (var i = 0; i < 3; i++) {
            var newNode = new TinyDOMNode();
            lastNode.appendChild(newNode);
            lastNode = newNode;
        }
        lastNode = null; newNode = null;
        """

    /// Behaviour 46: root → n1 → n2 → n3; an expando on n3's wrapper survives a full collection
    /// while only the root's wrapper is reachable from JavaScript.
    @Test func aChainKeepsItsWrappersAndTheirProperties() {
        let context = JSContext()!
        context["TinyDOMNode"] = TinyDOMNode.self
        context.evaluateScript(Self.chain)
        context.evaluateScript("getLastNodeInChain(root).myCustomProperty = 42")
        context.virtualMachine.garbageCollect()
        #expect(context.evaluateScript("getLastNodeInChain(root).myCustomProperty").toInt32() == 42)
        #expect(context.exception == nil)
    }

    /// Behaviour 47: the same after a duplicate `appendChild` (two edges) and one `removeChild`
    /// (one edge left, so the wrapper still lives).
    @Test func aDuplicateEdgeSurvivesOneRemoval() {
        let context = JSContext()!
        context["TinyDOMNode"] = TinyDOMNode.self
        context.evaluateScript(Self.chain)
        context.evaluateScript("""
            var middle = root.childAtIndex(0);
            var extra = new TinyDOMNode();
            middle.appendChild(extra); middle.appendChild(extra);
            middle.removeChild(extra);
            extra.tag = 'still here'; extra = null; middle = null;
            getLastNodeInChain(root).myCustomProperty = 42;
            """)
        context.virtualMachine.garbageCollect()
        #expect(context.evaluateScript("root.childAtIndex(0).childAtIndex(1).tag").toString() == "still here")
        #expect(context.evaluateScript("getLastNodeInChain(root).myCustomProperty").toInt32() == 42)
    }

    /// Once the root is unreachable, the whole chain goes: wrappers and Swift objects.
    @Test func everythingIsReleasedWithTheRoot() {
        let baseline = TinyDOMNode.live.value
        let context = JSContext()!
        context["TinyDOMNode"] = TinyDOMNode.self
        context.evaluateScript(Self.chain)
        context.evaluateScript("getLastNodeInChain(root).myCustomProperty = 42")
        #expect(TinyDOMNode.live.value == baseline + 4)
        context.evaluateScript("root = null")
        context.virtualMachine.garbageCollect()
        #expect(TinyDOMNode.live.value == baseline)
    }

    /// An exported object in a `JSManagedValue` owned by a reachable exported object keeps its
    /// wrapper and the wrapper's properties.
    @Test func aManagedValueOfAWrapperKeepsItsProperties() {
        let context = JSContext()!
        context["TinyDOMNode"] = TinyDOMNode.self
        let owner = TinyDOMNode()
        context["owner"] = owner
        // Reference counting frees an unreferenced object at once: the JSValue is kept until the
        // edge exists (README, "JSManagedValue and retain cycles").
        var value: JSValue? = context.evaluateScript("(function () { var n = new TinyDOMNode(); n.note = 'kept'; return n })()")
        let managed = JSManagedValue(value: value)!
        context.virtualMachine.addManagedReference(managed, withOwner: owner)
        value = nil
        context.virtualMachine.garbageCollect()
        #expect(managed.value?.forProperty("note").toString() == "kept")
        context.virtualMachine.removeManagedReference(managed, withOwner: owner)
        context.evaluateScript("owner = null")
        context.virtualMachine.garbageCollect()
        #expect(managed.value == nil)
    }
}
