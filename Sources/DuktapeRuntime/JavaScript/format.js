// console.log's formatting: printf-like specifiers (%s %d %i %f %o %O %j %c %%) in a first
// string argument, then the remaining arguments inspected.
(function (global, primordials, natives, shared) {
'use strict';
var Str = primordials.String,
    Num = primordials.Number,
    parseI = primordials.parseInt,
    parseF = primordials.parseFloat;
var charCode = shared.charCode, formatNumber = shared.formatNumber, inspect = shared.inspect, slice = shared.slice, symbolText = shared.symbolText, tryStringify = shared.tryStringify;

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

return { format: format };
})
