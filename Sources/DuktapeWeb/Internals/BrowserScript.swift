/// The browser globals that need no network, in JavaScript (ES5, as Duktape runs it):
/// `window`/`self`, `DOMException`, `btoa`/`atob`, `TextEncoder`/`TextDecoder`, `URL`,
/// `URLSearchParams`, `EventTarget`, `Event`, `CustomEvent`, `Headers`, `Blob`, `File`,
/// `FormData`, `AbortController` and `AbortSignal`.
///
/// The source is a constant: evaluated once per context, it gives a factory taking the global
/// object and the native helpers (`BrowserGlobals.install`). The built-ins it uses are captured
/// when it is installed, so a script that replaces `String` or `Reflect.apply` afterwards does
/// not change how these behave. Byte work (base64, UTF-8) is native: Duktape interns every
/// intermediate string, so building strings byte by byte in script is quadratic.
///
/// Internal state lives under Duktape's hidden symbols (`natives.hiddenKeys`, made natively):
/// scripts can neither list them (`Object.getOwnPropertySymbols` leaves them out) nor spell
/// them, so they can neither read, change nor forge the state of a `Headers`, `Blob` or signal.
enum BrowserScript {
    /// The whole factory: the globals, fetch (`BrowserScript+Fetch.swift`) and the closing part.
    static let source = globalsSource + fetchSource + closingSource

    static let globalsSource = #"""
(function (global, natives) {
'use strict';
var O = Object, defineProperty = O.defineProperty, create = O.create, setPrototypeOf = O.setPrototypeOf,
    getPrototypeOf = O.getPrototypeOf, apply = Reflect.apply, ErrorCtor = Error, TypeErrorCtor = TypeError,
    RangeErrorCtor = RangeError, Str = String, Sym = Symbol, Uint8 = Uint8Array, ArrayBufferCtor = ArrayBuffer,
    isView = ArrayBuffer.isView, dateNow = Date.now;
var base64Encode = natives.base64Encode, base64Decode = natives.base64Decode, utf8Encode = natives.utf8Encode,
    utf8Decode = natives.utf8Decode, utf8Fits = natives.utf8Fits, report = natives.report,
    urlParse = natives.urlParse, urlSet = natives.urlSet, formParse = natives.formParse,
    formSerialize = natives.formSerialize, usv = natives.usv, hidden = natives.hiddenKeys, isArray = Array.isArray,
    keysOf = O.keys;
var toLower = String.prototype.toLowerCase, replace = String.prototype.replace, slice = String.prototype.slice,
    splice = Array.prototype.splice, arraySlice = Array.prototype.slice, setBytes = Uint8Array.prototype.set,
    subarray = Uint8Array.prototype.subarray,
    clock = typeof performance === 'object' && performance !== null && typeof performance.now === 'function'
        ? performance : Date, readClock = clock === Date ? dateNow : performance.now;
var hasOwnProperty = Object.prototype.hasOwnProperty, charCodeAt = String.prototype.charCodeAt,
    arraySort = Array.prototype.sort, testPattern = RegExp.prototype.test, surrogate = /[\uD800-\uDFFF]/;
function call(f, self) { return apply(f, self, apply(arraySlice, arguments, [2])); }
// The value of `self`'s own property `key` (internal state: never an inherited one, so that an
// object made with Object.create(instance) is not an instance), or undefined.
function own(self, key) {
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
var isPrototypeOf = Object.prototype.isPrototypeOf;
// `new` was used: `self` inherits from the interface's prototype (read with a captured
// isPrototypeOf, so that a script's Symbol.hasInstance has no say; the prototypes are made
// read-only at the end of the installation).
function requireNew(self, constructor, name) {
    if (self === null || typeof self !== 'object' || !apply(isPrototypeOf, constructor.prototype, [self])) {
        throw new TypeErrorCtor("Failed to construct '" + name + "': Please use the 'new' operator");
    }
}

// --- window, self -----------------------------------------------------------------------------
defineProperty(global, 'window', { value: global, writable: false, enumerable: true, configurable: false });
defineProperty(global, 'self', { value: global, writable: true, enumerable: true, configurable: true });

// --- DOMException ---------------------------------------------------------------------------------
var legacyCodes = setPrototypeOf({
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
    NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25
}, null);
var codeConstants = ['INDEX_SIZE_ERR', 1, 'DOMSTRING_SIZE_ERR', 2, 'HIERARCHY_REQUEST_ERR', 3,
    'WRONG_DOCUMENT_ERR', 4, 'INVALID_CHARACTER_ERR', 5, 'NO_DATA_ALLOWED_ERR', 6,
    'NO_MODIFICATION_ALLOWED_ERR', 7, 'NOT_FOUND_ERR', 8, 'NOT_SUPPORTED_ERR', 9, 'INUSE_ATTRIBUTE_ERR', 10,
    'INVALID_STATE_ERR', 11, 'SYNTAX_ERR', 12, 'INVALID_MODIFICATION_ERR', 13, 'NAMESPACE_ERR', 14,
    'INVALID_ACCESS_ERR', 15, 'VALIDATION_ERR', 16, 'TYPE_MISMATCH_ERR', 17, 'SECURITY_ERR', 18,
    'NETWORK_ERR', 19, 'ABORT_ERR', 20, 'URL_MISMATCH_ERR', 21, 'QUOTA_EXCEEDED_ERR', 22, 'TIMEOUT_ERR', 23,
    'INVALID_NODE_TYPE_ERR', 24, 'DATA_CLONE_ERR', 25];

// An Error (so that it has a stack and `instanceof Error` holds) whose prototype is
// DOMException.prototype; `name`, `message` and `code` are own, non-enumerable properties.
function DOMException(message, name) {
    requireNew(this, DOMException, 'DOMException');
    var error = new ErrorCtor(message === undefined ? '' : toDOMString(message));
    var errorName = name === undefined ? 'Error' : toDOMString(name);
    setPrototypeOf(error, getPrototypeOf(this));
    defineProperty(error, 'name', { value: errorName, writable: true, enumerable: false, configurable: true });
    defineProperty(error, 'code', { value: legacyCodes[errorName] || 0, writable: true, enumerable: false, configurable: true });
    return error;
}
DOMException.prototype = create(ErrorCtor.prototype);
defineProperty(DOMException.prototype, 'constructor', { value: DOMException, writable: true, configurable: true });
defineProperty(DOMException.prototype, 'name', { value: 'Error', writable: true, configurable: true });
for (var c = 0; c < codeConstants.length; c += 2) {
    defineProperty(DOMException, codeConstants[c], { value: codeConstants[c + 1], enumerable: true });
    defineProperty(DOMException.prototype, codeConstants[c], { value: codeConstants[c + 1], enumerable: true });
}
defineGlobal('DOMException', DOMException);
function domException(message, name) { return new DOMException(message, name); }

// --- btoa, atob -------------------------------------------------------------------------------
defineGlobal('btoa', function btoa(data) {
    requireArguments(arguments.length, 1, "Failed to execute 'btoa'");
    var encoded = base64Encode(toDOMString(data));
    if (encoded === undefined) {
        throw domException('The string to be encoded contains characters outside of the Latin1 range.', 'InvalidCharacterError');
    }
    return encoded;
});
defineGlobal('atob', function atob(data) {
    requireArguments(arguments.length, 1, "Failed to execute 'atob'");
    var decoded = base64Decode(toDOMString(data));
    if (decoded === undefined) throw domException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    return decoded;
});

// --- TextEncoder, TextDecoder ---------------------------------------------------------------------
// A BufferSource (an ArrayBuffer or any view of one) as a Uint8Array over the same bytes.
function bytesOf(input, what) {
    if (input instanceof ArrayBufferCtor) return new Uint8(input);
    if (isView(input)) return new Uint8(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeErrorCtor(what + ": The provided value is not of type '(ArrayBuffer or ArrayBufferView)'");
}

function TextEncoder() {
    requireNew(this, TextEncoder, 'TextEncoder');
}
defineGetter(TextEncoder.prototype, 'encoding', function () { return 'utf-8'; });
defineMethods(TextEncoder.prototype, {
    encode: function encode(input) {
        return utf8Encode(input === undefined ? '' : toDOMString(input));
    },
    // As much of `source` as fits in `destination` without splitting a character.
    encodeInto: function encodeInto(source, destination) {
        requireArguments(arguments.length, 2, "Failed to execute 'encodeInto' on 'TextEncoder'");
        var text = toDOMString(source);
        if (!(destination instanceof Uint8)) {
            throw new TypeErrorCtor("Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'");
        }
        var read = utf8Fits(text, destination.length);
        var bytes = utf8Encode(call(slice, text, 0, read));
        call(setBytes, destination, bytes);
        return { read: read, written: bytes.length };
    }
});
defineGlobal('TextEncoder', TextEncoder);

var utf8Labels = setPrototypeOf({ 'unicode-1-1-utf-8': 1, 'unicode11utf8': 1, 'unicode20utf8': 1, 'utf-8': 1,
    'utf8': 1, 'x-unicode20utf8': 1 }, null);
var DECODER = hidden.decoder;
function decoderState(self) {
    var state = own(self, DECODER);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
// How many bytes at the end of `bytes` begin a UTF-8 sequence that later bytes may complete:
// they wait for the next chunk. Holding back more than needed would only delay them; the rule
// is exact for the longest sequence (4 bytes).
function incompleteTail(bytes) {
    var length = bytes.length;
    for (var back = 1; back <= 3 && back <= length; back++) {
        var byte = bytes[length - back];
        if ((byte & 0xC0) === 0x80) continue;
        var needed = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 && byte <= 0xEF ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 1;
        if (needed <= back) return 0;
        // A second byte outside the lead's range makes the sequence malformed already: it is
        // decoded (and replaced, or refused when fatal) now rather than a chunk later.
        if (back >= 2) {
            var second = bytes[length - back + 1];
            var low = byte === 0xE0 ? 0xA0 : byte === 0xF0 ? 0x90 : 0x80;
            var high = byte === 0xED ? 0x9F : byte === 0xF4 ? 0x8F : 0xBF;
            if (second < low || second > high) return 0;
        }
        return back;
    }
    return 0;
}
function concatBytes(first, second) {
    var joined = new Uint8(first.length + second.length);
    call(setBytes, joined, first);
    call(setBytes, joined, second, first.length);
    return joined;
}

// UTF-8 only (the encoding of every page this host runs); other labels are a RangeError.
function TextDecoder(label, options) {
    requireNew(this, TextDecoder, 'TextDecoder');
    var name = label === undefined ? 'utf-8' : call(toLower, call(replace, toDOMString(label), /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, ''));
    if (!utf8Labels[name]) {
        throw new RangeErrorCtor("Failed to construct 'TextDecoder': The encoding label provided ('" + name + "') is invalid.");
    }
    var settings = dictionary(options, "Failed to construct 'TextDecoder': parameter 2");
    defineProperty(this, DECODER, { value: {
        fatal: !!settings.fatal, ignoreBOM: !!settings.ignoreBOM, pending: null, bomSeen: false
    } });
}
defineGetter(TextDecoder.prototype, 'encoding', function () { decoderState(this); return 'utf-8'; });
defineGetter(TextDecoder.prototype, 'fatal', function () { return decoderState(this).fatal; });
defineGetter(TextDecoder.prototype, 'ignoreBOM', function () { return decoderState(this).ignoreBOM; });
defineMethods(TextDecoder.prototype, {
    decode: function decode(input, options) {
        var state = decoderState(this);
        var stream = !!dictionary(options, "Failed to execute 'decode' on 'TextDecoder': parameter 2").stream;
        var bytes = input === undefined ? new Uint8(0) : bytesOf(input, "Failed to execute 'decode' on 'TextDecoder'");
        if (state.pending !== null) {
            bytes = concatBytes(state.pending, bytes);
            state.pending = null;
        }
        var held = stream ? incompleteTail(bytes) : 0;
        if (held > 0) {
            state.pending = new Uint8(call(subarray, bytes, bytes.length - held));
            bytes = call(subarray, bytes, 0, bytes.length - held);
        }
        var text = utf8Decode(bytes, state.fatal);
        if (text === undefined) {
            state.pending = null;
            state.bomSeen = false;
            throw new TypeErrorCtor("Failed to execute 'decode' on 'TextDecoder': The encoded data was not valid.");
        }
        if (!state.ignoreBOM && !state.bomSeen && text.length > 0) {
            if (call(charCodeAt, text, 0) === 0xFEFF) text = call(slice, text, 1);
            state.bomSeen = true;
        }
        // The end of a stream: the next call starts a new one.
        if (!stream) state.bomSeen = false;
        return text;
    }
});
defineGlobal('TextDecoder', TextDecoder);

// --- URL, URLSearchParams --------------------------------------------------------------------------
// Parsing, serializing and the setters are native (URLRecord, FormURLEncoding); a URL object keeps
// its attributes (href, origin, protocol, username, password, host, hostname, port, pathname,
// search, hash) as the native side last gave them, and its URLSearchParams, which writes its
// list back to the URL's query on every change (and is re-read when the URL's query changes).
var URL_STATE = hidden.url, PARAMS = hidden.params;
var attributeNames = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port',
    'pathname', 'search', 'hash'];
function urlState(self) {
    var state = own(self, URL_STATE);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function paramsState(self) {
    var state = own(self, PARAMS);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function parseURL(url, base) {
    return urlParse(toDOMString(url), base === undefined ? undefined : toDOMString(base));
}

function URL(url, base) {
    requireNew(this, URL, 'URL');
    requireArguments(arguments.length, 1, "Failed to construct 'URL'");
    var attributes = parseURL(url, base);
    if (attributes === undefined) throw new TypeErrorCtor("Failed to construct 'URL': Invalid URL");
    var params = new URLSearchParams();
    var state = { attributes: attributes, params: params };
    defineProperty(this, URL_STATE, { value: state });
    var list = paramsState(params);
    list.url = state;
    list.pairs = parsePairs(attributes[9].length > 0 ? call(slice, attributes[9], 1) : '');
}
defineProperty(URL, 'canParse', { value: function canParse(url, base) {
    requireArguments(arguments.length, 1, "Failed to execute 'canParse' on 'URL'");
    return parseURL(url, base) !== undefined;
}, writable: true, enumerable: true, configurable: true });
defineProperty(URL, 'parse', { value: function parse(url, base) {
    requireArguments(arguments.length, 1, "Failed to execute 'parse' on 'URL'");
    var input = toDOMString(url), baseText = base === undefined ? undefined : toDOMString(base);
    return urlParse(input, baseText) === undefined ? null : new URL(input, baseText);
}, writable: true, enumerable: true, configurable: true });
function setURLAttribute(state, name, value) {
    var attributes = urlSet(state.attributes[0], name, value);
    if (attributes === undefined) throw new TypeErrorCtor("Failed to set the 'href' property on 'URL': Invalid URL");
    var searchChanged = attributes[9] !== state.attributes[9];
    state.attributes = attributes;
    if (searchChanged) {
        paramsState(state.params).pairs = parsePairs(attributes[9].length > 0 ? call(slice, attributes[9], 1) : '');
    }
}
attributeNames.forEach(function (name, index) {
    var descriptor = { get: function () { return urlState(this).attributes[index]; }, enumerable: true, configurable: true };
    if (name !== 'origin') {
        descriptor.set = function (value) { setURLAttribute(urlState(this), name, toDOMString(value)); };
    }
    defineProperty(URL.prototype, name, descriptor);
});
defineGetter(URL.prototype, 'searchParams', function () { return urlState(this).params; });
defineMethods(URL.prototype, {
    toString: function toString() { return urlState(this).attributes[0]; },
    toJSON: function toJSON() { return urlState(this).attributes[0]; }
});
defineGlobal('URL', URL);

// The pairs are kept flat (name, value, name, value...), as the native side reads and writes them.
// WebIDL's USVString: a DOMString whose lone surrogates become U+FFFD (done natively, where
// the conversion to Swift does it, and only when the string has a surrogate at all).
function toUSVString(value) {
    var text = toDOMString(value);
    return apply(testPattern, surrogate, [text]) ? usv(text) : text;
}
// Pairs from a query string, in a host list.
function parsePairs(text) {
    return setPrototypeOf(formParse(text), null);
}

// The pairs are kept flat (name, value, name, value...), as the native side reads and writes
// them, in a host list.
function URLSearchParams(init) {
    requireNew(this, URLSearchParams, 'URLSearchParams');
    var pairs = hostList(), i;
    if (init !== undefined && init !== null && (typeof init === 'object' || typeof init === 'function')) {
        var other = own(init, PARAMS);
        if (other !== undefined) {
            for (i = 0; i < other.pairs.length; i++) hostAdd(pairs, other.pairs[i]);
        } else if (isArray(init)) {
            for (i = 0; i < init.length; i++) {
                var pair = init[i];
                if (pair === null || typeof pair !== 'object' || pair.length !== 2) {
                    throw new TypeErrorCtor("Failed to construct 'URLSearchParams': Each query pair must be a sequence of two items");
                }
                hostAdd(pairs, toUSVString(pair[0]));
                hostAdd(pairs, toUSVString(pair[1]));
            }
        } else {
            var keys = keysOf(init);
            for (i = 0; i < keys.length; i++) {
                hostAdd(pairs, toUSVString(keys[i]));
                hostAdd(pairs, toUSVString(init[keys[i]]));
            }
        }
    } else if (init !== undefined) {
        var text = toUSVString(init);
        pairs = parsePairs(call(charCodeAt, text, 0) === 0x3F ? call(slice, text, 1) : text);
    }
    defineProperty(this, PARAMS, { value: { pairs: pairs, url: null } });
}
function updateURL(state) {
    if (state.url === null) return;
    setURLAttribute(state.url, 'search', formSerialize(state.pairs));
}
function indexOfPair(pairs, name, from) {
    for (var i = from; i < pairs.length; i += 2) if (pairs[i] === name) return i;
    return -1;
}
// The pairs without those named `name` (and, when given, valued `value`).
function pairsWithout(pairs, name, value) {
    var kept = hostList();
    for (var i = 0; i < pairs.length; i += 2) {
        if (pairs[i] !== name || (value !== undefined && pairs[i + 1] !== value)) {
            hostAdd(kept, pairs[i]);
            hostAdd(kept, pairs[i + 1]);
        }
    }
    return kept;
}
function iteratorOver(state, kind) {
    var index = 0;
    var iterator = {
        next: function next() {
            if (index >= state.pairs.length) return { value: undefined, done: true };
            var name = state.pairs[index], value = state.pairs[index + 1];
            index += 2;
            return { value: kind === 'keys' ? name : kind === 'values' ? value : publicArray([name, value]), done: false };
        }
    };
    defineProperty(iterator, Sym.iterator, { value: function () { return iterator; } });
    return iterator;
}
defineGetter(URLSearchParams.prototype, 'size', function () { return paramsState(this).pairs.length / 2; });
defineMethods(URLSearchParams.prototype, {
    append: function append(name, value) {
        requireArguments(arguments.length, 2, "Failed to execute 'append' on 'URLSearchParams'");
        var key = toUSVString(name), text = toUSVString(value), state = paramsState(this);  // converted first
        hostAdd(state.pairs, key);
        hostAdd(state.pairs, text);
        updateURL(state);
    },
    'delete': function (name, value) {
        requireArguments(arguments.length, 1, "Failed to execute 'delete' on 'URLSearchParams'");
        var state = paramsState(this);
        state.pairs = pairsWithout(state.pairs, toUSVString(name), value === undefined ? undefined : toUSVString(value));
        updateURL(state);
    },
    get: function get(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'get' on 'URLSearchParams'");
        var pairs = paramsState(this).pairs, index = indexOfPair(pairs, toUSVString(name), 0);
        return index < 0 ? null : pairs[index + 1];
    },
    getAll: function getAll(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'getAll' on 'URLSearchParams'");
        var pairs = paramsState(this).pairs, key = toUSVString(name), values = hostList();
        for (var i = indexOfPair(pairs, key, 0); i >= 0; i = indexOfPair(pairs, key, i + 2)) hostAdd(values, pairs[i + 1]);
        return publicArray(values);
    },
    has: function has(name, value) {
        requireArguments(arguments.length, 1, "Failed to execute 'has' on 'URLSearchParams'");
        var pairs = paramsState(this).pairs, key = toUSVString(name), only = value === undefined ? undefined : toUSVString(value);
        for (var i = indexOfPair(pairs, key, 0); i >= 0; i = indexOfPair(pairs, key, i + 2)) {
            if (only === undefined || pairs[i + 1] === only) return true;
        }
        return false;
    },
    set: function set(name, value) {
        requireArguments(arguments.length, 2, "Failed to execute 'set' on 'URLSearchParams'");
        var state = paramsState(this), key = toUSVString(name), text = toUSVString(value), kept = hostList(), found = false;
        for (var i = 0; i < state.pairs.length; i += 2) {
            if (state.pairs[i] !== key) {
                hostAdd(kept, state.pairs[i]);
                hostAdd(kept, state.pairs[i + 1]);
            } else if (!found) {
                hostAdd(kept, key);
                hostAdd(kept, text);
                found = true;
            }
        }
        if (!found) {
            hostAdd(kept, key);
            hostAdd(kept, text);
        }
        state.pairs = kept;
        updateURL(state);
    },
    // Stable, by the names' UTF-16 code units.
    sort: function sort() {
        var state = paramsState(this), entries = hostList(), i;
        for (i = 0; i < state.pairs.length; i += 2) hostAdd(entries, [state.pairs[i], state.pairs[i + 1], i]);
        call(arraySort, entries, function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[2] - b[2]; });
        var sorted = hostList();
        for (i = 0; i < entries.length; i++) {
            hostAdd(sorted, entries[i][0]);
            hostAdd(sorted, entries[i][1]);
        }
        state.pairs = sorted;
        updateURL(state);
    },
    forEach: function forEach(callback, thisArg) {
        var state = paramsState(this);
        if (typeof callback !== 'function') throw new TypeErrorCtor("Failed to execute 'forEach' on 'URLSearchParams': parameter 1 is not a function");
        for (var i = 0; i < state.pairs.length; i += 2) apply(callback, thisArg, [state.pairs[i + 1], state.pairs[i], this]);
    },
    keys: function keys() { return iteratorOver(paramsState(this), 'keys'); },
    values: function values() { return iteratorOver(paramsState(this), 'values'); },
    entries: function entries() { return iteratorOver(paramsState(this), 'entries'); },
    toString: function toString() { return formSerialize(paramsState(this).pairs); }
});
defineProperty(URLSearchParams.prototype, Sym.iterator, { value: URLSearchParams.prototype.entries, writable: true, configurable: true });
defineGlobal('URLSearchParams', URLSearchParams);

// --- Event, CustomEvent, EventTarget --------------------------------------------------------------
var EVENT = hidden.event, LISTENERS = hidden.listeners;
function eventState(self) {
    var state = own(self, EVENT);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}

function Event(type, init) {
    requireNew(this, Event, 'Event');
    requireArguments(arguments.length, 1, "Failed to construct 'Event'");
    var settings = dictionary(init, "Failed to construct 'Event': parameter 2");
    defineProperty(this, EVENT, { value: {
        type: toDOMString(type), bubbles: !!settings.bubbles, cancelable: !!settings.cancelable,
        composed: !!settings.composed, canceled: false, dispatching: false, stop: false, stopNow: false,
        inPassiveListener: false, target: null, currentTarget: null, phase: 0, timeStamp: apply(readClock, clock, []),
        detail: null
    } });
    // isTrusted is an own, unforgeable property in browsers.
    defineProperty(this, 'isTrusted', { get: function () { return false; }, enumerable: true });
}
var phases = ['NONE', 0, 'CAPTURING_PHASE', 1, 'AT_TARGET', 2, 'BUBBLING_PHASE', 3];
for (var p = 0; p < phases.length; p += 2) {
    defineProperty(Event, phases[p], { value: phases[p + 1], enumerable: true });
    defineProperty(Event.prototype, phases[p], { value: phases[p + 1], enumerable: true });
}
function eventGetter(name, read) {
    defineGetter(Event.prototype, name, function () { return read(eventState(this)); });
}
eventGetter('type', function (s) { return s.type; });
eventGetter('bubbles', function (s) { return s.bubbles; });
eventGetter('cancelable', function (s) { return s.cancelable; });
eventGetter('composed', function (s) { return s.composed; });
eventGetter('defaultPrevented', function (s) { return s.canceled; });
eventGetter('target', function (s) { return s.target; });
eventGetter('srcElement', function (s) { return s.target; });
eventGetter('currentTarget', function (s) { return s.currentTarget; });
eventGetter('eventPhase', function (s) { return s.phase; });
eventGetter('timeStamp', function (s) { return s.timeStamp; });
defineProperty(Event.prototype, 'cancelBubble', { enumerable: true, configurable: true,
    get: function () { return eventState(this).stop; },
    set: function (value) { if (value) eventState(this).stop = true; } });
defineProperty(Event.prototype, 'returnValue', { enumerable: true, configurable: true,
    get: function () { return !eventState(this).canceled; },
    set: function (value) { if (!value) cancel(eventState(this)); } });
function cancel(state) {
    if (state.cancelable && !state.inPassiveListener) state.canceled = true;
}
defineMethods(Event.prototype, {
    preventDefault: function preventDefault() { cancel(eventState(this)); },
    stopPropagation: function stopPropagation() { eventState(this).stop = true; },
    stopImmediatePropagation: function stopImmediatePropagation() {
        var state = eventState(this);
        state.stop = true;
        state.stopNow = true;
    },
    composedPath: function composedPath() {
        var state = eventState(this);
        return state.dispatching && state.currentTarget !== null ? [state.currentTarget] : [];
    }
});
defineGlobal('Event', Event);

function CustomEvent(type, init) {
    requireNew(this, CustomEvent, 'CustomEvent');
    requireArguments(arguments.length, 1, "Failed to construct 'CustomEvent'");
    var event = apply(Event, this, [type, init]) || this;
    var settings = dictionary(init, "Failed to construct 'CustomEvent': parameter 2");
    eventState(this).detail = settings.detail === undefined ? null : settings.detail;  // an own property of the state
    return event;
}
CustomEvent.prototype = create(Event.prototype);
defineProperty(CustomEvent.prototype, 'constructor', { value: CustomEvent, writable: true, configurable: true });
defineGetter(CustomEvent.prototype, 'detail', function () { return eventState(this).detail; });
defineGlobal('CustomEvent', CustomEvent);

// `this` of an EventTarget method: undefined and null are the global object (WebIDL's rule for
// the global's operations, so that a bare `addEventListener(...)` in a page works).
function targetOf(self) {
    return self === undefined || self === null ? global : self;
}
// The listener table of an EventTarget (its own: made by the constructor, or for the window);
// anything else is not an EventTarget.
function listenersOf(target) {
    var table = own(target, LISTENERS);
    if (table === undefined) throw new TypeErrorCtor('Illegal invocation');
    return table;
}
function makeEventTarget(target) {
    if (own(target, LISTENERS) === undefined) defineProperty(target, LISTENERS, { value: setPrototypeOf({}, null) });
}
function captureOf(options) {
    return typeof options === 'boolean' ? options : !!(options !== null && typeof options === 'object' && options.capture);
}
function findListener(list, callback, capture) {
    for (var i = 0; i < list.length; i++) {
        if (list[i].callback === callback && list[i].capture === capture) return i;
    }
    return -1;
}

function EventTarget() {
    requireNew(this, EventTarget, 'EventTarget');
    makeEventTarget(this);
}
defineMethods(EventTarget.prototype, {
    addEventListener: function addEventListener(type, callback, options) {
        requireArguments(arguments.length, 2, "Failed to execute 'addEventListener' on 'EventTarget'");
        var table = listenersOf(targetOf(this)), name = toDOMString(type);
        if (callback === null || callback === undefined) return;
        if (typeof callback !== 'function' && typeof callback !== 'object') {
            throw new TypeErrorCtor("Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'Object'");
        }
        var settings = typeof options === 'boolean' ? { capture: options } : dictionary(options, 'options');
        var capture = !!settings.capture;
        var list = table[name] || (table[name] = hostList());
        if (findListener(list, callback, capture) >= 0) return;
        list[list.length] = { callback: callback, capture: capture, once: !!settings.once,
                              passive: !!settings.passive, removed: false };
    },
    removeEventListener: function removeEventListener(type, callback, options) {
        requireArguments(arguments.length, 2, "Failed to execute 'removeEventListener' on 'EventTarget'");
        var table = listenersOf(targetOf(this)), list = table[toDOMString(type)];
        if (!list) return;
        var index = findListener(list, callback, captureOf(options));
        if (index >= 0) {
            list[index].removed = true;
            call(splice, list, index, 1);
        }
    },
    // Listeners run in the order they were added; one added during the dispatch waits for the
    // next, one removed during it does not run. An exception in a listener is reported (to the
    // context's exception handler) and the others still run, as browsers do.
    dispatchEvent: function dispatchEvent(event) {
        requireArguments(arguments.length, 1, "Failed to execute 'dispatchEvent' on 'EventTarget'");
        var state = own(event, EVENT);
        if (state === undefined) {
            throw new TypeErrorCtor("Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'");
        }
        if (state.dispatching) throw domException('The event is already being dispatched.', 'InvalidStateError');
        return dispatchAlong(event, state, [targetOf(this)]);
    }
});
// Runs the listeners of one target for the event's current phase (capture listeners only while
// capturing, the others only while bubbling, all of them at the target), then its `on<type>`
// handler property at the target and while bubbling.
function invokeListeners(event, state, target) {
    var list = listenersOf(target)[state.type];
    var snapshot = list ? apply(arraySlice, list, []) : [];
    for (var i = 0; i < snapshot.length && !state.stopNow; i++) {
        var listener = snapshot[i];
        if (listener.removed) continue;
        if ((state.phase === 1 && !listener.capture) || (state.phase === 3 && listener.capture)) continue;
        if (listener.once) {
            var index = findListener(list, listener.callback, listener.capture);
            if (index >= 0) call(splice, list, index, 1);
            listener.removed = true;
        }
        state.inPassiveListener = listener.passive;
        try {
            if (typeof listener.callback === 'function') {
                apply(listener.callback, target, [event]);
            } else {
                var handleEvent = listener.callback.handleEvent;
                if (typeof handleEvent !== 'function') throw new TypeErrorCtor('handleEvent is not a function');
                apply(handleEvent, listener.callback, [event]);
            }
        } catch (error) {
            try { report(error); } catch (ignored) { /* the handler rethrew it: the dispatch goes on */ }
        }
        state.inPassiveListener = false;
    }
    var handler = state.phase !== 1 && !state.stopNow ? target['on' + state.type] : undefined;
    if (typeof handler === 'function') {
        try {
            if (apply(handler, target, [event]) === false) cancel(state);
        } catch (error) {
            try { report(error); } catch (ignored) { /* as above */ }
        }
    }
}
// The DOM's dispatch along `path` (the target first, then its ancestors): capturing from the
// outermost ancestor down, the target, then bubbling back up if the event bubbles.
function dispatchAlong(event, state, path) {
    var target = path[0], i;
    state.dispatching = true;
    state.target = target;
    for (i = path.length - 1; i > 0 && !state.stop; i--) {
        state.currentTarget = path[i];
        state.phase = 1;
        invokeListeners(event, state, path[i]);
    }
    if (!state.stop) {
        state.currentTarget = target;
        state.phase = 2;
        invokeListeners(event, state, target);
    }
    for (i = 1; i < path.length && state.bubbles && !state.stop; i++) {
        state.currentTarget = path[i];
        state.phase = 3;
        invokeListeners(event, state, path[i]);
    }
    // The stop flags are cleared at the end (one set before the dispatch stops all of it).
    state.dispatching = false;
    state.stop = false;
    state.stopNow = false;
    state.currentTarget = null;
    state.phase = 0;
    return !state.canceled;
}
defineGlobal('EventTarget', EventTarget);

// The global object is the window, an EventTarget (`window.addEventListener('load', ...)`).
setPrototypeOf(global, create(EventTarget.prototype));

makeEventTarget(global);

// --- Headers ------------------------------------------------------------------------------------
// A header list: [name, value] pairs in a host list, names as given; reads are case-insensitive.
// Iteration sorts by lowercased name and combines values with ", " (Set-Cookie's stay separate).
var HEADERS = hidden.headers;
var tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, invalidValue = /[\0\r\n\u0100-\uffff]/,
    toLowerCase = String.prototype.toLowerCase, arrayJoin = Array.prototype.join;
function headersState(self) {
    var state = own(self, HEADERS);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function headerName(name) {
    var text = toDOMString(name);
    if (!apply(testPattern, tokenPattern, [text])) throw new TypeErrorCtor("Invalid header name: '" + text + "'");
    return text;
}
function isHTTPWhitespace(code) { return code === 9 || code === 10 || code === 13 || code === 32; }
// The value without leading and trailing HTTP whitespace (found by index: linear), refused when
// it holds NUL, CR or LF, or a character above U+00FF (a header value is bytes).
function headerValue(value) {
    var text = toDOMString(value), start = 0, end = text.length;
    while (start < end && isHTTPWhitespace(call(charCodeAt, text, start))) start++;
    while (end > start && isHTTPWhitespace(call(charCodeAt, text, end - 1))) end--;
    text = call(slice, text, start, end);
    if (apply(testPattern, invalidValue, [text])) throw new TypeErrorCtor('Invalid header value');
    return text;
}
function lower(text) { return apply(toLowerCase, text, []); }
function writable(state) {
    if (state.immutable) throw new TypeErrorCtor("Headers are immutable");
}
function appendHeader(state, name, value) {
    var key = headerName(name), text = headerValue(value);
    writable(state);
    hostAdd(state.list, [key, text]);
    changed(state);
}
function fillHeaders(state, init) {
    if (init === undefined) return;
    if (init === null || (typeof init !== 'object' && typeof init !== 'function')) {
        throw new TypeErrorCtor("Failed to construct 'Headers': The provided value is not of type 'HeadersInit'");
    }
    var other = own(init, HEADERS), i;
    if (other !== undefined) {
        for (i = 0; i < other.list.length; i++) appendHeader(state, other.list[i][0], other.list[i][1]);
    } else if (isArray(init)) {
        for (i = 0; i < init.length; i++) {
            var pair = init[i];
            if (pair === null || typeof pair !== 'object' || pair.length !== 2) {
                throw new TypeErrorCtor("Failed to construct 'Headers': Each header pair must be a sequence of two items");
            }
            appendHeader(state, pair[0], pair[1]);
        }
    } else {
        var keys = keysOf(init);
        for (i = 0; i < keys.length; i++) appendHeader(state, keys[i], init[keys[i]]);
    }
}
// The sorted, combined view iteration shows.
// The view is cached until the list changes (`changed`): iterating stays linear per step.
function changed(state) { state.view = null; }
function sortedHeaders(state) {
    if (state.view) return state.view;
    // One pass groups the values by lowercased name; Set-Cookie's stay apart, in order.
    var groups = setPrototypeOf({}, null), names = hostList(), cookies = hostList(), i, key;
    for (i = 0; i < state.list.length; i++) {
        key = lower(state.list[i][0]);
        if (key === 'set-cookie') {
            hostAdd(cookies, state.list[i][1]);
            continue;
        }
        if (groups[key] === undefined) {
            groups[key] = hostList();
            hostAdd(names, key);
        }
        hostAdd(groups[key], state.list[i][1]);
    }
    if (cookies.length > 0) hostAdd(names, 'set-cookie');
    call(arraySort, names, function (a, b) { return a < b ? -1 : a > b ? 1 : 0; });
    var result = hostList();
    for (i = 0; i < names.length; i++) {
        if (names[i] === 'set-cookie') {
            for (var c = 0; c < cookies.length; c++) hostAdd(result, ['set-cookie', cookies[c]]);
        } else {
            hostAdd(result, [names[i], apply(arrayJoin, groups[names[i]], [', '])]);
        }
    }
    state.view = result;
    return result;
}
// The values of `key` joined by ", " (one join: no quadratic concatenation), or null.
function combinedValue(state, key) {
    var values = hostList();
    for (var i = 0; i < state.list.length; i++) if (lower(state.list[i][0]) === key) hostAdd(values, state.list[i][1]);
    return values.length === 0 ? null : apply(arrayJoin, values, [', ']);
}
function hasHeader(state, key) {
    for (var i = 0; i < state.list.length; i++) if (lower(state.list[i][0]) === key) return true;
    return false;
}
function cookieValues(state) {
    var values = hostList();
    for (var i = 0; i < state.list.length; i++) if (lower(state.list[i][0]) === 'set-cookie') hostAdd(values, state.list[i][1]);
    return values;
}
function Headers(init) {
    requireNew(this, Headers, 'Headers');
    var state = { list: hostList(), immutable: false, view: null };
    fillHeaders(state, init);
    defineProperty(this, HEADERS, { value: state });
}
function headersIterator(state, kind) {
    var index = 0;
    var iterator = {
        next: function next() {
            var view = sortedHeaders(state);
            if (index >= view.length) return { value: undefined, done: true };
            var entry = view[index++];
            return { value: kind === 'keys' ? entry[0] : kind === 'values' ? entry[1] : publicArray(entry), done: false };
        }
    };
    defineProperty(iterator, Sym.iterator, { value: function () { return iterator; } });
    return iterator;
}
defineMethods(Headers.prototype, {
    append: function append(name, value) {
        requireArguments(arguments.length, 2, "Failed to execute 'append' on 'Headers'");
        appendHeader(headersState(this), name, value);
    },
    'delete': function (name) {
        requireArguments(arguments.length, 1, "Failed to execute 'delete' on 'Headers'");
        var state = headersState(this), key = lower(headerName(name)), kept = hostList();
        writable(state);
        for (var i = 0; i < state.list.length; i++) if (lower(state.list[i][0]) !== key) hostAdd(kept, state.list[i]);
        state.list = kept;
        changed(state);
    },
    get: function get(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'get' on 'Headers'");
        return combinedValue(headersState(this), lower(headerName(name)));
    },
    getSetCookie: function getSetCookie() { return publicArray(cookieValues(headersState(this))); },
    has: function has(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'has' on 'Headers'");
        return hasHeader(headersState(this), lower(headerName(name)));
    },
    set: function set(name, value) {
        requireArguments(arguments.length, 2, "Failed to execute 'set' on 'Headers'");
        var state = headersState(this), key = headerName(name), lowered = lower(key), text = headerValue(value), kept = hostList(),
            found = false;
        writable(state);
        for (var i = 0; i < state.list.length; i++) {
            if (lower(state.list[i][0]) !== lowered) {
                hostAdd(kept, state.list[i]);
            } else if (!found) {
                hostAdd(kept, [state.list[i][0], text]);
                found = true;
            }
        }
        if (!found) hostAdd(kept, [key, text]);
        state.list = kept;
        changed(state);
    },
    forEach: function forEach(callback, thisArg) {
        var view = sortedHeaders(headersState(this));
        if (typeof callback !== 'function') throw new TypeErrorCtor("Failed to execute 'forEach' on 'Headers': parameter 1 is not a function");
        for (var i = 0; i < view.length; i++) apply(callback, thisArg, [view[i][1], view[i][0], this]);
    },
    keys: function keys() { return headersIterator(headersState(this), 'keys'); },
    values: function values() { return headersIterator(headersState(this), 'values'); },
    entries: function entries() { return headersIterator(headersState(this), 'entries'); }
});
defineProperty(Headers.prototype, Sym.iterator, { value: Headers.prototype.entries, writable: true, configurable: true });
defineGlobal('Headers', Headers);

// --- Blob, File, FormData -------------------------------------------------------------------------
// A Blob keeps its bytes in one Uint8Array of its own (strings as UTF-8, buffers and blobs
// copied); the host reads them as Data when a body is sent.
var BLOB = hidden.blob, FILE = hidden.file, FORM = hidden.form, PromiseCtor = Promise,
    printableASCII = /^[\x20-\x7E]*$/, lineBreaks = /\r\n|\r/g, floor = Math.floor, ceil = Math.ceil,
    max = Math.max, min = Math.min;
function blobState(self) {
    var state = own(self, BLOB);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function blobType(value) {
    var text = value === undefined ? '' : toDOMString(value);
    return apply(testPattern, printableASCII, [text]) ? lower(text) : '';
}
function bytesOfParts(parts, native) {
    if (parts === undefined) return new Uint8(0);
    if (parts === null || typeof parts !== 'object') {
        throw new TypeErrorCtor("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
    }
    var chunks = hostList(), total = 0, i;
    for (i = 0; i < parts.length; i++) {
        var part = parts[i], bytes, blob = own(part, BLOB);
        if (blob !== undefined) bytes = blob.bytes;
        else if (part instanceof ArrayBufferCtor || isView(part)) bytes = bytesOf(part, "Failed to construct 'Blob'");
        else {
            var text = toDOMString(part);
            if (native) text = call(replace, text, lineBreaks, '\n');
            bytes = utf8Encode(text);
        }
        hostAdd(chunks, bytes);
        total += bytes.length;
    }
    var joined = new Uint8(total), offset = 0;
    for (i = 0; i < chunks.length; i++) {
        call(setBytes, joined, chunks[i], offset);
        offset += chunks[i].length;
    }
    return joined;
}
function makeBlob(self, bytes, type) {
    defineProperty(self, BLOB, { value: { bytes: bytes, type: type } });
}
function Blob(parts, options) {
    requireNew(this, Blob, 'Blob');
    var settings = dictionary(options, "Failed to construct 'Blob': parameter 2");
    makeBlob(this, bytesOfParts(parts, settings.endings === 'native'), blobType(settings.type));
}
defineGetter(Blob.prototype, 'size', function () { return blobState(this).bytes.length; });
defineGetter(Blob.prototype, 'type', function () { return blobState(this).type; });
// A relative index as slice() reads it: negative from the end, clamped to [0, size].
function relativeIndex(value, size, fallback) {
    if (value === undefined) return fallback;
    var number = +value;
    number = number !== number ? 0 : number < 0 ? ceil(number) : floor(number);
    return number < 0 ? max(size + number, 0) : min(number, size);
}
defineMethods(Blob.prototype, {
    slice: function slice(start, end, contentType) {
        var state = blobState(this), size = state.bytes.length;
        var from = relativeIndex(start, size, 0), to = relativeIndex(end, size, size);
        var blob = create(Blob.prototype);
        makeBlob(blob, new Uint8(call(subarray, state.bytes, from, max(from, to))), blobType(contentType));
        return blob;
    },
    text: function text() {
        var state = blobState(this);
        return new PromiseCtor(function (resolve) {
            var decoded = utf8Decode(state.bytes, false);
            resolve(call(charCodeAt, decoded, 0) === 0xFEFF ? call(slice, decoded, 1) : decoded);  // UTF-8 decode drops a BOM
        });
    },
    arrayBuffer: function arrayBuffer() {
        var state = blobState(this);
        return new PromiseCtor(function (resolve) { resolve(new Uint8(state.bytes).buffer); });
    },
    bytes: function bytes() {
        var state = blobState(this);
        return new PromiseCtor(function (resolve) { resolve(new Uint8(state.bytes)); });
    }
});
defineGlobal('Blob', Blob);

function File(bits, name, options) {
    requireNew(this, File, 'File');
    requireArguments(arguments.length, 2, "Failed to construct 'File'");
    var settings = dictionary(options, "Failed to construct 'File': parameter 3");
    makeBlob(this, bytesOfParts(bits, settings.endings === 'native'), blobType(settings.type));
    var lastModified = settings.lastModified === undefined ? dateNow() : +settings.lastModified;
    defineProperty(this, FILE, { value: { name: toUSVString(name), lastModified: lastModified === lastModified ? lastModified : 0 } });
}
File.prototype = create(Blob.prototype);
defineProperty(File.prototype, 'constructor', { value: File, writable: true, configurable: true });
function fileState(self) {
    var state = own(self, FILE);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
defineGetter(File.prototype, 'name', function () { return fileState(this).name; });
defineGetter(File.prototype, 'lastModified', function () { return fileState(this).lastModified; });
defineGlobal('File', File);

// A FormData entry's value: a string, or a File (a Blob becomes a File named "blob", or the
// filename given).
function formValue(value, filename) {
    var blob = own(value, BLOB);
    if (blob === undefined) return toUSVString(value);
    var file = own(value, FILE);
    if (file !== undefined && filename === undefined) return value;
    var name = filename !== undefined ? toUSVString(filename) : file !== undefined ? file.name : 'blob';
    return new File([value], name, { type: blob.type, lastModified: file !== undefined ? file.lastModified : undefined });
}
function formState(self) {
    var state = own(self, FORM);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function FormData(form) {
    requireNew(this, FormData, 'FormData');
    if (form !== undefined) throw new TypeErrorCtor("Failed to construct 'FormData': there are no HTML forms in this host");
    defineProperty(this, FORM, { value: { entries: hostList() } });
}
function formIterator(state, kind) {
    var index = 0;
    var iterator = {
        next: function next() {
            if (index >= state.entries.length) return { value: undefined, done: true };
            var entry = state.entries[index++];
            return { value: kind === 'keys' ? entry[0] : kind === 'values' ? entry[1] : publicArray(entry), done: false };
        }
    };
    defineProperty(iterator, Sym.iterator, { value: function () { return iterator; } });
    return iterator;
}
defineMethods(FormData.prototype, {
    append: function append(name, value, filename) {
        requireArguments(arguments.length, 2, "Failed to execute 'append' on 'FormData'");
        var entry = [toUSVString(name), formValue(value, filename)];  // converted first: a conversion may change the list
        hostAdd(formState(this).entries, entry);
    },
    'delete': function (name) {
        requireArguments(arguments.length, 1, "Failed to execute 'delete' on 'FormData'");
        var state = formState(this), key = toUSVString(name), kept = hostList();
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] !== key) hostAdd(kept, state.entries[i]);
        state.entries = kept;
    },
    get: function get(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'get' on 'FormData'");
        var state = formState(this), key = toUSVString(name);
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] === key) return state.entries[i][1];
        return null;
    },
    getAll: function getAll(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'getAll' on 'FormData'");
        var state = formState(this), key = toUSVString(name), values = hostList();
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] === key) hostAdd(values, state.entries[i][1]);
        return publicArray(values);
    },
    has: function has(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'has' on 'FormData'");
        var state = formState(this), key = toUSVString(name);
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] === key) return true;
        return false;
    },
    set: function set(name, value, filename) {
        requireArguments(arguments.length, 2, "Failed to execute 'set' on 'FormData'");
        var state = formState(this), key = toUSVString(name), entry = [key, formValue(value, filename)], kept = hostList(), found = false;
        for (var i = 0; i < state.entries.length; i++) {
            if (state.entries[i][0] !== key) hostAdd(kept, state.entries[i]);
            else if (!found) { hostAdd(kept, entry); found = true; }
        }
        if (!found) hostAdd(kept, entry);
        state.entries = kept;
    },
    forEach: function forEach(callback, thisArg) {
        var state = formState(this);
        if (typeof callback !== 'function') throw new TypeErrorCtor("Failed to execute 'forEach' on 'FormData': parameter 1 is not a function");
        for (var i = 0; i < state.entries.length; i++) apply(callback, thisArg, [state.entries[i][1], state.entries[i][0], this]);
    },
    keys: function keys() { return formIterator(formState(this), 'keys'); },
    values: function values() { return formIterator(formState(this), 'values'); },
    entries: function entries() { return formIterator(formState(this), 'entries'); }
});
defineProperty(FormData.prototype, Sym.iterator, { value: FormData.prototype.entries, writable: true, configurable: true });
defineGlobal('FormData', FormData);

// --- AbortController, AbortSignal -----------------------------------------------------------------
var SIGNAL = hidden.signal, constructingSignal = false;
// The timers installed before the globals (a page's event loop), captured.
var timer = typeof global.setTimeout === 'function' ? global.setTimeout : null;
function signalState(self) {
    var state = own(self, SIGNAL);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function AbortSignal() {
    if (!constructingSignal) throw new TypeErrorCtor("Failed to construct 'AbortSignal': Illegal constructor");
    makeEventTarget(this);
    defineProperty(this, SIGNAL, { value: { aborted: false, reason: undefined, algorithms: hostList(), onabort: null } });
}
AbortSignal.prototype = create(EventTarget.prototype);
defineProperty(AbortSignal.prototype, 'constructor', { value: AbortSignal, writable: true, configurable: true });
function newSignal() {
    constructingSignal = true;
    try { return new AbortSignal(); } finally { constructingSignal = false; }
}
// Signals `signal` (once): the reason (an AbortError DOMException by default), the algorithms
// the host attached (fetch's), then the 'abort' event.
function signalAbort(signal, reason) {
    var state = signalState(signal);
    if (state.aborted) return;
    state.aborted = true;
    state.reason = reason === undefined ? domException('signal is aborted without reason', 'AbortError') : reason;
    var algorithms = state.algorithms;
    state.algorithms = hostList();
    for (var i = 0; i < algorithms.length; i++) {
        try { algorithms[i](state.reason); } catch (error) { try { report(error); } catch (ignored) { /* reported */ } }
    }
    var event = new Event('abort');
    dispatchAlong(event, eventState(event), [signal]);
}
defineGetter(AbortSignal.prototype, 'aborted', function () { return signalState(this).aborted; });
// `onabort` as an attribute of the interface (not a lookup that falls through to Object.prototype).
defineProperty(AbortSignal.prototype, 'onabort', { enumerable: true, configurable: true,
    get: function () { return signalState(this).onabort; },
    set: function (handler) { signalState(this).onabort = typeof handler === 'function' || typeof handler === 'object' ? handler : null; } });
defineGetter(AbortSignal.prototype, 'reason', function () { return signalState(this).reason; });
defineMethods(AbortSignal.prototype, {
    throwIfAborted: function throwIfAborted() {
        var state = signalState(this);
        if (state.aborted) throw state.reason;
    }
});
defineProperty(AbortSignal, 'abort', { value: function abort(reason) {
    var signal = newSignal();
    signalAbort(signal, reason);
    return signal;
}, writable: true, enumerable: true, configurable: true });
defineProperty(AbortSignal, 'timeout', { value: function timeout(milliseconds) {
    requireArguments(arguments.length, 1, "Failed to execute 'timeout' on 'AbortSignal'");
    var delay = +milliseconds;
    if (!(delay >= 0) || delay === Infinity) throw new TypeErrorCtor("Failed to execute 'timeout' on 'AbortSignal': Value is outside the 'unsigned long long' value range.");
    if (timer === null) throw new TypeErrorCtor('AbortSignal.timeout needs timers (an event loop)');
    var signal = newSignal();
    timer(function () { signalAbort(signal, domException('signal timed out', 'TimeoutError')); }, delay);
    return signal;
}, writable: true, enumerable: true, configurable: true });
defineProperty(AbortSignal, 'any', { value: function any(signals) {
    requireArguments(arguments.length, 1, "Failed to execute 'any' on 'AbortSignal'");
    var result = newSignal(), list = hostList(), i;
    for (i = 0; i < signals.length; i++) hostAdd(list, signals[i]);
    for (i = 0; i < list.length; i++) {
        var state = signalState(list[i]);
        if (state.aborted) { signalAbort(result, state.reason); return result; }
    }
    for (i = 0; i < list.length; i++) {
        hostAdd(signalState(list[i]).algorithms, function (reason) { signalAbort(result, reason); });
    }
    return result;
}, writable: true, enumerable: true, configurable: true });
defineGlobal('AbortSignal', AbortSignal);

var CONTROLLER = hidden.controller;
function AbortController() {
    requireNew(this, AbortController, 'AbortController');
    defineProperty(this, CONTROLLER, { value: { signal: newSignal() } });
}
defineGetter(AbortController.prototype, 'signal', function () {
    var state = own(this, CONTROLLER);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state.signal;
});
defineMethods(AbortController.prototype, {
    abort: function abort(reason) {
        var state = own(this, CONTROLLER);
        if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
        signalAbort(state.signal, reason);
    }
});
defineGlobal('AbortController', AbortController);

"""#

    static let closingSource = #"""
// Interfaces' `prototype` properties are read-only, as in browsers: the host's own checks and
// objects (requireNew, slices, abort events) cannot be redirected.
var interfaces = [DOMException, TextEncoder, TextDecoder, URL, URLSearchParams, Event, CustomEvent, EventTarget, Headers, Blob,
    File, FormData, AbortSignal, AbortController];
// fetch, with the page's networking natives (BrowserGlobals alone has none).
var transfer = natives.fetch ? installFetch(natives.fetch, interfaces) : undefined;
interfaces.forEach(function (constructor) {
    defineProperty(constructor, 'prototype', { writable: false });
});

// For the page host (WebPage): events along a path, and fetch's transfer events.
return {
    transfer: transfer,
    dispatch: function (target, path, type, bubbles, cancelable) {
        var event = new Event(type, { bubbles: bubbles, cancelable: cancelable }), full = setPrototypeOf([target], null);
        for (var i = 0; i < path.length; i++) full[i + 1] = path[i];
        return dispatchAlong(event, eventState(event), full);
    }
};
})
"""#
}
