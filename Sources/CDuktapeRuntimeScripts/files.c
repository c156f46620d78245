/* The JavaScript DuktapeRuntime runs (Sources/DuktapeRuntime/JavaScript: primordials, console, modules). See include/CDuktapeRuntimeScripts.h. */
#include "CDuktapeRuntimeScripts.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char cduk_runtime__console_js[] = {
#embed "../DuktapeRuntime/JavaScript/console.js"
};
static const unsigned char cduk_runtime__format_js[] = {
#embed "../DuktapeRuntime/JavaScript/format.js"
};
static const unsigned char cduk_runtime__inspect_js[] = {
#embed "../DuktapeRuntime/JavaScript/inspect.js"
};
static const unsigned char cduk_runtime__modules_js[] = {
#embed "../DuktapeRuntime/JavaScript/modules.js"
};
static const unsigned char cduk_runtime__primordials_js[] = {
#embed "../DuktapeRuntime/JavaScript/primordials.js"
};
static const unsigned char cduk_runtime__values_js[] = {
#embed "../DuktapeRuntime/JavaScript/values.js"
};
#pragma clang diagnostic pop

static const struct { const char *name; const unsigned char *bytes; size_t length; } cduk_runtime__files[] = {
    { "console.js", cduk_runtime__console_js, sizeof cduk_runtime__console_js },
    { "format.js", cduk_runtime__format_js, sizeof cduk_runtime__format_js },
    { "inspect.js", cduk_runtime__inspect_js, sizeof cduk_runtime__inspect_js },
    { "modules.js", cduk_runtime__modules_js, sizeof cduk_runtime__modules_js },
    { "primordials.js", cduk_runtime__primordials_js, sizeof cduk_runtime__primordials_js },
    { "values.js", cduk_runtime__values_js, sizeof cduk_runtime__values_js },
};
static const size_t cduk_runtime__count = sizeof cduk_runtime__files / sizeof cduk_runtime__files[0];

const unsigned char *cduk_runtime_file_at(size_t index, const char **name, size_t *length) {
    if (index >= cduk_runtime__count) {
        return NULL;
    }
    *name = cduk_runtime__files[index].name;
    *length = cduk_runtime__files[index].length;
    return cduk_runtime__files[index].bytes;
}
