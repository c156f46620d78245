/*
 * The Duktape baselines of every workload, in C, on the same engine object DuktapeCore runs on
 * (CDuktape: Debian's shipped duktape.c with our config overlay):
 *  - raw_*: Duktape's C API called directly, unprotected: the floor with no guarantees.
 *  - rawp_*: "raw protected", the same C work with what DESIGN.md's invariants require of any
 *    safe wrapper: every host -> engine operation that can throw inside duk_pcall/duk_safe_call
 *    (no error may unwind the host's frames), and the VM's recursive pthread mutex held around
 *    each one (a VM usable from any thread, re-entrant from callbacks). The honest floor.
 * Each function does `count` operations of its workload on a state made by raw_create, and
 * returns a result that depends on the work (so that the compiler keeps it).
 */
#ifndef DUKTAPE_BASELINES_H
#define DUKTAPE_BASELINES_H

#include <stddef.h>
#include <stdint.h>

/* The W8 string length and the W7 entry count the states are prepared with. */
#define BASELINE_STRING_BYTES (1 << 20)
#define BASELINE_ENTRIES 10000

typedef struct raw_state raw_state;
raw_state *raw_create(void);
void raw_destroy(raw_state *state);
void raw_create_destroy_vm(int count);
void raw_new_context(raw_state *state, int count);
double raw_eval(raw_state *state, int count);
double raw_fib(raw_state *state);
double raw_host_calls(raw_state *state, int count);
double raw_js_calls(raw_state *state, int count);
double raw_method_calls(raw_state *state, int count);
double raw_properties(raw_state *state, int count);
double raw_object_to_js(raw_state *state, int entries);
double raw_object_to_host(raw_state *state, int entries);
/* The JSON rows start from text the host already has, and end with text in the host: the
 * host's own JSON serializer and parser are not the crossing (and differ per language). */
double raw_json_to_js(raw_state *state, int entries);
double raw_json_to_host(raw_state *state, int entries);
/* W8: a 1 MiB string into the engine (as global `big`), and global `bigFromJS`, made once by
 * raw_create, read into the host (copied out). */
size_t raw_string_to_js(raw_state *state, const char *bytes, size_t length);
size_t raw_string_to_host(raw_state *state);
double raw_exported(raw_state *state, int count);
/* W10: a `count`-step then chain, Promise.all of `count` resolved promises, `count` promises
 * resolved and read by the host; each returns its result (for a check). */
double raw_promise_chain(raw_state *state, int steps);
double raw_promise_all(raw_state *state, int count);
double raw_promise_host(raw_state *state, int count);

/* Raw protected: the same workloads (W1's create and destroy is the same code in both). */
double rawp_eval(raw_state *state, int count);
double rawp_fib(raw_state *state);
double rawp_host_calls(raw_state *state, int count);
double rawp_js_calls(raw_state *state, int count);
double rawp_method_calls(raw_state *state, int count);
double rawp_properties(raw_state *state, int count);
double rawp_object_to_js(raw_state *state, int entries);
double rawp_object_to_host(raw_state *state, int entries);
double rawp_json_to_js(raw_state *state, int entries);
double rawp_json_to_host(raw_state *state, int entries);
size_t rawp_string_to_js(raw_state *state, const char *bytes, size_t length);
size_t rawp_string_to_host(raw_state *state);
double rawp_exported(raw_state *state, int count);

/* The JavaScript every engine gets: W2-W9's functions (BASELINE_PRELUDE) and W10's. */
const char *baseline_prelude(void);
const char *baseline_promise_scripts(void);

/* The W7 JSON text {"k0":0,...} with `entries` entries, NUL-terminated (caller frees). */
char *baseline_json_text(int entries, size_t *length);

/* Resident set size of this process in bytes (/proc/self/statm). */
size_t baseline_resident_bytes(void);

/* Memory probes: bytes of RSS per live VM with `count` VMs alive, and per extra context in one
 * VM with `count` contexts alive. */
double raw_bytes_per_vm(int count);
double raw_bytes_per_context(int count);

#endif
