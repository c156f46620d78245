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
        ("1 +", "SyntaxError", "Expression expected. (line 1, end of input)"),
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

    /// Stacks read as JavaScriptCore's ("name@sourceURL:line", one frame per line, "global
    /// code" for the program, "[native code]" for built-ins), for scripts (`error.stack`) and
    /// for Swift (`JSException.stack`), with none of the engine's C frames or flags.
    @Test func stacksReadAsJavaScriptCoresWithoutEngineInternals() throws {
        let url = URL(string: "file:///app/main.js")
        context.evaluateScript("""
            function inner() { null.x }
            function outer() { [1].map(function () { inner() }) }
            """, withSourceURL: url)
        let exception = try #require(thrown(context, "outer()"))
        let expected = """
            inner@file:///app/main.js:1
            @file:///app/main.js:2
            map@[native code]
            outer@file:///app/main.js:2
            global code@:1
            """
        #expect(exception.stack == expected)
        #expect(context.evaluateScript("try { outer() } catch (e) { e.stack }").toString() == expected)
        for script in ["null.x", "JSON.parse('{')", "decodeURIComponent('%')", "new Array(-1)", "undefined()"] {
            let stack = try #require(thrown(context, script)?.stack)
            for fragment in ["duk_", ".c:", "internal", "preventsyield", "strict", " at "] {
                #expect(!stack.contains(fragment), "\(script): \(stack)")
            }
        }
        // A script's own stack property still wins (Duktape's setter is kept).
        #expect(context.evaluateScript("var e = new Error('x'); e.stack = 'mine'; e.stack").toString() == "mine")
    }

    /// The built-ins this package adds in C (Promise, Map and Set, Reflect, Object.fromEntries,
    /// String.prototype.matchAll, Symbol.prototype.description...) blame the script that called
    /// them, as the engine's own built-ins do: never a C file of the package.
    @Test(arguments: [
        "Promise.prototype.then.call(1)",
        "Promise(function () {})",
        "new Map().get.call(1)",
        "new Set([1]).forEach(1)",
        "new WeakMap().set(1, 1)",
        "Object.fromEntries(1)",
        "Object.fromEntries([1])",
        "Reflect.get(1, 'x')",
        "'a'.matchAll(/a/)",
        "Object.getOwnPropertyDescriptor(Symbol.prototype, 'description').get.call(1)",
        "''.normalize('x')",
        "Array.from(null)",
        "new Uint8Array(1).slice.call([])",
    ])
    func errorsFromPackageBuiltInsBlameTheCallingScript(script: String) throws {
        let url = URL(string: "file:///app/rules.js")
        let exception = try #require(thrown(context, "\n" + script, sourceURL: url))
        #expect(exception.sourceURL == "file:///app/rules.js", "\(script)")
        #expect(exception.line == 2, "\(script)")
        let fields = try #require(context.evaluateScript(
            "try { \(script) } catch (e) { [e.fileName, e.lineNumber, e.stack].join('|') }", withSourceURL: url)?.toString())
        #expect(fields.hasPrefix("file:///app/rules.js|1|"), "\(script): \(fields)")
        #expect(!fields.contains(".c"), "\(script): \(fields)")
    }

    /// JavaScriptCore (WebKit testapi behaviour 19): no URL, no sourceURL.
    @Test func noSourceURLWithoutAURL() throws {
        let exception = try #require(thrown(context, "null.x"))
        #expect(exception.sourceURL == nil)
        #expect(context.evaluateScript("try { null.x } catch (e) { e.sourceURL }").isUndefined)
        #expect(context.evaluateScript("try { null.x } catch (e) { e.line }").toInt32() == 1)
        let withURL = try #require(thrown(context, "null.x", sourceURL: URL(string: "file:///a.js")))
        #expect(withURL.sourceURL == "file:///a.js")
        let syntax = try #require(thrown(context, "1 +\n+", sourceURL: URL(string: "file:///s.js")))
        #expect(syntax.description == "SyntaxError: Expression expected. (file:///s.js:2)")
        let syntaxWithoutURL = try #require(thrown(context, "1 +"))
        #expect(syntaxWithoutURL.description == "SyntaxError: Expression expected. (line 1, end of input)")
    }

    @Test func exceptionsAreSendableAndOutliveTheirScope() async throws {
        let exception = try #require(thrown(context, "throw new Error('travels')"))
        let message = await Task.detached { exception.value.forProperty("message").toString() }.value
        #expect(message == "travels")
    }
}
