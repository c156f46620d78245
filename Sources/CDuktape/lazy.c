/*
 * Built-ins made on first use. A realm gets, for each name in the table below, an accessor on its
 * owner (the global object, Array.prototype...): one getter function per owner (the owner is kept
 * on it) and one setter for all, since Duktape passes the property key to accessors as an extra
 * argument. The first read runs the entry's installer, which defines the real data properties (it
 * may define several names at once, each of which has its own entry) in place of the accessors,
 * then reads the value. So a context that never names `Map` or `Array.prototype.find` pays a few
 * property slots for them, not their function objects (W1).
 *
 * What a script can see before first use: the names, as keys of their owner, and the accessor
 * through Annex B's __lookupGetter__/__lookupSetter__; the descriptor functions and
 * Object.defineProperty(ies) make the built-in first (cduk_make_lazy, from cduk_get_own_prop_desc
 * and cduk_object_define_property). Assignment and delete behave as on the data property (the
 * setter defines a data property on the receiver).
 */
#include "cduk_internal.h"

#include <stdio.h>
#include <string.h>

#define CDUK__ORIGINAL_PREFIX "\xff" "LazyOriginal:"

typedef struct {
    cduk_realm_object owner;
    const char *key;
    cduk_installer install;
    int argument;
    int replaces; /* the owner has a value under this key already (kept: cduk_get_original) */
} cduk__lazy_entry;

#define CDUK__ITERATOR DUK_WELLKNOWN_SYMBOL("Symbol.iterator")

/* Grouped by owner (install walks it in order). */
static const cduk__lazy_entry cduk__lazy_entries[] = {
    { CDUK_REALM_GLOBAL, "Map", cduk_install_collection, 1, 0 },
    { CDUK_REALM_GLOBAL, "Set", cduk_install_collection, 2, 0 },
    { CDUK_REALM_GLOBAL, "WeakMap", cduk_install_collection, 3, 0 },
    { CDUK_REALM_GLOBAL, "WeakSet", cduk_install_collection, 4, 0 },
    { CDUK_REALM_GLOBAL, "Promise", cduk_install_promise_globals, 0, 0 },
    { CDUK_REALM_GLOBAL, "AggregateError", cduk_install_promise_globals, 0, 0 },
    /* Math and Reflect are reachable only through their global names: made complete on its first
     * read (one accessor, not one per function). */
    { CDUK_REALM_GLOBAL, "Math", cduk_install_math, 0, 1 },
    { CDUK_REALM_GLOBAL, "Reflect", cduk_install_reflect, 0, 1 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "keys", cduk_install_array_iteration, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "values", cduk_install_array_iteration, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "entries", cduk_install_array_iteration, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, CDUK__ITERATOR, cduk_install_array_iteration, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "includes", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "find", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "findIndex", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "findLast", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "findLastIndex", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "fill", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "flat", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "flatMap", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "copyWithin", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_PROTOTYPE, "at", cduk_install_array_methods, 0, 0 },
    { CDUK_REALM_ARRAY_CONSTRUCTOR, "from", cduk_install_array_statics, 0, 0 },
    { CDUK_REALM_ARRAY_CONSTRUCTOR, "of", cduk_install_array_statics, 0, 0 },
    { CDUK_REALM_OBJECT_CONSTRUCTOR, "entries", cduk_install_object_statics, 0, 0 },
    { CDUK_REALM_OBJECT_CONSTRUCTOR, "values", cduk_install_object_statics, 0, 0 },
    { CDUK_REALM_OBJECT_CONSTRUCTOR, "fromEntries", cduk_install_object_statics, 0, 0 },
    { CDUK_REALM_OBJECT_CONSTRUCTOR, "getOwnPropertyDescriptors", cduk_install_object_statics, 0, 0 },
    { CDUK_REALM_OBJECT_CONSTRUCTOR, "hasOwn", cduk_install_object_statics, 0, 0 },
    /* Duktape's own (which assigns) is replaced, not kept. */
    { CDUK_REALM_OBJECT_CONSTRUCTOR, "getOwnPropertyDescriptor", cduk_install_object_statics, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, CDUK__ITERATOR, cduk_install_string_iteration, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "padStart", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "padEnd", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "trimStart", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "trimEnd", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "trimLeft", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "trimRight", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "at", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "matchAll", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_PROTOTYPE, "normalize", cduk_install_string_methods, 0, 0 },
    { CDUK_REALM_STRING_CONSTRUCTOR, "raw", cduk_install_string_statics, 0, 0 },
    { CDUK_REALM_SYMBOL_CONSTRUCTOR, "asyncIterator", cduk_install_symbol_statics, 0, 0 },
    { CDUK_REALM_SYMBOL_PROTOTYPE, "description", cduk_install_symbol_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "indexOf", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "lastIndexOf", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "join", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "forEach", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "every", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "some", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "reduce", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "reduceRight", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "reverse", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "keys", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "values", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "entries", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "includes", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "find", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "findIndex", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "findLast", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "findLastIndex", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "fill", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "at", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "copyWithin", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "slice", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "map", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "filter", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, "sort", cduk_install_typed_array_methods, 0, 0 },
    { CDUK_REALM_TYPED_ARRAY_PROTOTYPE, CDUK__ITERATOR, cduk_install_typed_array_methods, 0, 0 },
};
#define CDUK__LAZY_COUNT (sizeof cduk__lazy_entries / sizeof cduk__lazy_entries[0])

/* [] -> [the hidden key under which the owner keeps its original `name`]. */
static void cduk__push_original_key(duk_context *ctx, const char *name) {
    char key[64];
    (void) snprintf(key, sizeof key, "%s%s", CDUK__ORIGINAL_PREFIX, name); /* names are short */
    duk_push_string(ctx, key);
}

void cduk_get_original(duk_context *ctx, duk_idx_t owner, const char *name) {
    owner = duk_normalize_index(ctx, owner);
    cduk__push_original_key(ctx, name);
    (void) cduk_get_own_keyed(ctx, owner);
}

/* The getter of a lazy property: magic = its owner's kind; the key is Duktape's extra argument.
 * The owner is the object on the receiver's prototype chain that holds this accessor (so a
 * getter reached from another realm installs into its own realm's owner). */
/* An installer defines every name of its group (the entries with its owner, installer and
 * argument) at once. What a script did to the other names of the group before stays as it was: a
 * name it assigned, defined or deleted is put back after the installer ran. And a pending name
 * the script made non-configurable (Object.freeze or Object.seal of the owner) becomes a data
 * property that is non-configurable too, and read-only when the owner is frozen. */
#define CDUK__GROUP_MAX 32

static int cduk__same_group(const cduk__lazy_entry *a, const cduk__lazy_entry *b) {
    return a->owner == b->owner && a->install == b->install && a->argument == b->argument;
}

/* [key desc] -> []: owner[key] defined (forced) as the descriptor cduk_get_prop_desc made says;
 * only the descriptor's own properties are read. */
static void cduk__define_from_descriptor(duk_context *ctx, duk_idx_t owner) {
    duk_idx_t desc = duk_get_top_index(ctx);
    duk_uint_t flags = DUK_DEFPROP_FORCE;
    duk_push_literal(ctx, "get");
    int accessor = cduk_get_own_keyed(ctx, desc); /* [key desc get] */
    if (accessor) {
        flags |= DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_HAVE_SETTER;
        if (duk_is_undefined(ctx, -1)) {
            duk_pop(ctx);
            duk_push_undefined(ctx);
        }
        duk_push_literal(ctx, "set");
        (void) cduk_get_own_keyed(ctx, desc); /* [key desc get set] */
    } else {
        duk_pop(ctx);
        duk_push_literal(ctx, "value");
        (void) cduk_get_own_keyed(ctx, desc); /* [key desc value] */
        flags |= DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_HAVE_WRITABLE;
        duk_push_literal(ctx, "writable");
        (void) cduk_get_own_keyed(ctx, desc);
        flags |= duk_to_boolean(ctx, -1) ? DUK_DEFPROP_WRITABLE : 0;
        duk_pop(ctx);
    }
    duk_push_literal(ctx, "enumerable");
    (void) cduk_get_own_keyed(ctx, desc);
    flags |= DUK_DEFPROP_HAVE_ENUMERABLE | (duk_to_boolean(ctx, -1) ? DUK_DEFPROP_ENUMERABLE : 0);
    duk_pop(ctx);
    duk_push_literal(ctx, "configurable");
    (void) cduk_get_own_keyed(ctx, desc);
    flags |= DUK_DEFPROP_HAVE_CONFIGURABLE | (duk_to_boolean(ctx, -1) ? DUK_DEFPROP_CONFIGURABLE : 0);
    duk_pop(ctx);
    duk_remove(ctx, desc); /* [key value] or [key get set] */
    duk_def_prop(ctx, owner, flags);
}

/* [owner] -> [undefined]: the installer (udata) on the owner, called protected. */
static duk_ret_t cduk__install_body(duk_context *ctx, void *udata) {
    const cduk__lazy_entry *entry = (const cduk__lazy_entry *) udata;
    entry->install(ctx, duk_get_top_index(ctx), entry->argument);
    return 0;
}

/* Runs the installer of owner's entry `key` (of kind `kind`); 0 when there is none. */
static int cduk__lazy_install(duk_context *ctx, duk_idx_t owner, cduk_realm_object kind, const char *key, duk_size_t length) {
    const cduk__lazy_entry *entry = NULL;
    for (size_t i = 0; i < CDUK__LAZY_COUNT && entry == NULL; i++) {
        const cduk__lazy_entry *candidate = &cduk__lazy_entries[i];
        if (candidate->owner == kind && strlen(candidate->key) == length && memcmp(candidate->key, key, length) == 0) {
            entry = candidate;
        }
    }
    if (entry == NULL) {
        return 0;
    }
    owner = duk_normalize_index(ctx, owner);
    /* Before: each name's state, and the descriptor of each name the script changed. */
    int states[CDUK__GROUP_MAX];
    size_t group[CDUK__GROUP_MAX], count = 0;
    duk_idx_t saved = duk_push_bare_array(ctx);
    for (size_t i = 0; i < CDUK__LAZY_COUNT && count < CDUK__GROUP_MAX; i++) {
        if (!cduk__same_group(&cduk__lazy_entries[i], entry)) {
            continue;
        }
        duk_push_string(ctx, cduk__lazy_entries[i].key);
        int state = cduk_own_property_state(ctx, owner);
        if (state & CDUK_OWN_PRESENT && !(state & CDUK_OWN_PENDING_LAZY)) {
            cduk_get_prop_desc(ctx, owner); /* [.. desc] */
        } else {
            duk_pop(ctx);
            duk_push_undefined(ctx);
        }
        duk_put_prop_index(ctx, saved, (duk_uarridx_t) count);
        states[count] = state;
        group[count++] = i;
    }
    int frozen = cduk_looks_frozen(ctx, owner);
    /* Protected: an installer can fail partway (the memory limit, or a script's getter it reads),
     * and what it defined must still be put back before the error goes on. */
    duk_dup(ctx, owner);
    int failed = duk_safe_call(ctx, cduk__install_body, (void *) entry, 1, 1) != DUK_EXEC_SUCCESS;
    duk_idx_t outcome = duk_get_top_index(ctx); /* the error, or undefined */
    /* After: the script's changes put back, and frozen or sealed names kept so. */
    for (size_t n = 0; n < count; n++) {
        int state = states[n];
        duk_push_string(ctx, cduk__lazy_entries[group[n]].key);
        if (state & CDUK_OWN_PENDING_LAZY) {
            int now = cduk_own_property_state(ctx, owner);
            if ((now & CDUK_OWN_PENDING_LAZY) || ((state & CDUK_OWN_CONFIGURABLE) && !(state & CDUK_OWN_ENUMERABLE))) {
                duk_pop(ctx); /* not made (a failed installer), or made as the accessor stood: as it is */
                continue;
            }
            /* The attributes the script gave the accessor, on what the installer made (a data
             * property, or an accessor such as Symbol.prototype.description: its value is not
             * read, so no getter runs). Read-only when the owner was frozen. */
            duk_uint_t flags = DUK_DEFPROP_FORCE | DUK_DEFPROP_HAVE_CONFIGURABLE | DUK_DEFPROP_HAVE_ENUMERABLE |
                               (state & CDUK_OWN_CONFIGURABLE ? DUK_DEFPROP_CONFIGURABLE : 0) |
                               (state & CDUK_OWN_ENUMERABLE ? DUK_DEFPROP_ENUMERABLE : 0);
            if (!(now & CDUK_OWN_ACCESSOR)) {
                flags |= DUK_DEFPROP_HAVE_WRITABLE | (frozen ? 0 : DUK_DEFPROP_WRITABLE);
            }
            duk_def_prop(ctx, owner, flags);
        } else if (!(state & CDUK_OWN_PRESENT)) {
            duk_del_prop(ctx, owner); /* deleted by the script: the installer's one goes */
        } else {
            duk_get_prop_index(ctx, saved, (duk_uarridx_t) n); /* [.. key desc] */
            cduk__define_from_descriptor(ctx, owner);
        }
    }
    if (failed) {
        duk_dup(ctx, outcome);
        (void) duk_throw(ctx);
    }
    duk_pop_2(ctx); /* saved, outcome */
    return 1;
}

duk_ret_t cduk_lazy_get(duk_context *ctx) {
    cduk_realm_object kind = (cduk_realm_object) duk_get_current_magic(ctx);
    duk_size_t length = 0;
    const char *key = duk_get_lstring(ctx, 0, &length);
    if (key == NULL) {
        return 0;
    }
    duk_push_current_function(ctx); /* [key fn] */
    duk_push_this(ctx);
    if (duk_is_null_or_undefined(ctx, 2)) {
        cduk_push_realm_object(ctx, kind);
        duk_replace(ctx, 2);
    }
    duk_dup(ctx, 2);
    duk_to_object(ctx, -1); /* [key fn this owner?] */
    for (int depth = 0;; depth++) {
        duk_dup(ctx, 0);
        int found = cduk_is_own_accessor_getter(ctx, 3, 1);
        duk_pop(ctx);
        if (found) {
            break;
        }
        duk_get_prototype(ctx, 3);
        if (!duk_is_object(ctx, -1) || depth > 1000) {
            duk_pop(ctx);
            cduk_push_realm_object(ctx, kind); /* not on the chain (a getter called directly) */
            duk_replace(ctx, 3);
            break;
        }
        duk_replace(ctx, 3);
    }
    if (!cduk__lazy_install(ctx, 3, kind, key, length)) {
        return 0;
    }
    /* Read through the receiver: an accessor the installer defined (a getter such as
     * Symbol.prototype.description) must see the real `this`. */
    duk_dup(ctx, 0);
    duk_get_prop(ctx, 2);
    return 1;
}

void cduk_make_lazy(duk_context *ctx, duk_idx_t owner, duk_idx_t getter) {
    duk_size_t length = 0;
    const char *key = duk_get_lstring(ctx, -1, &length);
    if (key != NULL) {
        (void) cduk__lazy_install(ctx, owner, (cduk_realm_object) duk_get_magic(ctx, getter), key, length);
    }
}

int cduk_is_pending_lazy(duk_context *ctx, duk_idx_t owner, const char *name) {
    owner = duk_normalize_index(ctx, owner);
    duk_push_string(ctx, name);
    int pending = (cduk_own_property_state(ctx, owner) & CDUK_OWN_PENDING_LAZY) != 0;
    duk_pop(ctx);
    return pending;
}

/* [key value] -> []: owner[key] = value as a data property, without throwing (a frozen or
 * non-extensible object refuses it, as ordinary assignment would). */
typedef struct {
    duk_uint_t flags;
} cduk__lazy_define;

static duk_ret_t cduk__lazy_define_body(duk_context *ctx, void *udata) {
    const cduk__lazy_define *define = (const cduk__lazy_define *) udata;
    duk_def_prop(ctx, -3, define->flags);
    return 0;
}

/* The setter: assignment makes a data property on the receiver, as it would with the writable
 * data property the accessor stands for; on the owner itself it stays non-enumerable. Only for
 * a key this accessor stands for on the receiver's chain (the setter is reachable through any
 * pending accessor's descriptor: called on another object or key, it does nothing), and never
 * forced: a frozen or non-extensible receiver keeps its properties. */
static duk_ret_t cduk__lazy_set(duk_context *ctx) {
    /* [value key] */
    duk_push_this(ctx);
    if (!duk_is_object(ctx, 2) || !duk_is_string(ctx, 1)) {
        return 0;
    }
    duk_push_current_function(ctx); /* [value key this setter] */
    duk_dup(ctx, 2);                /* [.. holder] */
    int on_owner = -1;
    for (int depth = 0; depth < 10000 && duk_is_object(ctx, -1); depth++) {
        duk_dup(ctx, 1);
        cduk_get_prop_desc(ctx, -2); /* [.. holder desc] */
        if (duk_is_object(ctx, -1)) {
            duk_get_prop_literal(ctx, -1, "set");
            int ours = duk_strict_equals(ctx, -1, 3);
            duk_pop_2(ctx);
            if (ours) {
                on_owner = depth == 0;
            }
            break; /* the first own property of that key decides */
        }
        duk_pop(ctx);
        duk_get_prototype(ctx, -1);
        duk_remove(ctx, -2);
    }
    if (on_owner < 0) {
        return 0;
    }
    cduk__lazy_define define = { DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_SET_CONFIGURABLE |
                                 (on_owner ? DUK_DEFPROP_CLEAR_ENUMERABLE : DUK_DEFPROP_SET_ENUMERABLE) };
    duk_set_top(ctx, 3);
    duk_dup(ctx, 2);
    duk_dup(ctx, 1);
    duk_dup(ctx, 0); /* [value key this this key value] */
    (void) duk_safe_call(ctx, cduk__lazy_define_body, &define, 3, 1);
    return 0;
}

void cduk_install_lazy_builtins(duk_context *ctx) {
    duk_require_stack(ctx, 10);
    duk_push_c_function(ctx, cduk__lazy_set, 2); /* [setter] */
    duk_idx_t setter = duk_get_top_index(ctx);
    cduk_realm_object current = CDUK_REALM_OBJECT_COUNT;
    for (size_t i = 0; i < CDUK__LAZY_COUNT; i++) {
        const cduk__lazy_entry *entry = &cduk__lazy_entries[i];
        if (entry->owner != current) {
            duk_set_top(ctx, setter + 1);
            current = entry->owner;
            cduk_push_realm_object(ctx, current);        /* [setter owner] */
            duk_push_c_function(ctx, cduk_lazy_get, 1); /* [setter owner getter] */
            duk_set_magic(ctx, -1, (int) current);
            duk_uint32_t count = 0;
            for (size_t j = i; j < CDUK__LAZY_COUNT && cduk__lazy_entries[j].owner == current; j++) {
                count++;
            }
            cduk_reserve_more_properties(ctx, setter + 1, count); /* one reallocation, not several */
        }
        if (!duk_is_object(ctx, setter + 1)) {
            continue;
        }
        if (entry->replaces) {
            cduk__push_original_key(ctx, entry->key);
            duk_get_prop_string(ctx, setter + 1, entry->key);
            cduk_put_own_keyed(ctx, setter + 1);
        }
        duk_push_string(ctx, entry->key);
        if (!cduk_define_lazy_accessor(ctx, setter + 1, setter + 2, setter)) {
            duk_push_string(ctx, entry->key);
            duk_dup(ctx, setter + 2);
            duk_dup(ctx, setter);
            duk_def_prop(ctx, setter + 1, DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_HAVE_SETTER |
                                              DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE |
                                              DUK_DEFPROP_FORCE);
        }
    }
    duk_set_top(ctx, setter);
}
