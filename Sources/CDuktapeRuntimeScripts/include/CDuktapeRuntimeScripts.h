#ifndef CDUKTAPERUNTIMESCRIPTS_H
#define CDUKTAPERUNTIMESCRIPTS_H
/*
 * The JavaScript DuktapeRuntime runs (Sources/DuktapeRuntime/JavaScript: primordials, console, modules).
 * Embedded at build time (#embed): the files stay JavaScript, checked and named as such, and no
 * resource bundle has to travel with a program.
 */
#include <stddef.h>

/* The file `name`'s bytes (UTF-8, not NUL-terminated) and their count, or NULL when there is
 * no such file. */
const unsigned char *_Nullable cduk_runtime_file(const char *_Nonnull name, size_t *_Nonnull length);
/* The name of file `index` (in name order), or NULL past the last: for the tests that compile
 * every file. */
const char *_Nullable cduk_runtime_file_name(size_t index);

#endif
