// Node's `util.inspect`, the first part: the primordials it takes (as functions called with
// their receiver first), strings quoted and cut as Node cuts them, numbers, primitives, and the
// names constructors, functions and errors are shown with.
(function (global, primordials, natives, shared) {
'use strict';

var apply = primordials.ReflectApply;
function method(f) {
    return function (self, a, b, c) { return apply(f, self, arguments.length > 1 ? [a, b, c] : []); };
}
var protoOf = primordials.ObjectGetPrototypeOf,
    descOf = primordials.ObjectGetOwnPropertyDescriptor,
    Str = primordials.String;
var toTag = method(primordials.ObjectPrototypeToString), hasOwn = method(primordials.ObjectPrototypeHasOwnProperty),
    isEnumerable = method(primordials.ObjectPrototypePropertyIsEnumerable),
    charCode = method(primordials.StringPrototypeCharCodeAt), slice = method(primordials.StringPrototypeSlice),
    indexOf = method(primordials.StringPrototypeIndexOf), repeat = method(primordials.StringPrototypeRepeat),
    split = method(primordials.StringPrototypeSplit), toUpper = method(primordials.StringPrototypeToUpperCase),
    numToString = method(primordials.NumberPrototypeToString), toFixed = method(primordials.NumberPrototypeToFixed),
    numValue = method(primordials.NumberPrototypeValueOf), strValue = method(primordials.StringPrototypeValueOf),
    boolValue = method(primordials.BooleanPrototypeValueOf), dateTime = method(primordials.DatePrototypeGetTime),
    dateISO = method(primordials.DatePrototypeToISOString), regexpText = method(primordials.RegExpPrototypeToString),
    symbolText = method(primordials.SymbolPrototypeToString);
var byteView = function (buffer) { return new primordials.Uint8Array(buffer); };
// Duktape.info(value).enext: how many properties an object keeps outside its array part (its
// named properties and symbols, and indices only when sparse). Zero lets an array or typed
// array skip listing its keys, which costs a string for every element.
var engineInfo = typeof Duktape === 'object' && Duktape !== null && typeof Duktape.info === 'function' ? Duktape.info : null;
// An array's own class: a Proxy of an array passes Array.isArray, but its info is the proxy's.
var arrayClass = engineInfo !== null ? engineInfo([]).class : -1;
var testRe = method(primordials.RegExpPrototypeTest);

function append(list, value) { list[list.length] = value; }
// Strings are built from pieces joined once: Duktape has no ropes, so `+=` in a loop would be
// quadratic in the output's length.
var joinArray = method(primordials.ArrayPrototypeJoin);
function joined(list, separator) { return joinArray(list, separator); }
function spaces(n) { return n > 0 ? repeat(' ', n) : ''; }
function padEnd(text, width) { return text + spaces(width - text.length); }
function padStart(text, width) { return spaces(width - text.length) + text; }
function hex(code, width) {
    var digits = toUpper(numToString(code, 16));
    return repeat('0', width > digits.length ? width - digits.length : 0) + digits;
}

// Strings: single quotes, unless the string has one and lacks double quotes (or backticks);
// longer than 10,000 characters, cut there with "... N more characters", as Node does.
var MAX_STRING_LENGTH = 10000;
function quote(text) {
    var rest = '';
    if (text.length > MAX_STRING_LENGTH) {
        var more = text.length - MAX_STRING_LENGTH;
        rest = '... ' + more + ' more character' + (more > 1 ? 's' : '');
        text = slice(text, 0, MAX_STRING_LENGTH);
    }
    var q = 39;
    if (indexOf(text, "'") !== -1) {
        if (indexOf(text, '"') === -1) q = 34;
        else if (indexOf(text, '`') === -1 && indexOf(text, '${') === -1) q = 96;
    }
    var out = [], start = 0;
    for (var i = 0; i < text.length; i++) {
        var c = charCode(text, i), escaped = null;
        if (c === q || c === 92) escaped = '\\' + Str.fromCharCode(c);
        else if (c === 10) escaped = '\\n';
        else if (c === 9) escaped = '\\t';
        else if (c === 13) escaped = '\\r';
        else if (c === 8) escaped = '\\b';
        else if (c === 12) escaped = '\\f';
        else if (c < 32 || c === 127) escaped = '\\x' + hex(c, 2);
        else if (c >= 0xD800 && c <= 0xDFFF) {
            var next = i + 1 < text.length ? charCode(text, i + 1) : 0;
            if (c <= 0xDBFF && next >= 0xDC00 && next <= 0xDFFF) { i++; continue; }
            escaped = '\\u' + hex(c, 4);
        }
        if (escaped !== null) {
            append(out, slice(text, start, i));
            append(out, escaped);
            start = i + 1;
        }
    }
    append(out, slice(text, start));
    var q1 = Str.fromCharCode(q);
    return q1 + joined(out, '') + q1 + rest;
}

function formatNumber(n) { return n === 0 && 1 / n < 0 ? '-0' : Str(n); }

function formatPrimitive(value) {
    switch (typeof value) {
    case 'string': return quote(value);
    case 'number': return formatNumber(value);
    case 'symbol': return symbolText(value);
    default: return Str(value);
    }
}

// The name of the first `constructor` on value's prototype chain that value is an instance of,
// as Node finds it (a prototype that names another function's constructor is passed over).
function constructorName(value) {
    var proto;
    try { proto = protoOf(value); } catch (e) { return 'Object'; }
    while (proto !== null) {
        var d = descOf(proto, 'constructor');
        if (d && typeof d.value === 'function' && typeof d.value.name === 'string' && d.value.name !== '' && isInstance(value, d.value)) {
            return d.value.name;
        }
        proto = protoOf(proto);
    }
    return null;
}

function isInstance(value, C) {
    try { return value instanceof C; } catch (e) { return false; }
}

function functionBase(value) {
    var name = descOf(value, 'name');
    name = name && typeof name.value === 'string' ? name.value : '';
    return name === '' ? '[Function (anonymous)]' : '[Function: ' + name + ']';
}

function errorBase(value) {
    var name, message, stack;
    try { name = value.name; message = value.message; stack = value.stack; } catch (e) { return '[Error]'; }
    var head = Str(name === undefined ? 'Error' : name);
    if (message !== undefined && Str(message) !== '') head += ': ' + Str(message);
    if (typeof stack !== 'string' || stack === '') return '[' + head + ']';
    var lines = split(stack, '\n'), out = head;
    for (var i = 0; i < lines.length; i++) {
        if (lines[i] !== '') out += '\n    at ' + lines[i];
    }
    return out;
}

return { append: append, charCode: charCode, repeat: repeat, split: split, toFixed: toFixed, arrayClass: arrayClass, boolValue: boolValue, byteView: byteView, constructorName: constructorName, dateISO: dateISO, dateTime: dateTime, errorBase: errorBase, formatNumber: formatNumber, formatPrimitive: formatPrimitive, functionBase: functionBase, hasOwn: hasOwn, indexOf: indexOf, isEnumerable: isEnumerable, joined: joined, numToString: numToString, numValue: numValue, padEnd: padEnd, padStart: padStart, quote: quote, regexpText: regexpText, slice: slice, spaces: spaces, strValue: strValue, symbolText: symbolText, testRe: testRe, toTag: toTag };
})
