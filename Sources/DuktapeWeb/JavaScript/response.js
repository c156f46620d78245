// Response: its constructor, `Response.error()`, `Response.redirect()` and `Response.json()`.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    RangeErrorCtor = primordials.RangeError,
    hidden = natives.hiddenKeys,
    testPattern = primordials.RegExpPrototypeTest,
    floor = primordials.MathFloor,
    ceil = primordials.MathCeil,
    JSONStringify = primordials.JSONStringify,
    BODY = hidden.body,
    RESPONSE = hidden.response;
var Headers = shared.Headers, appendHeader = shared.appendHeader, bodyIsUsed = shared.bodyIsUsed, cloneBody = shared.cloneBody, copyState = shared.copyState, defineBody = shared.defineBody, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dictionary = shared.dictionary, extractBody = shared.extractBody, hasHeader = shared.hasHeader, headersState = shared.headersState, makeBody = shared.makeBody, parseRequestURL = shared.parseRequestURL, record = shared.record, requireArguments = shared.requireArguments, requireNew = shared.requireNew, stateOf = shared.stateOf, toDOMString = shared.toDOMString;

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

return { Response: Response, isNullBodyStatus: isNullBodyStatus, makeResponse: makeResponse };
})
