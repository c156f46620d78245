/* What raw.c and raw_protected.c share. */
#ifndef DUKTAPE_BASELINES_INTERNAL_H
#define DUKTAPE_BASELINES_INTERNAL_H

#include "DuktapeBaselines.h"
#include <duktape.h>
#include <pthread.h>

struct raw_state {
    duk_context *ctx;
    /* The VM lock of the protected baseline (recursive, as a wrapper's must be). */
    pthread_mutex_t lock;
    /* The W7 JSON text, made once. */
    char *json;
    size_t json_length;
};

/* Defines global `name`: an object whose prototype has the C method add() and the C accessor
 * `value`, holding `counter` under a hidden key (the W9 exported-object equivalent). */
void baseline_install_counter(duk_context *ctx, const char *name, duk_c_function add, duk_c_function get,
                              duk_c_function set, void *counter);

/* Installs the protected baseline's C functions (addProtected, counterProtected and the script
 * callHostProtected) in a state's heap. */
void rawp_install(raw_state *state);

#endif
