// DOMException: an Error (a stack, `instanceof Error`) with WebIDL's names and legacy codes.
(function (global, primordials, natives, shared) {
'use strict';
var defineProperty = primordials.ObjectDefineProperty,
    create = primordials.ObjectCreate,
    setPrototypeOf = primordials.ObjectSetPrototypeOf,
    getPrototypeOf = primordials.ObjectGetPrototypeOf,
    ErrorCtor = primordials.Error;
var defineGlobal = shared.defineGlobal, requireNew = shared.requireNew, toDOMString = shared.toDOMString;

var legacyCodes = setPrototypeOf({
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
    NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25
}, null);
var codeConstants = ['INDEX_SIZE_ERR', 1, 'DOMSTRING_SIZE_ERR', 2, 'HIERARCHY_REQUEST_ERR', 3,
    'WRONG_DOCUMENT_ERR', 4, 'INVALID_CHARACTER_ERR', 5, 'NO_DATA_ALLOWED_ERR', 6,
    'NO_MODIFICATION_ALLOWED_ERR', 7, 'NOT_FOUND_ERR', 8, 'NOT_SUPPORTED_ERR', 9, 'INUSE_ATTRIBUTE_ERR', 10,
    'INVALID_STATE_ERR', 11, 'SYNTAX_ERR', 12, 'INVALID_MODIFICATION_ERR', 13, 'NAMESPACE_ERR', 14,
    'INVALID_ACCESS_ERR', 15, 'VALIDATION_ERR', 16, 'TYPE_MISMATCH_ERR', 17, 'SECURITY_ERR', 18,
    'NETWORK_ERR', 19, 'ABORT_ERR', 20, 'URL_MISMATCH_ERR', 21, 'QUOTA_EXCEEDED_ERR', 22, 'TIMEOUT_ERR', 23,
    'INVALID_NODE_TYPE_ERR', 24, 'DATA_CLONE_ERR', 25];

// An Error (so that it has a stack and `instanceof Error` holds) whose prototype is
// DOMException.prototype; `name`, `message` and `code` are own, non-enumerable properties.
function DOMException(message, name) {
    requireNew(this, DOMException, 'DOMException');
    var error = new ErrorCtor(message === undefined ? '' : toDOMString(message));
    var errorName = name === undefined ? 'Error' : toDOMString(name);
    setPrototypeOf(error, getPrototypeOf(this));
    defineProperty(error, 'name', { value: errorName, writable: true, enumerable: false, configurable: true });
    defineProperty(error, 'code', { value: legacyCodes[errorName] || 0, writable: true, enumerable: false, configurable: true });
    return error;
}
DOMException.prototype = create(ErrorCtor.prototype);
defineProperty(DOMException.prototype, 'constructor', { value: DOMException, writable: true, configurable: true });
defineProperty(DOMException.prototype, 'name', { value: 'Error', writable: true, configurable: true });
for (var c = 0; c < codeConstants.length; c += 2) {
    defineProperty(DOMException, codeConstants[c], { value: codeConstants[c + 1], enumerable: true });
    defineProperty(DOMException.prototype, codeConstants[c], { value: codeConstants[c + 1], enumerable: true });
}
defineGlobal('DOMException', DOMException);
function domException(message, name) { return new DOMException(message, name); }

return { DOMException: DOMException, domException: domException };
})
