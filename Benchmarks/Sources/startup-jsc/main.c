/* W0 JavaScriptCore baseline: process start, one context, eval "1+1", exit. */
#include <JavaScriptCore/JavaScript.h>

int main(void) {
    JSGlobalContextRef context = JSGlobalContextCreate(NULL);
    JSStringRef script = JSStringCreateWithUTF8CString("1+1");
    JSValueRef value = JSEvaluateScript(context, script, NULL, NULL, 1, NULL);
    double result = JSValueToNumber(context, value, NULL);
    JSStringRelease(script);
    JSGlobalContextRelease(context);
    return result == 2 ? 0 : 1;
}
