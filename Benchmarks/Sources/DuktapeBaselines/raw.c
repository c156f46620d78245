/* Raw Duktape baseline: direct C API calls. Errors are not expected in these workloads; the
 * calls that could throw run at the top of a heap whose default fatal handler would abort,
 * which is the honest cost of "no protection" the wrapper is compared with. */
#include "internal.h"
#include "polyfill.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static duk_ret_t raw_add(duk_context *ctx) {
    duk_push_number(ctx, duk_get_number(ctx, 0) + duk_get_number(ctx, 1));
    return 1;
}

/* The exported-object equivalent: a C struct behind an object with a method and an accessor. */
typedef struct { double value; } raw_counter;

static raw_counter *raw_counter_this(duk_context *ctx) {
    duk_push_this(ctx);
    duk_get_prop_literal(ctx, -1, DUK_HIDDEN_SYMBOL("p"));
    raw_counter *counter = (raw_counter *) duk_get_pointer(ctx, -1);
    duk_pop_2(ctx);
    return counter;
}

static duk_ret_t raw_counter_add(duk_context *ctx) {
    raw_counter *counter = raw_counter_this(ctx);
    counter->value += duk_get_number(ctx, 0);
    duk_push_number(ctx, counter->value);
    return 1;
}

static duk_ret_t raw_counter_get(duk_context *ctx) {
    duk_push_number(ctx, raw_counter_this(ctx)->value);
    return 1;
}

static duk_ret_t raw_counter_set(duk_context *ctx) {
    raw_counter_this(ctx)->value = duk_get_number(ctx, 0);
    return 0;
}

static raw_counter raw_shared_counter;

void baseline_install_counter(duk_context *ctx, const char *name, duk_c_function add, duk_c_function get,
                              duk_c_function set, void *counter) {
    /* a prototype with add() and a value accessor, and an object with the counter's pointer */
    duk_push_object(ctx);
    duk_push_c_function(ctx, add, 1);
    duk_put_prop_string(ctx, -2, "add");
    duk_push_string(ctx, "value");
    duk_push_c_function(ctx, get, 0);
    duk_push_c_function(ctx, set, 1);
    duk_def_prop(ctx, -4, DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_HAVE_SETTER);
    duk_push_object(ctx);
    duk_dup(ctx, -2);
    duk_set_prototype(ctx, -2);
    duk_push_pointer(ctx, counter);
    duk_put_prop_literal(ctx, -2, DUK_HIDDEN_SYMBOL("p"));
    duk_put_global_string(ctx, name);
    duk_pop(ctx);
}

raw_state *raw_create(void) {
    raw_state *state = calloc(1, sizeof(raw_state));
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&state->lock, &attributes);
    pthread_mutexattr_destroy(&attributes);
    /* Default allocator; the lock as its user data, where the protected baseline's C functions
     * find it. */
    state->ctx = duk_create_heap(NULL, NULL, NULL, &state->lock, NULL);
    state->json = baseline_json_text(BASELINE_ENTRIES, &state->json_length);
    duk_context *ctx = state->ctx;
    duk_push_c_function(ctx, raw_add, 2);
    duk_put_global_string(ctx, "add");
    duk_eval_string_noresult(ctx, BASELINE_PRELUDE);
    baseline_install_counter(ctx, "counter", raw_counter_add, raw_counter_get, raw_counter_set, &raw_shared_counter);
    raw_object_to_js(state, BASELINE_ENTRIES); /* `received`, read back by the W7 JS-to-host workloads */
    duk_eval_string_noresult(ctx, W10_POLYFILL W10_SCRIPTS);
    rawp_install(state);
    return state;
}

void raw_destroy(raw_state *state) {
    duk_destroy_heap(state->ctx);
    pthread_mutex_destroy(&state->lock);
    free(state->json);
    free(state);
}

void raw_create_destroy_vm(int count) {
    for (int i = 0; i < count; i++) {
        duk_context *ctx = duk_create_heap_default();
        duk_destroy_heap(ctx);
    }
}

void raw_new_context(raw_state *state, int count) {
    for (int i = 0; i < count; i++) {
        duk_push_thread_new_globalenv(state->ctx);
        duk_pop(state->ctx);
    }
    duk_gc(state->ctx, 0);
}

double raw_eval(raw_state *state, int count) {
    double sum = 0;
    for (int i = 0; i < count; i++) {
        duk_eval_string(state->ctx, "1+1");
        sum += duk_get_number(state->ctx, -1);
        duk_pop(state->ctx);
    }
    return sum;
}

double raw_fib(raw_state *state) {
    duk_eval_string(state->ctx, "fib(25)");
    double result = duk_get_number(state->ctx, -1);
    duk_pop(state->ctx);
    return result;
}

double raw_host_calls(raw_state *state, int count) {
    duk_get_global_string(state->ctx, "callHost");
    duk_push_int(state->ctx, count);
    duk_call(state->ctx, 1);
    double result = duk_get_number(state->ctx, -1);
    duk_pop(state->ctx);
    return result;
}

double raw_js_calls(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    duk_get_global_string(ctx, "jsAdd");
    double sum = 0;
    for (int i = 0; i < count; i++) {
        duk_dup(ctx, -1);
        duk_push_number(ctx, sum);
        duk_push_number(ctx, 1);
        duk_call(ctx, 2);
        sum = duk_get_number(ctx, -1);
        duk_pop(ctx);
    }
    duk_pop(ctx);
    return sum;
}

/* W5b: `global.jsAdd(sum, 1)`, the method looked up on the global object for every call, as
 * invokeMethod does. */
double raw_method_calls(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    duk_push_global_object(ctx);
    double sum = 0;
    for (int i = 0; i < count; i++) {
        duk_get_prop_string(ctx, -1, "jsAdd"); /* [global jsAdd] */
        duk_dup(ctx, -2);                      /* this */
        duk_push_number(ctx, sum);
        duk_push_number(ctx, 1);
        duk_call_method(ctx, 2);
        sum = duk_get_number(ctx, -1);
        duk_pop(ctx);
    }
    duk_pop(ctx);
    return sum;
}

double raw_properties(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    duk_push_object(ctx);
    double sum = 0;
    for (int i = 0; i < count; i++) {
        duk_push_number(ctx, (double) i);
        duk_put_prop_string(ctx, -2, "key");
        duk_get_prop_string(ctx, -1, "key");
        sum += duk_get_number(ctx, -1);
        duk_pop(ctx);
    }
    duk_pop(ctx);
    return sum;
}

double raw_object_to_js(raw_state *state, int entries) {
    duk_context *ctx = state->ctx;
    char key[32];
    duk_push_object(ctx);
    for (int i = 0; i < entries; i++) {
        snprintf(key, sizeof key, "k%d", i);
        duk_push_number(ctx, (double) i);
        duk_put_prop_string(ctx, -2, key);
    }
    duk_put_global_string(ctx, "received");
    return (double) entries;
}

double raw_object_to_host(raw_state *state, int entries) {
    duk_context *ctx = state->ctx;
    (void) entries;
    duk_get_global_string(ctx, "received");
    duk_enum(ctx, -1, DUK_ENUM_OWN_PROPERTIES_ONLY);
    double sum = 0;
    char key[32];
    while (duk_next(ctx, -1, 1)) {
        size_t length = 0;
        const char *bytes = duk_get_lstring(ctx, -2, &length);
        memcpy(key, bytes, length < sizeof key ? length : sizeof key - 1);
        sum += duk_get_number(ctx, -1);
        duk_pop_2(ctx);
    }
    duk_pop_2(ctx);
    return sum;
}

double raw_json_to_js(raw_state *state, int entries) {
    (void) entries;
    duk_push_lstring(state->ctx, state->json, state->json_length);
    duk_json_decode(state->ctx, -1);
    duk_put_global_string(state->ctx, "received");
    return (double) state->json_length;
}

double raw_json_to_host(raw_state *state, int entries) {
    (void) entries;
    duk_get_global_string(state->ctx, "received");
    duk_json_encode(state->ctx, -1);
    size_t length = 0;
    const char *text = duk_get_lstring(state->ctx, -1, &length);
    char *copy = malloc(length + 1);
    memcpy(copy, text, length);
    double result = (double) length + copy[0];
    free(copy);
    duk_pop(state->ctx);
    return result;
}

size_t raw_string_to_js(raw_state *state, const char *bytes, size_t length) {
    duk_push_lstring(state->ctx, bytes, length);
    duk_put_global_string(state->ctx, "big");
    return length;
}

size_t raw_string_to_host(raw_state *state) {
    duk_context *ctx = state->ctx;
    duk_get_global_string(ctx, "bigFromJS");
    size_t size = 0;
    const char *bytes = duk_get_lstring(ctx, -1, &size);
    char *copy = malloc(size + 1);
    memcpy(copy, bytes, size);
    size_t result = size + (size_t) copy[0];
    free(copy);
    duk_pop(ctx);
    return result;
}

double raw_exported(raw_state *state, int count) {
    duk_context *ctx = state->ctx;
    duk_get_global_string(ctx, "useCounter");
    duk_get_global_string(ctx, "counter");
    duk_push_int(ctx, count);
    duk_call(ctx, 2);
    double result = duk_get_number(ctx, -1);
    duk_pop(ctx);
    return result;
}

double raw_bytes_per_vm(int count) {
    duk_context **heaps = calloc((size_t) count, sizeof(duk_context *));
    duk_context *first = duk_create_heap_default();
    duk_eval_string_noresult(first, "1+1");
    size_t before = baseline_resident_bytes();
    for (int i = 0; i < count; i++) {
        heaps[i] = duk_create_heap_default();
        duk_eval_string_noresult(heaps[i], "1+1");
    }
    size_t after = baseline_resident_bytes();
    for (int i = 0; i < count; i++) duk_destroy_heap(heaps[i]);
    duk_destroy_heap(first);
    free(heaps);
    return (double) (after - before) / count;
}

double raw_bytes_per_context(int count) {
    duk_context *ctx = duk_create_heap_default();
    duk_require_stack(ctx, count + 8);
    duk_eval_string_noresult(ctx, "1+1");
    size_t before = baseline_resident_bytes();
    for (int i = 0; i < count; i++) {
        duk_push_thread_new_globalenv(ctx);
        duk_context *thread = duk_get_context(ctx, -1);
        duk_eval_string_noresult(thread, "1+1");
    }
    size_t after = baseline_resident_bytes();
    duk_destroy_heap(ctx);
    return (double) (after - before) / count;
}

/* ---- W10: promises (the polyfill of polyfill.h, its queue drained after each call) ---- */

static double raw_global_number(duk_context *ctx, const char *name) {
    duk_get_global_string(ctx, name);
    double value = duk_get_number(ctx, -1);
    duk_pop(ctx);
    return value;
}

/* Calls the global `function`(count), drains the polyfill's jobs and reads global `result`. */
static double raw_promise_workload(raw_state *state, const char *function, int count, const char *result) {
    duk_context *ctx = state->ctx;
    duk_get_global_string(ctx, function);
    duk_push_int(ctx, count);
    duk_call(ctx, 1);
    duk_pop(ctx);
    duk_eval_string_noresult(ctx, "drainPromiseJobs()");
    return raw_global_number(ctx, result);
}

double raw_promise_chain(raw_state *state, int steps) {
    return raw_promise_workload(state, "chain", steps, "chainResult");
}

double raw_promise_all(raw_state *state, int count) {
    return raw_promise_workload(state, "allOf", count, "allResult");
}

static double raw_awaited_sum;

static duk_ret_t raw_on_fulfilled(duk_context *ctx) {
    raw_awaited_sum += duk_get_number(ctx, 0);
    return 0;
}

double raw_promise_host(raw_state *state, int count) {
    /* Each promise made, resolved from C, and its value taken by a C reaction. */
    duk_context *ctx = state->ctx;
    raw_awaited_sum = 0;
    for (int i = 0; i < count; i++) {
        duk_get_global_string(ctx, "makeDeferred");
        duk_call(ctx, 0);                       /* [d] */
        duk_get_prop_string(ctx, -1, "resolve");
        duk_push_int(ctx, i);
        duk_call(ctx, 1);
        duk_pop(ctx);
        duk_get_prop_string(ctx, -1, "promise"); /* [d promise] */
        duk_push_string(ctx, "then");
        duk_push_c_function(ctx, raw_on_fulfilled, 1);
        duk_call_prop(ctx, -3, 1);
        duk_pop_3(ctx);
        duk_eval_string_noresult(ctx, "drainPromiseJobs()");
    }
    return raw_awaited_sum;
}
