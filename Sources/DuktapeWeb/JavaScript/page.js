// A page's own globals: `document` (an EventTarget with `readyState` and `cookie`), `location`
// (the page URL's parts, read-only), `navigator`, and `webkit.messageHandlers`; and the page's
// control (PageSeam.Control).
//
// A message's value is copied as WebKit's structured serialization copies it: JSON-like values,
// dates, `Error`s as `{ name, message }`, any `ArrayBuffer` or view as a `Uint8Array` of its
// bytes; a function, symbol, cycle or a value past the copy's limits is a `TypeError` (thrown
// by `postMessage`).
(function (global, primordials, natives, shared) {
'use strict';
var O = primordials.Object,
    defineProperty = primordials.ObjectDefineProperty,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    keysOf = primordials.ObjectKeys,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    ErrorCtor = primordials.Error,
    DateCtor = primordials.Date,
    Uint8 = primordials.Uint8Array,
    ArrayBufferPrototype = primordials.ArrayBufferPrototype,
    ErrorPrototype = primordials.ErrorPrototype,
    isPrototypeOf = primordials.ObjectPrototypeIsPrototypeOf,
    isView = primordials.ArrayBufferIsView,
    isArray = primordials.ArrayIsArray,
    arraySlice = primordials.ArrayPrototypeSlice,
    PromiseCtor = primordials.Promise,
    Str = primordials.String,
    getTime = primordials.DatePrototypeGetTime,
    now = primordials.DateNow,
    toTag = primordials.ObjectPrototypeToString,
    dispatch = shared.dispatch,
    post = natives.post,
    copyPlain = natives.copyPlain,
    setTimer = natives.setTimeout,
    clearTimer = natives.clearTimeout;

var readyState = 'loading';
var document = new EventTarget();
defineProperty(document, 'readyState', { get: function () { return readyState; }, enumerable: true, configurable: true });
defineProperty(document, 'defaultView', { value: global, enumerable: true });
// document.cookie: the page's cookies that are not HttpOnly ("a=1; b=2"); assigning sets one.
var getCookie = natives.getCookie, setCookie = natives.setCookie;
defineProperty(document, 'cookie', { enumerable: true, configurable: true,
    get: function () { return getCookie(); },
    set: function (value) {
        if (typeof value === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string');
        setCookie(Str(value));
    } });
defineProperty(global, 'document', { value: document, writable: false, enumerable: true, configurable: false });

// --- location, navigator ------------------------------------------------------------------------
// The page URL's attributes (in url.js's order), set by the host (PageSeam.Control) before any
// script runs.
var locationAttributes;
var location = {};
shared.urlAttributeNames.forEach(function (name, index) {
        if (name === 'username' || name === 'password') return;
        defineProperty(location, name, { get: function () { return locationAttributes[index]; }, enumerable: true });
});
defineProperty(location, 'toString', { value: function toString() { return locationAttributes[0]; } });
defineProperty(global, 'location', { value: location, writable: false, enumerable: true, configurable: false });

var userAgent = '';
var navigator = {};
defineProperty(navigator, 'userAgent', { get: function () { return userAgent; }, enumerable: true });
defineProperty(navigator, 'language', { value: 'en-US', enumerable: true });
defineProperty(navigator, 'languages', { value: O.freeze(['en-US']), enumerable: true });
defineProperty(navigator, 'onLine', { value: true, enumerable: true });
defineProperty(global, 'navigator', { value: navigator, writable: false, enumerable: true, configurable: false });

// --- webkit.messageHandlers -----------------------------------------------------------------------
// A copy of `value` as a message carries it: plain objects without a prototype (so that nothing
// a script puts on Object.prototype travels), within limits that keep the host's conversion
// bounded (nesting, array length, values in all); a function, symbol, cycle or a value past the
// limits is a TypeError (WebKit's DataCloneError).
var MAX_DEPTH = 256, MAX_LENGTH = 1 << 24, MAX_VALUES = 1000000;
function cloneError(what) {
    return new TypeErrorCtor('postMessage: ' + what + ' cannot be sent to the host');
}
var noArguments = O.freeze([]);
var elementDescriptor = setPrototypeOf({ value: undefined, enumerable: true, writable: true, configurable: true }, null);
function copyForMessage(value, budget, depth) {
    var type = typeof value;
    if (type === 'function' || type === 'symbol') throw cloneError('a ' + type);
    if (++budget.values > MAX_VALUES) throw cloneError('more than ' + MAX_VALUES + ' values');
    if (value === null || type !== 'object') return value;
    if (depth > MAX_DEPTH) throw cloneError('a value nested more than ' + MAX_DEPTH + ' levels deep');
    var seen = budget.seen, s;
    for (s = 0; s < seen.length; s++) {
        if (seen[s] === value) throw cloneError('a cyclic value');
    }
    var copy, i;
    // An array is copied as one whatever its prototype (as structured cloning does).
    if (isArray(value)) {
        // The length read once (a Proxy may answer differently each time).
        var length = value.length;
        if (length > MAX_LENGTH) throw cloneError('an array longer than ' + MAX_LENGTH);
        // Refused before copying anything when its elements alone would pass the budget.
        if (budget.values + length > MAX_VALUES) throw cloneError('more than ' + MAX_VALUES + ' values');
        seen[seen.length] = value;
        // The engine's slice defines its elements (an index setter on Array.prototype does not
        // see them), but leaves holes, and drops trailing ones from the length. The copy has no
        // prototype, so that a hole reads as undefined without running anything, and each hole
        // is defined as undefined (the host's conversion reads every index). Each element that
        // is an object is replaced by its copy. One descriptor serves every element (read at
        // once, and emptied after).
        copy = setPrototypeOf(apply(arraySlice, value, [0, length]), null);
        budget.values += length;
        for (i = 0; i < length; i++) {
            var element = copy[i], kind = typeof element;
            if (kind === 'function' || kind === 'symbol') throw cloneError('a ' + kind);
            if (element === undefined) {
                defineProperty(copy, i, elementDescriptor);
                continue;
            }
            if (element === null || kind !== 'object') continue;
            budget.values--;  // counted again by its own copy
            elementDescriptor.value = copyForMessage(element, budget, depth + 1);
            defineProperty(copy, i, elementDescriptor);
            elementDescriptor.value = undefined;
        }
        seen.length = seen.length - 1;
        return copy;
    }
    var tag = apply(toTag, value, noArguments);
    if (tag === '[object Date]') return new DateCtor(apply(getTime, value, noArguments));
    // Bytes travel as a Uint8Array view of the same memory, which the host copies when the message
    // is posted (Duktape cannot detach or resize a buffer in between).
    // Kinds by prototype (a captured isPrototypeOf: a script's Symbol.hasInstance has no say,
    // and no script runs while a message is copied).
    if (apply(isPrototypeOf, ArrayBufferPrototype, [value])) return new Uint8(value);
    if (isView(value)) return new Uint8(value.buffer, value.byteOffset, value.byteLength);
    if (apply(isPrototypeOf, ErrorPrototype, [value]) || tag === '[object Error]') {
        var error = setPrototypeOf({}, null);
        error.name = Str(value.name);
        error.message = Str(value.message);
        return error;
    }
    seen[seen.length] = value;
    copy = setPrototypeOf({}, null);
    var keys = keysOf(value);
    for (i = 0; i < keys.length; i++) copy[keys[i]] = copyForMessage(value[keys[i]], budget, depth + 1);
    seen.length = seen.length - 1;
    return copy;
}
// One budget serves every copy, but a copy made while another is under way (a getter that
// posts) gets its own.
var idleBudget = { seen: setPrototypeOf([], null), values: 0 };
function copyOf(value) {
    var type = typeof value;
    if (value === null || (type !== 'object' && type !== 'function' && type !== 'symbol')) return value;
    // Plain data (objects, arrays, primitives) is copied natively, to the same copy; anything
    // else, and every error, is copyForMessage's.
    if (type === 'object') {
        var plain = copyPlain(value);
        if (plain !== undefined) return plain;
    }
    var budget = idleBudget;
    if (budget === null) return copyForMessage(value, { seen: setPrototypeOf([], null), values: 0 }, 0);
    idleBudget = null;
    budget.values = 0;
    try {
        return copyForMessage(value, budget, 0);
    } finally {
        budget.seen.length = 0;
        idleBudget = budget;
    }
}

// Promises of messages with a reply, by id: the host keeps only the number. An entry is
// `{ resolve, reject, hooks, tag, deadline }`: a bridge's (`hooks`) is told when it settles, and
// may have a deadline (ms since the epoch, 0: none).
var messageHandlers = {}, pendingReplies = setPrototypeOf({}, null), nextReply = 1;
// Bridges' replies given up at their deadline, by id: told to their bridge if answered after all.
var lateReplies = setPrototypeOf({}, null);
// Posts a copy of `value` to handler `name` (a bridge's when `toBridge`) and returns the promise
// of its reply, or undefined when no reply is wanted.
function send(name, value, withReply, toBridge, hooks, tag) {
    var copy = copyOf(value);
    if (!withReply) {
        post(name, copy, 0, toBridge);
        return undefined;
    }
    var id = nextReply++;
    return new PromiseCtor(function (resolve, reject) {
        var wait = hooks === undefined ? 0 : tag.wait;
        var entry = { resolve: resolve, reject: reject, hooks: hooks, tag: tag, deadline: wait > 0 ? now() + wait : 0 };
        pendingReplies[id] = entry;
        // A post the host refuses (too many messages in flight, out of memory) will never be
        // settled: its entry goes now, and the promise rejects with the refusal.
        try {
            post(name, copy, id, toBridge);
        } catch (error) {
            delete pendingReplies[id];
            if (hooks !== undefined) hooks.settled(tag, false, error);
            throw error;
        }
        if (entry.deadline === 0) return;
        if (sweepTimer === null || entry.deadline < sweepAt) arm(entry.deadline);
        // A sweep a second overdue was cleared (a page that clears every timer id it can
        // guess): it is set again, to run now.
        else if (sweepAt + 1000 < entry.deadline - wait) arm(entry.deadline - wait);
    });
}

// Bridges' deadlines: one timer for every reply waiting, set for the earliest (a timer per call
// would cost more than the call). The sweep looks at every reply waiting: they are as many as
// the messages in flight, which the page bounds.
var sweepAt = 0, sweepTimer = null;
function arm(deadline) {
    if (sweepTimer !== null) clearTimer(sweepTimer);
    sweepAt = deadline;
    sweepTimer = setTimer(sweep, deadline - now());
}
// Each reply past its deadline rejects with its bridge's `expired(tag)` error now; the answer,
// if it comes, goes to the bridge's `late(tag)`.
function sweep() {
    sweepTimer = null;
    var at = now(), next = 0, expired = setPrototypeOf([], null), id;
    for (id in pendingReplies) {
        var deadline = pendingReplies[id].deadline;
        if (deadline === 0) continue;
        if (deadline <= at) expired[expired.length] = id;
        else if (next === 0 || deadline < next) next = deadline;
    }
    for (var i = 0; i < expired.length; i++) {
        id = expired[i];
        var entry = pendingReplies[id], error;
        delete pendingReplies[id];
        lateReplies[id] = entry;
        try { error = entry.hooks.expired(entry.tag); } catch (thrown) { error = thrown; }
        entry.reject(error);
    }
    // An expired call's listeners may have made calls, and set the timer for a later deadline.
    if (next !== 0 && (sweepTimer === null || next < sweepAt)) arm(next);
}
function MessageHandler(name, withReply) {
    defineProperty(this, 'postMessage', { enumerable: true, value: function postMessage(value) {
        if (arguments.length < 1) {
            throw new TypeErrorCtor("Failed to execute 'postMessage': 1 argument required, but only 0 present");
        }
        return send(name, value, withReply, false);
    } });
}
defineProperty(global, 'webkit', { value: { messageHandlers: messageHandlers }, writable: false, enumerable: true, configurable: false });

return {
// A bridge's own channel (FlexComponent, WebViewJavascriptBridge), whatever the page did to
// `webkit`: `post(name, value, withReply, hooks, tag)` posts to the bridge's handler `name`.
// `hooks` (one object per bridge) is told about a reply: `settled(tag, fulfilled, value)` once
// its promise has settled (before the promise's reactions run), or when the post is refused;
// `expired(tag)` at its deadline (`tag.wait` ms after the post, 0:
// none), returning the error it rejects with; `late(tag)` when an expired one is answered.
bridge: {
    post: function (name, value, withReply, hooks, tag) { return send(name, value, withReply, true, hooks, tag); }
},
control: {
    setLocation: function (attributes) { locationAttributes = attributes; },
    setUserAgent: function (agent) { userAgent = agent; },
    setReadyState: function (state) {
        readyState = state;
        if (state === 'interactive') dispatch(document, [global], 'DOMContentLoaded', true, false);
        if (state === 'complete') dispatch(global, [], 'load', false, false);
    },
    // kind: 'none' (removed), 'plain' or 'reply' (PageControl.HandlerKind).
    setHandler: function (name, kind) {
        if (kind === 'none') delete messageHandlers[name];
        else defineProperty(messageHandlers, name, { value: new MessageHandler(name, kind === 'reply'), enumerable: true, configurable: true });
    },
    settle: function (id, fulfilled, value) {
        var pending = pendingReplies[id];
        if (pending === undefined) {
            var late = lateReplies[id];
            if (late === undefined) return;
            delete lateReplies[id];
            late.hooks.late(late.tag);
            return;
        }
        delete pendingReplies[id];
        if (!fulfilled) value = new ErrorCtor(Str(value));
        // Settled first (its reactions are queued, so the bridge's listeners still run before
        // them): a bridge's hook that throws cannot leave the promise waiting.
        if (fulfilled) pending.resolve(value); else pending.reject(value);
        if (pending.hooks !== undefined) pending.hooks.settled(pending.tag, fulfilled, value);
    },
    copy: copyOf,
    // callAsyncJavaScript's function (compiled by the host) called with its values.
    callMade: function (made, values) {
        return apply(made, undefined, values);
    }
} };
})
