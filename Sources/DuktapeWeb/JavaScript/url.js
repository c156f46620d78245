// URL and URLSearchParams: WHATWG parsing and setters done natively (URLRecord.swift; attributes
// as 11 strings in URLRecord.attributes' order), `searchParams` live.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    Sym = primordials.Symbol,
    urlParse = natives.urlParse,
    urlSet = natives.urlSet,
    formParse = natives.formParse,
    formSerialize = natives.formSerialize,
    usv = natives.usv,
    hidden = natives.hiddenKeys,
    isArray = primordials.ArrayIsArray,
    keysOf = primordials.ObjectKeys,
    slice = primordials.StringPrototypeSlice,
    charCodeAt = primordials.StringPrototypeCharCodeAt,
    arraySort = primordials.ArrayPrototypeSort,
    testPattern = primordials.RegExpPrototypeTest,
    surrogate = /[\uD800-\uDFFF]/;
var call = shared.call, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, hostAdd = shared.hostAdd, hostList = shared.hostList, own = shared.own, publicArray = shared.publicArray, requireArguments = shared.requireArguments, requireNew = shared.requireNew, toDOMString = shared.toDOMString;

// Parsing, serializing and the setters are native (URLRecord, FormURLEncoding); a URL object keeps
// its attributes (href, origin, protocol, username, password, host, hostname, port, pathname,
// search, hash) as the native side last gave them, and its URLSearchParams, which writes its
// list back to the URL's query on every change (and is re-read when the URL's query changes).
var URL_STATE = hidden.url, PARAMS = hidden.params;
// The attributes' names, in the order the native side gives their values (URLRecord.attributeNames).
var attributeNames = natives.urlAttributeNames, HREF = 0, SEARCH = call(primordials.ArrayPrototypeIndexOf, attributeNames, 'search');
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
    list.pairs = parsePairs(attributes[SEARCH].length > 0 ? call(slice, attributes[SEARCH], 1) : '');
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
    var attributes = urlSet(state.attributes[HREF], name, value);
    if (attributes === undefined) throw new TypeErrorCtor("Failed to set the 'href' property on 'URL': Invalid URL");
    var searchChanged = attributes[SEARCH] !== state.attributes[SEARCH];
    state.attributes = attributes;
    if (searchChanged) {
        paramsState(state.params).pairs = parsePairs(attributes[SEARCH].length > 0 ? call(slice, attributes[SEARCH], 1) : '');
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
    toString: function toString() { return urlState(this).attributes[HREF]; },
    toJSON: function toJSON() { return urlState(this).attributes[HREF]; }
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

return { URL: URL, URLSearchParams: URLSearchParams, parsePairs: parsePairs, toUSVString: toUSVString, urlAttributeNames: attributeNames };
})
