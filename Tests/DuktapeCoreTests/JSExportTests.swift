import Foundation
import Testing

@testable import DuktapeCore

struct ExportFailure: Error, CustomStringConvertible {
    var description: String { "export failure" }
}

final class Point: JSExport {
    static let live = LiveCounter()
    var x: Double
    var y: Double
    var length: Double { (x * x + y * y).squareRoot() }

    init(x: Double, y: Double) {
        self.x = x
        self.y = y
        Point.live.increment()
    }

    deinit { Point.live.decrement() }

    func scaled(by factor: Double) -> Point { Point(x: x * factor, y: y * factor) }

    static let jsClass = JSClass(Point.self) { c in
        c.constructor { (x: Double, y: Double) in Point(x: x, y: y) }
        c.property("x", \.x)
        c.property("y", \.y)
        c.property("length", \.length)
        c.method("scaled(by:)") { (point: Point, factor: Double) in point.scaled(by: factor) }
        c.method("add(_:_:)", as: "add") { (_: Point, a: Double, b: Double) in a + b }
        c.method("distance(to:)") { (point: Point, other: Point) in
            ((point.x - other.x) * (point.x - other.x) + (point.y - other.y) * (point.y - other.y)).squareRoot()
        }
        c.method("reset()") { (point: Point) in point.x = 0; point.y = 0 }
        c.staticMethod("origin") { () in Point(x: 0, y: 0) }
        c.property("failing", get: { (_: Point) -> Int in throw ExportFailure() }, set: { (_: Point, _: Int) in throw ExportFailure() })
    }
}

class Shape: JSExport {
    var name: String
    init(name: String) { self.name = name }
    func area() -> Double { 0 }

    static let shapeClass = JSClass(Shape.self) { c in
        c.constructor { (name: String) in Shape(name: name) }
        c.property("name", \.name)
        c.method("area()") { (shape: Shape) in shape.area() }
        c.method("describe()") { (shape: Shape) in "\(shape.name) with area \(shape.area())" }
    }
    class var jsClass: JSClass { shapeClass }
}

final class Circle: Shape {
    var radius: Double
    init(radius: Double) {
        self.radius = radius
        super.init(name: "circle")
    }
    override func area() -> Double { 3 * radius * radius }

    static let circleClass = JSClass(Circle.self, inherits: Shape.shapeClass) { c in
        c.constructor { (radius: Double) in Circle(radius: radius) }
        c.property("radius", \.radius)
    }
    override class var jsClass: JSClass { circleClass }
}

/// Used only by the lifetime test, so parallel tests do not disturb its count.
final class Tracked: JSExport {
    static let live = LiveCounter()
    init() { Tracked.live.increment() }
    deinit { Tracked.live.decrement() }
    static let jsClass = JSClass(Tracked.self) { c in c.constructor { () in Tracked() } }
}

final class NoConstructor: JSExport {
    static let jsClass = JSClass(NoConstructor.self, name: "Opaque") { _ in }
}

final class Failing: JSExport {
    static let jsClass = JSClass(Failing.self) { c in
        c.constructor { (ok: Bool) throws -> Failing in
            if !ok { throw ExportFailure() }
            return Failing()
        }
    }
}

@Suite("JSExport", .serialized)
struct JSExportTests {
    let context = JSContext()!

    @Test func instancesBecomeWrappersWithPrototypeMembers() {
        let point = Point(x: 3, y: 4)
        context["p"] = point
        #expect(context.evaluateScript("p.x + p.y").toInt32() == 7)
        #expect(context.evaluateScript("p.length").toDouble() == 5)
        #expect(context.evaluateScript("p.scaledBy(2).x").toDouble() == 6)
        #expect(context.evaluateScript("p.add(1, 2)").toDouble() == 3)
        #expect(context.evaluateScript("p.distanceTo(p.scaledBy(2))").toDouble() == 5)
        context.evaluateScript("p.x = 10")
        #expect(point.x == 10)
        context.evaluateScript("p.reset()")
        #expect(point.x == 0 && point.y == 0)
        #expect(context.exception == nil)
    }

    @Test func membersHaveJavaScriptCoresAttributes() {
        context["p"] = Point(x: 1, y: 1)
        #expect(context.evaluateScript("Object.keys(p).length").toInt32() == 0)
        #expect(context.evaluateScript("p.hasOwnProperty('x')").toBool() == false)
        let method = context.evaluateScript("Object.getOwnPropertyDescriptor(Object.getPrototypeOf(p), 'scaledBy')")!
        #expect(method.forProperty("writable").toBool() && !method.forProperty("enumerable").toBool() && method.forProperty("configurable").toBool())
        let accessor = context.evaluateScript("Object.getOwnPropertyDescriptor(Object.getPrototypeOf(p), 'x')")!
        #expect(accessor.forProperty("get").isObject && accessor.forProperty("set").isObject)
        #expect(!accessor.forProperty("enumerable").toBool() && accessor.forProperty("configurable").toBool())
        let readOnly = context.evaluateScript("Object.getOwnPropertyDescriptor(Object.getPrototypeOf(p), 'length')")!
        #expect(readOnly.forProperty("set").isUndefined)
    }

    @Test func readOnlyPropertiesIgnoreWrites() {
        context["p"] = Point(x: 3, y: 4)
        #expect(context.evaluateScript("p.length = 99; p.length").toDouble() == 5)
        #expect(thrown(context, "(function () { 'use strict'; p.length = 1 })()")?.name == "TypeError")
    }

    @Test func constructorsAndStaticMethods() {
        context["Point"] = Point.self
        #expect(context.evaluateScript("new Point(6, 8).length").toDouble() == 10)
        #expect(context.evaluateScript("Point.origin().x").toDouble() == 0)
        #expect(context.evaluateScript("new Point(1, 2) instanceof Point").toBool())
        #expect(context.evaluateScript("Point.prototype.constructor === Point").toBool())
        #expect(context.evaluateScript("Object.getPrototypeOf(new Point(1, 2)) === Point.prototype").toBool())
        let exception = thrown(context, "Point(1, 2)")
        #expect(exception?.name == "TypeError")
        #expect(exception?.message == "Cannot call a class constructor without |new|")
        context["Opaque"] = NoConstructor.self
        #expect(thrown(context, "new Opaque()")?.message == "Opaque has no constructor")
        let made = context.evaluateScript("new Point(1, 2)").toObject() as? Point
        #expect(made?.y == 2)
        #expect(context.evaluateScript("Point").toObject() is Point.Type)
    }

    @Test func toStringTagsAndNativeLookingConstructors() {
        context["Point"] = Point.self
        context["p"] = Point(x: 0, y: 0)
        #expect(context.evaluateScript("Object.prototype.toString.call(p)").toString() == "[object Point]")
        #expect(context.evaluateScript("Object.prototype.toString.call(Point.prototype)").toString() == "[object PointPrototype]")
        #expect(context.evaluateScript("String(p)").toString() == "[object Point]")
        let source = context.evaluateScript("String(Point)").toString() ?? ""
        #expect(source.hasPrefix("function Point()") && source.contains("[native code]"))
        #expect(context.evaluateScript("Point.name").toString() == "Point")
    }

    @Test func subclassesChainToTheirSuperclass() {
        context["Shape"] = Shape.self
        context["Circle"] = Circle.self
        #expect(context.evaluateScript("var c = new Circle(2); c.describe()").toString() == "circle with area 12.0")
        #expect(context.evaluateScript("c instanceof Circle && c instanceof Shape").toBool())
        #expect(context.evaluateScript("Object.getPrototypeOf(Circle.prototype) === Shape.prototype").toBool())
        #expect(context.evaluateScript("Object.getPrototypeOf(Circle) === Shape").toBool())
        #expect(context.evaluateScript("Object.prototype.toString.call(c)").toString() == "[object Circle]")
        #expect(context.evaluateScript("Object.prototype.toString.call(Circle.prototype)").toString() == "[object CirclePrototype]")
        #expect(context.evaluateScript("new Shape('s') instanceof Circle").toBool() == false)
        // A Circle passed as a Shape keeps its dynamic class.
        context["shape"] = Circle(radius: 1) as Shape
        #expect(context.evaluateScript("shape instanceof Circle && shape.radius === 1").toBool())
    }

    @Test func oneWrapperPerObjectPerContext() {
        let point = Point(x: 1, y: 2)
        context["a"] = point
        context["b"] = point
        #expect(context.evaluateScript("a === b").toBool())
        #expect(JSValue(object: point, in: context).isEqual(to: context["a"]))
        let other = JSContext(virtualMachine: context.virtualMachine)!
        other["a"] = point
        #expect(context.evaluateScript("a").isEqual(to: other.evaluateScript("a")) == false)
        #expect(context.evaluateScript("a").toObject() as? Point === point)
        #expect(other.evaluateScript("a").toObject() as? Point === point)
        #expect(Point.fromJSValue(context["a"]) === point)
    }

    @Test func wrongThisAndBadArgumentsAreTypeErrors() throws {
        context["p"] = Point(x: 1, y: 1)
        context["Shape"] = Shape.self
        for script in [
            "p.scaledBy.call({}, 2)", "p.scaledBy.call(new Shape('s'), 2)", "Object.getOwnPropertyDescriptor(Object.getPrototypeOf(p), 'x').get.call(5)",
            "p.reset.call(null)",
        ] {
            let exception = try #require(thrown(context, script))
            #expect(exception.name == "TypeError", "\(script)")
            #expect(exception.message == "self type check failed for Swift instance method", "\(script)")
        }
        let argument = try #require(thrown(context, "p.distanceTo({x: 1, y: 1})"))
        #expect(argument.name == "TypeError")
        #expect(argument.message == "argument 1: Argument does not match Swift class Point")
        #expect(thrown(context, "p.distanceTo(new Shape('s'))")?.name == "TypeError")
        #expect(context.evaluateScript("p.x").toDouble() == 1)
    }

    @Test func throwingGettersSettersAndConstructors() throws {
        context["p"] = Point(x: 1, y: 1)
        context["Failing"] = Failing.self
        // Swift errors from getters and setters reach scripts as Error objects...
        #expect(context.evaluateScript("try { p.failing } catch (e) { e.message }").toString() == "export failure")
        #expect(context.evaluateScript("try { p.failing = 1 } catch (e) { e.message }").toString() == "export failure")
        // ...and come back out to Swift as themselves.
        #expect(throws: ExportFailure.self) { try context.evaluate("p.failing") }
        #expect(throws: ExportFailure.self) { try context.evaluate("p.failing = 1") }
        #expect(throws: ExportFailure.self) { try context.evaluate("new Failing(false)") }
        #expect(context.evaluateScript("new Failing(true) instanceof Failing").toBool())
    }

    @Test func exportedObjectsAsClosureParametersAndResults() {
        context["mid"] = JSValue(newFunctionIn: context) { (a: Point, b: Point?) -> Point in
            Point(x: (a.x + (b?.x ?? 0)) / 2, y: (a.y + (b?.y ?? 0)) / 2)
        }
        context["Point"] = Point.self
        #expect(context.evaluateScript("mid(new Point(2, 2), new Point(4, 6)).y").toDouble() == 4)
        #expect(context.evaluateScript("mid(new Point(2, 2)).x").toDouble() == 1)
        #expect(thrown(context, "mid(null)")?.name == "TypeError")
    }

    @Test func wrappersReleaseTheirObjectsWhenCollected() {
        let vm = JSVirtualMachine()!
        #expect(Tracked.live.value == 0)
        do {
            let context = JSContext(virtualMachine: vm)!
            context["Tracked"] = Tracked.self
            context.evaluateScript("var keep = new Tracked(); for (var i = 0; i < 100; i++) new Tracked()")
            vm.garbageCollect()
            #expect(Tracked.live.value == 1)
            context.evaluateScript("keep = null")
            vm.garbageCollect()
            #expect(Tracked.live.value == 0)
            context.evaluateScript("var survivor = new Tracked()")
            #expect(Tracked.live.value == 1)
        }
        // The context is gone but `vm` still holds the heap, and the heap holds `survivor`.
        #expect(Tracked.live.value == 1)
    }

    @Test func heapDestructionReleasesEveryObject() {
        let before = Tracked.live.value
        do {
            let context = JSContext()!
            context["Tracked"] = Tracked.self
            context.evaluateScript("var list = []; for (var i = 0; i < 50; i++) list.push(new Tracked()); list.cycle = list")
        }
        #expect(Tracked.live.value == before)
    }

    @Test func javaScriptNamesFollowTheSelectorRule() {
        #expect(JSClass.javaScriptName(forSwiftMethod: "add(_:to:)") == "addTo")
        #expect(JSClass.javaScriptName(forSwiftMethod: "doFoo(_:withBar:)") == "doFooWithBar")
        #expect(JSClass.javaScriptName(forSwiftMethod: "reset()") == "reset")
        #expect(JSClass.javaScriptName(forSwiftMethod: "scaled(by:)") == "scaledBy")
        #expect(JSClass.javaScriptName(forSwiftMethod: "plain") == "plain")
    }
}
