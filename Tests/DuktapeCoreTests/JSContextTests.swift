import Foundation
import Testing

@testable import DuktapeCore

@Suite("JSContext")
struct JSContextTests {
    @Test func evaluateScriptReturnsTheLastValue() {
        let context = JSContext()!
        #expect(context.evaluateScript("2 + 2").toInt32() == 4)
        #expect(context.evaluateScript("var x = 6 * 7; x").toInt32() == 42)
        #expect(context.evaluateScript("x").toInt32() == 42)
        #expect(context.evaluateScript("").isUndefined)
        #expect(context.evaluateScript("function f() {}").isUndefined)
        #expect(context.evaluateScript("'str'").toString() == "str")
        #expect(context.evaluateScript(nil).isUndefined)
        #expect(context.evaluateScript("this === globalThis").toBool())
    }

    @Test func evaluateScriptOnExceptionCallsTheHandlerAndReturnsUndefined() {
        let context = JSContext()!
        #expect(context.exception == nil)
        let result = context.evaluateScript("throw new TypeError('boom')")
        #expect(result != nil && result!.isUndefined)
        #expect(context.exception.toString() == "TypeError: boom")
        // Success does not clear it (JavaScriptCore); it can be cleared by hand.
        context.evaluateScript("1")
        #expect(context.exception != nil)
        context.exception = nil
        #expect(context.exception == nil)
    }

    @Test func customAndNilExceptionHandlers() {
        let context = JSContext()!
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        context.evaluateScript("throw new RangeError('one')")
        context.evaluateScript("}")
        #expect(recorder.messages == ["RangeError: one", "SyntaxError: Declaration or statement expected. (line 1, column 1)"])
        #expect(context.exception == nil)
        context.exceptionHandler = nil
        #expect(context.exceptionHandler == nil)
        context.evaluateScript("throw 1")
        #expect(context.exception == nil)
        #expect(context.evaluateScript("'still fine'").toString() == "still fine")
    }

    @Test func theHandlerReceivesTheContextAndMayReenter() {
        let context = JSContext()!
        var seen: [String] = []
        let expected = ObjectIdentifier(context)
        // The handler must not capture `context` (context → handler → context would be a
        // retain cycle, as in JavaScriptCore): it receives it as an argument.
        context.exceptionHandler = { handlerContext, exception in
            #expect(handlerContext.map(ObjectIdentifier.init) == expected)
            // Re-entrant use from inside the handler (same thread, recursive lock).
            let count = handlerContext?.evaluateScript("typeof errors === 'undefined' ? 1 : ++errors").toInt32() ?? 0
            handlerContext?.setObject(count, forKeyedSubscript: "errors")
            seen.append(exception?.forProperty("message").toString() ?? "")
        }
        context.evaluateScript("throw new Error('a')")
        context.evaluateScript("throw new Error('b')")
        #expect(seen == ["a", "b"])
        #expect(context.evaluateScript("errors").toInt32() == 2)
    }

    @Test func exceptionSetterBoxesPrimitivesAndDropsNullAndUndefined() {
        let context = JSContext()!
        context.exception = JSValue(int32: 42, in: context)
        #expect(context.exception.isObject)
        #expect(context.exception.toInt32() == 42)
        context.exception = JSValue(nullIn: context)
        #expect(context.exception == nil)
        context.exception = JSValue(undefinedIn: context)
        #expect(context.exception == nil)
        context.evaluateScript("throw 'text'")
        #expect(context.exception.isObject)
        #expect(context.exception.toString() == "text")
    }

    @Test func sourceURLReachesErrorsWithBothSpellings() throws {
        let context = JSContext()!
        let url = try #require(URL(string: "file:///app/rules.js"))
        context.evaluateScript("\n\nthrow new Error('where')", withSourceURL: url)
        let exception = try #require(context.exception)
        #expect(exception.forProperty("sourceURL").toString() == "file:///app/rules.js")
        #expect(exception.forProperty("fileName").toString() == "file:///app/rules.js")
        #expect(exception.forProperty("line").toInt32() == 3)
        #expect(exception.forProperty("lineNumber").toInt32() == 3)
        // The aliases are not enumerable own or prototype properties of errors.
        #expect(context.evaluateScript("Object.keys(new Error('x')).indexOf('line')").toInt32() == -1)
    }

    @Test func throwingEvaluateDescribesTheException() throws {
        let context = JSContext()!
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        do {
            try context.evaluate("var a = 1;\nnull.x", sourceURL: URL(string: "file:///t.js"))
            Issue.record("expected a throw")
        } catch let exception as JSException {
            #expect(exception.name == "TypeError")
            #expect(exception.message.contains("null"))
            #expect(exception.line == 2)
            #expect(exception.column == nil)
            #expect(exception.sourceURL == "file:///t.js")
            #expect(exception.stack?.contains("file:///t.js:2") == true)
            #expect(exception.value.isObject)
            #expect(exception.description.hasPrefix("TypeError: "))
        }
        // The throwing API does not call the handler.
        #expect(recorder.messages.isEmpty)
        #expect(try context.evaluate("1 + 2").toInt32() == 3)
    }

    @Test func globalObjectAndSubscripts() throws {
        let context = JSContext()!
        context.setObject("Hello", forKeyedSubscript: "message")
        #expect(context.objectForKeyedSubscript("message").toString() == "Hello")
        context.setObject(1, forKeyedSubscript: "a" as NSString)
        #expect(context.evaluateScript("a + 1").toInt32() == 2)
        #expect(context.globalObject.forProperty("message").toString() == "Hello")
        #expect(context.globalObject.isEqual(to: context.evaluateScript("this")))
        context["answer"] = 42
        let answer: Int? = context["answer"]
        #expect(answer == 42)
        let missing: Int? = context["nope"]
        #expect(missing == nil)
        context["function"] = context.evaluateScript("(function (x) { return x * 2 })")
        #expect(context["function"].call(withArguments: [21]).toInt32() == 42)
        #expect(context.objectForKeyedSubscript(7).isUndefined)
        #expect(context.objectForKeyedSubscript("undefinedGlobal").isUndefined)
    }

    @Test func nameAndInspectable() {
        let context = JSContext()!
        #expect(context.name == nil)
        context.name = "rules"
        #expect(context.name == "rules")
        context.name = nil
        #expect(context.name == nil)
        #expect(context.isInspectable == false)
        context.isInspectable = true
        #expect(context.isInspectable)
    }

    @Test func callbackAccessorsAreNilOutsideCallbacks() {
        _ = JSContext()!
        #expect(JSContext.current() == nil)
        #expect(JSContext.currentThis() == nil)
        #expect(JSContext.currentCallee() == nil)
        #expect(JSContext.currentArguments() == nil)
    }

    @Test func initWithNilVirtualMachineFails() {
        #expect(JSContext(virtualMachine: nil) == nil)
    }
}
