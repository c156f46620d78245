import Foundation
import Testing

@testable import DuktapeCore

@Suite("JSException")
struct JSExceptionTests {
    let context = JSContext()!

    @Test(arguments: [
        ("throw new Error('m')", "Error", "m"),
        ("throw new TypeError('t')", "TypeError", "t"),
        ("throw new RangeError('r')", "RangeError", "r"),
        ("undefinedFunction()", "ReferenceError", "identifier 'undefinedFunction' undefined"),
        ("1 +", "SyntaxError", "parse error (line 1, end of input)"),
        ("var e = new Error('custom'); e.name = 'MyError'; throw e", "MyError", "custom"),
    ])
    func errorsCarryNameAndMessage(script: String, name: String, message: String) throws {
        let exception = try #require(thrown(context, script))
        #expect(exception.name == name)
        #expect(exception.message == message)
        #expect(exception.value.isObject)
    }

    @Test(arguments: [
        ("throw 42", "42"), ("throw null", "null"), ("throw undefined", "undefined"),
        ("throw 'text'", "text"), ("throw true", "true"), ("throw Symbol('s')", "Symbol(s)"),
    ])
    func thrownNonErrorsKeepTheirValue(script: String, message: String) throws {
        let exception = try #require(thrown(context, script))
        #expect(exception.name == nil)
        #expect(exception.message == message)
        #expect(exception.stack == nil)
        #expect(exception.line == nil)
        #expect(exception.value.isObject == false)
    }

    @Test func thrownObjectsWithoutErrorShape() throws {
        let plain = try #require(thrown(context, "throw {code: 7}"))
        #expect(plain.value.forProperty("code").toInt32() == 7)
        #expect(plain.name == nil)
        #expect(plain.message == "[object Object]")
        let hostile = try #require(thrown(context, "throw {get name() { throw 1 }, get message() { throw 2 }, toString: function () { throw 3 }}"))
        #expect(hostile.name == nil)
        #expect(hostile.message == "")
        #expect(try context.evaluate("'usable'").toString() == "usable")
    }

    @Test func locationAndStack() throws {
        let exception = try #require(thrown(context, "function inner() { throw new Error('deep') }\nfunction outer() { inner() }\nouter()"))
        #expect(exception.line == 1)
        #expect(exception.stack?.contains("inner") == true)
        #expect(exception.stack?.contains("outer") == true)
        #expect(exception.description.hasPrefix("Error: deep"))
    }

    @Test func exceptionsAreSendableAndOutliveTheirScope() async throws {
        let exception = try #require(thrown(context, "throw new Error('travels')"))
        let message = await Task.detached { exception.value.forProperty("message").toString() }.value
        #expect(message == "travels")
    }
}
