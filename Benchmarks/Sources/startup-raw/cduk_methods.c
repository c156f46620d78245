/* CDuktape's methods.c as its own translation unit, as in the library (see main.c). */
#include "../../../Sources/CDuktape/methods.c"
