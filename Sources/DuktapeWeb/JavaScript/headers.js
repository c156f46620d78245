// Headers: a header list of [name, value] pairs, guards, sorted and combined iteration.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    Sym = primordials.Symbol,
    hidden = natives.hiddenKeys,
    isArray = primordials.ArrayIsArray,
    keysOf = primordials.ObjectKeys,
    slice = primordials.StringPrototypeSlice,
    charCodeAt = primordials.StringPrototypeCharCodeAt,
    arraySort = primordials.ArrayPrototypeSort,
    testPattern = primordials.RegExpPrototypeTest;
var call = shared.call, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, hostAdd = shared.hostAdd, hostList = shared.hostList, own = shared.own, publicArray = shared.publicArray, requireArguments = shared.requireArguments, requireNew = shared.requireNew, toDOMString = shared.toDOMString;

// A header list: [name, value] pairs in a host list, names as given; reads are case-insensitive.
// Iteration sorts by lowercased name and combines values with ", " (Set-Cookie's stay separate).
var HEADERS = hidden.headers;
var tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, invalidValue = /[\0\r\n\u0100-\uffff]/,
    toLowerCase = primordials.StringPrototypeToLowerCase, arrayJoin = primordials.ArrayPrototypeJoin;
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
// Names lowercased, remembered (a lookup instead of a native call per list entry and read):
// names of at most LOWERED_LONGEST characters, at most LOWERED_MAX of them, then forgotten all
// at once.
var NO_ARGUMENTS = [], lowered = setPrototypeOf({}, null), loweredCount = 0, LOWERED_MAX = 512, LOWERED_LONGEST = 64;
function lower(text) {
    var known = lowered[text];
    if (known !== undefined) return known;
    known = apply(toLowerCase, text, NO_ARGUMENTS);
    if (text.length > LOWERED_LONGEST) return known;  // not kept: a long name would stay alive
    if (++loweredCount > LOWERED_MAX) {
        lowered = setPrototypeOf({}, null);
        loweredCount = 1;
    }
    lowered[text] = known;
    return known;
}
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

return { Headers: Headers, appendHeader: appendHeader, combinedValue: combinedValue, hasHeader: hasHeader, headersState: headersState, lower: lower };
})
