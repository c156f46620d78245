// Blob, File and FormData: bytes made once; FormData's entries for multipart bodies.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    apply = primordials.ReflectApply,
    TypeErrorCtor = primordials.TypeError,
    Sym = primordials.Symbol,
    Uint8 = primordials.Uint8Array,
    ArrayBufferCtor = primordials.ArrayBuffer,
    isView = primordials.ArrayBufferIsView,
    dateNow = primordials.DateNow,
    utf8Encode = natives.utf8Encode,
    utf8Decode = natives.utf8Decode,
    hidden = natives.hiddenKeys,
    replace = primordials.StringPrototypeReplace,
    slice = primordials.StringPrototypeSlice,
    setBytes = primordials.Uint8ArrayPrototypeSet,
    subarray = primordials.Uint8ArrayPrototypeSubarray,
    charCodeAt = primordials.StringPrototypeCharCodeAt,
    testPattern = primordials.RegExpPrototypeTest;
var bytesOf = shared.bytesOf, call = shared.call, defineGetter = shared.defineGetter, defineGlobal = shared.defineGlobal, defineMethods = shared.defineMethods, dictionary = shared.dictionary, hostAdd = shared.hostAdd, hostList = shared.hostList, lower = shared.lower, own = shared.own, publicArray = shared.publicArray, requireArguments = shared.requireArguments, requireNew = shared.requireNew, toDOMString = shared.toDOMString, toUSVString = shared.toUSVString;

// A Blob keeps its bytes in one Uint8Array of its own (strings as UTF-8, buffers and blobs
// copied); the host reads them as Data when a body is sent.
var BLOB = hidden.blob, FILE = hidden.file, FORM = hidden.form, PromiseCtor = primordials.Promise,
    printableASCII = /^[\x20-\x7E]*$/, lineBreaks = /\r\n|\r/g, floor = primordials.MathFloor, ceil = primordials.MathCeil,
    max = primordials.MathMax, min = primordials.MathMin;
function blobState(self) {
    var state = own(self, BLOB);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function blobType(value) {
    var text = value === undefined ? '' : toDOMString(value);
    return apply(testPattern, printableASCII, [text]) ? lower(text) : '';
}
function bytesOfParts(parts, native) {
    if (parts === undefined) return new Uint8(0);
    if (parts === null || typeof parts !== 'object') {
        throw new TypeErrorCtor("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
    }
    var chunks = hostList(), total = 0, i;
    for (i = 0; i < parts.length; i++) {
        var part = parts[i], bytes, blob = own(part, BLOB);
        if (blob !== undefined) bytes = blob.bytes;
        else if (part instanceof ArrayBufferCtor || isView(part)) bytes = bytesOf(part, "Failed to construct 'Blob'");
        else {
            var text = toDOMString(part);
            if (native) text = call(replace, text, lineBreaks, '\n');
            bytes = utf8Encode(text);
        }
        hostAdd(chunks, bytes);
        total += bytes.length;
    }
    var joined = new Uint8(total), offset = 0;
    for (i = 0; i < chunks.length; i++) {
        call(setBytes, joined, chunks[i], offset);
        offset += chunks[i].length;
    }
    return joined;
}
function makeBlob(self, bytes, type) {
    defineProperty(self, BLOB, { value: { bytes: bytes, type: type } });
}
function Blob(parts, options) {
    requireNew(this, Blob, 'Blob');
    var settings = dictionary(options, "Failed to construct 'Blob': parameter 2");
    makeBlob(this, bytesOfParts(parts, settings.endings === 'native'), blobType(settings.type));
}
defineGetter(Blob.prototype, 'size', function () { return blobState(this).bytes.length; });
defineGetter(Blob.prototype, 'type', function () { return blobState(this).type; });
// A relative index as slice() reads it: negative from the end, clamped to [0, size].
function relativeIndex(value, size, fallback) {
    if (value === undefined) return fallback;
    var number = +value;
    number = number !== number ? 0 : number < 0 ? ceil(number) : floor(number);
    return number < 0 ? max(size + number, 0) : min(number, size);
}
defineMethods(Blob.prototype, {
    slice: function slice(start, end, contentType) {
        var state = blobState(this), size = state.bytes.length;
        var from = relativeIndex(start, size, 0), to = relativeIndex(end, size, size);
        var blob = create(Blob.prototype);
        makeBlob(blob, new Uint8(call(subarray, state.bytes, from, max(from, to))), blobType(contentType));
        return blob;
    },
    text: function text() {
        var state = blobState(this);
        return new PromiseCtor(function (resolve) {
            var decoded = utf8Decode(state.bytes, false);
            resolve(call(charCodeAt, decoded, 0) === 0xFEFF ? call(slice, decoded, 1) : decoded);  // UTF-8 decode drops a BOM
        });
    },
    arrayBuffer: function arrayBuffer() {
        var state = blobState(this);
        return new PromiseCtor(function (resolve) { resolve(new Uint8(state.bytes).buffer); });
    },
    bytes: function bytes() {
        var state = blobState(this);
        return new PromiseCtor(function (resolve) { resolve(new Uint8(state.bytes)); });
    }
});
defineGlobal('Blob', Blob);

function File(bits, name, options) {
    requireNew(this, File, 'File');
    requireArguments(arguments.length, 2, "Failed to construct 'File'");
    var settings = dictionary(options, "Failed to construct 'File': parameter 3");
    makeBlob(this, bytesOfParts(bits, settings.endings === 'native'), blobType(settings.type));
    var lastModified = settings.lastModified === undefined ? dateNow() : +settings.lastModified;
    defineProperty(this, FILE, { value: { name: toUSVString(name), lastModified: lastModified === lastModified ? lastModified : 0 } });
}
File.prototype = create(Blob.prototype);
defineProperty(File.prototype, 'constructor', { value: File, writable: true, configurable: true });
function fileState(self) {
    var state = own(self, FILE);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
defineGetter(File.prototype, 'name', function () { return fileState(this).name; });
defineGetter(File.prototype, 'lastModified', function () { return fileState(this).lastModified; });
defineGlobal('File', File);

// A FormData entry's value: a string, or a File (a Blob becomes a File named "blob", or the
// filename given).
function formValue(value, filename) {
    var blob = own(value, BLOB);
    if (blob === undefined) return toUSVString(value);
    var file = own(value, FILE);
    if (file !== undefined && filename === undefined) return value;
    var name = filename !== undefined ? toUSVString(filename) : file !== undefined ? file.name : 'blob';
    return new File([value], name, { type: blob.type, lastModified: file !== undefined ? file.lastModified : undefined });
}
function formState(self) {
    var state = own(self, FORM);
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
}
function FormData(form) {
    requireNew(this, FormData, 'FormData');
    if (form !== undefined) throw new TypeErrorCtor("Failed to construct 'FormData': there are no HTML forms in this host");
    defineProperty(this, FORM, { value: { entries: hostList() } });
}
function formIterator(state, kind) {
    var index = 0;
    var iterator = {
        next: function next() {
            if (index >= state.entries.length) return { value: undefined, done: true };
            var entry = state.entries[index++];
            return { value: kind === 'keys' ? entry[0] : kind === 'values' ? entry[1] : publicArray(entry), done: false };
        }
    };
    defineProperty(iterator, Sym.iterator, { value: function () { return iterator; } });
    return iterator;
}
defineMethods(FormData.prototype, {
    append: function append(name, value, filename) {
        requireArguments(arguments.length, 2, "Failed to execute 'append' on 'FormData'");
        var entry = [toUSVString(name), formValue(value, filename)];  // converted first: a conversion may change the list
        hostAdd(formState(this).entries, entry);
    },
    'delete': function (name) {
        requireArguments(arguments.length, 1, "Failed to execute 'delete' on 'FormData'");
        var state = formState(this), key = toUSVString(name), kept = hostList();
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] !== key) hostAdd(kept, state.entries[i]);
        state.entries = kept;
    },
    get: function get(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'get' on 'FormData'");
        var state = formState(this), key = toUSVString(name);
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] === key) return state.entries[i][1];
        return null;
    },
    getAll: function getAll(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'getAll' on 'FormData'");
        var state = formState(this), key = toUSVString(name), values = hostList();
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] === key) hostAdd(values, state.entries[i][1]);
        return publicArray(values);
    },
    has: function has(name) {
        requireArguments(arguments.length, 1, "Failed to execute 'has' on 'FormData'");
        var state = formState(this), key = toUSVString(name);
        for (var i = 0; i < state.entries.length; i++) if (state.entries[i][0] === key) return true;
        return false;
    },
    set: function set(name, value, filename) {
        requireArguments(arguments.length, 2, "Failed to execute 'set' on 'FormData'");
        var state = formState(this), key = toUSVString(name), entry = [key, formValue(value, filename)], kept = hostList(), found = false;
        for (var i = 0; i < state.entries.length; i++) {
            if (state.entries[i][0] !== key) hostAdd(kept, state.entries[i]);
            else if (!found) { hostAdd(kept, entry); found = true; }
        }
        if (!found) hostAdd(kept, entry);
        state.entries = kept;
    },
    forEach: function forEach(callback, thisArg) {
        var state = formState(this);
        if (typeof callback !== 'function') throw new TypeErrorCtor("Failed to execute 'forEach' on 'FormData': parameter 1 is not a function");
        for (var i = 0; i < state.entries.length; i++) apply(callback, thisArg, [state.entries[i][1], state.entries[i][0], this]);
    },
    keys: function keys() { return formIterator(formState(this), 'keys'); },
    values: function values() { return formIterator(formState(this), 'values'); },
    entries: function entries() { return formIterator(formState(this), 'entries'); }
});
defineProperty(FormData.prototype, Sym.iterator, { value: FormData.prototype.entries, writable: true, configurable: true });
defineGlobal('FormData', FormData);

return { Blob: Blob, File: File, FormData: FormData, blobType: blobType, formState: formState, makeBlob: makeBlob };
})
