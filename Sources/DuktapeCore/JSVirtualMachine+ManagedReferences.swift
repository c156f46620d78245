
/// One owner's outgoing edges: owned object → how many times the edge was added. Owners and
/// owned objects are held weakly, as in JavaScriptCore.
final class OwnerEdges {
    weak var owner: AnyObject?
    var owned: [ObjectIdentifier: (object: WeakObject, count: Int)] = [:]

    init(owner: AnyObject) {
        self.owner = owner
    }
}

struct WeakObject {
    weak var object: AnyObject?
}

extension JSVirtualMachine {
    /// Reports that `owner` owns `object`: while `owner` is reachable from JavaScript (it has a
    /// live wrapper, or is reachable through such edges from one), every `JSManagedValue` it
    /// reaches through these edges keeps its value alive.
    ///
    /// ```swift
    /// vm.addManagedReference(managedHandler, withOwner: button)
    /// ```
    ///
    /// Edges are counted: adding the same pair twice needs two removals. A `JSValue` or
    /// `JSManagedValue` that wraps an exported object stands for that object. nil is a no-op, as
    /// is an object that is not a class instance.
    public func addManagedReference(_ object: Any!, withOwner owner: Any!) {
        guard let object = nativeObject(object), let owner = nativeObject(owner) else { return }
        lock.withLock {
            let edges = managedEdges[ObjectIdentifier(owner)] ?? OwnerEdges(owner: owner)
            managedEdges[ObjectIdentifier(owner)] = edges
            let key = ObjectIdentifier(object)
            edges.owned[key] = (WeakObject(object: object), (edges.owned[key]?.count ?? 0) + 1)
            updateAllRetainLists()
        }
    }

    /// Removes one count of the edge from `owner` to `object`; at zero the edge is gone and the
    /// garbage collector may collect what it kept alive.
    ///
    /// ```swift
    /// vm.removeManagedReference(managedHandler, withOwner: button)
    /// ```
    public func removeManagedReference(_ object: Any!, withOwner owner: Any!) {
        guard let object = nativeObject(object), let owner = nativeObject(owner) else { return }
        lock.withLock {
            guard let edges = managedEdges[ObjectIdentifier(owner)] else { return }
            let key = ObjectIdentifier(object)
            guard let edge = edges.owned[key] else { return }
            if edge.count > 1 {
                edges.owned[key] = (edge.object, edge.count - 1)
            } else {
                edges.owned[key] = nil
                if edges.owned.isEmpty { managedEdges[ObjectIdentifier(owner)] = nil }
            }
            updateAllRetainLists()
        }
    }

    /// Drops every edge to `managed` (a JSManagedValue being deallocated).
    func removeAllManagedReferences(to managed: JSManagedValue) {
        lock.withLock {
            let key = ObjectIdentifier(managed)
            var changed = false
            for (owner, edges) in managedEdges where edges.owned[key] != nil {
                edges.owned[key] = nil
                if edges.owned.isEmpty { managedEdges[owner] = nil }
                changed = true
            }
            if changed { updateAllRetainLists() }
        }
    }

    /// Whether `object` owns anything (caller holds the lock).
    func isManagedOwner(_ object: AnyObject) -> Bool {
        lock.assertHeld("isManagedOwner")
        return managedEdges[ObjectIdentifier(object)]?.owner === object
    }

    /// The owners that reach `object` through edges, directly or not (caller holds the lock).
    /// A walk of the edges backwards, level by level.
    func managedOwners(reaching object: AnyObject) -> [AnyObject] {
        lock.assertHeld("managedOwners")
        guard !managedEdges.isEmpty else { return [] }
        var owners: [AnyObject] = []
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(object)]
        var pending = [ObjectIdentifier(object)]
        while let key = pending.popLast() {
            for edges in managedEdges.values where edges.owned[key]?.object.object != nil {
                guard let owner = edges.owner, visited.insert(ObjectIdentifier(owner)).inserted else { continue }
                owners.append(owner)
                pending.append(ObjectIdentifier(owner))
            }
        }
        return owners
    }

    /// What a wrapper of `owner` in `context` keeps alive: the live watched objects of the
    /// managed values reachable from `owner` through edges, and the wrappers in `context` of the
    /// exported objects reachable the same way (JavaScriptCore's opaque roots: a Swift object
    /// reachable from a live wrapper keeps its own wrapper, expando properties and all).
    /// Caller holds the lock.
    func managedTargets(ownedBy owner: AnyObject, in context: JSContext) -> [UnsafeMutableRawPointer] {
        lock.assertHeld("managedTargets")
        var targets: [UnsafeMutableRawPointer] = []
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(owner)]
        var pending: [AnyObject] = [owner]
        while let next = pending.popLast() {
            guard let edges = managedEdges[ObjectIdentifier(next)], edges.owner === next else { continue }
            for edge in edges.owned.values {
                guard let object = edge.object.object, visited.insert(ObjectIdentifier(object)).inserted else { continue }
                if let managed = object as? JSManagedValue {
                    if let pointer = managed.liveObject { targets.append(pointer) }
                } else if let wrapper = context.cachedWrapper(of: object) {
                    targets.append(wrapper)
                }
                pending.append(object)
            }
        }
        return targets
    }

    /// Rebuilds the retain lists of every context's wrappers (caller holds the lock).
    private func updateAllRetainLists() {
        lock.assertHeld("updateAllRetainLists")
        for context in engine.liveContexts() {
            context.updateRetainLists()
        }
    }

    /// The object a JSValue/JSManagedValue stands for in the ownership graph.
    private func nativeObject(_ value: Any?) -> AnyObject? {
        switch value {
        case nil: return nil
        case let jsValue as JSValue:
            return jsValue.toObject() as? any JSExport ?? nil
        case let managed as JSManagedValue:
            if let exported = managed.value?.toObject() as? any JSExport { return exported }
            return managed
        case let value?:
            // Only class instances can be nodes: `as AnyObject` would box a value type.
            return type(of: value) is AnyClass ? value as AnyObject : nil
        }
    }

    // MARK: - Watched objects

    /// Registers `managed` to hear when the object at `pointer` is finalized.
    func watch(_ pointer: UnsafeMutableRawPointer, for managed: JSManagedValue) {
        lock.withLock {
            var list = watchers[pointer, default: []].filter { $0.object != nil }
            list.append(WeakObject(object: managed))
            watchers[pointer] = list
        }
    }

    /// The finalizer report of a watched object: its managed values read nil from now on.
    func objectFinalized(_ pointer: UnsafeMutableRawPointer) {
        lock.withLock {
            guard let list = watchers.removeValue(forKey: pointer) else { return }
            for entry in list {
                (entry.object as? JSManagedValue)?.markCollected()
            }
        }
    }
}
