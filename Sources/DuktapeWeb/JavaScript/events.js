// Event, CustomEvent and EventTarget (the global object becomes one): listeners in order, once
// each, propagation along a path; a listener's exception is reported and the others run.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    dateNow = primordials.DateNow,
    report = natives.report,
    hidden = natives.hiddenKeys,
    splice = primordials.ArrayPrototypeSplice,
    arraySlice = primordials.ArrayPrototypeSlice,
    clock = typeof performance === 'object' && performance !== null && typeof performance.now === 'function'
        ? performance : primordials.Date,
    readClock = clock === primordials.Date ? dateNow : performance.now;
var call = shared.call, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dictionary = shared.dictionary, domException = shared.domException, hostList = shared.hostList, own = shared.own, requireArguments = shared.requireArguments, requireNew = shared.requireNew, toDOMString = shared.toDOMString;

var EVENT = hidden.event, LISTENERS = hidden.listeners;
function eventState(self) {
    var state = own(self, EVENT);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}

// isTrusted is an own, unforgeable property of every event, whose getter all events share (as
// WebIDL's [LegacyUnforgeable] attributes share theirs): true for the events the host
// dispatches, until a script dispatches one again; false for those a script makes.
function isTrusted() { return eventState(this).trusted; }
// Descriptors without a prototype: a script's `Object.prototype.get` or `configurable` must not
// change them. The state has none either, so that the members the host sets on it (a message's
// data, a close's code) are never a script's inherited setters or read-only properties.
var trustedDescriptor = create(null);
trustedDescriptor.get = isTrusted;
trustedDescriptor.set = undefined;
trustedDescriptor.enumerable = true;
trustedDescriptor.configurable = false;
function initEvent(event, type, bubbles, cancelable, composed, trusted) {
    var slot = create(null);
    slot.value = setPrototypeOf({
        type: type, bubbles: bubbles, cancelable: cancelable, composed: composed, canceled: false, dispatching: false,
        stop: false, stopNow: false, inPassiveListener: false, target: null, currentTarget: null, phase: 0,
        timeStamp: apply(readClock, clock, []), detail: null, trusted: trusted
    }, null);
    defineProperty(event, EVENT, slot);
    defineProperty(event, 'isTrusted', trustedDescriptor);
}
function Event(type, init) {
    requireNew(this, Event, 'Event');
    requireArguments(arguments.length, 1, "Failed to construct 'Event'");
    var settings = dictionary(init, "Failed to construct 'Event': parameter 2");
    initEvent(this, toDOMString(type), !!settings.bubbles, !!settings.cancelable, !!settings.composed, false);
}
// An event the host dispatches (load events, abort, a WebSocket's): trusted, as a browser's
// own events are, and made without the constructor's conversions (its values are the host's).
function hostEvent(prototype, type, bubbles, cancelable) {
    var event = create(prototype);
    initEvent(event, type, bubbles, cancelable, false, true);
    return event;
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
        state.trusted = false;  // a script's dispatch, as the DOM says
        return dispatchAlong(event, state, [targetOf(this)]);
    }
});
// Runs the listeners of one target for the event's current phase (capture listeners only while
// capturing, the others only while bubbling, all of them at the target), then its `on<type>`
// handler property at the target and while bubbling.
function invokeListeners(event, state, target) {
    var list = listenersOf(target)[state.type];
    if (list) runListeners(event, state, target, list);
    if (state.phase !== 1 && !state.stopNow) runHandler(event, state, target, target['on' + state.type]);
}
// The listeners in `list` (the target's for the event's type), as they were when it began.
function runListeners(event, state, target, list) {
    var snapshot = apply(arraySlice, list, []);
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
}
// An `on<type>` event handler, when it is a function; returning false cancels the event.
function runHandler(event, state, target, handler) {
    if (typeof handler !== 'function') return;
    try {
        if (apply(handler, target, [event]) === false) cancel(state);
    } catch (error) {
        try { report(error); } catch (ignored) { /* as above */ }
    }
}
// The host's event at a lone target that keeps its own event handlers (a WebSocket): what
// dispatchAlong does with a path of one, the handler read from `handlers[name]` (where the
// target's `on<type>` attribute keeps it) once the listeners have run.
function dispatchHostEvent(event, state, target, handlers, name) {
    state.dispatching = true;
    state.target = target;
    state.currentTarget = target;
    state.phase = 2;
    var list = listenersOf(target)[state.type];
    if (list) runListeners(event, state, target, list);
    if (!state.stopNow) runHandler(event, state, target, handlers[name]);
    return finishDispatch(state);
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
    return finishDispatch(state);
}
// The end of a dispatch: the stop flags are cleared (one set before the dispatch stops all of it).
function finishDispatch(state) {
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

return { CustomEvent: CustomEvent, Event: Event, EventTarget: EventTarget, dispatchAlong: dispatchAlong, dispatchHostEvent: dispatchHostEvent, eventState: eventState, hostEvent: hostEvent, makeEventTarget: makeEventTarget };
})
