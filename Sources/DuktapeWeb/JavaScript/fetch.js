// fetch(): a Request sent to the page's network as one typed call (`natives.fetch.send`), and
// the handlers of the network's events (`transferEvents`, PageSeam.TransferEvents).
(function (global, primordials, natives, shared) {
'use strict';
var create = primordials.ObjectCreate,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    TypeErrorCtor = primordials.TypeError,
    ErrorCtor = primordials.Error,
    defineProperty = primordials.ObjectDefineProperty,
    Uint8 = primordials.Uint8Array,
    hidden = natives.hiddenKeys,
    PromiseCtor = primordials.Promise,
    send = natives.fetch.send,
    readBytes = natives.fetch.read,
    cancelTransfer = natives.fetch.cancel,
    pullBytes = natives.fetch.pull,
    BODY = hidden.body;
var Headers = shared.Headers, ReadableStream = shared.ReadableStream, ReadableStreamDefaultController = shared.ReadableStreamDefaultController, ReadableStreamDefaultReader = shared.ReadableStreamDefaultReader, Request = shared.Request, Response = shared.Response, bodyIsUsed = shared.bodyIsUsed, closeStream = shared.closeStream, defineGlobal = shared.defineGlobal, domException = shared.domException, enqueueChunk = shared.enqueueChunk, errorStream = shared.errorStream, headersState = shared.headersState, hostAdd = shared.hostAdd, hostList = shared.hostList, isNullBodyStatus = shared.isNullBodyStatus, makeResponse = shared.makeResponse, newStreamState = shared.newStreamState, pullIfNeeded = shared.pullIfNeeded, readAll = shared.readAll, record = shared.record, rejectedWith = shared.rejectedWith, requestState = shared.requestState, signalState = shared.signalState, stateOf = shared.stateOf, whenSettled = shared.whenSettled;

// The transfers in flight: id → { resolve, reject, response, stream, forget }.
var transfers = setPrototypeOf({}, null);
function abortAlgorithm(signal, algorithm) {
    var state = signalState(signal);
    hostAdd(state.algorithms, algorithm);
    return function () {
        var kept = hostList();
        for (var i = 0; i < state.algorithms.length; i++) if (state.algorithms[i] !== algorithm) hostAdd(kept, state.algorithms[i]);
        state.algorithms = kept;
    };
}
function endTransfer(id) {
    var transfer = transfers[id];
    if (transfer === undefined) return undefined;
    delete transfers[id];
    transfer.forget();
    return transfer;
}
function failTransfer(transfer, error) {
    if (transfer.response === null) transfer.reject(error);
    else if (transfer.stream !== null) errorStream(transfer.stream, error);
}
function fetch(input, init) {
    var request;
    try { request = new Request(input, init); } catch (error) { return rejectedWith(error); }
    var state = requestState(request), body = stateOf(request, BODY), signal = signalState(state.signal);
    if (signal.aborted) return rejectedWith(signal.reason);
    if (bodyIsUsed(body)) return rejectedWith(new TypeErrorCtor("Failed to execute 'fetch': Cannot construct a Request with a Request object that has already been used."));
    if (body.stream !== null && body.stream.reader !== null) {
        return rejectedWith(new TypeErrorCtor("Failed to execute 'fetch': the request's body stream is locked"));
    }
    var bodyBytes = body.bytes !== null ? body.bytes : body.stream !== null ? readAll(body.stream) : null;
    return new PromiseCtor(function (resolve, reject) {
        function start(bytes) {
            if (signal.aborted) { reject(signal.reason); return; }
            var list = headersState(state.headers).list, flat = hostList();
            for (var i = 0; i < list.length; i++) { hostAdd(flat, list[i][0]); hostAdd(flat, list[i][1]); }
            body.used = bytes !== null || body.used;
            var id = send(state.url, state.method, flat, bytes === null ? undefined : bytes, state.redirect, state.timeout,
                state.credentials, state.cache), transfer = record({ resolve: resolve, reject: reject, response: null, stream: null,
                forget: null, method: state.method });
            transfers[id] = transfer;
            transfer.forget = abortAlgorithm(state.signal, function (reason) {
                if (endTransfer(id) === undefined) return;
                cancelTransfer(id);
                failTransfer(transfer, reason);
            });
        }
        if (bodyBytes !== null && !(bodyBytes instanceof Uint8)) whenSettled(bodyBytes, start, reject);
        else start(bodyBytes);
    });
}
defineGlobal('fetch', fetch);

// The host's events for a transfer (PageBindings.swift, TransferEvents), by the transfer's id.
// A response body's bytes reach its stream one way: the stream pulls them (`pullBytes`), when
// a read finds its queue empty, when `available` says that bytes wait, and at the end.
var transferEvents = {
    // The response's head: its headers as [name, value, …].
    head: function (id, status, statusText, url, redirected, headerList, type) {
        var transfer = transfers[id];
        if (transfer === undefined) return;
        var headers = new Headers(), list = headersState(headers).list;
        for (var i = 0; i + 1 < headerList.length; i += 2) hostAdd(list, [headerList[i], headerList[i + 1]]);
        headersState(headers).immutable = true;
        var empty = type === 'opaqueredirect' || isNullBodyStatus(status) || transfer.method === 'HEAD', stream = null;
        if (!empty) {
            stream = newStreamState(0);
            stream.onRead = function (chunk) { readBytes(id, chunk.length); };
            // The host keeps the body's bytes until the stream asks (a read finds the queue empty).
            stream.pull = function () { pullInto(id, stream); };
            stream.cancel = function () { if (endTransfer(id) !== undefined) cancelTransfer(id); };
        }
        transfer.stream = stream;
        transfer.response = makeResponse(create(Response.prototype), record({ type: type, url: url, redirected: redirected,
            status: status, statusText: statusText, headers: headers }), null, stream);
        transfer.resolve(transfer.response);
        // A response without a body (HEAD, a null-body status, a manual redirect): whatever the
        // connection still sends is nobody's, so the transfer ends here.
        if (stream === null && endTransfer(id) !== undefined) cancelTransfer(id);
    },
    // Bytes wait on the host's side for a stream that wanted them: it pulls them (under its own
    // pulling guard).
    available: function (id) {
        var transfer = transfers[id];
        if (transfer !== undefined && transfer.stream !== null) pullIfNeeded(transfer.stream);
    },
    // The end of the body: the bytes the host still holds go first, then the stream closes.
    // The stream counts as pulling meanwhile, so that a read made by a finalizer that a chunk's
    // allocation runs cannot take a later chunk before this one.
    end: function (id) {
        var transfer = transfers[id];
        if (transfer === undefined) return;
        var stream = transfer.stream;
        if (stream !== null) {
            var pulling = stream.pulling;
            stream.pulling = true;
            try {
                while (transfers[id] === transfer && pullInto(id, stream)) { /* each waiting chunk, in order */ }
            } catch (error) {
                errorStream(stream, error);
                return;
            } finally {
                stream.pulling = pulling;
            }
        }
        if (endTransfer(id) === undefined) return;
        if (transfer.response === null) transfer.reject(new TypeErrorCtor('Failed to fetch: the transfer ended without a response'));
        else if (stream !== null) closeStream(stream);
    },
    // The transfer failed (`name` 'TimeoutError', or a network error's). A network error's
    // `cause` says why, with Node's `code` ('ECONNREFUSED', 'ENOTFOUND'…), as Node's fetch does.
    fail: function (id, name, message, code, reason) {
        var transfer = endTransfer(id);
        if (transfer === undefined) return;
        failTransfer(transfer, name === 'TimeoutError' ? domException(message, 'TimeoutError') : networkError(message, code, reason));
    }
};
// Fetch's network error, a TypeError, with the host's reason as its `cause` (an Error whose
// `code` names the kind of failure).
function networkError(message, code, reason) {
    var error = new TypeErrorCtor('Failed to fetch: ' + message), cause = new ErrorCtor(reason === undefined ? message : reason);
    cause.code = code === undefined ? 'ERR_FETCH_FAILED' : code;
    defineProperty(error, 'cause', { value: cause, writable: true, enumerable: false, configurable: true });
    return error;
}
// Moves the oldest chunk the host holds for transfer `id` into `stream`; false when none
// waits. A chunk the page's memory limit refuses ends the transfer (the host has already
// ended it) with a TypeError.
function pullInto(id, stream) {
    var bytes;
    try {
        bytes = pullBytes(id);
    } catch (error) {
        endTransfer(id);
        throw new TypeErrorCtor('Failed to fetch: ' + error.message);
    }
    if (bytes === undefined) return false;
    if (!enqueueChunk(stream, bytes)) readBytes(id, bytes.length);
    return true;
}

return { transferEvents: transferEvents, fetchInterfaces: [ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController, Request, Response] };
})
