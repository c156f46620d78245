/// The console and its renderer, in JavaScript (ES5, as Duktape runs it): rendering runs inside
/// the VM, under its time and memory limits, so logging a huge or hostile object costs the
/// script, never the host.
///
/// The source is a constant: evaluated once per context, it gives a factory taking the native
/// functions (`write(level, text)`, `now()` in milliseconds). The built-ins it uses are captured
/// when it is installed, so a script that replaces `Object.keys` or `JSON.stringify` does not
/// change how the console renders. Output follows Node 20's `util.inspect` (depth 2, break
/// length 80, `compact: 3`, arrays of more than six short items grouped in columns), with the
/// depth capped at 100.
enum ConsoleScript {
    /// The factory's source; `write` gets `ConsoleLevel` raw values.
    static let source = #"""
(function (write, now) {
'use strict';
var LEVEL_DEBUG = 0, LEVEL_LOG = 1, LEVEL_INFO = 2, LEVEL_WARN = 3, LEVEL_ERROR = 4, LEVEL_TRACE = 5, LEVEL_ASSERT = 6;
var apply = Reflect.apply;
function method(f) {
    return function (self, a, b, c) { return apply(f, self, arguments.length > 1 ? [a, b, c] : []); };
}
var O = Object, keysOf = O.keys, namesOf = O.getOwnPropertyNames, protoOf = O.getPrototypeOf,
    descOf = O.getOwnPropertyDescriptor, symbolsOf = O.getOwnPropertySymbols, isArray = Array.isArray,
    create = O.create, stringify = JSON.stringify, Str = String, Num = Number, parseI = parseInt,
    parseF = parseFloat, floor = Math.floor, sqrt = Math.sqrt, round = Math.round, isNaNValue = isNaN,
    ErrorCtor = Error;
var toTag = method(O.prototype.toString), hasOwn = method(O.prototype.hasOwnProperty),
    isEnumerable = method(O.prototype.propertyIsEnumerable),
    charCode = method(String.prototype.charCodeAt), slice = method(String.prototype.slice),
    indexOf = method(String.prototype.indexOf), repeat = method(String.prototype.repeat),
    split = method(String.prototype.split), toUpper = method(String.prototype.toUpperCase),
    numToString = method(Number.prototype.toString), toFixed = method(Number.prototype.toFixed),
    numValue = method(Number.prototype.valueOf), strValue = method(String.prototype.valueOf),
    boolValue = method(Boolean.prototype.valueOf), dateTime = method(Date.prototype.getTime),
    dateISO = method(Date.prototype.toISOString), regexpText = method(RegExp.prototype.toString),
    symbolText = method(Symbol.prototype.toString);
var byteView = function (buffer) { return new Uint8Array(buffer); };
// Duktape.info(value).enext: how many properties an object keeps outside its array part (its
// named properties and symbols, and indices only when sparse). Zero lets an array or typed
// array skip listing its keys, which costs a string for every element.
var engineInfo = typeof Duktape === 'object' && Duktape !== null && typeof Duktape.info === 'function' ? Duktape.info : null;
// An array's own class: a Proxy of an array passes Array.isArray, but its info is the proxy's.
var arrayClass = engineInfo !== null ? engineInfo([]).class : -1;
var TypeErrorCtor = TypeError;
var identifier = /^[a-zA-Z_][a-zA-Z_0-9]*$/, indexKey = /^(0|[1-9][0-9]*)$/,
    typedArrayTag = /^\[object (Uint8|Int8|Uint8Clamped|Int16|Uint16|Int32|Uint32|Float32|Float64)Array\]$/;
var testRe = method(RegExp.prototype.test);

function append(list, value) { list[list.length] = value; }
// Strings are built from pieces joined once: Duktape has no ropes, so `+=` in a loop would be
// quadratic in the output's length.
var joinArray = method(Array.prototype.join);
function joined(list, separator) { return joinArray(list, separator); }
function spaces(n) { return n > 0 ? repeat(' ', n) : ''; }
function padEnd(text, width) { return text + spaces(width - text.length); }
function padStart(text, width) { return spaces(width - text.length) + text; }
function hex(code, width) {
    var digits = toUpper(numToString(code, 16));
    return repeat('0', width > digits.length ? width - digits.length : 0) + digits;
}

// Strings: single quotes, unless the string has one and lacks double quotes (or backticks);
// longer than 10,000 characters, cut there with "... N more characters", as Node does.
var MAX_STRING_LENGTH = 10000;
function quote(text) {
    var rest = '';
    if (text.length > MAX_STRING_LENGTH) {
        var more = text.length - MAX_STRING_LENGTH;
        rest = '... ' + more + ' more character' + (more > 1 ? 's' : '');
        text = slice(text, 0, MAX_STRING_LENGTH);
    }
    var q = 39;
    if (indexOf(text, "'") !== -1) {
        if (indexOf(text, '"') === -1) q = 34;
        else if (indexOf(text, '`') === -1 && indexOf(text, '${') === -1) q = 96;
    }
    var out = [], start = 0;
    for (var i = 0; i < text.length; i++) {
        var c = charCode(text, i), escaped = null;
        if (c === q || c === 92) escaped = '\\' + Str.fromCharCode(c);
        else if (c === 10) escaped = '\\n';
        else if (c === 9) escaped = '\\t';
        else if (c === 13) escaped = '\\r';
        else if (c === 8) escaped = '\\b';
        else if (c === 12) escaped = '\\f';
        else if (c < 32 || c === 127) escaped = '\\x' + hex(c, 2);
        else if (c >= 0xD800 && c <= 0xDFFF) {
            var next = i + 1 < text.length ? charCode(text, i + 1) : 0;
            if (c <= 0xDBFF && next >= 0xDC00 && next <= 0xDFFF) { i++; continue; }
            escaped = '\\u' + hex(c, 4);
        }
        if (escaped !== null) {
            append(out, slice(text, start, i));
            append(out, escaped);
            start = i + 1;
        }
    }
    append(out, slice(text, start));
    var q1 = Str.fromCharCode(q);
    return q1 + joined(out, '') + q1 + rest;
}

function formatNumber(n) { return n === 0 && 1 / n < 0 ? '-0' : Str(n); }

function formatPrimitive(value) {
    switch (typeof value) {
    case 'string': return quote(value);
    case 'number': return formatNumber(value);
    case 'symbol': return symbolText(value);
    default: return Str(value);
    }
}

function constructorName(value) {
    var proto;
    try { proto = protoOf(value); } catch (e) { return 'Object'; }
    while (proto !== null) {
        var d = descOf(proto, 'constructor');
        if (d && typeof d.value === 'function' && typeof d.value.name === 'string' && d.value.name !== '') return d.value.name;
        proto = protoOf(proto);
    }
    return null;
}

function functionBase(value) {
    var name = descOf(value, 'name');
    name = name && typeof name.value === 'string' ? name.value : '';
    return name === '' ? '[Function (anonymous)]' : '[Function: ' + name + ']';
}

function errorBase(value) {
    var name, message, stack;
    try { name = value.name; message = value.message; stack = value.stack; } catch (e) { return '[Error]'; }
    var head = Str(name === undefined ? 'Error' : name);
    if (message !== undefined && Str(message) !== '') head += ': ' + Str(message);
    if (typeof stack !== 'string' || stack === '') return '[' + head + ']';
    var lines = split(stack, '\n'), out = head;
    for (var i = 0; i < lines.length; i++) {
        if (lines[i] !== '') out += '\n    at ' + lines[i];
    }
    return out;
}

function circularId(ctx, value) {
    for (var i = 0; i < ctx.circular.length; i++) if (ctx.circular[i] === value) return i + 1;
    return 0;
}

function formatValue(ctx, value, depth) {
    if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return formatPrimitive(value);
    for (var i = 0; i < ctx.seen.length; i++) {
        if (ctx.seen[i] === value) {
            var id = circularId(ctx, value);
            if (id === 0) { append(ctx.circular, value); id = ctx.circular.length; }
            return '[Circular *' + id + ']';
        }
    }
    return formatRaw(ctx, value, depth);
}

function ownKeys(ctx, value, skipIndices) {
    if (skipIndices && !ctx.showHidden && engineInfo !== null) {
        var info = engineInfo(value);
        if (info !== null && typeof info === 'object' && info.enext === 0 && (skipIndices !== 'array' || info.class === arrayClass)) return [];
    }
    var names = ctx.showHidden ? namesOf(value) : keysOf(value), keys = [];
    for (var i = 0; i < names.length; i++) {
        if (skipIndices && testRe(indexKey, names[i])) continue;
        if (skipIndices === 'array' && names[i] === 'length' && !ctx.showHidden) continue;
        append(keys, names[i]);
    }
    var symbols = symbolsOf(value);
    for (var j = 0; j < symbols.length; j++) {
        if (ctx.showHidden || isEnumerable(value, symbols[j])) append(keys, symbols[j]);
    }
    return keys;
}

function formatRaw(ctx, value, depth) {
    var tag = toTag(value), braces, base = '', keys, entries = null, isArrayLike = false, name;
    if (isArray(value)) {
        name = constructorName(value);
        keys = ownKeys(ctx, value, 'array');
        braces = [(name !== 'Array' ? (name === null ? '[Array(' + value.length + '): null prototype] ' : name + '(' + value.length + ') ') : '') + '[', ']'];
        isArrayLike = true;
        if (value.length === 0 && keys.length === 0) return braces[0] + ']';
        entries = formatArray;
    } else if (testRe(typedArrayTag, tag)) {
        name = constructorName(value) || slice(tag, 8, -1);
        keys = ownKeys(ctx, value, true);
        braces = [name + '(' + value.length + ') [', ']'];
        isArrayLike = true;
        if (value.length === 0 && keys.length === 0) return braces[0] + ']';
        entries = formatArray;
    } else if (tag === '[object ArrayBuffer]') {
        keys = ownKeys(ctx, value, false);
        braces = ['ArrayBuffer {', '}'];
        entries = formatArrayBuffer;
    } else {
        keys = ownKeys(ctx, value, false);
        if (typeof value === 'function') {
            base = functionBase(value);
            if (keys.length === 0) return base;
        } else if (tag === '[object RegExp]') {
            base = regexpText(value);
            if (keys.length === 0) return base;
        } else if (tag === '[object Date]') {
            var time = dateTime(value);
            base = isNaNValue(time) ? 'Invalid Date' : dateISO(value);
            if (keys.length === 0) return base;
        } else if (tag === '[object Error]' || value instanceof ErrorCtor) {
            base = errorBase(value);
            var visible = [];
            for (var k = 0; k < keys.length; k++) {
                if (keys[k] !== 'stack' && keys[k] !== 'message' && keys[k] !== 'lineNumber' && keys[k] !== 'fileName') append(visible, keys[k]);
            }
            keys = visible;
            if (keys.length === 0) return base;
        } else if (tag === '[object Number]') {
            base = '[Number: ' + formatNumber(numValue(value)) + ']';
            if (keys.length === 0) return base;
        } else if (tag === '[object String]') {
            base = '[String: ' + quote(strValue(value)) + ']';
            keys = ownKeys(ctx, value, true);
            var withoutLength = [];
            for (var s = 0; s < keys.length; s++) if (keys[s] !== 'length') append(withoutLength, keys[s]);
            keys = withoutLength;
            if (keys.length === 0) return base;
        } else if (tag === '[object Boolean]') {
            base = '[Boolean: ' + boolValue(value) + ']';
            if (keys.length === 0) return base;
        } else if (tag === '[object Symbol]') {
            base = '[Symbol: ' + symbolText(value.valueOf()) + ']';
            if (keys.length === 0) return base;
        }
        if (base === '') {
            name = constructorName(value);
            var prefix = name === null ? '[Object: null prototype] ' : (name === 'Object' ? '' : name + ' ');
            if (tag === '[object Promise]') prefix = 'Promise ';
            braces = [prefix + '{', '}'];
            if (keys.length === 0) return prefix + '{}';
        } else {
            braces = ['{', '}'];
        }
    }
    if (depth > ctx.depth) {
        return '[' + (isArrayLike ? (constructorName(value) || 'Array') : (constructorName(value) || 'Object')) + ']';
    }
    append(ctx.seen, value);
    ctx.currentDepth = depth;
    var output = [];
    if (entries !== null) entries(ctx, value, depth, output);
    for (var p = 0; p < keys.length; p++) append(output, formatProperty(ctx, value, depth, keys[p], false));
    ctx.seen.length = ctx.seen.length - 1;
    var id = circularId(ctx, value);
    if (id !== 0) {
        var reference = '<ref *' + id + '> ';
        if (base === '') braces[0] = reference + braces[0];
        else base = reference + base;
    }
    return reduceToSingleString(ctx, output, base, braces, isArrayLike, depth, value);
}

function formatProperty(ctx, value, depth, key, inArray) {
    // Own fields of the descriptor only: an `Object.prototype.get` must not make every
    // property an accessor.
    var desc = descOf(value, key), text;
    var hasGet = desc !== undefined && hasOwn(desc, 'get') && desc.get !== undefined;
    var hasSet = desc !== undefined && hasOwn(desc, 'set') && desc.set !== undefined;
    if (desc === undefined) desc = { value: value[key], enumerable: true };
    if (hasGet || hasSet) {
        text = hasGet ? (hasSet ? '[Getter/Setter]' : '[Getter]') : '[Setter]';
    } else {
        ctx.indentationLvl += 2;
        text = formatValue(ctx, desc.value, depth + 1);
        ctx.indentationLvl -= 2;
    }
    if (inArray) return text;
    var name;
    if (typeof key === 'symbol') name = '[' + symbolText(key) + ']';
    else if (testRe(identifier, key)) name = key;
    else name = quote(key);
    if (desc.enumerable === false) name = '[' + name + ']';
    return name + ': ' + text;
}

function formatArray(ctx, value, depth, output) {
    var length = value.length, shown = 0, i = 0, limit = 100;
    while (i < length && shown < limit) {
        if (hasOwn(value, i)) {
            append(output, formatProperty(ctx, value, depth, i, true));
            shown++;
            i++;
            continue;
        }
        var holes = 0;
        while (i < length && !hasOwn(value, i) && holes < 1000) { holes++; i++; }
        if (holes === 1000 && i < length && !hasOwn(value, i)) {
            // A long run of holes: jump to the next own index.
            var next = length, indices = keysOf(value);
            for (var k = 0; k < indices.length; k++) {
                if (testRe(indexKey, indices[k])) {
                    var n = Num(indices[k]);
                    if (n >= i && n < next) next = n;
                }
            }
            holes += next - i;
            i = next;
        }
        append(output, '<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>');
        shown++;
    }
    if (i < length) {
        var rest = length - i;
        append(output, '... ' + rest + ' more item' + (rest > 1 ? 's' : ''));
    }
}

function formatArrayBuffer(ctx, value, depth, output) {
    var bytes = byteView(value), text = '', count = bytes.length < 50 ? bytes.length : 50;
    for (var i = 0; i < count; i++) text += (i ? ' ' : '') + (bytes[i] < 16 ? '0' : '') + numToString(bytes[i], 16);
    if (bytes.length > 50) text += ' ... ' + (bytes.length - 50) + ' more byte' + (bytes.length - 50 > 1 ? 's' : '');
    append(output, '[Uint8Contents]: <' + text + '>');
    append(output, 'byteLength: ' + bytes.length);
}

// Arrays of more than six short entries are laid out in aligned columns.
function groupArrayElements(ctx, output, value) {
    var totalLength = 0, maxLength = 0, count = output.length, separatorSpace = 2, lengths = [];
    if (count > 0 && slice(output[count - 1], 0, 4) === '... ') count--;
    for (var i = 0; i < count; i++) {
        var len = output[i].length;
        lengths[i] = len;
        totalLength += len + separatorSpace;
        if (maxLength < len) maxLength = len;
    }
    var actualMax = maxLength + separatorSpace;
    if (!(actualMax * 3 + ctx.indentationLvl < ctx.breakLength && (totalLength / actualMax > 5 || maxLength <= 6))) return output;
    var averageBias = sqrt(actualMax - totalLength / output.length), biasedMax = actualMax - 3 - averageBias;
    if (biasedMax < 1) biasedMax = 1;
    var columns = round(sqrt(2.5 * biasedMax * count) / biasedMax);
    var byWidth = floor((ctx.breakLength - ctx.indentationLvl) / actualMax);
    if (byWidth < columns) columns = byWidth;
    if (ctx.compact * 4 < columns) columns = ctx.compact * 4;
    if (15 < columns) columns = 15;
    if (columns <= 1) return output;
    var widths = [];
    for (var c = 0; c < columns; c++) {
        var lineLength = 0;
        for (var j = c; j < count; j += columns) if (lengths[j] > lineLength) lineLength = lengths[j];
        append(widths, lineLength + separatorSpace);
    }
    var numeric = true;
    if (value !== undefined) {
        for (var v = 0; v < count; v++) if (typeof value[v] !== 'number') { numeric = false; break; }
    }
    var grouped = [];
    for (var row = 0; row < count; row += columns) {
        var end = row + columns < count ? row + columns : count, line = '', k = row;
        for (; k < end - 1; k++) {
            line += numeric ? padStart(output[k] + ', ', widths[k - row]) : padEnd(output[k] + ', ', widths[k - row]);
        }
        line += numeric ? padStart(output[k], widths[k - row] - separatorSpace) : output[k];
        append(grouped, line);
    }
    if (count < output.length) append(grouped, output[count]);
    return grouped;
}

function reduceToSingleString(ctx, output, base, braces, isArrayLike, depth, value) {
    var entries = output.length;
    if (isArrayLike && entries > 6) output = groupArrayElements(ctx, output, value);
    var head = base !== '' ? base + ' ' : '';
    if (ctx.currentDepth - depth < ctx.compact && entries === output.length) {
        var start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
        var total = output.length + start, fits = total + output.length <= ctx.breakLength;
        for (var i = 0; fits && i < output.length; i++) {
            total += output[i].length;
            if (total > ctx.breakLength) fits = false;
        }
        if (fits && indexOf(base, '\n') === -1) {
            var line = joined(output, ', ');
            if (indexOf(line, '\n') === -1) return head + braces[0] + ' ' + line + ' ' + braces[1];
        }
    }
    var indentation = '\n' + spaces(ctx.indentationLvl);
    return head + braces[0] + indentation + '  ' + joined(output, ',' + indentation + '  ') + indentation + braces[1];
}

function inspect(value, options) {
    var ctx = {
        seen: [], circular: [], indentationLvl: 0, currentDepth: 0, breakLength: 80, compact: 3,
        // Depth is capped at 100 levels: cycle detection scans the objects being rendered
        // (Duktape has no Set), so unbounded depth would be quadratic in the nesting.
        depth: options && typeof options.depth === 'number' ? (options.depth > 100 ? 100 : options.depth) : (options && options.depth === null ? 100 : 2),
        showHidden: !!(options && options.showHidden)
    };
    return formatValue(ctx, value, 0);
}

function tryStringify(value) {
    try { return stringify(value); } catch (e) {
        if (e instanceof TypeError && indexOf(Str(e.message), 'cyclic') !== -1) return '[Circular]';
        throw e;
    }
}

// console.log's formatting: printf-like specifiers in a first string argument, then the
// remaining arguments inspected (strings as they are), separated by spaces.
function format(args) {
    var first = args[0], used = 0, text = '', separator = '';
    if (typeof first === 'string') {
        if (args.length === 1) return first;
        var lastPos = 0, piece;
        for (var i = 0; i < first.length - 1; i++) {
            if (charCode(first, i) !== 37) continue;
            var c = charCode(first, ++i);
            if (used + 1 !== args.length) {
                switch (c) {
                case 115: // %s
                    var arg = args[++used];
                    if (typeof arg === 'number') piece = formatNumber(arg);
                    else if (typeof arg === 'object' && arg !== null || typeof arg === 'function') piece = inspect(arg, { depth: 0 });
                    else piece = typeof arg === 'symbol' ? symbolText(arg) : Str(arg);
                    break;
                case 106: piece = tryStringify(args[++used]); break; // %j
                case 100: // %d
                    var n = args[++used];
                    piece = typeof n === 'symbol' ? 'NaN' : formatNumber(Num(n));
                    break;
                case 79: piece = inspect(args[++used]); break; // %O
                case 111: piece = inspect(args[++used], { showHidden: true, depth: 4 }); break; // %o
                case 105: // %i
                    var whole = args[++used];
                    piece = typeof whole === 'symbol' ? 'NaN' : formatNumber(parseI(whole));
                    break;
                case 102: // %f
                    var real = args[++used];
                    piece = typeof real === 'symbol' ? 'NaN' : formatNumber(parseF(real));
                    break;
                case 99: used++; piece = ''; break; // %c: CSS, ignored
                case 37: text += slice(first, lastPos, i); lastPos = i + 1; continue; // %%
                default: continue;
                }
                if (lastPos !== i - 1) text += slice(first, lastPos, i - 1);
                text += piece;
                lastPos = i + 1;
            } else if (c === 37) {
                text += slice(first, lastPos, i);
                lastPos = i + 1;
            }
        }
        if (lastPos !== 0) {
            used++;
            separator = ' ';
            if (lastPos < first.length) text += slice(first, lastPos);
        }
    }
    for (; used < args.length; used++) {
        var value = args[used];
        text += separator + (typeof value === 'string' ? value : inspect(value));
        separator = ' ';
    }
    return text;
}

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
        else rest[0] = 'Assertion failed: ' + Str(rest[0]);
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
            var wrong = new TypeErrorCtor('The "properties" argument must be an instance of Array. Received ' +
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

return { console: console, inspect: inspect, format: function (list) { return format(list); } };
})
"""#
}
