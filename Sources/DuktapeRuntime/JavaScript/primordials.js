// The realm's built-ins as they were before any host script used them, as Node's primordials
// and JavaScriptCore's builtins keep them: every script the library runs (console, modules, the
// browser globals, the page) takes its built-ins from here, so a script that later replaces
// `String.prototype.slice`, `Reflect.apply` or `JSON` changes what scripts see, never how the
// host behaves. Run once per realm, by the first host script installed (HostScript.swift).
//
// Names: a constructor or namespace by its own name (`Object`, `JSON`), a global function by
// its own (`parseInt`); a member as name + key (`ObjectDefineProperty`, `SymbolIterator`); a
// prototype's member as name + 'Prototype' + key (`StringPrototypeSlice`). Only the names the
// host's files use are captured (`capture(names)`, before each file runs): reading every
// built-in would make each one the engine makes on first use (lazy.c) in every context.
(function (global) {
'use strict';
var defineProperty = Object.defineProperty, create = Object.create, getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor,
    toLowerCase = String.prototype.toLowerCase, charAt = String.prototype.charAt,
    slice = String.prototype.slice, apply = Reflect.apply,
    TypeErrorCtor = TypeError;
// Longest first, so that `ArrayBufferIsView` is ArrayBuffer's and `Uint8ClampedArray…` is not Uint8's.
var namespaces = ['Uint8ClampedArray', 'Float32Array', 'Float64Array', 'Uint16Array', 'Uint32Array', 'ReferenceError',
    'ArrayBuffer', 'SyntaxError', 'RangeError', 'Uint8Array', 'Int16Array', 'Int32Array', 'EvalError', 'Int8Array',
    'TypeError', 'URIError', 'DataView', 'Function', 'Boolean', 'Promise', 'Reflect', 'WeakMap', 'WeakSet', 'Object',
    'String', 'Number', 'Symbol', 'RegExp', 'Array', 'Error', 'Proxy', 'JSON', 'Math', 'Date', 'Map', 'Set'];
var functions = ['parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent'];
var values = create(null);
// The global's own `name` (a plain read: the engine makes some built-ins on first read).
function globalValue(name) {
    if (getOwnPropertyDescriptor(global, name) === undefined) return undefined;
    return global[name];
}
function startsWith(text, prefix) { return apply(slice, text, [0, prefix.length]) === prefix; }
function uncapitalized(text) { return apply(toLowerCase, apply(charAt, text, [0]), []) + apply(slice, text, [1]); }
function resolve(name) {
    for (var f = 0; f < functions.length; f++) if (functions[f] === name) return globalValue(name);
    for (var i = 0; i < namespaces.length; i++) {
        var namespace = namespaces[i];
        if (!startsWith(name, namespace)) continue;
        var owner = globalValue(namespace), rest = apply(slice, name, [namespace.length]);
        if (owner === undefined || owner === null) break;
        if (rest === '') return owner;
        if (startsWith(rest, 'Prototype') && rest.length > 9) {
            owner = owner.prototype;
            rest = apply(slice, rest, [9]);
        }
        var key = uncapitalized(rest), value = owner[key];
        if (value !== undefined) return value;
        break;
    }
    throw new TypeErrorCtor('primordials: the realm has no ' + name);
}
return {
    values: values,
    // Captures each of `names` not captured yet (read-only).
    capture: function (names) {
        for (var i = 0; i < names.length; i++) {
            if (getOwnPropertyDescriptor(values, names[i]) !== undefined) continue;
            // A descriptor without a prototype: a script's `Object.prototype.get` must not make
            // it an accessor's.
            var descriptor = create(null);
            descriptor.value = resolve(names[i]);
            descriptor.enumerable = true;
            defineProperty(values, names[i], descriptor);
        }
    }
};
})
