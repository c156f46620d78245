/* CDuktape's engine.c as its own translation unit, as in the library (see main.c). */
#include "../../../Sources/CDuktape/engine.c"
