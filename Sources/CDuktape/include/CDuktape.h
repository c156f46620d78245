/*
 * CDuktape: the Duktape 2.7 engine (compiled from the amalgamation that Debian's
 * duktape-dev ships, see engine.c) plus the few C shims Swift cannot do without.
 *
 * This header lists only what Swift calls; what engine.c and shims.c share with each other
 * is in cduk_internal.h, outside include/.
 *
 * Why shims exist at all: Duktape reports errors with setjmp/longjmp. A longjmp
 * must never unwind through a Swift frame, so every engine operation that can
 * throw (allocation included) runs inside duk_safe_call() with a body written in
 * C. Each `cduk_p*` function below is such a protected operation: it returns
 * DUK_EXEC_SUCCESS (0) with its results on the value stack, or DUK_EXEC_ERROR (1)
 * with the thrown value on top. None of them ever longjmps into its caller.
 *
 * Everything else Swift calls directly from <duktape.h>: only the calls that
 * cannot throw (type checks, non-coercing getters, pops, pushes of primitives
 * into reserved stack space). Only DuktapeCore's Internals/ folder calls any of it.
 */
#ifndef CDUKTAPE_H
#define CDUKTAPE_H

#if !__has_include(<duktape.h>)
#error "DuktapeCore needs Debian's duktape-dev package (the engine is compiled from its source): sudo apt-get install duktape-dev"
#endif
#include <duktape.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/* ---- Heap state, allocator accounting, limits --------------------------- */

/* Per-heap state handed to Duktape as heap udata. Owned by the Swift engine, read and
 * written only under the VM lock (the allocator runs under it too). */
typedef struct cduk_heap_state {
    size_t memory_used;      /* bytes currently held by the heap (malloc_usable_size) */
    size_t memory_peak;      /* high-water mark of memory_used */
    size_t memory_limit;     /* 0 = unlimited; an allocation past it fails (RangeError) */
    uint64_t deadline_ns;    /* deadline on the heap's clock (cduk_clock_now), 0 = none */
    uint32_t limit_hits;     /* allocations refused because of memory_limit */
    uint32_t timeouts;       /* interrupt checks that reported the deadline */
    uint32_t callstack_limit; /* most nested calls per context thread; 0 = Duktape's 10,000 */
    uint32_t alloc_ticks;    /* allocations counted for the deadline check */
    uint32_t past_deadline;  /* 1 once an allocation found the deadline passed (re-armed with it) */
    uint32_t deadline_refusals; /* allocations refused because the deadline had passed */
    uint32_t deadline_stops; /* native recursion points (regexp matching...) and executor checks stopped by the deadline */
    uint32_t native_ticks;   /* native recursion points counted for the deadline check */
    uint32_t script_finalizers; /* > 0 while a script's finalizer runs (limits apply again) */
    uint32_t destroying;     /* 1 while the heap is destroyed: our own finalizers are exempt */
    void *_Nullable engine_heap; /* the duk_heap, once created: to see whether a finalizer is being called */
    void *_Nullable swift_owner; /* the Swift engine (unretained), for finalizer reports */
    void *_Nullable box_key; /* the interned hidden key of box slots (kept alive in the heap stash) */
    void *_Nullable promise_keys[10]; /* the interned keys of the slots promise.c reaches by position (kept alive in the heap stash) */
    const struct cduk_clock *_Nullable clock; /* the heap's clock; NULL = CLOCK_MONOTONIC */
    struct cduk_deaths *_Nullable undecided; /* finalized objects that may have been rescued */
    struct cduk_deaths *_Nullable freed;     /* undecided objects since freed, to report */
    uint32_t freed_count;    /* entries in `freed`: cduk_drain_freed has work when non-zero */
    void *_Nullable realm_cache;         /* [global, Promise.prototype, Promise] of one realm (a bare array in the heap stash) */
    void *_Nullable promise_realm;       /* what realm_cache holds, published once checked: the realm's global object, */
    void *_Nullable promise_prototype;   /* its Promise.prototype */
    void *_Nullable promise_constructor; /* and its Promise */
    void *_Nullable job_queue;  /* the job queue (a bare array in the heap stash), once made */
    uint32_t job_head;       /* first slot of the next job */
    uint32_t job_tail;       /* slot after the last job: jobs are pending when head != tail */
    void *_Nullable rejections; /* rejection events to report (a bare array in the heap stash) */
    uint32_t rejection_head;
    uint32_t rejection_slots; /* events are pending when head != slots */
    size_t large_allocated;  /* bytes of large allocations since the last paced collection */
    size_t collect_budget;   /* large_allocated past which a safe point collects garbage */
    size_t collect_below;    /* memory_used under which collect_budget is lowered */
    size_t host_charged;     /* host-side bytes charged to the memory limit (atomic: cduk_host_*) */
    uint32_t limit_refused;  /* 1 from a refusal for the limit to the next allocation granted */
    struct cduk_limit_site *_Nullable limit_site; /* where the script was at such a refusal */
} cduk_heap_state;

/* Where a script was when the heap first refused it memory for the limit (the script's frames,
 * innermost first, as Error.prototype.stack reads them), recorded without allocating from the
 * heap: the error the engine then throws is the realm's preallocated one, which has no place of
 * its own. Made with the state's first limit (cduk_heap_limit_site_make), freed with the heap. */
typedef struct cduk_limit_site {
    uint32_t hits;          /* the state's limit_hits when recorded for the memory limit: 0 = not that */
    uint32_t deadline_mark; /* for the deadline: deadline_refusals + deadline_stops then; 0 = not that */
    uint32_t line;          /* of the first frame with a file name; 0 = none */
    uint32_t has_file;      /* whether a frame had a file name (file may be empty) */
    uint32_t file_length;
    uint32_t stack_length;
    char file[512];
    char stack[2048];
} cduk_limit_site;

/* Gives the state a cduk_limit_site (once; 0 when it cannot be allocated), and frees it. */
int cduk_heap_limit_site_make(cduk_heap_state *state);
void cduk_heap_limit_site_free(cduk_heap_state *state);

/* Host memory charged to a heap's memory limit: records the host keeps for a script outside the
 * heap (a timer's, an immediate's) count against the limit as if they were in the heap, so that
 * the limit bounds them too. Charging is done under the VM lock (it compares with the heap's
 * use): it fails, counting a limit hit, when memory_used + host_charged + bytes would pass the
 * limit. Discharging may be done from any thread. */
int cduk_host_charge(cduk_heap_state *state, size_t bytes);
void cduk_host_discharge(cduk_heap_state *state, size_t bytes);

/* Collection paced by bytes. Duktape starts a mark-and-sweep after a number of allocations,
 * whatever their sizes, and reference counting never frees a cycle (every function is one, with
 * its prototype): closures made per event that capture large buffers held hundreds of megabytes
 * until the count came round. So fresh allocations of CDUK_LARGE_ALLOCATION bytes or more are
 * counted too, and at safe points (an outermost entry's end, between jobs) the heap is collected
 * once they add up to more than state->collect_budget: what the last such collection kept, and
 * at least CDUK_COLLECTION_HEADROOM, so that the cost of collecting stays in proportion to what
 * is allocated. Small objects stay paced by Duktape's count alone (a heap of a million live
 * promises is not marked again for them). When the heap falls under half of what a collection
 * kept (a large value released), the budget is set again from what it holds then.
 * cduk_collect_grown runs finalizers: call it only where no script or engine call is in
 * progress on the heap's threads except the caller's. */
#define CDUK_COLLECTION_HEADROOM 33554432u /* 32 MiB */
#define CDUK_LARGE_ALLOCATION 16384u
void cduk_collect_grown(duk_context *ctx);

/* Finalizers are held while the promise machinery changes a promise (promise.c): a finalizer is
 * a script, and could otherwise see, settle or add to a promise half changed. A hold is
 * Duktape's own counter, which it raises the same way around its property-table resizes, and
 * the finalizers that waited run when the last hold is released. An error thrown inside a hold
 * leaves it raised (C has no unwinding): every protected call from the host (cduk__protect,
 * shims.c) is a duk_safe_call that puts the counter back to what it was before it
 * (cduk_safe_call_keeping_holds), whether the error reached it or a script caught it on the
 * way; Duktape's own raises are balanced within any call. */
void cduk_finalizers_hold(duk_context *ctx);
void cduk_finalizers_release(duk_context *ctx);
duk_int_t cduk_safe_call_keeping_holds(duk_context *ctx, duk_safe_call_function fn, void *udata, duk_idx_t nargs, duk_idx_t nrets);
static inline int cduk_heap_grown(const cduk_heap_state *state) {
    return state->large_allocated > state->collect_budget;
}

/* Creates a heap whose allocations are accounted in `state` and whose fatal
 * handler prints the message to stderr before aborting: Duktape's default aborts
 * silently. Returns NULL if the heap cannot be created. */
duk_context *_Nullable cduk_create_heap(cduk_heap_state *state);

/* Number of fatal errors this process has met (the handler aborts, so a test that
 * reads 0 after hostile scripts shows none was reached). */
uint32_t cduk_fatal_count(void);

/* ---- Clocks --------------------------------------------------------------------- */

/* A manual clock: its time moves only when advanced (any thread may advance or read it;
 * atomic). Heaps whose state names it read their deadlines on it. */
typedef struct cduk_clock cduk_clock;
cduk_clock *_Nullable cduk_clock_create(uint64_t start_ns);
void cduk_clock_destroy(cduk_clock *clock);
void cduk_clock_advance(cduk_clock *clock, uint64_t nanoseconds);
uint64_t cduk_clock_read(const cduk_clock *clock);
/* CLOCK_MONOTONIC in nanoseconds (a heap without a manual clock reads it). shims.c. */
uint64_t cduk_monotonic_ns(void);

/* The time of `state`'s clock in nanoseconds: the manual clock's when it has one, else
 * CLOCK_MONOTONIC. */
uint64_t cduk_clock_now(const cduk_heap_state *state);

/* ---- Native stack guard ------------------------------------------------------ */

/* Non-zero when the calling thread is close to the end of its native stack (less
 * than a quarter of it, 64 KiB to 256 KiB, left). Duktape calls it at every native
 * recursion point and throws RangeError; Swift conversions check it per level. */
int cduk_native_stack_low(void);

/* +1 / -1 around the bounded work of creating or describing an error near the limit:
 * while relaxed, the guard lets three quarters of the reserved headroom be used, so the
 * RangeError itself can be made, pinned and read. (The deadline is not relaxed here: the
 * Swift engine gives error work a short grace period of its own.) */
void cduk_native_stack_relax(int delta);

/* ---- Type inspection that needs engine internals (engine.c) -------------- */

/* Classes Swift cares about; anything else is CDUK_CLASS_OTHER. */
typedef enum cduk_class {
    CDUK_CLASS_NONE = 0,       /* not an object */
    CDUK_CLASS_OTHER = 1,
    CDUK_CLASS_ARRAY = 2,
    CDUK_CLASS_FUNCTION = 3,
    CDUK_CLASS_DATE = 4,
    CDUK_CLASS_ERROR = 5,
    CDUK_CLASS_REGEXP = 6,
    CDUK_CLASS_UINT8ARRAY = 7,
    CDUK_CLASS_BUFFER_OTHER = 8, /* other typed arrays, ArrayBuffer, DataView, plain buffers */
    CDUK_CLASS_SYMBOL_OBJECT = 9,
    CDUK_CLASS_BOXED_PRIMITIVE = 10 /* Boolean, Number, String objects */
} cduk_class;

/* The class of the value at idx (CDUK_CLASS_NONE for primitives). Never throws. */
cduk_class cduk_class_of(duk_context *ctx, duk_idx_t idx);

/* Native functions of DuktapeWeb's page (engine.c says what each does and when it defers to
 * script): `copy(value)`, the copy of a posted message for plain data, else undefined;
 * `ownSlot(self, hiddenKey, unknown)`, an own internal-state slot. */
typedef enum {
    CDUK_HELPER_PLAIN_COPY = 0,
    CDUK_HELPER_OWN_SLOT = 1
} cduk_native_helper;

void cduk_push_native_helper(duk_context *ctx, cduk_native_helper which);

/* True when two Duktape threads share one realm (one global object): a coroutine made with
 * `new Duktape.Thread` and the thread that made it. Never throws. */
int cduk_same_realm(duk_context *a, duk_context *b);

/* True for a Proxy object. Duktape never runs a Proxy's finalizer, so a Proxy cannot be
 * watched for its death (JSManagedValue keeps it alive instead). Never throws. */
int cduk_is_proxy(duk_context *ctx, duk_idx_t idx);

/* duk_is_function for a heap value by its address (a value Swift pins), without pushing it:
 * true for a callable object (a function, a bound function, a Proxy of one). Caller holds the
 * VM's lock. Never throws. */
int cduk_heapptr_is_callable(void *ptr);

/* ---- Protected operations ------------------------------------------------
 * Inputs are the top values of the stack (listed as [inputs] -> [results]) and
 * are always consumed. Returns DUK_EXEC_SUCCESS (0) with exactly the results
 * pushed, DUK_EXEC_ERROR (1) with exactly the thrown value pushed, or
 * CDUK_EXEC_NOSTACK (2) with nothing pushed when the value stack cannot grow. */
#define CDUK_EXEC_NOSTACK 2

/* [] -> [string]: interns bytes (Duktape's internal CESU-8 form). */
duk_int_t cduk_ppush_lstring(duk_context *ctx, const char *_Nullable bytes, size_t length);

/* What cduk_ppush_new makes. */
typedef enum cduk_new_kind {
    CDUK_NEW_OBJECT = 0,       /* {} */
    CDUK_NEW_ARRAY = 1,        /* [] */
    CDUK_NEW_REALM = 2,        /* a new thread with a fresh global environment: a JSContext's realm */
    CDUK_NEW_BOOKKEEPING = 3   /* an array with a null prototype: DuktapeCore's registry and retain
                                * lists, which no accessor a script defines on Array.prototype may
                                * intercept */
} cduk_new_kind;

/* [] -> [new value of `kind`]. */
duk_int_t cduk_ppush_new(duk_context *ctx, cduk_new_kind kind);

/* [] -> [Uint8Array of `length` bytes, not yet written]; *data receives its bytes, which the caller
 * writes, every one of them, before any script can see the array. */
duk_int_t cduk_ppush_new_uint8array(duk_context *ctx, size_t length, void *_Nullable *_Nonnull data);

/* [] -> [new Date(milliseconds)] in the realm of ctx. */
duk_int_t cduk_ppush_date(duk_context *ctx, double milliseconds);

/* The realm built-ins DuktapeCore calls. Read from the engine's own table of the realm's
 * built-ins (made with the realm, before any script runs), never from the global object: a
 * script that replaces `TypeError` or `String` changes what scripts see, not what the library
 * makes. */
typedef enum cduk_builtin {
    CDUK_BUILTIN_ERROR = 0,
    CDUK_BUILTIN_EVAL_ERROR = 1,
    CDUK_BUILTIN_RANGE_ERROR = 2,
    CDUK_BUILTIN_REFERENCE_ERROR = 3,
    CDUK_BUILTIN_SYNTAX_ERROR = 4,
    CDUK_BUILTIN_TYPE_ERROR = 5,
    CDUK_BUILTIN_URI_ERROR = 6,
    CDUK_BUILTIN_REGEXP = 7,
    CDUK_BUILTIN_STRING = 8,   /* String(value): works for symbols too */
    CDUK_BUILTIN_OBJECT = 9,   /* Object(value) */
    CDUK_BUILTIN_SYMBOL = 10   /* Symbol(description) */
} cduk_builtin;

/* [arg1..argN] -> [new B(args)] (construct == 1) or [B(args)] (construct == 0) for the
 * built-in B of ctx's realm. Lets Swift create built-in values without source. Errors made
 * this way do not go through the Duktape.errCreate hook (they are the library's own). */
duk_int_t cduk_pbuiltin(duk_context *ctx, cduk_builtin builtin, duk_idx_t nargs, int construct);

/* The compiler VM's script (scripts/transpiler.js, embedded at build time), its length in
 * *length. */
const char *_Nonnull cduk_transpiler_script(size_t *_Nonnull length);

/* Compiles `source` as global code under `filename`: [] -> [function], or [error] (the cduk_p*
 * convention). With eval semantics (the last statement's value is the result), or as program
 * code when `program` is non-zero (a strict script's `var`s are then globals, as a <script>'s).
 * Run it with cduk_pcall after pushing the global object as `this`. */
duk_int_t cduk_pcompile_eval(duk_context *_Nonnull ctx, const char *_Nonnull source, size_t source_length,
                             const char *_Nullable filename, size_t filename_length, int program);

/* The compiled function at idx: its number of inner functions in *functions, and its opcodes
 * (up to `capacity` of them in `opcodes`); returns how many opcodes it has, or -1 when idx is not
 * a compiled function. Allocates nothing. (The module loader's check that a module's text is one
 * function body.) */
int cduk_program_opcodes(duk_context *_Nonnull ctx, duk_idx_t idx, int *_Nonnull functions,
                         unsigned char *_Nullable opcodes, int capacity);

/* Bytecode images: [function] -> [buffer] (duk_dump_function), and [] -> [function] from the
 * bytes of one (duk_load_function; not safe against corrupt bytes: check them first, see
 * BytecodeImage.swift). The cduk_p* convention. */
duk_int_t cduk_pdump_function(duk_context *_Nonnull ctx);
duk_int_t cduk_pload_function(duk_context *_Nonnull ctx, const void *_Nullable bytes, size_t length);

/* A 64-bit hash of `length` bytes (corruption checks of bytecode images). */
uint64_t cduk_hash64(const void *_Nullable bytes, size_t length, uint64_t seed);

/* The engine build's fingerprint (version, architecture, layout options), written to `out`
 * (snprintf's rules); its length. Bytecode images are keyed by it. */
size_t cduk_engine_fingerprint(char *_Nonnull out, size_t capacity);

/* Whether `needle` occurs in `length` bytes (memmem). */
int cduk_contains(const void *_Nullable bytes, size_t length, const void *_Nullable needle, size_t needle_length);

/* Strings across the boundary (strings.c). Duktape's internal form is CESU-8: a code point above
 * U+FFFF is two 3-byte surrogate encodings where UTF-8 has one 4-byte sequence.
 * - cduk_utf8_four_byte_lead: the offset of the first byte >= 0xF0, or length (vectorized).
 * - cduk_ascii_prefix: the offset of the first byte >= 0x80, or length (vectorized).
 * - cduk_utf8_to_cesu8: writes `bytes` (UTF-8) as CESU-8 to `out`, which has room for
 *   length + length / 2 bytes; returns the length written.
 * - cduk_cesu8_to_utf8: writes `bytes` (CESU-8) as UTF-8 to `out`, which has room for `length`
 *   bytes: a surrogate pair becomes its 4-byte sequence, a lone surrogate U+FFFD; other bytes are
 *   copied as they are (malformed ones are left for the caller's UTF-8 repair). Returns the
 *   length written. */
size_t cduk_utf8_four_byte_lead(const unsigned char *_Nonnull bytes, size_t length);
size_t cduk_ascii_prefix(const unsigned char *_Nonnull bytes, size_t length);
size_t cduk_utf8_to_cesu8(const unsigned char *_Nonnull bytes, size_t length, unsigned char *_Nonnull out);
size_t cduk_cesu8_to_utf8(const unsigned char *_Nonnull bytes, size_t length, unsigned char *_Nonnull out);

/* What a string's bytes were found to be by an earlier read into the host (a string never
 * changes): kept in two of the string header's free flag bits (engine.c).
 * - cduk_string_bytes: the string at `idx` (like duk_get_lstring, NULL when not a string), with
 *   *known set to the CDUK_STRING_* bits recorded for it;
 * - cduk_string_mark: records `known` for the string at `idx` (not for external strings). */
#define CDUK_STRING_UTF8 1  /* valid UTF-8: no surrogate encoding, nothing malformed */
#define CDUK_STRING_ASCII 2 /* all ASCII (with CDUK_STRING_UTF8) */
const char *_Nullable cduk_string_bytes(duk_context *ctx, duk_idx_t idx, size_t *_Nonnull length, int *_Nonnull known);
void cduk_string_mark(duk_context *ctx, duk_idx_t idx, int known);

/* String.prototype.normalize's Unicode tables come from the host: `normalize` gets a string's
 * bytes (Duktape's CESU-8), the form (0 NFC, 1 NFD, 2 NFKC, 3 NFKD), and returns the normalized
 * string's bytes in a buffer allocated with malloc (the engine frees it), its length in
 * *length; or NULL to leave the string as it is. Set once, before the first engine; it must not
 * call into Duktape. */
typedef char *_Nullable (*cduk_normalizer)(const char *_Nonnull bytes, size_t count, int form, size_t *_Nonnull length);
void cduk_set_normalizer(cduk_normalizer _Nullable normalizer);

/* [obj key] -> [obj[key]]. */
duk_int_t cduk_pget_prop(duk_context *ctx);

/* [obj key value] -> []: obj[key] = value with non-strict semantics (a write to a
 * read-only property is ignored, as JSObjectSetProperty does); a setter or Proxy
 * trap that throws still fails. Defined in engine.c (needs internals). */
duk_int_t cduk_pput_prop(duk_context *ctx);

/* [obj key] -> []: delete obj[key] non-strict; *result is 0 for a
 * non-configurable property. Defined in engine.c (needs internals). */
duk_int_t cduk_pdel_prop(duk_context *ctx, int *result);

/* [obj key] -> []: *result = key in obj (TypeError if obj is not an object). */
duk_int_t cduk_phas_prop(duk_context *ctx, int *result);

/* [obj key descriptor] -> []: the realm's Object.defineProperty(obj, key, descriptor) (the
 * engine's own function, whatever a script did to `Object`). Defined in engine.c. */
duk_int_t cduk_pdefine_property(duk_context *ctx);

/* [obj] -> []: *out = ToUint32(obj.length). */
duk_int_t cduk_plength(duk_context *ctx, double *out);

/* [value] -> [value]: registry[slot] = value, where registry is an array given by
 * heap pointer. Pins values held by Swift. */
duk_int_t cduk_pregistry_set(duk_context *ctx, void *registry, uint32_t slot);

/* [] -> []: registry[slot] = undefined. */
duk_int_t cduk_pregistry_clear(duk_context *ctx, void *registry, uint32_t slot);

/* [value] -> [ToString(value)]. */
duk_int_t cduk_pto_string(duk_context *ctx);

/* [value] -> []: *out = ToNumber(value). */
duk_int_t cduk_pto_number(duk_context *ctx, double *out);

/* [a b] -> []: *out = (a == b), with coercion. */
duk_int_t cduk_pequals(duk_context *ctx, int *out);

/* [a b] -> []: *out = a instanceof b. */
duk_int_t cduk_pinstanceof(duk_context *ctx, int *out);

/* [func this arg1..argN] -> [result]: calls func with this (construct == 0), or
 * `new func(args)` ignoring this (construct == 1). */
duk_int_t cduk_pcall(duk_context *ctx, duk_idx_t nargs, int construct);

/* [] -> [error]: the RangeError "memory limit exceeded" of ctx's realm, made when the realm was
 * installed: thrown where a failure cannot even make its own error (the heap is full), so that a
 * script's catch sees a RangeError rather than undefined. Allocates nothing (the key is
 * interned), so it succeeds at the memory limit. */
duk_int_t cduk_ppush_limit_error(duk_context *ctx);

/* Whether the value at idx is the limit error of any realm of the heap (see
 * cduk_ppush_limit_error): 0 for everything else, including any value a script made, and when
 * the question cannot be answered (no memory). */
int cduk_is_limit_error(duk_context *ctx, duk_idx_t idx);

/* [] -> []: prepares ctx's realm: Promise and AggregateError (promise.c), JavaScriptCore's spellings on Error.prototype
 * (`line` reads lineNumber, `sourceURL` reads fileName; configurable, non-enumerable
 * accessors), Duktape.fin wrapped so that scripts cannot detach our finalizers, and with
 * sandboxed != 0 the `Duktape` global removed (no fin/act/gc/info/enc/dec/compact/Thread/
 * Pointer for the script). */
duk_int_t cduk_pinstall_realm(duk_context *ctx, int sandboxed);

/* ---- Promise and the job queue (promise.c) -----------------------------------------
 * Every realm gets Promise and AggregateError (installed by cduk_pinstall_realm). Jobs (promise
 * reactions, thenable resolutions, queued calls) wait in one queue per heap until Swift drains it
 * with cduk_prun_jobs; each runs on the main thread of the realm that queued it. */

/* What a cduk_prun_jobs call stopped for. */
typedef enum cduk_jobs_event {
    CDUK_JOBS_IDLE = 0,      /* nothing left: queue and rejection events empty */
    CDUK_JOBS_THREW = 1,     /* a job threw (error pushed): report it, then call again */
    CDUK_JOBS_TIMEOUT = 2,   /* the deadline passed (error pushed: undefined when it passed
                              * between jobs); the queue was emptied */
    CDUK_JOBS_UNHANDLED = 3, /* [promise reason]: a rejection nobody handled, reported once */
    CDUK_JOBS_HANDLED = 4    /* [promise reason]: a reported rejection got a handler after all */
} cduk_jobs_event;

typedef struct cduk_job_report {
    duk_context *_Nullable thread; /* the realm thread the job or event belongs to */
    cduk_jobs_event event;
} cduk_job_report;

/* Runs queued jobs on the heap's initial thread ctx until one throws, the deadline passes, a
 * rejection event is due, or nothing is left. [] -> [a b]: undefined twice (IDLE) or
 * [promise reason] (UNHANDLED, HANDLED); DUK_EXEC_ERROR with the error pushed (THREW, TIMEOUT). */
duk_int_t cduk_prun_jobs(duk_context *ctx, cduk_job_report *report);

/* [] -> []: drops every queued job (a timeout that cduk_prun_jobs could not see itself: the
 * deadline stopped the protected call before any job ran). */
duk_int_t cduk_pclear_jobs(duk_context *ctx);

/* [] -> [promise resolve reject]: a new pending promise of ctx's realm and its resolving
 * functions. */
duk_int_t cduk_pnew_promise(duk_context *ctx);

/* [value onFulfilled onRejected] -> []: PromiseResolve(value), then its reactions (no derived
 * promise: what the handlers throw is reported as a job's exception). */
duk_int_t cduk_pawait(duk_context *ctx);

/* [value] -> []: *state = -1 when value is not a promise, else 0 pending, 1 fulfilled,
 * 2 rejected (the low two bits; higher bits are flags). */
duk_int_t cduk_ppromise_state(duk_context *ctx, int *state);

/* [value] -> [result]: the state as cduk_ppromise_state gives it, and the value or reason of a
 * settled promise (undefined for a pending one, or for a value that is not a promise). */
duk_int_t cduk_ppromise_result(duk_context *ctx, int *state);

/* [value] -> [entries|undefined], for inspecting a collection (the runtime's console shows
 * `Map(2) { 1 => 'a', … }` as Node does): *kind = 0 when value is none of this package's
 * collections, 1 Map, 2 Set, 3 WeakMap, 4 WeakSet (found by the engine's own slot, which no script
 * can give an object). For a Map or Set, *size is its size and entries an array of its first
 * `limit` entries in order ([key, value, key, value…] for a Map, [value…] for a Set); undefined
 * for the others. Runs no script. */
duk_int_t cduk_pcollection_entries(duk_context *ctx, duk_uint_t limit, int *kind, duk_uint_t *size);

/* [value] -> [keys|undefined], for inspecting an array or a typed array without listing its
 * indices: the object's own enumerable keys that are not array indices (strings in order, then
 * symbols; hidden symbols left out), read from its property table in time proportional to its
 * named properties, not its length. undefined for a proxy or a value that is not an object.
 * Runs no script. */
duk_int_t cduk_pnamed_keys(duk_context *ctx);

/* [function] -> []: queues a job calling function() (what it throws is reported). */
duk_int_t cduk_pqueue_call(duk_context *ctx);

/* [] -> []: forgets the address of ctx's thread as its realm's main thread (jobs queued by the
 * realm's coroutines then run on the thread running the call). Call it before the thread can be
 * freed (JSContext's deinit). */
duk_int_t cduk_pforget_realm(duk_context *ctx);

/* ---- Deaths decided after the finalizer ---------------------------------------
 * A finalizer can rescue its object (or another's), and Duktape then keeps it. The library's
 * finalizer releases a Swift box and reports a watched object's death only when the object is
 * really freed: at once when Duktape frees it right after the finalizer, else when the allocator
 * sees the object's memory freed (the object is "undecided" until then; a rescued object stays
 * so, and is finalized again at its next death). Those late deaths are queued, since the free
 * happens deep inside the collector, and reported by cduk_drain_freed at a safe point. */

/* Reports and releases what the queue holds: the finalized callback for each object, then the
 * box's release. Call it under the VM lock, outside any engine call. */
void cduk_drain_freed(cduk_heap_state *state);

/* True when `object` (a heap pointer) was freed and its death is still queued: such a pointer
 * must not be pushed. */
int cduk_is_freed(const cduk_heap_state *state, const void *object);

/* Frees the tables (after the heap is destroyed and the queue drained). */
void cduk_free_death_tables(cduk_heap_state *state);

/* ---- Swift boxes and host functions --------------------------------------- */

/* Releases a box (Unmanaged.release on the Swift side). */
typedef void (*cduk_box_release_fn)(void *box);

/* Runs the Swift body of a host function. The call's arguments are the stack
 * frame (duk_get_top), `this` via duk_push_this. Returns the number of results
 * (0 or 1, on top), or CDUK_HOST_THROW with the value to throw on top. It must only
 * use non-throwing engine calls and cduk_p* shims. */
typedef duk_int_t (*cduk_host_dispatch_fn)(duk_context *ctx, void *box, duk_bool_t is_construct);
#define CDUK_HOST_THROW (-1)

/* Reports that a watched object (cduk_pwatch) is being finalized: `owner` is the heap
 * state's swift_owner, `object` the object's heap pointer, still valid during the call. */
typedef void (*cduk_finalized_fn)(void *owner, void *object);

/* Installs the Swift entry points (once per process). */
void cduk_set_box_callbacks(cduk_box_release_fn release, cduk_host_dispatch_fn dispatch, cduk_finalized_fn finalized);

/* [obj] -> [obj]: watches the object: its finalization is reported through the
 * cduk_finalized_fn callback before it is freed (weak references for JSManagedValue).
 * A finalizer the object already had keeps running (chained). */
duk_int_t cduk_pwatch(duk_context *ctx);

/* [obj] -> [obj]: attaches a retained box under a hidden-symbol key and sets the
 * finalizer that releases it (exactly once, also at heap destruction). */
duk_int_t cduk_pattach_box(duk_context *ctx, void *box);

/* The box in the own box slot of the object at `idx`, of the current call's `this`, or of the
 * function being called; NULL when there is none (not an object, a Proxy, no slot). A plain
 * lookup of the interned key: never throws, never allocates, pushes nothing. Defined in
 * engine.c. */
void *_Nullable cduk_box_at(duk_context *ctx, duk_idx_t idx);
void *_Nullable cduk_this_box(duk_context *ctx);

/* Exact reads for typed callbacks: 1 and the value in *out when the value at `idx` is a number
 * (a boolean), else 0 (also for an invalid index). One check of the value slot instead of a
 * type test and a getter that each resolve the index. Defined in engine.c. */
int cduk_number_at(duk_context *ctx, duk_idx_t idx, double *out);
int cduk_boolean_at(duk_context *ctx, duk_idx_t idx, int *out);
/* duk_get_type() of the value at `idx`, in one call with the value of a number (or of a
 * boolean, as 0 or 1) written to `out`. */
duk_int_t cduk_type_at(duk_context *ctx, duk_idx_t idx, double *out);

/* ---- A queue of callbacks in the heap (the event loop's immediates; callbacks.c) ----------- */

/* The queue's state: opaque to Swift, in memory the Swift object that made it owns. */
typedef struct cduk_callback_queue cduk_callback_queue;

/* Called under the VM lock when the queue goes from no pending entry to one (it must not call
 * the engine): the loop wakes, and keeps its context while entries wait. */
typedef void (*cduk_queue_queued_fn)(void *_Nullable info);
/* After the shared id counter wrapped: 1 when `id` is a pending timer's (the ids are one pool). */
typedef int (*cduk_queue_id_in_use_fn)(void *_Nullable info, int32_t id);

#define CDUK_QUEUE_OPEN 0
#define CDUK_QUEUE_STOPPED 1  /* setImmediate returns 0 and queues nothing */
#define CDUK_QUEUE_RELEASED 2 /* setImmediate returns undefined */

/* The state's size, and its set-up in `storage` (that many bytes, 16-byte aligned). */
size_t cduk_callback_queue_size(void);
cduk_callback_queue *cduk_callback_queue_init(void *storage);
void cduk_callback_queue_set_hooks(cduk_callback_queue *queue, cduk_queue_queued_fn _Nullable queued,
                                   cduk_queue_id_in_use_fn _Nullable timer_id_in_use, void *_Nullable info);
/* Pending entries (any thread: an atomic). */
long cduk_callback_queue_live(const cduk_callback_queue *queue);
/* Closes the queue (CDUK_QUEUE_STOPPED or _RELEASED, any thread): nothing pending counts any
 * more, nothing is queued or run (the heap's entries: cduk_callback_queue_discard). */
void cduk_callback_queue_close(cduk_callback_queue *queue, int closed);
int cduk_callback_queue_closed(const cduk_callback_queue *queue);
/* The shared id counter (timers' and immediates'), under the VM lock. */
int32_t cduk_callback_queue_next_id(const cduk_callback_queue *queue);
void cduk_callback_queue_set_next_id(cduk_callback_queue *queue, int32_t next_id);
/* 1 once the counter has wrapped (from then on, ids in use are skipped). */
int cduk_callback_queue_ids_wrapped(const cduk_callback_queue *queue);
/* A fresh id from the counter; after it wrapped, skipping ids of pending timers (asked of
 * `timer_id_in_use`) and immediates (those only with a `ctx`). VM lock held. */
int32_t cduk_callback_queue_take_id(duk_context *_Nullable ctx, cduk_callback_queue *queue,
                                    cduk_queue_id_in_use_fn _Nullable timer_id_in_use, void *_Nullable info);
/* 1 when an immediate with `id` is pending. Never throws. */
int cduk_callback_queue_contains(duk_context *ctx, cduk_callback_queue *queue, int32_t id);
/* [] -> [setImmediate clearImmediate]: the queue's two functions (attach a box to each, which
 * keeps the queue's owner alive while they live). */
duk_int_t cduk_ppush_callback_queue_functions(duk_context *ctx, cduk_callback_queue *queue);
/* Entries the heap's array holds, spent ones included (tests of its compaction). */
duk_uarridx_t cduk_callback_queue_stored(const cduk_callback_queue *queue);
/* [] -> [result]: takes the check phase's next pending entry and calls it with the global object
 * as `this`; *ran is 1 when one was taken (its result or error on top), 0 when none was left.
 * `begin` (the phase's first call) sets the phase's end: the entries queued so far. */
duk_int_t cduk_callback_queue_run_next(duk_context *ctx, cduk_callback_queue *queue, int begin, int *ran);
/* Drops the heap's entries (of a closed queue). Never throws. */
void cduk_callback_queue_discard(duk_context *ctx, cduk_callback_queue *queue);

/* [] -> [function]: a new host function (trampoline to the dispatcher) with the
 * given `name` (may be NULL) and `length`. Attach its box with cduk_pattach_box. */
duk_int_t cduk_ppush_host_function(duk_context *ctx, const char *_Nullable name, duk_idx_t length);

/* [obj proto] -> [obj]: sets obj's [[Prototype]]. */
duk_int_t cduk_pset_prototype(duk_context *ctx);

/* [obj key value?, getter?, setter?] -> [obj]: duk_def_prop with `flags`
 * (DUK_DEFPROP_*); which of value/getter/setter are present follows the HAVE flags.
 * The flag constants are macros of several bits, so Swift passes the combined value. */
duk_int_t cduk_pdef_prop(duk_context *ctx, duk_uint_t flags);
/* [obj value] -> [obj]: cduk_pdef_prop with the key given as engine bytes (CESU-8), interned
 * in the same protected call: one protected call an entry when converting a dictionary. */
duk_int_t cduk_pdef_named_value(duk_context *ctx, const char *_Nullable bytes, size_t length, duk_uint_t flags);

/* [.. key value] -> [..]: defines obj[key] = value as an own data property (writable,
 * enumerable, configurable: CreateDataProperty) on the object at absolute index obj_idx, which
 * stays where it is. The Codable encoder's one protected call a field. */
duk_int_t cduk_pdef_at(duk_context *ctx, duk_idx_t obj_idx);

/* [.. key] -> [.. obj[key]]: reads a property of the object at absolute index obj_idx (getters
 * and Proxy traps run; what they throw fails the call). The Codable decoder's one protected
 * call a field. */
duk_int_t cduk_pget_at(duk_context *ctx, duk_idx_t obj_idx);

/* [obj getter] -> [obj]: defines obj[Symbol.toStringTag] as the getter (not enumerable,
 * configurable), with the engine's own well-known symbol (whatever a script did to `Symbol`). */
duk_int_t cduk_pdef_to_string_tag(duk_context *ctx);

/* The global lowered code reaches its helpers through (transpiler.js names it HOLDER). */
#define CDUK_LOWERING_GLOBAL "__duktapeLowering"

/* Whether this context's global has the lowering's helpers (CDUK_LOWERING_GLOBAL). */
int cduk_has_lowering_helpers(duk_context *_Nonnull ctx);

/* [.. helpers] -> [..]: freezes the object and defines it as the global __duktapeLowering
 * (non-writable, non-enumerable, non-configurable); a TypeError when a script's own global has
 * that name. Protected. */
duk_int_t cduk_pinstall_lowering_helpers(duk_context *_Nonnull ctx);

/* Flag combinations Swift uses. Why an enum: the DUK_DEFPROP_* macros are
 * expressions of other macros, which Swift does not import. */
enum {
    /* writable, not enumerable, configurable data property (methods, JSC's rule) */
    CDUK_DEFPROP_METHOD = DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
                          DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_FORCE,
    /* getter only, not enumerable, configurable (read-only exported property) */
    CDUK_DEFPROP_GETTER = DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE |
                          DUK_DEFPROP_FORCE,
    /* getter and setter, not enumerable, configurable (read-write exported property) */
    CDUK_DEFPROP_ACCESSOR = DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_HAVE_SETTER | DUK_DEFPROP_CLEAR_ENUMERABLE |
                            DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_FORCE,
    /* an own, writable, enumerable, configurable data property, defined rather than
     * assigned (CreateDataProperty): no setter runs, "__proto__" is an ordinary key */
    CDUK_DEFPROP_DATA = DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_SET_ENUMERABLE |
                        DUK_DEFPROP_SET_CONFIGURABLE,
    /* read-only, not enumerable, not configurable data property (Constructor.prototype) */
    CDUK_DEFPROP_FIXED = DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_CLEAR_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
                         DUK_DEFPROP_CLEAR_CONFIGURABLE | DUK_DEFPROP_FORCE
};

/* [wrapper list] -> []: stores `list` (an array of values to keep alive) under a
 * hidden key of the wrapper, or removes it when `list` is undefined. */
duk_int_t cduk_pset_retained(duk_context *ctx);

/* Called for each property with [.. key value] on top; non-zero stops the enumeration. */
typedef int (*cduk_visit_fn)(void *udata, duk_context *ctx);

/* An upper bound on the own properties of the object at idx (its entry part: deleted and
 * non-enumerable ones count; array items and virtual properties do not), 0 for a non-object: a
 * capacity hint, never a count. */
size_t cduk_own_entry_bound(duk_context *ctx, duk_idx_t idx);

/* [obj] -> []: for-in enumeration (own_only: own enumerable keys) calling `visit` for
 * every property, all in one protected call. */
duk_int_t cduk_pvisit(duk_context *ctx, int own_only, cduk_visit_fn visit, void *udata);

/* ---- Per-thread callback frame (JSContext.current() and friends) ---------- */

/* The innermost callback frame of the calling thread (an opaque Swift object), or NULL. */
void *_Nullable cduk_current_frame(void);
void cduk_set_current_frame(void *_Nullable frame);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif /* CDUKTAPE_H */
