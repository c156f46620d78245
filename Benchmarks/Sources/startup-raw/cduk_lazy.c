/* CDuktape's lazy.c as its own translation unit, as in the library (see main.c). */
#include "../../../Sources/CDuktape/lazy.c"
