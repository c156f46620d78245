/*
 * JavaScript the library runs, embedded at build time from scripts/ (#embed, C23; clang takes it
 * in any mode): the files stay JavaScript, checked and named as such, and no resource bundle has
 * to travel with a program that uses DuktapeCore.
 */
#include "CDuktape.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char cduk__transpiler_js[] = {
#embed "scripts/transpiler.js"
    , 0
};
#pragma clang diagnostic pop

const char *cduk_transpiler_script(size_t *length) {
    *length = sizeof cduk__transpiler_js - 1;
    return cduk__transpiler_js;
}
