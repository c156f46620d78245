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
    now = primordials.DateNow,
    bridgePost = natives.post,
    expire = natives.expire,
    bridgeName = natives.name,
    setTimer = natives.setTimeout,
    clearTimer = natives.clearTimeout,
    consoleObject = natives.console,
    consoleOriginals = natives.consoleOriginals;

var names = natives.names, timeouts = natives.timeouts, defaultTimeout = natives.defaultTimeout,
    loadWait = natives.flexLoadWait, reportEvents = natives.reportEvents, documentNumber = natives.document;

function post(body, withReply, ticket) { return bridgePost(bridgeName, body, withReply, ticket); }
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
    post(body, false);
}

// --- the page's listeners ---------------------------------------------------------------------
var listeners = setPrototypeOf({ success: [], error: [], timeout: [], init: [] }, null);
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
function makeInterface(name) {
    var wait = timeoutOf(name);
    function succeeded(value) {
        report('success', name);
        fire('success', name, 'data', value);
        return value;
    }
    function failed(error) {
        report('error', name, error && error.message);
        fire('error', name, 'error', error);
    }
    return function () {
        var args = [];
        for (var i = 0; i < arguments.length; i++) args[i] = arguments[i];
        var call = message('call'), ticket = { id: 0 }, reply;
        call.name = name;
        call.args = args;
        try {
            reply = post(call, true, ticket);
        } catch (error) {
            // Refused by the page (too many messages in flight, a value that cannot be sent).
            failed(error);
            return apply(promiseReject, PromiseCtor, [error]);
        }
        if (wait <= 0) return apply(then, reply, [succeeded, function (error) { failed(error); throw error; }]);
        // The reply's own promise is rejected at the timeout (page.js's `expire`): no promise of
        // our own per call.
        var id = ticket.id;
        watch(id, wait, function () {
            var error = new ErrorCtor('$flex.' + name + ': no result within ' + wait + ' ms');
            error.name = 'TimeoutError';
            if (!expire(id, error, function () { lateReply(name); })) return;
            report('timeout', name);
            fire('timeout', name);
        });
        return apply(then, reply, [function (value) {
            unwatch(id);
            return succeeded(value);
        }, function (error) {
            // Not watched any more: the timeout rejected it, and said so.
            if (unwatch(id)) failed(error);
            throw error;
        }]);
    };
}

// Timeouts: one timer for every call waiting, set for the earliest deadline (a timer per call
// would cost more than the call).
var watched = setPrototypeOf({}, null), sweepAt = 0, sweepTimer = null;
// Calls `onTimeout` if call `id` is still watched `wait` ms from now.
function watch(id, wait, onTimeout) {
    var deadline = now() + wait;
    watched[id] = { deadline: deadline, onTimeout: onTimeout };
    if (sweepTimer === null || deadline < sweepAt) arm(deadline);
}
// Whether call `id` was still waiting (false: it timed out already).
function unwatch(id) {
    if (watched[id] === undefined) return false;
    delete watched[id];
    return true;
}
function arm(deadline) {
    if (sweepTimer !== null) clearTimer(sweepTimer);
    sweepAt = deadline;
    sweepTimer = setTimer(sweep, deadline - now());
}
function sweep() {
    sweepTimer = null;
    var at = now(), next = 0, expired = [];
    for (var id in watched) {
        var entry = watched[id];
        if (entry.deadline <= at) expired[expired.length] = id;
        else if (next === 0 || entry.deadline < next) next = entry.deadline;
    }
    for (var i = 0; i < expired.length; i++) {
        var onTimeout = watched[expired[i]].onTimeout;
        unwatch(expired[i]);
        onTimeout();
    }
    if (next !== 0 && sweepTimer === null) arm(next);
}
function lateReply(name) {
    apply(consoleOriginals.error || consoleObject.error, consoleObject, ['$flex.' + name + ' returned after its timeout: the result is dropped']);
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
} });
defineProperty(flex, 'removeEventListener', { enumerable: true, value: function removeEventListener(type, listener) {
    var list = listeners[type];
    if (list === undefined) return;
    for (var i = 0; i < list.length; i++) {
        if (list[i] !== listener) continue;
        for (; i + 1 < list.length; i++) list[i] = list[i + 1];
        list.length = list.length - 1;
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
        try { post(body, false); } catch (error) { /* a refused message: the console still ran */ }
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
            post(body, false);
        } catch (error) {
            // A value a message cannot carry (a function, a cycle): Swift gets the reason.
            body.ok = false;
            body.value = error;
            post(body, false);
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
        post(message('load'), false);
        fire('init', 'flexload');
    }, loadWait);
}

return {
    // callWeb(id, name, value): Swift's call of $flex.web.<name> (id 0: no result wanted), made
    // once this document's flexload has happened.
    callWeb: runWeb
};
})
