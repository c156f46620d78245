// The part of Node's `assert` the Promises/A+ suite uses (strictEqual, notStrictEqual), with
// ok and equal: ES5, for `dukjs run`.
'use strict';

function AssertionError(message) {
    this.message = message;
    this.stack = new Error(message).stack;
}
AssertionError.prototype = Object.create(Error.prototype);
AssertionError.prototype.constructor = AssertionError;
AssertionError.prototype.name = 'AssertionError';

function show(value) {
    if (typeof value === 'string') return JSON.stringify(value);
    try { return String(value); } catch (e) { return Object.prototype.toString.call(value); }
}

function fail(actual, expected, operator, message) {
    throw new AssertionError(message || show(actual) + ' ' + operator + ' ' + show(expected));
}

function ok(value, message) { if (!value) fail(value, true, '==', message); }
ok.AssertionError = AssertionError;
ok.ok = ok;
ok.equal = function (actual, expected, message) { if (actual != expected) fail(actual, expected, '==', message); };
ok.strictEqual = function (actual, expected, message) { if (actual !== expected) fail(actual, expected, '===', message); };
ok.notStrictEqual = function (actual, expected, message) { if (actual === expected) fail(actual, expected, '!==', message); };

module.exports = ok;
