// TextEncoder and TextDecoder: UTF-8 (the byte work is native), `stream: true` across chunks,
// `fatal` and `ignoreBOM`.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    TypeErrorCtor = primordials.TypeError,
    RangeErrorCtor = primordials.RangeError,
    Uint8 = primordials.Uint8Array,
    ArrayBufferCtor = primordials.ArrayBuffer,
    isView = primordials.ArrayBufferIsView,
    utf8Encode = natives.utf8Encode,
    utf8Decode = natives.utf8Decode,
    utf8Fits = natives.utf8Fits,
    hidden = natives.hiddenKeys,
    toLower = primordials.StringPrototypeToLowerCase,
    replace = primordials.StringPrototypeReplace,
    slice = primordials.StringPrototypeSlice,
    setBytes = primordials.Uint8ArrayPrototypeSet,
    subarray = primordials.Uint8ArrayPrototypeSubarray,
    charCodeAt = primordials.StringPrototypeCharCodeAt;
var call = shared.call, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dictionary = shared.dictionary, own = shared.own, requireArguments = shared.requireArguments, requireNew = shared.requireNew, toDOMString = shared.toDOMString;

// A BufferSource (an ArrayBuffer or any view of one) as a Uint8Array over the same bytes.
function bytesOf(input, what) {
    if (input instanceof ArrayBufferCtor) return new Uint8(input);
    if (isView(input)) return new Uint8(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeErrorCtor(what + ": The provided value is not of type '(ArrayBuffer or ArrayBufferView)'");
}

function TextEncoder() {
    requireNew(this, TextEncoder, 'TextEncoder');
}
defineGetter(TextEncoder.prototype, 'encoding', function () { return 'utf-8'; });
defineMethods(TextEncoder.prototype, {
    encode: function encode(input) {
        return utf8Encode(input === undefined ? '' : toDOMString(input));
    },
    // As much of `source` as fits in `destination` without splitting a character.
    encodeInto: function encodeInto(source, destination) {
        requireArguments(arguments.length, 2, "Failed to execute 'encodeInto' on 'TextEncoder'");
        var text = toDOMString(source);
        if (!(destination instanceof Uint8)) {
            throw new TypeErrorCtor("Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'");
        }
        var read = utf8Fits(text, destination.length);
        var bytes = utf8Encode(call(slice, text, 0, read));
        call(setBytes, destination, bytes);
        return { read: read, written: bytes.length };
    }
});
defineGlobal('TextEncoder', TextEncoder);

var utf8Labels = setPrototypeOf({ 'unicode-1-1-utf-8': 1, 'unicode11utf8': 1, 'unicode20utf8': 1, 'utf-8': 1,
    'utf8': 1, 'x-unicode20utf8': 1 }, null);
var DECODER = hidden.decoder;
function decoderState(self) {
    var state = own(self, DECODER);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
// How many bytes at the end of `bytes` begin a UTF-8 sequence that later bytes may complete:
// they wait for the next chunk. Holding back more than needed would only delay them; the rule
// is exact for the longest sequence (4 bytes).
function incompleteTail(bytes) {
    var length = bytes.length;
    for (var back = 1; back <= 3 && back <= length; back++) {
        var byte = bytes[length - back];
        if ((byte & 0xC0) === 0x80) continue;
        var needed = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 && byte <= 0xEF ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 1;
        if (needed <= back) return 0;
        // A second byte outside the lead's range makes the sequence malformed already: it is
        // decoded (and replaced, or refused when fatal) now rather than a chunk later.
        if (back >= 2) {
            var second = bytes[length - back + 1];
            var low = byte === 0xE0 ? 0xA0 : byte === 0xF0 ? 0x90 : 0x80;
            var high = byte === 0xED ? 0x9F : byte === 0xF4 ? 0x8F : 0xBF;
            if (second < low || second > high) return 0;
        }
        return back;
    }
    return 0;
}
function concatBytes(first, second) {
    var joined = new Uint8(first.length + second.length);
    call(setBytes, joined, first);
    call(setBytes, joined, second, first.length);
    return joined;
}

// UTF-8 only (the encoding of every page this host runs); other labels are a RangeError.
function TextDecoder(label, options) {
    requireNew(this, TextDecoder, 'TextDecoder');
    var name = label === undefined ? 'utf-8' : call(toLower, call(replace, toDOMString(label), /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, ''));
    if (!utf8Labels[name]) {
        throw new RangeErrorCtor("Failed to construct 'TextDecoder': The encoding label provided ('" + name + "') is invalid.");
    }
    var settings = dictionary(options, "Failed to construct 'TextDecoder': parameter 2");
    defineProperty(this, DECODER, { value: {
        fatal: !!settings.fatal, ignoreBOM: !!settings.ignoreBOM, pending: null, bomSeen: false
    } });
}
defineGetter(TextDecoder.prototype, 'encoding', function () { decoderState(this); return 'utf-8'; });
defineGetter(TextDecoder.prototype, 'fatal', function () { return decoderState(this).fatal; });
defineGetter(TextDecoder.prototype, 'ignoreBOM', function () { return decoderState(this).ignoreBOM; });
defineMethods(TextDecoder.prototype, {
    decode: function decode(input, options) {
        var state = decoderState(this);
        var stream = !!dictionary(options, "Failed to execute 'decode' on 'TextDecoder': parameter 2").stream;
        var bytes = input === undefined ? new Uint8(0) : bytesOf(input, "Failed to execute 'decode' on 'TextDecoder'");
        if (state.pending !== null) {
            bytes = concatBytes(state.pending, bytes);
            state.pending = null;
        }
        var held = stream ? incompleteTail(bytes) : 0;
        if (held > 0) {
            state.pending = new Uint8(call(subarray, bytes, bytes.length - held));
            bytes = call(subarray, bytes, 0, bytes.length - held);
        }
        var text = utf8Decode(bytes, state.fatal);
        if (text === undefined) {
            state.pending = null;
            state.bomSeen = false;
            throw new TypeErrorCtor("Failed to execute 'decode' on 'TextDecoder': The encoded data was not valid.");
        }
        if (!state.ignoreBOM && !state.bomSeen && text.length > 0) {
            if (call(charCodeAt, text, 0) === 0xFEFF) text = call(slice, text, 1);
            state.bomSeen = true;
        }
        // The end of a stream: the next call starts a new one.
        if (!stream) state.bomSeen = false;
        return text;
    }
});
defineGlobal('TextDecoder', TextDecoder);

return { TextDecoder: TextDecoder, TextEncoder: TextEncoder, bytesOf: bytesOf };
})
