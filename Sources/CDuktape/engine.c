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
 *   stack, whatever its size (cduk_native_stack_low in shims.c).
 * - DUK_SINGLE_FILE: Duktape's internal functions become static to this
 *   translation unit, so they do not leak as symbols; the few shims below that
 *   need internals live in this file for that reason.
 *
 * The public header Swift sees (/usr/include/duktape.h + duk_config.h) is the
 * same file pair; the overlay only changes engine internals, not the API/ABI.
 */
#define DUK_SINGLE_FILE
#define DUK_COMPILING_DUKTAPE
#include "/usr/share/duktape/duk_config.h"

#define DUK_USE_INTERRUPT_COUNTER
#define DUK_USE_EXEC_TIMEOUT_CHECK(udata) cduk_exec_timeout_check((udata))
#define DUK_USE_JSON_STRINGIFY_FASTPATH
#define DUK_USE_NATIVE_STACK_CHECK() cduk_native_stack_low()

/* Called by the engine (declared again in CDuktape.h). */
duk_bool_t cduk_exec_timeout_check(void *udata);
int cduk_native_stack_low(void);

#include "/usr/share/duktape/duktape.c"

#include "CDuktape.h"

/* ---- Execution deadline --------------------------------------------------- */

duk_bool_t cduk_exec_timeout_check(void *udata) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    if (state == NULL || state->deadline_ns == 0) {
        return 0;
    }
    if (cduk_monotonic_ns() >= state->deadline_ns) {
        state->timeouts++;
        return 1;
    }
    return 0;
}

/* ---- Class inspection ----------------------------------------------------- */

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

/* Shared with shims.c through this declaration (defined there). */
duk_int_t cduk__protect(duk_context *ctx, duk_safe_call_function fn, void *udata, duk_idx_t nargs, duk_idx_t nrets);

duk_int_t cduk_pput_prop(duk_context *ctx) {
    return cduk__protect(ctx, cduk__put_prop_nonstrict, NULL, 3, 0);
}

duk_int_t cduk_pdel_prop(duk_context *ctx, int *result) {
    *result = 0;
    return cduk__protect(ctx, cduk__del_prop_nonstrict, result, 2, 0);
}
