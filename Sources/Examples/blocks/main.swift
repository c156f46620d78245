// Blocks: Swift closures as JavaScript functions, and JavaScript functions called from Swift.
// (JavaScriptCore's "blocks" examples, on Linux.)
import DuktapeCore
import Foundation

let context = JSContext()!
context.exceptionHandler = { _, exception in print("JS exception:", exception?.description ?? "?") }

// 1. A Swift closure as a JavaScript function: `add(2, 3)`.
context["add"] = JSValue(newFunctionIn: context) { (a: Int, b: Int) in a + b }
print("add(2, 3) =", context.evaluateScript("add(2, 3)")!.toInt32())

// 2. A dictionary argument, like the makeNSColor block: JavaScript passes an object literal,
//    Swift receives [String: Double].
struct Color: CustomStringConvertible {
    var red: Double, green: Double, blue: Double
    var description: String { String(format: "Color(red: %.2f, green: %.2f, blue: %.2f)", red, green, blue) }
}
context["makeColor"] = JSValue(newFunctionIn: context) { (rgb: [String: Double]) -> String in
    Color(red: (rgb["red"] ?? 0) / 255, green: (rgb["green"] ?? 0) / 255, blue: (rgb["blue"] ?? 0) / 255).description
}
print("makeColor({red: 255, green: 128, blue: 0}) =",
      context.evaluateScript("makeColor({red: 255, green: 128, blue: 0})")!.toString()!)

// 3. A JavaScript function called from Swift with call(withArguments:).
context.evaluateScript("""
    var factorial = function (n) {
        if (n < 0) return;
        if (n === 0) return 1;
        return n * factorial(n - 1);
    };
    """)
let factorial = context.objectForKeyedSubscript("factorial")!
print("factorial(5) =", factorial.call(withArguments: [5])!.toInt32())

// 4. Inside a closure: the calling context, `this`, every argument, and errors both ways.
context["describeCall"] = JSValue(newFunctionIn: context) { this, arguments in
    "this.name = \(this.forProperty("name").toString() ?? "?"), \(arguments.count) arguments"
}
print(context.evaluateScript("({name: 'receiver', describe: describeCall}).describe(1, 2, 3)")!.toString()!)

struct Refused: Error, CustomStringConvertible {
    var description: String { "refused by Swift" }
}
context["refuse"] = JSValue(newFunctionIn: context) { () throws -> Int in throw Refused() }
print("caught in JS:", context.evaluateScript("try { refuse() } catch (e) { e.message }")!.toString()!)
do {
    try context.evaluate("refuse()")
} catch let error as Refused {
    print("caught in Swift:", error)
}
