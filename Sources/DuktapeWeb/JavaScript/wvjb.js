// WebViewJavascriptBridge's page side (our ES5 rewrite of its v6 bridge script; loader-spec §3),
// run at every document start of a page with a WebViewJavascriptBridge
// (WebViewJavascriptBridge.swift, PageSeam.BridgeControl). The page's API is the original's:
//
//   WebViewJavascriptBridge.registerHandler(name, function (data, responseCallback) { … })
//   WebViewJavascriptBridge.callHandler(name[, data][, function (responseData[, error]) { … }])
//   WebViewJavascriptBridge.disableJavscriptAlertBoxSafetyTimeout()
//
// and the README's `setupWebViewJavascriptBridge(callback)` finds the bridge at once (it exists
// before the document's first script), so no iframe signal is needed. Messages keep the
// original's object (`handlerName`, `data`, `callbackId`, `responseId`, `responseData`) and
// travel as script messages instead of the queue URL and `_fetchQueue`. Extension: a reply can
// carry `error` (a Swift handler that threw, or no such handler), passed to the callback as its
// second argument.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    parse = primordials.JSONParse,
    now = primordials.DateNow,
    Str = primordials.String,
    bridgePost = natives.post,
    bridgeName = natives.name,
    setTimer = natives.setTimeout,
    consoleObject = natives.console;

function warn(text, detail) {
    try { apply(consoleObject.log, consoleObject, detail === undefined ? [text] : [text, detail]); } catch (ignored) { /* no console */ }
}
function post(message) {
    bridgePost(bridgeName, message, false);
}

var messageHandlers = setPrototypeOf({}, null);
var responseCallbacks = setPrototypeOf({}, null);
// Callback ids keep the original's form, `cb_<n>_<time>`, with the document's start time and
// its number (a late response meant for an earlier document finds no callback here; a time per
// call cost more than the call's own work).
var uniqueId = 1, idSuffix = '_' + now() + '.' + natives.document;
var dispatchLater = true;

function registerHandler(handlerName, handler) {
    messageHandlers[Str(handlerName)] = handler;
}

function callHandler(handlerName, data, responseCallback) {
    if (arguments.length === 2 && typeof data === 'function') {
        responseCallback = data;
        data = null;
    }
    var message = setPrototypeOf({}, null);
    message.handlerName = Str(handlerName);
    if (data !== undefined) message.data = data;
    send(message, responseCallback);
}

function disableJavscriptAlertBoxSafetyTimeout() {
    dispatchLater = false;
}

// Posts `message` (an object of this file's), with a `callbackId` for `responseCallback`.
function send(message, responseCallback) {
    if (responseCallback) {
        var callbackId = 'cb_' + (uniqueId++) + idSuffix;
        responseCallbacks[callbackId] = responseCallback;
        message.callbackId = callbackId;
    }
    post(message);
}

// A message from Swift (an object), dispatched as the original's _handleMessageFromObjC.
function dispatch(message) {
    if (message === null || typeof message !== 'object') return;
    var responseCallback;
    if (typeof message.responseId === 'string') {
        responseCallback = responseCallbacks[message.responseId];
        if (!responseCallback) return;  // unknown or answered already: ignored
        delete responseCallbacks[message.responseId];
        if (message.error !== undefined) responseCallback(message.responseData, message.error);
        else responseCallback(message.responseData);
        return;
    }
    if (typeof message.callbackId === 'string') {
        var callbackResponseId = message.callbackId, answered = false;
        responseCallback = function (responseData) {
            if (answered) return;
            answered = true;
            var response = setPrototypeOf({}, null);
            if (message.handlerName !== undefined) response.handlerName = Str(message.handlerName);
            response.responseId = callbackResponseId;
            if (responseData !== undefined) response.responseData = responseData;
            send(response);
        };
    }
    var handler = messageHandlers[message.handlerName];
    if (!handler) {
        warn('WebViewJavascriptBridge: WARNING: no handler for message from ObjC:', message);
        return;
    }
    handler(message.data, responseCallback);
}

// A message from Swift: each comes in a task of its own (posted to the page's loop), which is
// what the original's `setTimeout(…, 0)` gives it, so it is dispatched at once.
function receive(message) {
    try { dispatch(message); } catch (error) { warn('WebViewJavascriptBridge: WARNING: javascript handler threw.', error); }
}

// A message handed in by the page (`_handleMessageFromObjC`): in a task of its own unless the
// page disabled that (the original's alert-box safety timeout).
function receiveFromPage(message) {
    if (dispatchLater) {
        setTimer(function () {
            try { dispatch(message); } catch (error) { warn('WebViewJavascriptBridge: WARNING: javascript handler threw.', error); }
        }, 0);
    } else {
        dispatch(message);
    }
}

var bridge = {};
defineProperty(bridge, 'registerHandler', { value: registerHandler, enumerable: true });
defineProperty(bridge, 'callHandler', { value: callHandler, enumerable: true });
defineProperty(bridge, 'disableJavscriptAlertBoxSafetyTimeout', { value: disableJavscriptAlertBoxSafetyTimeout, enumerable: true });
// The original's entry points, for pages that call them: the queue is always empty here
// (messages are posted as they are sent), and a message handed in as JSON text is dispatched as
// one from Swift would be.
defineProperty(bridge, '_fetchQueue', { value: function _fetchQueue() { return '[]'; }, enumerable: true });
defineProperty(bridge, '_handleMessageFromObjC', { enumerable: true, value: function _handleMessageFromObjC(messageJSON) {
    var message;
    try { message = parse(Str(messageJSON)); } catch (error) { warn('WebViewJavascriptBridge: WARNING: a message that is not JSON', Str(messageJSON)); return; }
    receiveFromPage(message);
} });
defineProperty(global, 'WebViewJavascriptBridge', { value: bridge, enumerable: true, writable: false, configurable: true });
// v6 installs `window.onerror` when the page has none, to log uncaught errors.
if (global.onerror === null || global.onerror === undefined) {
    global.onerror = function (msg, url, line, column, error) {
        warn('WebViewJavascriptBridge: ERROR:' + msg + '@' + url + ':' + line);
    };
}
// The native side's handler of the alert-box setting.
registerHandler('_disableJavascriptAlertBoxSafetyTimeout', disableJavscriptAlertBoxSafetyTimeout);

// Pages that queued callbacks for the bridge (the README's WVJBCallbacks) get it now, and Swift's
// messages flow once the document has loaded (its handlers registered).
setTimer(function callWVJBCallbacks() {
    var callbacks = global.WVJBCallbacks;
    if (!callbacks || typeof callbacks.length !== 'number') return;
    try { delete global.WVJBCallbacks; } catch (ignored) { /* a read-only global */ }
    for (var i = 0; i < callbacks.length; i++) {
        try { callbacks[i](bridge); } catch (error) { warn('WebViewJavascriptBridge: WARNING: a WVJBCallbacks callback threw.', error); }
    }
}, 0);
global.addEventListener('load', function () {
    var ready = setPrototypeOf({}, null);
    ready.ready = natives.document;
    post(ready);
});

// The response to the page's call `responseId`, from Swift (as a message with a `responseId`).
function respond(responseId, responseData, error) {
    var responseCallback = responseCallbacks[responseId];
    if (!responseCallback) return;  // unknown or answered already: ignored
    delete responseCallbacks[responseId];
    try {
        if (error !== undefined && error !== null) responseCallback(responseData, error);
        else responseCallback(responseData);
    } catch (thrown) {
        warn('WebViewJavascriptBridge: WARNING: javascript handler threw.', thrown);
    }
}

return { receive: receive, respond: respond };
})
