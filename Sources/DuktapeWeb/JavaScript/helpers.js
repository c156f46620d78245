// Helpers every browser-globals file shares (PageSeam.globals runs this file first): calls with
// captured built-ins, brand checks on own internal state, host lists without a prototype, and
// WebIDL's conversions (DOMString, dictionaries, argument counts, `new` required).
//
// Internal state lives under Duktape's hidden symbols (`natives.hiddenKeys`, made natively):
// scripts can neither list them (`Object.getOwnPropertySymbols` leaves them out) nor spell
// them, so they can neither read, change nor forge the state of a `Headers`, `Blob` or signal.
(function (global, primordials, natives, shared) {
'use strict';

var defineProperty = primordials.ObjectDefineProperty,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    Str = primordials.String;
var arraySlice = primordials.ArrayPrototypeSlice;
var hasOwnProperty = primordials.ObjectPrototypeHasOwnProperty;
function call(f, self) { return apply(f, self, apply(arraySlice, arguments, [2])); }
// The value of `self`'s own property `key` (internal state: never an inherited one, so that an
// object made with Object.create(instance) is not an instance), or undefined.
// Read natively (`natives.ownSlot`) unless that needs script (a Proxy, an accessor).
var ownSlot = natives.ownSlot, UNDECIDED = setPrototypeOf({}, null);
function own(self, key) {
    var value = ownSlot(self, key, UNDECIDED);
    if (value !== UNDECIDED) return value;
    return self !== null && (typeof self === 'object' || typeof self === 'function') && apply(hasOwnProperty, self, [key])
        ? self[key] : undefined;
}
// Lists the host builds: no prototype, so that index setters a script defines on
// Array.prototype never see their elements.
function hostList() { return setPrototypeOf([], null); }
function hostAdd(list, value) { list[list.length] = value; }
// An array handed to scripts, made with defined (not assigned) elements.
function publicArray(items) {
    var array = [];
    for (var i = 0; i < items.length; i++) {
        defineProperty(array, i, { value: items[i], writable: true, enumerable: true, configurable: true });
    }
    return array;
}

// Interface objects are non-enumerable properties of the global object, as in browsers.
function defineGlobal(name, value) {
    defineProperty(global, name, { value: value, writable: true, enumerable: false, configurable: true });
}
function defineMethods(prototype, methods) {
    for (var name in methods) {
        defineProperty(prototype, name, { value: methods[name], writable: true, enumerable: true, configurable: true });
    }
}
function defineGetter(prototype, name, get) {
    defineProperty(prototype, name, { get: get, enumerable: true, configurable: true });
}
// WebIDL's DOMString: ToString, except that a symbol is a TypeError.
function toDOMString(value) {
    if (typeof value === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string');
    return Str(value);
}
// WebIDL dictionaries: undefined and null are empty; anything else must be an object.
function dictionary(value, what) {
    if (value === undefined || value === null) return setPrototypeOf({}, null);
    if (typeof value !== 'object' && typeof value !== 'function') throw new TypeErrorCtor(what + ' is not an object');
    return value;
}
function requireArguments(count, needed, what) {
    if (count < needed) {
        throw new TypeErrorCtor(what + ': ' + needed + ' argument' + (needed > 1 ? 's' : '') +
            ' required, but only ' + count + ' present');
    }
}
var isPrototypeOf = primordials.ObjectPrototypeIsPrototypeOf;
// `new` was used: `self` inherits from the interface's prototype (read with a captured
// isPrototypeOf, so that a script's Symbol.hasInstance has no say; the prototypes are made
// read-only at the end of the installation).
function requireNew(self, constructor, name) {
    if (self === null || typeof self !== 'object' || !apply(isPrototypeOf, constructor.prototype, [self])) {
        throw new TypeErrorCtor("Failed to construct '" + name + "': Please use the 'new' operator");
    }
}

return { call: call, defineGetter: defineGetter, defineGlobal: defineGlobal, defineMethods: defineMethods, dictionary: dictionary, hostAdd: hostAdd, hostList: hostList, own: own, publicArray: publicArray, requireArguments: requireArguments, requireNew: requireNew, toDOMString: toDOMString };
})
