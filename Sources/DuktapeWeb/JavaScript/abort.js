// AbortController and AbortSignal (`abort`, `timeout`, `any`), with the host's abort algorithms.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    TypeErrorCtor = primordials.TypeError,
    report = natives.report,
    hidden = natives.hiddenKeys;
var Event = shared.Event, EventTarget = shared.EventTarget, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dispatchAlong = shared.dispatchAlong, domException = shared.domException, eventState = shared.eventState, hostAdd = shared.hostAdd, hostEvent = shared.hostEvent, hostList = shared.hostList, makeEventTarget = shared.makeEventTarget, own = shared.own, requireArguments = shared.requireArguments, requireNew = shared.requireNew;

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
    var event = hostEvent(Event.prototype, 'abort', false, false);
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

return { AbortController: AbortController, AbortSignal: AbortSignal, newSignal: newSignal, signalState: signalState };
})
