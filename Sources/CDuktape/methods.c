/*
 * The ES2015–ES2022 methods that Duktape 2.7's built-ins lack, in C on Duktape's public API:
 * Array.from/of and Array.prototype.includes, find, findIndex, findLast, findLastIndex, fill,
 * flat, flatMap, copyWithin, at; Object.entries, values, fromEntries, getOwnPropertyDescriptors,
 * hasOwn; String.prototype.padStart, padEnd, trimStart, trimEnd, at, matchAll, normalize and
 * String.raw; the missing Math functions; Symbol.asyncIterator and Symbol.prototype.description;
 * Reflect.get and Reflect.set with a receiver; and the array methods of typed arrays. Each is made
 * on first use (lazy.c). The algorithms are the spec's, generic where the spec's are (array-likes),
 * with two simplifications the README lists: no @@species (results are plain arrays, or typed
 * arrays of the receiver's own type) and String.prototype.normalize through the host's Unicode
 * tables (cduk_set_normalizer).
 */
#include "cduk_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CDUK__SYMBOL_ITERATOR DUK_WELLKNOWN_SYMBOL("Symbol.iterator")
#define CDUK__MAX_SAFE 9007199254740991.0
#define CDUK__I_REGEXP DUK_HIDDEN_SYMBOL("MatchAllRegExp")
#define CDUK__I_STRING DUK_HIDDEN_SYMBOL("MatchAllString")
#define CDUK__STASH_MATCH_ALL_PROTO "RegExpStringIteratorPrototype"

/* ---- Conversions ------------------------------------------------------------------------- */

/* ToIntegerOrInfinity of the value at idx (undefined is 0). */
static double cduk__to_integer(duk_context *ctx, duk_idx_t idx) {
    double number = duk_to_number(ctx, idx);
    if (isnan(number)) {
        return 0;
    }
    return isinf(number) ? number : trunc(number);
}

/* ToLength of obj.length. */
static double cduk__length_of(duk_context *ctx, duk_idx_t obj) {
    duk_get_prop_literal(ctx, obj, "length");
    double length = cduk__to_integer(ctx, -1);
    duk_pop(ctx);
    return length <= 0 ? 0 : (length > CDUK__MAX_SAFE ? CDUK__MAX_SAFE : length);
}

/* A relative index (start/end arguments): negative counts from `length`; clamped to [0, length].
 * `fallback` when the argument is undefined. */
static double cduk__relative(duk_context *ctx, duk_idx_t idx, double length, double fallback) {
    if (duk_is_undefined(ctx, idx)) {
        return fallback;
    }
    double relative = cduk__to_integer(ctx, idx);
    if (relative < 0) {
        return relative + length < 0 ? 0 : relative + length;
    }
    return relative > length ? length : relative;
}

/* [] -> [ToObject(this)]; a TypeError naming `method` for undefined and null. */
static void cduk__push_this_object(duk_context *ctx, const char *method) {
    duk_push_this(ctx);
    if (duk_is_null_or_undefined(ctx, -1)) {
        (void) cduk_type_error(ctx, "%s called on null or undefined", method);
    }
    duk_to_object(ctx, -1);
}

/* [] -> [ToString(this)] (RequireObjectCoercible first). */
static void cduk__push_this_string(duk_context *ctx, const char *method) {
    duk_push_this(ctx);
    if (duk_is_null_or_undefined(ctx, -1)) {
        (void) cduk_type_error(ctx, "String.prototype.%s called on null or undefined", method);
    }
    duk_to_string(ctx, -1);
}

static void cduk__push_index(duk_context *ctx, double index) { duk_push_number(ctx, index); }

/* ToPropertyKey in place (a symbol stays a symbol). */
static void cduk__to_property_key(duk_context *ctx, duk_idx_t idx) {
    if (!duk_is_symbol(ctx, idx)) {
        duk_to_string(ctx, idx);
    }
}

/* obj[index] for any index up to 2^53 (duk_*_prop_index takes 32 bits: a larger index is a
 * number key). [] -> [value] and [value] -> []. */
static void cduk__get_at(duk_context *ctx, duk_idx_t obj, double index) {
    if (index >= 0 && index <= 4294967294.0) {
        duk_get_prop_index(ctx, obj, (duk_uarridx_t) index);
        return;
    }
    obj = duk_normalize_index(ctx, obj);
    duk_push_number(ctx, index);
    duk_get_prop(ctx, obj);
}

static void cduk__put_at(duk_context *ctx, duk_idx_t obj, double index) {
    obj = duk_normalize_index(ctx, obj);
    if (index >= 0 && index <= 4294967294.0) {
        duk_put_prop_index(ctx, obj, (duk_uarridx_t) index);
        return;
    }
    duk_push_number(ctx, index);
    duk_swap_top(ctx, -2);
    duk_put_prop(ctx, obj);
}

/* SameValueZero of the values at a and b. */
static int cduk__same_value_zero(duk_context *ctx, duk_idx_t a, duk_idx_t b) {
    if (duk_is_number(ctx, a) && duk_is_number(ctx, b)) {
        double x = duk_get_number(ctx, a), y = duk_get_number(ctx, b);
        return (isnan(x) && isnan(y)) || x == y;
    }
    return duk_strict_equals(ctx, a, b);
}

/* obj[index] = value on top, as CreateDataPropertyOrThrow (consumes the value). */
static void cduk__create_data_property(duk_context *ctx, duk_idx_t obj, double index) {
    obj = duk_normalize_index(ctx, obj);
    cduk__push_index(ctx, index);
    duk_insert(ctx, -2);
    duk_def_prop(ctx, obj, CDUK_DEFINE_DATA);
}

/* [] -> [the callback at idx], or a TypeError naming `method`. */
static void cduk__require_callable(duk_context *ctx, duk_idx_t idx, const char *method) {
    if (!duk_is_callable(ctx, idx)) {
        (void) cduk_type_error(ctx, "%s: %s is not a function", method, duk_safe_to_string(ctx, idx));
    }
}

/* ---- Array ---------------------------------------------------------------------------------- */

typedef struct {
    duk_idx_t target;
    duk_idx_t map_fn; /* or -1 */
    duk_idx_t this_arg;
} cduk__from_call;

static void cduk__from_item(duk_context *ctx, void *udata, double index) {
    const cduk__from_call *call = (const cduk__from_call *) udata;
    if (call->map_fn >= 0) {
        duk_dup(ctx, call->map_fn);
        duk_dup(ctx, call->this_arg);
        duk_dup(ctx, -3);
        cduk__push_index(ctx, index);
        duk_call_method(ctx, 2);
        duk_remove(ctx, -2);
    }
    cduk__create_data_property(ctx, call->target, index);
}

/* [] -> [new C(length...)] when `this` is a constructor, else [a new array]. */
static void cduk__push_new_from_this(duk_context *ctx, duk_idx_t this_idx, int with_length, double length) {
    if (duk_is_constructable(ctx, this_idx)) {
        duk_dup(ctx, this_idx);
        if (with_length) {
            duk_push_number(ctx, length);
        }
        duk_new(ctx, with_length ? 1 : 0);
    } else {
        duk_push_array(ctx);
    }
}

/* Array.from(items, mapFn, thisArg) */
static duk_ret_t cduk__array_from(duk_context *ctx) {
    duk_set_top(ctx, 3);
    duk_push_this(ctx); /* [items mapFn thisArg C] */
    cduk__from_call call = { 0, -1, 2 };
    if (!duk_is_undefined(ctx, 1)) {
        cduk__require_callable(ctx, 1, "Array.from");
        call.map_fn = 1;
    }
    if (duk_is_null_or_undefined(ctx, 0)) {
        return cduk_type_error(ctx, "Array.from: %s is not iterable or array-like", duk_safe_to_string(ctx, 0));
    }
    duk_push_string(ctx, CDUK__SYMBOL_ITERATOR);
    duk_get_prop(ctx, 0); /* [.. method] */
    int iterable = !duk_is_null_or_undefined(ctx, -1);
    duk_pop(ctx);
    if (iterable) {
        cduk__push_new_from_this(ctx, 3, 0, 0); /* [.. A] */
        call.target = 4;
        double count = cduk_for_each_item(ctx, 0, cduk__from_item, &call);
        duk_push_number(ctx, count);
        duk_put_prop_literal(ctx, 4, "length");
        return 1;
    }
    duk_dup(ctx, 0);
    duk_to_object(ctx, -1);
    duk_replace(ctx, 0);
    double length = cduk__length_of(ctx, 0);
    cduk__push_new_from_this(ctx, 3, 1, length);
    call.target = 4;
    for (double k = 0; k < length; k++) {
        cduk__get_at(ctx, 0, k);
        cduk__from_item(ctx, &call, k);
    }
    duk_push_number(ctx, length);
    duk_put_prop_literal(ctx, 4, "length");
    return 1;
}

/* Array.of(...items) */
static duk_ret_t cduk__array_of(duk_context *ctx) {
    duk_idx_t count = duk_get_top(ctx);
    duk_push_this(ctx);
    cduk__push_new_from_this(ctx, count, 1, count);
    for (duk_idx_t i = 0; i < count; i++) {
        duk_dup(ctx, i);
        cduk__create_data_property(ctx, count + 1, i);
    }
    duk_push_int(ctx, count);
    duk_put_prop_literal(ctx, count + 1, "length");
    return 1;
}

/* Array.prototype.includes(searchElement, fromIndex) */
static duk_ret_t cduk__array_includes(duk_context *ctx) {
    duk_set_top(ctx, 2);
    cduk__push_this_object(ctx, "Array.prototype.includes"); /* [search from O] */
    double length = cduk__length_of(ctx, 2);
    if (length == 0) {
        duk_push_false(ctx);
        return 1;
    }
    double k = cduk__relative(ctx, 1, length, 0);
    for (; k < length; k++) {
        cduk__get_at(ctx, 2, k);
        int same = cduk__same_value_zero(ctx, -1, 0);
        duk_pop(ctx);
        if (same) {
            duk_push_true(ctx);
            return 1;
        }
    }
    duk_push_false(ctx);
    return 1;
}

/* find, findIndex, findLast, findLastIndex: magic bit 0 = gives the index, bit 1 = from the end. */
static duk_ret_t cduk__array_find(duk_context *ctx) {
    int magic = duk_get_current_magic(ctx);
    duk_set_top(ctx, 2);
    cduk__push_this_object(ctx, "Array.prototype.find"); /* [predicate thisArg O] */
    double length = cduk__length_of(ctx, 2);
    cduk__require_callable(ctx, 0, "Array.prototype.find");
    for (double i = 0; i < length; i++) {
        double k = (magic & 2) ? length - 1 - i : i;
        cduk__get_at(ctx, 2, k); /* [.. value] */
        duk_dup(ctx, 0);
        duk_dup(ctx, 1);
        duk_dup(ctx, -3);
        duk_push_number(ctx, k);
        duk_dup(ctx, 2);
        duk_call_method(ctx, 3);
        if (duk_to_boolean(ctx, -1)) {
            if (magic & 1) {
                duk_push_number(ctx, k);
            } else {
                duk_pop(ctx);
            }
            return 1;
        }
        duk_pop_2(ctx);
    }
    if (magic & 1) {
        duk_push_int(ctx, -1);
        return 1;
    }
    return 0;
}

/* Array.prototype.fill(value, start, end) */
static duk_ret_t cduk__array_fill(duk_context *ctx) {
    duk_set_top(ctx, 3);
    cduk__push_this_object(ctx, "Array.prototype.fill"); /* [value start end O] */
    double length = cduk__length_of(ctx, 3);
    double k = cduk__relative(ctx, 1, length, 0), end = cduk__relative(ctx, 2, length, length);
    for (; k < end; k++) {
        duk_dup(ctx, 0);
        cduk__put_at(ctx, 3, k);
    }
    return 1;
}

/* Array.prototype.at(index) and String.prototype.at: magic 1 for strings. */
static duk_ret_t cduk__at(duk_context *ctx) {
    int string = duk_get_current_magic(ctx);
    duk_set_top(ctx, 1);
    double length;
    if (string) {
        cduk__push_this_string(ctx, "at");
        length = (double) duk_get_length(ctx, 1);
    } else {
        cduk__push_this_object(ctx, "Array.prototype.at");
        length = cduk__length_of(ctx, 1);
    }
    double k = cduk__to_integer(ctx, 0);
    if (k < 0) {
        k += length;
    }
    if (k < 0 || k >= length) {
        return 0;
    }
    if (string) {
        duk_substring(ctx, 1, (duk_size_t) k, (duk_size_t) k + 1);
    } else {
        cduk__get_at(ctx, 1, k);
    }
    return 1;
}

/* FlattenIntoArray: appends source[0..length) into target from *index, depth levels deep. */
static void cduk__flatten(duk_context *ctx, duk_idx_t target, duk_idx_t source, double length, double *index,
                          double depth, duk_idx_t map_fn, duk_idx_t this_arg) {
    duk_require_stack(ctx, 8);
    for (double k = 0; k < length; k++) {
        duk_push_number(ctx, k);
        if (!duk_has_prop(ctx, source)) {
            continue;
        }
        cduk__get_at(ctx, source, k);
        if (map_fn >= 0) {
            duk_dup(ctx, map_fn);
            duk_dup(ctx, this_arg);
            duk_dup(ctx, -3);
            duk_push_number(ctx, k);
            duk_dup(ctx, source);
            duk_call_method(ctx, 3);
            duk_remove(ctx, -2);
        }
        if (depth > 0 && duk_is_array(ctx, -1)) {
            duk_idx_t element = duk_get_top_index(ctx);
            cduk__flatten(ctx, target, element, cduk__length_of(ctx, element), index, depth - 1, -1, -1);
            duk_pop(ctx);
        } else {
            cduk__create_data_property(ctx, target, (*index)++);
        }
    }
}

/* Array.prototype.flat(depth), flatMap(mapper, thisArg): magic 1 for flatMap. */
static duk_ret_t cduk__array_flat(duk_context *ctx) {
    int flat_map = duk_get_current_magic(ctx);
    duk_set_top(ctx, 2);
    cduk__push_this_object(ctx, flat_map ? "Array.prototype.flatMap" : "Array.prototype.flat"); /* [a b O] */
    double length = cduk__length_of(ctx, 2);
    double depth = 1;
    if (flat_map) {
        cduk__require_callable(ctx, 0, "Array.prototype.flatMap");
    } else if (!duk_is_undefined(ctx, 0)) {
        depth = cduk__to_integer(ctx, 0);
        if (depth < 0) {
            depth = 0;
        }
    }
    duk_push_array(ctx); /* [a b O A] */
    double index = 0;
    /* Nesting deeper than the native stack allows ends in a RangeError (the stack guard). */
    cduk__flatten(ctx, 3, 2, length, &index, depth, flat_map ? 0 : -1, flat_map ? 1 : -1);
    return 1;
}

/* Array.prototype.copyWithin(target, start, end) */
static duk_ret_t cduk__array_copy_within(duk_context *ctx) {
    duk_set_top(ctx, 3);
    cduk__push_this_object(ctx, "Array.prototype.copyWithin"); /* [target start end O] */
    double length = cduk__length_of(ctx, 3);
    double to = cduk__relative(ctx, 0, length, 0);
    double from = cduk__relative(ctx, 1, length, 0);
    double final = cduk__relative(ctx, 2, length, length);
    double count = fmin(final - from, length - to);
    double direction = 1;
    if (from < to && to < from + count) {
        direction = -1;
        from += count - 1;
        to += count - 1;
    }
    for (; count > 0; count--, from += direction, to += direction) {
        duk_push_number(ctx, from);
        if (duk_has_prop(ctx, 3)) {
            cduk__get_at(ctx, 3, from);
            cduk__put_at(ctx, 3, to);
        } else {
            duk_push_number(ctx, to);
            duk_del_prop(ctx, 3);
        }
    }
    return 1;
}

/* ---- Object --------------------------------------------------------------------------------- */

/* Object.keys, entries, values: magic 1 entries, 2 values. Own enumerable string keys in order. */
static duk_ret_t cduk__object_entries(duk_context *ctx) {
    int kind = duk_get_current_magic(ctx);
    duk_set_top(ctx, 1);
    if (duk_is_null_or_undefined(ctx, 0)) {
        return cduk_type_error(ctx, "Object.%s called on null or undefined", kind == 1 ? "entries" : "values");
    }
    duk_to_object(ctx, 0);
    duk_push_array(ctx); /* [O result] */
    duk_enum(ctx, 0, DUK_ENUM_OWN_PROPERTIES_ONLY | DUK_ENUM_SORT_ARRAY_INDICES);
    duk_uarridx_t index = 0;
    while (duk_next(ctx, 2, 0)) { /* [O result enum key] */
        /* A property deleted or made non-enumerable by an earlier getter is skipped (the spec
         * reads the descriptor again). */
        duk_dup(ctx, -1);
        cduk_get_prop_desc(ctx, 0);
        int present = duk_is_object(ctx, -1);
        if (present) {
            duk_get_prop_literal(ctx, -1, "enumerable");
            present = duk_to_boolean(ctx, -1);
            duk_pop(ctx);
        }
        duk_pop(ctx);
        if (!present) {
            duk_pop(ctx);
            continue;
        }
        duk_dup(ctx, -1);
        duk_get_prop(ctx, 0); /* [O result enum key value] */
        if (kind == 1) {
            duk_dup(ctx, -2);
            duk_swap_top(ctx, -2);
            cduk_push_pair(ctx);
        }
        cduk_define_index(ctx, 1, index++);
        duk_pop(ctx);
    }
    duk_pop(ctx);
    return 1;
}

typedef struct {
    duk_idx_t target;
} cduk__from_entries_call;

static void cduk__from_entries_item(duk_context *ctx, void *udata, double index) {
    (void) index;
    const cduk__from_entries_call *call = (const cduk__from_entries_call *) udata;
    if (!duk_is_object(ctx, -1)) {
        (void) cduk_type_error(ctx, "Object.fromEntries: iterator value %s is not an entry object",
                              duk_safe_to_string(ctx, -1));
    }
    duk_get_prop_index(ctx, -1, 0);
    cduk__to_property_key(ctx, -1);
    duk_get_prop_index(ctx, -2, 1); /* [entry key value] */
    duk_def_prop(ctx, call->target, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_SET_ENUMERABLE |
                                        DUK_DEFPROP_SET_CONFIGURABLE);
    duk_pop(ctx);
}

/* Object.fromEntries(iterable) */
static duk_ret_t cduk__object_from_entries(duk_context *ctx) {
    duk_set_top(ctx, 1);
    if (duk_is_null_or_undefined(ctx, 0)) {
        return cduk_type_error(ctx, "Object.fromEntries: %s is not iterable", duk_safe_to_string(ctx, 0));
    }
    duk_push_object(ctx);
    cduk__from_entries_call call = { 1 };
    (void) cduk_for_each_item(ctx, 0, cduk__from_entries_item, &call);
    return 1;
}

/* Object.getOwnPropertyDescriptor(O, P) (magic 0) and Reflect.getOwnPropertyDescriptor (magic 1,
 * which takes objects only): Duktape's fill the descriptor by assignment, so a setter a script
 * put on Object.prototype ("value", "get"...) ran and the descriptor lacked that key; this one is
 * made by definition (cduk_get_prop_desc). */
static duk_ret_t cduk__object_descriptor(duk_context *ctx) {
    duk_set_top(ctx, 2);
    if (duk_get_current_magic(ctx) == 0) {
        duk_to_object(ctx, 0);
    } else if (!duk_is_object(ctx, 0)) {
        return cduk_type_error(ctx, "Reflect.getOwnPropertyDescriptor called on a non-object");
    }
    cduk_get_own_prop_desc(ctx, 0);
    return 1;
}

/* Object.getOwnPropertyDescriptors(O) */
static duk_ret_t cduk__object_descriptors(duk_context *ctx) {
    duk_set_top(ctx, 1);
    if (duk_is_null_or_undefined(ctx, 0)) {
        return cduk_type_error(ctx, "Object.getOwnPropertyDescriptors called on null or undefined");
    }
    duk_to_object(ctx, 0);
    duk_push_object(ctx);
    duk_enum(ctx, 0, DUK_ENUM_OWN_PROPERTIES_ONLY | DUK_ENUM_INCLUDE_NONENUMERABLE | DUK_ENUM_INCLUDE_SYMBOLS |
                         DUK_ENUM_SORT_ARRAY_INDICES);
    while (duk_next(ctx, 2, 0)) { /* [O result enum key] */
        duk_dup(ctx, -1);
        cduk_get_own_prop_desc(ctx, 0);
        if (duk_is_undefined(ctx, -1)) {
            duk_pop_2(ctx);
            continue;
        }
        duk_def_prop(ctx, 1, CDUK_DEFINE_DATA);
    }
    duk_pop(ctx);
    return 1;
}

/* Object.hasOwn(O, P) */
static duk_ret_t cduk__object_has_own(duk_context *ctx) {
    duk_set_top(ctx, 2);
    if (duk_is_null_or_undefined(ctx, 0)) {
        return cduk_type_error(ctx, "Object.hasOwn called on null or undefined");
    }
    duk_to_object(ctx, 0);
    duk_dup(ctx, 1);
    cduk__to_property_key(ctx, -1);
    cduk_get_prop_desc(ctx, 0);
    duk_push_boolean(ctx, !duk_is_undefined(ctx, -1));
    return 1;
}

/* ---- String --------------------------------------------------------------------------------- */

/* padStart, padEnd: magic 1 for padEnd. */
static duk_ret_t cduk__string_pad(duk_context *ctx) {
    int at_end = duk_get_current_magic(ctx);
    duk_set_top(ctx, 2);
    cduk__push_this_string(ctx, at_end ? "padEnd" : "padStart"); /* [maxLength fill S] */
    double length = (double) duk_get_length(ctx, 2);
    double max_length = cduk__to_integer(ctx, 0);
    if (max_length > CDUK__MAX_SAFE) {
        max_length = CDUK__MAX_SAFE;
    }
    if (max_length <= length) {
        return 1;
    }
    if (duk_is_undefined(ctx, 1)) {
        duk_push_literal(ctx, " ");
        duk_replace(ctx, 1);
    } else {
        duk_to_string(ctx, 1);
    }
    double fill_length = max_length - length;
    double filler_length = (double) duk_get_length(ctx, 1);
    if (filler_length == 0) {
        return 1;
    }
    /* Doubling: log2(n) concatenations; a length beyond the heap ends in its RangeError. */
    duk_dup(ctx, 1); /* [.. S fill] */
    while (filler_length < fill_length) {
        duk_dup_top(ctx);
        duk_concat(ctx, 2);
        filler_length *= 2;
    }
    duk_substring(ctx, -1, 0, (duk_size_t) fill_length);
    if (at_end) {
        duk_concat(ctx, 2);
    } else {
        duk_swap_top(ctx, -2);
        duk_concat(ctx, 2);
    }
    return 1;
}

/* WhiteSpace or LineTerminator (ES2020 11.2, 11.3). */
static int cduk__is_space(duk_codepoint_t c) {
    switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xA0: case 0x1680: case 0x2028:
    case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF: return 1;
    default: return c >= 0x2000 && c <= 0x200A;
    }
}

/* trimStart, trimEnd: magic 1 for trimEnd. */
static duk_ret_t cduk__string_trim(duk_context *ctx) {
    int at_end = duk_get_current_magic(ctx);
    cduk__push_this_string(ctx, at_end ? "trimEnd" : "trimStart");
    duk_size_t length = duk_get_length(ctx, -1), start = 0, end = length;
    if (at_end) {
        while (end > 0 && cduk__is_space(duk_char_code_at(ctx, -1, end - 1))) {
            end--;
        }
    } else {
        while (start < length && cduk__is_space(duk_char_code_at(ctx, -1, start))) {
            start++;
        }
    }
    duk_substring(ctx, -1, start, end);
    return 1;
}

static duk_ret_t cduk__match_all_next(duk_context *ctx);

/* String.prototype.matchAll(regexp) */
static duk_ret_t cduk__string_match_all(duk_context *ctx) {
    duk_set_top(ctx, 1);
    cduk__push_this_string(ctx, "matchAll"); /* [regexp S] */
    duk_push_global_object(ctx);
    duk_get_prop_literal(ctx, -1, "RegExp");
    duk_remove(ctx, -2); /* [regexp S RegExp] */
    if (duk_is_object(ctx, 0) && duk_instanceof(ctx, 0, 2)) {
        duk_get_prop_literal(ctx, 0, "flags");
        const char *flags = duk_is_undefined(ctx, -1) ? NULL : duk_to_string(ctx, -1);
        if (flags == NULL) {
            duk_pop(ctx);
            duk_get_prop_literal(ctx, 0, "global");
            int global = duk_to_boolean(ctx, -1);
            duk_pop(ctx);
            duk_push_sprintf(ctx, "%s%s%s", global ? "g" : "", "", "");
            duk_get_prop_literal(ctx, 0, "ignoreCase");
            if (duk_to_boolean(ctx, -1)) {
                duk_pop(ctx);
                duk_push_literal(ctx, "i");
                duk_concat(ctx, 2);
            } else {
                duk_pop(ctx);
            }
            duk_get_prop_literal(ctx, 0, "multiline");
            if (duk_to_boolean(ctx, -1)) {
                duk_pop(ctx);
                duk_push_literal(ctx, "m");
                duk_concat(ctx, 2);
            } else {
                duk_pop(ctx);
            }
            flags = duk_get_string(ctx, -1);
        }
        if (flags == NULL || strchr(flags, 'g') == NULL) {
            return cduk_type_error(ctx, "String.prototype.matchAll called with a non-global RegExp argument");
        }
        /* [regexp S RegExp flags] -> a clone: new RegExp(regexp.source, flags), lastIndex copied. */
        duk_dup(ctx, 2);
        duk_get_prop_literal(ctx, 0, "source");
        duk_dup(ctx, 3);
        duk_new(ctx, 2); /* [regexp S RegExp flags R] */
        duk_get_prop_literal(ctx, 0, "lastIndex");
        duk_put_prop_literal(ctx, -2, "lastIndex");
    } else {
        duk_dup(ctx, 2);
        if (duk_is_undefined(ctx, 0)) {
            duk_push_literal(ctx, "(?:)");
        } else {
            duk_dup(ctx, 0);
            duk_to_string(ctx, -1);
        }
        duk_push_literal(ctx, "g");
        duk_new(ctx, 2);
    }
    /* [.. R] -> the iterator */
    duk_push_object(ctx);
    duk_push_global_stash(ctx);
    duk_get_prop_literal(ctx, -1, CDUK__STASH_MATCH_ALL_PROTO);
    if (!duk_is_object(ctx, -1)) {
        duk_pop(ctx);
        duk_push_object(ctx);
        cduk_push_iterator_prototype(ctx);
        duk_set_prototype(ctx, -2);
        duk_push_literal(ctx, "next");
        duk_push_c_function(ctx, cduk__match_all_next, 0);
        duk_push_literal(ctx, "name");
        duk_push_literal(ctx, "next");
        duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_FORCE);
        duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_SET_CONFIGURABLE);
        cduk_push_to_string_tag_symbol(ctx);
        duk_push_literal(ctx, "RegExp String Iterator");
        duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_CONFIGURABLE);
        duk_dup_top(ctx);
        duk_put_prop_literal(ctx, -3, CDUK__STASH_MATCH_ALL_PROTO);
    }
    duk_remove(ctx, -2);
    duk_set_prototype(ctx, -2); /* [.. R iterator] */
    duk_swap_top(ctx, -2);
    cduk_put_own_hidden(ctx, -2, CDUK__I_REGEXP);
    duk_dup(ctx, 1);
    cduk_put_own_hidden(ctx, -2, CDUK__I_STRING);
    return 1;
}

static duk_ret_t cduk__match_all_next(duk_context *ctx) {
    duk_push_this(ctx); /* [this] */
    if (!duk_is_object(ctx, 0)) {
        return cduk_type_error(ctx, "next called on an object that is not a RegExp String Iterator");
    }
    cduk_get_own_hidden(ctx, 0, CDUK__I_STRING); /* [this S] */
    if (!duk_is_string(ctx, 1)) {
        cduk_get_own_hidden(ctx, 0, CDUK__I_REGEXP);
        if (!duk_is_object(ctx, -1)) {
            return cduk_type_error(ctx, "next called on an object that is not a RegExp String Iterator");
        }
        duk_push_undefined(ctx);
        cduk_push_iter_result(ctx, 1);
        return 1;
    }
    cduk_get_own_hidden(ctx, 0, CDUK__I_REGEXP); /* [this S R] */
    duk_push_literal(ctx, "exec");
    duk_dup(ctx, 1);
    duk_call_prop(ctx, 2, 1); /* [this S R match] */
    if (duk_is_null(ctx, -1)) {
        duk_push_undefined(ctx);
        cduk_put_own_hidden(ctx, 0, CDUK__I_STRING);
        duk_push_undefined(ctx);
        cduk_push_iter_result(ctx, 1);
        return 1;
    }
    duk_get_prop_index(ctx, -1, 0);
    duk_to_string(ctx, -1);
    if (duk_get_length(ctx, -1) == 0) {
        /* An empty match: advance lastIndex by one, or the iterator would not end. */
        duk_get_prop_literal(ctx, 2, "lastIndex");
        double last = cduk__to_integer(ctx, -1);
        duk_pop(ctx);
        duk_push_number(ctx, last + 1);
        duk_put_prop_literal(ctx, 2, "lastIndex");
    }
    duk_pop(ctx);
    cduk_push_iter_result(ctx, 0);
    return 1;
}

/* String.raw(callSite, ...substitutions) */
static duk_ret_t cduk__string_raw(duk_context *ctx) {
    duk_idx_t count = duk_get_top(ctx);
    if (count == 0 || duk_is_null_or_undefined(ctx, 0)) {
        return cduk_type_error(ctx, "String.raw: the call site is not an object");
    }
    duk_dup(ctx, 0);
    duk_to_object(ctx, -1);
    duk_get_prop_literal(ctx, -1, "raw");
    if (duk_is_null_or_undefined(ctx, -1)) {
        return cduk_type_error(ctx, "String.raw: the call site has no raw strings");
    }
    duk_to_object(ctx, -1);
    duk_idx_t raw = duk_get_top_index(ctx);
    double segments = cduk__length_of(ctx, raw);
    /* Pieces are joined 64 at a time into chunks, kept in an array and joined once at the end:
     * joining the result so far again every 64 pieces was quadratic in the length. */
    duk_idx_t chunks = duk_push_bare_array(ctx);
    duk_uarridx_t chunk_count = 0;
    duk_idx_t base = duk_get_top(ctx);
    for (double i = 0; i < segments; i++) {
        duk_require_stack(ctx, 3);
        cduk__get_at(ctx, raw, i);
        duk_to_string(ctx, -1);
        if (i + 1 >= segments) {
            break;
        }
        if (i + 1 < count) {
            duk_dup(ctx, (duk_idx_t) (i + 1));
            duk_to_string(ctx, -1);
        }
        if (duk_get_top(ctx) - base >= 64) {
            duk_concat(ctx, duk_get_top(ctx) - base);
            duk_put_prop_index(ctx, chunks, chunk_count++);
        }
    }
    duk_concat(ctx, duk_get_top(ctx) - base);
    duk_put_prop_index(ctx, chunks, chunk_count++);
    duk_require_stack(ctx, (duk_idx_t) chunk_count);
    for (duk_uarridx_t c = 0; c < chunk_count; c++) {
        duk_get_prop_index(ctx, chunks, c);
    }
    duk_concat(ctx, (duk_idx_t) chunk_count);
    return 1;
}

/* String.prototype.normalize(form): NFC, NFD, NFKC, NFKD through the host (ASCII is its own
 * normal form in all four). */
static cduk_normalizer cduk__normalizer = NULL;

void cduk_set_normalizer(cduk_normalizer normalizer) { cduk__normalizer = normalizer; }

static duk_ret_t cduk__string_normalize(duk_context *ctx) {
    duk_set_top(ctx, 1);
    cduk__push_this_string(ctx, "normalize"); /* [form S] */
    int form = 0;
    if (!duk_is_undefined(ctx, 0)) {
        const char *name = duk_to_string(ctx, 0);
        static const char *const forms[4] = { "NFC", "NFD", "NFKC", "NFKD" };
        form = -1;
        for (int i = 0; i < 4; i++) {
            if (strcmp(name, forms[i]) == 0) {
                form = i;
            }
        }
        if (form < 0) {
            return cduk_range_error(ctx, "The normalization form should be one of NFC, NFD, NFKC, NFKD.");
        }
    }
    duk_size_t bytes = 0;
    const char *text = duk_get_lstring(ctx, 1, &bytes);
    int ascii = 1;
    for (duk_size_t i = 0; i < bytes && ascii; i++) {
        ascii = ((unsigned char) text[i]) < 0x80;
    }
    if (ascii || cduk__normalizer == NULL) {
        return 1;
    }
    /* The host gets the string's bytes (Duktape's CESU-8) and gives back UTF-8 (or CESU-8) in a
     * buffer it allocates with malloc; NULL leaves the string as it is. */
    size_t length = 0;
    char *normalized = cduk__normalizer(text, bytes, form, &length);
    if (normalized == NULL) {
        return 1;
    }
    duk_push_lstring(ctx, normalized, length);
    free(normalized);
    return 1;
}

/* ---- Math ------------------------------------------------------------------------------------ */

static duk_ret_t cduk__math_unary(duk_context *ctx) {
    double x = duk_to_number(ctx, 0), y;
    switch (duk_get_current_magic(ctx)) {
    case 0: y = (double) (float) x; break;
    case 1: y = expm1(x); break;
    case 2: y = log1p(x); break;
    case 3: y = sinh(x); break;
    case 4: y = cosh(x); break;
    case 5: y = tanh(x); break;
    case 6: y = asinh(x); break;
    case 7: y = acosh(x); break;
    default: y = atanh(x); break;
    }
    duk_push_number(ctx, y);
    return 1;
}

/* ---- Symbol ---------------------------------------------------------------------------------- */

/* get Symbol.prototype.description: the bytes between the symbol's marker and its first 0xFF;
 * undefined for Symbol() (Duktape's encoding ends those with a second 0xFF). */
static duk_ret_t cduk__symbol_description(duk_context *ctx) {
    duk_push_this(ctx);
    if (duk_is_object(ctx, -1)) {
        duk_to_primitive(ctx, -1, DUK_HINT_NONE);
    }
    if (!duk_is_symbol(ctx, -1)) {
        return cduk_type_error(ctx, "Symbol.prototype.description requires that 'this' be a Symbol");
    }
    duk_size_t length = 0;
    const unsigned char *bytes = (const unsigned char *) duk_get_lstring(ctx, -1, &length);
    duk_size_t end = 1;
    while (end < length && bytes[end] != 0xFF) {
        end++;
    }
    if (end + 1 < length && bytes[length - 1] == 0xFF) {
        return 0; /* Symbol(): undefined */
    }
    duk_push_lstring(ctx, (const char *) bytes + 1, end - 1);
    return 1;
}

/* ---- Reflect --------------------------------------------------------------------------------- */

/* Reflect.get(target, key, receiver) and Reflect.set(target, key, value, receiver): Duktape's
 * own for no receiver or receiver === target; else OrdinaryGet/OrdinarySet along the chain.
 * magic 1 for set. The originals are kept on the new functions. */
#define CDUK__ORIGINAL DUK_HIDDEN_SYMBOL("ReflectOriginal")
#define CDUK__CHAIN_LIMIT 10000 /* DUK_HOBJECT_PROTOTYPE_CHAIN_SANITY */

typedef struct {
    duk_idx_t target;
    duk_uint_t flags;
} cduk__define_call;

static duk_ret_t cduk__define_body(duk_context *ctx, void *udata) {
    const cduk__define_call *call = (const cduk__define_call *) udata;
    duk_def_prop(ctx, call->target, call->flags);
    return 0;
}

/* Defines target[args 1] = args 2 with `flags`; 0 when the definition is refused (a
 * non-extensible receiver, a non-configurable property), without throwing. */
static int cduk__try_define(duk_context *ctx, duk_idx_t target, duk_uint_t flags) {
    cduk__define_call call = { duk_normalize_index(ctx, target), flags };
    duk_dup(ctx, 1);
    duk_dup(ctx, 2);
    int ok = duk_safe_call(ctx, cduk__define_body, &call, 2, 1) == DUK_EXEC_SUCCESS;
    duk_pop(ctx);
    return ok;
}

static duk_ret_t cduk__reflect_get_set(duk_context *ctx) {
    int set = duk_get_current_magic(ctx);
    duk_idx_t count = duk_get_top(ctx);
    duk_idx_t receiver = set ? 3 : 2;
    if (!duk_is_object(ctx, 0)) {
        return cduk_type_error(ctx, "Reflect.%s called on a non-object", set ? "set" : "get");
    }
    if (count <= receiver || duk_strict_equals(ctx, 0, receiver)) {
        duk_push_current_function(ctx);
        cduk_get_own_hidden(ctx, -1, CDUK__ORIGINAL);
        duk_push_undefined(ctx);
        for (duk_idx_t i = 0; i < (count < receiver ? count : receiver); i++) {
            duk_dup(ctx, i);
        }
        duk_call_method(ctx, count < receiver ? count : receiver);
        return 1;
    }
    duk_set_top(ctx, receiver + 1);
    cduk__to_property_key(ctx, 1);
    duk_dup(ctx, 0); /* [.. O]: walks the chain */
    duk_idx_t holder = duk_get_top_index(ctx);
    for (int depth = 0;; depth++) {
        if (depth == CDUK__CHAIN_LIMIT) {
            /* Duktape's own limit on a walk up a prototype chain (and its error). */
            return cduk_range_error(ctx, "prototype chain limit");
        }
        if (cduk_push_proxy_parts(ctx, holder)) { /* [.. O target handler] */
            /* A proxy on the chain: its trap answers, called with the receiver; without one,
             * the walk goes on at its target (the specification's proxy [[Get]] and [[Set]]). */
            duk_get_prop_string(ctx, -1, set ? "set" : "get");
            if (!duk_is_null_or_undefined(ctx, -1)) {
                duk_swap_top(ctx, -2); /* [.. O target trap handler] */
                duk_dup(ctx, -3);
                duk_dup(ctx, 1);
                if (set) {
                    duk_dup(ctx, 2);
                }
                duk_dup(ctx, receiver);
                duk_call_method(ctx, set ? 4 : 3);
                if (set) {
                    duk_push_boolean(ctx, duk_to_boolean(ctx, -1));
                }
                return 1;
            }
            duk_pop_2(ctx);
            duk_replace(ctx, holder);
            continue;
        }
        duk_dup(ctx, 1);
        cduk_get_prop_desc(ctx, holder); /* [.. O desc] */
        if (duk_is_object(ctx, -1)) {
            /* The descriptor's own fields only: a script's Object.prototype.get is not one. */
            duk_idx_t desc = duk_get_top_index(ctx);
            duk_push_string(ctx, set ? "set" : "get");
            (void) cduk_get_own_keyed(ctx, desc);
            duk_push_literal(ctx, "value");
            (void) cduk_get_own_keyed(ctx, desc); /* [.. O desc fn value] */
            duk_push_literal(ctx, "get");
            int accessor = cduk_get_own_keyed(ctx, desc);
            duk_pop(ctx);
            if (accessor) {
                if (!duk_is_callable(ctx, -2)) {
                    duk_push_boolean(ctx, 0);
                    if (set) {
                        return 1;
                    }
                    return 0; /* get: undefined */
                }
                duk_pop(ctx);
                duk_dup(ctx, receiver);
                if (set) {
                    duk_dup(ctx, 2);
                    duk_call_method(ctx, 1);
                    duk_push_true(ctx);
                } else {
                    duk_call_method(ctx, 0);
                }
                return 1;
            }
            if (!set) {
                return 1; /* the value */
            }
            duk_push_literal(ctx, "writable");
            (void) cduk_get_own_keyed(ctx, desc);
            if (!duk_to_boolean(ctx, -1)) {
                duk_push_false(ctx);
                return 1;
            }
            break;
        }
        duk_pop(ctx);
        duk_get_prototype(ctx, holder);
        if (!duk_is_object(ctx, -1)) {
            duk_pop(ctx);
            if (!set) {
                return 0;
            }
            break;
        }
        duk_replace(ctx, holder);
    }
    /* set on a data property (or none): define or update the receiver's own data property. */
    if (!duk_is_object(ctx, receiver)) {
        duk_push_false(ctx);
        return 1;
    }
    /* A proxy receiver: Duktape's proxies have no defineProperty trap, so the property is its
     * target's (what the specification does for a proxy without that trap). */
    for (int depth = 0; cduk_push_proxy_parts(ctx, receiver); depth++) {
        if (depth == CDUK__CHAIN_LIMIT) {
            return cduk_range_error(ctx, "prototype chain limit");
        }
        duk_pop(ctx);
        duk_replace(ctx, receiver);
    }
    duk_dup(ctx, 1);
    cduk_get_prop_desc(ctx, receiver);
    if (duk_is_object(ctx, -1)) {
        duk_idx_t desc = duk_get_top_index(ctx);
        duk_push_literal(ctx, "get");
        int accessor = cduk_get_own_keyed(ctx, desc);
        duk_pop(ctx);
        duk_push_literal(ctx, "writable");
        (void) cduk_get_own_keyed(ctx, desc);
        if (accessor || !duk_to_boolean(ctx, -1)) {
            duk_push_false(ctx);
            return 1;
        }
        duk_push_boolean(ctx, cduk__try_define(ctx, receiver, DUK_DEFPROP_HAVE_VALUE));
        return 1;
    }
    duk_push_boolean(ctx, cduk__try_define(ctx, receiver, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE |
                                                              DUK_DEFPROP_SET_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE));
    return 1;
}

/* ---- Typed arrays ------------------------------------------------------------------------------ */

/* [] -> [new (this.constructor)(length)] for a typed array result. */
static void cduk__push_typed_like(duk_context *ctx, duk_idx_t source, double length) {
    duk_get_prop_literal(ctx, source, "constructor");
    if (!duk_is_constructable(ctx, -1)) {
        (void) cduk_type_error(ctx, "the typed array's constructor is not a constructor");
    }
    duk_push_number(ctx, length);
    duk_new(ctx, 1);
}

/* %TypedArray%.prototype.slice(start, end) */
static duk_ret_t cduk__typed_slice(duk_context *ctx) {
    duk_set_top(ctx, 2);
    duk_push_this(ctx); /* [start end O] */
    if (!cduk_is_typed_array(ctx, 2)) {
        return cduk_type_error(ctx, "%%TypedArray%%.prototype.slice called on a value that is not a typed array");
    }
    double length = cduk__length_of(ctx, 2);
    double k = cduk__relative(ctx, 0, length, 0), end = cduk__relative(ctx, 1, length, length);
    double count = end > k ? end - k : 0;
    cduk__push_typed_like(ctx, 2, count);
    for (double n = 0; n < count; n++) {
        cduk__get_at(ctx, 2, (k + n));
        cduk__put_at(ctx, 3, n);
    }
    return 1;
}

/* %TypedArray%.prototype.map(fn, thisArg), filter(fn, thisArg): magic 1 for filter. */
static duk_ret_t cduk__typed_map(duk_context *ctx) {
    int filter = duk_get_current_magic(ctx);
    duk_set_top(ctx, 2);
    duk_push_this(ctx); /* [fn thisArg O] */
    if (!cduk_is_typed_array(ctx, 2)) {
        return cduk_type_error(ctx, "%%TypedArray%%.prototype.%s called on a value that is not a typed array",
                              filter ? "filter" : "map");
    }
    cduk__require_callable(ctx, 0, filter ? "filter" : "map");
    double length = cduk__length_of(ctx, 2);
    if (filter) {
        duk_push_bare_array(ctx); /* the kept values: no prototype to run into */
    } else {
        cduk__push_typed_like(ctx, 2, length);
    }
    double kept = 0; /* [fn thisArg O A] */
    for (double k = 0; k < length; k++) {
        cduk__get_at(ctx, 2, k);
        duk_dup(ctx, 0);
        duk_dup(ctx, 1);
        duk_dup(ctx, -3);
        duk_push_number(ctx, k);
        duk_dup(ctx, 2);
        duk_call_method(ctx, 3); /* [.. value result] */
        if (filter) {
            if (duk_to_boolean(ctx, -1)) {
                duk_pop(ctx);
                cduk__put_at(ctx, 3, kept++);
            } else {
                duk_pop_2(ctx);
            }
        } else {
            cduk__put_at(ctx, 3, k);
            duk_pop(ctx);
        }
    }
    if (filter) {
        cduk__push_typed_like(ctx, 2, kept); /* [fn thisArg O kept T] */
        for (double k = 0; k < kept; k++) {
            cduk__get_at(ctx, 3, k);
            cduk__put_at(ctx, 4, k);
        }
    }
    return 1;
}

/* ---- Sorting: stable (ES2019), on a copy ---------------------------------------------------
 *
 * Array.prototype.sort and %TypedArray%.prototype.sort as the specification's
 * SortIndexedProperties: the elements are read into a private list (an array's holes and
 * undefineds left out), the list is sorted by a bottom-up merge sort, which is stable, and written
 * back (then the undefineds, then the holes deleted). Duktape's own sort is an in-place quicksort:
 * not stable, and a comparator saw the array mid-sort. The two lists alternate as source and
 * destination of each pass; the source holds every element throughout a pass, so nothing a
 * comparator's collection frees is still used. A loop that runs no script checks the execution
 * deadline every 1,024 steps (a script's code checks it itself). */

typedef enum { CDUK__SORT_STRINGS, CDUK__SORT_NUMBERS, CDUK__SORT_SCRIPT } cduk__sort_mode;

static void cduk__sort_tick(duk_context *ctx, unsigned *steps) {
    if ((++*steps & 1023) == 0 && cduk_exec_timeout_check(cduk_heap_state_of(ctx))) {
        (void) cduk_range_error(ctx, "execution timeout");
    }
}

/* The numeric order of %TypedArray%.prototype.sort: NaN last, -0 before +0. */
static int cduk__compare_numbers(double x, double y) {
    if (isnan(x)) {
        return isnan(y) ? 0 : 1;
    }
    if (isnan(y) || x < y) {
        return -1;
    }
    if (x > y) {
        return 1;
    }
    if (x == 0 && y == 0 && signbit(x) != signbit(y)) {
        return signbit(x) ? -1 : 1;
    }
    return 0;
}

/* [.. x y] -> [..]: SortCompare of x and y (neither undefined) as -1, 0 or 1. */
static int cduk__sort_compare(duk_context *ctx, cduk__sort_mode mode, duk_idx_t comparefn) {
    int result;
    if (mode == CDUK__SORT_NUMBERS) {
        result = cduk__compare_numbers(duk_get_number(ctx, -2), duk_get_number(ctx, -1));
    } else if (mode == CDUK__SORT_SCRIPT) {
        duk_dup(ctx, comparefn);
        duk_insert(ctx, -3);
        duk_push_undefined(ctx);
        duk_insert(ctx, -3); /* [.. fn undefined x y] */
        duk_call_method(ctx, 2);
        double v = duk_to_number(ctx, -1);
        result = v < 0 ? -1 : (v > 0 ? 1 : 0); /* NaN is +0 */
        duk_pop(ctx);
        return result;
    } else {
        /* ToString of both, compared by UTF-16 code units: Duktape's CESU-8 bytes sort the same. */
        duk_size_t xl = 0, yl = 0;
        const char *x = duk_to_lstring(ctx, -2, &xl);
        const char *y = duk_to_lstring(ctx, -1, &yl);
        int c = memcmp(x, y, xl < yl ? xl : yl);
        result = c != 0 ? (c < 0 ? -1 : 1) : (xl < yl ? -1 : (xl > yl ? 1 : 0));
    }
    duk_pop_2(ctx);
    return result;
}

/* Sorts the `count` elements of the bare array at `list` (stably); returns the index of the
 * array holding the result (`list`, or the second list it pushed). */
static duk_idx_t cduk__merge_sort(duk_context *ctx, duk_idx_t list, duk_uarridx_t count, cduk__sort_mode mode, duk_idx_t comparefn) {
    list = duk_normalize_index(ctx, list);
    duk_idx_t other = duk_push_bare_array(ctx);
    cduk_reserve_array(ctx, other, count);
    duk_idx_t source = list, target = other;
    unsigned steps = 0;
    for (duk_uarridx_t width = 1; width < count; width = width > count / 2 ? count : width * 2) {
        for (duk_uarridx_t low = 0; low < count; low += (count - low > 2 * width ? 2 * width : count - low)) {
            duk_uarridx_t middle = count - low > width ? low + width : count;
            duk_uarridx_t high = count - low > 2 * width ? low + 2 * width : count;
            duk_uarridx_t i = low, j = middle, k = low;
            if (i < middle && j < high) {
                /* The two heads stay on the stack: a step reads one element and writes one. */
                duk_get_prop_index(ctx, source, i);
                duk_get_prop_index(ctx, source, j);
                duk_idx_t left = duk_get_top_index(ctx) - 1, right = left + 1;
                for (;;) {
                    duk_dup(ctx, left);
                    duk_dup(ctx, right);
                    int right_first = cduk__sort_compare(ctx, mode, comparefn) > 0; /* equal: the left one, for stability */
                    duk_dup(ctx, right_first ? right : left);
                    duk_put_prop_index(ctx, target, k++);
                    if (mode != CDUK__SORT_SCRIPT) {
                        cduk__sort_tick(ctx, &steps);
                    }
                    if (right_first ? ++j >= high : ++i >= middle) {
                        break;
                    }
                    duk_get_prop_index(ctx, source, right_first ? j : i);
                    duk_replace(ctx, right_first ? right : left);
                }
                duk_pop_2(ctx);
            }
            for (; i < middle; i++) {
                duk_get_prop_index(ctx, source, i);
                duk_put_prop_index(ctx, target, k++);
            }
            for (; j < high; j++) {
                duk_get_prop_index(ctx, source, j);
                duk_put_prop_index(ctx, target, k++);
            }
        }
        duk_idx_t swap = source;
        source = target;
        target = swap;
    }
    return source;
}

/* Array.prototype.sort(comparefn) */
static duk_ret_t cduk__array_sort(duk_context *ctx) {
    duk_set_top(ctx, 1);
    if (!duk_is_undefined(ctx, 0)) {
        cduk__require_callable(ctx, 0, "Array.prototype.sort");
    }
    cduk__push_this_object(ctx, "Array.prototype.sort"); /* [comparefn O] */
    double length = cduk__length_of(ctx, 1);
    duk_idx_t list = duk_push_bare_array(ctx);
    duk_uarridx_t count = 0;
    double undefineds = 0;
    unsigned steps = 0;
    for (double k = 0; k < length; k++) {
        cduk__sort_tick(ctx, &steps);
        cduk__push_index(ctx, k);
        if (!duk_has_prop(ctx, 1)) {
            continue;
        }
        cduk__get_at(ctx, 1, k);
        if (duk_is_undefined(ctx, -1)) {
            duk_pop(ctx);
            undefineds++;
            continue;
        }
        if (count == 0xFFFFFFFEU) {
            return cduk_range_error(ctx, "Array.prototype.sort: too many elements to sort");
        }
        duk_put_prop_index(ctx, list, count++);
    }
    duk_idx_t sorted = cduk__merge_sort(ctx, list, count, duk_is_undefined(ctx, 0) ? CDUK__SORT_STRINGS : CDUK__SORT_SCRIPT, 0);
    double k = 0;
    for (; k < count; k++) {
        duk_get_prop_index(ctx, sorted, (duk_uarridx_t) k);
        cduk__put_at(ctx, 1, k);
    }
    for (double end = count + undefineds; k < end; k++) {
        cduk__sort_tick(ctx, &steps);
        duk_push_undefined(ctx);
        cduk__put_at(ctx, 1, k);
    }
    for (; k < length; k++) {
        cduk__sort_tick(ctx, &steps);
        cduk__push_index(ctx, k);
        duk_del_prop(ctx, 1);
    }
    duk_dup(ctx, 1);
    return 1;
}

/* %TypedArray%.prototype.sort(comparefn): numeric order (NaN last, -0 before +0) without one. A
 * write back past a shrunk buffer does nothing, as the specification's does. */
static duk_ret_t cduk__typed_sort(duk_context *ctx) {
    duk_set_top(ctx, 1);
    duk_push_this(ctx);
    if (!cduk_is_typed_array(ctx, 1)) {
        return cduk_type_error(ctx, "%%TypedArray%%.prototype.sort called on a value that is not a typed array");
    }
    if (!duk_is_undefined(ctx, 0)) {
        cduk__require_callable(ctx, 0, "%TypedArray%.prototype.sort");
    }
    duk_uarridx_t length = (duk_uarridx_t) duk_get_length(ctx, 1);
    duk_idx_t list = duk_push_bare_array(ctx);
    cduk_reserve_array(ctx, list, length);
    for (duk_uarridx_t i = 0; i < length; i++) {
        duk_get_prop_index(ctx, 1, i);
        duk_put_prop_index(ctx, list, i);
    }
    duk_idx_t sorted = cduk__merge_sort(ctx, list, length, duk_is_undefined(ctx, 0) ? CDUK__SORT_NUMBERS : CDUK__SORT_SCRIPT, 0);
    duk_uarridx_t now = (duk_uarridx_t) duk_get_length(ctx, 1);
    for (duk_uarridx_t i = 0; i < length && i < now; i++) {
        duk_get_prop_index(ctx, sorted, i);
        duk_put_prop_index(ctx, 1, i);
    }
    duk_dup(ctx, 1);
    return 1;
}

/* ---- Installers (lazy.c calls them with the owner at `owner`) ---------------------------------- */


typedef struct {
    const char *name;
    duk_c_function function;
    duk_idx_t nargs;
    int length;
    int magic;
} cduk__method;

static void cduk__define_methods(duk_context *ctx, duk_idx_t owner, const cduk__method *methods, size_t count) {
    owner = duk_normalize_index(ctx, owner);
    for (size_t i = 0; i < count; i++) {
        cduk_define_function(ctx, owner, methods[i].name, methods[i].function, methods[i].nargs, methods[i].length,
                             methods[i].magic);
    }
}

static const cduk__method cduk__array_methods[] = {
    { "includes", cduk__array_includes, 2, 1, 0 },   { "find", cduk__array_find, 2, 1, 0 },
    { "findIndex", cduk__array_find, 2, 1, 1 },      { "findLast", cduk__array_find, 2, 1, 2 },
    { "findLastIndex", cduk__array_find, 2, 1, 3 },  { "fill", cduk__array_fill, 3, 1, 0 },
    { "flat", cduk__array_flat, 2, 0, 0 },           { "flatMap", cduk__array_flat, 2, 1, 1 },
    { "copyWithin", cduk__array_copy_within, 3, 2, 0 }, { "at", cduk__at, 1, 1, 0 },
};

void cduk_install_array_methods(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    cduk__define_methods(ctx, owner, cduk__array_methods, sizeof cduk__array_methods / sizeof cduk__array_methods[0]);
}

static const cduk__method cduk__array_statics[] = {
    { "from", cduk__array_from, 3, 1, 0 },
    { "of", cduk__array_of, DUK_VARARGS, 0, 0 },
};

void cduk_install_array_statics(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    cduk__define_methods(ctx, owner, cduk__array_statics, 2);
}

static const cduk__method cduk__object_statics[] = {
    { "entries", cduk__object_entries, 1, 1, 1 },
    { "values", cduk__object_entries, 1, 1, 2 },
    { "fromEntries", cduk__object_from_entries, 1, 1, 0 },
    { "getOwnPropertyDescriptors", cduk__object_descriptors, 1, 1, 0 },
    { "hasOwn", cduk__object_has_own, 2, 2, 0 },
    { "getOwnPropertyDescriptor", cduk__object_descriptor, 2, 2, 0 },
};

void cduk_install_object_statics(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    cduk__define_methods(ctx, owner, cduk__object_statics, sizeof cduk__object_statics / sizeof cduk__object_statics[0]);
}

static const cduk__method cduk__string_methods[] = {
    { "padStart", cduk__string_pad, 2, 1, 0 },  { "padEnd", cduk__string_pad, 2, 1, 1 },
    { "trimStart", cduk__string_trim, 0, 0, 0 }, { "trimEnd", cduk__string_trim, 0, 0, 1 },
    { "at", cduk__at, 1, 1, 1 },                 { "matchAll", cduk__string_match_all, 1, 1, 0 },
    { "normalize", cduk__string_normalize, 1, 0, 0 },
};

void cduk_install_string_methods(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    owner = duk_normalize_index(ctx, owner);
    cduk__define_methods(ctx, owner, cduk__string_methods, sizeof cduk__string_methods / sizeof cduk__string_methods[0]);
    /* Annex B: trimLeft and trimRight are the same function objects. */
    duk_push_literal(ctx, "trimLeft");
    duk_get_prop_literal(ctx, owner, "trimStart");
    duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
    duk_push_literal(ctx, "trimRight");
    duk_get_prop_literal(ctx, owner, "trimEnd");
    duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
}

void cduk_install_string_statics(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    cduk_define_function(ctx, owner, "raw", cduk__string_raw, DUK_VARARGS, 1, 0);
}

/* global.Math (the owner is the global object: Math is made complete on its first read). */
void cduk_install_math(duk_context *ctx, duk_idx_t owner, int unused) {
    static const char *const names[9] = { "fround", "expm1", "log1p", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh" };
    (void) unused;
    owner = duk_normalize_index(ctx, owner);
    cduk_get_original(ctx, owner, "Math"); /* [Math] */
    duk_idx_t math = duk_get_top_index(ctx);
    if (duk_is_object(ctx, math)) {
        for (int i = 0; i < 9; i++) {
            cduk_define_function(ctx, math, names[i], cduk__math_unary, 1, 1, i);
        }
    }
    duk_push_literal(ctx, "Math");
    duk_insert(ctx, -2);
    duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
}

void cduk_install_symbol_statics(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    duk_push_literal(ctx, "asyncIterator");
    duk_push_string(ctx, DUK_WELLKNOWN_SYMBOL("Symbol.asyncIterator"));
    duk_def_prop(ctx, owner, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_CLEAR_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
                                 DUK_DEFPROP_CLEAR_CONFIGURABLE | DUK_DEFPROP_FORCE);
}

void cduk_install_symbol_methods(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    owner = duk_normalize_index(ctx, owner);
    duk_push_literal(ctx, "description");
    duk_push_c_function(ctx, cduk__symbol_description, 0);
    duk_push_literal(ctx, "name");
    duk_push_literal(ctx, "get description");
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_FORCE);
    duk_def_prop(ctx, owner, DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE |
                                 DUK_DEFPROP_FORCE);
}

/* global.Reflect, with get and set that take a receiver and getOwnPropertyDescriptor made by
 * definition (Duktape's own kept for the rest). */
void cduk_install_reflect(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    owner = duk_normalize_index(ctx, owner);
    cduk_get_original(ctx, owner, "Reflect"); /* [Reflect] */
    duk_idx_t reflect = duk_get_top_index(ctx);
    for (int set = 0; duk_is_object(ctx, reflect) && set < 2; set++) {
        const char *name = set ? "set" : "get";
        duk_get_prop_string(ctx, reflect, name); /* [Reflect original] */
        cduk_define_function(ctx, reflect, name, cduk__reflect_get_set, DUK_VARARGS, set ? 3 : 2, set);
        duk_get_prop_string(ctx, reflect, name);
        duk_swap_top(ctx, -2);
        cduk_put_own_hidden(ctx, -2, CDUK__ORIGINAL);
        duk_pop(ctx);
    }
    if (duk_is_object(ctx, reflect)) {
        cduk_define_function(ctx, reflect, "getOwnPropertyDescriptor", cduk__object_descriptor, 2, 2, 1);
        cduk_define_function(ctx, reflect, "defineProperty", cduk_object_define_property, 3, 3, 1);
    }
    duk_push_literal(ctx, "Reflect");
    duk_insert(ctx, -2);
    duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
}

/* Typed arrays: the generic methods above, Array.prototype's own generic ones, and slice, map,
 * filter and sort with typed results. `owner` is %TypedArray%.prototype. */
void cduk_install_typed_array_methods(duk_context *ctx, duk_idx_t owner, int unused) {
    static const char *const generic[] = { "indexOf", "lastIndexOf", "join", "forEach", "every", "some",
                                           "reduce", "reduceRight", "reverse", "keys", "values", "entries",
                                           "includes", "find", "findIndex", "findLast", "findLastIndex",
                                           "fill", "at", "copyWithin" };
    static const cduk__method typed[] = {
        { "slice", cduk__typed_slice, 2, 2, 0 },
        { "map", cduk__typed_map, 2, 1, 0 },
        { "filter", cduk__typed_map, 2, 1, 1 },
        { "sort", cduk__typed_sort, 1, 1, 0 },
    };
    (void) unused;
    owner = duk_normalize_index(ctx, owner);
    cduk_push_realm_object(ctx, CDUK_REALM_ARRAY_PROTOTYPE); /* [Array.prototype] */
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++) {
        duk_push_string(ctx, generic[i]);
        duk_get_prop_string(ctx, -2, generic[i]);
        duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
    }
    duk_push_string(ctx, DUK_WELLKNOWN_SYMBOL("Symbol.iterator"));
    duk_get_prop_literal(ctx, -2, "values");
    duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
    cduk__define_methods(ctx, owner, typed, sizeof typed / sizeof typed[0]);
    duk_pop(ctx);
}

/* The built-ins a realm gets in place of Duktape's when it is made (not on first use: a lazy
 * entry for `Object.defineProperty`, read inside a promise operation, moved where collections
 * fall). */
void cduk_install_replaced_builtins(duk_context *ctx) {
    static const cduk__method object_statics[] = {
        { "defineProperty", cduk_object_define_property, 3, 3, 0 },
        { "defineProperties", cduk_object_define_properties, 2, 2, 0 },
    };
    static const cduk__method object_methods[] = {
        { "__defineGetter__", cduk_object_define_accessor, 2, 2, 0 },
        { "__defineSetter__", cduk_object_define_accessor, 2, 2, 1 },
    };
    static const cduk__method array_methods[] = { { "sort", cduk__array_sort, 1, 1, 0 } };
    cduk_push_realm_object(ctx, CDUK_REALM_OBJECT_CONSTRUCTOR);
    cduk__define_methods(ctx, -1, object_statics, sizeof object_statics / sizeof object_statics[0]);
    duk_get_prop_literal(ctx, -1, "prototype");
    cduk__define_methods(ctx, -1, object_methods, sizeof object_methods / sizeof object_methods[0]);
    cduk_push_realm_object(ctx, CDUK_REALM_ARRAY_PROTOTYPE);
    cduk__define_methods(ctx, -1, array_methods, sizeof array_methods / sizeof array_methods[0]);
    duk_pop_3(ctx);
}
