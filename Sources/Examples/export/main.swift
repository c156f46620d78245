// Export: a Swift object and a Swift class used from JavaScript (JavaScriptCore's JSExport).
import DuktapeCore
import Foundation

/// The seeds' exported object: `add(a, b)` (a Swift method exported under another name, the
/// JSExportAs case) and a read-write `sum` property.
final class Calculator: JSExport {
    var sum = 0

    func add(_ a: Int, to b: Int) -> Int { a + b }

    static let jsClass = JSClass(Calculator.self, name: "Calculator") { c in
        c.method("add(_:to:)", as: "add") { (calculator: Calculator, a: Int, b: Int) in calculator.add(a, to: b) }
        c.property("sum", \.sum)
    }
}

/// A class JavaScript constructs: `new Vector(3, 4)`.
final class Vector: JSExport {
    let x: Double, y: Double
    init(x: Double, y: Double) { self.x = x; self.y = y }
    var length: Double { (x * x + y * y).squareRoot() }

    static let jsClass = JSClass(Vector.self) { c in
        c.constructor { (x: Double, y: Double) in Vector(x: x, y: y) }
        c.property("x", \.x)
        c.property("y", \.y)
        c.property("length", \.length)
        c.method("plus(_:)", as: "plus") { (v: Vector, other: Vector) in Vector(x: v.x + other.x, y: v.y + other.y) }
        c.staticMethod("zero") { () in Vector(x: 0, y: 0) }
    }
}

let context = JSContext()!
context.exceptionHandler = { _, exception in print("JS exception:", exception?.description ?? "?") }

// The exported object: JavaScript writes `sum` with the result of `add`, Swift reads it back.
let calculator = Calculator()
context["OCObj"] = calculator
context.evaluateScript("OCObj.sum = OCObj.add(2, 3)")
print("OCObj.sum = OCObj.add(2, 3) → calculator.sum =", calculator.sum)
print("the same object both ways:", context.evaluateScript("OCObj")!.toObject() as? Calculator === calculator)

// The exported class: constructed, used and inspected from JavaScript.
context["Vector"] = Vector.self
let result = context.evaluateScript("""
    var v = new Vector(3, 4).plus(Vector.zero());
    [v.length, v instanceof Vector, Object.prototype.toString.call(v)].join(', ')
    """)!
print("new Vector(3, 4).plus(Vector.zero()) →", result.toString()!)
let vector = context.objectForKeyedSubscript("v")!.toObject() as? Vector
print("back in Swift: Vector(x: \(vector?.x ?? 0), y: \(vector?.y ?? 0))")

// Mistakes are TypeErrors, not crashes: the two lines below are expected errors, caught by the
// script and printed as such.
print("expected error, Vector(1, 2) without new →",
      context.evaluateScript("try { Vector(1, 2) } catch (e) { e.name + ': ' + e.message }")!.toString()!)
print("expected error, v.plus({x: 1, y: 1}) →",
      context.evaluateScript("try { v.plus({x: 1, y: 1}) } catch (e) { e.name + ': ' + e.message }")!.toString()!)
