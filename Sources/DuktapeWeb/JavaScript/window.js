// `window` and `self` (the global object), and `btoa`/`atob` (forgiving base64, natively: Duktape
// interns every intermediate string, so building strings byte by byte in script is quadratic).
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    base64Encode = natives.base64Encode,
    base64Decode = natives.base64Decode;
var defineGlobal = shared.defineGlobal, domException = shared.domException, requireArguments = shared.requireArguments, toDOMString = shared.toDOMString;

defineProperty(global, 'window', { value: global, writable: false, enumerable: true, configurable: false });
defineProperty(global, 'self', { value: global, writable: true, enumerable: true, configurable: true });

// --- btoa, atob -------------------------------------------------------------------------------
defineGlobal('btoa', function btoa(data) {
    requireArguments(arguments.length, 1, "Failed to execute 'btoa'");
    var encoded = base64Encode(toDOMString(data));
    if (encoded === undefined) {
        throw domException('The string to be encoded contains characters outside of the Latin1 range.', 'InvalidCharacterError');
    }
    return encoded;
});
defineGlobal('atob', function atob(data) {
    requireArguments(arguments.length, 1, "Failed to execute 'atob'");
    var decoded = base64Decode(toDOMString(data));
    if (decoded === undefined) throw domException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    return decoded;
});

return {  };
})
