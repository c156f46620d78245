import Testing
import Foundation
@testable import DuktapeCore

@Test func smoke() throws {
    let c = JSContext()!
    #expect(c.evaluateScript("2 + 2").toInt32() == 4)
    c.setObject("Hello", forKeyedSubscript: "message")
    #expect(c.objectForKeyedSubscript("message").toString() == "Hello")
    let o = JSValue(object: ["x": 1, "a": [1, "two", NSNull()]], in: c)!
    print(o.toObject() as Any)
    #expect(c.evaluateScript("'\u{1F600}'").toString() == "😀")
    c["s"] = "😀"
    #expect(c.evaluateScript("s.length").toInt32() == 2)
    #expect(c.evaluateScript("'\\uD83D\\uDE00'").toString() == "😀")
    #expect(c.evaluateScript("'a\\uD83Db'").toString() == "a\u{FFFD}b")
    c.evaluateScript("throw new TypeError('boom')")
    print(c.exception as Any)
    do { try c.evaluate("1 +", sourceURL: URL(string: "file:///x.js")) } catch { print(error) }
    do { try c.evaluate("null.x", sourceURL: URL(string: "file:///y.js")) } catch { print(error, (error as? JSException)?.stack ?? "") }
    c.evaluateScript("var e = new Error('m')", withSourceURL: URL(string: "file:///z.js"))
    print(c.evaluateScript("[e.line, e.sourceURL]").toArray() as Any)
    let vm = JSVirtualMachine()!
    vm.executionTimeLimit = 0.1
    let t = JSContext(virtualMachine: vm)!
    do { try t.evaluate("while(true){}") } catch { print(error) }
    #expect(t.evaluateScript("1+1").toInt32() == 2)
    vm.memoryLimit = 4 << 20
    do { try t.evaluate("var s = 'x'; while(true) s = s + s;") } catch { print(error) }
    do { try t.evaluate("var a = []; while(true) a.push({});") } catch { print(error) }
    t.evaluateScript("s = null; a = null")
    vm.garbageCollect()
    #expect(t.evaluateScript("1+1").toInt32() == 2)
    print(vm.memoryUsage)
}
