// Request: the URL resolved against the page's, the method, headers, body and modes (`redirect`,
// `credentials`, `cache`, `signal`, and `timeout`, ours).
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    urlParse = natives.urlParse,
    hidden = natives.hiddenKeys,
    testPattern = primordials.RegExpPrototypeTest,
    tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/,
    SIGNAL = hidden.signal,
    documentURL = natives.fetch.documentURL,
    toUpperCase = primordials.StringPrototypeToUpperCase,
    BODY = hidden.body,
    REQUEST = hidden.request;
var Headers = shared.Headers, appendHeader = shared.appendHeader, bodyIsUsed = shared.bodyIsUsed, cloneBody = shared.cloneBody, copyState = shared.copyState, defineBody = shared.defineBody, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dictionary = shared.dictionary, extractBody = shared.extractBody, hasHeader = shared.hasHeader, headersState = shared.headersState, makeBody = shared.makeBody, newSignal = shared.newSignal, own = shared.own, record = shared.record, requireArguments = shared.requireArguments, requireNew = shared.requireNew, stateOf = shared.stateOf, toDOMString = shared.toDOMString, toUSVString = shared.toUSVString;

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

return { Request: Request, parseRequestURL: parseRequestURL, requestState: requestState };
})
