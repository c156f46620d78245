#ifndef CDUKTAPERUNTIMESCRIPTS_H
#define CDUKTAPERUNTIMESCRIPTS_H
/*
 * The JavaScript DuktapeRuntime runs (Sources/DuktapeRuntime/JavaScript: primordials, console, modules).
 * Embedded at build time (#embed): the files stay JavaScript, checked and named as such, and no
 * resource bundle has to travel with a program.
 */
#include <stddef.h>

/* File `index` (in name order): its bytes (UTF-8, not NUL-terminated), with its name and byte
 * count in `name` and `length`; NULL past the last file. */
const unsigned char *_Nullable cduk_runtime_file_at(size_t index, const char *_Nullable *_Nonnull name, size_t *_Nonnull length);

#endif
