import ArgumentParser
import DuktapeCore
import Foundation

extension DukJS {
    /// A short, readable session with the embedded example script: evaluation, conversion in
    /// both directions, and an exception with its location. `make demo` runs it.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show evaluation, conversion and an exception on an embedded example script.")

        func run() throws {
            let session = DemoSession()
            try session.run()
        }
    }
}

/// The embedded example: a small pricing-rules module, the kind of script an app embeds.
let demoScript = """
    var rules = {
        currency: 'EUR',
        discountFor: function (customer) {
            if (customer.tier === 'gold') return 0.15;
            if (customer.orders > 10) return 0.05;
            return 0;
        },
        price: function (order, customer) {
            var total = 0;
            for (var i = 0; i < order.items.length; i++) {
                var item = order.items[i];
                if (typeof item.unitPrice !== 'number') throw new TypeError('item ' + item.sku + ' has no price');
                total += item.unitPrice * item.quantity;
            }
            var discount = this.discountFor(customer);
            return { sku: order.items.map(function (i) { return i.sku }), subtotal: total,
                     discount: discount, total: Math.round(total * (1 - discount) * 100) / 100,
                     currency: this.currency, pricedAt: new Date(0) };
        }
    };
    'rules loaded: ' + Object.keys(rules).join(', ');
    """

struct DemoSession {
    func run() throws {
        let context = JSContext()!
        let url = URL(string: "demo://pricing-rules.js")

        step("Evaluate the embedded script")
        let loaded = try context.evaluate(demoScript, sourceURL: url)
        show("evaluate(script)", loaded.toString() ?? "")
        show("evaluateScript(\"6 * 7\").toInt32()", "\(context.evaluateScript("6 * 7").toInt32())")
        show("\"😀\".length for a Swift string", "\(context.evaluateScript("(function (s) { return s.length })").call(withArguments: ["😀"]).toInt32())")

        step("Swift → JavaScript: pass Swift values as arguments (no source splicing)")
        let order: [String: Any] = [
            "items": [
                ["sku": "tea", "unitPrice": 4.5, "quantity": 2],
                ["sku": "mug", "unitPrice": 12, "quantity": 1],
            ],
        ]
        let customer: [String: Any] = ["name": "Ada", "tier": "gold", "orders": 3]
        show("order", "\(order)")
        let rules = context.objectForKeyedSubscript("rules")!
        let priced = rules.invokeMethod("price", withArguments: [order, customer])!

        step("JavaScript → Swift: read the result with JavaScriptCore's conversions")
        let result = priced.toDictionary() ?? [:]
        for key in result.keys.compactMap({ $0.base as? String }).sorted() {
            show("result[\"\(key)\"]", "\(result[key] ?? "nil")  (\(type(of: result[key] ?? "")))")
        }
        let total: Double? = priced["total"]
        show("let total: Double? = priced[\"total\"]", total.map { "\($0)" } ?? "nil")

        step("An exception, as JSException (throwing API) and via exceptionHandler (JSC API)")
        let broken: [String: Any] = ["items": [["sku": "gift-card", "quantity": 1]]]
        do {
            try context.objectForKeyedSubscript("rules").forProperty("price").call(broken, customer)
        } catch let exception as JSException {
            show("name", exception.name ?? "-")
            show("message", exception.message)
            show("line", exception.line.map(String.init) ?? "-")
            show("sourceURL", exception.sourceURL ?? "-")
        }
        context.exceptionHandler = { _, exception in
            show("exceptionHandler got", exception?.description ?? "nil")
        }
        context.evaluateScript("rules.price({items: [{sku: 'x'}]}, {})")

        step("Limits: a runaway script under a 50 ms time limit")
        context.virtualMachine.executionTimeLimit = 0.05
        do {
            try context.evaluate("while (true) {}")
        } catch {
            show("while (true) {}", "\(error)")
        }
        show("still usable", context.evaluateScript("'yes'").toString() ?? "")
    }

    private func step(_ title: String) {
        printLine("\n== \(title)")
    }
}

private func show(_ label: String, _ value: String) {
    printLine("  \(label) → \(value)")
}
