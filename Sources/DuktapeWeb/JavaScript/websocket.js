// WebSocket (WHATWG's WebSockets standard), MessageEvent and CloseEvent. A socket is an id on
// the host's side (natives.webSocket: open, send, close, all as values); the host's events
// arrive as macrotasks, in order, through `webSocketEvents` (PageSeam.WebSocketEvents): open,
// message, written, closing, error, close.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    Uint8 = primordials.Uint8Array,
    ArrayBufferCtor = primordials.ArrayBuffer,
    isView = primordials.ArrayBufferIsView,
    isArray = primordials.ArrayIsArray,
    freeze = primordials.ObjectFreeze,
    round = primordials.MathRound,
    testPattern = primordials.RegExpPrototypeTest,
    hidden = natives.hiddenKeys,
    urlParse = natives.urlParse,
    utf8Encode = natives.utf8Encode,
    documentURL = natives.webSocket.documentURL,
    openSocket = natives.webSocket.open,
    sendBytes = natives.webSocket.send,
    sendText = natives.webSocket.sendText,
    closeSocket = natives.webSocket.close,
    SOCKET = hidden.webSocket;
var Event = shared.Event, EventTarget = shared.EventTarget, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dictionary = shared.dictionary, dispatchHostEvent = shared.dispatchHostEvent, domException = shared.domException, eventState = shared.eventState, hostAdd = shared.hostAdd, hostEvent = shared.hostEvent, hostList = shared.hostList, makeBlob = shared.makeBlob, makeEventTarget = shared.makeEventTarget, own = shared.own, publicArray = shared.publicArray, requireArguments = shared.requireArguments, requireNew = shared.requireNew, toDOMString = shared.toDOMString, toUSVString = shared.toUSVString, Blob = shared.Blob;

// WebIDL's `[Clamp] unsigned short`.
function clampUint16(value) {
    var number = +value;
    if (number !== number) return 0;
    return number <= 0 ? 0 : number >= 65535 ? 65535 : round(number);
}

// MessageEvent (data, origin, lastEventId, source, ports) and CloseEvent (wasClean, code,
// reason): their members live in the event's state, set by the constructors from a script's
// values and by the host's events from its own.
function setMessage(state, data, origin, lastEventId, source) {
    state.data = data;
    state.origin = origin;
    state.lastEventId = lastEventId;
    state.source = source;
    state.ports = null;  // made when first read
}
function setClose(state, wasClean, code, reason) {
    state.wasClean = wasClean;
    state.code = code;
    state.reason = reason;
}
function MessageEvent(type, init) {
    requireNew(this, MessageEvent, 'MessageEvent');
    requireArguments(arguments.length, 1, "Failed to construct 'MessageEvent'");
    var event = apply(Event, this, [type, init]) || this;
    var settings = dictionary(init, "Failed to construct 'MessageEvent': parameter 2");
    setMessage(eventState(this), settings.data === undefined ? null : settings.data,
        settings.origin === undefined ? '' : toUSVString(settings.origin),
        settings.lastEventId === undefined ? '' : toDOMString(settings.lastEventId),
        settings.source === undefined ? null : settings.source);
    return event;
}
MessageEvent.prototype = create(Event.prototype);
defineProperty(MessageEvent.prototype, 'constructor', { value: MessageEvent, writable: true, configurable: true });
defineGetter(MessageEvent.prototype, 'data', function () { return eventState(this).data; });
defineGetter(MessageEvent.prototype, 'origin', function () { return eventState(this).origin; });
defineGetter(MessageEvent.prototype, 'lastEventId', function () { return eventState(this).lastEventId; });
defineGetter(MessageEvent.prototype, 'source', function () { return eventState(this).source; });
defineGetter(MessageEvent.prototype, 'ports', function () {
    var state = eventState(this);
    if (state.ports === null) state.ports = freeze(publicArray([]));  // a FrozenArray
    return state.ports;
});
defineGlobal('MessageEvent', MessageEvent);

function CloseEvent(type, init) {
    requireNew(this, CloseEvent, 'CloseEvent');
    requireArguments(arguments.length, 1, "Failed to construct 'CloseEvent'");
    var event = apply(Event, this, [type, init]) || this;
    var settings = dictionary(init, "Failed to construct 'CloseEvent': parameter 2");
    setClose(eventState(this), !!settings.wasClean, settings.code === undefined ? 0 : clampUint16(settings.code),
        settings.reason === undefined ? '' : toUSVString(settings.reason));
    return event;
}
CloseEvent.prototype = create(Event.prototype);
defineProperty(CloseEvent.prototype, 'constructor', { value: CloseEvent, writable: true, configurable: true });
defineGetter(CloseEvent.prototype, 'wasClean', function () { return eventState(this).wasClean; });
defineGetter(CloseEvent.prototype, 'code', function () { return eventState(this).code; });
defineGetter(CloseEvent.prototype, 'reason', function () { return eventState(this).reason; });
defineGlobal('CloseEvent', CloseEvent);

var CONNECTING = 0, OPEN = 1, CLOSING = 2, CLOSED = 3;
// The sockets the host may still send events to (an open socket is kept alive by its
// connection, as in browsers), by id.
var sockets = setPrototypeOf({}, null);
// A subprotocol is an HTTP token (RFC 9110), and appears once.
var token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function socketState(self) {
    var state = own(self, SOCKET);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}

function WebSocket(url, protocols) {
    requireNew(this, WebSocket, 'WebSocket');
    var what = "Failed to construct 'WebSocket'";
    requireArguments(arguments.length, 1, what);
    var text = toUSVString(url), base = documentURL(), attributes = urlParse(text, base === null ? undefined : base);
    if (attributes === undefined || attributes === null) throw domException(what + ": The URL '" + text + "' is invalid.", 'SyntaxError');
    var scheme = attributes[2], href = attributes[0];
    // http(s) URLs name the same server's ws(s) endpoint (the standard since 2023).
    if (scheme === 'http:' || scheme === 'https:') {
        attributes = urlParse((scheme === 'http:' ? 'ws' : 'wss') + apply(primordials.StringPrototypeSlice, href, [scheme.length - 1]));
        scheme = attributes[2];
        href = attributes[0];
    }
    if (scheme !== 'ws:' && scheme !== 'wss:') {
        throw domException(what + ": The URL's scheme must be either 'http', 'https', 'ws', or 'wss'. '" + scheme + "' is not allowed.", 'SyntaxError');
    }
    if (attributes[10] !== '' || apply(primordials.StringPrototypeIndexOf, href, ['#']) >= 0) {
        throw domException(what + ": The URL contains a fragment identifier ('" + attributes[10] + "'). Fragment identifiers are not allowed in WebSocket URLs.", 'SyntaxError');
    }
    var list = hostList(), i, j;
    if (protocols !== undefined) {
        if (typeof protocols === 'object' && protocols !== null && !(typeof protocols === 'string')) {
            var count = protocols.length >>> 0;
            for (i = 0; i < count; i++) hostAdd(list, toDOMString(protocols[i]));
        } else {
            hostAdd(list, toDOMString(protocols));
        }
    }
    for (i = 0; i < list.length; i++) {
        if (!apply(testPattern, token, [list[i]])) {
            throw domException(what + ": The subprotocol '" + list[i] + "' is invalid.", 'SyntaxError');
        }
        for (j = 0; j < i; j++) {
            if (list[j] === list[i]) throw domException(what + ": The subprotocol '" + list[i] + "' is duplicated.", 'SyntaxError');
        }
    }
    makeEventTarget(this);
    var state = { id: 0, url: href, origin: attributes[1], readyState: CONNECTING, bufferedAmount: 0, protocol: '', extensions: '',
        binaryType: 'blob', onopen: null, onmessage: null, onerror: null, onclose: null };
    defineProperty(this, SOCKET, { value: state });
    state.id = openSocket(href, list);
    sockets[state.id] = this;
}
WebSocket.prototype = create(EventTarget.prototype);
defineProperty(WebSocket.prototype, 'constructor', { value: WebSocket, writable: true, configurable: true });
var states = ['CONNECTING', CONNECTING, 'OPEN', OPEN, 'CLOSING', CLOSING, 'CLOSED', CLOSED];
for (var s = 0; s < states.length; s += 2) {
    defineProperty(WebSocket, states[s], { value: states[s + 1], enumerable: true });
    defineProperty(WebSocket.prototype, states[s], { value: states[s + 1], enumerable: true });
}
defineGetter(WebSocket.prototype, 'url', function () { return socketState(this).url; });
defineGetter(WebSocket.prototype, 'readyState', function () { return socketState(this).readyState; });
defineGetter(WebSocket.prototype, 'bufferedAmount', function () { return socketState(this).bufferedAmount; });
defineGetter(WebSocket.prototype, 'protocol', function () { return socketState(this).protocol; });
defineGetter(WebSocket.prototype, 'extensions', function () { return socketState(this).extensions; });
defineProperty(WebSocket.prototype, 'binaryType', { enumerable: true, configurable: true,
    get: function () { return socketState(this).binaryType; },
    // Another value is ignored (WebIDL enumerations on attributes).
    set: function (value) {
        var state = socketState(this), type = toDOMString(value);
        if (type === 'blob' || type === 'arraybuffer') state.binaryType = type;
    } });
function handlerAttribute(name) {
    defineProperty(WebSocket.prototype, name, { enumerable: true, configurable: true,
        get: function () { return socketState(this)[name]; },
        set: function (handler) { socketState(this)[name] = typeof handler === 'function' || (typeof handler === 'object' && handler !== null) ? handler : null; } });
}
handlerAttribute('onopen');
handlerAttribute('onmessage');
handlerAttribute('onerror');
handlerAttribute('onclose');

defineMethods(WebSocket.prototype, {
    send: function send(data) {
        var state = socketState(this), what = "Failed to execute 'send' on 'WebSocket'";
        requireArguments(arguments.length, 1, what);
        if (state.readyState === CONNECTING) throw domException(what + ': Still in CONNECTING state.', 'InvalidStateError');
        // The host counts the bytes (UTF-8 for text); past OPEN they only count, as the
        // standard says.
        var open = state.readyState === OPEN;
        // A string's lone surrogates become U+FFFD (USVString) as the host takes it.
        if (typeof data === 'string') { state.bufferedAmount += sendText(state.id, data, open); return; }
        var blob = own(data, hidden.blob), payload;
        if (blob !== undefined) payload = blob.bytes;
        else if (data instanceof ArrayBufferCtor) payload = new Uint8(data);
        else if (isView(data)) payload = new Uint8(data.buffer, data.byteOffset, data.byteLength);
        else { state.bufferedAmount += sendText(state.id, toDOMString(data), open); return; }
        state.bufferedAmount += sendBytes(state.id, payload, open);
    },
    close: function close(code, reason) {
        var state = socketState(this), what = "Failed to execute 'close' on 'WebSocket'", number = -1, text = '';
        if (code !== undefined) {
            number = clampUint16(code);
            if (number !== 1000 && (number < 3000 || number > 4999)) {
                throw domException(what + ': The close code must be either 1000, or between 3000 and 4999. ' + number + ' is neither.', 'InvalidAccessError');
            }
        }
        if (reason !== undefined) {
            text = toUSVString(reason);
            if (utf8Encode(text).length > 123) throw domException(what + ': The close reason must not be greater than 123 UTF-8 bytes.', 'SyntaxError');
        }
        if (number === -1 && text !== '') number = 1000;  // a reason needs a code: the standard's 1000
        if (state.readyState === CLOSING || state.readyState === CLOSED) return;
        // Connecting: the connection is failed (an error, then a close with 1006); open: the
        // closing handshake begins.
        state.readyState = CLOSING;
        closeSocket(state.id, number, text);
    }
});
defineGlobal('WebSocket', WebSocket);

// Dispatches the host's event `type` at `socket` (whose state is `state`); `fill`, when given,
// sets the event's own members on its state first.
function fire(socket, state, prototype, type, fill, a, b, c) {
    var event = hostEvent(prototype, type, false, false), events = eventState(event);
    if (fill !== undefined) fill(events, a, b, c);
    dispatchHostEvent(event, events, socket, state, 'on' + type);
}
function socketOf(id) { return sockets[id]; }
function setMessageData(events, data, origin) { setMessage(events, data, origin, '', null); }

return {
    webSocketInterfaces: [MessageEvent, CloseEvent, WebSocket],
    webSocketEvents: {
        open: function (id, protocol, extensions) {
            var socket = socketOf(id);
            if (socket === undefined) return;
            var state = socketState(socket);
            if (state.readyState !== CONNECTING) return;
            state.readyState = OPEN;
            state.protocol = protocol;
            state.extensions = extensions;
            fire(socket, state, Event.prototype, 'open');
        },
        // A message (a string, or the bytes of a binary one as a Uint8Array of its own buffer).
        message: function (id, data) {
            var socket = socketOf(id);
            if (socket === undefined) return;
            var state = socketState(socket);
            if (state.readyState !== OPEN) return;
            if (typeof data !== 'string') {
                if (state.binaryType === 'arraybuffer') {
                    data = data.buffer;
                } else {
                    var blob = create(Blob.prototype);
                    makeBlob(blob, data, '');
                    data = blob;
                }
            }
            fire(socket, state, MessageEvent.prototype, 'message', setMessageData, data, state.origin);
        },
        // `count` bytes of what the page sent were written to the network.
        written: function (id, count) {
            var socket = socketOf(id);
            if (socket === undefined) return;
            var state = socketState(socket);
            state.bufferedAmount = state.bufferedAmount > count ? state.bufferedAmount - count : 0;
        },
        // The server began the closing handshake.
        closing: function (id) {
            var socket = socketOf(id);
            if (socket !== undefined) socketState(socket).readyState = CLOSING;
        },
        error: function (id) {
            var socket = socketOf(id);
            if (socket !== undefined) fire(socket, socketState(socket), Event.prototype, 'error');
        },
        close: function (id, code, reason, wasClean) {
            var socket = socketOf(id);
            if (socket === undefined) return;
            delete sockets[id];
            var state = socketState(socket);
            state.readyState = CLOSED;
            fire(socket, state, CloseEvent.prototype, 'close', setClose, wasClean, code, reason);
        }
    }
};
})
