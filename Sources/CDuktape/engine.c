/*
 * The Duktape engine, compiled from the amalgamation that Debian's duktape-dev
 * package ships in /usr/share/duktape (nothing from the package is copied into
 * this repository), with a small configuration overlay on top of the shipped
 * duk_config.h:
 *
 * - DUK_USE_INTERRUPT_COUNTER + DUK_USE_EXEC_TIMEOUT_CHECK: lets the bytecode
 *   executor ask cduk_exec_timeout_check() (below) whether the heap's deadline
 *   has passed; when it has, the running script gets "RangeError: execution
 *   timeout" and the heap stays usable. Debian's -Os libduktape.so has neither,
 *   so it cannot stop `while (true) {}`.
 * - DUK_USE_JSON_STRINGIFY_FASTPATH: 2.6x faster JSON.stringify (measured,
 *   shared/reference/perf-anchors.md).
 * - DUK_USE_NATIVE_STACK_CHECK: a RangeError before deep native recursion
 *   (JS -> native -> JS, the compiler, JSON, regexps) exhausts the calling thread's
 *   stack, whatever its size, or once the heap's deadline has passed: the regexp executor
 *   runs no bytecode and allocates nothing, so only this check sees a backtracking
 *   pattern (cduk_native_check in shims.c).
 * - DUK_USE_CALLSTACK_LIMIT: read from the heap's state instead of the fixed
 *   10,000, so a VM can set its own maximum call depth (JSSandbox).
 * - DUK_USE_MARK_AND_SWEEP_RECLIMIT: no fixed depth while the native stack has room (see
 *   cduk__mark_recursion_limit), so long chains of objects are marked in one pass.
 * - DUK_SINGLE_FILE: Duktape's internal functions become static to this
 *   translation unit, so they do not leak as symbols; the few shims below that
 *   need internals live in this file for that reason.
 *
 * The public header Swift sees (/usr/include/duktape.h + duk_config.h) is the
 * same file pair; the overlay only changes engine internals, not the API/ABI.
 */
#ifndef _GNU_SOURCE
#error "CDuktape needs _GNU_SOURCE (Package.swift defines it): shims.c reads the thread's stack bounds with pthread_getattr_np and the allocator sizes blocks with malloc_usable_size"
#endif

#define DUK_SINGLE_FILE
#define DUK_COMPILING_DUKTAPE
#if !__has_include("/usr/share/duktape/duktape.c")
#error "DuktapeCore needs Debian's duktape-dev package (the engine is compiled from /usr/share/duktape/duktape.c): sudo apt-get install duktape-dev"
#endif
#include "/usr/share/duktape/duk_config.h"

#define DUK_USE_INTERRUPT_COUNTER
#define DUK_USE_EXEC_TIMEOUT_CHECK(udata) cduk_exec_timeout_check((udata))
#define DUK_USE_JSON_STRINGIFY_FASTPATH
/* `thr` is in scope where Duktape expands it (duk_native_stack_check), as for the call-stack limit.
 * The common case (stack well above its floor, no deadline armed) is decided inline: Duktape
 * checks on every call from C into the executor and at every branch a regexp tries. */
#define DUK_USE_NATIVE_STACK_CHECK() cduk__native_check_inline(thr->heap->heap_udata)
#undef DUK_USE_CALLSTACK_LIMIT
#define DUK_USE_CALLSTACK_LIMIT cduk_callstack_limit(thr->heap->heap_udata)

/* Called by the engine (declared again in cduk_internal.h, which cannot be included before the
 * amalgamation: it needs duktape.h, which the amalgamation must define itself). */
duk_bool_t cduk_exec_timeout_check(void *udata);
int cduk_native_check(void *udata);
duk_uint32_t cduk_callstack_limit(void *udata);

/* The stack guard's state (shims.c) and the first fields of cduk_heap_state, for the inline
 * fast path below (cduk_internal.h cannot be included before the amalgamation). */
extern __thread uintptr_t cduk__stack_floor;
extern __thread int cduk__stack_known;
typedef struct {
    size_t memory_used, memory_peak, memory_limit;
    uint64_t deadline_ns;
} cduk__state_prefix;

static inline __attribute__((always_inline)) int cduk__native_check_inline(void *udata) {
    if (__builtin_expect(cduk__stack_known == 1 && (uintptr_t) __builtin_frame_address(0) >= cduk__stack_floor &&
                             (udata == NULL || ((const cduk__state_prefix *) udata)->deadline_ns == 0),
                         1)) {
        return 0;
    }
    return cduk_native_check(udata);
}

/* Mark-and-sweep marks recursively up to a fixed depth (256 levels), then marks the object
 * "temproot" and finishes it in later passes over the whole heap. A chain of objects whose
 * links point from older to newer objects (an appended linked list, a `then` chain: each
 * promise holds the next) needs one pass per 256 links: a 100,000-step chain took seconds per
 * collection. Here the depth is free while the thread's native stack is above the marking floor
 * (halfway into the guard's headroom, shims.c), and below it a few levels per KiB left above the
 * relaxed floor (1 KiB per level covers AddressSanitizer's frames; at least 8, so that a
 * collection that starts low on stack still makes progress). The depth Duktape compares is
 * counted from the start of marking, so marking that reaches the floor stops there. */
extern __thread uintptr_t cduk__stack_relaxed_floor;
extern __thread uintptr_t cduk__stack_mark_floor;
/* ThreadSanitizer keeps its own call stack per thread, 65,536 entries: on a thread with a large
 * stack (8 MiB), marking a long chain recursed past it before reaching the floor, and the run
 * crashed inside __tsan_func_entry. Its builds cap the depth below that. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CDUK__MARK_DEPTH_MAX 8192U
#endif
#endif
#ifndef CDUK__MARK_DEPTH_MAX
#define CDUK__MARK_DEPTH_MAX 0xFFFFFFFFU
#endif
static inline __attribute__((always_inline)) duk_uint_t cduk__mark_recursion_limit(void) {
    if (cduk__stack_known != 1) {
        return 256U;
    }
    uintptr_t here = (uintptr_t) __builtin_frame_address(0);
    if (here >= cduk__stack_mark_floor) {
        return CDUK__MARK_DEPTH_MAX;
    }
    uintptr_t left = here > cduk__stack_relaxed_floor ? (here - cduk__stack_relaxed_floor) / 1024U : 0U;
    return left < 8U ? 8U : (duk_uint_t) left;
}
#undef DUK_USE_MARK_AND_SWEEP_RECLIMIT
#define DUK_USE_MARK_AND_SWEEP_RECLIMIT cduk__mark_recursion_limit()

#include "/usr/share/duktape/duktape.c"

/* The shims below read Duktape's internals (object layout, finalizer lists, built-in tables),
 * which change between releases: they were written against 2.7.0 and only that is accepted. */
#if !defined(DUK_VERSION) || DUK_VERSION != 20700L
#error "CDuktape's engine.c reads the internals of Duktape 2.7.0; /usr/share/duktape/duktape.c is another version"
#endif

#include "cduk_internal.h"

_Static_assert(offsetof(cduk_heap_state, deadline_ns) == offsetof(cduk__state_prefix, deadline_ns),
               "cduk__state_prefix must mirror the start of cduk_heap_state");

/* ---- Execution deadline --------------------------------------------------- */

duk_bool_t cduk_exec_timeout_check(void *udata) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    if (state == NULL || state->deadline_ns == 0) {
        return 0;
    }
    if (cduk_clock_now(state) >= state->deadline_ns) {
        state->timeouts++;
        state->deadline_stops++;
        if (!state->past_deadline) {
            state->past_deadline = 1;
            cduk_record_deadline_site(state);
        }
        return 1;
    }
    return 0;
}

/* ---- Call depth --------------------------------------------------------- */

duk_uint32_t cduk_callstack_limit(void *udata) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    return (state == NULL || state->callstack_limit == 0) ? 10000 : state->callstack_limit;
}

/* ---- Class inspection ----------------------------------------------------- */

int cduk_is_typed_array(duk_context *ctx, duk_idx_t idx) {
    duk_tval *tv = duk_get_tval((duk_hthread *) ctx, idx);
    if (tv == NULL) {
        return 0;
    }
    if (DUK_TVAL_IS_BUFFER(tv)) {
        return 1; /* a plain buffer is Duktape's Uint8Array without an object */
    }
    if (!DUK_TVAL_IS_OBJECT(tv)) {
        return 0;
    }
    duk_small_uint_t number = DUK_HOBJECT_GET_CLASS_NUMBER(DUK_TVAL_GET_OBJECT(tv));
    return number >= DUK_HOBJECT_CLASS_INT8ARRAY && number <= DUK_HOBJECT_CLASS_FLOAT64ARRAY;
}

/* Why a shim: the class number of an object is internal (DUK_HOBJECT_GET_CLASS_NUMBER);
 * the public API has no "is Date" or "is Uint8Array" check that works across realms. */
cduk_class cduk_class_of(duk_context *ctx, duk_idx_t idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_tval *tv = duk_get_tval(thr, idx);
    if (tv == NULL) {
        return CDUK_CLASS_NONE;
    }
    if (DUK_TVAL_IS_BUFFER(tv)) {
        return CDUK_CLASS_BUFFER_OTHER;
    }
    if (DUK_TVAL_IS_LIGHTFUNC(tv)) {
        return CDUK_CLASS_FUNCTION;
    }
    if (!DUK_TVAL_IS_OBJECT(tv)) {
        return CDUK_CLASS_NONE;
    }
    duk_hobject *h = DUK_TVAL_GET_OBJECT(tv);
    switch (DUK_HOBJECT_GET_CLASS_NUMBER(h)) {
    case DUK_HOBJECT_CLASS_ARRAY: return CDUK_CLASS_ARRAY;
    case DUK_HOBJECT_CLASS_FUNCTION: return CDUK_CLASS_FUNCTION;
    case DUK_HOBJECT_CLASS_DATE: return CDUK_CLASS_DATE;
    case DUK_HOBJECT_CLASS_ERROR: return CDUK_CLASS_ERROR;
    case DUK_HOBJECT_CLASS_REGEXP: return CDUK_CLASS_REGEXP;
    case DUK_HOBJECT_CLASS_UINT8ARRAY: return CDUK_CLASS_UINT8ARRAY;
    case DUK_HOBJECT_CLASS_SYMBOL: return CDUK_CLASS_SYMBOL_OBJECT;
    case DUK_HOBJECT_CLASS_BOOLEAN:
    case DUK_HOBJECT_CLASS_NUMBER:
    case DUK_HOBJECT_CLASS_STRING: return CDUK_CLASS_BOXED_PRIMITIVE;
    default:
        if (DUK_HOBJECT_IS_BUFOBJ(h)) {
            return CDUK_CLASS_BUFFER_OTHER;
        }
        if (DUK_HOBJECT_IS_CALLABLE(h)) {
            return CDUK_CLASS_FUNCTION;
        }
        return CDUK_CLASS_OTHER;
    }
}

/* ---- Non-strict put and delete --------------------------------------------
 *
 * Why these need internals: from C, duk_put_prop() and duk_del_prop() always use
 * strict semantics (duk_is_strict_call() is 1 outside any activation and for every
 * Duktape/C function), so writing a read-only property or deleting a
 * non-configurable one throws. JavaScriptCore's API ignores the write and returns
 * NO for the delete. duk_hobject_putprop/delprop take the throw flag explicitly.
 * Both run protected through cduk__protect (shims.c).
 */

static duk_ret_t cduk__put_prop_nonstrict(duk_context *ctx, void *udata) {
    duk_hthread *thr = (duk_hthread *) ctx;
    (void) udata;
    /* [obj key value] (addressed from the top: a safe call has no frame of its own) */
    (void) duk_hobject_putprop(thr, duk_require_tval(thr, -3), duk_require_tval(thr, -2), duk_require_tval(thr, -1), 0);
    return 0;
}

static duk_ret_t cduk__del_prop_nonstrict(duk_context *ctx, void *udata) {
    duk_hthread *thr = (duk_hthread *) ctx;
    /* [obj key] */
    *(int *) udata = duk_hobject_delprop(thr, duk_require_tval(thr, -2), duk_require_tval(thr, -1), 0) ? 1 : 0;
    return 0;
}

/* Fast paths of cduk_pget_prop and cduk_pput_prop, without a protected call: an ordinary
 * object (no exotic behavior: not an Array, arguments object, String object, buffer object
 * or Proxy) with an own data property under a string or symbol key. That is exactly the case
 * where [[Get]] returns the slot's value and [[Set]] (when writable) overwrites it: no
 * prototype, getter, setter or trap is involved, so nothing can throw. Anything else returns
 * 0 with the stack untouched, for the general path. */
static duk_hobject *cduk__ordinary_object_and_key(duk_hthread *thr, duk_idx_t obj_idx, duk_hstring **key) {
    duk_tval *tv_obj = duk_get_tval(thr, obj_idx);
    duk_tval *tv_key = duk_get_tval(thr, obj_idx + 1); /* the key is just above the object */
    if (tv_obj == NULL || tv_key == NULL || !DUK_TVAL_IS_OBJECT(tv_obj) || !DUK_TVAL_IS_STRING(tv_key)) {
        return NULL;
    }
    duk_hobject *obj = DUK_TVAL_GET_OBJECT(tv_obj);
    if (DUK_HOBJECT_HAS_EXOTIC_BEHAVIOR(obj)) {
        return NULL;
    }
    *key = DUK_TVAL_GET_STRING(tv_key);
    return obj;
}

int cduk_get_prop_fast(duk_context *ctx) {
    /* [obj key] -> [value] */
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hstring *key = NULL;
    duk_hobject *obj = cduk__ordinary_object_and_key(thr, -2, &key);
    if (obj == NULL || !duk_check_stack(ctx, 1)) {
        return 0;
    }
    duk_tval *found = duk_hobject_find_entry_tval_ptr(thr->heap, obj, key);
    if (found == NULL) {
        return 0;
    }
    duk_push_tval(thr, found);
    duk_replace(thr, -3);
    duk_pop(thr);
    return 1;
}

int cduk_put_prop_fast(duk_context *ctx) {
    /* [obj key value] -> [] */
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hstring *key = NULL;
    duk_hobject *obj = cduk__ordinary_object_and_key(thr, -3, &key);
    duk_uint_t attributes = 0;
    duk_tval *found = obj == NULL ? NULL : duk_hobject_find_entry_tval_ptr_and_attrs(thr->heap, obj, key, &attributes);
    if (found == NULL || !(attributes & DUK_PROPDESC_FLAG_WRITABLE)) {
        return 0;
    }
    /* Writes the slot before releasing the old value (whose finalizer may run). */
    DUK_TVAL_SET_TVAL_UPDREF(thr, found, duk_get_tval(thr, -1));
    duk_pop_3(thr);
    return 1;
}

duk_int_t cduk_pput_prop(duk_context *ctx) {
    if (cduk_put_prop_fast(ctx)) {
        return DUK_EXEC_SUCCESS;
    }
    return cduk__protect(ctx, cduk__put_prop_nonstrict, NULL, 3, 0);
}

duk_int_t cduk_pdel_prop(duk_context *ctx, int *result) {
    *result = 0;
    return cduk__protect(ctx, cduk__del_prop_nonstrict, result, 2, 0);
}

/* ---- Hidden slots that scripts cannot disturb ---------------------------------
 *
 * Why these need internals: DuktapeCore keeps its Swift boxes, watch flags and
 * finalizers in hidden-symbol properties. Reading them with duk_get_prop() follows
 * the prototype chain, and Duktape runs an inherited finalizer for every object
 * that inherits one: an `Object.create(wrapper)` would read the wrapper's box when
 * it is finalized and release it under the wrapper's feet. And writing them with
 * duk_put_prop() or duk_set_finalizer() fails on a frozen, sealed or
 * non-extensible object, so a script could make a finalizer stop half-way (before
 * the box is released, or before a watched object's death is reported).
 * The functions below read own properties only and write with DUK_DEFPROP_FORCE.
 */

/* A writable, configurable, non-enumerable data slot, written whatever the object's state. */
#define CDUK__HIDDEN_SLOT \
    (DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE | \
     DUK_DEFPROP_FORCE)

void cduk_get_own_hidden_raw(duk_context *ctx, duk_idx_t obj_idx, const char *key, duk_size_t length) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    duk_push_literal_raw(thr, key, length);
    duk_tval *found = h == NULL ? NULL : duk_hobject_find_entry_tval_ptr(thr->heap, h, duk_known_hstring(thr, -1));
    if (found != NULL) {
        duk_push_tval(thr, found);
    } else {
        duk_push_undefined(thr);
    }
    duk_remove(thr, -2);
}

/* The box pointer in the own slot keyed by the state's box key, or NULL. */
static void *cduk__box_of(duk_hthread *thr, duk_hobject *h) {
    cduk_heap_state *state = (cduk_heap_state *) thr->heap->heap_udata;
    if (h == NULL || state == NULL || state->box_key == NULL) {
        return NULL;
    }
    duk_tval *found = duk_hobject_find_entry_tval_ptr(thr->heap, h, (duk_hstring *) state->box_key);
    return found != NULL && DUK_TVAL_IS_POINTER(found) ? DUK_TVAL_GET_POINTER(found) : NULL;
}

void *cduk_box_at(duk_context *ctx, duk_idx_t idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    return cduk__box_of(thr, duk_get_hobject(thr, idx));
}

void *cduk_this_box(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    if (thr->callstack_curr == NULL) {
        return NULL;
    }
    duk_tval *this_binding = thr->valstack_bottom - 1; /* what duk_push_this() pushes */
    return DUK_TVAL_IS_OBJECT(this_binding) ? cduk__box_of(thr, DUK_TVAL_GET_OBJECT(this_binding)) : NULL;
}

void *cduk_callee_box(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    return thr->callstack_curr == NULL ? NULL : cduk__box_of(thr, DUK_ACT_GET_FUNC(thr->callstack_curr));
}

int cduk_number_at(duk_context *ctx, duk_idx_t idx, double *out) {
    duk_tval *tv = duk_get_tval((duk_hthread *) ctx, idx);
    if (tv == NULL || !DUK_TVAL_IS_NUMBER(tv)) {
        return 0;
    }
    *out = DUK_TVAL_GET_NUMBER(tv);
    return 1;
}

duk_int_t cduk_type_at(duk_context *ctx, duk_idx_t idx, double *out) {
    duk_tval *tv = duk_get_tval((duk_hthread *) ctx, idx);
    if (tv != NULL && DUK_TVAL_IS_NUMBER(tv)) {
        *out = DUK_TVAL_GET_NUMBER(tv);
        return DUK_TYPE_NUMBER;
    }
    if (tv != NULL && DUK_TVAL_IS_BOOLEAN(tv)) {
        *out = DUK_TVAL_GET_BOOLEAN(tv) ? 1 : 0;
        return DUK_TYPE_BOOLEAN;
    }
    return duk_get_type(ctx, idx);
}

int cduk_boolean_at(duk_context *ctx, duk_idx_t idx, int *out) {
    duk_tval *tv = duk_get_tval((duk_hthread *) ctx, idx);
    if (tv == NULL || !DUK_TVAL_IS_BOOLEAN(tv)) {
        return 0;
    }
    *out = DUK_TVAL_GET_BOOLEAN(tv) ? 1 : 0;
    return 1;
}

/* ---- Fast for-in enumeration ----------------------------------------------
 *
 * Duktape's enumerator builds an object holding every key, then re-checks and reads each key
 * through the general property path, which costs more than the conversion of the value. For the common case, an ordinary object whose prototypes have no
 * enumerable string keys, the keys are the enumerable string keys of its entry part, in entry
 * order: the same list Duktape's enumerator makes when no key is an array index (those it sorts
 * first). That list is snapshotted onto the value stack (the enumerator's snapshot), and each
 * key is then re-checked and read as duk_next does: an own data property is read from its slot;
 * anything else (an accessor, a key deleted meanwhile) goes through duk_has_prop/duk_get_prop,
 * the general path. Objects that do not qualify return 0 with nothing visited. */

/* The key of entry `i` when for-in lists it (an enumerable string key), else NULL. */
static duk_hstring *cduk__for_in_key(duk_hthread *thr, duk_hobject *h, duk_uint_fast32_t i) {
    duk_hstring *k = DUK_HOBJECT_E_GET_KEY(thr->heap, h, i);
    return k != NULL && !DUK_HSTRING_HAS_SYMBOL(k) && DUK_HOBJECT_E_SLOT_IS_ENUMERABLE(thr->heap, h, i) ? k : NULL;
}

/* Whether for-in over `h` lists only its entry part's keys, in entry order: a target with no
 * array index key (those are sorted first), a prototype with no for-in key at all (those would
 * be listed too, after a shadowing check). */
static int cduk__plain_for_in(duk_hthread *thr, duk_hobject *h, int is_target) {
    if (DUK_HOBJECT_HAS_EXOTIC_BEHAVIOR(h) || DUK_HOBJECT_HAS_ARRAY_PART(h)) {
        return 0;
    }
    for (duk_uint_fast32_t i = 0; i < (duk_uint_fast32_t) DUK_HOBJECT_GET_ENEXT(h); i++) {
        duk_hstring *k = cduk__for_in_key(thr, h, i);
        if (k != NULL && (!is_target || DUK_HSTRING_HAS_ARRIDX(k))) {
            return 0;
        }
    }
    return 1;
}

size_t cduk_own_entry_bound(duk_context *ctx, duk_idx_t idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *obj = duk_get_hobject(thr, idx);
    return obj == NULL ? 0 : (size_t) DUK_HOBJECT_GET_ENEXT(obj);
}

int cduk_visit_fast(duk_context *ctx, int own_only, cduk_visit_fn visit, void *udata) {
    /* [.. obj] -> [.. obj] */
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *obj = duk_get_hobject(thr, -1);
    if (obj == NULL || !cduk__plain_for_in(thr, obj, 1)) {
        return 0;
    }
    if (!own_only) {
        duk_uint_t sanity = 10000;
        for (duk_hobject *p = DUK_HOBJECT_GET_PROTOTYPE(thr->heap, obj); p != NULL;
             p = DUK_HOBJECT_GET_PROTOTYPE(thr->heap, p)) {
            if (--sanity == 0 || !cduk__plain_for_in(thr, p, 0)) {
                return 0;
            }
        }
    }
    /* Room for every entry (an upper bound on the keys) and a visit's key and value. */
    duk_uint_fast32_t entries = (duk_uint_fast32_t) DUK_HOBJECT_GET_ENEXT(obj);
    if (entries > 1000000 || !duk_check_stack(ctx, (duk_idx_t) entries + 4)) {
        return 0; /* the general enumerator reports what the stack cannot hold */
    }
    duk_idx_t obj_idx = duk_get_top_index(ctx);
    for (duk_uint_fast32_t i = 0; i < entries; i++) {
        duk_hstring *k = cduk__for_in_key(thr, obj, i);
        if (k != NULL) {
            duk_push_hstring(thr, k);
        }
    }
    duk_idx_t first_key = obj_idx + 1;
    duk_idx_t count = duk_get_top(ctx) - first_key;
    for (duk_idx_t i = 0; i < count; i++) {
        /* Each visit may run code (a getter of a nested object) that changes this object:
         * nothing read before it is trusted after it. */
        duk_hstring *k = duk_known_hstring(thr, first_key + i);
        duk_int_t e_idx;
        duk_int_t h_idx;
        duk_push_hstring(thr, k);
        if (duk_hobject_find_entry(thr->heap, obj, k, &e_idx, &h_idx) &&
            !DUK_HOBJECT_E_SLOT_IS_ACCESSOR(thr->heap, obj, e_idx)) {
            duk_push_tval(thr, DUK_HOBJECT_E_GET_VALUE_TVAL_PTR(thr->heap, obj, e_idx));
        } else {
            /* duk_next's rule: a key that no longer exists (own or inherited) is skipped. */
            duk_dup(thr, -1);
            if (!duk_has_prop(thr, obj_idx)) {
                duk_pop(thr);
                continue;
            }
            duk_dup(thr, -1);
            duk_get_prop(thr, obj_idx);
        }
        int stop = visit(udata, ctx);
        duk_pop_2(thr);
        if (stop) {
            break;
        }
    }
    duk_set_top(thr, obj_idx + 1);
    return 1;
}

void cduk_put_own_hidden_raw(duk_context *ctx, duk_idx_t obj_idx, const char *key, duk_size_t length) {
    duk_hthread *thr = (duk_hthread *) ctx;
    obj_idx = duk_require_normalize_index(thr, obj_idx);
    duk_push_literal_raw(thr, key, length); /* [value key] */
    /* An existing slot (a writable data property: all of ours are) is overwritten in place, as
     * the forced define would; the slot is written before the old value is released. */
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    duk_uint_t attributes = 0;
    duk_tval *found = h == NULL ? NULL
                                : duk_hobject_find_entry_tval_ptr_and_attrs(thr->heap, h, duk_known_hstring(thr, -1),
                                                                            &attributes);
    if (found != NULL && (attributes & DUK_PROPDESC_FLAG_WRITABLE)) {
        DUK_TVAL_SET_TVAL_UPDREF(thr, found, duk_get_tval(thr, -2));
        duk_pop_2(thr);
        return;
    }
    duk_insert(thr, -2); /* [key value] */
    cduk_put_own_keyed(ctx, obj_idx);
}

void cduk_put_own_keyed(duk_context *ctx, duk_idx_t obj_idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    obj_idx = duk_require_normalize_index(thr, obj_idx);
    /* [key value]: an existing slot (a writable data property: all of ours are) is overwritten in
     * place, as the forced define would; the slot is written before the old value is released. */
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    duk_uint_t attributes = 0;
    duk_tval *found = h == NULL ? NULL
                                : duk_hobject_find_entry_tval_ptr_and_attrs(thr->heap, h, duk_known_hstring(thr, -2),
                                                                            &attributes);
    if (found != NULL && (attributes & DUK_PROPDESC_FLAG_WRITABLE)) {
        DUK_TVAL_SET_TVAL_UPDREF(thr, found, duk_get_tval(thr, -1));
        duk_pop_2(thr);
        return;
    }
    if (found == NULL && h != NULL && !DUK_HOBJECT_HAS_EXOTIC_BEHAVIOR(h)) {
        /* A new slot on an ordinary object: the engine's internal definition (what a forced
         * define comes down to there, without the descriptor checks), whatever the object's
         * extensibility. */
        duk_hobject_define_property_internal(thr, h, duk_known_hstring(thr, -2), DUK_PROPDESC_FLAGS_WC);
        duk_pop(thr);
        return;
    }
    duk_def_prop(thr, obj_idx, CDUK__HIDDEN_SLOT);
}

int cduk_get_own_keyed(duk_context *ctx, duk_idx_t obj_idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    duk_tval *found = h == NULL ? NULL : duk_hobject_find_entry_tval_ptr(thr->heap, h, duk_require_hstring(thr, -1));
    if (found != NULL) {
        duk_push_tval(thr, found);
    } else {
        duk_push_undefined(thr);
    }
    duk_remove(thr, -2);
    return found != NULL;
}

int cduk_del_own_keyed(duk_context *ctx, duk_idx_t obj_idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    duk_hstring *key = duk_require_hstring(thr, -1);
    int deleted = 0;
    if (h != NULL && duk_hobject_find_entry_tval_ptr(thr->heap, h, key) != NULL) {
        deleted = duk_hobject_delprop_raw(thr, h, key, DUK_DELPROP_FLAG_FORCE) ? 1 : 0;
    }
    duk_pop(thr);
    return deleted;
}

int cduk_program_opcodes(duk_context *ctx, duk_idx_t idx, int *functions, unsigned char *opcodes, int capacity) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, idx);
    if (h == NULL || !DUK_HOBJECT_IS_COMPFUNC(h)) {
        return -1;
    }
    duk_hcompfunc *f = (duk_hcompfunc *) h;
    *functions = (int) (DUK_HCOMPFUNC_GET_FUNCS_END(thr->heap, f) - DUK_HCOMPFUNC_GET_FUNCS_BASE(thr->heap, f));
    duk_instr_t *code = DUK_HCOMPFUNC_GET_CODE_BASE(thr->heap, f);
    duk_instr_t *end = DUK_HCOMPFUNC_GET_CODE_END(thr->heap, f);
    int count = 0;
    for (; code < end; code++, count++) {
        if (count < capacity) {
            opcodes[count] = (unsigned char) DUK_DEC_OP(*code);
        }
    }
    return count;
}

int cduk_define_lazy_accessor(duk_context *ctx, duk_idx_t owner, duk_idx_t getter, duk_idx_t setter) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *obj = duk_require_hobject(thr, owner);
    duk_hobject *get = duk_require_hobject(thr, getter);
    duk_hobject *set = duk_require_hobject(thr, setter);
    duk_hstring *key = duk_require_hstring(thr, -1);
    duk_int_t e_idx = -1, h_idx = -1;
    duk_hobject_find_entry(thr->heap, obj, key, &e_idx, &h_idx);
    /* Exotic owners (Array.prototype is an array, String.prototype a String object) are fine:
     * their exotic behaviour is for "length" and indices, which no lazy key is; a Proxy is not. */
    if (e_idx >= 0 || DUK_HOBJECT_IS_PROXY(obj) || DUK_HSTRING_HAS_ARRIDX(key) || key == DUK_HTHREAD_STRING_LENGTH(thr)) {
        duk_pop(thr);
        return 0; /* the general path (cduk_define_lazy_accessor's caller) */
    }
    /* A new entry, as Duktape's own built-in initialization makes accessors. */
    e_idx = duk__hobject_alloc_entry_checked(thr, obj, key);
    DUK_HOBJECT_E_SET_VALUE_GETTER(thr->heap, obj, e_idx, get);
    DUK_HOBJECT_E_SET_VALUE_SETTER(thr->heap, obj, e_idx, set);
    DUK_HOBJECT_INCREF(thr, get);
    DUK_HOBJECT_INCREF(thr, set);
    DUK_HOBJECT_E_SET_FLAGS(thr->heap, obj, e_idx, DUK_PROPDESC_FLAG_ACCESSOR | DUK_PROPDESC_FLAG_CONFIGURABLE);
    duk_pop(thr);
    return 1;
}

int cduk_is_own_accessor_getter(duk_context *ctx, duk_idx_t obj_idx, duk_idx_t getter) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *obj = duk_get_hobject(thr, obj_idx);
    duk_hobject *get = duk_get_hobject(thr, getter);
    duk_hstring *key = duk_get_hstring(thr, -1);
    if (obj == NULL || get == NULL || key == NULL) {
        return 0;
    }
    duk_int_t e_idx = -1, h_idx = -1;
    duk_hobject_find_entry(thr->heap, obj, key, &e_idx, &h_idx);
    return e_idx >= 0 && DUK_HOBJECT_E_SLOT_IS_ACCESSOR(thr->heap, obj, e_idx) &&
           DUK_HOBJECT_E_GET_VALUE_GETTER(thr->heap, obj, e_idx) == get;
}

void cduk_push_realm_object(duk_context *ctx, cduk_realm_object which) {
    duk_hthread *thr = (duk_hthread *) ctx;
    switch (which) {
    case CDUK_REALM_ARRAY_PROTOTYPE: duk_push_hobject_bidx(thr, DUK_BIDX_ARRAY_PROTOTYPE); break;
    case CDUK_REALM_ARRAY_CONSTRUCTOR: duk_push_hobject_bidx(thr, DUK_BIDX_ARRAY_CONSTRUCTOR); break;
    case CDUK_REALM_OBJECT_CONSTRUCTOR: duk_push_hobject_bidx(thr, DUK_BIDX_OBJECT_CONSTRUCTOR); break;
    case CDUK_REALM_STRING_PROTOTYPE: duk_push_hobject_bidx(thr, DUK_BIDX_STRING_PROTOTYPE); break;
    case CDUK_REALM_STRING_CONSTRUCTOR: duk_push_hobject_bidx(thr, DUK_BIDX_STRING_CONSTRUCTOR); break;
    case CDUK_REALM_SYMBOL_PROTOTYPE: duk_push_hobject_bidx(thr, DUK_BIDX_SYMBOL_PROTOTYPE); break;
    case CDUK_REALM_TYPED_ARRAY_PROTOTYPE:
        duk_push_hobject_bidx(thr, DUK_BIDX_UINT8ARRAY_PROTOTYPE);
        duk_get_prototype(thr, -1);
        duk_remove(thr, -2);
        break;
    /* No built-in index: the global's property (read when the realm is made, before any script). */
    case CDUK_REALM_SYMBOL_CONSTRUCTOR: duk_push_hobject_bidx(thr, DUK_BIDX_GLOBAL); duk_get_prop_literal(thr, -1, "Symbol"); duk_remove(thr, -2); break;
    default: duk_push_hobject_bidx(thr, DUK_BIDX_GLOBAL); break;
    }
}

/* ---- Plain data copies (a posted message) -------------------------------------------------
 *
 * DuktapeWeb's page copies every value a script posts to the host (page.js, copyForMessage):
 * objects without a prototype, holes as undefined, within limits, a function, symbol or cycle
 * refused. Interpreted, that copy was a third of the bytecode a WebLoader request ran. This is
 * the same copy for plain data only: objects of class Object (prototype Object.prototype or
 * none, no accessor, array index or @@toStringTag key, Object.prototype without an own
 * @@toStringTag or a prototype), arrays with every element present (any prototype), and primitives
 * other than symbols. Anything else (a Date, bytes, an Error, a Proxy, a getter, a hole, a
 * cycle, a limit passed, an error such as running out of memory) gives undefined: page.js then
 * makes the copy, and its errors.
 *
 * As JSON.stringify's fast path does, the copy runs protected with finalizers held back and
 * object compaction off: no script runs during it (no getter is read, no finalizer runs), and no
 * property table it reads is resized or moved, so it reads the original's tables in place. */

#define CDUK__COPY_MAX_DEPTH 256
#define CDUK__COPY_MAX_LENGTH (1L << 24)
#define CDUK__COPY_MAX_VALUES 1000000L

typedef struct {
    long values;
    int depth;
    duk_hobject *path[CDUK__COPY_MAX_DEPTH + 2];
    duk_hobject *object_prototype;
    duk_hstring *tag_key;
} cduk__copy_state;

/* Whether `tv` may be copied as it is (a primitive other than a symbol). */
static int cduk__copy_primitive(duk_tval *tv) {
    switch (DUK_TVAL_GET_TAG(tv)) {
    case DUK_TAG_UNDEFINED:
    case DUK_TAG_NULL:
    case DUK_TAG_BOOLEAN:
        return 1;
    case DUK_TAG_STRING:
        return !DUK_HSTRING_HAS_SYMBOL(DUK_TVAL_GET_STRING(tv));
    case DUK_TAG_OBJECT:
    case DUK_TAG_BUFFER:
    case DUK_TAG_LIGHTFUNC:
    case DUK_TAG_POINTER:
    case DUK_TAG_UNUSED:
        return 0;
    default:
        return DUK_TVAL_IS_NUMBER(tv);
    }
}

static int cduk__copy_value(duk_hthread *thr, cduk__copy_state *st);

/* Whether every own property for-in would list on plain object `h` can be copied as a data
 * property: none is an accessor or an array index, and `h` has no @@toStringTag. */
static int cduk__copyable_entries(duk_hthread *thr, cduk__copy_state *st, duk_hobject *h) {
    for (duk_uint_fast32_t i = 0; i < (duk_uint_fast32_t) DUK_HOBJECT_GET_ENEXT(h); i++) {
        duk_hstring *k = DUK_HOBJECT_E_GET_KEY(thr->heap, h, i);
        if (k == NULL) {
            continue;
        }
        if (k == st->tag_key) {
            return 0;
        }
        if (DUK_HOBJECT_E_SLOT_IS_ENUMERABLE(thr->heap, h, i) && !DUK_HSTRING_HAS_SYMBOL(k) &&
            (DUK_HSTRING_HAS_ARRIDX(k) || DUK_HOBJECT_E_SLOT_IS_ACCESSOR(thr->heap, h, i))) {
            return 0;
        }
    }
    return 1;
}

/* [.. obj] -> [.. copy] and 1; 0 (what is left on the stack is dropped) when the object is
 * not plain data. */
static int cduk__copy_object(duk_hthread *thr, cduk__copy_state *st, duk_hobject *h) {
    /* The native stack guard too: a script may post from just above its floor. */
    if (st->depth > CDUK__COPY_MAX_DEPTH || DUK_HOBJECT_IS_PROXY(h) || cduk_native_stack_low() || !duk_check_stack(thr, 8)) {
        return 0;
    }
    for (int i = 0; i < st->depth; i++) {
        if (st->path[i] == h) {
            return 0; /* a cycle: page.js names it */
        }
    }
    duk_idx_t base = duk_get_top_index(thr);
    int is_array = DUK_HOBJECT_GET_CLASS_NUMBER(h) == DUK_HOBJECT_CLASS_ARRAY && DUK_HOBJECT_IS_ARRAY(h);
    duk_uint32_t length = 0;
    if (is_array) {
        length = ((duk_harray *) h)->length;
        if (!DUK_HOBJECT_HAS_ARRAY_PART(h) || length > DUK_HOBJECT_GET_ASIZE(h) || (long) length > CDUK__COPY_MAX_LENGTH ||
            st->values + (long) length > CDUK__COPY_MAX_VALUES) {
            return 0;
        }
        duk_push_array(thr);
        duk_push_undefined(thr); /* duk_set_prototype's "none" */
        duk_set_prototype(thr, -2);
    } else {
        duk_hobject *proto = DUK_HOBJECT_GET_PROTOTYPE(thr->heap, h);
        if (DUK_HOBJECT_GET_CLASS_NUMBER(h) != DUK_HOBJECT_CLASS_OBJECT || DUK_HOBJECT_HAS_EXOTIC_BEHAVIOR(h) ||
            DUK_HOBJECT_HAS_ARRAY_PART(h) || (proto != NULL && proto != st->object_prototype) || !cduk__copyable_entries(thr, st, h)) {
            return 0;
        }
        duk_push_bare_object(thr);
    }
    st->path[st->depth++] = h;
    duk_idx_t copy = base + 1;
    if (is_array) {
        for (duk_uint32_t i = 0; i < length; i++) {
            duk_tval *tv = DUK_HOBJECT_A_GET_VALUE_PTR(thr->heap, h, i);
            if (DUK_TVAL_IS_UNUSED(tv)) {
                return 0; /* a hole */
            }
            duk_push_tval(thr, tv);
            if (!cduk__copy_value(thr, st)) {
                return 0;
            }
            duk_put_prop_index(thr, copy, (duk_uarridx_t) i);
        }
    } else {
        for (duk_uint_fast32_t i = 0; i < (duk_uint_fast32_t) DUK_HOBJECT_GET_ENEXT(h); i++) {
            duk_hstring *k = DUK_HOBJECT_E_GET_KEY(thr->heap, h, i);
            if (k == NULL || !DUK_HOBJECT_E_SLOT_IS_ENUMERABLE(thr->heap, h, i) || DUK_HSTRING_HAS_SYMBOL(k)) {
                continue; /* Object.keys leaves it out */
            }
            duk_push_hstring(thr, k);
            duk_push_tval(thr, DUK_HOBJECT_E_GET_VALUE_TVAL_PTR(thr->heap, h, i));
            if (!cduk__copy_value(thr, st)) {
                return 0;
            }
            duk_put_prop(thr, copy);
        }
    }
    st->depth--;
    duk_replace(thr, base);
    return 1;
}

/* [.. value] -> [.. copy] and 1, or 0 (see cduk__copy_object). */
static int cduk__copy_value(duk_hthread *thr, cduk__copy_state *st) {
    if (++st->values > CDUK__COPY_MAX_VALUES) {
        return 0;
    }
    duk_tval *tv = duk_get_tval(thr, -1);
    if (cduk__copy_primitive(tv)) {
        return 1;
    }
    return DUK_TVAL_IS_OBJECT(tv) ? cduk__copy_object(thr, st, DUK_TVAL_GET_OBJECT(tv)) : 0;
}

/* [value] -> [copy] or [undefined] (not plain data). */
static duk_ret_t cduk__copy_plain_raw(duk_context *ctx, void *udata) {
    duk_hthread *thr = (duk_hthread *) ctx;
    cduk__copy_state *st = (cduk__copy_state *) udata;
    duk_int_t e_idx, h_idx;
    /* A plain object's tag (Object.prototype.toString) reads @@toStringTag through its whole
     * prototype chain: Object.prototype must have none of its own, and no prototype (a script
     * can give it one). */
    if (st->object_prototype != NULL &&
        (DUK_HOBJECT_GET_PROTOTYPE(thr->heap, st->object_prototype) != NULL ||
         duk_hobject_find_entry(thr->heap, st->object_prototype, st->tag_key, &e_idx, &h_idx))) {
        duk_push_undefined(ctx);
        return 1;
    }
    if (!cduk__copy_value(thr, st)) {
        duk_push_undefined(ctx);
    }
    return 1;
}

static duk_ret_t cduk__copy_plain(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    cduk__copy_state st;
    st.values = 0;
    st.depth = 0;
    st.object_prototype = thr->builtins[DUK_BIDX_OBJECT_PROTOTYPE];
    st.tag_key = DUK_HTHREAD_STRING_WELLKNOWN_SYMBOL_TO_STRING_TAG(thr);
    duk_set_top(ctx, 1);
    duk_small_uint_t flags = thr->heap->ms_base_flags;
    thr->heap->ms_base_flags |= DUK_MS_FLAG_NO_OBJECT_COMPACTION;
    thr->heap->pf_prevent_count++;
    duk_int_t rc = duk_safe_call(ctx, cduk__copy_plain_raw, &st, 1, 1);
    thr->heap->pf_prevent_count--;
    thr->heap->ms_base_flags = flags;
    if (rc != DUK_EXEC_SUCCESS) {
        duk_pop(ctx); /* the error: page.js copies, and meets it itself */
        return 0;
    }
    return 1;
}

/* ownSlot(self, key, unknown): DuktapeWeb's helpers.js `own` (the value of self's own property
 * `key`, or undefined when it has none or self is not an object), for its internal state under
 * hidden keys: one native call instead of Reflect.apply, hasOwnProperty and an arguments array.
 * Returns `unknown` where script must decide: a key that is not a hidden symbol, a Proxy, an
 * accessor (its getter runs there). */
static duk_ret_t cduk__own_slot(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_tval *key = duk_get_tval(thr, 1);
    if (key == NULL || !DUK_TVAL_IS_STRING(key) || !DUK_HSTRING_HAS_HIDDEN(DUK_TVAL_GET_STRING(key))) {
        duk_dup(thr, 2);
        return 1;
    }
    duk_hobject *h = duk_get_hobject(thr, 0);
    if (h == NULL) {
        return 0; /* a primitive, a lightfunc or a plain buffer has no hidden own property */
    }
    if (DUK_HOBJECT_IS_PROXY(h)) {
        duk_dup(thr, 2);
        return 1;
    }
    duk_int_t e_idx, h_idx;
    if (!duk_hobject_find_entry(thr->heap, h, DUK_TVAL_GET_STRING(key), &e_idx, &h_idx)) {
        return 0;
    }
    if (DUK_HOBJECT_E_SLOT_IS_ACCESSOR(thr->heap, h, e_idx)) {
        duk_dup(thr, 2);
        return 1;
    }
    duk_push_tval(thr, DUK_HOBJECT_E_GET_VALUE_TVAL_PTR(thr->heap, h, e_idx));
    return 1;
}

void cduk_push_native_helper(duk_context *ctx, cduk_native_helper which) {
    switch (which) {
    case CDUK_HELPER_PLAIN_COPY: duk_push_c_function(ctx, cduk__copy_plain, 1); break;
    case CDUK_HELPER_OWN_SLOT: duk_push_c_function(ctx, cduk__own_slot, 3); break;
    default: duk_push_undefined(ctx); break;
    }
}

/* ---- Slots by position (see cduk_internal.h) ---- */

void cduk_pin_keys(duk_context *ctx, const char *stash_key, const char *_Nonnull const *_Nonnull keys, void *_Nullable *_Nonnull out, duk_uint32_t count) {
    /* The pointers are published only once the stash holds the keys: a failure (memory) part
     * way leaves `out` as it was, and the strings pushed so far are freed with the array. */
    void *interned[CDUK_PINNED_KEYS_MAX];
    if (count > CDUK_PINNED_KEYS_MAX) {
        (void) cduk_range_error(ctx, "too many pinned keys");
    }
    duk_push_heap_stash(ctx);
    duk_push_bare_array(ctx);
    for (duk_uint32_t i = 0; i < count; i++) {
        duk_push_string(ctx, keys[i]);
        interned[i] = duk_get_heapptr(ctx, -1);
        duk_put_prop_index(ctx, -2, i);
    }
    duk_put_prop_string(ctx, -2, stash_key);
    duk_pop(ctx);
    for (duk_uint32_t i = 0; i < count; i++) {
        out[i] = interned[i];
    }
}

void cduk_define_slots(duk_context *ctx, duk_idx_t obj_idx, void *_Nullable const *_Nonnull keys, duk_uint32_t count) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_require_hobject(thr, obj_idx);
    if (DUK_HOBJECT_GET_ESIZE(h) < count) {
        duk_hobject_resize_entrypart(thr, h, count);
    }
    int plain = DUK_HOBJECT_GET_ENEXT(h) == 0 && DUK_HOBJECT_GET_ESIZE(h) >= count && !DUK_HOBJECT_HAS_EXOTIC_BEHAVIOR(h);
#if defined(DUK_USE_HOBJECT_HASH_PART)
    plain = plain && DUK_HOBJECT_GET_HSIZE(h) == 0;
#endif
    if (plain) {
        /* A fresh entry part without a hash part: the entries are written as the engine's
         * internal definition writes them (key, its reference, flags, value), in one go. */
        for (duk_uint32_t i = 0; i < count; i++) {
            duk_hstring *key = (duk_hstring *) keys[i];
            DUK_HOBJECT_E_SET_KEY(thr->heap, h, i, key);
            DUK_HSTRING_INCREF(thr, key);
            DUK_HOBJECT_E_SET_FLAGS(thr->heap, h, i, DUK_PROPDESC_FLAGS_WC);
            DUK_TVAL_SET_UNDEFINED(DUK_HOBJECT_E_GET_VALUE_TVAL_PTR(thr->heap, h, i));
        }
        DUK_HOBJECT_SET_ENEXT(h, count);
        return;
    }
    for (duk_uint32_t i = 0; i < count; i++) {
        duk_push_undefined(thr);
        duk_hobject_define_property_internal(thr, h, (duk_hstring *) keys[i], DUK_PROPDESC_FLAGS_WC);
    }
}

/* The value of own property `position` of h when its key is `key` and it is a data property. */
static duk_tval *cduk__slot(duk_hthread *thr, duk_hobject *h, duk_uint32_t position, void *_Nullable key) {
    if (h == NULL || key == NULL || position >= DUK_HOBJECT_GET_ENEXT(h) ||
        DUK_HOBJECT_E_GET_KEY(thr->heap, h, position) != (duk_hstring *) key ||
        DUK_HOBJECT_E_SLOT_IS_ACCESSOR(thr->heap, h, position)) {
        return NULL;
    }
    return DUK_HOBJECT_E_GET_VALUE_TVAL_PTR(thr->heap, h, position);
}

int cduk_slot_get(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_tval *slot = cduk__slot(thr, duk_get_hobject(thr, obj_idx), position, key);
    if (slot == NULL) {
        return 0;
    }
    duk_push_tval(thr, slot);
    return 1;
}

int cduk_slot_put(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key) {
    return cduk_slots_put(ctx, obj_idx, position, &key, 1);
}

/* The object at obj_idx when its own properties position..position+count-1 have the keys
 * keys[0..count-1] and are data properties, else NULL. */
static duk_hobject *cduk__slots(duk_hthread *thr, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable const *_Nonnull keys,
                                duk_uint32_t count) {
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    if (h == NULL || position > DUK_HOBJECT_GET_ENEXT(h) || count > DUK_HOBJECT_GET_ENEXT(h) - position) {
        return NULL;
    }
    for (duk_uint32_t i = 0; i < count; i++) {
        if (keys[i] == NULL || DUK_HOBJECT_E_GET_KEY(thr->heap, h, position + i) != (duk_hstring *) keys[i] ||
            DUK_HOBJECT_E_SLOT_IS_ACCESSOR(thr->heap, h, position + i)) {
            return NULL;
        }
    }
    return h;
}

#define CDUK__MAX_SLOTS 8U

int cduk_slots_put(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable const *_Nonnull keys,
                   duk_uint32_t count) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = cduk__slots(thr, obj_idx, position, keys, count);
    if (h == NULL || count > CDUK__MAX_SLOTS || (duk_uint32_t) duk_get_top(thr) < count) {
        return 0;
    }
    /* Each value's reference moves from the stack to its slot, and the old values are released
     * after every write without running a finalizer (NORZ): one queued by that release, or one
     * left waiting by a collection that could not run it, runs at the caller's next check
     * point, once the caller's object is whole again (a promise's reaction and its state). */
    duk_tval *values = thr->valstack_top - count;
    duk_tval old[CDUK__MAX_SLOTS];
    for (duk_uint32_t i = 0; i < count; i++) {
        duk_tval *slot = DUK_HOBJECT_E_GET_VALUE_TVAL_PTR(thr->heap, h, position + i);
        old[i] = *slot;
        DUK_TVAL_SET_TVAL(slot, values + i);
    }
    duk_pop_n_nodecref_unsafe(thr, (duk_idx_t) count);
    for (duk_uint32_t i = 0; i < count; i++) {
        DUK_TVAL_DECREF_NORZ(thr, old + i);
    }
    return 1;
}

int cduk_slots_take(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable const *_Nonnull keys,
                    duk_uint32_t count) {
    duk_hthread *thr = (duk_hthread *) ctx;
    /* The room first: growing the stack can collect garbage, which can compact the object. */
    if (count > CDUK__MAX_SLOTS || !duk_check_stack(thr, (duk_idx_t) count)) {
        return 0;
    }
    duk_hobject *h = cduk__slots(thr, obj_idx, position, keys, count);
    if (h == NULL) {
        return 0;
    }
    /* Each value moves to the stack: pushed (a reference more), then its slot emptied (one
     * less, never the last: nothing is freed, nothing runs). */
    for (duk_uint32_t i = 0; i < count; i++) {
        duk_tval *slot = DUK_HOBJECT_E_GET_VALUE_TVAL_PTR(thr->heap, h, position + i);
        duk_push_tval(thr, slot);
        duk_tval old = *slot;
        DUK_TVAL_SET_UNDEFINED(slot);
        DUK_TVAL_DECREF_NORZ(thr, &old);
    }
    return 1;
}

int cduk_slot_set_int(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key, duk_int_t value) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_tval *slot = cduk__slot(thr, duk_get_hobject(thr, obj_idx), position, key);
    if (slot == NULL || DUK_TVAL_IS_HEAP_ALLOCATED(slot)) {
        return 0;
    }
    DUK_TVAL_SET_NUMBER(slot, (duk_double_t) value); /* no reference to release */
    return 1;
}

duk_int_t cduk_slot_int(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t position, void *_Nullable key, duk_int_t missing) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_tval *slot = cduk__slot(thr, duk_get_hobject(thr, obj_idx), position, key);
    if (slot == NULL || !DUK_TVAL_IS_NUMBER(slot)) {
        return missing;
    }
    return (duk_int_t) DUK_TVAL_GET_NUMBER(slot);
}

/* The array part's items [start, start + count) of the bare array (no prototype: a hole reads
 * as undefined) at arr_idx, or NULL when it is not one or they are not all in its array part.
 * `extend`: the array's length is raised to cover them (the items between are unused: holes). */
static duk_tval *cduk__bare_array_items(duk_hthread *thr, duk_idx_t arr_idx, duk_uint32_t start, duk_uint32_t count,
                                        int extend) {
    duk_hobject *h = duk_get_hobject(thr, arr_idx);
    if (h == NULL || !DUK_HOBJECT_IS_ARRAY(h) || !DUK_HOBJECT_HAS_ARRAY_PART(h) ||
        DUK_HOBJECT_GET_PROTOTYPE(thr->heap, h) != NULL || start > DUK_HOBJECT_GET_ASIZE(h) ||
        count > DUK_HOBJECT_GET_ASIZE(h) - start) {
        return NULL;
    }
    duk_harray *array = (duk_harray *) h;
    if (array->length < start + count) {
        if (!extend || DUK_HARRAY_LENGTH_NONWRITABLE(array)) {
            return NULL;
        }
        array->length = start + count;
    }
    return DUK_HOBJECT_A_GET_BASE(thr->heap, h) + start;
}

void cduk_array_put_range(duk_context *ctx, duk_idx_t arr_idx, duk_uint32_t start, duk_uint32_t count) {
    duk_hthread *thr = (duk_hthread *) ctx;
    arr_idx = duk_require_normalize_index(thr, arr_idx);
    duk_tval *items = cduk__bare_array_items(thr, arr_idx, start, count, 1);
    if (items == NULL) {
        for (duk_uint32_t i = count; i > 0; i--) {
            duk_put_prop_index(thr, arr_idx, start + i - 1); /* the last value is on top */
        }
        return;
    }
    /* Every item is written before a released old value can run a finalizer (which could
     * move the array part). */
    duk_tval *values = thr->valstack_top - count;
    for (duk_uint32_t i = 0; i < count; i++) {
        duk_tval old = items[i];
        DUK_TVAL_SET_TVAL(items + i, values + i);
        DUK_TVAL_INCREF(thr, items + i);
        DUK_TVAL_DECREF_NORZ(thr, &old);
    }
    duk_pop_n(thr, (duk_idx_t) count);
    DUK_REFZERO_CHECK_SLOW(thr);
}

void cduk_array_take_range(duk_context *ctx, duk_idx_t arr_idx, duk_uint32_t start, duk_uint32_t count) {
    duk_hthread *thr = (duk_hthread *) ctx;
    arr_idx = duk_require_normalize_index(thr, arr_idx);
    duk_require_stack(thr, (duk_idx_t) count);
    duk_tval *items = cduk__bare_array_items(thr, arr_idx, start, count, 0);
    if (items == NULL) {
        for (duk_uint32_t i = 0; i < count; i++) {
            duk_get_prop_index(thr, arr_idx, start + i);
        }
        for (duk_uint32_t i = 0; i < count; i++) {
            duk_push_undefined(thr);
            duk_put_prop_index(thr, arr_idx, start + i);
        }
        return;
    }
    /* Each value moves to the stack: pushed (a reference more), then its item emptied (one
     * less, never the last: nothing is freed, nothing runs). */
    for (duk_uint32_t i = 0; i < count; i++) {
        if (DUK_TVAL_IS_UNUSED(items + i)) {
            duk_push_undefined(thr);
            continue;
        }
        duk_push_tval(thr, items + i);
        duk_tval old = items[i];
        DUK_TVAL_SET_UNDEFINED(items + i);
        DUK_TVAL_DECREF_NORZ(thr, &old);
    }
}

void cduk_array_shift_down(duk_context *ctx, duk_idx_t arr_idx, duk_uint32_t start, duk_uint32_t end) {
    duk_hthread *thr = (duk_hthread *) ctx;
    arr_idx = duk_require_normalize_index(thr, arr_idx);
    duk_uint32_t count = end - start;
    duk_tval *items = start <= end ? cduk__bare_array_items(thr, arr_idx, 0, end, 0) : NULL;
    for (duk_uint32_t i = 0; items != NULL && i < start; i++) {
        if (!DUK_TVAL_IS_UNDEFINED(items + i) && !DUK_TVAL_IS_UNUSED(items + i)) {
            items = NULL; /* not taken: moved one by one, each overwritten value released */
        }
    }
    if (items == NULL) {
        duk_require_stack(thr, 1);
        for (duk_uint32_t from = start, to = 0; from < end; from++, to++) {
            duk_get_prop_index(thr, arr_idx, from);
            duk_put_prop_index(thr, arr_idx, to);
        }
    } else {
        /* Each value moves with its reference; the places it left hold nothing. */
        memmove(items, items + start, count * sizeof(duk_tval));
        for (duk_uint32_t i = count; i < end; i++) {
            DUK_TVAL_SET_UNDEFINED(items + i);
        }
    }
    duk_set_length(thr, arr_idx, count);
}

void cduk_reserve_properties(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t count) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    if (h != NULL && DUK_HOBJECT_GET_ESIZE(h) < count) {
        duk_hobject_resize_entrypart(thr, h, count);
    }
}

void cduk_make_room_for_entry(duk_context *ctx, duk_idx_t obj_idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    if (h != NULL && DUK_HOBJECT_GET_ENEXT(h) >= DUK_HOBJECT_GET_ESIZE(h)) {
        duk__grow_props_for_new_entry_item(thr, h);
    }
}

void cduk_make_room_for_index(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t index) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    if (h != NULL && DUK_HOBJECT_HAS_ARRAY_PART(h) && index >= DUK_HOBJECT_GET_ASIZE(h)) {
        duk__grow_props_for_array_item(thr, h, index);
    }
}

/* The getter of h's own accessor for key when it is a pending built-in's (lazy.c), else NULL. */
static duk_hobject *cduk__own_lazy_getter(duk_hthread *thr, duk_hobject *h, duk_hstring *key) {
    duk_int_t e_idx = -1, h_idx = -1;
    duk_hobject_find_entry(thr->heap, h, key, &e_idx, &h_idx);
    if (e_idx < 0 || !DUK_HOBJECT_E_SLOT_IS_ACCESSOR(thr->heap, h, e_idx)) {
        return NULL;
    }
    duk_hobject *get = DUK_HOBJECT_E_GET_VALUE_GETTER(thr->heap, h, e_idx);
    return get != NULL && DUK_HOBJECT_IS_NATFUNC(get) && ((duk_hnatfunc *) get)->func == cduk_lazy_get ? get : NULL;
}

/* cduk__own_lazy_getter when h is also the owner the getter was made for (its realm's object of
 * the getter's kind, in ctx's realm), else NULL: a lazy getter a script copied onto another
 * object stands for nothing there, and making it would redefine that object's property. */
static duk_hobject *cduk__pending_lazy_getter(duk_hthread *thr, duk_hobject *h, duk_hstring *key) {
    duk_hobject *get = cduk__own_lazy_getter(thr, h, key);
    if (get == NULL) {
        return NULL;
    }
    cduk_push_realm_object((duk_context *) thr, (cduk_realm_object) ((duk_hnatfunc *) get)->magic);
    int owner = duk_get_hobject(thr, -1) == h;
    duk_pop(thr);
    return owner ? get : NULL;
}

void cduk_clear_constructable(duk_context *ctx, duk_idx_t idx) {
    DUK_HOBJECT_CLEAR_CONSTRUCTABLE(duk_require_hobject((duk_hthread *) ctx, idx));
}

int cduk_own_property_state(duk_context *ctx, duk_idx_t obj_idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    duk_hstring *key = duk_get_hstring(thr, -1);
    if (h == NULL || key == NULL) {
        return 0;
    }
    duk_int_t e_idx = -1, h_idx = -1;
    duk_hobject_find_entry(thr->heap, h, key, &e_idx, &h_idx);
    if (e_idx < 0) {
        return 0;
    }
    duk_small_uint_t flags = DUK_HOBJECT_E_GET_FLAGS(thr->heap, h, e_idx);
    int state = CDUK_OWN_PRESENT;
    if (flags & DUK_PROPDESC_FLAG_CONFIGURABLE) state |= CDUK_OWN_CONFIGURABLE;
    if (flags & DUK_PROPDESC_FLAG_ENUMERABLE) state |= CDUK_OWN_ENUMERABLE;
    if (flags & DUK_PROPDESC_FLAG_ACCESSOR) {
        state |= CDUK_OWN_ACCESSOR;
        if (cduk__own_lazy_getter(thr, h, key) != NULL) {
            state |= CDUK_OWN_PENDING_LAZY;
        }
    }
    return state;
}

/* 1 when the key at entry i of h is one cduk_pnamed_keys lists in `pass` (0 strings, 1 symbols). */
static int cduk__is_named_key(duk_heap *heap, duk_hobject *h, duk_uint_fast32_t i, int pass) {
    duk_hstring *key = DUK_HOBJECT_E_GET_KEY(heap, h, i);
    if (key == NULL || DUK_HSTRING_HAS_HIDDEN(key) || DUK_HSTRING_HAS_ARRIDX(key) ||
        !(DUK_HOBJECT_E_GET_FLAGS(heap, h, i) & DUK_PROPDESC_FLAG_ENUMERABLE)) {
        return 0;
    }
    return DUK_HSTRING_HAS_SYMBOL(key) ? pass == 1 : pass == 0;
}

static duk_ret_t cduk__named_keys(duk_context *ctx, void *udata) {
    (void) udata;
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, -1);
    if (h == NULL || DUK_HOBJECT_IS_PROXY(h)) {
        duk_push_undefined(thr);
        return 1;
    }
    /* Counted first, the array made with room for them all, then filled: nothing allocates while
     * the table is walked, so no collection can compact it meanwhile. */
    duk_uint32_t count = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (duk_uint_fast32_t i = 0; i < DUK_HOBJECT_GET_ENEXT(h); i++) {
            count += (duk_uint32_t) cduk__is_named_key(thr->heap, h, i, pass);
        }
    }
    duk_push_array(thr);
    cduk_reserve_array(ctx, -1, count);
    duk_uarridx_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (duk_uint_fast32_t i = 0; i < DUK_HOBJECT_GET_ENEXT(h) && n < count; i++) {
            if (cduk__is_named_key(thr->heap, h, i, pass)) {
                duk_push_hstring(thr, DUK_HOBJECT_E_GET_KEY(thr->heap, h, i));
                duk_put_prop_index(thr, -2, n++);
            }
        }
    }
    return 1;
}

duk_int_t cduk_pnamed_keys(duk_context *ctx) {
    return cduk__protect(ctx, cduk__named_keys, NULL, 1, 1);
}

int cduk_push_proxy_parts(duk_context *ctx, duk_idx_t idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, idx);
    if (h == NULL || !DUK_HOBJECT_IS_PROXY(h)) {
        return 0;
    }
    duk_hproxy *proxy = (duk_hproxy *) h;
    if (proxy->target == NULL || proxy->handler == NULL) {
        (void) cduk_type_error(ctx, "the proxy is revoked");
    }
    duk_push_hobject(thr, proxy->target);
    duk_push_hobject(thr, proxy->handler);
    return 1;
}

int cduk_looks_frozen(duk_context *ctx, duk_idx_t obj_idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    if (h == NULL || DUK_HOBJECT_HAS_EXTENSIBLE(h) || (DUK_HOBJECT_HAS_ARRAY_PART(h) && DUK_HOBJECT_GET_ASIZE(h) > 0)) {
        return 0;
    }
    for (duk_uint_fast32_t i = 0; i < DUK_HOBJECT_GET_ENEXT(h); i++) {
        if (DUK_HOBJECT_E_GET_KEY(thr->heap, h, i) == NULL) {
            continue;
        }
        duk_small_uint_t flags = DUK_HOBJECT_E_GET_FLAGS(thr->heap, h, i);
        if ((flags & DUK_PROPDESC_FLAG_CONFIGURABLE) ||
            (!(flags & DUK_PROPDESC_FLAG_ACCESSOR) && (flags & DUK_PROPDESC_FLAG_WRITABLE))) {
            return 0;
        }
    }
    return 1;
}

void cduk_finalizers_hold(duk_context *ctx) {
    ((duk_hthread *) ctx)->heap->pf_prevent_count++;
}

void cduk_finalizers_release(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    if (thr->heap->pf_prevent_count > 0) {
        thr->heap->pf_prevent_count--;
    }
    /* The finalizers that waited run now, as a release of a value would run them. */
    DUK_REFZERO_CHECK_SLOW(thr);
}

duk_int_t cduk_safe_call_keeping_holds(duk_context *ctx, duk_safe_call_function fn, void *udata, duk_idx_t nargs, duk_idx_t nrets) {
    duk_heap *heap = ((duk_hthread *) ctx)->heap;
    duk_uint_t holds = heap->pf_prevent_count;
    duk_int_t rc = duk_safe_call(ctx, fn, udata, nargs, nrets);
    heap->pf_prevent_count = holds;
    return rc;
}

void cduk_reserve_array(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t count) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    if (h == NULL || !DUK_HOBJECT_HAS_ARRAY_PART(h) || DUK_HOBJECT_GET_ASIZE(h) >= count) {
        return;
    }
    /* Doubling at least (Duktape grows an array part by an eighth: a queue that grows one slot
     * at a time copies itself about eight times over). */
    duk_uint32_t size = DUK_HOBJECT_GET_ASIZE(h);
    duk_uint32_t wanted = size > count / 2 ? (size > DUK_UINT32_MAX / 2 ? count : size * 2) : count;
#if defined(DUK_USE_OBJSIZES16)
    if (wanted > DUK_UINT16_MAX) wanted = DUK_UINT16_MAX;
    if (wanted < count) return;
#endif
    duk_hobject_realloc_props(thr, h, DUK_HOBJECT_GET_ESIZE(h), wanted, DUK_HOBJECT_GET_HSIZE(h), 0);
}

void cduk_reserve_more_properties(duk_context *ctx, duk_idx_t obj_idx, duk_uint32_t extra) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *h = duk_get_hobject(thr, obj_idx);
    if (h != NULL && DUK_HOBJECT_GET_ESIZE(h) < DUK_HOBJECT_GET_ENEXT(h) + extra) {
        duk_hobject_resize_entrypart(thr, h, DUK_HOBJECT_GET_ENEXT(h) + extra);
    }
}

void cduk_force_finalizer(duk_context *ctx, duk_idx_t obj_idx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    obj_idx = duk_require_normalize_index(thr, obj_idx);
    duk_hobject *h = duk_require_hobject(thr, obj_idx);
    duk_bool_t callable = duk_is_callable(thr, -1);
    duk_push_hstring_stridx(thr, DUK_STRIDX_INT_FINALIZER);
    duk_insert(thr, -2);
    duk_def_prop(thr, obj_idx, CDUK__HIDDEN_SLOT);
    /* Duktape's finalizer check reads this flag, not the property (as duk_set_finalizer). */
    if (callable) {
        DUK_HOBJECT_SET_HAVE_FINALIZER(h);
    } else {
        DUK_HOBJECT_CLEAR_HAVE_FINALIZER(h);
    }
}

/* Why internals: Duktape keeps the object whose finalizer it is calling at the head of
 * finalize_list, with FINALIZED set, for exactly the duration of the call (before it, the
 * flag is clear; after it, the object leaves the list). Its own `currently_finalizing`
 * field exists only in assertion builds. */
int cduk_heap_finalizing(void *engine_heap) {
    duk_heap *heap = (duk_heap *) engine_heap;
    return heap != NULL && heap->finalize_list != NULL && DUK_HEAPHDR_HAS_FINALIZED(heap->finalize_list);
}

int cduk_heap_activity(void *engine_heap) {
    duk_heap *heap = (duk_heap *) engine_heap;
    if (heap == NULL) {
        return 0;
    }
    return (heap->creating_error ? CDUK_MAKING_ERROR : 0) | (heap->ms_running ? CDUK_COLLECTING : 0);
}

/* Appends bytes to the site's stack, cut at its capacity. */
static void cduk__site_append(cduk_limit_site *site, const void *bytes, size_t length) {
    size_t room = sizeof(site->stack) - site->stack_length;
    if (length > room) {
        length = room;
    }
    memcpy(site->stack + site->stack_length, bytes, length);
    site->stack_length += (uint32_t) length;
}

/* The own string property `stridx` of h (a symbol or anything else: NULL); reads only. */
static duk_hstring *cduk__own_string(duk_heap *heap, duk_hobject *h, duk_small_uint_t stridx) {
    duk_tval *tv = duk_hobject_find_entry_tval_ptr_stridx(heap, h, stridx);
    if (tv == NULL || !DUK_TVAL_IS_STRING(tv)) {
        return NULL;
    }
    duk_hstring *string = DUK_TVAL_GET_STRING(tv);
    return DUK_HSTRING_HAS_SYMBOL(string) ? NULL : string;
}

/* Why not Duktape's traceback: making it allocates, and the heap is full. The frames are read
 * as Duktape's stack getter (and cduk__stack_getter over it) would show them: "name@file:line"
 * for script functions ("global code" for the program, "" for anonymous ones),
 * "name@[native code]" for built-ins; lightweight functions are left out, as there. */
int cduk_record_limit_site(cduk_heap_state *state) {
    duk_heap *heap = (duk_heap *) state->engine_heap;
    cduk_limit_site *site = state->limit_site;
    if (site == NULL || heap == NULL || heap->curr_thread == NULL || heap->creating_error || heap->ms_running) {
        return 0;
    }
    duk_hthread *thr = heap->curr_thread;
    site->hits = state->limit_hits;
    site->deadline_mark = 0;
    site->line = 0;
    site->has_file = 0;
    site->file_length = 0;
    site->stack_length = 0;
    int depth = 0;
    for (duk_activation *act = thr->callstack_curr; act != NULL && depth < DUK_USE_TRACEBACK_DEPTH; act = act->parent) {
        duk_hobject *func = DUK_ACT_GET_FUNC(act);
        if (func == NULL || !(DUK_HOBJECT_HAS_NATFUNC(func) || DUK_HOBJECT_IS_COMPFUNC(func))) {
            continue;
        }
        depth++;
        if (site->stack_length > 0) {
            cduk__site_append(site, "\n", 1);
        }
        duk_hstring *name = cduk__own_string(heap, func, DUK_STRIDX_NAME);
        if (name != NULL && DUK_HSTRING_GET_BYTELEN(name) == 4 && memcmp(DUK_HSTRING_GET_DATA(name), "eval", 4) == 0) {
            cduk__site_append(site, "global code", 11);
        } else if (name != NULL) {
            cduk__site_append(site, DUK_HSTRING_GET_DATA(name), DUK_HSTRING_GET_BYTELEN(name));
        }
        if (DUK_HOBJECT_HAS_NATFUNC(func)) {
            cduk__site_append(site, "@[native code]", 14);
            continue;
        }
        duk_uint_fast32_t line = 0;
        duk_tval *pc2line = duk_hobject_find_entry_tval_ptr_stridx(heap, func, DUK_STRIDX_INT_PC2LINE);
        if (pc2line != NULL && DUK_TVAL_IS_BUFFER(pc2line)) {
            duk_hbuffer *buffer = DUK_TVAL_GET_BUFFER(pc2line);
            if (!DUK_HBUFFER_HAS_DYNAMIC(buffer) && !DUK_HBUFFER_HAS_EXTERNAL(buffer)) {
                line = duk__hobject_pc2line_query_raw(thr, (duk_hbuffer_fixed *) buffer, duk_hthread_get_act_prev_pc(thr, act));
            }
        }
        duk_hstring *file = cduk__own_string(heap, func, DUK_STRIDX_FILE_NAME);
        char number[24];
        int number_length = snprintf(number, sizeof(number), ":%lu", (unsigned long) line);
        cduk__site_append(site, "@", 1);
        if (file != NULL) {
            cduk__site_append(site, DUK_HSTRING_GET_DATA(file), DUK_HSTRING_GET_BYTELEN(file));
        }
        cduk__site_append(site, number, number_length > 0 ? (size_t) number_length : 0);
        if (file != NULL && !site->has_file) {
            size_t length = DUK_HSTRING_GET_BYTELEN(file);
            if (length > sizeof(site->file)) {
                length = 0; /* a cut name would name another file: none */
            }
            memcpy(site->file, DUK_HSTRING_GET_DATA(file), length);
            site->file_length = (uint32_t) length;
            site->has_file = 1;
            site->line = (uint32_t) line;
        }
    }
    return 1;
}

void cduk_record_deadline_site(cduk_heap_state *state) {
    cduk_limit_site *site = state->limit_site;
    if (site == NULL) {
        return;
    }
    if (cduk_record_limit_site(state)) {
        site->hits = 0;
        site->deadline_mark = state->deadline_refusals + state->deadline_stops;
    }
}

void *cduk_engine_heap(duk_context *ctx) {
    return ((duk_hthread *) ctx)->heap;
}

/* Why internals: the heap's augmenting_error flag is Duktape's own guard against running the
 * errCreate hook inside itself; while it is set, errors are made without the hook. */
int cduk_suspend_error_hooks(duk_context *ctx) {
    duk_heap *heap = ((duk_hthread *) ctx)->heap;
    int previous = heap->augmenting_error ? 1 : 0;
    heap->augmenting_error = 1;
    return previous;
}

void cduk_restore_error_hooks(duk_context *ctx, int previous) {
    ((duk_hthread *) ctx)->heap->augmenting_error = previous ? 1 : 0;
}

uint32_t cduk_refcount_at(duk_context *ctx, duk_idx_t idx) {
    duk_hobject *h = duk_get_hobject((duk_hthread *) ctx, idx);
    return h != NULL ? (uint32_t) DUK_HEAPHDR_GET_REFCOUNT((duk_heaphdr *) h) : 0;
}

int cduk_same_realm(duk_context *a, duk_context *b) {
    return ((duk_hthread *) a)->builtins[DUK_BIDX_GLOBAL] == ((duk_hthread *) b)->builtins[DUK_BIDX_GLOBAL];
}

int cduk_is_proxy(duk_context *ctx, duk_idx_t idx) {
    duk_hobject *h = duk_get_hobject((duk_hthread *) ctx, idx);
    return h != NULL && DUK_HOBJECT_IS_PROXY(h);
}

int cduk_heapptr_is_callable(void *ptr) {
    duk_heaphdr *h = (duk_heaphdr *) ptr;
    return DUK_HEAPHDR_GET_TYPE(h) == DUK_HTYPE_OBJECT && DUK_HOBJECT_IS_CALLABLE((duk_hobject *) h);
}

/* ---- The realm's own built-ins -----------------------------------------------------
 *
 * Why internals: every realm (a Duktape thread with its own global environment) keeps a table
 * of its built-in objects, made with the realm before any script runs; Duktape itself creates
 * errors and dates from it. The library does the same, so that a script that replaces
 * `TypeError`, `String`, `Object.defineProperty` or `Symbol` changes what scripts see, never
 * what the library makes. Symbol and Object.defineProperty have no table entry: their native
 * functions are called as fresh function objects instead (the same C code as the built-ins). */

void cduk_push_builtin(duk_context *ctx, cduk_builtin builtin) {
    duk_hthread *thr = (duk_hthread *) ctx;
    switch (builtin) {
    case CDUK_BUILTIN_ERROR: duk_push_hobject_bidx(thr, DUK_BIDX_ERROR_CONSTRUCTOR); break;
    case CDUK_BUILTIN_EVAL_ERROR: duk_push_hobject_bidx(thr, DUK_BIDX_EVAL_ERROR_CONSTRUCTOR); break;
    case CDUK_BUILTIN_RANGE_ERROR: duk_push_hobject_bidx(thr, DUK_BIDX_RANGE_ERROR_CONSTRUCTOR); break;
    case CDUK_BUILTIN_REFERENCE_ERROR: duk_push_hobject_bidx(thr, DUK_BIDX_REFERENCE_ERROR_CONSTRUCTOR); break;
    case CDUK_BUILTIN_SYNTAX_ERROR: duk_push_hobject_bidx(thr, DUK_BIDX_SYNTAX_ERROR_CONSTRUCTOR); break;
    case CDUK_BUILTIN_TYPE_ERROR: duk_push_hobject_bidx(thr, DUK_BIDX_TYPE_ERROR_CONSTRUCTOR); break;
    case CDUK_BUILTIN_URI_ERROR: duk_push_hobject_bidx(thr, DUK_BIDX_URI_ERROR_CONSTRUCTOR); break;
    case CDUK_BUILTIN_REGEXP: duk_push_hobject_bidx(thr, DUK_BIDX_REGEXP_CONSTRUCTOR); break;
    case CDUK_BUILTIN_STRING: duk_push_hobject_bidx(thr, DUK_BIDX_STRING_CONSTRUCTOR); break;
    case CDUK_BUILTIN_OBJECT: duk_push_hobject_bidx(thr, DUK_BIDX_OBJECT_CONSTRUCTOR); break;
    case CDUK_BUILTIN_SYMBOL:
        /* Symbol(description): magic 0 (Symbol.for is magic 1). */
        duk_push_c_function(thr, duk_bi_symbol_constructor_shared, 1);
        break;
    default: duk_push_undefined(thr); break; /* calling it throws a TypeError */
    }
}

void *cduk_heap_state_of(duk_context *ctx) {
    return ((duk_hthread *) ctx)->heap->heap_udata;
}

int cduk_is_resumed_coroutine(duk_context *ctx) {
    return ((duk_hthread *) ctx)->resumer != NULL;
}

void *cduk_realm_global(duk_context *ctx) {
    return ((duk_hthread *) ctx)->builtins[DUK_BIDX_GLOBAL];
}

void cduk_push_resume_root(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    while (thr->resumer != NULL) {
        thr = thr->resumer;
    }
    duk_push_hobject((duk_hthread *) ctx, (duk_hobject *) thr);
}

/* Why: Duktape's duk_get_prop_desc (and its Object.getOwnPropertyDescriptor, which methods.c
 * replaces) fill the descriptor by assignment, so a setter a script put on Object.prototype
 * ("value", "get", "enumerable"...) runs and the descriptor lacks that property: the library
 * reading it would read the script's getter instead. The same descriptor, its properties defined. [.. key] -> [.. desc|undefined] */
/* [..] -> [.. trap|undefined]: the object whose own properties describe obj's: obj, or for a
 * proxy without a getOwnPropertyDescriptor trap its target (down a chain of them); a proxy with
 * the trap is returned itself, its trap pushed. May throw (a revoked proxy, a handler's getter). */
static duk_hobject *cduk__descriptor_holder(duk_hthread *thr, duk_hobject *obj) {
    for (int depth = 0; DUK_HOBJECT_IS_PROXY(obj); depth++) {
        duk_hproxy *proxy = (duk_hproxy *) obj;
        if (proxy->target == NULL || proxy->handler == NULL || depth >= 1000) {
            (void) cduk_type_error((duk_context *) thr, "the proxy is revoked or nested too deeply");
        }
        duk_push_hobject(thr, proxy->handler);
        duk_get_prop_literal(thr, -1, "getOwnPropertyDescriptor");
        duk_remove_m2(thr);
        if (!duk_is_null_or_undefined(thr, -1)) {
            return obj;
        }
        duk_pop(thr);
        obj = proxy->target;
    }
    duk_push_undefined(thr);
    return obj;
}

static void cduk__get_prop_desc(duk_context *ctx, duk_idx_t obj_idx, int make_pending);

/* Whether obj is extensible, a proxy answering for its target (Duktape's proxies have no
 * isExtensible trap). */
static int cduk__is_extensible(duk_hobject *obj) {
    for (int depth = 0; obj != NULL && DUK_HOBJECT_IS_PROXY(obj) && depth < 1000; depth++) {
        obj = ((duk_hproxy *) obj)->target;
    }
    return obj != NULL && DUK_HOBJECT_HAS_EXTENSIBLE(obj);
}

/* The fields of a descriptor, in the order ToPropertyDescriptor reads them. */
enum { CDUK__D_ENUMERABLE, CDUK__D_CONFIGURABLE, CDUK__D_VALUE, CDUK__D_WRITABLE, CDUK__D_GET, CDUK__D_SET, CDUK__D_COUNT };
static const char *const cduk__descriptor_fields[CDUK__D_COUNT] = { "enumerable", "configurable", "value", "writable", "get", "set" };

/* ToBoolean of a descriptor's `name`. */
static int cduk__descriptor_flag(duk_hthread *thr, duk_idx_t desc, const char *name) {
    duk_get_prop_string(thr, desc, name);
    int flag = duk_to_boolean(thr, -1);
    duk_pop(thr);
    return flag;
}

/* [.. key target result] -> [.. desc|undefined]: a getOwnPropertyDescriptor trap's result for key
 * on the proxy's target, checked as the specification's [[GetOwnProperty]] of proxies checks it
 * (ToPropertyDescriptor, then its invariants against the target's own property) and returned as
 * a complete descriptor of its own (the trap's object is not handed on). */
static void cduk__checked_trap_descriptor(duk_hthread *thr) {
    duk_context *ctx = (duk_context *) thr;
    duk_idx_t result = duk_get_top_index(thr), target = result - 1, key = result - 2;
    duk_hobject *target_object = duk_require_hobject(thr, target);
    duk_push_hobject(thr, target_object);
    duk_dup(thr, key);
    cduk__get_prop_desc(ctx, -2, 1); /* [.. key target result targetObj current|undefined] */
    duk_remove_m2(thr);
    duk_idx_t current = duk_get_top_index(thr);
    int exists = !duk_is_undefined(thr, current);
    int extensible = cduk__is_extensible(target_object);
    /* The target's property, read once (a descriptor this file made: plain data properties). */
    int current_configurable = 0, current_enumerable = 0, current_writable = 0, current_accessor = 0;
    if (exists) {
        current_configurable = cduk__descriptor_flag(thr, current, "configurable");
        current_enumerable = cduk__descriptor_flag(thr, current, "enumerable");
        current_writable = cduk__descriptor_flag(thr, current, "writable");
        duk_push_literal(thr, "get");
        current_accessor = duk_has_prop(thr, current);
    }
    if (duk_is_undefined(thr, result)) {
        if (exists && !current_configurable) {
            (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap reported a non-configurable property as missing");
        }
        if (exists && !extensible) {
            (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap reported a property of a non-extensible target as missing");
        }
        duk_push_undefined(thr);
        duk_replace(thr, key);
        duk_set_top(thr, key + 1);
        return;
    }
    /* ToPropertyDescriptor: [.. current field0 .. field5], undefined where absent. */
    int has[CDUK__D_COUNT];
    duk_idx_t field = current + 1;
    for (int i = 0; i < CDUK__D_COUNT; i++) {
        has[i] = duk_has_prop_string(thr, result, cduk__descriptor_fields[i]);
        if (has[i]) {
            duk_get_prop_string(thr, result, cduk__descriptor_fields[i]);
        } else {
            duk_push_undefined(thr);
        }
    }
    for (int i = CDUK__D_GET; i <= CDUK__D_SET; i++) {
        if (has[i] && !duk_is_undefined(thr, field + i) && !duk_is_callable(thr, field + i)) {
            (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap gave a %s that is not a function", cduk__descriptor_fields[i]);
        }
    }
    int accessor = has[CDUK__D_GET] || has[CDUK__D_SET];
    if (accessor && (has[CDUK__D_VALUE] || has[CDUK__D_WRITABLE])) {
        (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap gave both accessor and data fields");
    }
    int enumerable = duk_to_boolean(thr, field + CDUK__D_ENUMERABLE), configurable = duk_to_boolean(thr, field + CDUK__D_CONFIGURABLE);
    int writable = duk_to_boolean(thr, field + CDUK__D_WRITABLE); /* absent: false (CompletePropertyDescriptor) */
    /* IsCompatiblePropertyDescriptor, then the non-configurable checks. */
    int valid = exists ? 1 : extensible;
    if (exists && !current_configurable) {
        if (configurable || enumerable != current_enumerable || accessor != current_accessor) {
            valid = 0;
        } else if (accessor) {
            for (int i = CDUK__D_GET; i <= CDUK__D_SET && valid; i++) {
                duk_get_prop_string(thr, current, cduk__descriptor_fields[i]);
                valid = duk_samevalue(thr, -1, field + i);
                duk_pop(thr);
            }
        } else if (!current_writable) {
            duk_get_prop_literal(thr, current, "value");
            valid = !writable && duk_samevalue(thr, -1, field + CDUK__D_VALUE);
            duk_pop(thr);
        }
    }
    if (!valid) {
        (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap gave a descriptor the target's property does not allow");
    }
    if (!configurable) {
        if (!exists || current_configurable) {
            (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap reported a property as non-configurable that is configurable or missing on the target");
        }
        if (!accessor && !writable && current_writable) {
            (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap reported a writable property as non-configurable and read-only");
        }
    }
    /* FromPropertyDescriptor of the completed descriptor. */
    duk_push_object(thr);
    if (accessor) {
        duk_dup(thr, field + CDUK__D_GET);
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_GET);
        duk_dup(thr, field + CDUK__D_SET);
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_SET);
    } else {
        duk_dup(thr, field + CDUK__D_VALUE);
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_VALUE);
        duk_push_boolean(thr, writable);
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_WRITABLE);
    }
    duk_push_boolean(thr, enumerable);
    duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_ENUMERABLE);
    duk_push_boolean(thr, configurable);
    duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_CONFIGURABLE);
    duk_replace(thr, key);
    duk_set_top(thr, key + 1);
}

/* cduk_get_prop_desc, and with `make_pending` cduk_get_own_prop_desc. */
static void cduk__get_prop_desc(duk_context *ctx, duk_idx_t obj_idx, int make_pending) {
    duk_hthread *thr = (duk_hthread *) ctx;
    obj_idx = duk_require_normalize_index(thr, obj_idx);
    duk_hobject *obj = duk_require_hobject_promote_mask(thr, obj_idx, DUK_TYPE_MASK_LIGHTFUNC | DUK_TYPE_MASK_BUFFER);
    duk_hstring *key = duk_to_property_key_hstring(thr, -1);
    /* A proxy: its getOwnPropertyDescriptor trap answers, or, without one, its target (Duktape's
     * own lookup sees the proxy object, which has no properties). */
    duk_hobject *holder = cduk__descriptor_holder(thr, obj); /* [.. key trap|undefined] */
    if (!duk_is_undefined(thr, -1)) {
        duk_hproxy *proxy = (duk_hproxy *) holder;
        duk_push_hobject(thr, proxy->target); /* kept: the trap may revoke the proxy */
        duk_insert(thr, -2);
        duk_push_hobject(thr, proxy->handler);
        duk_push_hobject(thr, proxy->target);
        duk_dup(thr, -5); /* [.. key target trap handler target key] */
        duk_call_method(thr, 2);
        if (!duk_is_undefined(thr, -1) && !duk_is_object(thr, -1)) {
            (void) cduk_type_error(ctx, "the proxy's getOwnPropertyDescriptor trap gave neither an object nor undefined");
        }
        cduk__checked_trap_descriptor(thr); /* [.. key target result] -> [.. desc|undefined] */
        return;
    }
    duk_pop(thr);
    obj = holder;
    duk_hobject *get = make_pending ? cduk__pending_lazy_getter(thr, obj, key) : NULL;
    if (get != NULL) {
        duk_push_hobject(thr, obj);
        duk_push_hobject(thr, get);
        duk_dup(thr, -3); /* [.. key owner getter key] */
        cduk_make_lazy(ctx, -3, -2);
        duk_pop_3(thr);
    }
    duk_propdesc pd;
    if (!duk_hobject_get_own_propdesc(thr, obj, key, &pd, DUK_GETDESC_FLAG_PUSH_VALUE)) {
        duk_push_undefined(thr);
        duk_remove_m2(thr);
        return;
    }
    duk_push_object(thr); /* [.. key value desc] */
    if (DUK_PROPDESC_IS_ACCESSOR(&pd)) {
        if (pd.get) {
            duk_push_hobject(thr, pd.get);
        } else {
            duk_push_undefined(thr);
        }
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_GET);
        if (pd.set) {
            duk_push_hobject(thr, pd.set);
        } else {
            duk_push_undefined(thr);
        }
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_SET);
    } else {
        duk_dup_m2(thr);
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_VALUE);
        duk_push_boolean(thr, DUK_PROPDESC_IS_WRITABLE(&pd));
        duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_WRITABLE);
    }
    duk_push_boolean(thr, DUK_PROPDESC_IS_ENUMERABLE(&pd));
    duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_ENUMERABLE);
    duk_push_boolean(thr, DUK_PROPDESC_IS_CONFIGURABLE(&pd));
    duk_xdef_prop_stridx_short_wec(thr, -2, DUK_STRIDX_CONFIGURABLE);
    duk_replace(thr, -3);
    duk_pop_unsafe(thr); /* [.. desc] */
}

/* Makes the built-in pending under the key at key_idx on h (lazy.c), if one is. */
static void cduk__make_pending(duk_hthread *thr, duk_hobject *h, duk_idx_t key_idx) {
    key_idx = duk_require_normalize_index(thr, key_idx);
    duk_hobject *get = cduk__pending_lazy_getter(thr, h, duk_known_hstring(thr, key_idx));
    if (get != NULL) {
        duk_push_hobject(thr, h);
        duk_push_hobject(thr, get);
        duk_dup(thr, key_idx); /* [.. owner getter key] */
        cduk_make_lazy((duk_context *) thr, -3, -2);
        duk_pop_3(thr);
    }
}

/* Object.defineProperty(O, P, desc) (magic 0) and Reflect.defineProperty (magic 1): Duktape's,
 * once a built-in still pending under P on O is made. Without that, a partial descriptor
 * ({ writable: false }) applied to the pending accessor and left a data property holding
 * undefined. The key is converted here, once (Duktape's conversion of the result runs no code). */
duk_ret_t cduk_object_define_property(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_set_top(thr, 3);
    duk_hobject *h = duk_get_hobject(thr, 0);
    if (h != NULL) {
        (void) duk_to_property_key_hstring(thr, 1);
        if (duk_is_object(thr, 2)) {
            cduk__make_pending(thr, h, 1);
        }
    }
    return duk_bi_object_constructor_define_property(thr);
}

/* Object.defineProperties(O, props): Duktape's, once every built-in still pending on O is made
 * (O's own table is read, not props: listing props' keys would run a proxy's trap once more). */
duk_ret_t cduk_object_define_properties(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_set_top(thr, 2);
    duk_hobject *h = duk_get_hobject(thr, 0);
    if (h != NULL && !duk_is_null_or_undefined(thr, 1)) {
        /* A built-in made may move O's entries (an installer defines several names): the walk
         * starts again after each one made, and goes on past an accessor that stays (should an
         * installer fail to replace it). */
        for (duk_uint_fast32_t i = 0; i < DUK_HOBJECT_GET_ENEXT(h); i++) {
            duk_hstring *key = DUK_HOBJECT_E_GET_KEY(thr->heap, h, i);
            if (key == NULL || cduk__pending_lazy_getter(thr, h, key) == NULL) {
                continue;
            }
            duk_push_hstring(thr, key);
            cduk__make_pending(thr, h, -1);
            int made = cduk__pending_lazy_getter(thr, h, duk_known_hstring(thr, -1)) == NULL;
            duk_pop(thr);
            if (made) {
                i = (duk_uint_fast32_t) -1;
            }
        }
    }
    return duk_bi_object_constructor_define_properties(thr);
}

/* Object.prototype.__defineGetter__ (magic 0) and __defineSetter__ (magic 1): Duktape's, once a
 * built-in still pending under the key on `this` is made (so that the half not given is
 * undefined, as on the data property the built-in is). */
duk_ret_t cduk_object_define_accessor(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_set_top(thr, 2);
    duk_push_this(thr);
    duk_hobject *h = duk_get_hobject(thr, 2);
    if (h != NULL && duk_is_callable(thr, 1)) {
        (void) duk_to_property_key_hstring(thr, 0);
        cduk__make_pending(thr, h, 0);
    }
    duk_pop(thr);
    return duk_bi_object_prototype_defineaccessor(thr);
}

void cduk_get_prop_desc(duk_context *ctx, duk_idx_t obj_idx) { cduk__get_prop_desc(ctx, obj_idx, 0); }

void cduk_get_own_prop_desc(duk_context *ctx, duk_idx_t obj_idx) { cduk__get_prop_desc(ctx, obj_idx, 1); }

void cduk_push_to_string_tag_symbol(duk_context *ctx) {
    duk_push_hstring_stridx((duk_hthread *) ctx, DUK_STRIDX_WELLKNOWN_SYMBOL_TO_STRING_TAG);
}

void cduk_push_duktape_object(duk_context *ctx) {
    duk_push_hobject_bidx((duk_hthread *) ctx, DUK_BIDX_DUKTAPE);
}

void cduk_push_error_prototype(duk_context *ctx) {
    duk_push_hobject_bidx((duk_hthread *) ctx, DUK_BIDX_ERROR_PROTOTYPE);
}

void cduk_adopt_as_double_error(duk_context *ctx) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *adopted = duk_require_hobject(thr, -1);
    duk_hobject *replaced = thr->builtins[DUK_BIDX_DOUBLE_ERROR];
    DUK_HOBJECT_INCREF(thr, adopted);
    thr->builtins[DUK_BIDX_DOUBLE_ERROR] = adopted;
    DUK_HOBJECT_DECREF_NORZ_ALLOWNULL(thr, replaced);
    duk_pop(ctx);
}

static duk_ret_t cduk__date(duk_context *ctx, void *udata) {
    duk_push_hobject_bidx((duk_hthread *) ctx, DUK_BIDX_DATE_CONSTRUCTOR);
    duk_push_number(ctx, *(double *) udata);
    duk_new(ctx, 1);
    return 1;
}

duk_int_t cduk_ppush_date(duk_context *ctx, double milliseconds) {
    return cduk__protect(ctx, cduk__date, &milliseconds, 0, 1);
}

static duk_ret_t cduk__define_property(duk_context *ctx, void *udata) {
    (void) udata;
    /* [obj key desc] -> Object.defineProperty(obj, key, desc), magic 0 (Reflect's is 1): the
     * library's, which makes a pending built-in first (cduk_object_define_property). */
    duk_push_c_function(ctx, cduk_object_define_property, 3);
    duk_insert(ctx, -4);
    duk_call(ctx, 3);
    return 0;
}

duk_int_t cduk_pdefine_property(duk_context *ctx) {
    return cduk__protect(ctx, cduk__define_property, NULL, 3, 0);
}

static duk_ret_t cduk__def_to_string_tag(duk_context *ctx, void *udata) {
    (void) udata;
    /* [obj getter] -> [obj] */
    duk_push_hstring_stridx((duk_hthread *) ctx, DUK_STRIDX_WELLKNOWN_SYMBOL_TO_STRING_TAG);
    duk_insert(ctx, -2);
    duk_def_prop(ctx, -3, CDUK_DEFPROP_GETTER);
    return 1;
}

duk_int_t cduk_pdef_to_string_tag(duk_context *ctx) {
    return cduk__protect(ctx, cduk__def_to_string_tag, NULL, 2, 1);
}

/* ---- What bytecode depends on ----------------------------------------------------------
 *
 * A duk_dump_function image is loadable only by the same engine build: its version, the
 * architecture, byte order and pointer size, and the options that change how values and
 * functions are laid out (read here, after the amalgamation, with this build's overlay). */

#define CDUK__TEXT(x) #x
#define CDUK__STRING(x) CDUK__TEXT(x)

size_t cduk_engine_fingerprint(char *out, size_t capacity) {
    int written = snprintf(out, capacity,
                           "duktape %ld %s arch %s order %d tval %zu hcompfunc %zu pointer %zu options %s", (long) DUK_VERSION,
                           DUK_GIT_DESCRIBE, DUK_USE_ARCH_STRING, (int) DUK_USE_BYTEORDER, sizeof(duk_tval),
                           sizeof(duk_hcompfunc), sizeof(void *),
                           ""
#if defined(DUK_USE_PACKED_TVAL)
                           "packed "
#endif
#if defined(DUK_USE_FASTINT)
                           "fastint "
#endif
#if defined(DUK_USE_REFERENCE_COUNTING)
                           "refcount "
#endif
#if defined(DUK_USE_LIGHTFUNC_BUILTINS)
                           "lightfunc "
#endif
#if defined(DUK_USE_ROM_OBJECTS)
                           "rom "
#endif
#if defined(DUK_USE_PC2LINE)
                           "pc2line "
#endif
#if defined(DUK_USE_HOBJECT_HASH_PART)
                           "hash "
#endif
#if defined(DUK_USE_STRHASH_DENSE)
                           "dense "
#endif
    );
    return written < 0 ? 0 : (size_t) written;
}

/* ---- The lowering's helpers -------------------------------------------------------
 *
 * Lowered code calls TypeScript's helpers (and the transpiler's own) as members of one global,
 * __duktapeLowering (see transpiler.js), which the host defines once per context, before the
 * first lowered code runs there: frozen, non-writable, non-enumerable, non-configurable, so a
 * script can neither replace nor shadow it at the global level. A hidden flag on the global
 * records that this context has it. */

int cduk_has_lowering_helpers(duk_context *ctx) {
    duk_push_global_object(ctx);
    int found = duk_has_prop_literal(ctx, -1, DUK_HIDDEN_SYMBOL("loweringHelpers"));
    duk_pop(ctx);
    return found;
}

static duk_ret_t cduk__install_lowering_helpers(duk_context *ctx, void *udata) {
    (void) udata;
    /* [helpers] -> [] */
    duk_freeze(ctx, -1);
    duk_push_global_object(ctx);
    duk_push_literal(ctx, CDUK_LOWERING_GLOBAL);
    cduk_get_prop_desc(ctx, -2);
    if (!duk_is_undefined(ctx, -1)) {
        /* A script's own global of that name: never replaced. */
        return cduk_type_error(ctx, "the global '" CDUK_LOWERING_GLOBAL "' is reserved for lowered (ES2015+) code, "
                                   "and a script of this context defined it");
    }
    duk_pop(ctx);
    duk_push_literal(ctx, CDUK_LOWERING_GLOBAL);
    duk_dup(ctx, -3);
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_CLEAR_WEC);
    duk_push_true(ctx);
    duk_put_prop_literal(ctx, -2, DUK_HIDDEN_SYMBOL("loweringHelpers"));
    return 0;
}

duk_int_t cduk_pinstall_lowering_helpers(duk_context *ctx) {
    return cduk__protect(ctx, cduk__install_lowering_helpers, NULL, 1, 0);
}

/* ---- Registry fast path --------------------------------------------------------- */

/* Stores the value on top of ctx's stack (set) or undefined (clear) at `slot` of the registry
 * array directly in its array part, when the slot is inside both the array part and .length,
 * or (a set) is the next slot, just past .length, inside the array part's capacity (an unused
 * entry; .length grows by one, as the put would make it): such a write allocates nothing and
 * runs no setter (the registry has no prototype), so it cannot throw. Replacing a heap value may free it, and refzero calls a finalizer on the heap
 * thread inside Duktape's own protected call; that call fails (and the object is freed without
 * its finalizer) while the heap thread runs under another thread or is resumed into a
 * coroutine, so then this returns 0 too, and the protected put fails the same way without
 * touching the slot: Swift retries the release when its outermost entry ends. Returns 0
 * whenever the caller must use the protected put. */
int cduk__registry_fast(duk_context *ctx, void *registry, uint32_t slot, int clear) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_hobject *array = (duk_hobject *) registry;
    if (!DUK_HOBJECT_HAS_ARRAY_PART(array) || !DUK_HOBJECT_IS_ARRAY(array) || slot >= DUK_HOBJECT_GET_ASIZE(array)) {
        return 0;
    }
    duk_harray *list = (duk_harray *) array;
    duk_tval *target = DUK_HOBJECT_A_GET_VALUE_PTR(thr->heap, array, slot);
    if (slot >= list->length) {
        /* Appending: the registry's slots are taken in order, so the next one is .length. */
        if (clear || slot != list->length || DUK_HARRAY_LENGTH_NONWRITABLE(list) || !DUK_TVAL_IS_UNUSED(target)) {
            return 0;
        }
        DUK_TVAL_SET_TVAL_UPDREF(thr, target, duk_get_tval(thr, -1));
        list->length = slot + 1;
        return 1;
    }
    duk_heap *heap = thr->heap;
    if (DUK_TVAL_IS_HEAP_ALLOCATED(target) && heap->curr_thread != heap->heap_thread &&
        heap->heap_thread->state != DUK_HTHREAD_STATE_INACTIVE) {
        return 0; /* a finalizer could not run now */
    }
    if (clear) {
        DUK_TVAL_SET_UNDEFINED_UPDREF(thr, target);
    } else {
        DUK_TVAL_SET_TVAL_UPDREF(thr, target, duk_get_tval(thr, -1));
    }
    return 1;
}

/* ---- What the host learned of a string ---------------------------------------------------
 *
 * Duktape 2.7's strings use user flags 0-8 of the header; 20 and 21 are free for strings. */
#define CDUK__HSTRING_FLAG_UTF8 DUK_HEAPHDR_USER_FLAG(20)
#define CDUK__HSTRING_FLAG_ASCII DUK_HEAPHDR_USER_FLAG(21)

const char *cduk_string_bytes(duk_context *ctx, duk_idx_t idx, size_t *length, int *known) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_tval *tv = duk_get_tval(thr, idx);
    *known = 0;
    if (tv == NULL || !DUK_TVAL_IS_STRING(tv)) {
        *length = 0;
        return NULL;
    }
    duk_hstring *h = DUK_TVAL_GET_STRING(tv);
    *length = (size_t) DUK_HSTRING_GET_BYTELEN(h);
    if (DUK_HEAPHDR_CHECK_FLAG_BITS(&h->hdr, CDUK__HSTRING_FLAG_UTF8)) {
        *known = CDUK_STRING_UTF8 | (DUK_HEAPHDR_CHECK_FLAG_BITS(&h->hdr, CDUK__HSTRING_FLAG_ASCII) ? CDUK_STRING_ASCII : 0);
    }
    return (const char *) DUK_HSTRING_GET_DATA(h);
}

void cduk_string_mark(duk_context *ctx, duk_idx_t idx, int known) {
    duk_hthread *thr = (duk_hthread *) ctx;
    duk_tval *tv = duk_get_tval(thr, idx);
    if (tv == NULL || !DUK_TVAL_IS_STRING(tv) || !(known & CDUK_STRING_UTF8)) {
        return;
    }
    duk_hstring *h = DUK_TVAL_GET_STRING(tv);
    if (DUK_HSTRING_HAS_EXTDATA(h) || DUK_HEAPHDR_HAS_READONLY(&h->hdr)) {
        return;
    }
    DUK_HEAPHDR_SET_FLAG_BITS(&h->hdr, CDUK__HSTRING_FLAG_UTF8 | ((known & CDUK_STRING_ASCII) ? CDUK__HSTRING_FLAG_ASCII : 0));
}
