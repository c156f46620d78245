/*
 * JavaScriptCore's C API (WebKitGTK's libjavascriptcoregtk-4.1), the engine Apple ships: the same
 * workloads as DuktapeBaselines.h's raw_* functions, on a state made by jsc_create.
 */
#ifndef BASELINES_H
#define BASELINES_H

#include <DuktapeBaselines.h>

typedef struct jsc_state jsc_state;
jsc_state *jsc_create(void);
void jsc_destroy(jsc_state *state);
void jsc_create_destroy_vm(int count);
void jsc_new_context(jsc_state *state, int count);
double jsc_eval(jsc_state *state, int count);
double jsc_fib(jsc_state *state);
double jsc_host_calls(jsc_state *state, int count);
double jsc_js_calls(jsc_state *state, int count);
double jsc_method_calls(jsc_state *state, int count);
double jsc_properties(jsc_state *state, int count);
double jsc_object_to_js(jsc_state *state, int entries);
double jsc_object_to_host(jsc_state *state, int entries);
double jsc_json_to_js(jsc_state *state, int entries);
double jsc_json_to_host(jsc_state *state, int entries);
/* W16: JSON text into the global `records`, and back out (the caller frees the text). */
void jsc_json_text_to_global(jsc_state *state, const char *bytes, size_t length);
char *jsc_global_to_json_text(jsc_state *state, size_t *length);
size_t jsc_string_to_js(jsc_state *state, const char *bytes, size_t length);
size_t jsc_string_to_host(jsc_state *state);
double jsc_exported(jsc_state *state, int count);
double jsc_promise_chain(jsc_state *state, int steps);
double jsc_promise_all(jsc_state *state, int count);
double jsc_promise_host(jsc_state *state, int count);

double jsc_bytes_per_vm(int count);
double jsc_bytes_per_context(int count);

#endif
