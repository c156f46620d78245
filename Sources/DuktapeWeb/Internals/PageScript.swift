/// A page's own globals, in JavaScript (ES5): `document` (an `EventTarget` with `readyState`),
/// `location` (the page URL's parts, read-only), `navigator`, and `webkit.messageHandlers`.
///
/// The factory takes the global object, `BrowserGlobals`' internals (`dispatch`) and the page's
/// natives (`post(name, value, resolve, reject)`, the last two for a handler with a reply), and
/// returns the page's control: `setLocation`, `setUserAgent`, `setReadyState` (which fires
/// `DOMContentLoaded` and `load`), `setHandler(name, kind)` (0: remove, 1: without reply, 2:
/// with reply) and `callFunction(names, body, values)` for `callAsyncJavaScript`.
///
/// A message's value is copied as WebKit's structured serialization copies it: JSON-like values,
/// dates, `Error`s as `{ name, message }`, any `ArrayBuffer` or view as a `Uint8Array` of its
/// bytes; a function, symbol or cycle is a `TypeError` (thrown by `postMessage`).
enum PageScript {
    static let source = #"""
(function (global, internals, natives) {
'use strict';
var O = Object, defineProperty = O.defineProperty, create = O.create, setPrototypeOf = O.setPrototypeOf, keysOf = O.keys,
    apply = Reflect.apply, construct = Reflect.construct, FunctionCtor = Function, TypeErrorCtor = TypeError,
    ErrorCtor = Error, DateCtor = Date, Uint8 = Uint8Array, ArrayBufferCtor = ArrayBuffer, isView = ArrayBuffer.isView,
    isArray = Array.isArray, PromiseCtor = Promise, Str = String, getTime = Date.prototype.getTime,
    toTag = Object.prototype.toString, concat = Array.prototype.concat, dispatch = internals.dispatch, post = natives.post;

// --- document ---------------------------------------------------------------------------------
var readyState = 'loading';
var document = new EventTarget();
defineProperty(document, 'readyState', { get: function () { return readyState; }, enumerable: true, configurable: true });
defineProperty(document, 'defaultView', { value: global, enumerable: true });
defineProperty(global, 'document', { value: document, writable: false, enumerable: true, configurable: false });

// --- location, navigator ------------------------------------------------------------------------
var locationAttributes = ['about:blank', 'null', 'about:', '', '', '', '', '', 'blank', '', ''];
var location = {};
['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']
    .forEach(function (name, index) {
        if (name === 'username' || name === 'password') return;
        defineProperty(location, name, { get: function () { return locationAttributes[index]; }, enumerable: true });
    });
defineProperty(location, 'toString', { value: function toString() { return locationAttributes[0]; } });
defineProperty(global, 'location', { value: location, writable: false, enumerable: true, configurable: false });

var userAgent = '';
var navigator = {};
defineProperty(navigator, 'userAgent', { get: function () { return userAgent; }, enumerable: true });
defineProperty(navigator, 'language', { value: 'en-US', enumerable: true });
defineProperty(navigator, 'languages', { get: function () { return ['en-US']; }, enumerable: true });
defineProperty(navigator, 'onLine', { value: true, enumerable: true });
defineProperty(global, 'navigator', { value: navigator, writable: false, enumerable: true, configurable: false });

// --- webkit.messageHandlers -----------------------------------------------------------------------
// A copy of `value` as a message carries it (see the factory's description in Swift).
function copyForMessage(value, seen) {
    var type = typeof value;
    if (type === 'function' || type === 'symbol') {
        throw new TypeErrorCtor('postMessage: a ' + type + ' cannot be sent to the host');
    }
    if (value === null || type !== 'object') return value;
    for (var s = 0; s < seen.length; s++) {
        if (seen[s] === value) throw new TypeErrorCtor('postMessage: a cyclic value cannot be sent to the host');
    }
    var tag = apply(toTag, value, []);
    if (tag === '[object Date]') return new DateCtor(apply(getTime, value, []));
    if (value instanceof ArrayBufferCtor) return new Uint8(new Uint8(value));
    if (isView(value)) return new Uint8(new Uint8(value.buffer, value.byteOffset, value.byteLength));
    if (value instanceof ErrorCtor || tag === '[object Error]') {
        return { name: Str(value.name), message: Str(value.message) };
    }
    seen[seen.length] = value;
    var copy, i;
    if (isArray(value)) {
        copy = [];
        for (i = 0; i < value.length; i++) {
            defineProperty(copy, i, { value: copyForMessage(value[i], seen), enumerable: true, writable: true, configurable: true });
        }
    } else {
        copy = {};
        var keys = keysOf(value);
        for (i = 0; i < keys.length; i++) {
            defineProperty(copy, keys[i], { value: copyForMessage(value[keys[i]], seen), enumerable: true, writable: true, configurable: true });
        }
    }
    seen.length = seen.length - 1;
    return copy;
}

var messageHandlers = {};
function MessageHandler(name, withReply) {
    defineProperty(this, 'postMessage', { enumerable: true, value: function postMessage(value) {
        if (arguments.length < 1) {
            throw new TypeErrorCtor("Failed to execute 'postMessage': 1 argument required, but only 0 present");
        }
        var copy = copyForMessage(value, setPrototypeOf([], null));
        if (!withReply) {
            post(name, copy);
            return undefined;
        }
        return new PromiseCtor(function (resolve, reject) { post(name, copy, resolve, reject); });
    } });
}
defineProperty(global, 'webkit', { value: { messageHandlers: messageHandlers }, writable: false, enumerable: true, configurable: false });

return {
    setLocation: function (attributes) { locationAttributes = attributes; },
    setUserAgent: function (agent) { userAgent = agent; },
    setReadyState: function (state) {
        readyState = state;
        if (state === 'interactive') dispatch(document, [global], 'DOMContentLoaded', true, false);
        if (state === 'complete') dispatch(global, [], 'load', false, false);
    },
    setHandler: function (name, kind) {
        if (kind === 0) delete messageHandlers[name];
        else defineProperty(messageHandlers, name, { value: new MessageHandler(name, kind === 2), enumerable: true, configurable: true });
    },
    callFunction: function (names, body, values) {
        return apply(construct(FunctionCtor, apply(concat, names, [[body]])), undefined, values);
    }
};
})
"""#
}
