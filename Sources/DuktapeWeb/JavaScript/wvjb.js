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
    getTime = primordials.DatePrototypeGetTime,
    DateCtor = primordials.Date,
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
var uniqueId = 1;
var dispatchLater = true;

function registerHandler(handlerName, handler) {
    messageHandlers[Str(handlerName)] = handler;
}

function callHandler(handlerName, data, responseCallback) {
    if (arguments.length === 2 && typeof data === 'function') {
        responseCallback = data;
        data = null;
    }
    doSend({ handlerName: handlerName, data: data }, responseCallback);
}

function disableJavscriptAlertBoxSafetyTimeout() {
    dispatchLater = false;
}

function doSend(message, responseCallback) {
    var copy = setPrototypeOf({}, null);
    if (message.handlerName !== undefined) copy.handlerName = Str(message.handlerName);
    if (message.data !== undefined) copy.data = message.data;
    if (message.responseId !== undefined) copy.responseId = message.responseId;
    if (message.responseData !== undefined) copy.responseData = message.responseData;
    if (responseCallback) {
        var callbackId = 'cb_' + (uniqueId++) + '_' + apply(getTime, new DateCtor(), []);
        responseCallbacks[callbackId] = responseCallback;
        copy.callbackId = callbackId;
    }
    post(copy);
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
            doSend({ handlerName: message.handlerName, responseId: callbackResponseId, responseData: responseData });
        };
    }
    var handler = messageHandlers[message.handlerName];
    if (!handler) {
        warn('WebViewJavascriptBridge: WARNING: no handler for message from ObjC:', message);
        return;
    }
    handler(message.data, responseCallback);
}

function receive(message) {
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
    receive(message);
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

return { receive: receive };
})
