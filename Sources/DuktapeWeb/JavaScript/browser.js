// The last of the browser globals' files: makes every interface's `prototype` read-only, as in
// browsers, so that the host's own checks and objects (requireNew, slices, abort events) cannot
// be redirected, and gives the page host its handle on events.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty, setPrototypeOf = primordials.ObjectSetPrototypeOf;
var Event = shared.Event, dispatchAlong = shared.dispatchAlong, eventState = shared.eventState, hostEvent = shared.hostEvent;

var interfaces = [shared.DOMException, shared.TextEncoder, shared.TextDecoder, shared.URL, shared.URLSearchParams, Event,
    shared.CustomEvent, shared.EventTarget, shared.Headers, shared.Blob, shared.File, shared.FormData, shared.AbortSignal,
    shared.AbortController].concat(shared.fetchInterfaces || [], shared.webSocketInterfaces || []);
for (var i = 0; i < interfaces.length; i++) defineProperty(interfaces[i], 'prototype', { writable: false });

return {
    // An event of `type` along `target` and then `path` (the page host's load events).
    dispatch: function (target, path, type, bubbles, cancelable) {
        var event = hostEvent(Event.prototype, type, bubbles, cancelable), full = setPrototypeOf([target], null);
        for (var i = 0; i < path.length; i++) full[i + 1] = path[i];
        return dispatchAlong(event, eventState(event), full);
    }
};
})
