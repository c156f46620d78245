/* JavaScriptCore's C API from Debian's libjavascriptcoregtk-4.1-dev (WebKitGTK). */
#include <JavaScriptCore/JavaScript.h>
