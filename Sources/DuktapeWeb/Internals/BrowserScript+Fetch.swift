extension BrowserScript {
    /// `fetch`, `Request`, `Response` and `ReadableStream` (with its default reader and
    /// controller), part of the factory's function (it uses the globals' internals: header
    /// lists, blob bytes, form entries, signals). `installFetch(natives, interfaces)` runs only
    /// when the host gives networking natives: `send(description) → id`, `read(id, count)`,
    /// `cancel(id)`, `decodeText(bytes, contentType)` and `documentURL()`; it returns the
    /// dispatcher for the host's transfer events (`PageNetwork`).
    ///
    /// A response body is a `ReadableStream` whose source is the host: a read that finds the
    /// queue empty pulls the bytes the host holds (all that arrived since, up to a megabyte), or
    /// waits for the next ones; the host stops reading the network while more than a megabyte is
    /// unread (`FetchTransfer`). Bodies the
    /// page builds (strings, buffers, blobs, `URLSearchParams`, `FormData` as
    /// `multipart/form-data`) are bytes made once.
    static let fetchSource = #"""
// --- fetch, Request, Response, ReadableStream -------------------------------------------------------
function installFetch(fetchNatives, interfaces) {
var send = fetchNatives.send, readBytes = fetchNatives.read, cancelTransfer = fetchNatives.cancel, pullBytes = fetchNatives.pull,
    decodeText = fetchNatives.decodeText, documentURL = fetchNatives.documentURL,
    JSONParse = JSON.parse, JSONStringify = JSON.stringify, random = Math.random, toUpperCase = String.prototype.toUpperCase,
    then = PromiseCtor.prototype.then, promiseResolve = PromiseCtor.resolve, promiseReject = PromiseCtor.reject,
    STREAM = hidden.stream, READER = hidden.reader, BODY = hidden.body, REQUEST = hidden.request, RESPONSE = hidden.response,
    CONTROLLER_STATE = hidden.streamController, charAt = String.prototype.charAt;
function resolvedWith(value) { return apply(promiseResolve, PromiseCtor, [value]); }
function rejectedWith(reason) { return apply(promiseReject, PromiseCtor, [reason]); }
function whenSettled(promise, onFulfilled, onRejected) { return apply(then, promise, [onFulfilled, onRejected]); }
function stateOf(self, key) {
    var state = own(self, key);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function joinChunks(chunks, total) {
    var joined = new Uint8(total), offset = 0;
    for (var i = 0; i < chunks.length; i++) {
        call(setBytes, joined, chunks[i], offset);
        offset += chunks[i].length;
    }
    return joined;
}

// --- ReadableStream ---------------------------------------------------------------------------
// A default stream: a queue of chunks, the read requests of its reader, and the algorithms of
// its source (a script's underlying source, the host's transfer, or a tee).
// Internal state objects have no prototype: a setter or getter a script puts on
// Object.prototype never sees them.
function record(fields) { return setPrototypeOf(fields, null); }
function newStreamState(highWaterMark) {
    return record({ state: 'readable', queue: hostList(), head: 0, closeRequested: false, storedError: undefined, reader: null,
        disturbed: false, pull: null, cancel: null, pulling: false, pullAgain: false, started: true,
        highWaterMark: highWaterMark, onRead: null, object: null });
}
function streamObject(state) {
    var stream = create(ReadableStream.prototype);
    defineProperty(stream, STREAM, { value: state });
    state.object = stream;
    return stream;
}
function queued(state) { return state.queue.length - state.head; }
function dequeue(state) {
    var chunk = state.queue[state.head];
    state.queue[state.head++] = undefined;
    if (state.head > 64 && state.head * 2 > state.queue.length) {
        var rest = hostList();
        for (var i = state.head; i < state.queue.length; i++) hostAdd(rest, state.queue[i]);
        state.queue = rest;
        state.head = 0;
    }
    if (state.onRead !== null) state.onRead(chunk);
    return chunk;
}
function readResult(value, done) { return { value: value, done: done }; }
// The reader's oldest waiting read; the list starts again once none waits (a long stream
// leaves no trail of finished reads).
function takeRead(reader) {
    var request = reader.reads[reader.readHead];
    reader.reads[reader.readHead++] = undefined;
    if (reader.readHead === reader.reads.length) {
        reader.reads.length = 0;
        reader.readHead = 0;
    }
    return request;
}
function enqueueChunk(state, chunk) {
    if (state.state !== 'readable' || state.closeRequested) return false;
    var reader = state.reader;
    if (reader !== null && reader.reads.length > reader.readHead) {
        var request = takeRead(reader);
        if (state.onRead !== null) state.onRead(chunk);
        request.resolve(readResult(chunk, false));
    } else {
        hostAdd(state.queue, chunk);
    }
    pullIfNeeded(state);
    return true;
}
function finishClose(state) {
    state.state = 'closed';
    var reader = state.reader;
    if (reader === null) return;
    while (reader.reads.length > reader.readHead) {
        var request = takeRead(reader);
        request.resolve(readResult(undefined, true));
    }
    reader.resolveClosed(undefined);
}
function closeStream(state) {
    if (state.state !== 'readable' || state.closeRequested) return;
    state.closeRequested = true;
    if (queued(state) === 0) finishClose(state);
}
function errorStream(state, error) {
    if (state.state !== 'readable') return;
    state.state = 'errored';
    state.storedError = error;
    state.queue = hostList();
    state.head = 0;
    var reader = state.reader;
    if (reader === null) return;
    while (reader.reads.length > reader.readHead) {
        var request = takeRead(reader);
        request.reject(error);
    }
    reader.rejectClosed(error);
}
function pullIfNeeded(state) {
    if (state.pull === null || !state.started || state.state !== 'readable' || state.closeRequested) return;
    var reader = state.reader;
    var wanted = (reader !== null && reader.reads.length > reader.readHead) || state.highWaterMark - queued(state) > 0;
    if (!wanted) return;
    if (state.pulling) { state.pullAgain = true; return; }
    state.pulling = true;
    var result;
    try { result = state.pull(); } catch (error) { errorStream(state, error); return; }
    whenSettled(resolvedWith(result), function () {
        state.pulling = false;
        if (state.pullAgain) { state.pullAgain = false; pullIfNeeded(state); }
    }, function (error) { errorStream(state, error); });
}
function readFrom(state) {
    state.disturbed = true;
    if (state.state === 'closed') return resolvedWith(readResult(undefined, true));
    if (state.state === 'errored') return rejectedWith(state.storedError);
    if (queued(state) > 0) {
        var chunk = dequeue(state);
        if (state.closeRequested && queued(state) === 0) finishClose(state);
        else pullIfNeeded(state);
        return resolvedWith(readResult(chunk, false));
    }
    var reader = state.reader;
    return new PromiseCtor(function (resolve, reject) {
        hostAdd(reader.reads, record({ resolve: resolve, reject: reject }));
        pullIfNeeded(state);
    });
}
function cancelStream(state, reason) {
    state.disturbed = true;
    if (state.state === 'closed') return resolvedWith(undefined);
    if (state.state === 'errored') return rejectedWith(state.storedError);
    state.queue = hostList();
    state.head = 0;
    finishClose(state);
    var cancel = state.cancel;
    state.pull = null;
    state.cancel = null;
    var result;
    try { result = cancel === null ? undefined : cancel(reason); } catch (error) { return rejectedWith(error); }
    return whenSettled(resolvedWith(result), function () { return undefined; });
}

function ReadableStreamDefaultController() {
    throw new TypeErrorCtor("Failed to construct 'ReadableStreamDefaultController': Illegal constructor");
}
function controllerStream(self) { return stateOf(self, CONTROLLER_STATE); }
defineGetter(ReadableStreamDefaultController.prototype, 'desiredSize', function () {
    var state = controllerStream(this);
    return state.state === 'errored' ? null : state.state === 'closed' ? 0 : state.highWaterMark - queued(state);
});
defineMethods(ReadableStreamDefaultController.prototype, {
    enqueue: function enqueue(chunk) {
        if (!enqueueChunk(controllerStream(this), chunk)) {
            throw new TypeErrorCtor("Failed to execute 'enqueue' on 'ReadableStreamDefaultController': the stream is closed or closing");
        }
    },
    close: function close() {
        var state = controllerStream(this);
        if (state.state !== 'readable' || state.closeRequested) {
            throw new TypeErrorCtor("Failed to execute 'close' on 'ReadableStreamDefaultController': the stream is closed or closing");
        }
        closeStream(state);
    },
    error: function error(reason) { errorStream(controllerStream(this), reason); }
});

// new ReadableStream({ start(controller), pull(controller), cancel(reason) }, { highWaterMark }):
// default streams (any chunk type); a byte stream ({ type: 'bytes' }) is refused with a RangeError.
function ReadableStream(underlyingSource, strategy) {
    requireNew(this, ReadableStream, 'ReadableStream');
    var source = dictionary(underlyingSource, "Failed to construct 'ReadableStream': parameter 1");
    var settings = dictionary(strategy, "Failed to construct 'ReadableStream': parameter 2");
    var cancel = source.cancel, pull = source.pull, start = source.start, type = source.type;
    if (type !== undefined) throw new RangeErrorCtor("Failed to construct 'ReadableStream': byte streams are not supported by this host");
    var mark = settings.highWaterMark === undefined ? 1 : +settings.highWaterMark;
    if (mark !== mark || mark < 0) throw new RangeErrorCtor("Failed to construct 'ReadableStream': invalid highWaterMark");
    [cancel, pull, start].forEach(function (f) {
        if (f !== undefined && typeof f !== 'function') throw new TypeErrorCtor("Failed to construct 'ReadableStream': a source's start, pull and cancel must be functions");
    });
    var state = newStreamState(mark), controller = create(ReadableStreamDefaultController.prototype);
    defineProperty(controller, CONTROLLER_STATE, { value: state });
    defineProperty(this, STREAM, { value: state });
    state.object = this;
    state.pull = pull === undefined ? null : function () { return apply(pull, source, [controller]); };
    state.cancel = cancel === undefined ? null : function (reason) { return apply(cancel, source, [reason]); };
    state.started = false;
    var started = start === undefined ? undefined : apply(start, source, [controller]);
    whenSettled(resolvedWith(started), function () {
        state.started = true;
        pullIfNeeded(state);
    }, function (error) { errorStream(state, error); });
}
function streamState(self) { return stateOf(self, STREAM); }
defineGetter(ReadableStream.prototype, 'locked', function () { return streamState(this).reader !== null; });
defineMethods(ReadableStream.prototype, {
    getReader: function getReader(options) {
        var state = streamState(this), mode = dictionary(options, "Failed to execute 'getReader' on 'ReadableStream'").mode;
        if (mode !== undefined) {
            throw new RangeErrorCtor("Failed to execute 'getReader' on 'ReadableStream': mode '" + toDOMString(mode) + "' is not supported");
        }
        return new ReadableStreamDefaultReader(this);
    },
    cancel: function cancel(reason) {
        var state;
        try { state = streamState(this); } catch (error) { return rejectedWith(error); }
        if (state.reader !== null) return rejectedWith(new TypeErrorCtor("Failed to execute 'cancel' on 'ReadableStream': the stream is locked"));
        return cancelStream(state, reason);
    },
    tee: function tee() {
        var state = streamState(this);
        if (state.reader !== null) throw new TypeErrorCtor("Failed to execute 'tee' on 'ReadableStream': the stream is locked");
        var branches = teeState(state);
        return publicArray([streamObject(branches[0]), streamObject(branches[1])]);
    }
});

// Two streams that each see every chunk of `source` (the second a copy when it is a Uint8Array).
// The source is read when either branch wants a chunk; cancelling both cancels it.
function teeState(source) {
    var reader = lockStream(source), reading = false, cancelled = [false, false], reasons = [undefined, undefined];
    var branches = [newStreamState(1), newStreamState(1)];
    function pull() {
        if (reading) return resolvedWith(undefined);
        reading = true;
        whenSettled(readFrom(source), function (result) {
            reading = false;
            if (result.done) {
                if (!cancelled[0]) closeStream(branches[0]);
                if (!cancelled[1]) closeStream(branches[1]);
                return;
            }
            var chunk = result.value;
            if (!cancelled[0]) enqueueChunk(branches[0], chunk);
            if (!cancelled[1]) enqueueChunk(branches[1], chunk instanceof Uint8 ? new Uint8(chunk) : chunk);
        }, function (error) {
            reading = false;
            errorStream(branches[0], error);
            errorStream(branches[1], error);
        });
        return resolvedWith(undefined);
    }
    function canceller(index) {
        return function (reason) {
            cancelled[index] = true;
            reasons[index] = reason;
            if (cancelled[1 - index]) return cancelStream(source, publicArray(reasons));
            return undefined;
        };
    }
    for (var i = 0; i < 2; i++) {
        branches[i].pull = pull;
        branches[i].cancel = canceller(i);
    }
    return branches;
}

// The reader of a stream: its pending read requests and its `closed` promise.
function lockStream(state) {
    if (state.reader !== null) throw new TypeErrorCtor("Failed to construct 'ReadableStreamDefaultReader': the stream is locked");
    var reader = record({ stream: state, reads: hostList(), readHead: 0, resolveClosed: null, rejectClosed: null, closed: null });
    reader.closed = new PromiseCtor(function (resolve, reject) { reader.resolveClosed = resolve; reader.rejectClosed = reject; });
    if (state.state === 'closed') reader.resolveClosed(undefined);
    if (state.state === 'errored') reader.rejectClosed(state.storedError);
    whenSettled(reader.closed, undefined, function () { /* observed: no unhandled rejection */ });
    state.reader = reader;
    return reader;
}
function ReadableStreamDefaultReader(stream) {
    requireNew(this, ReadableStreamDefaultReader, 'ReadableStreamDefaultReader');
    requireArguments(arguments.length, 1, "Failed to construct 'ReadableStreamDefaultReader'");
    defineProperty(this, READER, { value: lockStream(streamState(stream)) });
}
function readerState(self, what) {
    var reader = stateOf(self, READER);
    if (reader.stream === null) throw new TypeErrorCtor("Failed to execute '" + what + "' on 'ReadableStreamDefaultReader': the reader was released");
    return reader;
}
defineGetter(ReadableStreamDefaultReader.prototype, 'closed', function () { return stateOf(this, READER).closed; });
defineMethods(ReadableStreamDefaultReader.prototype, {
    read: function read() {
        var reader;
        try { reader = readerState(this, 'read'); } catch (error) { return rejectedWith(error); }
        return readFrom(reader.stream);
    },
    cancel: function cancel(reason) {
        var reader;
        try { reader = readerState(this, 'cancel'); } catch (error) { return rejectedWith(error); }
        return cancelStream(reader.stream, reason);
    },
    releaseLock: function releaseLock() {
        var reader = stateOf(this, READER);
        if (reader.stream === null) return;
        var released = new TypeErrorCtor('the reader was released');
        while (reader.reads.length > reader.readHead) {
            var request = takeRead(reader);
            request.reject(released);
        }
        if (reader.stream.state === 'readable') reader.rejectClosed(released);
        reader.stream.reader = null;
        reader.stream = null;
    }
});
defineGlobal('ReadableStream', ReadableStream);
defineGlobal('ReadableStreamDefaultReader', ReadableStreamDefaultReader);
defineGlobal('ReadableStreamDefaultController', ReadableStreamDefaultController);

// A stream of `bytes` in one chunk, closed.
function bytesStream(bytes) {
    var state = newStreamState(0);
    if (bytes.length > 0) hostAdd(state.queue, new Uint8(bytes));  // a copy: the bytes may be a Blob's
    state.closeRequested = true;
    if (bytes.length === 0) state.state = 'closed';
    return state;
}
// All of a stream's chunks (Uint8Arrays) joined; the stream is locked while it is read.
function readAll(state) {
    var reader = lockStream(state), chunks = hostList(), total = 0;
    return new PromiseCtor(function (resolve, reject) {
        function step(result) {
            if (result.done) { resolve(joinChunks(chunks, total)); return; }
            if (!(result.value instanceof Uint8)) {
                var error = new TypeErrorCtor('a body stream gave a chunk that is not a Uint8Array');
                cancelStream(state, error);
                reject(error);
                return;
            }
            hostAdd(chunks, result.value);
            total += result.value.length;
            whenSettled(readFrom(reader.stream), step, reject);
        }
        whenSettled(readFrom(reader.stream), step, reject);
    });
}

// --- bodies -------------------------------------------------------------------------------------
// A body is bytes the page built (read at most once), or a stream (the host's, or a script's).
function makeBody(self, bytes, stream) {
    defineProperty(self, BODY, { value: record({ bytes: bytes, stream: stream, used: false }) });
}
function bodyIsUsed(body) { return body.used || (body.stream !== null && body.stream.disturbed); }
function bodyStreamOf(body) {
    if (body.stream === null && body.bytes !== null) {
        body.stream = bytesStream(body.bytes);
        body.bytes = null;
    }
    return body.stream === null ? null : body.stream.object || streamObject(body.stream);
}
var crlf = /\r\n|\r|\n/g, nameUnsafe = /[\r\n"]/g, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
function escapeFormName(name) {
    return call(replace, call(replace, name, crlf, '\r\n'), nameUnsafe, function (c) {
        return c === '\r' ? '%0D' : c === '\n' ? '%0A' : '%22';
    });
}
// FormData entries as multipart/form-data (HTML's encoding: names and filenames escaped, string
// values with CRLF line breaks, files with their type or application/octet-stream).
function multipartBody(entries) {
    var boundary = '----DuktapeWebFormBoundary', chunks = hostList(), total = 0, i;
    for (i = 0; i < 24; i++) boundary += call(charAt, alphabet, floor(random() * alphabet.length));
    function add(bytes) { hostAdd(chunks, bytes); total += bytes.length; }
    for (i = 0; i < entries.length; i++) {
        var name = entries[i][0], value = entries[i][1];
        var head = '--' + boundary + '\r\nContent-Disposition: form-data; name="' + escapeFormName(name) + '"';
        if (typeof value === 'string') {
            add(utf8Encode(head + '\r\n\r\n' + call(replace, value, crlf, '\r\n') + '\r\n'));
        } else {
            var blob = own(value, BLOB), file = own(value, FILE);
            add(utf8Encode(head + '; filename="' + escapeFormName(file !== undefined ? file.name : 'blob') + '"\r\nContent-Type: ' +
                (blob.type !== '' ? blob.type : 'application/octet-stream') + '\r\n\r\n'));
            add(blob.bytes);
            add(utf8Encode('\r\n'));
        }
    }
    add(utf8Encode('--' + boundary + '--\r\n'));
    return { bytes: joinChunks(chunks, total), stream: null, type: 'multipart/form-data; boundary=' + boundary };
}
// BodyInit as bytes (or a stream, where `streams` allows) and the Content-Type it implies.
function extractBody(value, streams, what) {
    var blob = own(value, BLOB);
    if (blob !== undefined) return { bytes: blob.bytes, stream: null, type: blob.type !== '' ? blob.type : null };
    if (value instanceof ArrayBufferCtor || isView(value)) return { bytes: new Uint8(bytesOf(value, what)), stream: null, type: null };
    var form = own(value, FORM);
    if (form !== undefined) return multipartBody(form.entries);
    var params = own(value, PARAMS);
    if (params !== undefined) {
        return { bytes: utf8Encode(formSerialize(params.pairs)), stream: null, type: 'application/x-www-form-urlencoded;charset=UTF-8' };
    }
    var stream = own(value, STREAM);
    if (stream !== undefined) {
        if (!streams) throw new TypeErrorCtor(what + ': a ReadableStream request body is not supported by this host');
        if (stream.reader !== null || stream.disturbed) throw new TypeErrorCtor(what + ': the body stream is locked or disturbed');
        return { bytes: null, stream: stream, type: null };
    }
    return { bytes: utf8Encode(toUSVString(value)), stream: null, type: 'text/plain;charset=UTF-8' };
}
function contentTypeOf(headers) { return combinedValue(headersState(headers), 'content-type'); }
// The body's bytes, once: a TypeError when it was read (or its stream is locked).
function consumeBody(self, what, finish) {
    var body, headers;
    try {
        body = stateOf(self, BODY);
        headers = (own(self, REQUEST) || own(self, RESPONSE)).headers;
    } catch (error) { return rejectedWith(error); }
    var label = "Failed to execute '" + what + "' on '" + (own(self, REQUEST) !== undefined ? 'Request' : 'Response') + "': ";
    if (bodyIsUsed(body)) return rejectedWith(new TypeErrorCtor(label + 'body stream already read'));
    if (body.stream !== null && body.stream.reader !== null) return rejectedWith(new TypeErrorCtor(label + 'body stream is locked'));
    var bytes;
    if (body.stream === null) {
        if (body.bytes !== null) body.used = true;  // a null body is never "used"
        bytes = resolvedWith(body.bytes !== null ? body.bytes : new Uint8(0));
    } else {
        bytes = readAll(body.stream);
    }
    return whenSettled(bytes, function (data) { return finish(data, contentTypeOf(headers)); });
}
var bodyMethods = {
    arrayBuffer: function arrayBuffer() {
        return consumeBody(this, 'arrayBuffer', function (bytes) { return new Uint8(bytes).buffer; });
    },
    bytes: function bytes() {
        return consumeBody(this, 'bytes', function (data) { return new Uint8(data); });
    },
    blob: function blob() {
        return consumeBody(this, 'blob', function (bytes, type) {
            var result = create(Blob.prototype);
            makeBlob(result, new Uint8(bytes), type === null ? '' : blobType(type));
            return result;
        });
    },
    text: function text() {
        return consumeBody(this, 'text', function (bytes, type) { return decodeText(bytes, type === null ? undefined : type); });
    },
    json: function json() {
        return consumeBody(this, 'json', function (bytes) { return JSONParse(decodeText(bytes, undefined)); });
    },
    formData: function formData() {
        return consumeBody(this, 'formData', function (bytes, type) {
            var essence = type === null ? '' : lower(call(replace, call(replace, type, /;[\s\S]*$/, ''), /^[\t\n\r ]+|[\t\n\r ]+$/g, ''));
            if (essence !== 'application/x-www-form-urlencoded') {
                throw new TypeErrorCtor("Failed to execute 'formData': only application/x-www-form-urlencoded bodies can be read as FormData by this host");
            }
            var form = new FormData(), pairs = parsePairs(decodeText(bytes, undefined)), entries = formState(form).entries;
            for (var i = 0; i < pairs.length; i += 2) hostAdd(entries, [pairs[i], pairs[i + 1]]);
            return form;
        });
    }
};
function defineBody(prototype) {
    defineMethods(prototype, bodyMethods);
    defineGetter(prototype, 'body', function () { return bodyStreamOf(stateOf(this, BODY)); });
    defineGetter(prototype, 'bodyUsed', function () { return bodyIsUsed(stateOf(this, BODY)); });
}
// The second body of a clone: the same bytes, or one branch of the stream teed (the original
// body keeps the other).
function cloneBody(body) {
    if (body.stream === null) return record({ bytes: body.bytes, stream: null });
    var branches = teeState(body.stream);
    body.stream = branches[0];
    return record({ bytes: null, stream: branches[1] });
}
// A copy of a request's or response's state (its own keys; a fresh header list, same guard).
function copyState(state) {
    var copy = record({}), keys = keysOf(state);
    for (var i = 0; i < keys.length; i++) copy[keys[i]] = state[keys[i]];
    var headers = new Headers(), from = headersState(state.headers), to = headersState(headers);
    for (i = 0; i < from.list.length; i++) hostAdd(to.list, [from.list[i][0], from.list[i][1]]);
    to.immutable = from.immutable;
    copy.headers = headers;
    return copy;
}

// --- Request --------------------------------------------------------------------------------------
function enumValue(value, allowed, type, what) {
    var text = toDOMString(value);
    for (var i = 0; i < allowed.length; i++) if (allowed[i] === text) return text;
    throw new TypeErrorCtor(what + ": The provided value '" + text + "' is not a valid enum value of type " + type + '.');
}
var normalizedMethods = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
function requestMethod(value, what) {
    var text = toDOMString(value);
    if (!apply(testPattern, tokenPattern, [text])) throw new TypeErrorCtor(what + ": '" + text + "' is not a valid HTTP method.");
    var upper = apply(toUpperCase, text, []);
    if (upper === 'CONNECT' || upper === 'TRACE' || upper === 'TRACK') {
        throw new TypeErrorCtor(what + ": '" + text + "' HTTP method is unsupported.");
    }
    for (var i = 0; i < normalizedMethods.length; i++) if (normalizedMethods[i] === upper) return upper;
    return text;
}
function parseRequestURL(value, what) {
    var text = toUSVString(value), base = documentURL(), attributes = urlParse(text, base === null ? undefined : base);
    if (attributes === undefined) throw new TypeErrorCtor(what + ": Failed to parse URL from " + text);
    if (attributes[3] !== '' || attributes[4] !== '') {
        throw new TypeErrorCtor(what + ': Request cannot be constructed from a URL that includes credentials: ' + text);
    }
    return attributes[0];
}
function Request(input, init) {
    requireNew(this, Request, 'Request');
    var what = "Failed to construct 'Request'";
    requireArguments(arguments.length, 1, what);
    var source = own(input, REQUEST), settings = dictionary(init, what + ': parameter 2');
    // Each member read once, in WebIDL's (alphabetical) order.
    var body = settings.body, cache = settings.cache, credentials = settings.credentials, headersInit = settings.headers,
        method = settings.method, mode = settings.mode, redirect = settings.redirect, signal = settings.signal,
        timeout = settings.timeout;
    var state = source !== undefined
        ? record({ url: source.url, method: source.method, mode: source.mode, credentials: source.credentials, cache: source.cache,
            redirect: source.redirect, signal: source.signal, timeout: source.timeout, headers: null })
        : record({ url: parseRequestURL(input, what), method: 'GET', mode: 'cors', credentials: 'same-origin', cache: 'default',
            redirect: 'follow', signal: null, timeout: undefined, headers: null });
    if (cache !== undefined) state.cache = enumValue(cache, ['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached'], 'RequestCache', what);
    if (credentials !== undefined) state.credentials = enumValue(credentials, ['omit', 'same-origin', 'include'], 'RequestCredentials', what);
    if (method !== undefined) state.method = requestMethod(method, what);
    if (mode !== undefined) {
        state.mode = enumValue(mode, ['navigate', 'same-origin', 'no-cors', 'cors'], 'RequestMode', what);
        if (state.mode === 'navigate') throw new TypeErrorCtor(what + ": Cannot construct a Request with a RequestInit whose mode member is set as 'navigate'.");
    }
    if (state.cache === 'only-if-cached' && state.mode !== 'same-origin') {
        throw new TypeErrorCtor(what + ": 'only-if-cached' can be set only with 'same-origin' mode");
    }
    if (redirect !== undefined) state.redirect = enumValue(redirect, ['follow', 'error', 'manual'], 'RequestRedirect', what);
    if (signal !== undefined) {
        if (signal !== null && own(signal, SIGNAL) === undefined) throw new TypeErrorCtor(what + ": member signal is not of type AbortSignal.");
        state.signal = signal;
    }
    if (state.signal === null) state.signal = newSignal();
    if (timeout !== undefined) {
        var milliseconds = +timeout;
        if (!(milliseconds >= 0) || milliseconds === Infinity) throw new TypeErrorCtor(what + ': timeout must be a finite number of milliseconds, 0 or more');
        state.timeout = milliseconds;
    }
    var headers = new Headers(headersInit !== undefined ? headersInit : source !== undefined ? source.headers : undefined);
    state.headers = headers;
    var sourceBody = source !== undefined ? stateOf(input, BODY) : null, extracted = null;
    if (body !== undefined && body !== null) {
        if (state.method === 'GET' || state.method === 'HEAD') throw new TypeErrorCtor(what + ': Request with GET/HEAD method cannot have body.');
        extracted = extractBody(body, false, what);
        if (extracted.type !== null && !hasHeader(headersState(headers), 'content-type')) {
            appendHeader(headersState(headers), 'Content-Type', extracted.type);
        }
        makeBody(this, extracted.bytes, null);
    } else if (sourceBody !== null && (sourceBody.bytes !== null || sourceBody.stream !== null)) {
        if (state.method === 'GET' || state.method === 'HEAD') throw new TypeErrorCtor(what + ': Request with GET/HEAD method cannot have body.');
        if (bodyIsUsed(sourceBody) || (sourceBody.stream !== null && sourceBody.stream.reader !== null)) {
            throw new TypeErrorCtor(what + ': Cannot construct a Request with a Request object that has already been used.');
        }
        makeBody(this, sourceBody.bytes, sourceBody.stream);
        sourceBody.used = true;  // the body moved to the new request
    } else {
        makeBody(this, null, null);
    }
    defineProperty(this, REQUEST, { value: state });
}
function requestState(self) { return stateOf(self, REQUEST); }
['method', 'url', 'headers', 'mode', 'credentials', 'cache', 'redirect', 'signal'].forEach(function (name) {
    defineGetter(Request.prototype, name, function () { return requestState(this)[name]; });
});
defineGetter(Request.prototype, 'destination', function () { requestState(this); return ''; });
defineGetter(Request.prototype, 'referrer', function () { requestState(this); return 'about:client'; });
defineGetter(Request.prototype, 'referrerPolicy', function () { requestState(this); return ''; });
defineGetter(Request.prototype, 'integrity', function () { requestState(this); return ''; });
defineGetter(Request.prototype, 'keepalive', function () { requestState(this); return false; });
defineGetter(Request.prototype, 'duplex', function () { requestState(this); return 'half'; });
defineBody(Request.prototype);
defineMethods(Request.prototype, {
    clone: function clone() {
        var state = requestState(this), body = stateOf(this, BODY);
        if (bodyIsUsed(body)) throw new TypeErrorCtor("Failed to execute 'clone' on 'Request': Request body is already used");
        var copy = create(Request.prototype), second = cloneBody(body);
        defineProperty(copy, REQUEST, { value: copyState(state) });
        makeBody(copy, second.bytes, second.stream);
        return copy;
    }
});
defineGlobal('Request', Request);

// --- Response -------------------------------------------------------------------------------------
var reasonPhrase = /^[\t\x20-\x7E\x80-\xFF]*$/;
function isNullBodyStatus(status) { return status === 101 || status === 103 || status === 204 || status === 205 || status === 304; }
function makeResponse(self, state, bytes, stream) {
    defineProperty(self, RESPONSE, { value: state });
    makeBody(self, bytes, stream);
    return self;
}
function Response(body, init) {
    requireNew(this, Response, 'Response');
    var what = "Failed to construct 'Response'", settings = dictionary(init, what + ': parameter 2');
    var headersInit = settings.headers, statusInit = settings.status, statusTextInit = settings.statusText;
    var status = statusInit === undefined ? 200 : (+statusInit) % 65536;
    status = status !== status ? 0 : status < 0 ? ceil(status) + 65536 : floor(status);
    if (status < 200 || status > 599) throw new RangeErrorCtor(what + ': The status provided (' + status + ') is outside the range [200, 599].');
    var statusText = statusTextInit === undefined ? '' : toDOMString(statusTextInit);
    if (!apply(testPattern, reasonPhrase, [statusText])) throw new TypeErrorCtor(what + ': Invalid statusText');
    var headers = new Headers(headersInit), bytes = null, stream = null;
    if (body !== undefined && body !== null) {
        if (isNullBodyStatus(status)) throw new TypeErrorCtor(what + ': Response with null body status cannot have body');
        var extracted = extractBody(body, true, what);
        if (extracted.type !== null && !hasHeader(headersState(headers), 'content-type')) {
            appendHeader(headersState(headers), 'Content-Type', extracted.type);
        }
        bytes = extracted.bytes;
        stream = extracted.stream;
    }
    makeResponse(this, record({ type: 'default', url: '', redirected: false, status: status, statusText: statusText,
        headers: headers }), bytes, stream);
}
function responseState(self) { return stateOf(self, RESPONSE); }
function immutableHeaders(init) {
    var headers = new Headers(init);
    headersState(headers).immutable = true;
    return headers;
}
defineProperty(Response, 'error', { value: function error() {
    return makeResponse(create(Response.prototype), record({ type: 'error', url: '', redirected: false, status: 0, statusText: '',
        headers: immutableHeaders() }), null, null);
}, writable: true, enumerable: true, configurable: true });
defineProperty(Response, 'redirect', { value: function redirect(url, status) {
    var what = "Failed to execute 'redirect' on 'Response'";
    requireArguments(arguments.length, 1, what);
    var target = parseRequestURL(url, what), code = status === undefined ? 302 : +status;
    if (code !== 301 && code !== 302 && code !== 303 && code !== 307 && code !== 308) throw new RangeErrorCtor(what + ': Invalid status code');
    return makeResponse(create(Response.prototype), record({ type: 'default', url: '', redirected: false, status: code,
        statusText: '', headers: immutableHeaders([['Location', target]]) }), null, null);
}, writable: true, enumerable: true, configurable: true });
defineProperty(Response, 'json', { value: function json(data, init) {
    var text = JSONStringify(data);
    if (text === undefined) throw new TypeErrorCtor("Failed to execute 'json' on 'Response': The data is not JSON serializable");
    var settings = dictionary(init, "Failed to execute 'json' on 'Response': parameter 2"), headers = new Headers(settings.headers);
    if (!hasHeader(headersState(headers), 'content-type')) appendHeader(headersState(headers), 'Content-Type', 'application/json');
    return new Response(text, { status: settings.status, statusText: settings.statusText, headers: headers });
}, writable: true, enumerable: true, configurable: true });
['type', 'url', 'redirected', 'status', 'statusText', 'headers'].forEach(function (name) {
    defineGetter(Response.prototype, name, function () { return responseState(this)[name]; });
});
defineGetter(Response.prototype, 'ok', function () { var status = responseState(this).status; return status >= 200 && status <= 299; });
defineBody(Response.prototype);
defineMethods(Response.prototype, {
    clone: function clone() {
        var state = responseState(this), body = stateOf(this, BODY);
        if (bodyIsUsed(body)) throw new TypeErrorCtor("Failed to execute 'clone' on 'Response': Response body is already used");
        var second = cloneBody(body);
        return makeResponse(create(Response.prototype), copyState(state), second.bytes, second.stream);
    }
});
defineGlobal('Response', Response);

// --- fetch ----------------------------------------------------------------------------------------
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
            var description = record({ url: state.url, method: state.method, headers: flat, body: bytes === null ? undefined : bytes,
                redirect: state.redirect, timeout: state.timeout, credentials: state.credentials, cache: state.cache });
            body.used = bytes !== null || body.used;
            var id = send(description), transfer = record({ resolve: resolve, reject: reject, response: null, stream: null,
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
interfaces.push(ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController, Request, Response);

// The host's events for transfer `id`: 0 head (status, statusText, url, redirected, [name, value,
// …], type), 1 bytes waiting (to pull) or, at the end, a chunk (a Uint8Array), 2 end, 3 error
// (name, message).
return function onTransfer(id, kind, a, b, c, d, e, f) {
    var transfer = transfers[id];
    if (transfer === undefined) return;
    if (kind === 0) {
        var headers = new Headers(), list = headersState(headers).list;
        for (var i = 0; i + 1 < e.length; i += 2) hostAdd(list, [e[i], e[i + 1]]);
        headersState(headers).immutable = true;
        var empty = f === 'opaqueredirect' || isNullBodyStatus(a) || transfer.method === 'HEAD', stream = null;
        if (!empty) {
            stream = newStreamState(0);
            stream.onRead = function (chunk) { readBytes(id, chunk.length); };
            // The host keeps the body's bytes until the stream asks (a read finds the queue empty).
            stream.pull = function () {
                var bytes;
                try {
                    bytes = pullBytes(id);
                } catch (error) {  // the page's memory limit refused the chunk: the host ended the transfer
                    endTransfer(id);
                    throw new TypeErrorCtor('Failed to fetch: ' + error.message);
                }
                if (bytes !== undefined) enqueueChunk(stream, bytes);
            };
            stream.cancel = function () { if (endTransfer(id) !== undefined) cancelTransfer(id); };
        }
        transfer.stream = stream;
        transfer.response = makeResponse(create(Response.prototype), record({ type: f, url: c, redirected: d, status: a,
            statusText: b, headers: headers }), null, stream);
        transfer.resolve(transfer.response);
        // A response without a body (HEAD, a null-body status, a manual redirect): whatever the
        // connection still sends is nobody's, so the transfer ends here.
        if (stream === null && endTransfer(id) !== undefined) cancelTransfer(id);
    } else if (kind === 1) {
        // Without bytes: some wait on the host's side for a stream that wanted them, which pulls
        // them (under its own pulling guard). With bytes: the ones left at the end of the body.
        if (a === undefined) { if (transfer.stream !== null) pullIfNeeded(transfer.stream); }
        else if (transfer.stream === null || !enqueueChunk(transfer.stream, a)) readBytes(id, a.length);
    } else if (kind === 2) {
        endTransfer(id);
        if (transfer.response === null) transfer.reject(new TypeErrorCtor('Failed to fetch: the transfer ended without a response'));
        else if (transfer.stream !== null) closeStream(transfer.stream);
    } else {
        endTransfer(id);
        failTransfer(transfer, a === 'TimeoutError' ? domException(b, 'TimeoutError') : new TypeErrorCtor('Failed to fetch: ' + b));
    }
};
}

"""#
}
