/* Raw protected baseline: raw.c's work with the guarantees DESIGN.md requires of any safe
 * wrapper, and nothing else (no conversion layer, no values held across calls):
 *  - every host -> engine operation that can throw runs inside duk_pcall/duk_safe_call, so
 *    that no error unwinds the host's frames (values are pushed after a non-throwing
 *    duk_check_stack, as a wrapper must);
 *  - the VM's recursive pthread mutex is held around each operation, and taken again by the C
 *    functions scripts call (a callback may re-enter the API from any thread).
 * C functions called from scripts run inside the caller's protected call already, and read
 * their arguments with non-throwing getters; what they look up on `this` is protected, since a
 * Swift callback could not let that throw either. */
#include "internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Protected primitives --------------------------------------------------- */

static duk_ret_t rawp__get_prop(duk_context *ctx, void *udata) {
    duk_get_prop_string(ctx, -1, (const char *) udata); /* [obj] -> [obj value] */
    duk_remove(ctx, -2);
    return 1;
}

/* [obj] -> [obj.key] (or the error); returns the status. */
static duk_int_t rawp__get(duk_context *ctx, const char *key) {
    return duk_safe_call(ctx, rawp__get_prop, (void *) key, 1, 1);
}

static duk_ret_t rawp__put_prop(duk_context *ctx, void *udata) {
    duk_put_prop_string(ctx, -2, (const char *) udata); /* [obj value] -> [obj] */
    return 0;
}

/* [... obj value] -> [... obj]: obj.key = value; returns the status. */
static duk_int_t rawp__put(duk_context *ctx, const char *key) {
    return duk_safe_call(ctx, rawp__put_prop, (void *) key, 1, 0);
}

static duk_ret_t rawp__get_global_prop(duk_context *ctx, void *udata) {
    duk_get_global_string(ctx, (const char *) udata);
    return 1;
}

/* [] -> [global[name]] (or the error). */
static duk_int_t rawp__get_global(duk_context *ctx, const char *name) {
    return duk_safe_call(ctx, rawp__get_global_prop, (void *) name, 0, 1);
}

static duk_ret_t rawp__put_global_prop(duk_context *ctx, void *udata) {
    duk_put_global_string(ctx, (const char *) udata);
    return 0;
}

/* [value] -> []: global[name] = value. */
static duk_int_t rawp__put_global(duk_context *ctx, const char *name) {
    return duk_safe_call(ctx, rawp__put_global_prop, (void *) name, 1, 0);
}

static double rawp__number_and_pop(duk_context *ctx) {
    double value = duk_get_number(ctx, -1);
    duk_pop(ctx);
    return value;
}

/* ---- C functions for scripts ------------------------------------------------- */

/* The state's lock: the heap's allocator user data (raw_create passes it). */
static pthread_mutex_t *rawp__lock_of(duk_context *ctx) {
    duk_memory_functions functions;
    duk_get_memory_functions(ctx, &functions);
    return (pthread_mutex_t *) functions.udata;
}

static duk_ret_t rawp_add(duk_context *ctx) {
    pthread_mutex_t *lock = rawp__lock_of(ctx);
    pthread_mutex_lock(lock);
    duk_push_number(ctx, duk_get_number(ctx, 0) + duk_get_number(ctx, 1));
    pthread_mutex_unlock(lock);
    return 1;
}

typedef struct { double value; } rawp_counter;
static rawp_counter rawp_shared_counter;

static duk_ret_t rawp__counter_pointer(duk_context *ctx, void *udata) {
    duk_push_this(ctx);
    duk_get_prop_literal(ctx, -1, DUK_HIDDEN_SYMBOL("p"));
    *(rawp_counter **) udata = (rawp_counter *) duk_get_pointer(ctx, -1);
    return 0;
}

static rawp_counter *rawp__counter_this(duk_context *ctx) {
    rawp_counter *counter = NULL;
    if (duk_safe_call(ctx, rawp__counter_pointer, &counter, 0, 0) != DUK_EXEC_SUCCESS) {
        duk_pop(ctx);
    }
    return counter;
}

static duk_ret_t rawp_counter_add(duk_context *ctx) {
    pthread_mutex_t *lock = rawp__lock_of(ctx);
    pthread_mutex_lock(lock);
    rawp_counter *counter = rawp__counter_this(ctx);
    double value = counter != NULL ? (counter->value += duk_get_number(ctx, 0)) : 0;
    duk_push_number(ctx, value);
    pthread_mutex_unlock(lock);
    return 1;
}

static duk_ret_t rawp_counter_get(duk_context *ctx) {
    pthread_mutex_t *lock = rawp__lock_of(ctx);
    pthread_mutex_lock(lock);
    rawp_counter *counter = rawp__counter_this(ctx);
    duk_push_number(ctx, counter != NULL ? counter->value : 0);
    pthread_mutex_unlock(lock);
    return 1;
}

static duk_ret_t rawp_counter_set(duk_context *ctx) {
    pthread_mutex_t *lock = rawp__lock_of(ctx);
    pthread_mutex_lock(lock);
    rawp_counter *counter = rawp__counter_this(ctx);
    if (counter != NULL) counter->value = duk_get_number(ctx, 0);
    pthread_mutex_unlock(lock);
    return 0;
}

/* ---- Setup --------------------------------------------------------------------- */

void rawp_install(raw_state *state) {
    duk_context *ctx = state->ctx;
    duk_push_c_function(ctx, rawp_add, 2);
    duk_put_global_string(ctx, "addProtected");
    duk_eval_string_noresult(ctx,
        "function callHostProtected(n) { var s = 0; for (var i = 0; i < n; i++) s = addProtected(s, 1); return s }");
    baseline_install_counter(ctx, "counterProtected", rawp_counter_add, rawp_counter_get, rawp_counter_set,
                             &rawp_shared_counter);
}

/* ---- Workloads ------------------------------------------------------------------- */

#define LOCK(state) pthread_mutex_lock(&(state)->lock)
#define UNLOCK(state) pthread_mutex_unlock(&(state)->lock)

double rawp_eval(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    double sum = 0;
    for (int i = 0; i < count; i++) {
        LOCK(state);
        if (duk_check_stack(ctx, 4) && duk_peval_string(ctx, "1+1") == DUK_EXEC_SUCCESS) sum += duk_get_number(ctx, -1);
        duk_pop(ctx);
        UNLOCK(state);
    }
    return sum;
}

double rawp_fib(raw_state *state) {
    LOCK(state);
    double result = 0;
    if (duk_check_stack(state->ctx, 4) && duk_peval_string(state->ctx, "fib(25)") == DUK_EXEC_SUCCESS) {
        result = duk_get_number(state->ctx, -1);
    }
    duk_pop(state->ctx);
    UNLOCK(state);
    return result;
}

/* One protected call of global `function` with a number argument (and optionally an object
 * from a global before it): returns the number result. */
static double rawp__call_global(raw_state *state, const char *function, const char *object, double argument) {
    duk_context *ctx = state->ctx;
    double result = 0;
    LOCK(state);
    if (duk_check_stack(ctx, 4) && rawp__get_global(ctx, function) == DUK_EXEC_SUCCESS) {
        int arguments = 1;
        if (object != NULL) {
            if (rawp__get_global(ctx, object) != DUK_EXEC_SUCCESS) {
                duk_pop_2(ctx);
                UNLOCK(state);
                return 0;
            }
            arguments = 2;
        }
        duk_push_number(ctx, argument);
        if (duk_pcall(ctx, arguments) == DUK_EXEC_SUCCESS) result = duk_get_number(ctx, -1);
    }
    duk_pop(ctx);
    UNLOCK(state);
    return result;
}

double rawp_host_calls(raw_state *state, int count) {
    return rawp__call_global(state, "callHostProtected", NULL, count);
}

double rawp_exported(raw_state *state, int count) {
    return rawp__call_global(state, "useCounter", "counterProtected", count);
}

double rawp_js_calls(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    LOCK(state);
    if (!duk_check_stack(ctx, 4) || rawp__get_global(ctx, "jsAdd") != DUK_EXEC_SUCCESS) {
        duk_pop(ctx);
        UNLOCK(state);
        return 0;
    }
    UNLOCK(state);
    double sum = 0;
    for (int i = 0; i < count; i++) {
        LOCK(state);
        if (duk_check_stack(ctx, 3)) {
            duk_dup(ctx, -1);
            duk_push_number(ctx, sum);
            duk_push_number(ctx, 1);
            if (duk_pcall(ctx, 2) == DUK_EXEC_SUCCESS) sum = duk_get_number(ctx, -1);
            duk_pop(ctx);
        }
        UNLOCK(state);
    }
    LOCK(state);
    duk_pop(ctx);
    UNLOCK(state);
    return sum;
}

/* W5b: the method looked up on the global object for every call (a protected get), then
 * called with the global object as `this`. */
double rawp_method_calls(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    double sum = 0;
    for (int i = 0; i < count; i++) {
        LOCK(state);
        if (duk_check_stack(ctx, 4)) {
            if (rawp__get_global(ctx, "jsAdd") == DUK_EXEC_SUCCESS) {
                duk_push_global_object(ctx);
                duk_push_number(ctx, sum);
                duk_push_number(ctx, 1);
                if (duk_pcall_method(ctx, 2) == DUK_EXEC_SUCCESS) sum = duk_get_number(ctx, -1);
            }
            duk_pop(ctx);
        }
        UNLOCK(state);
    }
    return sum;
}

double rawp_properties(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    LOCK(state);
    if (!duk_check_stack(ctx, 4)) {
        UNLOCK(state);
        return 0;
    }
    duk_push_object(ctx); /* cannot fail after the check but for memory: Duktape's fatal path */
    UNLOCK(state);
    double sum = 0;
    for (int i = 0; i < count; i++) {
        LOCK(state);
        if (duk_check_stack(ctx, 3)) {
            duk_push_number(ctx, (double) i);
            if (rawp__put(ctx, "key") != DUK_EXEC_SUCCESS) duk_pop(ctx);
        }
        UNLOCK(state);
        LOCK(state);
        if (duk_check_stack(ctx, 3)) {
            duk_dup(ctx, -1);
            if (rawp__get(ctx, "key") == DUK_EXEC_SUCCESS) sum += duk_get_number(ctx, -1);
            duk_pop(ctx);
        }
        UNLOCK(state);
    }
    LOCK(state);
    duk_pop(ctx);
    UNLOCK(state);
    return sum;
}

static duk_ret_t rawp__put_number(duk_context *ctx, void *udata) {
    duk_put_prop_string(ctx, -2, (const char *) udata); /* [obj number] -> [obj] */
    return 0;
}

double rawp_object_to_js(raw_state *state, int entries) {
    duk_context *ctx = state->ctx;
    char key[32];
    LOCK(state);
    if (!duk_check_stack(ctx, 4)) {
        UNLOCK(state);
        return 0;
    }
    duk_push_object(ctx);
    for (int i = 0; i < entries; i++) {
        snprintf(key, sizeof key, "k%d", i);
        duk_push_number(ctx, (double) i);
        if (duk_safe_call(ctx, rawp__put_number, key, 1, 0) != DUK_EXEC_SUCCESS) duk_pop(ctx);
    }
    if (rawp__put_global(ctx, "received") != DUK_EXEC_SUCCESS) duk_pop(ctx);
    UNLOCK(state);
    return (double) entries;
}

typedef struct {
    double sum;
    char key[32];
} rawp__enumeration;

static duk_ret_t rawp__enumerate(duk_context *ctx, void *udata) {
    rawp__enumeration *work = (rawp__enumeration *) udata;
    duk_enum(ctx, -1, DUK_ENUM_OWN_PROPERTIES_ONLY); /* [obj] -> [obj enum] */
    while (duk_next(ctx, -1, 1)) {
        size_t length = 0;
        const char *bytes = duk_get_lstring(ctx, -2, &length);
        memcpy(work->key, bytes, length < sizeof work->key ? length : sizeof work->key - 1);
        work->sum += duk_get_number(ctx, -1);
        duk_pop_2(ctx);
    }
    duk_pop(ctx);
    return 0;
}

double rawp_object_to_host(raw_state *state, int entries) {
    (void) entries;
    duk_context *ctx = state->ctx;
    rawp__enumeration work = { 0, { 0 } };
    LOCK(state);
    if (duk_check_stack(ctx, 8) && rawp__get_global(ctx, "received") == DUK_EXEC_SUCCESS) {
        if (duk_safe_call(ctx, rawp__enumerate, &work, 1, 0) != DUK_EXEC_SUCCESS) duk_pop(ctx);
    } else {
        duk_pop(ctx);
    }
    UNLOCK(state);
    return work.sum;
}

static duk_ret_t rawp__json_decode(duk_context *ctx, void *udata) {
    raw_state *state = (raw_state *) udata;
    duk_push_lstring(ctx, state->json, state->json_length);
    duk_json_decode(ctx, -1);
    return 1;
}

double rawp_json_to_js(raw_state *state, int entries) {
    (void) entries;
    LOCK(state);
    if (duk_check_stack(state->ctx, 4) && duk_safe_call(state->ctx, rawp__json_decode, state, 0, 1) == DUK_EXEC_SUCCESS) {
        if (rawp__put_global(state->ctx, "received") != DUK_EXEC_SUCCESS) duk_pop(state->ctx);
    } else {
        duk_pop(state->ctx);
    }
    UNLOCK(state);
    return (double) state->json_length;
}

static duk_ret_t rawp__json_encode(duk_context *ctx, void *udata) {
    (void) udata;
    duk_json_encode(ctx, -1);
    return 1;
}

/* [string] -> []: a copy of the string's bytes in the host (its size plus the first byte). */
static size_t rawp__copy_out(duk_context *ctx) {
    size_t size = 0;
    const char *bytes = duk_get_lstring(ctx, -1, &size);
    char *copy = malloc(size + 1);
    memcpy(copy, bytes, size);
    size_t result = size + (size > 0 ? (size_t) copy[0] : 0);
    free(copy);
    duk_pop(ctx);
    return result;
}

double rawp_json_to_host(raw_state *state, int entries) {
    (void) entries;
    duk_context *ctx = state->ctx;
    double result = 0;
    LOCK(state);
    if (duk_check_stack(ctx, 4) && rawp__get_global(ctx, "received") == DUK_EXEC_SUCCESS &&
        duk_safe_call(ctx, rawp__json_encode, NULL, 1, 1) == DUK_EXEC_SUCCESS) {
        result = (double) rawp__copy_out(ctx);
    } else {
        duk_pop(ctx);
    }
    UNLOCK(state);
    return result;
}

static duk_ret_t rawp__push_lstring(duk_context *ctx, void *udata) {
    const char **bytes = (const char **) udata;
    duk_push_lstring(ctx, bytes[0], (size_t) (bytes[1] - bytes[0]));
    return 1;
}

size_t rawp_string_to_js(raw_state *state, const char *bytes, size_t length) {
    const char *range[2] = { bytes, bytes + length };
    LOCK(state);
    if (duk_check_stack(state->ctx, 4) && duk_safe_call(state->ctx, rawp__push_lstring, range, 0, 1) == DUK_EXEC_SUCCESS) {
        if (rawp__put_global(state->ctx, "big") != DUK_EXEC_SUCCESS) duk_pop(state->ctx);
    } else {
        duk_pop(state->ctx);
    }
    UNLOCK(state);
    return length;
}

size_t rawp_string_to_host(raw_state *state) {
    size_t result = 0;
    LOCK(state);
    if (duk_check_stack(state->ctx, 4) && rawp__get_global(state->ctx, "bigFromJS") == DUK_EXEC_SUCCESS) {
        result = rawp__copy_out(state->ctx);
    } else {
        duk_pop(state->ctx);
    }
    UNLOCK(state);
    return result;
}
