/*
 * The compiler VM's side of DuktapeCore's modern-JavaScript pipeline (Transpiler.swift): lowers
 * ES2015-ES2020 source to ES5 with TypeScript's transpileModule (typescript.js, evaluated before
 * this file, leaves the global `ts`), then lays the output out so that each line of it sits on
 * the line of the original that its source map names: Duktape's line numbers (errors, stacks,
 * JSException.line) are then the original's, with no map to apply afterwards.
 *
 * ES5 only: this file runs in Duktape as it is. It defines one global, `transpile`.
 */
(function (global) {
    'use strict';

    var ts = global.ts;
    var BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    var DIGITS = {};
    for (var d = 0; d < BASE64.length; d++) {
        DIGITS[BASE64.charAt(d)] = d;
    }

    // For each line of the generated code, the original line (0-based) of its first mapped
    // segment, or undefined. `mappings` is a source map's VLQ field; the original line is the
    // third field of a segment, relative to the previous segment's, across lines.
    function firstOriginalLines(mappings) {
        var lines = [];
        var generatedLine = 0;
        var originalLine = 0;
        var fields = [];
        var value = 0;
        var shift = 0;
        function endSegment() {
            if (fields.length >= 4) {
                originalLine += fields[2];
                if (lines[generatedLine] === undefined) {
                    lines[generatedLine] = originalLine;
                }
            }
            fields = [];
        }
        for (var i = 0; i < mappings.length; i++) {
            var c = mappings.charAt(i);
            if (c === ',') {
                endSegment();
            } else if (c === ';') {
                endSegment();
                generatedLine++;
            } else {
                var digit = DIGITS[c];
                if (digit === undefined) {
                    throw new Error('invalid source map character ' + c);
                }
                value += (digit & 31) << shift;
                if (digit & 32) {
                    shift += 5;
                } else {
                    fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
                    value = 0;
                    shift = 0;
                }
            }
        }
        endSegment();
        return lines;
    }

    // Two lines as one. A newline can end a statement (ASI) where a space does not: TypeScript's
    // own output ends its statements, but the helpers it inlines are text, some of which end in
    // `}` without a semicolon (`var __await = ... function (v) { ... }`). After a `}`, a line that
    // starts with a word which cannot continue the statement gets the semicolon ASI would insert
    // (a `;` after a block is an empty statement: harmless).
    var CONTINUES = /^(else|catch|finally|while|instanceof|in|of)\b/;
    function join(previous, next) {
        if (/\}\s*$/.test(previous) && /^[A-Za-z_$]/.test(next) && !CONTINUES.test(next)) {
            return previous + '; ' + next;
        }
        return previous + ' ' + next;
    }

    // The generated code with each line moved to its original line: lines that map further down
    // are preceded by blank lines, lines that map to a line already reached (or to none: helpers,
    // hoisted declarations) are joined to the current one. TypeScript's printer ends every
    // statement explicitly and comments are removed, so joining lines keeps the meaning.
    // A line never moves past the line the next mapped line maps to: a class's constructor ends
    // with a brace mapped to the class's last line, before the methods that come from above it.
    function layout(code, mappings) {
        var lines = code.split('\n');
        var targets = firstOriginalLines(mappings);
        var next;
        for (var k = lines.length - 1; k >= 0; k--) {
            if (targets[k] !== undefined) {
                var own = targets[k];
                if (next !== undefined && next < own) {
                    targets[k] = next;
                }
                next = own;
            }
        }
        var out = [];
        var current = 0;
        var pending = '';
        for (var i = 0; i < lines.length; i++) {
            var text = lines[i];
            if (/^\/\/# sourceMappingURL=/.test(text)) {
                continue;
            }
            var target = targets[i];
            if (target !== undefined && target > current) {
                out.push(pending);
                for (var blank = current + 1; blank < target; blank++) {
                    out.push('');
                }
                current = target;
                pending = text;
            } else {
                text = text.replace(/^\s+/, '');
                pending = pending === '' ? text : (text === '' ? pending : join(pending, text));
            }
        }
        out.push(pending);
        return out.join('\n');
    }

    var scriptOptions = {
        target: ts.ScriptTarget.ES5,
        module: ts.ModuleKind.CommonJS,
        downlevelIteration: true,
        removeComments: true,
        sourceMap: true,
        importHelpers: false,
        noEmitHelpers: false,
        esModuleInterop: true,
        newLine: ts.NewLineKind.LineFeed
    };

    // transpile(source, fileName) -> { code, diagnostics: [{ message, line, column }] }: line and
    // column 1-based, in the original. A file name ending in .ts, .mts or .cts is TypeScript (its
    // types are removed); anything else is JavaScript.
    global.transpile = function (source, fileName) {
        var typed = /\.[mc]?ts$/.test(fileName);
        var result = ts.transpileModule(source, {
            compilerOptions: scriptOptions,
            fileName: typed ? fileName : 'script.js',
            reportDiagnostics: true
        });
        var diagnostics = [];
        var all = result.diagnostics || [];
        for (var i = 0; i < all.length; i++) {
            var diagnostic = all[i];
            if (diagnostic.category !== ts.DiagnosticCategory.Error || !diagnostic.file) {
                continue; // option notes (isolatedModules and the like), not the source's
            }
            var start = diagnostic.start || 0;
            var position = ts.getLineAndCharacterOfPosition(diagnostic.file, start);
            diagnostics.push({
                message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
                line: position.line + 1,
                column: position.character + 1,
                // Nothing but whitespace after it: the source stopped early (a REPL reads more).
                atEnd: /^\s*$/.test(source.slice(start))
            });
        }
        if (diagnostics.length > 0) {
            return { code: '', diagnostics: diagnostics };
        }
        var map = JSON.parse(result.sourceMapText);
        return { code: layout(result.outputText, map.mappings), diagnostics: diagnostics };
    };

    global.transpilerVersion = 'typescript ' + ts.version;
})(this);
