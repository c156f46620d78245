/* CDuktape's shims.c as its own translation unit, as in the library (see main.c). */
#include "../../../Sources/CDuktape/shims.c"
