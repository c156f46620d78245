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
    ArrayBufferCtor = primordials.ArrayBuffer,
    isView = primordials.ArrayBufferIsView,
    isArray = primordials.ArrayIsArray,
    PromiseCtor = primordials.Promise,
    Str = primordials.String,
    getTime = primordials.DatePrototypeGetTime,
    toTag = primordials.ObjectPrototypeToString,
    dispatch = shared.dispatch,
    post = natives.post;

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
function copyForMessage(value, budget, depth) {
    var type = typeof value;
    if (type === 'function' || type === 'symbol') throw cloneError('a ' + type);
    if (++budget.values > MAX_VALUES) throw cloneError('more than ' + MAX_VALUES + ' values');
    if (value === null || type !== 'object') return value;
    if (depth > MAX_DEPTH) throw cloneError('a value nested more than ' + MAX_DEPTH + ' levels deep');
    for (var s = 0; s < budget.seen.length; s++) {
        if (budget.seen[s] === value) throw cloneError('a cyclic value');
    }
    var tag = apply(toTag, value, []);
    if (tag === '[object Date]') return new DateCtor(apply(getTime, value, []));
    // Bytes travel as a Uint8Array view of the same memory, which the host copies when the message
    // is posted (Duktape cannot detach or resize a buffer in between).
    if (value instanceof ArrayBufferCtor) return new Uint8(value);
    if (isView(value)) return new Uint8(value.buffer, value.byteOffset, value.byteLength);
    if (value instanceof ErrorCtor || tag === '[object Error]') {
        var error = setPrototypeOf({}, null);
        error.name = Str(value.name);
        error.message = Str(value.message);
        return error;
    }
    budget.seen[budget.seen.length] = value;
    var copy, i;
    if (isArray(value)) {
        if (value.length > MAX_LENGTH) throw cloneError('an array longer than ' + MAX_LENGTH);
        // Refused before copying anything when its elements alone would pass the budget.
        if (budget.values + value.length > MAX_VALUES) throw cloneError('more than ' + MAX_VALUES + ' values');
        copy = [];
        for (i = 0; i < value.length; i++) {
            defineProperty(copy, i, { value: copyForMessage(value[i], budget, depth + 1), enumerable: true, writable: true, configurable: true });
        }
    } else {
        copy = setPrototypeOf({}, null);
        var keys = keysOf(value);
        for (i = 0; i < keys.length; i++) copy[keys[i]] = copyForMessage(value[keys[i]], budget, depth + 1);
    }
    budget.seen.length = budget.seen.length - 1;
    return copy;
}
function copyOf(value) {
    return copyForMessage(value, { seen: setPrototypeOf([], null), values: 0 }, 0);
}

// Promises of messages with a reply, by id: the host keeps only the number.
var messageHandlers = {}, pendingReplies = setPrototypeOf({}, null), nextReply = 1;
// Replies given up by a bridge (`expire`): what to call when the answer comes after all.
var lateReplies = setPrototypeOf({}, null);
// Posts a copy of `value` to handler `name` (a bridge's when `toBridge`) and returns the promise
// of its reply, or undefined when no reply is wanted; a `ticket` gets the reply's id.
function send(name, value, withReply, toBridge, ticket) {
    var copy = copyOf(value);
    if (!withReply) {
        post(name, copy, 0, toBridge);
        return undefined;
    }
    var id = nextReply++;
    if (ticket) ticket.id = id;
    return new PromiseCtor(function (resolve, reject) {
        pendingReplies[id] = { resolve: resolve, reject: reject };
        // A post the host refuses (too many messages in flight, out of memory) will never be
        // settled: its entry goes now, and the promise rejects with the refusal.
        try { post(name, copy, id, toBridge); } catch (error) { delete pendingReplies[id]; throw error; }
    });
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
// `webkit`: `post(name, value, withReply, ticket)` posts to the bridge's handler (the ticket gets
// the reply's id); `expire(id, error, late)` rejects reply `id` with `error` now, and calls
// `late()` if its answer comes after all (false: it was answered already).
bridge: {
    post: function (name, value, withReply, ticket) { return send(name, value, withReply, true, ticket); },
    expire: function (id, error, late) {
        var pending = pendingReplies[id];
        if (pending === undefined) return false;
        delete pendingReplies[id];
        lateReplies[id] = late;
        pending.reject(error);
        return true;
    }
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
            late();
            return;
        }
        delete pendingReplies[id];
        if (fulfilled) pending.resolve(value); else pending.reject(new ErrorCtor(Str(value)));
    },
    copy: copyOf,
    // callAsyncJavaScript's function (compiled by the host) called with its values.
    callMade: function (made, values) {
        return apply(made, undefined, values);
    }
} };
})
