// Bodies of requests and responses: strings, buffers, blobs, URLSearchParams and FormData (as
// multipart/form-data) made into bytes once; `text()`, `json()`, `arrayBuffer()`, `blob()`,
// `formData()`, `body`, `bodyUsed`, `clone()`.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    TypeErrorCtor = primordials.TypeError,
    Uint8 = primordials.Uint8Array,
    ArrayBufferCtor = primordials.ArrayBuffer,
    isView = primordials.ArrayBufferIsView,
    utf8Encode = natives.utf8Encode,
    formSerialize = natives.formSerialize,
    hidden = natives.hiddenKeys,
    keysOf = primordials.ObjectKeys,
    replace = primordials.StringPrototypeReplace,
    PARAMS = hidden.params,
    BLOB = hidden.blob,
    FILE = hidden.file,
    FORM = hidden.form,
    floor = primordials.MathFloor,
    decodeText = natives.fetch.decodeText,
    JSONParse = primordials.JSONParse,
    random = primordials.MathRandom,
    STREAM = hidden.stream,
    BODY = hidden.body,
    REQUEST = hidden.request,
    RESPONSE = hidden.response,
    charAt = primordials.StringPrototypeCharAt;
var Blob = shared.Blob, FormData = shared.FormData, Headers = shared.Headers, blobType = shared.blobType, bytesOf = shared.bytesOf, bytesStream = shared.bytesStream, call = shared.call, combinedValue = shared.combinedValue, defineGetter = shared.defineGetter, defineMethods = shared.defineMethods, formState = shared.formState, headersState = shared.headersState, hostAdd = shared.hostAdd, hostList = shared.hostList, joinChunks = shared.joinChunks, lower = shared.lower, makeBlob = shared.makeBlob, own = shared.own, parsePairs = shared.parsePairs, readAll = shared.readAll, record = shared.record, rejectedWith = shared.rejectedWith, resolvedWith = shared.resolvedWith, stateOf = shared.stateOf, streamObject = shared.streamObject, teeState = shared.teeState, toUSVString = shared.toUSVString, whenSettled = shared.whenSettled;

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
        return consumeBody(this, 'arrayBuffer', function (bytes) { return new primordials.Uint8Array(bytes).buffer; });
    },
    bytes: function bytes() {
        return consumeBody(this, 'bytes', function (data) { return new primordials.Uint8Array(data); });
    },
    blob: function blob() {
        return consumeBody(this, 'blob', function (bytes, type) {
            var result = create(Blob.prototype);
            makeBlob(result, new primordials.Uint8Array(bytes), type === null ? '' : blobType(type));
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
                throw new primordials.TypeError("Failed to execute 'formData': only application/x-www-form-urlencoded bodies can be read as FormData by this host");
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

return { bodyIsUsed: bodyIsUsed, cloneBody: cloneBody, copyState: copyState, defineBody: defineBody, extractBody: extractBody, makeBody: makeBody };
})
