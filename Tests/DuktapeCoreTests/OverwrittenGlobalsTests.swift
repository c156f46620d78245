import Foundation
import Testing

@testable import DuktapeCore

/// The library takes every built-in it relies on from the realm's own table, captured before any
/// script runs: a script that overwrites the globals changes nothing in how exports, conversions,
/// closures, managed values and exceptions work (issue 14).
@Suite("Overwritten globals")
struct OverwrittenGlobalsTests {
    static let vandalism = """
        (function (g) {
            var names = ['Symbol', 'Object', 'Array', 'Function', 'Error', 'TypeError', 'RangeError',
                         'SyntaxError', 'ReferenceError', 'JSON', 'Date', 'String', 'Number', 'Boolean',
                         'RegExp', 'Uint8Array', 'ArrayBuffer', 'Proxy', 'Reflect', 'Math'];
            var saved = {};
            for (var i = 0; i < names.length; i++) saved[names[i]] = g[names[i]];
            var boom = function () { throw new saved.Error('a script built-in was used') };
            saved.Function.prototype.call = boom;
            saved.Function.prototype.apply = boom;
            saved.Function.prototype.bind = boom;
            saved.Function.prototype.toString = boom;
            saved.Object.defineProperty = boom;
            saved.Object.defineProperties = boom;
            saved.Object.prototype.toString = boom;
            saved.Object.keys = boom;
            saved.Array.prototype.push = boom;
            saved.Array.isArray = boom;
            saved.Error.prototype.toString = boom;
            saved.Symbol.toStringTag = undefined;
            saved.JSON.stringify = boom;
            for (var j = 0; j < names.length; j++) g[names[j]] = undefined;
        })(this)
        """

    @Test func everyLibraryPathWorksAfterTheGlobalsAreGone() throws {
        let context = JSContext()!
        context.evaluateScript(Self.vandalism)
        #expect(context.exception == nil)
        #expect(context.evaluateScript("typeof Symbol + typeof Object + typeof Error").toString() == "undefinedundefinedundefined")

        // Exports: a class, an instance, a method taking a dictionary, a static method.
        context["Panel"] = Panel.self
        #expect(context.exception == nil)
        #expect(context.evaluateScript("new Panel({title: 'T'}).option('title')").toString() == "T")
        #expect(context.evaluateScript("Panel.describe(1)").toString() == "NSNumber")
        let panel = Panel(options: [:])
        context["panel"] = panel
        #expect(context["panel"].toObject() as? Panel === panel)

        // Conversions both ways.
        let object = JSValue(object: ["a": [1, 2], "d": Date(timeIntervalSince1970: 1), "b": Data([1, 2])], in: context)!
        #expect((object.forProperty("a").toArray() as? [Int]) == [1, 2])
        #expect(object.forProperty("d").toDate() == Date(timeIntervalSince1970: 1))
        #expect(object.forProperty("b").toObject() as? Data == Data([1, 2]))
        #expect(object.toDictionary()?.count == 3)
        #expect(JSValue(point: CGPoint(x: 1, y: 2), in: context).toPoint() == CGPoint(x: 1, y: 2))

        // Closures, typed and untyped, and a Swift error through them.
        context["add"] = JSValue(newFunctionIn: context) { (a: Int, b: Int) in a + b }
        #expect(context.evaluateScript("add(2, 3)").toInt32() == 5)
        struct Refused: Error {}
        context["refuse"] = JSValue(newFunctionIn: context) { () throws -> Int in throw Refused() }
        #expect(throws: Refused.self) { try context.evaluate("refuse()") }
        let function = context.evaluateScript("(function (x) { return x * 2 })")!
        #expect(try function.call(21, returning: Int.self) == 42)
        #expect(function.call(withArguments: [4]).toInt32() == 8)

        // Managed values.
        var value: JSValue? = context.evaluateScript("({tag: 'kept'})")
        let managed = JSManagedValue(value: value)!
        context.virtualMachine.addManagedReference(managed, withOwner: panel)
        value = nil
        context.virtualMachine.garbageCollect()
        #expect(managed.value?.forProperty("tag").toString() == "kept")

        // Exceptions: the engine's own errors keep their names; a limit still stops a script.
        let typeError = try #require(thrown(context, "null.x"))
        #expect(typeError.name == "TypeError")
        #expect(typeError.message == "cannot read property 'x' of null")
        #expect(thrown(context, "(function f() { f() })()")?.name == "RangeError")
        context.virtualMachine.executionTimeLimit = 0.05
        #expect(thrown(context, "while (true) {}")?.message == "execution timeout")
        context.virtualMachine.executionTimeLimit = nil
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }
}
