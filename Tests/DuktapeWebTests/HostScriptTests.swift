import DuktapeCore
import DuktapeRuntime
import Foundation
import Testing

@testable import DuktapeWeb

/// The JavaScript the library runs (`Sources/DuktapeRuntime/JavaScript`,
/// `Sources/DuktapeWeb/JavaScript`): checked as JavaScript, as ES5, and as the one way Swift and
/// those files meet (PageSeam, HostScript).
@Suite("The host's JavaScript files")
struct HostScriptTests {
    /// Every embedded file of both libraries, by the C tables (so a file added there is checked).
    static let files: [HostScript] = HostScript.runtimeFiles.keys.sorted().map { HostScript.runtime($0) }
        + PageSeam.files.keys.sorted().filter { $0.hasSuffix(".js") }.map(PageSeam.script)

    /// The repository's `Sources` folder.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The lines of the Swift files of `libraries` (`"DuktapeWeb/WebPage.swift"`), but the
    /// `excluded` files and documentation comments.
    static func swiftLines(of libraries: [String], excluding excluded: Set<String> = []) throws -> [(file: String, line: Substring)] {
        var lines: [(file: String, line: Substring)] = []
        for library in libraries {
            let folder = sources.appendingPathComponent(library)
            guard let walker = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in walker where file.hasSuffix(".swift") && !excluded.contains(library + "/" + file) {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                    lines.append((library + "/" + file, line))
                }
            }
        }
        return lines
    }

    @Test func everyFileIsEmbeddedAndCompilesOnTheBareEngineAsAFactory() throws {
        let onDisk = try ["DuktapeRuntime", "DuktapeWeb"].flatMap { library in
            try FileManager.default.contentsOfDirectory(atPath: Self.sources.appendingPathComponent(library + "/JavaScript").path)
                .filter { $0.hasSuffix(".js") }.map { library + "/" + $0 }
        }
        #expect(Set(Self.files.map(\.name)) == Set(onDisk), "a .js file is missing from its library's files.c table")
        #expect(PageSeam.files.count == Self.files.count - HostScript.runtimeFiles.count + 2)  // and loader.html, websocket.html
        for script in Self.files {
            #expect(!script.source.isEmpty, "\(script.name)")
            #expect(script.source.split(separator: "\n", omittingEmptySubsequences: false).count <= 400, "\(script.name) is over 400 lines")
            let context = try #require(JSContext())
            // Compiled as the host compiles it: ES5 only, never lowered, under its own name.
            let factory = try context.evaluateES5(script.source, sourceName: script.name)
            #expect(factory.isFunction, "\(script.name) is not one function expression")
        }
        #expect(PageSeam.loaderHTML.contains("<html") || PageSeam.loaderHTML.contains("<script"))
    }

    /// The files must run on the bare engine, which accepts some ES2015+ syntax with other
    /// meanings or none (`const`, shorthand properties, computed keys, `0o` literals): each file
    /// is parsed by TypeScript's parser, and any node of a later edition is named with its line.
    @Test func noFileUsesSyntaxNewerThanES5() throws {
        let path = JSTranspiler.typeScriptPath
        let compiler = try String(contentsOfFile: path, encoding: .utf8)  // `make deps` installs node-typescript
        let context = try #require(JSContext())
        // The file is strict code: evaluated, its `ts` is the completion value of a last statement.
        let ts = try context.evaluate(compiler + "\n;ts", sourceName: path)
        let check = try context.evaluate(#"""
            (function (ts, source, name) {
                var K = ts.SyntaxKind, modernKinds = [K.ArrowFunction, K.ClassDeclaration, K.ClassExpression, K.TemplateExpression,
                    K.NoSubstitutionTemplateLiteral, K.TaggedTemplateExpression, K.SpreadElement, K.SpreadAssignment,
                    K.ObjectBindingPattern, K.ArrayBindingPattern, K.ComputedPropertyName, K.ShorthandPropertyAssignment,
                    K.MethodDeclaration, K.ForOfStatement, K.YieldExpression, K.AwaitExpression, K.MetaProperty,
                    K.BigIntLiteral, K.ImportDeclaration, K.ExportDeclaration, K.ExportAssignment, K.PrivateIdentifier,
                    K.ClassStaticBlockDeclaration];
                var modernOperators = [K.AsteriskAsteriskToken, K.AsteriskAsteriskEqualsToken, K.QuestionQuestionToken,
                    K.QuestionQuestionEqualsToken, K.BarBarEqualsToken, K.AmpersandAmpersandEqualsToken];
                function modern(node) {
                    if (modernKinds.indexOf(node.kind) >= 0) return true;
                    if (node.kind === K.VariableDeclarationList && (node.flags & ts.NodeFlags.BlockScoped)) return true;
                    if (node.kind === K.BinaryExpression && modernOperators.indexOf(node.operatorToken.kind) >= 0) return true;
                    if (node.questionDotToken || (node.flags & ts.NodeFlags.OptionalChain)) return true;
                    if (node.asteriskToken || (node.modifiers && node.modifiers.some(function (m) { return m.kind === K.AsyncKeyword; }))) return true;
                    if (node.kind === K.Parameter && (node.initializer || node.dotDotDotToken)) return true;
                    var text = node.getText ? node.getText(file) : '';
                    if (node.kind === K.NumericLiteral && /^0[bBoO]|_/.test(text)) return true;
                    if (node.kind === K.StringLiteral && /\\u\{/.test(text)) return true;
                    if (node.kind === K.RegularExpressionLiteral && /\/[gim]*[^gim\/]+[gim]*$/.test(text)) return true;
                    return false;
                }
                var file = ts.createSourceFile(name, source, ts.ScriptTarget.ESNext, true, ts.ScriptKind.JS), found = null;
                if (file.parseDiagnostics.length > 0) return name + ': ' + file.parseDiagnostics[0].messageText;
                (function visit(node) {
                    if (found === null && modern(node)) found = node;
                    if (found === null) ts.forEachChild(node, visit);
                })(file);
                if (found === null) return null;
                var at = file.getLineAndCharacterOfPosition(found.getStart(file));
                return name + ':' + (at.line + 1) + ': ' + found.getText(file).slice(0, 80);
            })
            """#, sourceName: "es5-check.js")
        // The check itself finds what the engine would accept with another meaning.
        for modern in [
            "var o = { a };", "const a = 1;", "var o = { [k]: 1 };", "var n = 0o17;", "var o = { m() {} };", "a ** b;",
            "var s = '\\u{1F600}';", "var r = /a/y;", "function f() { return new.target; }", "var f = (a) => a;",
        ] {
            #expect(try check.call(ts, modern, "sample.js").isString, "\(modern)")
        }
        for script in Self.files {
            let found = try check.call(ts, script.source, script.name)
            #expect(found.isNull, "\(found.toString() ?? "")")
        }
    }

    /// Each `primordials.<name>` a file uses exists in a fresh realm (a misspelt one would be a
    /// TypeError at every install).
    @Test func everyPrimordialAFileNamesExists() throws {
        let context = try #require(JSContext())
        let names = Self.files.flatMap(\.primordialNames)
        #expect(names.count > 100)
        let primordials = try HostScript.primordials(in: context, capturing: names)
        for name in names {
            #expect(!primordials.forProperty(name).isUndefined, "\(name)")
        }
    }

    /// A page's error names the file and line it was thrown at.
    @Test func aStackNamesTheFileAndLine() throws {
        let page = try Page()
        let stack = try page.run("try { new Headers().append('bad name', 'x') } catch (e) { e.stack }")
        #expect(stack.hasPrefix("headerName@DuktapeWeb/headers.js:"), "\(stack)")
    }

    /// No JavaScript is assembled from runtime values: every evaluation in the libraries takes
    /// one source value. The exceptions place a caller's code, not values, in a function whose
    /// halves are constants, compiled once and refused with nothing run unless the whole is
    /// exactly one function expression: Node's module wrapper (ModuleLoader), and WebKit's
    /// `callAsyncJavaScript` (WebPage: its parameters are the argument names, each checked to
    /// be an identifier and no reserved word first).
    @Test func noSwiftSourceSplicesJavaScript() throws {
        let evaluation = /(evaluate|evaluateScript|evaluateES5|evaluateFunctionExpression)\(([^,)]*)/
        var found: [String] = []
        for (file, line) in try Self.swiftLines(of: ["DuktapeCore", "DuktapeRuntime", "DuktapeWeb", "dukjs"]) {
            for match in line.matches(of: evaluation) {
                let argument = match.output.2
                if argument.contains("\\(") || argument.contains(" + ") {
                    found.append("\(file): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found == [
            "DuktapeRuntime/ModuleLoader.swift: try JSContext.current().evaluateFunctionExpression(Self.wrapperHead + source + Self.wrapperTail, sourceName: filename)",
            #"DuktapeWeb/WebPage.swift: function = try context.evaluateFunctionExpression("(function (" + parameters + ") { " + body + "\n})", sourceName: nil)"#,
            #"DuktapeWeb/WebPage.swift: function = try context.evaluateFunctionExpression("(async function (" + parameters + ") { " + body + "\n})", sourceName: nil)"#,
        ])
    }

    /// The seam's names (a JavaScript property read by a string literal, the native tables and
    /// the hidden keys) appear in Swift only in the binding files.
    @Test func theSeamIsSpelledOnlyInItsBindingFiles() throws {
        let bindings: Set = [
            "DuktapeWeb/Internals/PageSeam.swift", "DuktapeRuntime/Internals/HostScript.swift",
            "DuktapeRuntime/Console.swift", "DuktapeRuntime/ModuleLoader.swift",
        ]
        let found = try Self.swiftLines(of: ["DuktapeRuntime", "DuktapeWeb"], excluding: bindings).filter { _, line in
            line.contains("forProperty(\"") || line.contains("hiddenKey(") || line.contains("HostScript.table(") || line.contains("HostScript.run(")
        }
        #expect(found.map { "\($0.file): \($0.line.trimmingCharacters(in: .whitespaces))" } == [])
    }

    /// The libraries search bytes and strings without _StringProcessing's generic algorithms
    /// (`firstRange(of:)`, `ranges(of:)`, `replacing(_:with:)`, regular expressions): compiled
    /// unspecialized, they look up generic metadata such as `Range<Int>`'s for each element, and
    /// each lookup takes one lock shared by the whole process. The transpiler's search through
    /// every page script did that per byte, and under ThreadSanitizer about forty threads queued
    /// on that lock until ten network tests timed out (see the Makefile).
    @Test func noLibraryCodeSearchesThroughStringProcessing() throws {
        let generic = ["firstRange(of:", "ranges(of:", ".replacing(", "matches(of:", "firstMatch(of:", "wholeMatch(of:", "Regex", "trimmingPrefix("]
        let found = try Self.swiftLines(of: ["DuktapeCore", "DuktapeRuntime", "DuktapeWeb", "dukjs"]).filter { _, line in
            !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && generic.contains { line.contains($0) }
        }
        #expect(found.map { "\($0.file): \($0.line.trimmingCharacters(in: .whitespaces))" } == [])
    }
}
