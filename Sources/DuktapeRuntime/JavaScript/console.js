// `console`, in the browser's and Node's shape: log, info, warn, error, debug, trace, assert,
// count/countReset, time/timeLog/timeEnd, group/groupEnd, table and dir, written through
// `natives.write(level, text)` (Console.swift).
(function (global, primordials, natives, shared) {
'use strict';
var LEVEL_DEBUG = 0,
    LEVEL_LOG = 1,
    LEVEL_INFO = 2,
    LEVEL_WARN = 3,
    LEVEL_ERROR = 4,
    LEVEL_TRACE = 5,
    LEVEL_ASSERT = 6,
    keysOf = primordials.ObjectKeys,
    isArray = primordials.ArrayIsArray,
    create = primordials.ObjectCreate,
    Str = primordials.String,
    ErrorCtor = primordials.Error,
    write = natives.write,
    now = natives.now;
var append = shared.append, constructorName = shared.constructorName, format = shared.format, formatPrimitive = shared.formatPrimitive, hasOwn = shared.hasOwn, inspect = shared.inspect, joined = shared.joined, padEnd = shared.padEnd, repeat = shared.repeat, slice = shared.slice, split = shared.split, toFixed = shared.toFixed;

var indent = '';
function emit(level, text) {
    if (indent !== '') {
        var lines = split(text, '\n');
        text = indent + joined(lines, '\n' + indent);
    }
    write(level, text);
}
function argumentsList(args, from) {
    var list = [];
    for (var i = from; i < args.length; i++) append(list, args[i]);
    return list;
}
function label(value) { return value === undefined ? 'default' : Str(value); }
function elapsed(ms) {
    if (ms >= 1000) return toFixed(ms / 1000, 3) + 's';
    return toFixed(ms, 3) + 'ms';
}
function stackBelow(skip) {
    var stack;
    try { throw new ErrorCtor('trace'); } catch (e) { stack = e.stack; }
    var lines = typeof stack === 'string' ? split(stack, '\n') : [], out = '';
    for (var i = skip; i < lines.length; i++) if (lines[i] !== '') out += '\n    at ' + lines[i];
    return out;
}

var counts = create(null), timers = create(null);
var console = {
    log: function log() { emit(LEVEL_LOG, format(arguments)); },
    info: function info() { emit(LEVEL_INFO, format(arguments)); },
    debug: function debug() { emit(LEVEL_DEBUG, format(arguments)); },
    warn: function warn() { emit(LEVEL_WARN, format(arguments)); },
    error: function error() { emit(LEVEL_ERROR, format(arguments)); },
    trace: function trace() {
        var message = format(arguments);
        emit(LEVEL_TRACE, 'Trace' + (message !== '' ? ': ' + message : '') + stackBelow(2));
    },
    assert: function assert(condition) {
        if (condition) return;
        // As Node: the first argument is joined to the prefix as a string.
        var rest = argumentsList(arguments, 1);
        if (rest.length === 0) rest = ['Assertion failed'];
        else rest[0] = 'Assertion failed: ' + primordials.String(rest[0]);
        emit(LEVEL_ASSERT, format(rest));
    },
    count: function count(name) {
        name = label(name);
        counts[name] = (counts[name] || 0) + 1;
        emit(LEVEL_INFO, name + ': ' + counts[name]);
    },
    countReset: function countReset(name) {
        name = label(name);
        if (counts[name] === undefined) emit(LEVEL_WARN, "Count for '" + name + "' does not exist");
        else counts[name] = 0;
    },
    time: function time(name) {
        name = label(name);
        if (timers[name] !== undefined) { emit(LEVEL_WARN, "Warning: Label '" + name + "' already exists for console.time()"); return; }
        timers[name] = now();
    },
    timeLog: function timeLog(name) {
        name = label(name);
        if (timers[name] === undefined) { emit(LEVEL_WARN, "Warning: No such label '" + name + "' for console.timeLog()"); return; }
        var extra = argumentsList(arguments, 1);
        emit(LEVEL_INFO, name + ': ' + elapsed(now() - timers[name]) + (extra.length ? ' ' + format(extra) : ''));
    },
    timeEnd: function timeEnd(name) {
        name = label(name);
        if (timers[name] === undefined) { emit(LEVEL_WARN, "Warning: No such label '" + name + "' for console.timeEnd()"); return; }
        var started = timers[name];
        delete timers[name];
        emit(LEVEL_INFO, name + ': ' + elapsed(now() - started));
    },
    group: function group() {
        if (arguments.length > 0) emit(LEVEL_LOG, format(arguments));
        indent += '  ';
    },
    groupEnd: function groupEnd() { indent = slice(indent, 0, indent.length >= 2 ? indent.length - 2 : 0); },
    dir: function dir(value, options) { emit(LEVEL_LOG, inspect(value, options)); },
    table: function table(data, properties) {
        if (properties !== undefined && !isArray(properties)) {
            var wrong = new primordials.TypeError('The "properties" argument must be an instance of Array. Received ' +
                (properties === null ? 'null' : typeof properties === 'object' || typeof properties === 'function'
                    ? 'an instance of ' + (constructorName(properties) || 'Object') : 'type ' + typeof properties + ' (' + received(properties) + ')'));
            wrong.code = 'ERR_INVALID_ARG_TYPE';
            throw wrong;
        }
        if (data === null || typeof data !== 'object') { emit(LEVEL_LOG, format(arguments)); return; }
        emit(LEVEL_LOG, renderTable(data, properties));
    }
};
console.groupCollapsed = console.group;
console.dirxml = console.log;

// A primitive as Node's argument errors show it: inspected, cut at 25 characters.
function received(value) {
    var text = inspect(value, { colors: false });
    return text.length > 28 ? slice(text, 0, 25) + '...' : text;
}

function renderTable(data, properties) {
    // Rows are the data's own keys, as Node takes them (an array's holes are no rows).
    var rowKeys = keysOf(data), rows = [], columns = [], seen = create(null), hasValues = false, i, k;
    var count = rowKeys.length;
    function column(name) {
        if (seen[name] === true) return;
        seen[name] = true;
        append(columns, name);
    }
    for (i = 0; i < count; i++) {
        var key = rowKeys[i], row = data[key], cells = create(null), value = null;
        if (row !== null && typeof row === 'object' || typeof row === 'function') {
            var names = properties !== undefined ? properties : keysOf(row);
            for (k = 0; k < names.length; k++) {
                var name = Str(names[k]);
                if (properties === undefined || hasOwn(row, name)) {
                    column(name);
                    cells[name] = inspect(row[name], { depth: 1 });
                }
            }
        } else {
            value = formatPrimitive(row);
            hasValues = properties === undefined;  // chosen columns leave a primitive row empty, as Node does
        }
        append(rows, { index: Str(key), cells: cells, value: value });
    }
    if (properties !== undefined) {
        columns = [];
        seen = create(null);
        for (k = 0; k < properties.length; k++) column(Str(properties[k]));
    }
    var head = ['(index)'].concat(columns);
    if (hasValues) append(head, 'Values');
    var table = [];
    for (i = 0; i < rows.length; i++) {
        var line = [rows[i].index];
        for (k = 0; k < columns.length; k++) {
            var cell = rows[i].cells[columns[k]];
            append(line, cell === undefined ? '' : cell);
        }
        if (hasValues) append(line, rows[i].value === null ? '' : rows[i].value);
        append(table, line);
    }
    var widths = [];
    for (k = 0; k < head.length; k++) {
        var width = head[k].length;
        for (i = 0; i < table.length; i++) if (table[i][k].length > width) width = table[i][k].length;
        append(widths, width + 2);
    }
    function rule(left, middle, right) {
        var text = left;
        for (var w = 0; w < widths.length; w++) text += repeat('\u2500', widths[w]) + (w + 1 < widths.length ? middle : right);
        return text;
    }
    function render(cells) {
        var text = '\u2502';
        for (var w = 0; w < widths.length; w++) text += ' ' + padEnd(cells[w], widths[w] - 1) + '\u2502';
        return text;
    }
    var out = rule('\u250c', '\u252c', '\u2510') + '\n' + render(head) + '\n' + rule('\u251c', '\u253c', '\u2524');
    for (i = 0; i < table.length; i++) out += '\n' + render(table[i]);
    return out + '\n' + rule('\u2514', '\u2534', '\u2518');
}

return { console: console };
})
