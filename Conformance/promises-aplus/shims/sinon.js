// The part of sinon the Promises/A+ suite uses: spy(), stub().returns(value) and
// .throws(error), match.same, and
// assert.calledWith / notCalled / callOrder. ES5, for `dukjs run`.
'use strict';

var calls = 0;  // the order of every call of every spy

function spy(body) {
    var fake = function () {
        var args = Array.prototype.slice.call(arguments);
        fake.calls.push({ args: args, order: ++calls });
        fake.callCount = fake.calls.length;
        fake.called = true;
        if (fake.hasThrow) throw fake.thrown;
        if (fake.hasReturn) return fake.returnsValue;
        return body ? body.apply(this, args) : undefined;
    };
    fake.calls = [];
    fake.callCount = 0;
    fake.called = false;
    fake.throws = function (error) {
        fake.hasThrow = true;
        fake.thrown = error;
        return fake;
    };
    fake.returns = function (value) {
        fake.hasReturn = true;
        fake.returnsValue = value;
        return fake;
    };
    return fake;
}

function AssertError(message) {
    this.message = message;
    this.stack = new Error(message).stack;
}
AssertError.prototype = Object.create(Error.prototype);
AssertError.prototype.name = 'AssertionError';

function matches(matcher, value) {
    return matcher && typeof matcher.test === 'function' ? matcher.test(value) : matcher === value;
}

module.exports = {
    spy: spy,
    stub: function () { return spy(); },
    match: {
        same: function (expected) { return { test: function (value) { return value === expected; } }; }
    },
    assert: {
        calledWith: function (fake) {
            var expected = Array.prototype.slice.call(arguments, 1);
            for (var i = 0; i < fake.calls.length; i++) {
                var args = fake.calls[i].args, all = true;
                for (var j = 0; j < expected.length; j++) if (!matches(expected[j], args[j])) all = false;
                if (all) return;
            }
            throw new AssertError('expected the spy to be called with the given arguments (' + fake.callCount + ' calls)');
        },
        notCalled: function (fake) {
            if (fake.called) throw new AssertError('expected the spy not to be called (' + fake.callCount + ' calls)');
        },
        callOrder: function () {
            var last = 0;
            for (var i = 0; i < arguments.length; i++) {
                var fake = arguments[i];
                if (!fake.called || fake.calls[0].order < last) throw new AssertError('the spies were not called in order');
                last = fake.calls[0].order;
            }
        }
    }
};
