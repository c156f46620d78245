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
    // printer ends its statements, but in case one ends in `}` without a semicolon, after a `}`
    // a line that starts with a word which cannot continue the statement gets the semicolon ASI
    // would insert (a `;` after a block is an empty statement: harmless).
    var CONTINUES = /^(else|catch|finally|while|instanceof|in|of)\b/;
    function join(previous, next) {
        if (/\}\s*$/.test(previous) && /^[A-Za-z_$]/.test(next) && !CONTINUES.test(next)) {
            return previous + '; ' + next;
        }
        return previous + ' ' + next;
    }

    // The generated code with each line moved to its original line: lines that map further down
    // are preceded by blank lines, lines that map to a line already reached (or to none: hoisted
    // declarations) are joined to the current one. TypeScript's printer ends every
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
            } else if (/\\$/.test(pending)) {
                // A string's line continuation (TypeScript prints literals as written): the
                // newline is part of the source, so the line keeps its own (and its indentation).
                out.push(pending);
                current++;
                pending = text;
            } else {
                text = text.replace(/^\s+/, '');
                pending = pending === '' ? text : (text === '' ? pending : join(pending, text));
            }
        }
        out.push(pending);
        return out.join('\n');
    }

    var factory = ts.factory;
    var SyntaxKind = ts.SyntaxKind;

    // The helpers lowered code calls (TypeScript's `__awaiter`, `__generator`, `__extends`... and
    // the five below) are not printed into it: TypeScript's inline copies are `var` declarations
    // (globals, in a script) that take an existing global of the same name first, so a script's
    // own `__extends` would stand in for the lowering's, and a lowered script would overwrite
    // it. Lowered code reaches them as members of HOLDER, a frozen object the host defines on the
    // context's global (non-writable, non-enumerable, non-configurable) from `helperLibrary()`
    // before it runs lowered code. Source that names HOLDER itself is refused.
    var HOLDER = '__duktapeLowering';
    var HELPERS = {
        __constAssignment: 'function (name) { throw new TypeError("Assignment to constant variable \'" + name + "\'."); }',
        __constTarget: 'function (name) { return { set value(v) { __constAssignment(name); } }; }',
        __classCallCheck: 'function (self, C, name) { if (!(self instanceof C)) { throw new TypeError("Class constructor " + name + " cannot be invoked without \'new\'"); } }',
        __superConstruct: 'function (Super, self, args) { if (typeof Super === "function" && /\\{\\s*\\[native code\\]\\s*\\}\\s*$/.test(Function.prototype.toString.call(Super))) { var made = new (Function.prototype.bind.apply(Super, [null].concat(Array.prototype.slice.call(args))))(); Object.setPrototypeOf(made, Object.getPrototypeOf(self)); return made; } return Super.apply(self, args) || self; }',
        __literalPrototype: 'function (o, p) { if (p === null || typeof p === "object" || typeof p === "function") { Object.setPrototypeOf(o, p); } return o; }',
        // TypeScript's __values and __read (for-of, spread, destructuring, yield*) with the checks
        // the specification makes (GetIterator, IteratorStep): an iterator or an iterator result
        // that is not an object is a TypeError, where TypeScript's read `.done` of it and looped
        // forever. The iterators of arrays and strings (native, whose results are always
        // objects) are used as they are; others go through a wrapper that checks each result.
        // TypeScript's fallback for array-likes without Symbol.iterator is kept (`arguments`
        // has none in Duktape).
        // Template objects are frozen, strings and raw strings alike (TypeScript's are not).
        __makeTemplateObject: 'function (cooked, raw) { Object.defineProperty(cooked, "raw", { value: Object.freeze(raw) }); return Object.freeze(cooked); }',
        // An iterator result: a TypeError when it is not an object (IteratorNext's check).
        __checkedResult: 'function (r) { if (r === null || (typeof r !== "object" && typeof r !== "function")) { throw new TypeError("Iterator result " + String(r) + " is not an object"); } return r; }',
        // A checked iterator's `return` and `throw`: the iterator's own, looked up when used, their
        // results checked as yield* and IteratorClose check them (an async iterator's once settled).
        __forwardClose: 'function (checked, it, async) { ["return", "throw"].forEach(function (name) { Object.defineProperty(checked, name, { get: function () { var f = it[name]; return f === undefined || f === null ? f : function (v) { var r = f.call(it, v); return async ? Promise.resolve(r).then(__checkedResult) : __checkedResult(r); }; } }); }); }',
        __nativeNexts: '[[][Symbol.iterator]().next, ""[Symbol.iterator]().next]',
        __checkedIterator: 'function (it) { if (it === null || (typeof it !== "object" && typeof it !== "function")) { throw new TypeError("Result of the Symbol.iterator method is not an object"); } var next = it.next; if (next === __nativeNexts[0] || next === __nativeNexts[1]) { return it; } var checked = { next: function (v) { return __checkedResult(next.call(it, v)); } }; __forwardClose(checked, it); return checked; }',
        __values: 'function (o) { var s = typeof Symbol === "function" && Symbol.iterator, m = s && o[s], i = 0; if (m) { return __checkedIterator(m.call(o)); } if (o && typeof o.length === "number") { return { next: function () { if (o && i >= o.length) { o = void 0; } return { value: o && o[i++], done: !o }; } }; } throw new TypeError(s ? "Object is not iterable." : "Symbol.iterator is not defined."); }',
        // for await: an async iterator's results are checked as they settle (one more job a
        // step than the specification's Await); a sync iterator goes through __values.
        __asyncValues: 'function (o) { if (!Symbol.asyncIterator) { throw new TypeError("Symbol.asyncIterator is not defined."); } var m = o[Symbol.asyncIterator], i; if (m) { var it = m.call(o); if (it === null || (typeof it !== "object" && typeof it !== "function")) { throw new TypeError("Result of the Symbol.asyncIterator method is not an object"); } var next = it.next, checked = { next: function (v) { return Promise.resolve(next.call(it, v)).then(__checkedResult); } }; __forwardClose(checked, it, true); checked[Symbol.asyncIterator] = function () { return this; }; return checked; } o = __values(o); i = {}; verb("next"); verb("throw"); verb("return"); i[Symbol.asyncIterator] = function () { return this; }; return i; function verb(n) { i[n] = o[n] && function (v) { return new Promise(function (resolve, reject) { v = o[n](v); settle(resolve, reject, v.done, v.value); }); }; } function settle(resolve, reject, d, v) { Promise.resolve(v).then(function (v) { resolve({ value: v, done: d }); }, reject); } }',
        __read: 'function (o, n) { var m = typeof Symbol === "function" && o[Symbol.iterator]; if (!m) { return o; } var i = __checkedIterator(m.call(o)), r, ar = [], e; try { while ((n === void 0 || n-- > 0) && !(r = void 0, r = i.next()).done) { ar.push(r.value); } } catch (error) { e = { error: error }; } finally { try { if (r && !r.done && (m = i["return"])) { m.call(i); } } finally { if (e) { throw e.error; } } } return ar; }'
    };

    // `HOLDER.name` (its identifiers are not TypeScript's helper names: the pass after the
    // lowering leaves them as they are).
    function helper(name) {
        return factory.createPropertyAccessExpression(factory.createIdentifier(HOLDER), name);
    }

    function call(name, args) {
        return factory.createCallExpression(helper(name), undefined, args);
    }

    function isAssignmentOperator(kind) {
        return kind >= SyntaxKind.FirstAssignment && kind <= SyntaxKind.LastAssignment;
    }

    // Where the lowering to ES5 loses ES2015 semantics, put them back (before TypeScript's own
    // transforms, on the original tree, with the checker's name resolution):
    // - an assignment to a `const` binding throws a TypeError (after evaluating its right side);
    // - `arguments` in an arrow function is the enclosing function's;
    // - a class constructor called without `new` throws a TypeError;
    // - `{ __proto__: p }` in an object literal sets the prototype.
    function semanticsBefore(used) {
        return function (context) {
            var resolver = context.getEmitResolver ? context.getEmitResolver() : undefined;
            return function (sourceFile) {
                // Whether the source is one parenthesized function expression and nothing else
                // (a module wrapper whose text did not close it early).
                var statements = sourceFile.statements;
                var only = statements.length === 1 && ts.isExpressionStatement(statements[0]) ? statements[0].expression : undefined;
                used.oneFunction = !!only && ts.isParenthesizedExpression(only) && ts.isFunctionExpression(only.expression);
                var functions = []; // { captured: identifier or undefined, arrows: depth }

                function within(inner, outer) {
                    return inner.pos >= outer.pos && inner.end <= outer.end;
                }

                // A `const` binding, or a class's own name inside the class (an immutable binding
                // there; outside, a class declaration's name is assignable, as a `let`).
                function isConstReference(node) {
                    if (!resolver || !ts.isIdentifier(node) || node.pos < 0) {
                        return false;
                    }
                    var declaration = resolver.getReferencedValueDeclaration(node);
                    if (!declaration) {
                        return false;
                    }
                    if (ts.isVariableDeclaration(declaration)) {
                        return ts.isVarConst(declaration);
                    }
                    return (ts.isClassDeclaration(declaration) || ts.isClassExpression(declaration)) &&
                        !!declaration.name && within(node, declaration);
                }

                // A `const` binding as an assignment target where an expression cannot stand (in a
                // destructuring pattern, a for-in/of head): a member whose setter throws, so the
                // TypeError comes when that assignment happens, after those before it.
                function constTarget(name) {
                    return factory.createPropertyAccessExpression(call('__constTarget', [factory.createStringLiteral(name)]), 'value');
                }

                // An assignment target (a destructuring assignment's left side, or a for-in/of's
                // when it declares nothing), with constTarget for its `const` bindings.
                function target(node) {
                    if (isConstReference(node)) {
                        return constTarget(ts.idText(node));
                    }
                    if (ts.isArrayLiteralExpression(node)) {
                        return factory.updateArrayLiteralExpression(node, node.elements.map(patternElement));
                    }
                    if (ts.isObjectLiteralExpression(node)) {
                        return factory.updateObjectLiteralExpression(node, node.properties.map(patternProperty));
                    }
                    if (ts.isParenthesizedExpression(node)) {
                        return factory.updateParenthesizedExpression(node, target(node.expression));
                    }
                    return ts.visitNode(node, visit);
                }

                function patternElement(node) {
                    if (ts.isSpreadElement(node)) {
                        return factory.updateSpreadElement(node, target(node.expression));
                    }
                    if (ts.isBinaryExpression(node) && node.operatorToken.kind === SyntaxKind.EqualsToken) {
                        // A target with its default.
                        return factory.updateBinaryExpression(node, target(node.left), node.operatorToken, ts.visitNode(node.right, visit));
                    }
                    return ts.isOmittedExpression(node) ? node : target(node);
                }

                function patternProperty(node) {
                    if (ts.isShorthandPropertyAssignment(node) && isConstReference(node.name)) {
                        var value = constTarget(ts.idText(node.name));
                        if (node.objectAssignmentInitializer) {
                            value = factory.createAssignment(value, ts.visitNode(node.objectAssignmentInitializer, visit));
                        }
                        return factory.createPropertyAssignment(ts.idText(node.name), value);
                    }
                    if (ts.isPropertyAssignment(node)) {
                        return factory.updatePropertyAssignment(node, ts.visitNode(node.name, visit), patternElement(node.initializer));
                    }
                    if (ts.isSpreadAssignment(node)) {
                        return factory.updateSpreadAssignment(node, target(node.expression));
                    }
                    return ts.visitNode(node, visit);
                }

                // A class's constructor that declares the class's name (a parameter, a variable, a
                // function): its bindings of that name are renamed (to a unique name), so that the
                // class check placed in it (`this instanceof C`) names the class.
                var renames = []; // { name, constructor, unique }

                function declaresName(root, name) {
                    var found = false;
                    (function walk(node) {
                        if (found) {
                            return;
                        }
                        if (node !== root && node.name && ts.isIdentifier(node.name) && ts.idText(node.name) === name &&
                            (ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isBindingElement(node) ||
                             ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) ||
                             ts.isClassDeclaration(node) || ts.isClassExpression(node))) {
                            found = true;
                            return;
                        }
                        ts.forEachChild(node, walk);
                    })(root);
                    return found;
                }

                // The identifier names a binding declared inside `root` (it is that declaration's
                // name, or a reference the checker resolves to it); property names are not.
                function isBindingWithin(node, root) {
                    var parent = node.parent;
                    if (!parent) {
                        return false;
                    }
                    if (parent.name === node && (ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isBindingElement(parent) ||
                        ts.isFunctionDeclaration(parent) || ts.isFunctionExpression(parent) ||
                        ts.isClassDeclaration(parent) || ts.isClassExpression(parent))) {
                        return within(parent, root);
                    }
                    if (!isArgumentsReference(node) || (ts.isBindingElement(parent) && parent.propertyName === node) ||
                        ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent) ||
                        ((ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || ts.isPropertyDeclaration(parent)) && parent.name === node)) {
                        return false;
                    }
                    var declaration = resolver ? resolver.getReferencedValueDeclaration(node) : undefined;
                    return !!declaration && within(declaration, root);
                }

                var LOGICAL = {};
                LOGICAL[SyntaxKind.BarBarEqualsToken] = SyntaxKind.BarBarToken;
                LOGICAL[SyntaxKind.AmpersandAmpersandEqualsToken] = SyntaxKind.AmpersandAmpersandToken;
                LOGICAL[SyntaxKind.QuestionQuestionEqualsToken] = SyntaxKind.QuestionQuestionToken;

                function constAssignment(name, evaluated) {
                    var thrown = call('__constAssignment', [factory.createStringLiteral(name)]);
                    return evaluated
                        ? factory.createParenthesizedExpression(factory.createCommaListExpression([evaluated, thrown]))
                        : thrown;
                }

                function isArgumentsReference(node) {
                    var parent = node.parent;
                    if (!parent) {
                        return false;
                    }
                    if ((ts.isPropertyAccessExpression(parent) && parent.name === node) ||
                        (ts.isPropertyAssignment(parent) && parent.name === node) ||
                        (ts.isMethodDeclaration(parent) && parent.name === node) ||
                        (ts.isVariableDeclaration(parent) && parent.name === node) ||
                        (ts.isParameter(parent) && parent.name === node)) {
                        return false;
                    }
                    return true;
                }

                function withPrologue(statements, added) {
                    var index = 0;
                    while (index < statements.length && ts.isPrologueDirective(statements[index])) {
                        index++;
                    }
                    return statements.slice(0, index).concat(added, statements.slice(index));
                }

                function captureArguments(body, frame) {
                    if (!frame.captured || !body || !ts.isBlock(body)) {
                        return body;
                    }
                    var declaration = factory.createVariableStatement(undefined, factory.createVariableDeclarationList(
                        [factory.createVariableDeclaration(frame.captured, undefined, undefined, factory.createIdentifier('arguments'))]));
                    return factory.updateBlock(body, withPrologue(body.statements.slice(), [declaration]));
                }

                // The class's check, placed first (after the super call in a derived class).
                function checkedConstructorBody(body, classNode, derived) {
                    var check = factory.createExpressionStatement(call('__classCallCheck',
                        [factory.createThis(), factory.createIdentifier(classNode.name.text), factory.createStringLiteral(classNode.name.text)]));
                    var statements = body.statements.slice();
                    var at = 0;
                    if (derived) {
                        at = -1;
                        for (var i = 0; i < statements.length; i++) {
                            var statement = statements[i];
                            if (ts.isExpressionStatement(statement) && ts.isCallExpression(statement.expression) &&
                                statement.expression.expression.kind === SyntaxKind.SuperKeyword) {
                                at = i + 1;
                                break;
                            }
                        }
                        if (at < 0) {
                            return body; // super() not a statement of its own: left as it is
                        }
                    }
                    return factory.updateBlock(body, statements.slice(0, at).concat([check], statements.slice(at)));
                }

                function visitClass(node) {
                    var visited = ts.visitEachChild(node, visit, context);
                    if (!node.name) {
                        return visited; // an anonymous class has no name to check against
                    }
                    var derived = !!(node.heritageClauses && node.heritageClauses.some(function (clause) {
                        return clause.token === SyntaxKind.ExtendsKeyword;
                    }));
                    var members = visited.members.slice();
                    var found = false;
                    for (var i = 0; i < members.length; i++) {
                        var member = members[i];
                        if (ts.isConstructorDeclaration(member) && member.body) {
                            found = true;
                            members[i] = factory.updateConstructorDeclaration(member, member.decorators, member.modifiers,
                                member.parameters, checkedConstructorBody(member.body, node, derived));
                        }
                    }
                    if (!found) {
                        var parameters = [];
                        var statements = [];
                        if (derived) {
                            var rest = factory.createUniqueName('args');
                            parameters.push(factory.createParameterDeclaration(undefined, undefined,
                                factory.createToken(SyntaxKind.DotDotDotToken), rest));
                            statements.push(factory.createExpressionStatement(factory.createCallExpression(
                                factory.createSuper(), undefined, [factory.createSpreadElement(rest)])));
                        }
                        var made = factory.createConstructorDeclaration(undefined, undefined, parameters, factory.createBlock(statements, true));
                        members.unshift(factory.updateConstructorDeclaration(made, undefined, undefined, parameters,
                            checkedConstructorBody(made.body, node, derived)));
                    }
                    if (ts.isClassDeclaration(visited)) {
                        return factory.updateClassDeclaration(visited, visited.decorators, visited.modifiers, visited.name,
                            visited.typeParameters, visited.heritageClauses, members);
                    }
                    return factory.updateClassExpression(visited, visited.decorators, visited.modifiers, visited.name,
                        visited.typeParameters, visited.heritageClauses, members);
                }

                // `{ a: f(), __proto__: p(), b: g() }`: the literal without its `__proto__` entry,
                // given the prototype by __literalPrototype. `p()` still runs in its place: joined
                // (through a temporary) to the first entry after it that evaluates something, a
                // value or a computed key; with none, it runs after the literal (nothing between).
                function visitObjectLiteral(node) {
                    var visited = ts.visitEachChild(node, visit, context);
                    var properties = visited.properties;
                    var at = -1;
                    for (var i = 0; i < properties.length && at < 0; i++) {
                        var entry = properties[i];
                        if (ts.isPropertyAssignment(entry) && (ts.isIdentifier(entry.name) || ts.isStringLiteral(entry.name)) &&
                            entry.name.text === '__proto__') {
                            at = i;
                        }
                    }
                    if (at < 0) {
                        return visited;
                    }
                    var prototype = properties[at].initializer;
                    var kept = properties.slice(0, at);
                    var temporary;
                    function first(expression) {
                        temporary = factory.createTempVariable(context.hoistVariableDeclaration);
                        return factory.createCommaListExpression([factory.createAssignment(temporary, prototype), expression]);
                    }
                    function replaced(owner, child, replacement) {
                        return ts.visitEachChild(owner, function (each) { return each === child ? replacement : each; }, context);
                    }
                    for (var j = at + 1; j < properties.length; j++) {
                        var later = properties[j];
                        if (!temporary) {
                            if (later.name && ts.isComputedPropertyName(later.name)) {
                                later = replaced(later, later.name, factory.updateComputedPropertyName(later.name, first(later.name.expression)));
                            } else if (ts.isPropertyAssignment(later)) {
                                later = factory.updatePropertyAssignment(later, later.name, first(later.initializer));
                            } else if (ts.isSpreadAssignment(later)) {
                                later = factory.updateSpreadAssignment(later, first(later.expression));
                            }
                        }
                        kept.push(later);
                    }
                    return call('__literalPrototype', [factory.updateObjectLiteralExpression(visited, kept), temporary || prototype]);
                }

                function visit(node) {
                    if (ts.isIdentifier(node) && node.pos >= 0) {
                        for (var r = renames.length - 1; r >= 0; r--) {
                            if (ts.idText(node) === renames[r].name && isBindingWithin(node, renames[r].constructor)) {
                                return renames[r].unique;
                            }
                        }
                    }
                    if (ts.isBinaryExpression(node) && isAssignmentOperator(node.operatorToken.kind) && isConstReference(node.left)) {
                        var thrown = constAssignment(ts.idText(node.left), ts.visitNode(node.right, visit));
                        var logical = LOGICAL[node.operatorToken.kind];
                        // `c ||= v` assigns (and so throws) only when `c` is falsy; `&&=`, `??=` alike.
                        return logical === undefined ? thrown
                            : factory.createParenthesizedExpression(factory.createBinaryExpression(node.left, logical, thrown));
                    }
                    if (ts.isBinaryExpression(node) && node.operatorToken.kind === SyntaxKind.EqualsToken &&
                        (ts.isArrayLiteralExpression(node.left) || ts.isObjectLiteralExpression(node.left))) {
                        return factory.updateBinaryExpression(node, target(node.left), node.operatorToken, ts.visitNode(node.right, visit));
                    }
                    if (ts.isForOfStatement(node) && !ts.isVariableDeclarationList(node.initializer)) {
                        return factory.updateForOfStatement(node, node.awaitModifier, target(node.initializer),
                            ts.visitNode(node.expression, visit), ts.visitNode(node.statement, visit));
                    }
                    if (ts.isForInStatement(node) && !ts.isVariableDeclarationList(node.initializer)) {
                        return factory.updateForInStatement(node, target(node.initializer),
                            ts.visitNode(node.expression, visit), ts.visitNode(node.statement, visit));
                    }
                    if (ts.isShorthandPropertyAssignment(node) && !node.objectAssignmentInitializer) {
                        // `{ arguments }` in an arrow, `{ C }` of a renamed binding: the key stays.
                        var name = ts.visitNode(node.name, visit);
                        if (name !== node.name) {
                            return factory.createPropertyAssignment(ts.idText(node.name), name);
                        }
                        return node;
                    }
                    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
                        (node.operator === SyntaxKind.PlusPlusToken || node.operator === SyntaxKind.MinusMinusToken) &&
                        isConstReference(node.operand)) {
                        return constAssignment(node.operand.text, undefined);
                    }
                    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
                        return visitClass(node);
                    }
                    if (ts.isObjectLiteralExpression(node)) {
                        return visitObjectLiteral(node);
                    }
                    if (ts.isArrowFunction(node)) {
                        var enclosing = functions[functions.length - 1];
                        if (enclosing) {
                            enclosing.arrows++;
                        }
                        var arrow = ts.visitEachChild(node, visit, context);
                        if (enclosing) {
                            enclosing.arrows--;
                        }
                        return arrow;
                    }
                    if (ts.isFunctionLike(node) && node.body) {
                        var frame = { captured: undefined, arrows: 0 };
                        var className = ts.isConstructorDeclaration(node) && node.parent && node.parent.name ? ts.idText(node.parent.name) : undefined;
                        var renamed = className !== undefined && declaresName(node, className);
                        if (renamed) {
                            renames.push({ name: className, constructor: node, unique: factory.createUniqueName(className) });
                        }
                        functions.push(frame);
                        var visited = ts.visitEachChild(node, visit, context);
                        functions.pop();
                        if (renamed) {
                            renames.pop();
                        }
                        if (!frame.captured) {
                            return visited;
                        }
                        var body = captureArguments(visited.body, frame);
                        switch (visited.kind) {
                        case SyntaxKind.FunctionDeclaration:
                            return factory.updateFunctionDeclaration(visited, visited.decorators, visited.modifiers, visited.asteriskToken,
                                visited.name, visited.typeParameters, visited.parameters, visited.type, body);
                        case SyntaxKind.FunctionExpression:
                            return factory.updateFunctionExpression(visited, visited.modifiers, visited.asteriskToken, visited.name,
                                visited.typeParameters, visited.parameters, visited.type, body);
                        case SyntaxKind.MethodDeclaration:
                            return factory.updateMethodDeclaration(visited, visited.decorators, visited.modifiers, visited.asteriskToken,
                                visited.name, visited.questionToken, visited.typeParameters, visited.parameters, visited.type, body);
                        case SyntaxKind.Constructor:
                            return factory.updateConstructorDeclaration(visited, visited.decorators, visited.modifiers, visited.parameters, body);
                        case SyntaxKind.GetAccessor:
                            return factory.updateGetAccessorDeclaration(visited, visited.decorators, visited.modifiers, visited.name,
                                visited.parameters, visited.type, body);
                        case SyntaxKind.SetAccessor:
                            return factory.updateSetAccessorDeclaration(visited, visited.decorators, visited.modifiers, visited.name,
                                visited.parameters, body);
                        default:
                            return visited;
                        }
                    }
                    if (ts.isIdentifier(node) && node.escapedText === 'arguments') {
                        var current = functions[functions.length - 1];
                        if (current && current.arrows > 0 && isArgumentsReference(node)) {
                            if (!current.captured) {
                                current.captured = factory.createUniqueName('_arguments');
                            }
                            return current.captured;
                        }
                    }
                    return ts.visitEachChild(node, visit, context);
                }
                return ts.visitNode(sourceFile, visit);
            };
        };
    }

    // After the lowering: TypeScript's helper calls become HOLDER's (see HELPERS), and
    // `_super.call(this, ...) || this` (a constructor calling its base) makes
    // the object with `new` when the base is a built-in (Error, Array, Map...), whose instances a
    // plain call cannot make, and gives it the subclass's prototype.
    function semanticsAfter(used) {
        return function (context) {
            return function (sourceFile) {
                function superCall(node) {
                    // `_super.call(this, a, b)`, `_super.apply(this, arguments)`, possibly behind
                    // `_super !== null && `.
                    if (ts.isBinaryExpression(node) && node.operatorToken.kind === SyntaxKind.AmpersandAmpersandToken) {
                        node = node.right;
                    }
                    if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) {
                        return undefined;
                    }
                    var target = node.expression.expression;
                    var method = ts.idText(node.expression.name);
                    if (!ts.isIdentifier(target) || ts.idText(target) !== '_super' || (method !== 'call' && method !== 'apply') ||
                        node.arguments.length < 1 || node.arguments[0].kind !== SyntaxKind.ThisKeyword) {
                        return undefined;
                    }
                    var args = method === 'call'
                        ? factory.createArrayLiteralExpression(node.arguments.slice(1))
                        : (node.arguments[1] || factory.createArrayLiteralExpression([]));
                    return { target: target, self: node.arguments[0], args: args };
                }
                function visit(node) {
                    if (ts.isIdentifier(node)) {
                        return ts.getEmitFlags(node) & ts.EmitFlags.HelperName ? helper(ts.idText(node)) : node;
                    }
                    if (ts.isBinaryExpression(node) && node.operatorToken.kind === SyntaxKind.BarBarToken &&
                        node.right.kind === SyntaxKind.ThisKeyword) {
                        var found = superCall(node.left);
                        if (found) {
                            // The call's own `this` node: a new one would be taken for the
                            // captured `_this` by the lowering's substitutions.
                            return call('__superConstruct', [found.target, found.self, ts.visitNode(found.args, visit)]);
                        }
                    }
                    return ts.visitEachChild(node, visit, context);
                }
                return ts.visitNode(sourceFile, visit);
            };
        };
    }

    var scriptOptions = {
        target: ts.ScriptTarget.ES5,
        module: ts.ModuleKind.CommonJS,
        downlevelIteration: true,
        removeComments: true,
        sourceMap: true,
        importHelpers: false,
        noEmitHelpers: true, // HOLDER's, never inline copies
        esModuleInterop: true,
        newLine: ts.NewLineKind.LineFeed
    };

    // transpile(source, fileName) -> { code, diagnostics: [{ message, line, column, atEnd }],
    // oneFunction }: line and column 1-based, in the original; oneFunction when the source is one
    // parenthesized function expression and nothing else. A file name ending in .ts, .mts or .cts
    // is TypeScript (its types are removed); anything else is JavaScript.
    global.transpile = function (source, fileName) {
        var typed = /\.[mc]?ts$/.test(fileName);
        var used = {};
        var result = ts.transpileModule(source, {
            compilerOptions: scriptOptions,
            fileName: typed ? fileName : 'script.js',
            reportDiagnostics: true,
            transformers: { before: [semanticsBefore(used)], after: [semanticsAfter(used)] }
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
        var reserved = reservedName(source);
        if (reserved) {
            diagnostics.push(reserved);
        }
        if (diagnostics.length > 0) {
            return { code: '', diagnostics: diagnostics };
        }
        var map = JSON.parse(result.sourceMapText);
        return { code: layout(result.outputText, map.mappings), diagnostics: diagnostics, oneFunction: used.oneFunction };
    };

    // A diagnostic for the first identifier of the source spelled HOLDER, or undefined.
    function reservedName(source) {
        var at = source.indexOf(HOLDER);
        if (at < 0) {
            return undefined;
        }
        var file = ts.createSourceFile('script.js', source, ts.ScriptTarget.Latest, true);
        var found;
        (function walk(node) {
            if (found === undefined && ts.isIdentifier(node) && ts.idText(node) === HOLDER) {
                found = node.getStart(file);
            }
            if (found === undefined) {
                ts.forEachChild(node, walk);
            }
        })(file);
        if (found === undefined) {
            return undefined; // in a string or a comment
        }
        var position = ts.getLineAndCharacterOfPosition(file, found);
        return {
            message: "'" + HOLDER + "' is reserved: lowered code reaches its helpers through it",
            line: position.line + 1,
            column: position.character + 1,
            atEnd: false
        };
    }

    // helperLibrary() -> the source of one function expression that returns HOLDER's members:
    // TypeScript's helpers (each of them, as TypeScript would print it, strict: their
    // `this && this.__name` finds nothing) and the ones above. The host compiles it in each
    // context that runs lowered code (typescript-helpers.js).
    global.helperLibrary = function () {
        var parts = ['(function () {', "'use strict';"];
        var names = [];
        ts.getAllUnscopedEmitHelpers().forEach(function (emitHelper) {
            if (Object.prototype.hasOwnProperty.call(HELPERS, emitHelper.importName)) return; // ours instead
            parts.push(emitHelper.text);
            names.push(emitHelper.importName);
        });
        for (var name in HELPERS) {
            parts.push('var ' + name + ' = ' + HELPERS[name] + ';');
            names.push(name);
        }
        var members = [];
        for (var i = 0; i < names.length; i++) {
            if (!/^__[A-Za-z]+$/.test(names[i])) {
                throw new Error('unexpected helper name ' + names[i]);
            }
            members.push(names[i] + ': ' + names[i]);
        }
        parts.push('return { ' + members.join(', ') + ' };', '})');
        return parts.join('\n');
    };

    global.transpilerVersion = 'typescript ' + ts.version;
})(this);
