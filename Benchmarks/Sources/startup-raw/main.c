/* W0 raw baseline: process start, one heap, eval "1+1", exit. Built from the same engine
 * source and configuration as CDuktape (its engine.c, shims.c and promise.c are compiled in here). */
#include "../../../Sources/CDuktape/engine.c"
#include "../../../Sources/CDuktape/shims.c"
#include "../../../Sources/CDuktape/promise.c"
#include <stdio.h>

int main(void) {
    cduk_heap_state state = { 0 };
    duk_context *ctx = cduk_create_heap(&state);
    duk_eval_string(ctx, "1+1");
    int result = duk_get_int(ctx, -1);
    duk_destroy_heap(ctx);
    return result == 2 ? 0 : 1;
}
