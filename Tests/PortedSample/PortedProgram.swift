import DuktapeCore

// A typical iOS JavaScriptCore program, ported by changing its import line from
// `import JavaScriptCore` to `import DuktapeCore` and nothing else. It is built with
// `-warnings-as-errors` (Package.swift): ignored results of JavaScriptCore members, Foundation
// types without `import Foundation`, and `[String: Any]` block parameters must all compile
// cleanly, as they do against Apple's framework. Only the closures are not Apple's
// `@convention(block)` blocks, which need the Objective-C runtime (README, "Porting").

/// Collects what the program prints, so the test can compare it.
public final class PortedLog: @unchecked Sendable {
    public private(set) var lines: [String] = []
    func print(_ line: String) { lines.append(line) }
}

/// Runs the program and returns its output.
public func runPortedProgram() -> [String] {
    let log = PortedLog()
    let virtualMachine = JSVirtualMachine()!
    let context = JSContext(virtualMachine: virtualMachine)!
    context.name = "Pricing"
    context.exceptionHandler = { _, exception in
        log.print("JS error: \(exception!.toString()!)")
    }

    // Native functions the script calls (JavaScriptCore blocks taking NSDictionary * and id).
    let makeColor = JSValue(newFunctionIn: context) { (rgb: [String: Any]) -> String in
        let red = rgb["red"] as? Double ?? 0, green = rgb["green"] as? Double ?? 0, blue = rgb["blue"] as? Double ?? 0
        return String(format: "#%02X%02X%02X", Int(red * 255), Int(green * 255), Int(blue * 255))
    }
    context.setObject(makeColor, forKeyedSubscript: "makeColor" as NSString)
    let report = JSValue(newFunctionIn: context) { (value: Any) in
        log.print("report: \(value is NSNull ? "null" : "\(value)")")
    }
    context.setObject(report, forKeyedSubscript: "report" as NSString)

    // Configuration in, as Foundation values.
    context.setObject(["currency": "EUR", "rate": 1.08, "tags": ["a", "b"], "note": NSNull()],
                      forKeyedSubscript: "config" as NSString)
    let source = """
        var rules = {
            price: function (amount) { return Math.round(amount * config.rate * 100) / 100 },
            label: function (item) { return item.name + ' (' + config.currency + ')' }
        };
        function total(items) {
            var sum = 0;
            for (var i = 0; i < items.length; i++) sum += rules.price(items[i].amount);
            return sum;
        }
        report(config.note);
        """
    context.evaluateScript(source, withSourceURL: URL(string: "file:///app/rules.js"))

    // Calls from Swift, results ignored and used, as ported code does.
    let items: [[String: Any]] = [["name": "Tea", "amount": 10], ["name": "Cake", "amount": 4.5]]
    let total = context.objectForKeyedSubscript("total")!
    total.call(withArguments: [items])
    log.print("total: \(total.call(withArguments: [items])!.toDouble())")
    let rules = context.objectForKeyedSubscript("rules")!
    rules.invokeMethod("price", withArguments: [1])
    log.print("label: \(rules.invokeMethod("label", withArguments: [items[0]])!.toString()!)")
    log.print("color: \(context.evaluateScript("makeColor({red: 1, green: 0.5, blue: 0})")!.toString()!)")

    // Values both ways.
    let point = JSValue(point: CGPoint(x: 3, y: 4), in: context)!
    point.toPoint()
    log.print("point: \(point.forProperty("x")!.toInt32()),\(point.forProperty("y")!.toInt32())")
    let object = JSValue(newObjectIn: context)!
    object.setValue("value" as NSString, forProperty: "key")
    object.hasProperty("key")
    object.deleteProperty("missing")
    object.isEqual(to: object)
    log.print("keys: \(object.toDictionary()!.keys.map { "\($0)" }.sorted())")
    let tags = context.evaluateScript("config.tags")!
    tags.toArray()
    log.print("tags: \(tags.toArray()!.compactMap { $0 as? String })")
    let date = JSValue(object: Date(timeIntervalSince1970: 0), in: context)!
    log.print("epoch: \(date.toDate()!.timeIntervalSince1970)")

    // A managed reference, as an exported object keeps a JS callback without a cycle.
    let owner = NSObject()
    let handler = JSManagedValue(value: context.evaluateScript("(function (x) { return x * 2 })"))!
    virtualMachine.addManagedReference(handler, withOwner: owner)
    log.print("managed: \(handler.value!.call(withArguments: [21])!.toInt32())")
    virtualMachine.removeManagedReference(handler, withOwner: owner)

    // An error, with JavaScriptCore's exception properties.
    context.evaluateScript("rules.missing()")
    context.exceptionHandler = { context, exception in context?.exception = exception }  // JSC's default
    context.evaluateScript("null.x")
    log.print("exception: \(context.exception?.forProperty("name")?.toString() ?? "none")")
    return log.lines
}
