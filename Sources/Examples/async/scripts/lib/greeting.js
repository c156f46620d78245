// A module required by main.js: CommonJS exports, loaded from the folder next to the example.
var count = 0;

exports.greet = function (name) {
    count += 1;
    return 'Hello, ' + name + '! (greeting #' + count + ')';
};
