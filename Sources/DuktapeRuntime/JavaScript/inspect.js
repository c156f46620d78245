// Values rendered as Node's `util.inspect` renders them (Console.inspect, console.log's
// arguments): depth, cycles, `compact: 3` line breaking at 80 columns, typed arrays, errors.
(function (global, primordials, natives, shared) {
'use strict';
var keysOf = primordials.ObjectKeys,
    namesOf = primordials.ObjectGetOwnPropertyNames,
    descOf = primordials.ObjectGetOwnPropertyDescriptor,
    symbolsOf = primordials.ObjectGetOwnPropertySymbols,
    isArray = primordials.ArrayIsArray,
    stringify = primordials.JSONStringify,
    Str = primordials.String,
    Num = primordials.Number,
    floor = primordials.MathFloor,
    sqrt = primordials.MathSqrt,
    round = primordials.MathRound,
    isNaNValue = primordials.isNaN,
    ErrorCtor = primordials.Error,
    reflectApply = primordials.ReflectApply,
    arraySort = primordials.ArrayPrototypeSort,
    engineInfo = typeof Duktape === 'object' && Duktape !== null && typeof Duktape.info === 'function' ? Duktape.info : null,
    TypeErrorCtor = primordials.TypeError,
    identifier = /^[a-zA-Z_][a-zA-Z_0-9]*$/,
    indexKey = /^(0|[1-9][0-9]*)$/,
    typedArrayTag = /^\[object (Uint8|Int8|Uint8Clamped|Int16|Uint16|Int32|Uint32|Float32|Float64)Array\]$/,
    toStringTag = primordials.SymbolToStringTag,
    // Tags the branches after the collections' handle: an object with any other (Map, Set...,
    // or what a subclass's getter or a non-enumerable own Symbol.toStringTag says) may be one.
    otherTag = /^\[object (Object|Function|RegExp|Date|Error|Number|String|Boolean|Symbol|Arguments)\]$/;
// A promise's state and result (Console.swift's native: the engine's own slots, which no
// script can read), or null where the host gives none.
var promiseOf = typeof natives.promise === 'function' ? natives.promise : null;
var namedKeysOf = typeof natives.namedKeys === 'function' ? natives.namedKeys : null;
// A Map's or Set's size and first entries, or a WeakMap's or WeakSet's kind (Console.swift's
// native: found by the engine's own slot, so an object that only claims the tag is not one).
var collectionOf = typeof natives.collection === 'function' ? natives.collection : null, MAX_COLLECTION_ENTRIES = 100;
var append = shared.append, arrayClass = shared.arrayClass, boolValue = shared.boolValue, byteView = shared.byteView, constructorName = shared.constructorName, dateISO = shared.dateISO, dateTime = shared.dateTime, errorBase = shared.errorBase, formatNumber = shared.formatNumber, formatPrimitive = shared.formatPrimitive, functionBase = shared.functionBase, hasOwn = shared.hasOwn, indexOf = shared.indexOf, isEnumerable = shared.isEnumerable, joined = shared.joined, numToString = shared.numToString, numValue = shared.numValue, padEnd = shared.padEnd, padStart = shared.padStart, quote = shared.quote, regexpText = shared.regexpText, slice = shared.slice, spaces = shared.spaces, strValue = shared.strValue, symbolText = shared.symbolText, testRe = shared.testRe, toTag = shared.toTag;

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
    if (skipIndices && !ctx.showHidden && namedKeysOf !== null) {
        // From the host: the named keys without listing every index (Object.keys of a large
        // array makes a string for each element). undefined for a proxy.
        var named = namedKeysOf(value);
        if (named !== undefined) return named;
    }
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

// The Symbol.toStringTag Node shows in brackets after the constructor's name: a string that is
// not an own enumerable property (that one is listed with the keys), else ''.
function shownTag(ctx, value) {
    var tag;
    try {
        tag = value[toStringTag];
    } catch (e) {
        return '';
    }
    if (typeof tag !== 'string' || (tag !== '' && (ctx.showHidden ? hasOwn : isEnumerable)(value, toStringTag))) return '';
    return tag;
}

// Node's getPrefix: "Name(size) [Tag] ", or "[Fallback(size): null prototype] [Tag] ".
function prefixOf(name, tag, fallback, size) {
    if (name === null) return '[' + fallback + size + ': null prototype] ' + (tag !== '' && tag !== fallback ? '[' + tag + '] ' : '');
    return name + size + ' ' + (tag !== '' && tag !== name ? '[' + tag + '] ' : '');
}

function formatRaw(ctx, value, depth) {
    var tag = toTag(value), braces, base = '', keys, entries = null, isArrayLike = false, name, collection;
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
    } else if (tag === '[object Promise]' && promiseOf !== null && promiseOf(value) !== undefined) {
        // As Node shows them: Promise { 5 }, Promise { <pending> }, Promise { <rejected> Error… }.
        keys = ownKeys(ctx, value, false);
        name = constructorName(value);
        braces = [(name === null || name === 'Promise' ? 'Promise' : name + ' [Promise]') + ' {', '}'];
        entries = formatPromise;
    } else if (collectionOf !== null && (!testRe(otherTag, tag) || (tag === '[object Object]' && constructorName(value) === null)) &&
               (collection = collectionOf(value, MAX_COLLECTION_ENTRIES)) !== undefined) {
        // As Node shows them: Map(1) { 'a' => 1 }, Set(2) { 1, 2 }, WeakMap { <items unknown> }.
        keys = ownKeys(ctx, value, false);
        name = constructorName(value);
        var kind = collection.kind, sized = typeof collection.size === 'number' ? '(' + collection.size + ')' : '';
        var prefix = prefixOf(name, shownTag(ctx, value), kind, sized);
        braces = [prefix + '{', '}'];
        if (sized !== '' && collection.size === 0 && keys.length === 0) return prefix + '{}';
        entries = function (ctx, value, depth, output) { formatCollection(ctx, collection, depth, output); };
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
            var shown = shownTag(ctx, value);
            var prefix = name === 'Object' && shown === '' ? '' : prefixOf(name, shown, 'Object', '');
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
    var length = value.length, shown = 0, i = 0, limit = 100, indices = null, cursor = 0;
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
            // A long run of holes: jump to the next own index, from the array's own indices,
            // listed and sorted once (listing them again at each run was quadratic).
            if (indices === null) indices = sortedIndices(value);
            while (cursor < indices.length && indices[cursor] < i) cursor++;
            var next = cursor < indices.length && indices[cursor] < length ? indices[cursor] : length;
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

function formatPromise(ctx, value, depth, output) {
    var inspection = promiseOf(value);
    if (inspection.state === 'pending') {
        append(output, '<pending>');
        return;
    }
    ctx.indentationLvl += 2;
    var text = formatValue(ctx, inspection.result, depth + 1);
    ctx.indentationLvl -= 2;
    append(output, inspection.state === 'rejected' ? '<rejected> ' + text : text);
}

// The array's own index keys as numbers, ascending.
function sortedIndices(value) {
    var keys = keysOf(value), list = [];
    for (var k = 0; k < keys.length; k++) if (testRe(indexKey, keys[k])) append(list, Num(keys[k]));
    return reflectApply(arraySort, list, [function (a, b) { return a - b; }]);
}

function formatCollection(ctx, collection, depth, output) {
    if (typeof collection.size !== 'number') {
        append(output, '<items unknown>');
        return;
    }
    var list = collection.entries, isMap = collection.kind === 'Map', stride = isMap ? 2 : 1;
    ctx.indentationLvl += 2;
    for (var i = 0; i + stride <= list.length; i += stride) {
        append(output, isMap ? formatValue(ctx, list[i], depth + 1) + ' => ' + formatValue(ctx, list[i + 1], depth + 1)
                             : formatValue(ctx, list[i], depth + 1));
    }
    ctx.indentationLvl -= 2;
    var rest = collection.size - list.length / stride;
    if (rest > 0) append(output, '... ' + rest + ' more item' + (rest > 1 ? 's' : ''));
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
    // As Node: past 100 entries the last one (the "... more items" line, or the last of the
    // array's named properties after it) is left out of the columns and follows them.
    if (count > 100) count--;
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
        if (e instanceof TypeErrorCtor && indexOf(Str(e.message), 'cyclic') !== -1) return '[Circular]';
        throw e;
    }
}

return { inspect: inspect, tryStringify: tryStringify };
})
