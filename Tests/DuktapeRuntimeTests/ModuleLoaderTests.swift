import ChildProcess
import DuktapeCore
import DuktapeRuntime
import Foundation
import Testing

@Suite("require: Node's CommonJS on a real folder tree")
struct ModuleLoaderFileSystemTests {
    @Test func resolutionOrderAsNodeDoes() throws {
        let tree = try TemporaryTree([
            "app/main.js": """
                exports.results = [
                  require('./lib/plain'),          // ./lib/plain.js
                  require('./lib/data').value,     // ./lib/data.json
                  require('./lib/folder'),         // ./lib/folder/index.js
                  require('./lib/pkg'),            // ./lib/pkg/package.json main
                  require('./lib/pkg-main-dir'),   // main naming a folder with an index
                  require('./lib/exact.js'),       // an exact name first
                  require('dep'),                  // app/node_modules/dep
                  require('top'),                  // node_modules one folder up
                  require('shared'),               // a configured root
                  require('dep/extra'),            // a file inside a package
                  require('../outside'),
                ];
                """,
            "app/lib/plain.js": "module.exports = 'plain'",
            "app/lib/plain/index.js": "module.exports = 'not this one'",
            "app/lib/data.json": #"{ "value": "json" }"#,
            "app/lib/folder/index.js": "module.exports = 'index'",
            "app/lib/pkg/package.json": #"{ "main": "src/entry.js" }"#,
            "app/lib/pkg/src/entry.js": "module.exports = 'package main'",
            "app/lib/pkg-main-dir/package.json": #"{ "main": "dist" }"#,
            "app/lib/pkg-main-dir/dist/index.js": "module.exports = 'main folder index'",
            "app/lib/exact.js": "module.exports = 'exact'",
            "app/lib/exact.js.js": "module.exports = 'wrong'",
            "app/node_modules/dep/index.js": "module.exports = 'dep'",
            "app/node_modules/dep/extra.js": "module.exports = 'dep extra'",
            "node_modules/top/index.js": "module.exports = 'top'",
            "roots/shared.js": "module.exports = 'shared root'",
            "outside.js": "module.exports = 'outside'",
        ])
        let context = JSContext()!
        let modules = try #require(ModuleLoader(
            context: context, resolver: FileSystemModuleResolver(base: tree.root, roots: [tree.root.appendingPathComponent("roots")])))
        let exports = try modules.runMain("./app/main.js")
        let results = exports.forProperty("results").toArray() as? [String]
        #expect(results == [
            "plain", "json", "index", "package main", "main folder index", "exact", "dep", "top", "shared root",
            "dep extra", "outside",
        ])
    }

    @Test func moduleObjectsAndScopes() throws {
        let tree = try TemporaryTree([
            "main.js": """
                var secret = 'main local';
                var info = require('./info');
                exports.info = info;
                exports.isMain = require.main === module && module.id === '.';
                exports.resolved = require.resolve('./info');
                exports.sawSecret = info.sawSecret;
                exports.loadedDuring = module.loaded;
                """,
            "info.js": """
                module.exports = {
                  id: module.id, filename: module.filename, file: __filename, dir: __dirname,
                  sawSecret: typeof secret !== 'undefined', thisIsExports: this === exports,
                  parent: module.parent.id, mainIsMain: require.main.id,
                };
                """,
        ])
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        let exports = try modules.runMain(tree.path("main.js"))
        let info = exports.forProperty("info")!
        #expect(info.forProperty("id").toString() == tree.path("info.js"))
        #expect(info.forProperty("filename").toString() == tree.path("info.js"))
        #expect(info.forProperty("file").toString() == tree.path("info.js"))
        #expect(info.forProperty("dir").toString() == tree.root.path)
        #expect(info.forProperty("thisIsExports").toBool())
        #expect(info.forProperty("parent").toString() == ".")
        #expect(info.forProperty("mainIsMain").toString() == ".")
        #expect(exports.forProperty("isMain").toBool())
        #expect(exports.forProperty("resolved").toString() == tree.path("info.js"))
        #expect(exports.forProperty("sawSecret").toBool() == false)
        #expect(exports.forProperty("loadedDuring").toBool() == false)
        // Module locals stay out of the global object.
        #expect(context.evaluateScript("typeof secret").toString() == "undefined")
        #expect(context.evaluateScript("require.main.loaded").toBool())
    }

    @Test func cyclesGetThePartlyFilledExports() throws {
        // Node's documentation example (Modules: cycles).
        let tree = try TemporaryTree([
            "a.js": """
                exports.done = false;
                var b = require('./b.js');
                exports.log = ['in a, b.done = ' + b.done];
                exports.done = true;
                """,
            "b.js": """
                exports.done = false;
                var a = require('./a.js');
                exports.sawA = 'in b, a.done = ' + a.done;
                exports.done = true;
                """,
            "main.js": "var a = require('./a.js'), b = require('./b.js'); module.exports = [b.sawA, a.log[0], String(a.done && b.done)]",
        ])
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        let result = try modules.runMain("./main.js").toArray() as? [String]
        #expect(result == ["in b, a.done = false", "in a, b.done = true", "true"])
    }

    @Test func theCacheIsKeyedByFilenameAndDeletable() throws {
        let tree = try TemporaryTree(["counter.js": "globalThis.loads = (globalThis.loads || 0) + 1; module.exports = { n: loads }"])
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        context.evaluateScript("var first = require('./counter'), again = require('./counter.js'), third = require('././x/../counter')")
        #expect(context.evaluateScript("first === again && again === third && loads === 1").toBool())
        context.globalObject.setValue(tree.path("counter.js"), forProperty: "key")
        context.evaluateScript("delete require.cache[key]; var fresh = require('./counter')")
        #expect(context.evaluateScript("fresh !== first && fresh.n === 2 && Object.keys(require.cache).length === 1").toBool())
    }

    @Test func missingModulesThrowModuleNotFoundWithThePathsTried() throws {
        let tree = try TemporaryTree(["main.js": "require('./nested')", "nested.js": "require('./missing')"])
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        do {
            try modules.runMain("./main.js")
            Issue.record("expected MODULE_NOT_FOUND")
        } catch let error as JSException {
            #expect(error.value.forProperty("code").toString() == "MODULE_NOT_FOUND")
            #expect(error.message.hasPrefix("Cannot find module './missing'\nRequire stack:\n- \(tree.path("nested.js"))\n- \(tree.path("main.js"))"))
            let tried = error.value.forProperty("paths").toArray() as? [String]
            let missing = tree.path("missing")
            #expect(tried == [
                missing, missing + ".js", missing + ".json", missing + "/package.json", missing + "/index.js",
                missing + "/index.json",
            ])
        }
        // The failed modules are not cached: fixing the tree makes the next require work.
        try Data("module.exports = 'now here'".utf8).write(to: tree.root.appendingPathComponent("missing.js"))
        context.evaluateScript("var ok = require('./nested')")
        #expect(context.exception == nil)
        #expect(context.evaluateScript("Object.keys(require.cache).length").toInt32() == 2)
        // Bare names report every node_modules folder tried.
        let bare: String = context.evaluateScript("try { require('nope') } catch (e) { e.paths.join('|') }").toString() ?? ""
        #expect(bare.contains(tree.path("node_modules/nope.js")))
        #expect(bare.hasSuffix("/node_modules/nope/index.json"))
    }

    @Test func errorsNameTheFileAndLine() throws {
        let tree = try TemporaryTree([
            "main.js": "require('./thrower')",
            "thrower.js": "var a = 1;\nvar b = 2;\nnull.boom;\n",
            "broken.js": "var x = ;\n",
            "bad.json": "{ \"a\": 1, }",
            "shebang.js": "#!/usr/bin/env dukjs\nmodule.exports = __filename",
            "bom.js": "\u{FEFF}module.exports = 'bom'",
        ])
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        do {
            try modules.runMain("./main.js")
            Issue.record("expected a TypeError")
        } catch let error as JSException {
            #expect(error.name == "TypeError")
            #expect(error.sourceURL == tree.path("thrower.js"))
            #expect(error.line == 3)
            #expect(error.stack?.contains(tree.path("thrower.js") + ":3") == true)
        }
        do {
            _ = try modules.require("./broken")
            Issue.record("expected a SyntaxError")
        } catch let error as JSException {
            #expect(error.name == "SyntaxError")
            #expect(error.line == 1)
            #expect(error.description.contains(tree.path("broken.js")))
        }
        do {
            _ = try modules.require("./bad.json")
            Issue.record("expected a SyntaxError")
        } catch let error as JSException {
            #expect(error.name == "SyntaxError")
            #expect(error.message.hasPrefix(tree.path("bad.json") + ": "))
        }
        #expect(try modules.require("./shebang").toString() == tree.path("shebang.js"))
        #expect(try modules.require("./bom").toString() == "bom")
    }

    @Test func aThousandModuleChain() throws {
        var files: [String: String] = [:]
        for index in 0..<1000 {
            files["chain/m\(index).js"] = index == 999
                ? "module.exports = 999"
                : "module.exports = require('./m\(index + 1)') + 0 * \(index)"
        }
        let tree = try TemporaryTree(files)
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        #expect(try modules.runMain("./chain/m0.js").toInt32() == 999)
        #expect(context.evaluateScript("Object.keys(require.cache).length").toInt32() == 1000)
    }

    @Test func hostileSpecifiers() throws {
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: InMemoryModuleResolver(["/a.js": "module.exports = 1"])))
        for (call, code) in [
            ("require()", "ERR_INVALID_ARG_TYPE"), ("require(42)", "ERR_INVALID_ARG_TYPE"),
            ("require({ toString: function () { return './a' } })", "ERR_INVALID_ARG_TYPE"),
            ("require('')", "ERR_INVALID_ARG_VALUE"), ("require('./a\\u0000.js')", "MODULE_NOT_FOUND"),
            ("require('../../../../a/../../etc/passwd')", "MODULE_NOT_FOUND"),
            ("require(new Array(100000).join('../') + 'x')", "MODULE_NOT_FOUND"),
        ] {
            let result = context.evaluateScript("try { \(call); 'no error' } catch (e) { e.code }")
            #expect(result?.toString() == code, "\(call)")
        }
        #expect(context.evaluateScript("require('/a')").toInt32() == 1)
        // Replacing the built-ins the loader uses changes nothing.
        context.evaluateScript("JSON.parse = null; Reflect.apply = null; Object.create = null; String.prototype.slice = null")
        #expect(context.evaluateScript("delete require.cache['/a.js']; require('./a.js')").toInt32() == 1)
    }
}

@Suite("require: in-memory resolver and sandboxes")
struct ModuleLoaderEmbeddingTests {
    @Test func inMemorySourcesResolveAsFilesDo() throws {
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: InMemoryModuleResolver([
            "/app/main.js": "module.exports = require('./lib/math').add(1, 2) + require('greet')('x').length",
            "app/lib/math.js": "exports.add = function (a, b) { return a + b }",
            "/app/node_modules/greet/package.json": #"{ "main": "greet.js" }"#,
            "/app/node_modules/greet/greet.js": "module.exports = function (n) { return 'hi ' + n }",
            "/config.json": #"{ "debug": true }"#,
        ])))
        #expect(try modules.runMain("/app/main.js").toInt32() == 7)
        #expect(try modules.require("./config.json").forProperty("debug").toBool())
    }

    @Test func sandboxedContextsGetNoFilesystemByDefault() throws {
        let tree = try TemporaryTree(["secret.js": "module.exports = 'secret'"])
        let sandboxed = JSContext(sandbox: JSSandbox())!
        let modules = try #require(ModuleLoader(context: sandboxed))
        #expect(modules.resolver == nil)
        sandboxed.globalObject.setValue(tree.path("secret.js"), forProperty: "path")
        #expect(sandboxed.evaluateScript("try { require(path) } catch (e) { e.code + ' ' + e.paths.length }").toString() == "MODULE_NOT_FOUND 0")
        // Given explicitly, a resolver works there too.
        let allowed = JSContext(sandbox: JSSandbox())!
        _ = try #require(ModuleLoader(context: allowed, resolver: FileSystemModuleResolver(base: tree.root)))
        #expect(allowed.evaluateScript("require('./secret')").toString() == "secret")
        // A plain context defaults to the filesystem.
        #expect(ModuleLoader(context: JSContext()!)?.resolver is FileSystemModuleResolver)
    }

    /// A package's `main` is resolved from its folder as Node's `path.resolve` does: an
    /// absolute one is taken as it is.
    @Test func anAbsoluteMainIsTakenAsItIs() throws {
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: InMemoryModuleResolver([
            "/app/node_modules/abs/package.json": #"{ "main": "/shared/target.js" }"#,
            "/shared/target.js": "module.exports = 'absolute'",
            "/app/node_modules/rel/package.json": #"{ "main": "../abs/../../../shared/target" }"#,
        ], base: "/app")))
        #expect(try modules.require("abs").toString() == "absolute")
        #expect(try modules.require("rel").toString() == "absolute")
    }

    @Test func resolutionHelpers() throws {
        let resolver = InMemoryModuleResolver(["/x/y.js": ""], base: "/x")
        #expect(try resolver.resolve("./y", from: nil) == "/x/y.js")
        #expect(try resolver.resolve("../x/./y.js", from: "/x/other.js") == "/x/y.js")
        #expect(throws: ModuleNotFound.self) { try resolver.resolve("y", from: nil) }
        #expect(throws: ModuleNotFound.self) { try resolver.source(at: "/nope.js") }
    }
}

@Suite("require: review cases")
struct ModuleLoaderReviewTests {
    /// A module's text that closes Node's wrapper would run its middle part at global scope
    /// while compiled; it is a SyntaxError instead, and none of it runs. Balanced texts, whatever
    /// braces they hold in strings, comments and regular expressions, load as before.
    @Test(arguments: [
        "}); globalThis.escaped = true; (function () {",
        "}; globalThis.escaped = true; function again() {",
        "}}); globalThis.escaped = true; ({ x: function () {",
        "} globalThis.escaped = true; {",
        // Modern syntax (lowered) and `const` (ES5-parseable, lowered for its semantics): the
        // check is on TypeScript's tree then.
        "}); globalThis.escaped = true; (() => {",
        "}); let x = (globalThis.escaped = true); (function () {",
        "}); const c = 1; globalThis.escaped = true; (function () {",
        "}), (globalThis.escaped = true), (function () {",
    ])
    func aTextThatClosesItsWrapperIsASyntaxError(text: String) throws {
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: InMemoryModuleResolver(["/evil.js": text])))
        let outcome = context.evaluateScript("try { require('/evil.js'); 'loaded' } catch (e) { e.name + ': ' + e.message }").toString()
        // Texts that are valid code once wrapped say so; the others are syntax errors of the
        // wrapped text (as in Node, whose message is the parser's too).
        #expect(outcome == "SyntaxError: /evil.js: the module's text closes the function it is wrapped in (an unmatched '}')"
            || outcome?.hasPrefix("SyntaxError: ')' expected.") == true, "\(outcome ?? "")")
        #expect(context.evaluateScript("typeof escaped").toString() == "undefined")
    }

    @Test func balancedTextsWithBracesInStringsCommentsAndRegExpsLoad() throws {
        let context = JSContext()!
        let modules = try #require(ModuleLoader(context: context, resolver: InMemoryModuleResolver([
            "/a.js": #"""
                'use strict';
                var s = '}); (function () {', re = /\}\)/, t = "}";  // }) in a comment
                /* }); */
                function e() { return 1 }  // a name like the probe's
                if (typeof module !== 'object') throw new Error('not a module');
                module.exports = [s, re.source, t, e(), (function () { return this })() === undefined].join('|');
                return;
                """#,
            "/broken.js": "module.exports = (",
            "/unfinished.js": "module.exports = 1 +",
        ])))
        #expect(try modules.require("/a.js").toString() == #"}); (function () {|\}\)|}|1|true"#)  // strict mode kept
        let broken = context.evaluateScript("try { require('/broken.js') } catch (e) { e.name + ' ' + (e.fileName || e.sourceURL) }").toString()
        #expect(broken == "SyntaxError /broken.js")  // a compile error keeps the module's name
        let unfinished = context.evaluateScript("try { require('/unfinished.js') } catch (e) { e.name + ' ' + (e.fileName || e.sourceURL) }")
        #expect(unfinished?.toString() == "SyntaxError /unfinished.js")
    }

    @Test func onlyRegularFilesAreModules() throws {
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver()))
        for path in ["/dev/zero", "/dev/null", "/dev/stdin", "/proc/self/fd/0"] {
            context.globalObject.setValue(path, forProperty: "path")
            #expect(context.evaluateScript("try { require(path); 'loaded' } catch (e) { e.code }").toString() == "MODULE_NOT_FOUND", "\(path)")
        }
    }

    /// A file's size is not its length: `/proc` files say 0. Reading stops one byte past the
    /// limit, so an endless one is refused instead of filling the host's memory.
    @Test func filesWhoseSizeSaysNothingAreReadOnlyUpToTheLimit() throws {
        let endless = "/proc/self/pagemap"  // 8 bytes for every page of the address space
        try #require(FileManager.default.isReadableFile(atPath: endless))
        let resolver = FileSystemModuleResolver()
        #expect(try resolver.source(at: "/proc/self/stat").hasPrefix("\(getpid()) "))
        do {
            _ = try resolver.source(at: endless)
            Issue.record("read an endless file")
        } catch {
            #expect("\(error)" == "cannot load module \(endless): larger than 64 MiB")
        }
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: resolver))
        context.globalObject.setValue(endless, forProperty: "path")
        let message: String = context.evaluateScript("try { require(path); 'loaded' } catch (e) { e.message }").toString() ?? ""
        // The filename is the real path (`/proc/<pid>/pagemap`): links are resolved.
        #expect(message.hasPrefix("cannot load module /proc/") && message.hasSuffix("/pagemap: larger than 64 MiB"), "\(message)")
    }

    /// Bytes that are not UTF-8 decode as U+FFFD, as Node reads a module's file.
    @Test func bytesThatAreNotUTF8DecodeAsReplacementCharacters() throws {
        let tree = try TemporaryTree(["latin1.js": ""])
        try Data("module.exports = 'caf".utf8 + [0xE9] + Data("'".utf8)).write(to: tree.root.appendingPathComponent("latin1.js"))
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        #expect(context.evaluateScript("require('./latin1')").toString() == "caf\u{FFFD}")
    }

    @Test func symbolicLinksResolveToOneModule() throws {
        let tree = try TemporaryTree(["real/counter.js": "module.exports = { id: Math.random() }"])
        try FileManager.default.createSymbolicLink(atPath: tree.path("link-a.js"), withDestinationPath: tree.path("real/counter.js"))
        try FileManager.default.createSymbolicLink(atPath: tree.path("link-dir"), withDestinationPath: tree.path("real"))
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: FileSystemModuleResolver(base: tree.root)))
        #expect(context.evaluateScript("require('./link-a') === require('./link-dir/counter') && require('./real/counter') === require('./link-a')").toBool())
        #expect(context.evaluateScript("require.resolve('./link-a')").toString() == tree.path("real/counter.js"))
    }

    @Test func theMainModuleIsAPath() throws {
        let tree = try TemporaryTree(["main.js": "module.exports = 'the file'", "node_modules/main.js": "module.exports = 'a package'"])
        let modules = try #require(ModuleLoader(context: JSContext()!, resolver: FileSystemModuleResolver(base: tree.root)))
        #expect(try modules.runMain("main.js").toString() == "the file")
    }

    @Test func prototypePollutionDoesNotBreakTheLoader() throws {
        let context = JSContext()!
        _ = try #require(ModuleLoader(context: context, resolver: InMemoryModuleResolver(["/a.js": "module.exports = require('./b')", "/b.js": "module.exports = 2"])))
        context.evaluateScript("Object.prototype.value = 1; Object.prototype.get = function () {}; Object.prototype.writable = true")
        #expect(context.evaluateScript("require('./a')").toInt32() == 2)
        #expect(context.exception == nil)
    }
}
