/*
 * Map, Set, WeakMap and WeakSet, and the iterators of arrays, strings, maps and sets, in C on
 * Duktape's public API (Duktape 2.7 has none of them). ECMAScript 2020's algorithms, made on
 * first use: a realm gets accessors for their names (cduk_install_lazy_builtins), and the first
 * read of one makes the real value and puts it in place of the accessor, so a context that never
 * names `Map` pays two function objects and a few property slots for all of them (W1).
 *
 * Map and Set: entries live in a bare array in insertion order ([key, value, key, value...] for a
 * Map, [key, key...] for a Set), found through bare index objects keyed by a property key made
 * from the entry's key: a string or symbol is its own key (one index); every other value gets a
 * string in a second index (a number its canonical string, -0 as 0; an object the address of its
 * heap header, stable because the entry holds the object). A deleted entry's key slot holds the
 * data array itself (which no script can reach), so positions never move while entries are
 * deleted. When holes outnumber the entries, the entries are copied into a new array; the old one
 * is emptied and keeps a link to the new one and the positions it dropped, so that an iterator or
 * a forEach standing in the old one moves to the same entry in the new one (clear() links with
 * `true` instead: the cursor restarts at 0). That gives the spec's iteration semantics (entries
 * added during iteration are visited, deleted ones are not) without a list of live iterators.
 *
 * Under the memory limit every update is whole or not at all: what allocates comes first and
 * changes nothing a script can see (room in the index and the entries, the new arrays of a
 * compaction), then writes that allocate nothing commit it, with finalizers held so that none runs
 * in between. A compaction that fails is given up (protected), and tried again at twice the holes.
 *
 * WeakMap and WeakSet: the entry is a hidden-symbol property, unique to the WeakMap, on the key
 * object itself (written whatever the object's state: frozen keys work). The key is held by
 * nothing but its own references, and the value is held by the key (an ephemeron), so an entry
 * never keeps its key alive and goes away with it. A WeakMap that dies before its keys leaves its
 * entries on them until they die (documented in the README).
 *
 * Everything here runs as native functions called by the engine (no Swift frame between): errors
 * are thrown with duk_throw or cduk_type_error (which blames the calling script, as the engine's own built-ins do).
 */
#include "cduk_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- Keys ---------------------------------------------------------------------------------- */

/* On Map and Set objects. */
#define CDUK__C_KIND DUK_HIDDEN_SYMBOL("CollectionKind")     /* number: CDUK__MAP... */
#define CDUK__C_DATA DUK_HIDDEN_SYMBOL("CollectionData")     /* bare array of entries */
#define CDUK__C_NAMES DUK_HIDDEN_SYMBOL("CollectionNames")   /* index: strings and symbols */
#define CDUK__C_OTHERS DUK_HIDDEN_SYMBOL("CollectionOthers") /* index: every other key */
#define CDUK__C_SIZE DUK_HIDDEN_SYMBOL("CollectionSize")     /* number of live entries */
#define CDUK__C_RETRY DUK_HIDDEN_SYMBOL("CollectionRetry")   /* holes before compacting again (0: any) */
/* On WeakMap and WeakSet objects: the hidden symbol naming their entries on key objects. */
#define CDUK__C_WEAK_KEY DUK_HIDDEN_SYMBOL("CollectionWeakKey")
/* On data arrays a compaction or clear() left behind. */
#define CDUK__C_NEXT DUK_HIDDEN_SYMBOL("CollectionNext")       /* the array that replaced it */
#define CDUK__C_REMOVED DUK_HIDDEN_SYMBOL("CollectionRemoved") /* dropped positions, or true */
/* On iterators. */
#define CDUK__I_TARGET DUK_HIDDEN_SYMBOL("IteratorTarget") /* data array, array-like or string */
#define CDUK__I_POS DUK_HIDDEN_SYMBOL("IteratorPosition")
#define CDUK__I_KIND DUK_HIDDEN_SYMBOL("IteratorKind")

/* Global stash (per realm). */
#define CDUK__STASH_ITERATOR_PROTO "IteratorPrototype"
#define CDUK__STASH_MAP_ITERATOR_PROTO "MapIteratorPrototype"
#define CDUK__STASH_SET_ITERATOR_PROTO "SetIteratorPrototype"
#define CDUK__STASH_ARRAY_ITERATOR_PROTO "ArrayIteratorPrototype"
#define CDUK__STASH_STRING_ITERATOR_PROTO "StringIteratorPrototype"
#define CDUK__STASH_WEAK_SERIAL "WeakCollectionSerial"

#define CDUK__SYMBOL_ITERATOR DUK_WELLKNOWN_SYMBOL("Symbol.iterator")

enum { CDUK__MAP = 1, CDUK__SET = 2, CDUK__WEAK_MAP = 3, CDUK__WEAK_SET = 4 };
/* Iterator kinds: what next() gives (low bits) and what it walks. */
enum {
    CDUK__ITER_KEYS = 0,
    CDUK__ITER_VALUES = 1,
    CDUK__ITER_ENTRIES = 2,
    CDUK__ITER_WHAT_MASK = 3,
    CDUK__ITER_MAP = 4,    /* a Map's data array (2 slots an entry) */
    CDUK__ITER_SET = 8,    /* a Set's data array (1 slot an entry) */
    CDUK__ITER_ARRAY = 16, /* an array-like, read through its length each step */
    CDUK__ITER_STRING = 32 /* a string, by code point */
};

/* Compaction: when a delete leaves more holes than entries, and at least this many. */
#define CDUK__MIN_HOLES_TO_COMPACT 8U


static const char *const cduk__kind_names[5] = { "", "Map", "Set", "WeakMap", "WeakSet" };

/* ---- Small helpers ------------------------------------------------------------------------ */

void cduk_define_function(duk_context *ctx, duk_idx_t owner, const char *name, duk_c_function fn, duk_idx_t nargs,
                          duk_idx_t length, int magic) {
    owner = duk_normalize_index(ctx, owner);
    duk_push_string(ctx, name);
    duk_push_c_function(ctx, fn, nargs);
    duk_set_magic(ctx, -1, magic);
    cduk_clear_constructable(ctx, -1); /* a method: `new` refuses it, as the specification's */
    duk_push_literal(ctx, "name");
    duk_push_string(ctx, name);
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
    duk_push_literal(ctx, "length");
    duk_push_int(ctx, length);
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
    duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
}

/* [obj] -> [obj]: obj[name] = a native function (with its name and length). */
static void cduk__def_function(duk_context *ctx, const char *name, duk_c_function fn, duk_idx_t nargs,
                               duk_idx_t length, int magic) {
    cduk_define_function(ctx, -1, name, fn, nargs, length, magic);
}

/* [obj] -> [obj]: obj[Symbol.iterator] = a native method named "[Symbol.iterator]". */
static void cduk__def_iterator_method(duk_context *ctx, duk_c_function fn) {
    duk_push_string(ctx, CDUK__SYMBOL_ITERATOR);
    duk_push_c_function(ctx, fn, 0);
    duk_push_literal(ctx, "name");
    duk_push_literal(ctx, "[Symbol.iterator]");
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
    duk_def_prop(ctx, -3, CDUK_BUILTIN_PROP);
}

/* [obj] -> [obj]: obj[Symbol.toStringTag] = tag (read-only, configurable). */
static void cduk__def_tag(duk_context *ctx, const char *tag) {
    cduk_push_to_string_tag_symbol(ctx);
    duk_push_string(ctx, tag);
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
}

/* [] -> [{value, done}], the value taken from the top when `has_value` (consumed). */
static void cduk__push_result(duk_context *ctx, int has_value, int done) {
    if (!has_value) {
        duk_push_undefined(ctx);
    }
    cduk_push_iter_result(ctx, done);
}

/* The collection kind of the object at idx (0 when it is none). */
static int cduk__kind_of(duk_context *ctx, duk_idx_t idx) {
    if (!duk_is_object(ctx, idx)) {
        return 0;
    }
    cduk_get_own_hidden(ctx, idx, CDUK__C_KIND);
    int kind = duk_is_number(ctx, -1) ? duk_get_int(ctx, -1) : 0;
    duk_pop(ctx);
    return kind;
}

/* [] -> [this], a collection of `kind`, else a TypeError naming the method. */
static void cduk__require_this(duk_context *ctx, int kind, const char *method) {
    duk_push_this(ctx);
    if (cduk__kind_of(ctx, -1) != kind) {
        (void) cduk_type_error(ctx, "%s.prototype.%s called on an object that is not a %s", cduk__kind_names[kind],
                              method, cduk__kind_names[kind]);
    }
}

/* ---- Map and Set: keys, lookup, entries --------------------------------------------------- */

/* [] -> [property key of the key at idx]; returns which index holds it (0 names, 1 others). */
static int cduk__push_index_key(duk_context *ctx, duk_idx_t idx) {
    char buffer[48];
    switch (duk_get_type(ctx, idx)) {
    case DUK_TYPE_STRING: duk_dup(ctx, idx); return 0; /* strings and symbols */
    case DUK_TYPE_NUMBER: {
        double number = duk_get_number(ctx, idx);
        duk_push_number(ctx, number == 0 ? 0.0 : number); /* -0 is 0 (SameValueZero) */
        duk_to_string(ctx, -1);                           /* NaN is "NaN": one key, as SameValueZero */
        return 1;
    }
    case DUK_TYPE_UNDEFINED: duk_push_literal(ctx, "undefined"); return 1;
    case DUK_TYPE_NULL: duk_push_literal(ctx, "null"); return 1;
    case DUK_TYPE_BOOLEAN: duk_push_string(ctx, duk_get_boolean(ctx, idx) ? "true" : "false"); return 1;
    case DUK_TYPE_POINTER: (void) snprintf(buffer, sizeof buffer, "p%p", duk_get_pointer(ctx, idx)); break;
    case DUK_TYPE_LIGHTFUNC:
        duk_dup(ctx, idx);
        duk_to_string(ctx, -1); /* names the native function and its magic */
        duk_push_literal(ctx, "l");
        duk_insert(ctx, -2);
        duk_concat(ctx, 2);
        return 1;
    default: (void) snprintf(buffer, sizeof buffer, "@%p", duk_get_heapptr(ctx, idx)); break;
    }
    duk_push_string(ctx, buffer);
    return 1;
}

/* [] -> [ikey index]: the index key of the key at `key` and the index that holds it (undefined
 * when the collection has none yet); returns which index (0 names, 1 others). */
static int cduk__push_index(duk_context *ctx, duk_idx_t coll, duk_idx_t key) {
    coll = duk_normalize_index(ctx, coll);
    int which = cduk__push_index_key(ctx, key);
    if (which == 0) {
        cduk_get_own_hidden(ctx, coll, CDUK__C_NAMES);
    } else {
        cduk_get_own_hidden(ctx, coll, CDUK__C_OTHERS);
    }
    return which;
}

/* The entry position of the key at `key` in the collection at `coll`, or -1. */
static duk_int_t cduk__find(duk_context *ctx, duk_idx_t coll, duk_idx_t key) {
    (void) cduk__push_index(ctx, coll, key); /* [ikey index] */
    if (!duk_is_object(ctx, -1)) {
        duk_pop_2(ctx);
        return -1;
    }
    duk_swap_top(ctx, -2); /* [index ikey] */
    duk_get_prop(ctx, -2); /* [index position] */
    duk_int_t position = duk_is_number(ctx, -1) ? duk_get_int(ctx, -1) : -1;
    duk_pop_2(ctx);
    return position;
}

static duk_uint_t cduk__stride(int kind) { return kind == CDUK__MAP ? 2U : 1U; }

static duk_uint_t cduk__size(duk_context *ctx, duk_idx_t coll) {
    cduk_get_own_hidden(ctx, coll, CDUK__C_SIZE);
    duk_uint_t size = duk_get_uint(ctx, -1);
    duk_pop(ctx);
    return size;
}

static void cduk__set_size(duk_context *ctx, duk_idx_t coll, duk_uint_t size) {
    duk_push_uint(ctx, size);
    cduk_put_own_hidden(ctx, coll, CDUK__C_SIZE);
}

/* True when the key slot of the data array at `data` is a hole (the array itself). */
static int cduk__is_hole(duk_context *ctx, duk_idx_t data) {
    return duk_is_object(ctx, -1) && duk_get_heapptr(ctx, -1) == duk_get_heapptr(ctx, data);
}

/* [] -> []: a fresh, empty data array on the collection (its old one, if any, left to `link`). */
static void cduk__new_data(duk_context *ctx, duk_idx_t coll) {
    duk_push_bare_array(ctx);
    cduk_put_own_hidden(ctx, coll, CDUK__C_DATA);
}

/* Copies the live entries of the collection into a new array, with new indexes, and links the old
 * array to the new one. Everything that can fail (allocation under the memory limit) is done
 * first, on values no script can see; the collection changes only in the last steps, which
 * overwrite slots that exist and allocate nothing. Called protected (cduk__compact), with
 * finalizers held. [coll] */
static duk_ret_t cduk__compact_body(duk_context *ctx, void *udata) {
    int kind = *(const int *) udata;
    duk_uint_t stride = cduk__stride(kind);
    duk_idx_t coll = duk_get_top_index(ctx);
    cduk_get_own_hidden(ctx, coll, CDUK__C_DATA); /* [coll old] */
    duk_idx_t old = coll + 1, fresh = coll + 2, removed = coll + 3, names = coll + 4, others = coll + 5;
    duk_uarridx_t length = (duk_uarridx_t) duk_get_length(ctx, old);
    duk_uint_t size = cduk__size(ctx, coll);
    duk_push_bare_array(ctx);
    cduk_reserve_array(ctx, fresh, size * stride);
    duk_push_bare_array(ctx);
    duk_push_bare_object(ctx);
    duk_push_bare_object(ctx); /* [coll old fresh removed names others] */
    duk_uarridx_t kept = 0, dropped = 0;
    for (duk_uarridx_t position = 0; position * stride < length; position++) {
        duk_get_prop_index(ctx, old, position * stride); /* [.. key] */
        if (cduk__is_hole(ctx, old)) {
            duk_pop(ctx);
            duk_push_uint(ctx, position);
            duk_put_prop_index(ctx, removed, dropped++);
            continue;
        }
        int which = cduk__push_index_key(ctx, -1); /* [.. key ikey] */
        duk_push_uint(ctx, kept);
        duk_put_prop(ctx, which == 0 ? names : others);
        duk_put_prop_index(ctx, fresh, kept * stride);
        if (stride == 2) {
            duk_get_prop_index(ctx, old, position * 2 + 1);
            duk_put_prop_index(ctx, fresh, kept * 2 + 1);
        }
        kept++;
    }
    /* The slots the last steps overwrite, made now if missing (undefined is what they read as). */
    duk_push_undefined(ctx);
    cduk_put_own_hidden(ctx, old, CDUK__C_REMOVED);
    duk_push_undefined(ctx);
    cduk_put_own_hidden(ctx, old, CDUK__C_NEXT);
    cduk_get_own_hidden(ctx, coll, CDUK__C_NAMES);
    cduk_put_own_hidden(ctx, coll, CDUK__C_NAMES);
    cduk_get_own_hidden(ctx, coll, CDUK__C_OTHERS);
    cduk_put_own_hidden(ctx, coll, CDUK__C_OTHERS);
    /* Nothing below allocates. */
    duk_dup(ctx, removed);
    cduk_put_own_hidden(ctx, old, CDUK__C_REMOVED);
    duk_dup(ctx, fresh);
    cduk_put_own_hidden(ctx, old, CDUK__C_NEXT);
    duk_dup(ctx, fresh);
    cduk_put_own_hidden(ctx, coll, CDUK__C_DATA);
    duk_dup(ctx, names);
    cduk_put_own_hidden(ctx, coll, CDUK__C_NAMES);
    duk_dup(ctx, others);
    cduk_put_own_hidden(ctx, coll, CDUK__C_OTHERS);
    duk_set_length(ctx, old, 0);
    return 0;
}

/* Compacts the collection at `coll` (see cduk__compact_body), which has `holes` deleted entries.
 * A compaction that cannot be made (the memory limit) is given up: the collection stays as it
 * was, holes and all, the error is dropped, and the next try waits until there are twice as many
 * holes (a try costs time in proportion to the collection, and a full heap would fail it at every
 * delete). */
static void cduk__compact(duk_context *ctx, duk_idx_t coll, int kind, duk_uint_t holes) {
    coll = duk_normalize_index(ctx, coll);
    cduk_get_own_hidden(ctx, coll, CDUK__C_RETRY);
    duk_uint_t retry = duk_get_uint(ctx, -1);
    duk_pop(ctx);
    if (holes < retry) {
        return;
    }
    duk_dup(ctx, coll);
    int failed = duk_safe_call(ctx, cduk__compact_body, &kind, 1, 1) != DUK_EXEC_SUCCESS;
    duk_pop(ctx); /* undefined, or the error */
    duk_push_uint(ctx, failed ? (holes > DUK_UINT_MAX / 2 ? DUK_UINT_MAX : holes * 2) : 0);
    cduk_put_own_hidden(ctx, coll, CDUK__C_RETRY); /* the slot exists (the constructor made it) */
}

/* A cursor over a collection's entries that follows compactions and clears: [data] at `data`,
 * replaced by the array that superseded it; returns the first live position >= *position, or -1
 * at the end (`stride` slots an entry). */
static duk_int_t cduk__cursor_next(duk_context *ctx, duk_idx_t data, duk_uarridx_t *position, duk_uint_t stride) {
    for (;;) {
        cduk_get_own_hidden(ctx, data, CDUK__C_NEXT);
        if (!duk_is_object(ctx, -1)) {
            duk_pop(ctx);
            break;
        }
        cduk_get_own_hidden(ctx, data, CDUK__C_REMOVED); /* [next removed] */
        if (duk_is_object(ctx, -1)) {
            duk_uarridx_t count = (duk_uarridx_t) duk_get_length(ctx, -1), before = 0;
            for (duk_uarridx_t i = 0; i < count; i++) {
                duk_get_prop_index(ctx, -1, i);
                duk_uarridx_t removed = duk_get_uint(ctx, -1);
                duk_pop(ctx);
                if (removed >= *position) {
                    break;
                }
                before++;
            }
            *position -= before;
        } else {
            *position = 0; /* cleared */
        }
        duk_pop(ctx);
        duk_replace(ctx, data);
    }
    duk_uarridx_t length = (duk_uarridx_t) duk_get_length(ctx, data);
    while (*position * stride < length) {
        duk_get_prop_index(ctx, data, *position * stride);
        int hole = cduk__is_hole(ctx, data);
        duk_pop(ctx);
        if (!hole) {
            return (duk_int_t) *position;
        }
        (*position)++;
    }
    return -1;
}

/* ---- Iterating an iterable (constructors) ------------------------------------------------- */

typedef struct {
    cduk_item_fn item;
    void *udata;
    double index;
} cduk__item_call;

static duk_ret_t cduk__item_body(duk_context *ctx, void *udata) {
    const cduk__item_call *call = (const cduk__item_call *) udata;
    call->item(ctx, call->udata, call->index);
    return 0;
}

static duk_ret_t cduk__close_iterator(duk_context *ctx, void *udata) {
    (void) udata;
    /* [iterator] */
    duk_get_prop_literal(ctx, -1, "return");
    if (duk_is_callable(ctx, -1)) {
        duk_swap_top(ctx, -2);
        duk_call_method(ctx, 0);
    }
    return 0;
}

double cduk_for_each_item(duk_context *ctx, duk_idx_t iterable, cduk_item_fn item, void *udata) {
    cduk__item_call call = { item, udata, 0 };
    iterable = duk_normalize_index(ctx, iterable);
    duk_require_stack(ctx, 12);
    duk_push_string(ctx, CDUK__SYMBOL_ITERATOR);
    duk_get_prop(ctx, iterable); /* [method] */
    if (!duk_is_callable(ctx, -1)) {
        (void) cduk_type_error(ctx, "%s is not iterable", duk_safe_to_string(ctx, iterable));
    }
    duk_dup(ctx, iterable);
    duk_call_method(ctx, 0); /* [iterator] */
    if (!duk_is_object(ctx, -1)) {
        (void) cduk_type_error(ctx, "the iterator of %s is not an object", duk_safe_to_string(ctx, iterable));
    }
    duk_idx_t iterator = duk_get_top_index(ctx);
    duk_get_prop_literal(ctx, iterator, "next"); /* [iterator next] */
    for (;;) {
        duk_dup(ctx, iterator + 1);
        duk_dup(ctx, iterator);
        duk_call_method(ctx, 0); /* [iterator next result] */
        if (!duk_is_object(ctx, -1)) {
            (void) cduk_type_error(ctx, "iterator result %s is not an object", duk_safe_to_string(ctx, -1));
        }
        duk_get_prop_literal(ctx, -1, "done");
        if (duk_to_boolean(ctx, -1)) {
            duk_pop_n(ctx, 4);
            return call.index;
        }
        duk_pop(ctx);
        duk_get_prop_literal(ctx, -1, "value"); /* [iterator next result value] */
        duk_remove(ctx, -2);
        if (duk_safe_call(ctx, cduk__item_body, &call, 1, 1) != DUK_EXEC_SUCCESS) {
            duk_dup(ctx, iterator); /* [iterator next error iterator] */
            (void) duk_safe_call(ctx, cduk__close_iterator, NULL, 1, 1);
            duk_pop(ctx);
            (void) duk_throw(ctx);
        }
        duk_pop(ctx);
        call.index++;
    }
}

/* What the constructors add with: the collection at `target` and its set/add at `adder`. */
typedef struct {
    duk_idx_t target;
    duk_idx_t adder;
} cduk__adder;

/* Map: the item must be an object; adder.call(map, item[0], item[1]). */
static void cduk__add_entry(duk_context *ctx, void *udata, double index) {
    const cduk__adder *add = (const cduk__adder *) udata;
    duk_idx_t target = add->target, adder = add->adder;
    (void) index;
    if (!duk_is_object(ctx, -1)) {
        (void) cduk_type_error(ctx, "iterator value %s is not an entry object", duk_safe_to_string(ctx, -1));
    }
    duk_dup(ctx, adder);
    duk_dup(ctx, target);
    duk_get_prop_index(ctx, -3, 0);
    duk_get_prop_index(ctx, -4, 1);
    duk_call_method(ctx, 2);
    duk_pop_2(ctx);
}

/* Set, WeakSet: adder.call(set, item). */
static void cduk__add_value(duk_context *ctx, void *udata, double index) {
    const cduk__adder *add = (const cduk__adder *) udata;
    duk_idx_t target = add->target, adder = add->adder;
    (void) index;
    duk_dup(ctx, adder);
    duk_dup(ctx, target);
    duk_dup(ctx, -3);
    duk_call_method(ctx, 1);
    duk_pop_2(ctx);
}

/* ---- Constructors ------------------------------------------------------------------------- */

/* The next WeakMap/WeakSet serial of the heap (one counter for all its realms: entries of two
 * contexts' maps must not share a key), as a hidden symbol: [] -> [symbol]. */
static void cduk__push_weak_key(duk_context *ctx) {
    duk_push_heap_stash(ctx);
    duk_get_prop_literal(ctx, -1, CDUK__STASH_WEAK_SERIAL);
    double serial = duk_get_number_default(ctx, -1, 0) + 1;
    duk_pop(ctx);
    duk_push_number(ctx, serial);
    duk_put_prop_literal(ctx, -2, CDUK__STASH_WEAK_SERIAL);
    duk_pop(ctx);
    char buffer[48];
    (void) snprintf(buffer, sizeof buffer, "\xff" "WeakEntry%.0f", serial);
    duk_push_string(ctx, buffer);
}

/* new Map(iterable), new Set(iterable), new WeakMap(iterable), new WeakSet(iterable). */
static duk_ret_t cduk__collection_constructor(duk_context *ctx) {
    int kind = duk_get_current_magic(ctx);
    if (!duk_is_constructor_call(ctx)) {
        return cduk_type_error(ctx, "Constructor %s requires 'new'", cduk__kind_names[kind]);
    }
    duk_set_top(ctx, 1);
    duk_push_this(ctx); /* [iterable this] */
    cduk_reserve_properties(ctx, 1, 4);
    duk_push_int(ctx, kind);
    cduk_put_own_hidden(ctx, 1, CDUK__C_KIND);
    if (kind == CDUK__MAP || kind == CDUK__SET) {
        cduk__new_data(ctx, 1);
        cduk__set_size(ctx, 1, 0);
        duk_push_uint(ctx, 0);
        cduk_put_own_hidden(ctx, 1, CDUK__C_RETRY);
    } else {
        cduk__push_weak_key(ctx);
        cduk_put_own_hidden(ctx, 1, CDUK__C_WEAK_KEY);
    }
    if (!duk_is_null_or_undefined(ctx, 0)) {
        duk_get_prop_string(ctx, 1, kind == CDUK__MAP || kind == CDUK__WEAK_MAP ? "set" : "add"); /* [.. adder] */
        if (!duk_is_callable(ctx, 2)) {
            return cduk_type_error(ctx, "%s.prototype.%s is not a function", cduk__kind_names[kind],
                                  kind == CDUK__MAP || kind == CDUK__WEAK_MAP ? "set" : "add");
        }
        cduk__adder add = { 1, 2 };
        (void) cduk_for_each_item(ctx, 0, kind == CDUK__MAP || kind == CDUK__WEAK_MAP ? cduk__add_entry : cduk__add_value,
                                  &add);
        duk_pop(ctx);
    }
    return 1;
}

/* ---- Map and Set methods ------------------------------------------------------------------- */

static const char *const cduk__method_names[] = { "get", "set", "has", "delete", "clear", "add" };
enum { CDUK__M_GET, CDUK__M_SET, CDUK__M_HAS, CDUK__M_DELETE, CDUK__M_CLEAR, CDUK__M_ADD };

/* Map.prototype.get/has/delete, Set.prototype.has/delete: magic = kind << 4 | method. */
static duk_ret_t cduk__collection_lookup(duk_context *ctx) {
    int magic = duk_get_current_magic(ctx);
    int kind = magic >> 4, method = magic & 15;
    duk_set_top(ctx, 1);
    cduk__require_this(ctx, kind, cduk__method_names[method]); /* [key this] */
    duk_int_t position = cduk__find(ctx, 1, 0);
    switch (method) {
    case CDUK__M_GET:
        if (position < 0) {
            return 0;
        }
        cduk_get_own_hidden(ctx, 1, CDUK__C_DATA);
        duk_get_prop_index(ctx, -1, (duk_uarridx_t) position * 2 + 1);
        return 1;
    case CDUK__M_HAS: duk_push_boolean(ctx, position >= 0); return 1;
    default: { /* delete */
        if (position < 0) {
            duk_push_false(ctx);
            return 1;
        }
        /* The index key first (the one found above: nothing to allocate), then, with finalizers
         * held, writes over slots that exist: none allocates. */
        duk_uint_t stride = cduk__stride(kind);
        cduk_finalizers_hold(ctx);
        (void) cduk__push_index(ctx, 1, 0);        /* [key this ikey index] */
        cduk_get_own_hidden(ctx, 1, CDUK__C_DATA); /* [key this ikey index data] */
        duk_uarridx_t length = (duk_uarridx_t) duk_get_length(ctx, 4);
        duk_dup(ctx, 4);
        duk_put_prop_index(ctx, 4, (duk_uarridx_t) position * stride); /* the hole */
        if (stride == 2) {
            duk_push_undefined(ctx);
            duk_put_prop_index(ctx, 4, (duk_uarridx_t) position * 2 + 1);
        }
        duk_dup(ctx, 2);
        duk_del_prop(ctx, 3);
        duk_uint_t size = cduk__size(ctx, 1) - 1;
        cduk__set_size(ctx, 1, size);
        duk_uint_t holes = length / stride - size;
        if (holes >= CDUK__MIN_HOLES_TO_COMPACT && holes > size) {
            cduk__compact(ctx, 1, kind, holes);
        }
        cduk_finalizers_release(ctx);
        duk_push_true(ctx);
        return 1;
    }
    }
}

/* Map.prototype.set(key, value), Set.prototype.add(value): magic = kind. */
static duk_ret_t cduk__collection_put(duk_context *ctx) {
    int kind = duk_get_current_magic(ctx);
    duk_set_top(ctx, 2);
    cduk__require_this(ctx, kind, kind == CDUK__MAP ? "set" : "add"); /* [key value this] */
    duk_int_t position = cduk__find(ctx, 2, 0);
    cduk_get_own_hidden(ctx, 2, CDUK__C_DATA); /* [key value this data] */
    if (position >= 0) {
        if (kind == CDUK__MAP) {
            duk_dup(ctx, 1);
            duk_put_prop_index(ctx, 3, (duk_uarridx_t) position * 2 + 1);
        }
        duk_dup(ctx, 2);
        return 1;
    }
    if (duk_is_number(ctx, 0) && duk_get_number(ctx, 0) == 0) {
        duk_push_int(ctx, 0); /* -0 is stored as 0 */
        duk_replace(ctx, 0);
    }
    /* What can fail (allocation under the memory limit) comes first and changes nothing a script
     * can see: the index key, the index, room in the index and in the entries. The entry then goes
     * in with writes that allocate nothing. Finalizers are held throughout: one run by a release
     * in between could reach this collection. (An error leaves the hold up until the host's call
     * ends, as in promise.c.) */
    cduk_finalizers_hold(ctx);
    duk_uint_t stride = cduk__stride(kind);
    int which = cduk__push_index(ctx, 2, 0); /* [key value this data ikey index] */
    if (!duk_is_object(ctx, 5)) {
        duk_pop(ctx);
        duk_push_bare_object(ctx);
        duk_dup_top(ctx);
        if (which == 0) {
            cduk_put_own_hidden(ctx, 2, CDUK__C_NAMES);
        } else {
            cduk_put_own_hidden(ctx, 2, CDUK__C_OTHERS);
        }
    }
    cduk_make_room_for_entry(ctx, 5);
    duk_uarridx_t length = (duk_uarridx_t) duk_get_length(ctx, 3);
    cduk_make_room_for_index(ctx, 3, length + stride - 1);
    /* Nothing below allocates. */
    duk_dup(ctx, 4);
    duk_push_uint(ctx, length / stride);
    duk_put_prop(ctx, 5);
    duk_dup(ctx, 0);
    duk_put_prop_index(ctx, 3, length);
    if (stride == 2) {
        duk_dup(ctx, 1);
        duk_put_prop_index(ctx, 3, length + 1);
    }
    cduk__set_size(ctx, 2, cduk__size(ctx, 2) + 1);
    cduk_finalizers_release(ctx);
    duk_dup(ctx, 2);
    return 1;
}

/* Map.prototype.clear(), Set.prototype.clear(): magic = kind. */
static duk_ret_t cduk__collection_clear(duk_context *ctx) {
    int kind = duk_get_current_magic(ctx);
    cduk__require_this(ctx, kind, "clear"); /* [this] */
    /* As put: what allocates first (the new array and the slots the old one gets), then writes
     * that allocate nothing, with finalizers held. */
    cduk_finalizers_hold(ctx);
    cduk_get_own_hidden(ctx, 0, CDUK__C_DATA); /* [this old] */
    duk_push_bare_array(ctx);                  /* [this old fresh] */
    duk_push_undefined(ctx);
    cduk_put_own_hidden(ctx, 1, CDUK__C_REMOVED);
    duk_push_undefined(ctx);
    cduk_put_own_hidden(ctx, 1, CDUK__C_NEXT);
    cduk_get_own_hidden(ctx, 0, CDUK__C_NAMES);
    cduk_put_own_hidden(ctx, 0, CDUK__C_NAMES);
    cduk_get_own_hidden(ctx, 0, CDUK__C_OTHERS);
    cduk_put_own_hidden(ctx, 0, CDUK__C_OTHERS);
    /* Nothing below allocates. */
    duk_push_true(ctx);
    cduk_put_own_hidden(ctx, 1, CDUK__C_REMOVED);
    duk_dup(ctx, 2);
    cduk_put_own_hidden(ctx, 1, CDUK__C_NEXT);
    duk_dup(ctx, 2);
    cduk_put_own_hidden(ctx, 0, CDUK__C_DATA);
    duk_push_undefined(ctx);
    cduk_put_own_hidden(ctx, 0, CDUK__C_NAMES);
    duk_push_undefined(ctx);
    cduk_put_own_hidden(ctx, 0, CDUK__C_OTHERS);
    duk_set_length(ctx, 1, 0);
    cduk__set_size(ctx, 0, 0);
    duk_push_uint(ctx, 0);
    cduk_put_own_hidden(ctx, 0, CDUK__C_RETRY);
    cduk_finalizers_release(ctx);
    return 0;
}

/* get Map.prototype.size, get Set.prototype.size: magic = kind. */
static duk_ret_t cduk__collection_size(duk_context *ctx) {
    int kind = duk_get_current_magic(ctx);
    cduk__require_this(ctx, kind, "size");
    duk_push_uint(ctx, cduk__size(ctx, -1));
    return 1;
}

/* Map.prototype.forEach(callback, thisArg), Set.prototype.forEach: magic = kind. */
static duk_ret_t cduk__collection_for_each(duk_context *ctx) {
    int kind = duk_get_current_magic(ctx);
    duk_uint_t stride = cduk__stride(kind);
    duk_set_top(ctx, 2);
    cduk__require_this(ctx, kind, "forEach"); /* [callback thisArg this] */
    if (!duk_is_callable(ctx, 0)) {
        return cduk_type_error(ctx, "%s.prototype.forEach: %s is not a function", cduk__kind_names[kind],
                              duk_safe_to_string(ctx, 0));
    }
    cduk_get_own_hidden(ctx, 2, CDUK__C_DATA); /* [callback thisArg this data] */
    duk_uarridx_t position = 0;
    while (cduk__cursor_next(ctx, 3, &position, stride) >= 0) {
        duk_dup(ctx, 0);
        duk_dup(ctx, 1);
        duk_get_prop_index(ctx, 3, position * stride + (stride - 1)); /* value (a Set: the key) */
        duk_get_prop_index(ctx, 3, position * stride);
        duk_dup(ctx, 2);
        duk_call_method(ctx, 3);
        duk_pop(ctx);
        position++;
    }
    return 0;
}

/* ---- Inspection (cduk_pcollection_entries) ------------------------------------------------- */

typedef struct {
    duk_uint_t limit;
    int kind;
    duk_uint_t size;
} cduk__inspection;

static duk_ret_t cduk__collection_entries(duk_context *ctx, void *udata) {
    cduk__inspection *inspection = (cduk__inspection *) udata;
    duk_idx_t value = duk_get_top_index(ctx);
    inspection->kind = cduk__kind_of(ctx, value);
    if (inspection->kind != CDUK__MAP && inspection->kind != CDUK__SET) {
        duk_push_undefined(ctx);
        return 1;
    }
    duk_uint_t stride = cduk__stride(inspection->kind);
    inspection->size = cduk__size(ctx, value);
    duk_push_array(ctx);
    cduk_get_own_hidden(ctx, value, CDUK__C_DATA); /* [value entries data] */
    duk_idx_t entries = value + 1, data = value + 2;
    duk_uarridx_t position = 0, count = 0;
    while (count < inspection->limit && cduk__cursor_next(ctx, data, &position, stride) >= 0) {
        for (duk_uint_t slot = 0; slot < stride; slot++) {
            duk_get_prop_index(ctx, data, position * stride + slot);
            duk_put_prop_index(ctx, entries, count * stride + slot);
        }
        count++;
        position++;
    }
    duk_pop(ctx);
    return 1;
}

duk_int_t cduk_pcollection_entries(duk_context *ctx, duk_uint_t limit, int *kind, duk_uint_t *size) {
    cduk__inspection inspection = { limit, 0, 0 };
    duk_int_t rc = cduk__protect(ctx, cduk__collection_entries, &inspection, 1, 1);
    *kind = inspection.kind;
    *size = inspection.size;
    return rc;
}

/* ---- WeakMap and WeakSet methods ----------------------------------------------------------- */

/* WeakMap.prototype.get/set/has/delete, WeakSet.prototype.add/has/delete: magic = kind << 4 |
 * method. A key that is not an object: get gives undefined, has and delete false, set and add
 * throw a TypeError (as the spec). */
static duk_ret_t cduk__weak_method(duk_context *ctx) {
    int magic = duk_get_current_magic(ctx);
    int kind = magic >> 4, method = magic & 15;
    duk_set_top(ctx, 2);
    cduk__require_this(ctx, kind, cduk__method_names[method]); /* [key value this] */
    if (!duk_is_object(ctx, 0)) {
        switch (method) {
        case CDUK__M_GET: return 0;
        case CDUK__M_HAS:
        case CDUK__M_DELETE: duk_push_false(ctx); return 1;
        default:
            return cduk_type_error(ctx, "Invalid value used %s: %s", kind == CDUK__WEAK_MAP ? "as weak map key" : "in weak set",
                                  duk_safe_to_string(ctx, 0));
        }
    }
    cduk_get_own_hidden(ctx, 2, CDUK__C_WEAK_KEY); /* [key value this wkey] */
    switch (method) {
    case CDUK__M_GET:
        (void) cduk_get_own_keyed(ctx, 0);
        return 1;
    case CDUK__M_HAS: {
        int found = cduk_get_own_keyed(ctx, 0);
        duk_push_boolean(ctx, found);
        return 1;
    }
    case CDUK__M_DELETE: duk_push_boolean(ctx, cduk_del_own_keyed(ctx, 0)); return 1;
    default: /* set, add */
        if (kind == CDUK__WEAK_MAP) {
            duk_dup(ctx, 1);
        } else {
            duk_push_true(ctx);
        }
        cduk_put_own_keyed(ctx, 0);
        duk_dup(ctx, 2);
        return 1;
    }
}

/* ---- Iterators ------------------------------------------------------------------------------- */

/* [] -> [the realm's iterator prototype `stash_key`, made on first use]. */
static void cduk__push_iterator_prototype(duk_context *ctx, const char *stash_key);

void cduk_push_iterator_prototype(duk_context *ctx) { cduk__push_iterator_prototype(ctx, CDUK__STASH_ITERATOR_PROTO); }

/* [target] -> [iterator]: a new iterator of `kind` over target. */
static void cduk__push_iterator(duk_context *ctx, const char *proto_key, int kind) {
    duk_push_object(ctx);
    cduk__push_iterator_prototype(ctx, proto_key);
    duk_set_prototype(ctx, -2); /* [target iterator] */
    cduk_reserve_properties(ctx, -1, 3);
    duk_swap_top(ctx, -2);
    cduk_put_own_hidden(ctx, -2, CDUK__I_TARGET);
    duk_push_uint(ctx, 0);
    cduk_put_own_hidden(ctx, -2, CDUK__I_POS);
    duk_push_int(ctx, kind);
    cduk_put_own_hidden(ctx, -2, CDUK__I_KIND);
}

/* Map.prototype.keys/values/entries (and @@iterator), Set.prototype.values (keys, @@iterator) and
 * entries: magic = kind << 4 | what. */
static duk_ret_t cduk__collection_iterator(duk_context *ctx) {
    int magic = duk_get_current_magic(ctx);
    int kind = magic >> 4, what = magic & 15;
    cduk__require_this(ctx, kind, what == CDUK__ITER_KEYS ? "keys" : what == CDUK__ITER_VALUES ? "values" : "entries");
    cduk_get_own_hidden(ctx, -1, CDUK__C_DATA);
    cduk__push_iterator(ctx, kind == CDUK__MAP ? CDUK__STASH_MAP_ITERATOR_PROTO : CDUK__STASH_SET_ITERATOR_PROTO,
                        what | (kind == CDUK__MAP ? CDUK__ITER_MAP : CDUK__ITER_SET));
    return 1;
}

/* Array.prototype.keys/values/entries (values is also @@iterator), on any array-like (typed
 * arrays too): magic = what. */
static duk_ret_t cduk__array_iterator(duk_context *ctx) {
    duk_push_this(ctx);
    duk_to_object(ctx, -1);
    cduk__push_iterator(ctx, CDUK__STASH_ARRAY_ITERATOR_PROTO, duk_get_current_magic(ctx) | CDUK__ITER_ARRAY);
    return 1;
}

/* String.prototype[@@iterator]: the code points of ToString(this). */
static duk_ret_t cduk__string_iterator(duk_context *ctx) {
    duk_push_this(ctx);
    if (duk_is_null_or_undefined(ctx, -1)) {
        return cduk_type_error(ctx, "String.prototype[Symbol.iterator] called on null or undefined");
    }
    duk_to_string(ctx, -1);
    cduk__push_iterator(ctx, CDUK__STASH_STRING_ITERATOR_PROTO, CDUK__ITER_VALUES | CDUK__ITER_STRING);
    return 1;
}

/* %ArrayIteratorPrototype%.next and the others: magic = the kind it serves (brand check). */
static duk_ret_t cduk__iterator_next(duk_context *ctx) {
    int serves = duk_get_current_magic(ctx);
    duk_push_this(ctx); /* [this] */
    int kind = -1;
    if (duk_is_object(ctx, 0)) {
        cduk_get_own_hidden(ctx, 0, CDUK__I_KIND);
        kind = duk_is_number(ctx, -1) ? duk_get_int(ctx, -1) : -1;
        duk_pop(ctx);
    }
    if (kind < 0 || (kind & serves) == 0) {
        return cduk_type_error(ctx, "next called on an object that is not a %s iterator",
                              serves == CDUK__ITER_MAP ? "Map" : serves == CDUK__ITER_SET ? "Set"
                                                            : serves == CDUK__ITER_ARRAY ? "Array" : "String");
    }
    int what = kind & CDUK__ITER_WHAT_MASK;
    cduk_get_own_hidden(ctx, 0, CDUK__I_TARGET); /* [this target] */
    if (duk_is_undefined(ctx, 1)) {
        cduk__push_result(ctx, 0, 1);
        return 1;
    }
    cduk_get_own_hidden(ctx, 0, CDUK__I_POS);
    duk_uarridx_t position = duk_get_uint(ctx, -1);
    duk_pop(ctx);
    if (kind & (CDUK__ITER_MAP | CDUK__ITER_SET)) {
        duk_uint_t stride = (kind & CDUK__ITER_MAP) ? 2U : 1U;
        if (cduk__cursor_next(ctx, 1, &position, stride) < 0) {
            goto done;
        }
        duk_dup(ctx, 1);
        cduk_put_own_hidden(ctx, 0, CDUK__I_TARGET); /* it may have moved to a new array */
        if (what == CDUK__ITER_ENTRIES) {
            duk_get_prop_index(ctx, 1, position * stride);
            duk_get_prop_index(ctx, 1, position * stride + (stride - 1));
            cduk_push_pair(ctx);
        } else {
            duk_get_prop_index(ctx, 1, position * stride + (what == CDUK__ITER_VALUES ? stride - 1 : 0));
        }
        position++;
    } else if (kind & CDUK__ITER_ARRAY) {
        duk_get_prop_literal(ctx, 1, "length");
        double length = duk_to_number(ctx, -1);
        duk_pop(ctx);
        if (!(position < length)) {
            goto done;
        }
        if (what == CDUK__ITER_KEYS) {
            duk_push_uint(ctx, position);
        } else if (what == CDUK__ITER_VALUES) {
            duk_get_prop_index(ctx, 1, position);
        } else {
            duk_push_uint(ctx, position);
            duk_get_prop_index(ctx, 1, position);
            cduk_push_pair(ctx);
        }
        position++;
    } else {
        duk_size_t length = duk_get_length(ctx, 1); /* code units */
        if (position >= length) {
            goto done;
        }
        duk_codepoint_t first = duk_char_code_at(ctx, 1, position);
        duk_size_t end = position + 1;
        if (first >= 0xD800 && first <= 0xDBFF && end < length) {
            duk_codepoint_t second = duk_char_code_at(ctx, 1, end);
            if (second >= 0xDC00 && second <= 0xDFFF) {
                end++;
            }
        }
        duk_dup(ctx, 1);
        duk_substring(ctx, -1, position, end);
        position = (duk_uarridx_t) end;
    }
    duk_push_uint(ctx, position);
    cduk_put_own_hidden(ctx, 0, CDUK__I_POS);
    cduk__push_result(ctx, 1, 0);
    return 1;
done:
    duk_push_undefined(ctx);
    cduk_put_own_hidden(ctx, 0, CDUK__I_TARGET);
    cduk__push_result(ctx, 0, 1);
    return 1;
}

/* %IteratorPrototype%[@@iterator]: returns this. */
static duk_ret_t cduk__return_this(duk_context *ctx) {
    duk_push_this(ctx);
    return 1;
}

static void cduk__push_iterator_prototype(duk_context *ctx, const char *stash_key) {
    duk_push_global_stash(ctx);
    duk_get_prop_string(ctx, -1, stash_key);
    if (duk_is_object(ctx, -1)) {
        duk_remove(ctx, -2);
        return;
    }
    duk_pop(ctx);
    duk_push_object(ctx); /* [stash proto] */
    if (strcmp(stash_key, CDUK__STASH_ITERATOR_PROTO) == 0) {
        cduk__def_iterator_method(ctx, cduk__return_this);
    } else {
        int serves;
        const char *tag;
        if (strcmp(stash_key, CDUK__STASH_MAP_ITERATOR_PROTO) == 0) {
            serves = CDUK__ITER_MAP, tag = "Map Iterator";
        } else if (strcmp(stash_key, CDUK__STASH_SET_ITERATOR_PROTO) == 0) {
            serves = CDUK__ITER_SET, tag = "Set Iterator";
        } else if (strcmp(stash_key, CDUK__STASH_ARRAY_ITERATOR_PROTO) == 0) {
            serves = CDUK__ITER_ARRAY, tag = "Array Iterator";
        } else {
            serves = CDUK__ITER_STRING, tag = "String Iterator";
        }
        cduk__push_iterator_prototype(ctx, CDUK__STASH_ITERATOR_PROTO);
        duk_set_prototype(ctx, -2);
        cduk__def_function(ctx, "next", cduk__iterator_next, 0, 0, serves);
        cduk__def_tag(ctx, tag);
    }
    duk_dup_top(ctx);
    duk_put_prop_string(ctx, -3, stash_key);
    duk_remove(ctx, -2);
}

/* ---- Installation ------------------------------------------------------------------------ */

/* [obj] -> [obj]: obj[alias] = obj[name] (one function object under two keys, as the spec). */
static void cduk__def_alias(duk_context *ctx, const char *alias, const char *name) {
    duk_push_string(ctx, alias);
    duk_get_prop_string(ctx, -2, name);
    duk_def_prop(ctx, -3, CDUK_BUILTIN_PROP);
}

/* [obj] -> [obj]: a getter `name` (magic). */
static void cduk__def_getter(duk_context *ctx, const char *name, duk_c_function fn, int magic) {
    duk_push_string(ctx, name);
    duk_push_c_function(ctx, fn, 0);
    duk_set_magic(ctx, -1, magic);
    duk_push_literal(ctx, "name");
    duk_push_sprintf(ctx, "get %s", name);
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE |
                              DUK_DEFPROP_FORCE);
}

/* Defines the constructor `kind` on owner (the global object at `owner`). */
void cduk_install_collection(duk_context *ctx, duk_idx_t owner, int kind) {
    const char *name = cduk__kind_names[kind];
    owner = duk_normalize_index(ctx, owner);
    duk_push_string(ctx, name);
    duk_push_c_function(ctx, cduk__collection_constructor, 1); /* [name ctor] */
    duk_set_magic(ctx, -1, kind);
    duk_push_literal(ctx, "name");
    duk_push_string(ctx, name);
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
    duk_push_literal(ctx, "length");
    duk_push_int(ctx, 0);
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
    duk_push_object(ctx); /* [name ctor proto] */
    switch (kind) {
    case CDUK__MAP:
        cduk__def_function(ctx, "get", cduk__collection_lookup, 1, 1, kind << 4 | CDUK__M_GET);
        cduk__def_function(ctx, "set", cduk__collection_put, 2, 2, kind);
        cduk__def_function(ctx, "has", cduk__collection_lookup, 1, 1, kind << 4 | CDUK__M_HAS);
        cduk__def_function(ctx, "delete", cduk__collection_lookup, 1, 1, kind << 4 | CDUK__M_DELETE);
        cduk__def_function(ctx, "clear", cduk__collection_clear, 0, 0, kind);
        cduk__def_function(ctx, "entries", cduk__collection_iterator, 0, 0, kind << 4 | CDUK__ITER_ENTRIES);
        cduk__def_function(ctx, "forEach", cduk__collection_for_each, 2, 1, kind);
        cduk__def_function(ctx, "keys", cduk__collection_iterator, 0, 0, kind << 4 | CDUK__ITER_KEYS);
        cduk__def_getter(ctx, "size", cduk__collection_size, kind);
        cduk__def_function(ctx, "values", cduk__collection_iterator, 0, 0, kind << 4 | CDUK__ITER_VALUES);
        cduk__def_alias(ctx, CDUK__SYMBOL_ITERATOR, "entries");
        break;
    case CDUK__SET:
        cduk__def_function(ctx, "has", cduk__collection_lookup, 1, 1, kind << 4 | CDUK__M_HAS);
        cduk__def_function(ctx, "add", cduk__collection_put, 1, 1, kind);
        cduk__def_function(ctx, "delete", cduk__collection_lookup, 1, 1, kind << 4 | CDUK__M_DELETE);
        cduk__def_function(ctx, "clear", cduk__collection_clear, 0, 0, kind);
        cduk__def_function(ctx, "entries", cduk__collection_iterator, 0, 0, kind << 4 | CDUK__ITER_ENTRIES);
        cduk__def_function(ctx, "forEach", cduk__collection_for_each, 2, 1, kind);
        cduk__def_getter(ctx, "size", cduk__collection_size, kind);
        cduk__def_function(ctx, "values", cduk__collection_iterator, 0, 0, kind << 4 | CDUK__ITER_VALUES);
        cduk__def_alias(ctx, "keys", "values");
        cduk__def_alias(ctx, CDUK__SYMBOL_ITERATOR, "values");
        break;
    case CDUK__WEAK_MAP:
        cduk__def_function(ctx, "delete", cduk__weak_method, 1, 1, kind << 4 | CDUK__M_DELETE);
        cduk__def_function(ctx, "get", cduk__weak_method, 1, 1, kind << 4 | CDUK__M_GET);
        cduk__def_function(ctx, "set", cduk__weak_method, 2, 2, kind << 4 | CDUK__M_SET);
        cduk__def_function(ctx, "has", cduk__weak_method, 1, 1, kind << 4 | CDUK__M_HAS);
        break;
    default:
        cduk__def_function(ctx, "add", cduk__weak_method, 1, 1, kind << 4 | CDUK__M_ADD);
        cduk__def_function(ctx, "delete", cduk__weak_method, 1, 1, kind << 4 | CDUK__M_DELETE);
        cduk__def_function(ctx, "has", cduk__weak_method, 1, 1, kind << 4 | CDUK__M_HAS);
        break;
    }
    cduk__def_tag(ctx, name);
    duk_push_literal(ctx, "constructor");
    duk_dup(ctx, -3);
    duk_def_prop(ctx, -3, CDUK_BUILTIN_PROP);
    duk_push_literal(ctx, "prototype");
    duk_insert(ctx, -2);
    duk_def_prop(ctx, -3, CDUK_FIXED_PROP); /* [name ctor] */
    duk_def_prop(ctx, owner, CDUK_BUILTIN_PROP);
}

/* Defines keys, values, entries and @@iterator (= values) on Array.prototype at `owner`. */
void cduk_install_array_iteration(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    duk_dup(ctx, owner);
    cduk__def_function(ctx, "keys", cduk__array_iterator, 0, 0, CDUK__ITER_KEYS);
    cduk__def_function(ctx, "values", cduk__array_iterator, 0, 0, CDUK__ITER_VALUES);
    cduk__def_function(ctx, "entries", cduk__array_iterator, 0, 0, CDUK__ITER_ENTRIES);
    cduk__def_alias(ctx, CDUK__SYMBOL_ITERATOR, "values");
    duk_pop(ctx);
}

/* Defines @@iterator on String.prototype at `owner`. */
void cduk_install_string_iteration(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) unused;
    duk_dup(ctx, owner);
    cduk__def_iterator_method(ctx, cduk__string_iterator);
    duk_pop(ctx);
}

