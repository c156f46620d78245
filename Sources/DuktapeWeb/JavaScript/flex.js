// FlexHybrid's `$flex` (our ES5 rewrite of FlexHybridiOS.js; loader-spec §2), run at every
// document start of a page with a FlexComponent (FlexComponent.swift, PageSeam.FlexNatives):
//
//   $flex.<name>(...args)              → a Promise of the Swift interface's result
//   $flex.web.<name> = function (v)    a function Swift calls (evalFlexFunc); may return a Promise
//   window.onFlexLoad = function ()    run once the document has loaded (may return a Promise);
//                                      then Swift's calls to $flex.web, queued until then, run
//   $flex.addEventListener(type, fn)   'success' | 'error' | 'timeout' | 'init'
//
// Values travel as script messages (booleans stay booleans, strings as they are): nothing is
// spliced into source, and the caller's objects are never changed. Each document gets a new
// `$flex` (read-only: an assignment fails); a page that redefines it breaks only its own calls,
// since Swift reaches the page through what this factory returns, not through the global.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    PromiseCtor = primordials.Promise,
    promiseResolve = primordials.PromiseResolve,
    promiseReject = primordials.PromiseReject,
    then = primordials.PromisePrototypeThen,
    ErrorCtor = primordials.Error,
    TypeErrorCtor = primordials.TypeError,
    Str = primordials.String,
    bridgePost = natives.post,
    bridgeName = natives.name,
    setTimer = natives.setTimeout,
    consoleObject = natives.console,
    consoleOriginals = natives.consoleOriginals;

var names = natives.names, timeouts = natives.timeouts, defaultTimeout = natives.defaultTimeout,
    loadWait = natives.flexLoadWait, reportEvents = natives.reportEvents, documentNumber = natives.document;

function post(body) { bridgePost(bridgeName, body, false); }
function message(kind) {
    var body = setPrototypeOf({}, null);
    body.kind = kind;
    body.document = documentNumber;
    return body;
}
function reportError(error) {
    try { apply(consoleOriginals.error || consoleObject.error, consoleObject, ['Uncaught', error]); } catch (ignored) { /* nothing to tell */ }
}
function resolved(value) { return apply(promiseResolve, PromiseCtor, [value]); }
function href() {
    try { return Str(global.location.href); } catch (error) { return ''; }
}
// An event for Swift's listeners (posted only when the component has some).
function report(type, name, text) {
    if (!reportEvents) return;
    var body = message('event');
    body.type = type;
    body.name = name;
    body.message = text === undefined || text === null ? null : Str(text);
    post(body);
}

// --- the page's listeners ---------------------------------------------------------------------
var listeners = setPrototypeOf({ success: [], error: [], timeout: [], init: [] }, null), listenerCount = 0;
// `detail` ({ function, url, and `key`: value }) is made only when there are listeners.
function fire(type, name, key, value) {
    var list = listeners[type];
    if (list === undefined || list.length === 0) return;
    var detail = { function: name, url: href() };
    if (key !== undefined) detail[key] = value;
    var copy = [], i;
    for (i = 0; i < list.length; i++) copy[i] = list[i];
    for (i = 0; i < copy.length; i++) {
        try { copy[i](detail); } catch (error) { reportError(error); }
    }
}

// --- web → Swift --------------------------------------------------------------------------------
function timeoutOf(name) {
    var own = timeouts[name];
    // A per-interface 0 means no timeout (the original's README; its code fell back to the default).
    return own === undefined ? defaultTimeout : own;
}
// What page.js tells this file about a call's reply; `tag` is the interface's `{ name, wait }`
// (one per interface, so a call makes no function of its own).
var hooks = {
    settled: function (tag, fulfilled, value) {
        if (!reportEvents && listenerCount === 0) return;
        if (fulfilled) {
            report('success', tag.name);
            fire('success', tag.name, 'data', value);
        } else {
            report('error', tag.name, value && value.message);
            fire('error', tag.name, 'error', value);
        }
    },
    expired: function (tag) {
        var error = new ErrorCtor('$flex.' + tag.name + ': no result within ' + tag.wait + ' ms');
        error.name = 'TimeoutError';
        report('timeout', tag.name);
        fire('timeout', tag.name);
        return error;
    },
    late: function (tag) {
        apply(consoleOriginals.error || consoleObject.error, consoleObject, ['$flex.' + tag.name + ' returned after its timeout: the result is dropped']);
    }
};
function makeInterface(name) {
    var tag = { name: name, wait: timeoutOf(name) };
    return function () {
        // A call is `[name, ...args]` (the only message with a reply; the others are objects).
        var call = [name];
        for (var i = 0; i < arguments.length; i++) call[i + 1] = arguments[i];
        try {
            return bridgePost(bridgeName, call, true, hooks, tag);
        } catch (error) {
            // Refused by the page (too many messages in flight, a value that cannot be sent).
            hooks.settled(tag, false, error);
            return apply(promiseReject, PromiseCtor, [error]);
        }
    };
}

var flex = {};
for (var n = 0; n < names.length; n++) {
    defineProperty(flex, names[n], { value: makeInterface(names[n]), enumerable: true });
}
defineProperty(flex, 'web', { value: {}, enumerable: true });
defineProperty(flex, 'version', { value: natives.version, enumerable: true });
defineProperty(flex, 'device', { value: natives.device, enumerable: true });
defineProperty(flex, 'isAndroid', { value: false, enumerable: true });
defineProperty(flex, 'isiOS', { value: false, enumerable: true });
defineProperty(flex, 'isScript', { value: false, enumerable: true });
defineProperty(flex, 'addEventListener', { enumerable: true, value: function addEventListener(type, listener) {
    var list = listeners[type];
    if (typeof listener !== 'function' || list === undefined) return;
    list[list.length] = listener;
    listenerCount++;
} });
defineProperty(flex, 'removeEventListener', { enumerable: true, value: function removeEventListener(type, listener) {
    var list = listeners[type];
    if (list === undefined) return;
    for (var i = 0; i < list.length; i++) {
        if (list[i] !== listener) continue;
        for (; i + 1 < list.length; i++) list[i] = list[i + 1];
        list.length = list.length - 1;
        listenerCount--;
        return;
    }
} });
defineProperty(global, '$flex', { value: flex, enumerable: true, writable: false, configurable: true });

// --- console forwarding -------------------------------------------------------------------------
// Each console method still runs, then tells Swift (when the component listens). The originals
// are kept once per page (the context outlives its documents) so wrappers never stack.
var levels = ['log', 'debug', 'info', 'warn', 'error'];
function forward(level) {
    var original = consoleOriginals[level];
    return function () {
        var parts = [];
        for (var i = 0; i < arguments.length; i++) {
            try { parts[i] = Str(arguments[i]); } catch (error) { parts[i] = '?'; }
        }
        var result = apply(original, consoleObject, arguments);
        var body = message('console');
        body.level = level;
        var text = parts.length > 0 ? parts[0] : '';
        for (i = 1; i < parts.length; i++) text += ' ' + parts[i];
        body.text = text;
        try { post(body); } catch (error) { /* a refused message: the console still ran */ }
        return result;
    };
}
for (var l = 0; l < levels.length; l++) {
    if (consoleOriginals[levels[l]] === undefined) consoleOriginals[levels[l]] = consoleObject[levels[l]];
    if (reportEvents && typeof consoleOriginals[levels[l]] === 'function') consoleObject[levels[l]] = forward(levels[l]);
}

// --- Swift → web --------------------------------------------------------------------------------
// Swift keeps its calls until this document's flexload, then hands them over in order.
var loaded = false;
function runWeb(id, name, value) {
    var outcome;
    try {
        var target = flex.web[name];
        if (typeof target !== 'function') throw new TypeErrorCtor('$flex.web.' + name + ' is not a function');
        outcome = resolved(apply(target, flex.web, [value]));
    } catch (error) {
        outcome = apply(promiseReject, PromiseCtor, [error]);
    }
    function answer(ok, result) {
        if (id === 0) return;
        var body = message('return');
        body.id = id;
        body.ok = ok;
        body.value = result === undefined ? null : result;
        try {
            post(body);
        } catch (error) {
            // A value a message cannot carry (a function, a cycle): Swift gets the reason.
            body.ok = false;
            body.value = error;
            post(body);
        }
    }
    apply(then, outcome, [function (result) {
        answer(true, result);
        fire('success', 'web.' + name, 'data', result);
    }, function (error) {
        answer(false, error);
        fire('error', 'web.' + name, 'error', error);
    }]);
}

// --- load --------------------------------------------------------------------------------------
var onFlexLoad;
defineProperty(global, 'onFlexLoad', { enumerable: true, configurable: true,
    get: function () { return onFlexLoad; },
    set: function (value) {
        onFlexLoad = value;
        // Set after flexload: run at once (as the original's setter does).
        if (loaded && typeof value === 'function') setTimer(function () { try { value(); } catch (error) { reportError(error); } }, 0);
    } });
global.addEventListener('load', function () {
    setTimer(function () {
        var started;
        try { started = resolved(typeof onFlexLoad === 'function' ? onFlexLoad() : undefined); }
        catch (error) { reportError(error); started = resolved(undefined); }
        apply(then, started, [finish, function (error) { reportError(error); finish(); }]);
    }, 0);
});
function finish() {
    setTimer(function () {
        loaded = true;
        post(message('load'));
        fire('init', 'flexload');
    }, loadWait);
}

return {
    // callWeb(id, name, value): Swift's call of $flex.web.<name> (id 0: no result wanted), made
    // once this document's flexload has happened.
    callWeb: runWeb
};
})
