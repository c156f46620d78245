/*
 * The two baselines of every workload, in C:
 *  - raw_*: Duktape's C API called directly, on the same engine object DuktapeCore runs on
 *    (CDuktape: Debian's shipped duktape.c with our config overlay). The floor the wrapper can
 *    approach.
 *  - jsc_*: JavaScriptCore's C API (WebKitGTK's libjavascriptcoregtk-4.1), the engine Apple ships.
 * Each function does `count` operations of its workload on a state made by *_create.
 */
#ifndef BASELINES_H
#define BASELINES_H

#include <stddef.h>
#include <stdint.h>

typedef struct raw_state raw_state;
raw_state *raw_create(void);
void raw_destroy(raw_state *state);
void raw_create_destroy_vm(int count);
void raw_new_context(raw_state *state, int count);
double raw_eval(raw_state *state, int count);
double raw_fib(raw_state *state);
double raw_host_calls(raw_state *state, int count);
double raw_js_calls(raw_state *state, int count);
double raw_properties(raw_state *state, int count);
double raw_object_to_js(raw_state *state, int entries);
double raw_object_to_host(raw_state *state, int entries);
double raw_json_to_js(raw_state *state, int entries);
double raw_json_to_host(raw_state *state, int entries);
size_t raw_string_to_js(raw_state *state, const char *bytes, size_t length);
size_t raw_string_to_host(raw_state *state, size_t length);
double raw_exported(raw_state *state, int count);
/* W10: a `count`-step then chain, Promise.all of `count` resolved promises, `count` promises
 * resolved and read by the host; each returns its result (for a check). */
double raw_promise_chain(raw_state *state, int steps);
double raw_promise_all(raw_state *state, int count);
double raw_promise_host(raw_state *state, int count);

typedef struct jsc_state jsc_state;
jsc_state *jsc_create(void);
void jsc_destroy(jsc_state *state);
void jsc_create_destroy_vm(int count);
void jsc_new_context(jsc_state *state, int count);
double jsc_eval(jsc_state *state, int count);
double jsc_fib(jsc_state *state);
double jsc_host_calls(jsc_state *state, int count);
double jsc_js_calls(jsc_state *state, int count);
double jsc_properties(jsc_state *state, int count);
double jsc_object_to_js(jsc_state *state, int entries);
double jsc_object_to_host(jsc_state *state, int entries);
double jsc_json_to_js(jsc_state *state, int entries);
double jsc_json_to_host(jsc_state *state, int entries);
size_t jsc_string_to_js(jsc_state *state, const char *bytes, size_t length);
size_t jsc_string_to_host(jsc_state *state, size_t length);
double jsc_exported(jsc_state *state, int count);
double jsc_promise_chain(jsc_state *state, int steps);
double jsc_promise_all(jsc_state *state, int count);
double jsc_promise_host(jsc_state *state, int count);

/* The W7 JSON text {"k0":0,...} with `entries` entries, NUL-terminated (caller frees). */
char *baseline_json_text(int entries, size_t *length);

/* Resident set size of this process in bytes (/proc/self/statm). */
size_t baseline_resident_bytes(void);

/* Memory probes: bytes of RSS per live VM with `count` VMs alive, and per extra context in one
 * VM with `count` contexts alive. */
double raw_bytes_per_vm(int count);
double raw_bytes_per_context(int count);
double jsc_bytes_per_vm(int count);
double jsc_bytes_per_context(int count);

#endif
