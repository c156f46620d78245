/* JavaScriptCore baseline: WebKitGTK's JavaScriptCore C API (the engine Apple ships, with its
 * JIT as Debian builds it). Same workloads and JavaScript source as raw.c. */
#include "Baselines.h"
#include "polyfill.h"
#include <JavaScriptCore/JavaScript.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jsc_state {
    JSGlobalContextRef context;
    JSObjectRef global;
    JSStringRef keyName;
    /* The W7 JSON text, made once. */
    char *json;
    size_t json_length;
};

static JSValueRef jsc_evaluate(JSGlobalContextRef context, const char *source) {
    JSStringRef script = JSStringCreateWithUTF8CString(source);
    JSValueRef result = JSEvaluateScript(context, script, NULL, NULL, 1, NULL);
    JSStringRelease(script);
    return result;
}

static JSObjectRef jsc_global_function(jsc_state *state, const char *name) {
    JSStringRef string = JSStringCreateWithUTF8CString(name);
    JSValueRef value = JSObjectGetProperty(state->context, state->global, string, NULL);
    JSStringRelease(string);
    return JSValueToObject(state->context, value, NULL);
}

static JSValueRef jsc_add(JSContextRef ctx, JSObjectRef function, JSObjectRef thisObject, size_t argumentCount,
                          const JSValueRef arguments[], JSValueRef *exception) {
    (void) function;
    (void) thisObject;
    (void) argumentCount;
    return JSValueMakeNumber(ctx, JSValueToNumber(ctx, arguments[0], exception) + JSValueToNumber(ctx, arguments[1], exception));
}

typedef struct { double value; } jsc_counter;
static jsc_counter jsc_shared_counter;

static JSValueRef jsc_counter_add(JSContextRef ctx, JSObjectRef function, JSObjectRef thisObject, size_t argumentCount,
                                  const JSValueRef arguments[], JSValueRef *exception) {
    (void) function;
    (void) argumentCount;
    jsc_counter *counter = JSObjectGetPrivate(thisObject);
    counter->value += JSValueToNumber(ctx, arguments[0], exception);
    return JSValueMakeNumber(ctx, counter->value);
}

static JSValueRef jsc_counter_get(JSContextRef ctx, JSObjectRef object, JSStringRef name, JSValueRef *exception) {
    (void) name;
    (void) exception;
    return JSValueMakeNumber(ctx, ((jsc_counter *) JSObjectGetPrivate(object))->value);
}

static bool jsc_counter_set(JSContextRef ctx, JSObjectRef object, JSStringRef name, JSValueRef value, JSValueRef *exception) {
    (void) name;
    ((jsc_counter *) JSObjectGetPrivate(object))->value = JSValueToNumber(ctx, value, exception);
    return true;
}

jsc_state *jsc_create(void) {
    jsc_state *state = calloc(1, sizeof(jsc_state));
    state->context = JSGlobalContextCreate(NULL);
    state->global = JSContextGetGlobalObject(state->context);
    state->keyName = JSStringCreateWithUTF8CString("key");
    JSStringRef name = JSStringCreateWithUTF8CString("add");
    JSObjectSetProperty(state->context, state->global, name,
                        JSObjectMakeFunctionWithCallback(state->context, name, jsc_add), kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    jsc_evaluate(state->context, BASELINE_PRELUDE);
    state->json = baseline_json_text(BASELINE_ENTRIES, &state->json_length);
    static JSStaticFunction functions[] = { { "add", jsc_counter_add, kJSPropertyAttributeNone }, { NULL, NULL, 0 } };
    static JSStaticValue values[] = { { "value", jsc_counter_get, jsc_counter_set, kJSPropertyAttributeNone }, { NULL, NULL, NULL, 0 } };
    JSClassDefinition definition = kJSClassDefinitionEmpty;
    definition.className = "Counter";
    definition.staticFunctions = functions;
    definition.staticValues = values;
    JSClassRef counterClass = JSClassCreate(&definition);
    JSObjectRef counter = JSObjectMake(state->context, counterClass, &jsc_shared_counter);
    JSClassRelease(counterClass);
    name = JSStringCreateWithUTF8CString("counter");
    JSObjectSetProperty(state->context, state->global, name, counter, kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    jsc_object_to_js(state, 10000); /* `received`, read back by the W7 JS-to-host workloads */
    return state;
}

void jsc_destroy(jsc_state *state) {
    JSStringRelease(state->keyName);
    JSGlobalContextRelease(state->context);
    free(state->json);
    free(state);
}

void jsc_create_destroy_vm(int count) {
    for (int i = 0; i < count; i++) {
        JSGlobalContextRelease(JSGlobalContextCreate(NULL));
    }
}

void jsc_new_context(jsc_state *state, int count) {
    JSContextGroupRef group = JSContextGetGroup(state->context);
    for (int i = 0; i < count; i++) {
        JSGlobalContextRelease(JSGlobalContextCreateInGroup(group, NULL));
    }
    JSGarbageCollect(state->context);
}

double jsc_eval(jsc_state *state, int count) {
    double sum = 0;
    for (int i = 0; i < count; i++) {
        sum += JSValueToNumber(state->context, jsc_evaluate(state->context, "1+1"), NULL);
    }
    return sum;
}

double jsc_fib(jsc_state *state) {
    return JSValueToNumber(state->context, jsc_evaluate(state->context, "fib(25)"), NULL);
}

double jsc_host_calls(jsc_state *state, int count) {
    JSObjectRef function = jsc_global_function(state, "callHost");
    JSValueRef argument = JSValueMakeNumber(state->context, count);
    return JSValueToNumber(state->context, JSObjectCallAsFunction(state->context, function, NULL, 1, &argument, NULL), NULL);
}

double jsc_js_calls(jsc_state *state, int count) {
    JSObjectRef function = jsc_global_function(state, "jsAdd");
    double sum = 0;
    for (int i = 0; i < count; i++) {
        JSValueRef arguments[2] = { JSValueMakeNumber(state->context, sum), JSValueMakeNumber(state->context, 1) };
        sum = JSValueToNumber(state->context, JSObjectCallAsFunction(state->context, function, NULL, 2, arguments, NULL), NULL);
    }
    return sum;
}

/* W5b: the method looked up on the global object for every call, then called with the global
 * object as `this`: what -[JSValue invokeMethod:withArguments:] does, except that the name is
 * made once (its C API at its cheapest; invokeMethod makes a JSString from the name on every
 * call, which doubled this row's time when measured). */
double jsc_method_calls(jsc_state *state, int count) {
    double sum = 0;
    JSStringRef name = JSStringCreateWithUTF8CString("jsAdd");
    for (int i = 0; i < count; i++) {
        JSObjectRef function = JSValueToObject(state->context, JSObjectGetProperty(state->context, state->global, name, NULL), NULL);
        JSValueRef arguments[2] = { JSValueMakeNumber(state->context, sum), JSValueMakeNumber(state->context, 1) };
        sum = JSValueToNumber(state->context, JSObjectCallAsFunction(state->context, function, state->global, 2, arguments, NULL), NULL);
    }
    JSStringRelease(name);
    return sum;
}

double jsc_properties(jsc_state *state, int count) {
    JSObjectRef object = JSObjectMake(state->context, NULL, NULL);
    double sum = 0;
    for (int i = 0; i < count; i++) {
        JSStringRef key = JSStringCreateWithUTF8CString("key");
        JSObjectSetProperty(state->context, object, key, JSValueMakeNumber(state->context, i), kJSPropertyAttributeNone, NULL);
        sum += JSValueToNumber(state->context, JSObjectGetProperty(state->context, object, key, NULL), NULL);
        JSStringRelease(key);
    }
    return sum;
}

double jsc_object_to_js(jsc_state *state, int entries) {
    JSObjectRef object = JSObjectMake(state->context, NULL, NULL);
    char key[32];
    for (int i = 0; i < entries; i++) {
        snprintf(key, sizeof key, "k%d", i);
        JSStringRef name = JSStringCreateWithUTF8CString(key);
        JSObjectSetProperty(state->context, object, name, JSValueMakeNumber(state->context, i), kJSPropertyAttributeNone, NULL);
        JSStringRelease(name);
    }
    JSStringRef name = JSStringCreateWithUTF8CString("received");
    JSObjectSetProperty(state->context, state->global, name, object, kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    return (double) entries;
}

double jsc_object_to_host(jsc_state *state, int entries) {
    (void) entries;
    JSObjectRef object = jsc_global_function(state, "received");
    JSPropertyNameArrayRef names = JSObjectCopyPropertyNames(state->context, object);
    size_t count = JSPropertyNameArrayGetCount(names);
    double sum = 0;
    char key[64];
    for (size_t i = 0; i < count; i++) {
        JSStringRef name = JSPropertyNameArrayGetNameAtIndex(names, i);
        JSStringGetUTF8CString(name, key, sizeof key);
        sum += JSValueToNumber(state->context, JSObjectGetProperty(state->context, object, name, NULL), NULL);
    }
    JSPropertyNameArrayRelease(names);
    return sum;
}

double jsc_json_to_js(jsc_state *state, int entries) {
    (void) entries;
    JSStringRef json = JSStringCreateWithUTF8CString(state->json);
    JSValueRef value = JSValueMakeFromJSONString(state->context, json);
    JSStringRelease(json);
    JSStringRef name = JSStringCreateWithUTF8CString("received");
    JSObjectSetProperty(state->context, state->global, name, value, kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    return (double) state->json_length;
}

double jsc_json_to_host(jsc_state *state, int entries) {
    (void) entries;
    JSObjectRef object = jsc_global_function(state, "received");
    JSStringRef json = JSValueCreateJSONString(state->context, object, 0, NULL);
    size_t size = JSStringGetMaximumUTF8CStringSize(json);
    char *copy = malloc(size);
    size_t written = JSStringGetUTF8CString(json, copy, size);
    JSStringRelease(json);
    double result = (double) written + copy[0];
    free(copy);
    return result;
}

size_t jsc_string_to_js(jsc_state *state, const char *bytes, size_t length) {
    (void) length;
    JSStringRef string = JSStringCreateWithUTF8CString(bytes);
    JSStringRef name = JSStringCreateWithUTF8CString("big");
    JSObjectSetProperty(state->context, state->global, name, JSValueMakeString(state->context, string), kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    JSStringRelease(string);
    return length;
}

size_t jsc_string_to_host(jsc_state *state) {
    JSStringRef name = JSStringCreateWithUTF8CString("bigFromJS");
    JSValueRef value = JSObjectGetProperty(state->context, state->global, name, NULL);
    JSStringRelease(name);
    JSStringRef string = JSValueToStringCopy(state->context, value, NULL);
    size_t size = JSStringGetMaximumUTF8CStringSize(string);
    char *copy = malloc(size);
    size_t written = JSStringGetUTF8CString(string, copy, size);
    JSStringRelease(string);
    size_t result = written + (size_t) copy[0];
    free(copy);
    return result;
}

double jsc_exported(jsc_state *state, int count) {
    JSObjectRef function = jsc_global_function(state, "useCounter");
    JSValueRef arguments[2] = { jsc_global_function(state, "counter"), JSValueMakeNumber(state->context, count) };
    return JSValueToNumber(state->context, JSObjectCallAsFunction(state->context, function, NULL, 2, arguments, NULL), NULL);
}

/* Resident bytes per context with `count` alive: each in a group (VM) of its own, or all
 * in the group of a first context (shared). */
static double jsc_bytes_per_context_in(int count, int shared) {
    JSGlobalContextRef *contexts = calloc((size_t) count, sizeof(JSGlobalContextRef));
    JSGlobalContextRef first = JSGlobalContextCreate(NULL);
    JSContextGroupRef group = shared ? JSContextGetGroup(first) : NULL;
    jsc_evaluate(first, "1+1");
    size_t before = baseline_resident_bytes();
    for (int i = 0; i < count; i++) {
        contexts[i] = JSGlobalContextCreateInGroup(group, NULL); /* NULL: a new group */
        jsc_evaluate(contexts[i], "1+1");
    }
    size_t after = baseline_resident_bytes();
    for (int i = 0; i < count; i++) JSGlobalContextRelease(contexts[i]);
    JSGlobalContextRelease(first);
    free(contexts);
    return (double) (after - before) / count;
}

double jsc_bytes_per_vm(int count) {
    return jsc_bytes_per_context_in(count, 0);
}

double jsc_bytes_per_context(int count) {
    return jsc_bytes_per_context_in(count, 1);
}

/* ---- W10: promises (JavaScriptCore's own; microtasks drain as each API call returns) ---- */

static double jsc_global_number(jsc_state *state, const char *name) {
    JSStringRef string = JSStringCreateWithUTF8CString(name);
    JSValueRef value = JSObjectGetProperty(state->context, state->global, string, NULL);
    JSStringRelease(string);
    return JSValueToNumber(state->context, value, NULL);
}

static void jsc_call_global(jsc_state *state, const char *name, int argument) {
    JSValueRef arguments[1] = { JSValueMakeNumber(state->context, argument) };
    JSObjectCallAsFunction(state->context, jsc_global_function(state, name), NULL, 1, arguments, NULL);
}

static void jsc_install_w10(jsc_state *state) {
    JSStringRef probe = JSStringCreateWithUTF8CString("chain");
    int present = JSObjectHasProperty(state->context, state->global, probe);
    JSStringRelease(probe);
    if (!present) {
        jsc_evaluate(state->context, W10_SCRIPTS);
    }
}

double jsc_promise_chain(jsc_state *state, int steps) {
    jsc_install_w10(state);
    jsc_call_global(state, "chain", steps);
    return jsc_global_number(state, "chainResult");
}

double jsc_promise_all(jsc_state *state, int count) {
    jsc_install_w10(state);
    jsc_call_global(state, "allOf", count);
    return jsc_global_number(state, "allResult");
}

static double jsc_awaited_sum;

static JSValueRef jsc_on_fulfilled(JSContextRef ctx, JSObjectRef function, JSObjectRef thisObject, size_t argumentCount,
                                   const JSValueRef arguments[], JSValueRef *exception) {
    (void) function;
    (void) thisObject;
    if (argumentCount > 0) jsc_awaited_sum += JSValueToNumber(ctx, arguments[0], exception);
    return JSValueMakeUndefined(ctx);
}

double jsc_promise_host(jsc_state *state, int count) {
    /* Each promise made by the C API, resolved from C, and its value taken by a C reaction. */
    JSGlobalContextRef context = state->context;
    JSStringRef thenName = JSStringCreateWithUTF8CString("then");
    jsc_awaited_sum = 0;
    for (int i = 0; i < count; i++) {
        JSObjectRef resolve = NULL, reject = NULL;
        JSObjectRef promise = JSObjectMakeDeferredPromise(context, &resolve, &reject, NULL);
        JSValueRef value = JSValueMakeNumber(context, i);
        JSObjectCallAsFunction(context, resolve, NULL, 1, &value, NULL);
        JSObjectRef then = JSValueToObject(context, JSObjectGetProperty(context, promise, thenName, NULL), NULL);
        JSValueRef onFulfilled = JSObjectMakeFunctionWithCallback(context, NULL, jsc_on_fulfilled);
        JSObjectCallAsFunction(context, then, promise, 1, &onFulfilled, NULL);
    }
    JSStringRelease(thenName);
    return jsc_awaited_sum;
}

/* W16's JSON route in JavaScriptCore: text the host made (JSONEncoder) parsed into the global
 * `records`, and that global serialized back into text the host then decodes (JSONDecoder). */
void jsc_json_text_to_global(jsc_state *state, const char *bytes, size_t length) {
    (void) length;
    JSStringRef json = JSStringCreateWithUTF8CString(bytes);
    JSValueRef value = JSValueMakeFromJSONString(state->context, json);
    JSStringRelease(json);
    JSStringRef name = JSStringCreateWithUTF8CString("records");
    JSObjectSetProperty(state->context, state->global, name, value, kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
}

char *jsc_global_to_json_text(jsc_state *state, size_t *length) {
    JSStringRef name = JSStringCreateWithUTF8CString("records");
    JSValueRef value = JSObjectGetProperty(state->context, state->global, name, NULL);
    JSStringRelease(name);
    JSStringRef json = JSValueCreateJSONString(state->context, value, 0, NULL);
    if (json == NULL) {
        *length = 0;
        return NULL;
    }
    size_t size = JSStringGetMaximumUTF8CStringSize(json);
    char *copy = malloc(size);
    *length = copy ? JSStringGetUTF8CString(json, copy, size) - 1 : 0;
    JSStringRelease(json);
    return copy;
}
