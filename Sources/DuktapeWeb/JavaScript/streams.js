// ReadableStream, its default reader and controller (fetch's bodies; PageSeam.fetch runs this
// file first when the page has a network), and the promise helpers fetch's files share.
//
// A response body is a ReadableStream whose source is the host: a read that finds the queue
// empty pulls the bytes the host holds (all that arrived since, up to a megabyte), or waits for
// the next ones; the host stops reading the network while more than a megabyte is unread
// (FetchTransfer.swift).
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    RangeErrorCtor = primordials.RangeError,
    Uint8 = primordials.Uint8Array,
    hidden = natives.hiddenKeys,
    setBytes = primordials.Uint8ArrayPrototypeSet,
    PromiseCtor = primordials.Promise;
var call = shared.call, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dictionary = shared.dictionary, hostAdd = shared.hostAdd, hostList = shared.hostList, own = shared.own, publicArray = shared.publicArray, requireArguments = shared.requireArguments, requireNew = shared.requireNew, toDOMString = shared.toDOMString;

var then = primordials.PromisePrototypeThen,
    promiseResolve = primordials.PromiseResolve,
    promiseReject = primordials.PromiseReject,
    STREAM = hidden.stream,
    READER = hidden.reader,
    CONTROLLER_STATE = hidden.streamController;
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

return { ReadableStream: ReadableStream, ReadableStreamDefaultController: ReadableStreamDefaultController, ReadableStreamDefaultReader: ReadableStreamDefaultReader, bytesStream: bytesStream, closeStream: closeStream, enqueueChunk: enqueueChunk, errorStream: errorStream, joinChunks: joinChunks, newStreamState: newStreamState, pullIfNeeded: pullIfNeeded, readAll: readAll, record: record, rejectedWith: rejectedWith, resolvedWith: resolvedWith, stateOf: stateOf, streamObject: streamObject, teeState: teeState, whenSettled: whenSettled };
})
