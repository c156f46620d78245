// CommonJS `require` as Node runs it (ModuleLoader.swift): resolution and source through the
// host's resolver (`natives.resolve`, `natives.source`), each module compiled once in its own
// function (`natives.compile`), `require.cache`, cycles, JSON modules and Node's errors.
(function (global, primordials, natives, shared) {
'use strict';
var resolveNative = natives.resolve,
    sourceNative = natives.source,
    compileNative = natives.compile;

var apply = primordials.ReflectApply, create = primordials.ObjectCreate, defineProperty = primordials.ObjectDefineProperty, parse = primordials.JSONParse,
    isArray = primordials.ArrayIsArray, Str = primordials.String, ErrorCtor = primordials.Error, SyntaxErrorCtor = primordials.SyntaxError, TypeErrorCtor = primordials.TypeError,
    FunctionCtor = primordials.Function;
function method(f) {
    return function (self, a, b) { return apply(f, self, arguments.length > 1 ? [a, b] : []); };
}
var slice = method(primordials.StringPrototypeSlice), lastIndexOf = method(primordials.StringPrototypeLastIndexOf),
    charCode = method(primordials.StringPrototypeCharCodeAt);
var cache = create(null), mainModule;

function dirname(path) {
    var slash = lastIndexOf(path, '/');
    return slash < 0 ? '.' : (slash === 0 ? '/' : slice(path, 0, slash));
}
function endsWith(text, suffix) { return text.length >= suffix.length && slice(text, text.length - suffix.length) === suffix; }

function Module(id, filename, parent) {
    this.id = id;
    this.filename = filename;
    this.path = dirname(filename);
    this.loaded = false;
    this.exports = {};
    this.parent = parent;
    this.children = [];
}
Module.prototype.require = function require(specifier) { return requireModule(specifier, this); };

function describe(value) {
    if (value === null) return 'null';
    if (typeof value === 'object' || typeof value === 'function') return 'an instance of ' + (typeof value === 'function' ? 'Function' : 'Object');
    return 'type ' + typeof value + (typeof value === 'symbol' ? '' : ' (' + Str(value) + ')');
}

function resolve(specifier, parent) {
    if (typeof specifier !== 'string') {
        var wrong = new TypeErrorCtor('The "id" argument must be of type string. Received ' + describe(specifier));
        wrong.code = 'ERR_INVALID_ARG_TYPE';
        throw wrong;
    }
    if (specifier === '') {
        var empty = new TypeErrorCtor("The argument 'id' must be a non-empty string. Received ''");
        empty.code = 'ERR_INVALID_ARG_VALUE';
        throw empty;
    }
    var found = resolveNative(specifier, parent ? parent.filename : undefined);
    if (typeof found === 'string') return found;
    var stack = [], message = "Cannot find module '" + specifier + "'";
    for (var m = parent; m; m = m.parent) stack[stack.length] = m.filename;
    if (stack.length) {
        message += '\nRequire stack:';
        for (var i = 0; i < stack.length; i++) message += '\n- ' + stack[i];
    }
    var error = new ErrorCtor(message);
    error.code = 'MODULE_NOT_FOUND';
    error.requireStack = stack;
    error.paths = isArray(found) ? found : [];
    throw error;
}

function load(module) {
    var source = Str(sourceNative(module.filename));
    if (charCode(source, 0) === 0xFEFF) source = slice(source, 1);
    if (endsWith(module.filename, '.json')) {
        try {
            module.exports = parse(source);
        } catch (e) {
            throw new SyntaxErrorCtor(module.filename + ': ' + (e && e.message));
        }
    } else {
        if (slice(source, 0, 2) === '#!') source = '//' + slice(source, 2);
        var body = compileNative(source, module.filename, FunctionCtor);
        if (body === undefined) {
            throw new SyntaxErrorCtor(module.filename + ": the module's text closes the function it is wrapped in (an unmatched '}')");
        }
        apply(body, module.exports, [module.exports, makeRequire(module), module, module.filename, module.path]);
    }
    module.loaded = true;
}

function enter(module, parent) {
    cache[module.filename] = module;
    if (parent) parent.children[parent.children.length] = module;
    var loaded = false;
    try {
        load(module);
        loaded = true;
    } finally {
        if (!loaded) {
            // A module that threw is not cached: requiring it again runs it again, as in Node.
            if (cache[module.filename] === module) delete cache[module.filename];
            if (parent && parent.children[parent.children.length - 1] === module) parent.children.length--;
        }
    }
    return module.exports;
}

function requireModule(specifier, parent) {
    var filename = resolve(specifier, parent);
    var cached = cache[filename];
    // Cached, or being loaded (a cycle): its exports as they are now.
    if (cached !== undefined) return cached.exports;
    return enter(new Module(filename, filename, parent), parent);
}

function makeRequire(module) {
    var require = function require(specifier) { return requireModule(specifier, module); };
    require.resolve = function resolve_(specifier) { return resolve(specifier, module); };
    require.cache = cache;
    // A descriptor without a prototype: `Object.prototype.value = 1` must not turn it into a
    // data descriptor (a TypeError for every require).
    var main = create(null);
    main.get = function () { return mainModule; };
    main.enumerable = true;
    defineProperty(require, 'main', main);
    return require;
}

return {
    require: makeRequire(null),
    runMain: function (path) {
        // As `node main.js`: the main module is a path, even without './'.
        var isPath = path === '.' || path === '..' || slice(path, 0, 1) === '/' || slice(path, 0, 2) === './' ||
            slice(path, 0, 3) === '../';
        var filename = resolve(isPath ? path : './' + path, null);
        mainModule = new Module('.', filename, null);
        return enter(mainModule, null);
    }
};
})
