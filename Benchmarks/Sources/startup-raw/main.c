/* W0 raw baseline: process start, one heap, eval "1+1", exit. Built from the same engine
 * source and configuration as CDuktape: its engine and the built-ins a heap gets, each file its
 * own translation unit as in the library (cduk_*.c here); not the transpiler's scripts, which a
 * heap never loads on its own. */
#include "../../../Sources/CDuktape/cduk_internal.h"
#include <stdio.h>

int main(void) {
    cduk_heap_state state = { 0 };
    duk_context *ctx = cduk_create_heap(&state);
    duk_eval_string(ctx, "1+1");
    int result = duk_get_int(ctx, -1);
    duk_destroy_heap(ctx);
    return result == 2 ? 0 : 1;
}
