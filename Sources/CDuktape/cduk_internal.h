/*
 * What engine.c and shims.c share with each other, and Swift never calls. Not in include/,
 * so Swift does not see it.
 *
 * engine.c compiles Duktape itself (single-file: its internals are static there), so the shims
 * that need engine internals live in engine.c; the others live in shims.c.
 */
#ifndef CDUK_INTERNAL_H
#define CDUK_INTERNAL_H

#include "CDuktape.h"

#include <stdarg.h>

#pragma clang assume_nonnull begin

/* ---- Errors our C code raises ------------------------------------------------- */

/* An error thrown or made by our C built-ins blames the script that called them, as Duktape's own
 * built-ins do: its fileName and lineNumber (and the uncaught-error line) name the caller's file
 * and line, never a C file of this package. Duktape spells the flag
 * DUK_ERRCODE_FLAG_NOBLAME_FILELINE in duk_api_internal.h, which engine.c sees but the other files
 * do not; the value is the same in every 2.x release. No C file is passed. Duktape's own spellings
 * are poisoned below so that a new call site cannot blame a C file by accident. */
#define CDUK_NOBLAME ((duk_errcode_t) (1L << 24))

/* Their messages are printf formats, checked by the compiler (a stray '%' in a message read an
 * argument that was never passed, and showed a pointer to the script): format warnings are errors
 * in this package's C. */
#pragma clang diagnostic error "-Wformat"
#pragma clang diagnostic error "-Wformat-security"

__attribute__((noreturn, format(printf, 3, 4))) static inline void cduk__raise(duk_context *ctx, duk_errcode_t code,
                                                                              const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    duk_error_va_raw(ctx, code | CDUK_NOBLAME, NULL, 0, format, arguments);
    va_end(arguments); /* not reached */
}

__attribute__((format(printf, 3, 4))) static inline duk_idx_t cduk_push_error_object(duk_context *ctx, duk_errcode_t code,
                                                                                    const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    duk_idx_t index = duk_push_error_object_va_raw(ctx, code | CDUK_NOBLAME, NULL, 0, format, arguments);
    va_end(arguments);
    return index;
}

#define cduk_type_error(ctx, ...) (cduk__raise((ctx), DUK_ERR_TYPE_ERROR, __VA_ARGS__), (duk_ret_t) 0)
#define cduk_range_error(ctx, ...) (cduk__raise((ctx), DUK_ERR_RANGE_ERROR, __VA_ARGS__), (duk_ret_t) 0)
#undef duk_error
#undef duk_generic_error
#undef duk_eval_error
#undef duk_range_error
#undef duk_reference_error
#undef duk_syntax_error
#undef duk_type_error
#undef duk_uri_error
#undef duk_push_error_object
#pragma GCC poison duk_error duk_generic_error duk_eval_error duk_range_error duk_reference_error
#pragma GCC poison duk_syntax_error duk_type_error duk_uri_error duk_push_error_object


/* ---- Engine hooks (the configuration overlay in engine.c names them) ---------- */

/* Called by Duktape's interrupt counter (DUK_USE_EXEC_TIMEOUT_CHECK); non-zero when the
 * heap's deadline has passed. engine.c. */
duk_bool_t cduk_exec_timeout_check(void *_Nullable udata);

/* What the engine is doing, for the allocator (see cduk__refused_for_limit): CDUK_MAKING_ERROR
 * while Duktape makes the error it is about to throw, CDUK_COLLECTING while it collects
 * garbage. engine.c. */
enum { CDUK_MAKING_ERROR = 1, CDUK_COLLECTING = 2 };
int cduk_heap_activity(void *_Nullable engine_heap);

/* Records in state->limit_site where the running script is (see cduk_limit_site); allocates
 * nothing. Does nothing without a site, a running thread, or while the engine makes an error or
 * collects garbage. engine.c. */
int cduk_record_limit_site(cduk_heap_state *state);
/* The same, when the deadline first stops the script (cduk_limit_site.deadline_mark). */
void cduk_record_deadline_site(cduk_heap_state *state);

/* The call-depth limit of the heap whose udata is `udata` (DUK_USE_CALLSTACK_LIMIT): the
 * state's callstack_limit, or Duktape's default 10,000. engine.c. */
uint32_t cduk_callstack_limit(void *_Nullable udata);

/* Called at every native recursion point (DUK_USE_NATIVE_STACK_CHECK, with the heap's udata):
 * non-zero when the thread's native stack is low (cduk_native_stack_low), or when the heap's
 * deadline has passed, so that native loops that recurse without running bytecode (a
 * backtracking regexp) stop at the deadline too. shims.c. */
int cduk_native_check(void *_Nullable udata);


/* True while Duktape is calling a finalizer on `engine_heap` (a duk_heap; NULL gives 0).
 * engine.c. */
int cduk_heap_finalizing(void *_Nullable engine_heap);

/* The registry write without a protected call when it cannot fail (the slot inside the array
 * part and .length); 0 when the caller must use the protected put. engine.c. */
int cduk__registry_fast(duk_context *ctx, void *registry, uint32_t slot, int clear);

/* The duk_heap of a context, for cduk_heap_state.engine_heap. engine.c. */
void *cduk_engine_heap(duk_context *ctx);

/* ---- Property flags of the built-ins --------------------------------------------- */

/* A built-in method or constructor (writable, configurable, not enumerable); a function's own
 * `name` or `length`, a tag (read-only, configurable); a fixed slot (read-only, permanent). */
#define CDUK_BUILTIN_PROP (DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE | \
                           DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_FORCE)
#define CDUK_NAME_PROP (DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_CLEAR_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE | \
                        DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_FORCE)
#define CDUK_FIXED_PROP (DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_CLEAR_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE | \
                         DUK_DEFPROP_CLEAR_CONFIGURABLE | DUK_DEFPROP_FORCE)

/* ---- Objects the library fills ----------------------------------------------------- */

/* Own data properties (writable, enumerable, configurable) defined, never assigned: the spec's
 * CreateDataProperty. An assignment would call a setter that a script put on Object.prototype
 * or Array.prototype ("value", "done", "0", "1"), handing it the library's own objects. */
#define CDUK_DEFINE_DATA (DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WEC)

/* [.. value] -> [..]: obj[index] = value, defined. */
static inline void cduk_define_index(duk_context *ctx, duk_idx_t obj, duk_uarridx_t index) {
    obj = duk_normalize_index(ctx, obj);
    duk_push_uint(ctx, index);
    duk_swap_top(ctx, -2);
    duk_def_prop(ctx, obj, CDUK_DEFINE_DATA);
}

/* [.. value] -> [.. {value, done}]: an iterator result, its properties defined. */
static inline void cduk_push_iter_result(duk_context *ctx, int done) {
    duk_push_object(ctx);
    duk_push_literal(ctx, "value");
    duk_dup(ctx, -3);
    duk_def_prop(ctx, -3, CDUK_DEFINE_DATA);
    duk_push_literal(ctx, "done");
    duk_push_boolean(ctx, done);
    duk_def_prop(ctx, -3, CDUK_DEFINE_DATA);
    duk_remove(ctx, -2);
}

/* [.. a b] -> [.. [a, b]]: an entry pair, defined. */
static inline void cduk_push_pair(duk_context *ctx) {
    duk_push_array(ctx);
    duk_insert(ctx, -3);
    cduk_define_index(ctx, -3, 1);
    cduk_define_index(ctx, -2, 0);
}

/* ---- Protected calls ------------------------------------------------------------- */

/* duk_safe_call with the calling convention of the cduk_p* functions (see CDuktape.h): the
 * reserve is checked first (CDUK_EXEC_NOSTACK), and the error value is always kept. shims.c. */
duk_int_t cduk__protect(duk_context *ctx, duk_safe_call_function fn, void *_Nullable udata, duk_idx_t nargs,
                        duk_idx_t nrets);

/* The unprotected fast paths of cduk_pget_prop and cduk_pput_prop (engine.c): 1 when done, 0
 * with the stack untouched when the general, protected path is needed. */
int cduk_get_prop_fast(duk_context *ctx);
int cduk_put_prop_fast(duk_context *ctx);

/* The unprotected fast path of cduk_pvisit (engine.c): 1 when it enumerated the object on top,
 * 0 (nothing visited) when the object needs Duktape's general enumerator. */
int cduk_visit_fast(duk_context *ctx, int own_only, cduk_visit_fn visit, void *_Nullable udata);

/* Turns the script hook Duktape.errCreate off (returns the previous state) and back on, around
 * the library's own errors: they are made for the host (a caller's mistake, a limit), and a
 * script's hook must not run there. engine.c. */
int cduk_suspend_error_hooks(duk_context *ctx);
void cduk_restore_error_hooks(duk_context *ctx, int previous);

/* The reference count of the object at `idx` (0 for anything else). engine.c. */
uint32_t cduk_refcount_at(duk_context *ctx, duk_idx_t idx);

/* The box of the function being called (engine.c), for the host-function trampoline. */
void *_Nullable cduk_callee_box(duk_context *ctx);

/* [] -> [built-in]: the realm's own built-in (not the global of that name). May throw: call it
 * inside a protected body. engine.c. */
void cduk_push_builtin(duk_context *ctx, cduk_builtin builtin);

/* The cduk_heap_state of ctx's heap (its udata). engine.c. */
void *_Nullable cduk_heap_state_of(duk_context *ctx);

/* True when ctx runs as a coroutine (resumed by another thread, Duktape.Thread.resume): its
 * realm's main thread is another one. engine.c. */
int cduk_is_resumed_coroutine(duk_context *ctx);
/* The global object of ctx's realm (an address to compare, not a reference). engine.c. */
void *_Nullable cduk_realm_global(duk_context *ctx);

/* [] -> [the thread at the root of ctx's resume chain: the one running the current call].
 * engine.c. */
void cduk_push_resume_root(duk_context *ctx);

/* duk_get_prop_desc(ctx, obj_idx, 0) with the descriptor's properties defined, not assigned
 * (Duktape's assigns, and runs setters a script put on Object.prototype). [.. key] ->
 * [.. desc|undefined]. May throw. engine.c. */
void cduk_get_prop_desc(duk_context *ctx, duk_idx_t obj_idx);

/* cduk_get_prop_desc for Object.getOwnPropertyDescriptor(s) and Reflect's: a built-in not made
 * yet (its key still the lazy accessor of lazy.c) is made first, so a script sees the property it
 * stands for, a data property or the real accessor. May throw. engine.c. */
void cduk_get_own_prop_desc(duk_context *ctx, duk_idx_t obj_idx);

/* Object.defineProperty (magic 0; Reflect.defineProperty, magic 1) and Object.defineProperties:
 * Duktape's, once a built-in still pending under the key (under any key of O, for
 * defineProperties) is made. engine.c. */
duk_ret_t cduk_object_define_property(duk_context *ctx);
duk_ret_t cduk_object_define_properties(duk_context *ctx);
/* Object.prototype.__defineGetter__ (magic 0) and __defineSetter__ (magic 1), likewise. */
duk_ret_t cduk_object_define_accessor(duk_context *ctx);

/* Makes the function at idx one that `new` refuses (a built-in method). engine.c. */
void cduk_clear_constructable(duk_context *ctx, duk_idx_t idx);

/* Replaces, in ctx's realm, Duktape's Object.defineProperty, defineProperties,
 * __defineGetter__, __defineSetter__ (they make a pending built-in first) and
 * Array.prototype.sort (a stable sort). methods.c. */
void cduk_install_replaced_builtins(duk_context *ctx);

/* 1 when the value at idx is a typed array (Int8Array..Float64Array, or a plain buffer), not an
 * ArrayBuffer or a DataView. Never throws. engine.c. */
int cduk_is_typed_array(duk_context *ctx, duk_idx_t idx);

/* [] -> [the engine's own Symbol.toStringTag]. engine.c. */
void cduk_push_to_string_tag_symbol(duk_context *ctx);

/* Prepares ctx's realm for promises (ctx is the realm's main thread); Promise and AggregateError
 * themselves are made on first need (cduk_install_promise_globals, a lazy entry, or the host's
 * first promise). May throw: call it inside a protected body. promise.c. */
void cduk_install_promise(duk_context *ctx);
void cduk_install_promise_globals(duk_context *ctx, duk_idx_t owner, int unused);

/* True when owner's own property `name` is still a lazy built-in's accessor (not yet made, not
 * replaced or deleted by a script). lazy.c. */
int cduk_is_pending_lazy(duk_context *ctx, duk_idx_t owner, const char *name);

/* With [key] on top (left there): what the object at obj_idx has under key, as flags
 * (CDUK_OWN_*; 0 when it has no own property). Allocates nothing. engine.c. */
enum {
    CDUK_OWN_PRESENT = 1,
    CDUK_OWN_CONFIGURABLE = 2,
    CDUK_OWN_ENUMERABLE = 4,
    CDUK_OWN_PENDING_LAZY = 16, /* the accessor of a built-in not made yet (cduk_lazy_get) */
    CDUK_OWN_ACCESSOR = 32
};
int cduk_own_property_state(duk_context *ctx, duk_idx_t obj_idx);

/* [] -> [target handler] and 1 for a proxy at idx (a revoked one is a TypeError); [] and 0 for
 * anything else. engine.c. */
int cduk_push_proxy_parts(duk_context *ctx, duk_idx_t idx);

/* 1 when the object at obj_idx is frozen as Object.freeze leaves it: not extensible, no
 * configurable property and no writable data property (Object.isFrozen without running proxy
 * traps). engine.c. */
int cduk_looks_frozen(duk_context *ctx, duk_idx_t obj_idx);

/* The getter of every lazy built-in's accessor (one function per owner). lazy.c. */
duk_ret_t cduk_lazy_get(duk_context *ctx);

/* With [key] on top (left there): makes the built-in that the lazy getter at `getter` stands for
 * under key on the owner at `owner` (the installer defines the real properties), without reading
 * it. Does nothing for a key the getter does not stand for. May throw. lazy.c. */
void cduk_make_lazy(duk_context *ctx, duk_idx_t owner, duk_idx_t getter);

/* ---- Built-ins made on first use (lazy.c, collections.c, methods.c) ---------------------- */

/* Installs the accessors that make ES2015+ built-ins on first use (lazy.c). May throw: call it
 * inside a protected body, on the realm's main thread. */
void cduk_install_lazy_builtins(duk_context *ctx);

/* The realm objects that lazy built-ins are defined on. */
typedef enum cduk_realm_object {
    CDUK_REALM_GLOBAL = 0,
    CDUK_REALM_ARRAY_PROTOTYPE,
    CDUK_REALM_ARRAY_CONSTRUCTOR,
    CDUK_REALM_OBJECT_CONSTRUCTOR,
    CDUK_REALM_STRING_PROTOTYPE,
    CDUK_REALM_STRING_CONSTRUCTOR,
    CDUK_REALM_SYMBOL_CONSTRUCTOR,
    CDUK_REALM_SYMBOL_PROTOTYPE,
    CDUK_REALM_TYPED_ARRAY_PROTOTYPE,
    CDUK_REALM_OBJECT_COUNT
} cduk_realm_object;

/* [] -> [that object of ctx's realm] (undefined when the realm has none). May throw. engine.c. */
void cduk_push_realm_object(duk_context *ctx, cduk_realm_object which);

/* [key] -> []: owner[key] = the accessor (getter, setter), configurable, not enumerable, made as
 * the engine makes its own built-ins' accessors (no descriptor object). Returns 0, with nothing
 * defined, when the owner has the key already or is exotic: the caller then uses duk_def_prop.
 * engine.c. */
int cduk_define_lazy_accessor(duk_context *ctx, duk_idx_t owner, duk_idx_t getter, duk_idx_t setter);

/* With [key] on top (left there): 1 when the object at obj_idx has an own accessor for key
 * whose getter is the function at `getter`. Allocates nothing. engine.c. */
int cduk_is_own_accessor_getter(duk_context *ctx, duk_idx_t obj_idx, duk_idx_t getter);

/* Defines the real properties a lazy entry stands for on the owner at `owner`. */
typedef void (*cduk_installer)(duk_context *ctx, duk_idx_t owner, int argument);
void cduk_install_collection(duk_context *ctx, duk_idx_t owner, int kind);
void cduk_install_array_iteration(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_string_iteration(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_array_methods(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_array_statics(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_object_statics(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_string_methods(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_string_statics(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_math(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_symbol_statics(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_symbol_methods(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_reflect(duk_context *ctx, duk_idx_t owner, int unused);
void cduk_install_typed_array_methods(duk_context *ctx, duk_idx_t owner, int unused);

/* [] -> [the value the owner had under `name` before a lazy entry replaced it]. lazy.c. */
void cduk_get_original(duk_context *ctx, duk_idx_t owner, const char *name);

/* owner[name] = a native function with its name, length and magic (writable, configurable, not
 * enumerable, as built-ins). collections.c. */
void cduk_define_function(duk_context *ctx, duk_idx_t owner, const char *name, duk_c_function fn, duk_idx_t nargs,
                          duk_idx_t length, int magic);

/* The iterator protocol over the iterable at `iterable`: item(ctx, udata, index) is called with
 * each value on top of the stack (it consumes it); when it throws, the iterator is closed (an
 * error of its `return` is ignored) and the first error rethrown. Returns the number of items.
 * collections.c. */
typedef void (*cduk_item_fn)(duk_context *ctx, void *_Nullable udata, double index);
double cduk_for_each_item(duk_context *ctx, duk_idx_t iterable, cduk_item_fn item, void *_Nullable udata);

/* [] -> [the realm's %IteratorPrototype%]. collections.c. */
void cduk_push_iterator_prototype(duk_context *ctx);

/* [] -> [the realm's Duktape object] and [] -> [the realm's Error.prototype]; may throw.
 * engine.c. */
void cduk_push_duktape_object(duk_context *ctx);
void cduk_push_error_prototype(duk_context *ctx);

/* [error] -> []: makes the object on top what the engine throws in ctx's realm when even an
 * error object cannot be made (Duktape's built-in DoubleError, "error in error handling", is
 * replaced), so that running out of memory reaches a script's catch as the realm's
 * preallocated RangeError. Allocates nothing. engine.c. */
void cduk_adopt_as_double_error(duk_context *ctx);

/* ---- Hidden slots (engine.c; for shims.c, inside protected bodies) --------
 * Own properties only, written with DUK_DEFPROP_FORCE: an object's prototype chain
 * and its frozen/sealed/non-extensible state cannot change what DuktapeCore reads or
 * whether its writes land. They may throw (allocation), so call them protected. */

/* [] -> [value]: obj's own property `key`, or undefined (never an inherited one).
 * `key` must be a string literal: it is interned once through Duktape's literal cache. */
#define cduk_get_own_hidden(ctx, obj_idx, key) cduk_get_own_hidden_raw((ctx), (obj_idx), (key), sizeof(key) - 1U)
void cduk_get_own_hidden_raw(duk_context *ctx, duk_idx_t obj_idx, const char *key, duk_size_t length);

/* [value] -> []: defines obj's own property `key` (a string literal) as value, whatever
 * obj's state. */
#define cduk_put_own_hidden(ctx, obj_idx, key) cduk_put_own_hidden_raw((ctx), (obj_idx), (key), sizeof(key) - 1U)
void cduk_put_own_hidden_raw(duk_context *ctx, duk_idx_t obj_idx, const char *key, duk_size_t length);

/* The same with the key (an interned string or symbol, e.g. a hidden symbol made at run time)
 * on the stack: [key] -> [value] (returns 1 when the property exists), [key value] -> [], and
 * [key] -> [] (returns 1 when a property was deleted; deletes whatever its attributes). */
int cduk_get_own_keyed(duk_context *ctx, duk_idx_t obj_idx);
void cduk_put_own_keyed(duk_context *ctx, duk_idx_t obj_idx);
int cduk_del_own_keyed(duk_context *ctx, duk_idx_t obj_idx);

/* ---- Slots by position (engine.c) -------------------------------------------
 * An object the library makes with cduk_define_slots has its first own properties in a fixed
 * order: a slot is then reached by position, its key checked by pointer (one compare), and read
 * or written in place, where a lookup by name interns the key and searches the property table.
 * Whatever is not such a slot (another object, a key elsewhere) falls back to the lookup, so
 * the position is an optimization, never an assumption. Keys are interned once per heap and
 * kept alive in the heap stash (cduk_pin_keys). */

/* Interns `count` (at most CDUK_PINNED_KEYS_MAX) hidden keys (C strings), keeps them alive in
 * the heap stash under `stash_key`, and then stores their interned strings in `out`: when it
 * throws (memory), `out` is left as it was. */
#define CDUK_PINNED_KEYS_MAX 32
void cduk_pin_keys(duk_context *ctx, const char *stash_key, const char *_Nonnull const *_Nonnull keys, void *_Nullable *_Nonnull out, duk_uint32_t count);
/* Defines the `count` keys as the first own properties (writable, configurable, undefined) of
 * the new, empty ordinary object at obj_idx. May throw (memory). */
void cduk_define_slots(duk_context *ctx, duk_idx_t obj_idx, void *_Nullable const *_Nonnull keys, duk_uint32_t count);
/* [] -> [value] and 1 when own property `position` of the object at obj_idx has key `key` (a
 * data property); else 0 and nothing pushed. */
int cduk_slot_get(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key);
/* [value] -> [] and 1 when that slot is there (it is overwritten in place, the old value
 * released after, running no finalizer: see cduk_slots_put); else 0 and the stack unchanged. */
int cduk_slot_put(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key);
/* Several consecutive slots at once, positions position..position+count-1 with keys
 * keys[0..count-1] (at most 8):
 * - put: [v0 ... vn-1] -> [] and 1, written in place (old values released after, running no
 *   finalizer: one waiting runs at the caller's next release, once its object is whole); else
 *   0 and the stack unchanged;
 * - take: [] -> [v0 ... vn-1] and 1, each slot left undefined (nothing is freed); else 0 and
 *   nothing pushed. */
int cduk_slots_put(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable const *_Nonnull keys,
                   duk_uint32_t count);
int cduk_slots_take(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable const *_Nonnull keys,
                    duk_uint32_t count);
/* The slot set to the number `value` and 1 when it is there and holds no heap value; else 0. */
int cduk_slot_set_int(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key, duk_int_t value);
/* The slot's value as an integer when it is there and a number; `missing` otherwise. */
duk_int_t cduk_slot_int(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key, duk_int_t missing);

/* For the library's own bare arrays (the job queue), indices start..start+n-1:
 * - put: [v0 ... vn-1] -> [], the values written there (in place when the array part holds
 *   them, the length raised to cover them; else by duk_put_prop_index);
 * - take: [] -> [v0 ... vn-1], the values read and their places left undefined.
 * May throw (memory, or what a put or a get on another kind of array throws). engine.c. */
void cduk_array_put_range(duk_context *ctx, duk_idx_t arr_idx, duk_uint32_t start, duk_uint32_t count);
void cduk_array_take_range(duk_context *ctx, duk_idx_t arr_idx, duk_uint32_t start, duk_uint32_t count);
/* The items start..end-1 moved to 0..end-start-1 and the length set to end-start; the items
 * below start must have been taken (undefined). In place, without touching a reference count,
 * when the array part holds them; else item by item. May throw as put and take. engine.c. */
void cduk_array_shift_down(duk_context *ctx, duk_idx_t arr_idx, duk_uint32_t start, duk_uint32_t end);

/* Grows obj's property table to hold `count` properties (when it holds fewer), so that the
 * next definitions do not reallocate it one by one. May throw (allocation). engine.c. */
void cduk_reserve_properties(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t count);
/* Grows the array part of the object at obj_idx (if it has one) to hold indices below `count`,
 * at least doubling it: for arrays the library fills one index at a time (the job queue, a
 * combinator's values). May throw (memory). */
void cduk_reserve_array(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t count);

/* Room for one more own property (as Duktape grows an object when a property is added), so that
 * the next new property allocates nothing. May throw (the memory limit). engine.c. */
void cduk_make_room_for_entry(duk_context *ctx, duk_idx_t obj_idx);

/* Room in the array part of the array at obj_idx for `index` (as Duktape grows an array written
 * past its end), so that writing it allocates nothing. May throw. engine.c. */
void cduk_make_room_for_index(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t index);

/* Grows obj's property table to hold `extra` more properties than it has. May throw. engine.c. */
void cduk_reserve_more_properties(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t extra);

/* [fn] -> []: makes fn obj's finalizer, whatever obj's state (duk_set_finalizer
 * throws on a frozen or non-extensible object). */
void cduk_force_finalizer(duk_context *ctx, duk_idx_t obj_idx);

#pragma clang assume_nonnull end

#endif /* CDUK_INTERNAL_H */
