/*
 * C shims for what Swift cannot express safely: protected engine operations
 * (their bodies must be C, because a Duktape error longjmps out of them), the
 * allocator hooks, the fatal handler, and macro-only API (duk_push_thread_new_globalenv,
 * duk_compile_lstring_filename).
 *
 * Note: duk_safe_call does not give its body a new frame: index 0 is still the
 * caller's index 0. Bodies therefore address their inputs from the top (-1, -2...).
 *
 * Calling convention of every cduk_p* function: its inputs are the top values of
 * the stack and are always consumed. On success (0) exactly its results are
 * pushed; on error (1) exactly one value, the thrown value, is pushed. If the
 * value stack cannot even grow to run the operation, CDUK_EXEC_NOSTACK (2) is
 * returned, the inputs are popped and nothing is pushed.
 */
#ifndef _GNU_SOURCE
#error "CDuktape needs _GNU_SOURCE (Package.swift defines it): pthread_getattr_np and malloc_usable_size"
#endif

#include "cduk_internal.h"

#if !defined(DUK_VERSION) || DUK_VERSION != 20700L
#error "CDuktape was written against Duktape 2.7.0 (see engine.c); /usr/include/duktape.h is another version"
#endif

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Hidden-symbol keys (first byte 0xFF): scripts cannot name them. */
#define CDUK__BOX_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreBox")
#define CDUK__WATCH_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreWatched")
#define CDUK__CHAINED_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreChainedFinalizer")
#define CDUK__ORIGINAL_FIN_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreOriginalFin")

static duk_ret_t cduk__guarded_fin(duk_context *ctx);

/* ---- Protection helper ------------------------------------------------------ */

/* Why: duk_safe_call throws (unprotected) when the stack reserve is short, and
 * with nrets == 0 it drops the error value. This wrapper checks the reserve with
 * the non-throwing duk_check_stack and always keeps the error. */
duk_int_t cduk__protect(duk_context *ctx, duk_safe_call_function fn, void *udata, duk_idx_t nargs, duk_idx_t nrets) {
    duk_idx_t asked = nrets > 0 ? nrets : 1;
    if (!duk_check_stack(ctx, asked + 8)) {
        duk_pop_n(ctx, nargs);
        return CDUK_EXEC_NOSTACK;
    }
    duk_int_t rc = cduk_safe_call_keeping_holds(ctx, fn, udata, nargs, asked); /* a hold an error left inside: undone (CDuktape.h) */
    if (rc != DUK_EXEC_SUCCESS) {
        if (asked > 1) {
            duk_pop_n(ctx, asked - 1); /* [err undefined...] -> [err] */
        }
        return DUK_EXEC_ERROR;
    }
    if (nrets == 0) {
        duk_pop(ctx);
    }
    return DUK_EXEC_SUCCESS;
}

/* ---- Native stack guard ------------------------------------------------------ */

/* Why: Duktape recurses on the C stack for JS -> native -> JS calls, the compiler,
 * JSON and regexps, and bounds that only by counts (e.g. 1000 native call levels),
 * which do not fit every thread: Swift concurrency threads have much smaller stacks
 * than the main thread. Duktape calls this at each native recursion point
 * (DUK_USE_NATIVE_STACK_CHECK) and throws RangeError when it returns non-zero; our
 * Swift conversions call it too. The bounds of the calling thread's stack are read
 * once per thread (pthread_getattr_np). */
/* Not static: engine.c reads the floor for the inlined fast path of the native check. */
__thread uintptr_t cduk__stack_floor = 0;          /* lowest usable address + headroom */
__thread uintptr_t cduk__stack_relaxed_floor = 0; /* the same with a quarter of the headroom */
/* Where the collector's marking stops recursing freely (engine.c, cduk__mark_recursion_limit):
 * halfway between the relaxed floor and the floor. Not static: engine.c reads both. */
__thread uintptr_t cduk__stack_mark_floor = 0;
__thread int cduk__stack_known = 0;                /* 0 unknown, 1 known, -1 unavailable */
static __thread int cduk__stack_relax = 0;         /* > 0 while Swift builds or reads an error */

static void cduk__find_stack(void) {
    pthread_attr_t attr;
    void *low = NULL;
    size_t size = 0;
    cduk__stack_known = -1;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) {
        return;
    }
    if (pthread_attr_getstack(&attr, &low, &size) == 0 && low != NULL && size > 0) {
        /* Keep a quarter of the stack (64 KiB to 256 KiB) for the frames between two
         * checks: an interpreter frame, a Swift callback and what it calls. Relaxed (while
         * Swift makes, pins and reads the error that stops a recursion) three quarters of it
         * may be used: with half, an AddressSanitizer debug build lost the error value on a
         * 256 KiB thread (its frames are several times larger). */
        size_t headroom = size / 4;
        if (headroom < 64 * 1024) headroom = 64 * 1024;
        if (headroom > 256 * 1024) headroom = 256 * 1024;
        if (headroom < size) {
            cduk__stack_floor = (uintptr_t) low + headroom;
            cduk__stack_relaxed_floor = (uintptr_t) low + headroom / 4;
            cduk__stack_mark_floor = cduk__stack_relaxed_floor + (cduk__stack_floor - cduk__stack_relaxed_floor) / 2;
            cduk__stack_known = 1;
        }
    }
    pthread_attr_destroy(&attr);
}

/* Inlined into both checks: Duktape calls the native check on every call from C into the
 * executor, so a second function call there shows in the call benchmarks. */
static inline __attribute__((always_inline)) int cduk__stack_low(void) {
    if (__builtin_expect(cduk__stack_known == 0, 0)) {
        cduk__find_stack();
    }
    if (cduk__stack_known < 0) {
        return 0;
    }
    uintptr_t here = (uintptr_t) __builtin_frame_address(0);
    return here < (cduk__stack_relax > 0 ? cduk__stack_relaxed_floor : cduk__stack_floor);
}

int cduk_native_stack_low(void) {
    return cduk__stack_low();
}

void cduk_native_stack_relax(int delta) {
    cduk__stack_relax += delta;
}

/* The deadline part is skipped for the library's own finalizers; the clock is read every 256th check (a regexp's
 * backtracking reaches this once per branch it tries), and once the deadline has passed every
 * check fails until the next entry re-arms it. */
static int cduk__exempt(cduk_heap_state *state);

int cduk_native_check(void *udata) {
    if (cduk__stack_low()) {
        return 1;
    }
    cduk_heap_state *state = (cduk_heap_state *) udata;
    if (__builtin_expect(state == NULL || state->deadline_ns == 0, 1)) {
        return 0;
    }
    int first = 0;
    if (!state->past_deadline) {
        if ((++state->native_ticks & 255) != 0 || cduk_clock_now(state) < state->deadline_ns) {
            return 0;
        }
        state->past_deadline = 1;
        first = 1;
    }
    /* Calling a finalizer passes here too: the library's own must always be called. */
    if (cduk__exempt(state)) {
        return 0;
    }
    state->deadline_stops++;
    if (first) {
        cduk_record_deadline_site(state);
    }
    return 1;
}

/* ---- Clocks ----------------------------------------------------------------------- */

uint64_t cduk_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* Why in C: the engine reads the clock from its interrupt check and its allocator, on the thread
 * running the script, while a test advances it from another thread: an atomic both can reach. */
struct cduk_clock {
    _Atomic uint64_t now_ns;
};

cduk_clock *cduk_clock_create(uint64_t start_ns) {
    cduk_clock *clock = malloc(sizeof(cduk_clock));
    if (clock != NULL) {
        atomic_init(&clock->now_ns, start_ns);
    }
    return clock;
}

void cduk_clock_destroy(cduk_clock *clock) {
    free(clock);
}

void cduk_clock_advance(cduk_clock *clock, uint64_t nanoseconds) {
    /* Saturating: a clock that wrapped around would put every deadline in the future again. */
    uint64_t now = atomic_load(&clock->now_ns);
    uint64_t next;
    do {
        next = now > UINT64_MAX - nanoseconds ? UINT64_MAX : now + nanoseconds;
    } while (!atomic_compare_exchange_weak(&clock->now_ns, &now, next));
}

uint64_t cduk_clock_read(const cduk_clock *clock) {
    return atomic_load(&((cduk_clock *) clock)->now_ns);
}

uint64_t cduk_clock_now(const cduk_heap_state *state) {
    return state->clock != NULL ? cduk_clock_read(state->clock) : cduk_monotonic_ns();
}

/* ---- Allocator, fatal handler ------------------------------------------------------ */

/* Allocation accounting uses malloc_usable_size so that no header is added to
 * Duktape's many small allocations. A refused allocation (NULL) makes Duktape run
 * an emergency GC, retry, and then throw (see cduk__refused_for_limit). */
/* Why: every finalizer DuktapeCore installs releases a Swift box or reports a watched
 * object's death, and Duktape frees the object even when the finalizer could not be called
 * (calling it allocates an activation). Refused then, a Swift object would leak, and a
 * JSManagedValue would keep the address of a freed object. So while Duktape calls a
 * finalizer, neither the memory limit nor the deadline refuses memory, except inside a
 * script's own finalizer, which cduk__box_finalizer runs with the limits back on (every
 * finalizer is ours: Duktape.fin is guarded). Our own finalizer work is small and bounded. */
static int cduk__exempt(cduk_heap_state *state) {
    /* At heap destruction Duktape calls the remaining finalizers from its list of all objects,
     * not from finalize_list, so cduk_heap_finalizing() does not see them: `destroying` does. */
    return state->script_finalizers == 0 && (state->destroying || cduk_heap_finalizing(state->engine_heap));
}

/* Why: Duktape checks the deadline only between bytecode instructions, so a native built-in
 * can run far past it (Array.prototype.join over a sparse array of length 2^32 - 1 ran for
 * minutes under a 0.1 s limit). Such loops allocate as they go, so once the deadline has
 * passed the allocator refuses memory and the engine unwinds. The clock is read every 32nd
 * allocation; after that every allocation is refused (Duktape retries a refused allocation
 * after a garbage collection), until the next call from Swift arms a new deadline. */
static int cduk__refused_past_deadline(cduk_heap_state *state) {
    if (state->deadline_ns == 0) {
        return 0;
    }
    int first = 0;
    if (!state->past_deadline) {
        if ((++state->alloc_ticks & 31) != 0 || cduk_clock_now(state) < state->deadline_ns) {
            return 0;
        }
        state->past_deadline = 1;
        first = 1;
    }
    if (cduk__exempt(state)) { /* asked only when refusing: it is not free */
        return 0;
    }
    state->deadline_refusals++;
    if (first) {
        cduk_record_deadline_site(state);  /* reads the heap; allocates nothing */
    }
    return 1;
}

static inline size_t cduk__host_charged(const cduk_heap_state *state) {
    return __atomic_load_n(&state->host_charged, __ATOMIC_RELAXED);
}

int cduk_host_charge(cduk_heap_state *state, size_t bytes) {
    if (state->memory_limit != 0 && state->memory_used + cduk__host_charged(state) + bytes > state->memory_limit) {
        state->limit_hits++;
        return 0;
    }
    __atomic_fetch_add(&state->host_charged, bytes, __ATOMIC_RELAXED);
    return 1;
}

void cduk_host_discharge(cduk_heap_state *state, size_t bytes) {
    __atomic_fetch_sub(&state->host_charged, bytes, __ATOMIC_RELAXED);
}

/* The collection budget for a heap that holds `kept` bytes (CDuktape.h). */
static void cduk__pace_collection(cduk_heap_state *state, size_t kept) {
    state->collect_budget = kept > CDUK_COLLECTION_HEADROOM ? kept : CDUK_COLLECTION_HEADROOM;
    state->collect_below = kept / 2;
}

void cduk_collect_grown(duk_context *ctx) {
    cduk_heap_state *state = (cduk_heap_state *) cduk_heap_state_of(ctx);
    duk_gc(ctx, 0);
    state->large_allocated = 0;
    cduk__pace_collection(state, state->memory_used);
}

/* After a free: a heap that shrank under half of what the last paced collection kept gets its
 * budget from what it holds now (else a peak, once released, would leave room for that much
 * garbage). */
static inline void cduk__shrunk(cduk_heap_state *state) {
    if (state->memory_used < state->collect_below) {
        cduk__pace_collection(state, state->memory_used);
    }
}

/* Whether an allocation of `grow` more bytes is refused for the memory limit.
 * Why the streak: when Duktape cannot allocate, it throws `Error: alloc failed`, made right
 * then, which is no RangeError, and which fits whenever the refused allocation was larger
 * than an error. So from a refusal for the limit to the next allocation granted to the
 * script (not to a collection, which Duktape runs before retrying, nor to our finalizers),
 * the memory for the engine's own error is refused too: Duktape then throws its double-fault
 * error instead, which is the realm's preallocated `RangeError: memory limit exceeded`
 * (cduk_adopt_as_double_error). */
static int cduk__refused_for_limit(cduk_heap_state *state, size_t grow) {
    int activity = state->limit_refused ? cduk_heap_activity(state->engine_heap) : 0;
    if ((activity & CDUK_MAKING_ERROR) && !(activity & CDUK_COLLECTING) && !cduk__exempt(state)) {
        return 1;
    }
    if (state->memory_limit != 0 && state->memory_used + cduk__host_charged(state) + grow > state->memory_limit &&
        !cduk__exempt(state)) {
        state->limit_hits++;
        if (!state->limit_refused) {
            cduk_record_limit_site(state);
        }
        state->limit_refused = 1;
        return 1;
    }
    if (state->limit_refused && !(activity & CDUK_COLLECTING) && !cduk__exempt(state)) {
        state->limit_refused = 0;
    }
    return 0;
}

/* Whether an allocation growing the heap by `grow` bytes is refused (the two checks above). The
 * common case, no deadline armed, no refusal streak and room under the limit, is decided inline
 * (Duktape allocates thousands of times to make a context: W1). */
static inline __attribute__((always_inline)) int cduk__refused(cduk_heap_state *state, size_t grow) {
    if (__builtin_expect(state->deadline_ns == 0 && !state->limit_refused &&
                             (state->memory_limit == 0 ||
                              state->memory_used + cduk__host_charged(state) + grow <= state->memory_limit),
                         1)) {
        return 0;
    }
    return cduk__refused_past_deadline(state) || cduk__refused_for_limit(state, grow);
}

static void *cduk__alloc(void *udata, duk_size_t size) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    if (cduk__refused(state, size)) {
        return NULL;
    }
    void *ptr = malloc(size);
    if (ptr != NULL) {
        if (size >= CDUK_LARGE_ALLOCATION) {
            state->large_allocated += size;
        }
        state->memory_used += malloc_usable_size(ptr);
        if (state->memory_used > state->memory_peak) {
            state->memory_peak = state->memory_used;
        }
    }
    return ptr;
}

static void *cduk__realloc(void *udata, void *ptr, duk_size_t size) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    size_t old = ptr != NULL ? malloc_usable_size(ptr) : 0;
    if (size == 0) {
        free(ptr);
        state->memory_used -= old;
        cduk__shrunk(state);
        return NULL;
    }
    if (size > old && cduk__refused(state, size - old)) {
        return NULL;
    }
    void *grown = realloc(ptr, size);
    if (grown != NULL) {
        state->memory_used = state->memory_used - old + malloc_usable_size(grown);
        if (state->memory_used > state->memory_peak) {
            state->memory_peak = state->memory_used;
        }
        cduk__shrunk(state);
    }
    return grown;
}

static void cduk__object_freed(cduk_heap_state *state, void *object);

static void cduk__free(void *udata, void *ptr) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    if (state->undecided != NULL && ptr != NULL) {
        cduk__object_freed(state, ptr); /* an undecided object's header (see the death tables) */
    }
    if (ptr != NULL) {
        state->memory_used -= malloc_usable_size(ptr);
        free(ptr);
        cduk__shrunk(state);
    }
}

static uint32_t cduk__fatal_count = 0;

uint32_t cduk_fatal_count(void) {
    return cduk__fatal_count;
}

/* Duktape's default fatal handler aborts with no message. Ours says why first.
 * A fatal error means an uncaught error outside any protected call, i.e. a bug in
 * this library: every entry from Swift is protected. It must not return. */
static void cduk__fatal(void *udata, const char *msg) {
    (void) udata;
    cduk__fatal_count++;
    fprintf(stderr, "DuktapeCore: fatal Duktape error (this is a bug in DuktapeCore): %s\n",
            msg != NULL ? msg : "(no message)");
    fflush(stderr);
    abort();
}

/* Interns the box key and keeps it alive in the heap stash, for cduk_box_at(). */
static duk_ret_t cduk__intern_box_key(duk_context *ctx, void *udata) {
    duk_push_heap_stash(ctx);
    duk_push_literal(ctx, CDUK__BOX_KEY);
    duk_dup_top(ctx);
    duk_put_prop_literal(ctx, -3, "DuktapeCoreBoxKey");
    ((cduk_heap_state *) udata)->box_key = duk_get_heapptr(ctx, -1);
    return 0;
}

duk_context *cduk_create_heap(cduk_heap_state *state) {
    duk_context *ctx = duk_create_heap(cduk__alloc, cduk__realloc, cduk__free, state, cduk__fatal);
    if (ctx == NULL) {
        return NULL;
    }
    state->engine_heap = cduk_engine_heap(ctx);
    if (duk_safe_call(ctx, cduk__intern_box_key, state, 0, 1) != DUK_EXEC_SUCCESS) {
        duk_destroy_heap(ctx);
        return NULL;
    }
    duk_pop(ctx);
    return ctx;
}

/* ---- Pushes that allocate --------------------------------------------------- */

typedef struct {
    const char *bytes;
    size_t length;
} cduk__bytes;

static duk_ret_t cduk__push_lstring(duk_context *ctx, void *udata) {
    cduk__bytes *b = (cduk__bytes *) udata;
    duk_push_lstring(ctx, b->bytes, b->length);
    return 1;
}

duk_int_t cduk_ppush_lstring(duk_context *ctx, const char *bytes, size_t length) {
    cduk__bytes b = { bytes, length };
    return cduk__protect(ctx, cduk__push_lstring, &b, 0, 1);
}

static duk_ret_t cduk__push_new(duk_context *ctx, void *udata) {
    switch (*(cduk_new_kind *) udata) {
    case CDUK_NEW_OBJECT: duk_push_object(ctx); break;
    case CDUK_NEW_ARRAY: duk_push_array(ctx); break;
    case CDUK_NEW_BOOKKEEPING: /* with no prototype, no setter or getter a script puts on
                                * Array.prototype can see or change its elements */
        duk_push_array(ctx);
        duk_push_undefined(ctx); /* duk_set_prototype's spelling of "none" */
        duk_set_prototype(ctx, -2);
        break;
    case CDUK_NEW_REALM: duk_push_thread_new_globalenv(ctx); break; /* a macro: why this shim exists */
    default: duk_push_undefined(ctx); break;
    }
    return 1;
}

duk_int_t cduk_ppush_new(duk_context *ctx, cduk_new_kind kind) {
    return cduk__protect(ctx, cduk__push_new, &kind, 0, 1);
}

typedef struct {
    size_t length;
    void *data;
} cduk__new_bytes;

static duk_ret_t cduk__push_new_uint8array(duk_context *ctx, void *udata) {
    cduk__new_bytes *b = (cduk__new_bytes *) udata;
    /* Not zeroed first (DUK_BUF_FLAG_NOZERO): the caller writes every byte at once. */
    b->data = duk_push_buffer_raw(ctx, b->length, DUK_BUF_FLAG_NOZERO);
    duk_push_buffer_object(ctx, -1, 0, b->length, DUK_BUFOBJ_UINT8ARRAY);
    return 1;
}

duk_int_t cduk_ppush_new_uint8array(duk_context *ctx, size_t length, void **data) {
    cduk__new_bytes b = { length, NULL };
    duk_int_t status = cduk__protect(ctx, cduk__push_new_uint8array, &b, 0, 1);
    *data = b.data;
    return status;
}

typedef struct {
    cduk_builtin builtin;
    duk_idx_t nargs;
    int construct;
} cduk__builtin_args;

/* [args...] -> [new B(args...)] or [B(args...)] for the realm's built-in B */
static duk_ret_t cduk__builtin_call(duk_context *ctx, void *udata) {
    cduk__builtin_args *b = (cduk__builtin_args *) udata;
    cduk_push_builtin(ctx, b->builtin);
    duk_insert(ctx, -(b->nargs + 1));
    if (b->construct) {
        duk_new(ctx, b->nargs);
    } else {
        duk_call(ctx, b->nargs);
    }
    return 1;
}

duk_int_t cduk_pbuiltin(duk_context *ctx, cduk_builtin builtin, duk_idx_t nargs, int construct) {
    cduk__builtin_args b = { builtin, nargs, construct };
    int is_error = builtin <= CDUK_BUILTIN_URI_ERROR;
    int hooks = is_error ? cduk_suspend_error_hooks(ctx) : 0;
    duk_int_t rc = cduk__protect(ctx, cduk__builtin_call, &b, nargs, 1);
    if (is_error) cduk_restore_error_hooks(ctx, hooks);
    return rc;
}

/* ---- Properties -------------------------------------------------------------- */

static duk_ret_t cduk__get_prop(duk_context *ctx, void *udata) {
    (void) udata;
    duk_get_prop(ctx, -2); /* [obj key] -> [obj value] */
    return 1;
}

duk_int_t cduk_pget_prop(duk_context *ctx) {
    if (cduk_get_prop_fast(ctx)) {
        return DUK_EXEC_SUCCESS;
    }
    return cduk__protect(ctx, cduk__get_prop, NULL, 2, 1);
}

static duk_ret_t cduk__has_prop(duk_context *ctx, void *udata) {
    *(int *) udata = duk_has_prop(ctx, -2) ? 1 : 0; /* throws TypeError for non-objects */
    return 0;
}

duk_int_t cduk_phas_prop(duk_context *ctx, int *result) {
    *result = 0;
    return cduk__protect(ctx, cduk__has_prop, result, 2, 0);
}

static duk_ret_t cduk__length(duk_context *ctx, void *udata) {
    duk_get_prop_string(ctx, -1, "length");
    *(double *) udata = (double) duk_to_uint32(ctx, -1);
    return 0;
}

duk_int_t cduk_plength(duk_context *ctx, double *out) {
    *out = 0;
    return cduk__protect(ctx, cduk__length, out, 1, 0);
}

/* ---- Registry (values pinned by Swift) --------------------------------------- */

typedef struct {
    void *registry;
    uint32_t slot;
    int clear;
} cduk__slot;

/* [value] -> [value] (set) or [] -> [] (clear) */
static duk_ret_t cduk__registry_set(duk_context *ctx, void *udata) {
    cduk__slot *s = (cduk__slot *) udata;
    duk_push_heapptr(ctx, s->registry);
    if (s->clear) {
        duk_push_undefined(ctx);
    } else {
        duk_dup(ctx, -2);
    }
    duk_put_prop_index(ctx, -2, (duk_uarridx_t) s->slot);
    duk_pop(ctx);
    return s->clear ? 0 : 1;
}

duk_int_t cduk_pregistry_set(duk_context *ctx, void *registry, uint32_t slot) {
    if (cduk__registry_fast(ctx, registry, slot, 0)) return DUK_EXEC_SUCCESS;
    cduk__slot s = { registry, slot, 0 };
    return cduk__protect(ctx, cduk__registry_set, &s, 1, 1);
}

duk_int_t cduk_pregistry_clear(duk_context *ctx, void *registry, uint32_t slot) {
    if (cduk__registry_fast(ctx, registry, slot, 1)) return DUK_EXEC_SUCCESS;
    cduk__slot s = { registry, slot, 1 };
    return cduk__protect(ctx, cduk__registry_set, &s, 0, 0);
}

/* ---- Coercions and comparisons ---------------------------------------------- */

static duk_ret_t cduk__to_string(duk_context *ctx, void *udata) {
    (void) udata;
    duk_to_string(ctx, -1);
    return 1;
}

duk_int_t cduk_pto_string(duk_context *ctx) {
    return cduk__protect(ctx, cduk__to_string, NULL, 1, 1);
}

static duk_ret_t cduk__to_number(duk_context *ctx, void *udata) {
    *(double *) udata = duk_to_number(ctx, -1);
    return 0;
}

duk_int_t cduk_pto_number(duk_context *ctx, double *out) {
    *out = 0;
    return cduk__protect(ctx, cduk__to_number, out, 1, 0);
}

static duk_ret_t cduk__equals(duk_context *ctx, void *udata) {
    *(int *) udata = duk_equals(ctx, -2, -1) ? 1 : 0;
    return 0;
}

duk_int_t cduk_pequals(duk_context *ctx, int *out) {
    *out = 0;
    return cduk__protect(ctx, cduk__equals, out, 2, 0);
}

static duk_ret_t cduk__instanceof(duk_context *ctx, void *udata) {
    *(int *) udata = duk_instanceof(ctx, -2, -1) ? 1 : 0;
    return 0;
}

duk_int_t cduk_pinstanceof(duk_context *ctx, int *out) {
    *out = 0;
    return cduk__protect(ctx, cduk__instanceof, out, 2, 0);
}

/* ---- Evaluation and calls -------------------------------------------------------- */

typedef struct {
    const char *source;
    size_t source_length;
    const char *filename;
    size_t filename_length;
    int program; /* compiled as program code (var bindings global even in strict code) */
} cduk__eval_args;

static duk_ret_t cduk__compile_eval(duk_context *ctx, void *udata) {
    cduk__eval_args *a = (cduk__eval_args *) udata;
    duk_push_lstring(ctx, a->source, a->source_length);
    if (a->filename != NULL) {
        duk_push_lstring(ctx, a->filename, a->filename_length);
    } else {
        /* An empty file name (not Duktape's default "eval"; none at all would also drop the
         * compiler's line numbers): errors created in the script have fileName "", and their
         * sourceURL reads undefined (cduk__alias_getter), as JavaScriptCore's do for a script
         * evaluated without a URL. */
        duk_push_string(ctx, "");
    }
    /* Global code with eval semantics, so that the completion value of the last statement is
     * the result (evaluateScript's); or program code, whose `var`s are globals even in strict
     * code (a strict library loaded as a <script>). */
    duk_compile(ctx, a->program ? 0 : DUK_COMPILE_EVAL);
    return 1;
}

duk_int_t cduk_pcompile_eval(duk_context *ctx, const char *source, size_t source_length, const char *filename,
                             size_t filename_length, int program) {
    cduk__eval_args a = { source, source_length, filename, filename_length, program };
    return cduk__protect(ctx, cduk__compile_eval, &a, 0, 1);
}

typedef struct {
    duk_idx_t nargs;
    int construct;
} cduk__call_args;

static duk_ret_t cduk__call(duk_context *ctx, void *udata) {
    cduk__call_args *a = (cduk__call_args *) udata; /* [func this args...] */
    if (a->construct) {
        duk_remove(ctx, -(a->nargs + 1));
        duk_new(ctx, a->nargs);
    } else {
        duk_call_method(ctx, a->nargs);
    }
    return 1;
}

duk_int_t cduk_pcall(duk_context *ctx, duk_idx_t nargs, int construct) {
    cduk__call_args a = { nargs, construct };
    return cduk__protect(ctx, cduk__call, &a, nargs + 2, 1);
}

/* ---- Realm set-up -------------------------------------------------------------- */

static duk_ret_t cduk__alias_getter(duk_context *ctx) {
    /* magic 0: line <- lineNumber; magic 1: sourceURL <- fileName */
    duk_push_this(ctx);
    duk_get_prop_string(ctx, -1, duk_get_current_magic(ctx) == 0 ? "lineNumber" : "fileName");
    if (duk_get_current_magic(ctx) == 1 && duk_is_string(ctx, -1) && duk_get_length(ctx, -1) == 0) {
        duk_push_undefined(ctx); /* a script evaluated without a URL */
    }
    return 1;
}

#define CDUK__ORIGINAL_STACK_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreOriginalStack")
#define CDUK__LIMIT_ERROR_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreLimitError")
#define CDUK__LIMIT_MARK_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreIsLimitError")

static int cduk__has_word(const char *text, size_t length, const char *word) {
    size_t word_length = strlen(word);
    for (size_t i = 0; i + word_length <= length; i++) {
        if (memcmp(text + i, word, word_length) == 0) return 1;
    }
    return 0;
}

/* Error.prototype.stack: Duktape's traceback read as JavaScriptCore's stack reads, one frame
 * per line, "name@sourceURL:line" ("global code" for the program, "name@[native code]" for
 * built-ins, an empty name for anonymous functions), without the header line, the engine's own
 * C frames ("[anon] (duk_hobject_props.c:2625) internal") and Duktape's frame flags. */
static duk_ret_t cduk__stack_getter(duk_context *ctx) {
    duk_push_current_function(ctx);
    cduk_get_own_hidden(ctx, -1, CDUK__ORIGINAL_STACK_KEY);
    duk_push_this(ctx);
    duk_call_method(ctx, 0); /* [fn traceback] */
    if (!duk_is_string(ctx, -1)) return 1;
    duk_size_t length = 0;
    const char *text = duk_get_lstring(ctx, -1, &length);
    duk_idx_t base = duk_get_top(ctx);
    const char *prefix = "    at ";
    size_t prefix_length = strlen(prefix);
    for (const char *line = text, *end = text + length; line < end;) {
        const char *newline = memchr(line, '\n', (size_t) (end - line));
        const char *line_end = newline != NULL ? newline : end;
        size_t line_length = (size_t) (line_end - line);
        const char *close = NULL;
        for (const char *c = line_end; c > line; c--) {
            if (c[-1] == ')') { close = c - 1; break; }
        }
        const char *open = NULL;
        if (close != NULL) {
            for (const char *c = close; c - 1 > line; c--) {
                if (c[-2] == ' ' && c[-1] == '(') { open = c - 1; break; }
            }
        }
        if (line_length > prefix_length && memcmp(line, prefix, prefix_length) == 0 && open != NULL &&
            open >= line + prefix_length + 1) {
            const char *flags = close + 1;
            size_t flags_length = (size_t) (line_end - flags);
            if (!cduk__has_word(flags, flags_length, "internal")) {
                const char *name = line + prefix_length;
                size_t name_length = (size_t) (open - 1 - name);
                const char *location = open + 1;
                size_t location_length = (size_t) (close - location);
                duk_require_stack(ctx, 4);
                if (duk_get_top(ctx) > base) duk_push_string(ctx, "\n");
                if (name_length == 4 && memcmp(name, "eval", 4) == 0) {
                    duk_push_string(ctx, "global code");
                } else if (name_length == 6 && memcmp(name, "[anon]", 6) == 0) {
                    duk_push_string(ctx, "");
                } else {
                    duk_push_lstring(ctx, name, name_length);
                }
                duk_push_string(ctx, "@");
                if (location_length == 0 || cduk__has_word(flags, flags_length, "native")) {
                    duk_push_string(ctx, "[native code]");
                } else {
                    duk_push_lstring(ctx, location, location_length);
                }
            }
        }
        line = line_end + 1;
    }
    duk_concat(ctx, duk_get_top(ctx) - base);
    return 1;
}

static duk_ret_t cduk__install_realm(duk_context *ctx, void *udata) {
    static const char *const names[2] = { "line", "sourceURL" };
    int sandboxed = *(const int *) udata;
    if (sandboxed) {
        /* The object stays alive in the engine's built-ins (its hooks are read from there),
         * but no script of this realm can name it any more. */
        duk_push_global_object(ctx);
        duk_del_prop_string(ctx, -1, "Duktape");
        duk_pop(ctx);
    }
    /* Duktape.fin -> cduk__guarded_fin (keeping the original for other objects). The realm's
     * own Duktape object: in a sandbox no script can name it, but the engine still reads its
     * hooks. */
    cduk_push_duktape_object(ctx);
    if (duk_is_object(ctx, -1)) {
        duk_push_string(ctx, "fin");
        duk_push_c_function(ctx, cduk__guarded_fin, DUK_VARARGS);
        duk_get_prop_string(ctx, -3, "fin");
        cduk_put_own_hidden(ctx, -2, CDUK__ORIGINAL_FIN_KEY);
        duk_push_string(ctx, "name");
        duk_push_string(ctx, "fin");
        duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE);
        duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
                                  DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_FORCE);
    }
    duk_pop(ctx);
    cduk_push_error_prototype(ctx);
    for (int i = 0; i < 2; i++) {
        duk_push_string(ctx, names[i]);
        duk_push_c_function(ctx, cduk__alias_getter, 0);
        duk_set_magic(ctx, -1, i);
        duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_CLEAR_ENUMERABLE);
    }
    /* [proto] -> stack's getter replaced by cduk__stack_getter over the original (kept on it);
     * the setter stays Duktape's. */
    duk_push_string(ctx, "stack");
    cduk_get_prop_desc(ctx, -2); /* [proto desc] */
    duk_push_string(ctx, "stack");
    duk_push_c_function(ctx, cduk__stack_getter, 0);
    duk_get_prop_string(ctx, -3, "get");
    cduk_put_own_hidden(ctx, -2, CDUK__ORIGINAL_STACK_KEY);
    duk_get_prop_string(ctx, -3, "set"); /* [proto desc "stack" getter setter] */
    duk_def_prop(ctx, -5, DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_HAVE_SETTER | DUK_DEFPROP_SET_CONFIGURABLE |
                              DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_FORCE);
    duk_pop(ctx);
    cduk_install_promise(ctx);
    cduk_install_replaced_builtins(ctx);
    cduk_install_lazy_builtins(ctx);
    /* The realm's "RangeError: memory limit exceeded", made now, for when the heap is so full
     * that not even an error can be made (see cduk_ppush_limit_error). Frozen, since every such
     * failure throws this one object; and the engine's own double fault throws it too, instead
     * of Duktape's DoubleError ("error in error handling"), which is no RangeError. */
    duk_push_global_object(ctx);
    cduk_push_error_object(ctx, DUK_ERR_RANGE_ERROR, "memory limit exceeded");
    duk_push_true(ctx);
    cduk_put_own_hidden(ctx, -2, CDUK__LIMIT_MARK_KEY);
    duk_freeze(ctx, -1);
    duk_dup(ctx, -1);
    cduk_adopt_as_double_error(ctx);
    cduk_put_own_hidden(ctx, -2, CDUK__LIMIT_ERROR_KEY);
    duk_pop(ctx);
    return 0;
}

static duk_ret_t cduk__push_limit_error(duk_context *ctx, void *udata) {
    (void) udata;
    duk_push_global_object(ctx);
    cduk_get_own_hidden(ctx, -1, CDUK__LIMIT_ERROR_KEY);
    duk_remove(ctx, -2);
    return 1;
}

duk_int_t cduk_ppush_limit_error(duk_context *ctx) {
    return cduk__protect(ctx, cduk__push_limit_error, NULL, 0, 1);
}

static duk_ret_t cduk__is_limit_error(duk_context *ctx, void *udata) {
    cduk_get_own_hidden(ctx, -1, CDUK__LIMIT_MARK_KEY);
    *(int *) udata = duk_get_boolean_default(ctx, -1, 0);
    return 0;
}

int cduk_is_limit_error(duk_context *ctx, duk_idx_t idx) {
    int is = 0;
    if (!duk_check_stack(ctx, 2) || !duk_is_object(ctx, idx)) {
        return 0;
    }
    duk_dup(ctx, idx);
    duk_int_t rc = cduk__protect(ctx, cduk__is_limit_error, &is, 1, 0);
    if (rc == DUK_EXEC_ERROR) {
        duk_pop(ctx);
    }
    return rc == DUK_EXEC_SUCCESS && is;
}

duk_int_t cduk_pinstall_realm(duk_context *ctx, int sandboxed) {
    return cduk__protect(ctx, cduk__install_realm, &sandboxed, 0, 0);
}

/* ---- Per-thread callback frame ----------------------------------------------- */

/* Why in C: Swift has no portable thread-local storage declaration. JSContext's
 * current()/currentThis()/currentArguments()/currentCallee() read the innermost
 * callback frame of the calling thread, as JavaScriptCore's per-thread stack does. */
static __thread void *cduk__frame = NULL;

void *cduk_current_frame(void) {
    return cduk__frame;
}

void cduk_set_current_frame(void *frame) {
    cduk__frame = frame;
}

/* ---- Swift boxes attached to JS objects, host functions --------------------------
 *
 * A Swift object (a closure, an exported object, a Swift error) is attached to a JS
 * object as a retained pointer under a hidden-symbol key, which scripts cannot
 * name. The object's finalizer (run when it is collected, and at heap destruction)
 * hands the pointer to Swift to release and clears it, so a box is released exactly
 * once and a cleared box is never used.
 */

static cduk_box_release_fn cduk__release_box = NULL;
static cduk_host_dispatch_fn cduk__dispatch = NULL;
static cduk_finalized_fn cduk__finalized = NULL;

void cduk_set_box_callbacks(cduk_box_release_fn release, cduk_host_dispatch_fn dispatch, cduk_finalized_fn finalized) {
    cduk__release_box = release;
    cduk__dispatch = dispatch;
    cduk__finalized = finalized;
}

/* ---- Deaths decided after the finalizer (see CDuktape.h) -------------------------
 *
 * Why: Duktape calls a finalizer, then frees the object only if nothing references it any more
 * (reference count 1: its finalize_list entry). Otherwise the object was rescued, or it is
 * garbage in a cycle that the next mark-and-sweep frees without calling the finalizer again.
 * Inside our finalizer the two references of the call itself are added (the object pushed by
 * duk_heap_run_finalizer and the argument), so "freed right after" reads as a count of 3. Any
 * other count leaves the object undecided: its box and watch are kept in a table keyed by the
 * object's header address, and the allocator's free hook moves it to the freed queue if the
 * object's memory is freed. A rescued object stays undecided and its finalizer runs again at its
 * next death (Duktape clears FINALIZED on rescue), which decides again. */

#define CDUK__FREED_RIGHT_AFTER 3u

typedef struct cduk__death {
    void *object; /* NULL: empty slot; CDUK__TOMBSTONE: removed */
    void *box;    /* the Swift box to release, or NULL */
} cduk__death;

static char cduk__tombstone_byte;
#define CDUK__TOMBSTONE ((void *) &cduk__tombstone_byte)

/* Open addressing by header address (undecided), or a plain list (freed). */
struct cduk_deaths {
    cduk__death *slots;
    size_t capacity; /* a power of two (table) */
    size_t count;    /* live entries */
    size_t used;     /* live entries and tombstones (table) */
};

static size_t cduk__hash(const void *object, size_t capacity) {
    uintptr_t x = (uintptr_t) object >> 3;
    x ^= x >> 17;
    x *= (uintptr_t) 0x9E3779B97F4A7C15ull;
    return (size_t) (x >> 7) & (capacity - 1);
}

static struct cduk_deaths *cduk__deaths_new(size_t capacity) {
    struct cduk_deaths *d = calloc(1, sizeof(struct cduk_deaths));
    if (d == NULL) return NULL;
    d->slots = calloc(capacity, sizeof(cduk__death));
    if (d->slots == NULL) {
        free(d);
        return NULL;
    }
    d->capacity = capacity;
    return d;
}

static void cduk__deaths_free(struct cduk_deaths *d) {
    if (d != NULL) {
        free(d->slots);
        free(d);
    }
}

/* The slot of `object` in the table, or NULL. */
static cduk__death *cduk__table_find(struct cduk_deaths *d, const void *object) {
    for (size_t i = cduk__hash(object, d->capacity), n = 0; n < d->capacity; n++, i = (i + 1) & (d->capacity - 1)) {
        if (d->slots[i].object == NULL) return NULL;
        if (d->slots[i].object == object) return &d->slots[i];
    }
    return NULL;
}

static int cduk__table_put(struct cduk_deaths *d, void *object, void *box);

static int cduk__table_grow(struct cduk_deaths *d) {
    size_t capacity = d->count * 4 > d->capacity ? d->capacity * 2 : d->capacity; /* else: only tombstones */
    cduk__death *old = d->slots;
    size_t old_capacity = d->capacity;
    cduk__death *slots = calloc(capacity, sizeof(cduk__death));
    if (slots == NULL) return 0;
    d->slots = slots;
    d->capacity = capacity;
    d->count = 0;
    d->used = 0;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i].object != NULL && old[i].object != CDUK__TOMBSTONE) {
            (void) cduk__table_put(d, old[i].object, old[i].box);
        }
    }
    free(old);
    return 1;
}

static int cduk__table_put(struct cduk_deaths *d, void *object, void *box) {
    cduk__death *existing = cduk__table_find(d, object);
    if (existing != NULL) {
        existing->box = box;
        return 1;
    }
    if ((d->used + 1) * 2 > d->capacity && !cduk__table_grow(d)) return 0;
    size_t i = cduk__hash(object, d->capacity);
    while (d->slots[i].object != NULL && d->slots[i].object != CDUK__TOMBSTONE) i = (i + 1) & (d->capacity - 1);
    if (d->slots[i].object == NULL) d->used++;
    d->slots[i].object = object;
    d->slots[i].box = box;
    d->count++;
    return 1;
}

/* Removes `object`; returns its entry (object NULL when absent). */
static cduk__death cduk__table_take(struct cduk_deaths *d, const void *object) {
    cduk__death found = { NULL, NULL };
    cduk__death *slot = cduk__table_find(d, object);
    if (slot != NULL) {
        found = *slot;
        slot->object = CDUK__TOMBSTONE;
        slot->box = NULL;
        d->count--;
    }
    return found;
}

static int cduk__list_append(struct cduk_deaths *d, cduk__death death) {
    if (d->count == d->capacity) {
        cduk__death *slots = realloc(d->slots, d->capacity * 2 * sizeof(cduk__death));
        if (slots == NULL) return 0;
        d->slots = slots;
        d->capacity *= 2;
    }
    d->slots[d->count++] = death;
    return 1;
}

/* The allocator's free hook: an undecided object's memory is freed, so it is dead. */
static void cduk__object_freed(cduk_heap_state *state, void *object) {
    if (state->undecided->count == 0) return;
    cduk__death death = cduk__table_take(state->undecided, object);
    if (death.object == NULL) return;
    if (state->freed == NULL) state->freed = cduk__deaths_new(16);
    /* Out of system memory here would lose one report: the box then stays retained (a leak,
     * never a use of freed memory, since the object is gone either way). */
    if (state->freed != NULL && cduk__list_append(state->freed, death)) state->freed_count++;
}

int cduk_is_freed(const cduk_heap_state *state, const void *object) {
    if (state->freed == NULL) return 0;
    for (size_t i = 0; i < state->freed->count; i++) {
        if (state->freed->slots[i].object == object) return 1;
    }
    return 0;
}

void cduk_drain_freed(cduk_heap_state *state) {
    while (state->freed != NULL && state->freed->count > 0) {
        /* Report one at a time: a release runs Swift code that may free more. */
        cduk__death death = state->freed->slots[--state->freed->count];
        state->freed_count--;
        if (cduk__finalized != NULL && state->swift_owner != NULL) cduk__finalized(state->swift_owner, death.object);
        if (death.box != NULL && cduk__release_box != NULL) cduk__release_box(death.box);
    }
}

int cduk_heap_limit_site_make(cduk_heap_state *state) {
    if (state->limit_site == NULL) {
        state->limit_site = calloc(1, sizeof(cduk_limit_site));
    }
    return state->limit_site != NULL;
}

void cduk_heap_limit_site_free(cduk_heap_state *state) {
    free(state->limit_site);
    state->limit_site = NULL;
}

void cduk_free_death_tables(cduk_heap_state *state) {
    cduk__deaths_free(state->undecided);
    cduk__deaths_free(state->freed);
    state->undecided = NULL;
    state->freed = NULL;
    state->freed_count = 0;
}

/* Why C: a finalizer is a Duktape/C function; everything that may throw here is in C.
 * Order: a script's own finalizer (chained, see cduk__guarded_fin) runs first; then, if the
 * object is freed right after (see the death tables above), Swift hears of the death of a
 * watched object (while it is still valid: Duktape frees an object only after its finalizer)
 * and the box is released; otherwise the object stays undecided. */
static duk_ret_t cduk__box_finalizer(duk_context *ctx) {
    /* [obj heapDestruct] */
    duk_memory_functions functions;
    duk_get_memory_functions(ctx, &functions);
    cduk_heap_state *state = (cduk_heap_state *) functions.udata;
    duk_get_prop_literal(ctx, 0, CDUK__CHAINED_KEY);
    if (duk_is_function(ctx, -1)) {
        duk_dup(ctx, 0);
        duk_dup(ctx, 1);
        if (state != NULL) state->script_finalizers++;  /* the script's code runs under the limits */
        (void) duk_pcall(ctx, 2); /* a script finalizer's error is ignored, as Duktape does */
        if (state != NULL) state->script_finalizers--;
    }
    duk_pop(ctx);

    /* At heap destruction nothing is rescued: every object is freed after its finalizer. */
    duk_bool_t destructing = duk_get_boolean(ctx, 1);
    void *object = duk_get_heapptr(ctx, 0);
    if (state != NULL && object != NULL && !destructing && cduk_refcount_at(ctx, 0) != CDUK__FREED_RIGHT_AFTER) {
        if (state->undecided == NULL) state->undecided = cduk__deaths_new(16);
        if (state->undecided != NULL && cduk__table_put(state->undecided, object, cduk_box_at(ctx, 0))) {
            return 0; /* decided when it is freed, or at its next finalization */
        }
        /* Out of system memory for the table: decide now, as Duktape's own rule would. */
    }
    if (state != NULL && state->undecided != NULL && object != NULL) {
        (void) cduk__table_take(state->undecided, object); /* undecided in an earlier round */
    }

    cduk_get_own_hidden(ctx, 0, CDUK__WATCH_KEY);
    duk_bool_t watched = duk_to_boolean(ctx, -1);
    duk_pop(ctx);
    if (watched && cduk__finalized != NULL) {
        duk_push_false(ctx);
        cduk_put_own_hidden(ctx, 0, CDUK__WATCH_KEY);
        if (state != NULL) {
            cduk__finalized(state->swift_owner, duk_get_heapptr(ctx, 0));
        }
    }

    void *box = cduk_box_at(ctx, 0);
    if (box != NULL) {
        duk_push_pointer(ctx, NULL);
        cduk_put_own_hidden(ctx, 0, CDUK__BOX_KEY);
        if (cduk__release_box != NULL) {
            cduk__release_box(box);
        }
    }
    return 0;
}

/* [obj] -> [obj]: makes cduk__box_finalizer the object's finalizer, keeping any
 * finalizer it had as the chained one. */
static void cduk__take_finalizer(duk_context *ctx) {
    duk_get_finalizer(ctx, -1);
    if (duk_is_function(ctx, -1) && duk_get_c_function(ctx, -1) != cduk__box_finalizer) {
        cduk_put_own_hidden(ctx, -2, CDUK__CHAINED_KEY);
    } else {
        duk_pop(ctx);
    }
    duk_push_c_function(ctx, cduk__box_finalizer, 2);
    cduk_force_finalizer(ctx, -2);
}

static duk_ret_t cduk__watch(duk_context *ctx, void *udata) {
    (void) udata;
    /* [obj] -> [obj] */
    cduk__take_finalizer(ctx);
    duk_push_true(ctx);
    cduk_put_own_hidden(ctx, -2, CDUK__WATCH_KEY);
    return 1;
}

duk_int_t cduk_pwatch(duk_context *ctx) {
    return cduk__protect(ctx, cduk__watch, NULL, 1, 1);
}

/* Duktape.fin(obj[, fn]) for scripts. Why: the original lets a script replace or call the
 * finalizer that releases a Swift box or reports a watched object's death. Here a script's
 * finalizer is always kept as the chained one of ours, so scripts keep their semantics,
 * cannot detach ours, and never run as Duktape's own finalizer (with the limits lifted). */
static duk_ret_t cduk__guarded_fin(duk_context *ctx) {
    duk_idx_t count = duk_get_top(ctx);
    duk_bool_t managed = 0;
    if (duk_is_object(ctx, 0)) {
        duk_get_finalizer(ctx, 0);
        managed = duk_get_c_function(ctx, -1) == cduk__box_finalizer;
        duk_pop(ctx);
    }
    if (count >= 2 && duk_is_object(ctx, 0) && !cduk_is_proxy(ctx, 0)) {
        /* Setting: every finalizer is ours, with the script's chained, so that Duktape never
         * calls a script function directly as a finalizer (see cduk__exempt). */
        if (!managed) {
            duk_dup(ctx, 0);
            cduk__take_finalizer(ctx);
            duk_pop(ctx);
        }
        duk_dup(ctx, 1);
        cduk_put_own_hidden(ctx, 0, CDUK__CHAINED_KEY);
        return 0;
    }
    if (managed) {
        duk_get_prop_literal(ctx, 0, CDUK__CHAINED_KEY);
        return 1;
    }
    duk_push_current_function(ctx);
    duk_get_prop_literal(ctx, -1, CDUK__ORIGINAL_FIN_KEY);
    duk_insert(ctx, 0);
    duk_pop(ctx);
    duk_push_undefined(ctx); /* this */
    duk_insert(ctx, 1);
    duk_call_method(ctx, count);
    return 1;
}

static duk_ret_t cduk__attach_box(duk_context *ctx, void *udata) {
    /* [obj] -> [obj] */
    duk_push_pointer(ctx, udata);
    cduk_put_own_hidden(ctx, -2, CDUK__BOX_KEY);
    cduk__take_finalizer(ctx);
    return 1;
}

duk_int_t cduk_pattach_box(duk_context *ctx, void *box) {
    return cduk__protect(ctx, cduk__attach_box, box, 1, 1);
}

/* The JS -> Swift trampoline of every host function. Why C: reading the box and
 * throwing happen here, in a pure C frame; the Swift dispatcher only returns a
 * status. Status: >= 0 number of results (0 or 1) on top; CDUK_HOST_THROW: throw the
 * value on top. A box already released by its finalizer reads as NULL here. */
static duk_ret_t cduk__host_trampoline(duk_context *ctx) {
    void *box = cduk_callee_box(ctx);
    if (box == NULL || cduk__dispatch == NULL) {
        return cduk_type_error(ctx, "native function is no longer available");
    }
    duk_int_t status = cduk__dispatch(ctx, box, duk_is_constructor_call(ctx));
    if (status == CDUK_HOST_THROW) {
        return duk_throw(ctx);
    }
    return status > 0 ? 1 : 0;
}

typedef struct {
    const char *name;
    duk_idx_t length;
} cduk__host_function_args;

static duk_ret_t cduk__push_host_function(duk_context *ctx, void *udata) {
    cduk__host_function_args *named = (cduk__host_function_args *) udata;
    duk_push_c_function(ctx, cduk__host_trampoline, DUK_VARARGS);
    if (named->name != NULL) {
        duk_push_string(ctx, "name");
        duk_push_string(ctx, named->name);
        duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE | DUK_DEFPROP_SET_CONFIGURABLE);
    }
    duk_push_string(ctx, "length");
    duk_push_int(ctx, named->length);
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE | DUK_DEFPROP_SET_CONFIGURABLE);
    return 1;
}

duk_int_t cduk_ppush_host_function(duk_context *ctx, const char *name, duk_idx_t length) {
    cduk__host_function_args named = { name, length };
    return cduk__protect(ctx, cduk__push_host_function, &named, 0, 1);
}

/* ---- Property definition and prototypes (exported classes) ---------------------- */

static duk_ret_t cduk__set_prototype(duk_context *ctx, void *udata) {
    (void) udata;
    duk_set_prototype(ctx, -2); /* [obj proto] -> [obj]; throws on a loop */
    return 1;
}

duk_int_t cduk_pset_prototype(duk_context *ctx) {
    return cduk__protect(ctx, cduk__set_prototype, NULL, 2, 1);
}

static duk_ret_t cduk__def_prop(duk_context *ctx, void *udata) {
    duk_uint_t flags = *(duk_uint_t *) udata;
    duk_idx_t values = ((flags & DUK_DEFPROP_HAVE_VALUE) ? 1 : 0) + ((flags & DUK_DEFPROP_HAVE_GETTER) ? 1 : 0) +
                       ((flags & DUK_DEFPROP_HAVE_SETTER) ? 1 : 0);
    duk_def_prop(ctx, -(values + 2), flags); /* [obj key values...] -> [obj] */
    return 1;
}

duk_int_t cduk_pdef_prop(duk_context *ctx, duk_uint_t flags) {
    duk_idx_t values = ((flags & DUK_DEFPROP_HAVE_VALUE) ? 1 : 0) + ((flags & DUK_DEFPROP_HAVE_GETTER) ? 1 : 0) +
                       ((flags & DUK_DEFPROP_HAVE_SETTER) ? 1 : 0);
    return cduk__protect(ctx, cduk__def_prop, &flags, values + 2, 1);
}

typedef struct {
    const char *bytes;
    size_t length;
    duk_uint_t flags;
} cduk__named_value;

static duk_ret_t cduk__def_named_value(duk_context *ctx, void *udata) {
    cduk__named_value *v = (cduk__named_value *) udata;
    duk_push_lstring(ctx, v->bytes, v->length);
    duk_insert(ctx, -2);
    duk_def_prop(ctx, -3, v->flags | DUK_DEFPROP_HAVE_VALUE); /* [obj key value] -> [obj] */
    return 1;
}

duk_int_t cduk_pdef_named_value(duk_context *ctx, const char *bytes, size_t length, duk_uint_t flags) {
    cduk__named_value v = { bytes, length, flags };
    return cduk__protect(ctx, cduk__def_named_value, &v, 2, 1);
}

/* ---- Fields at a fixed index (the Codable encoder and decoder) ---------------------------
 *
 * duk_safe_call runs in the caller's activation, so the object's absolute index is valid
 * inside: no duplicate of the object is pushed and popped per field. */
static duk_ret_t cduk__def_at(duk_context *ctx, void *udata) {
    duk_def_prop(ctx, *(const duk_idx_t *) udata, CDUK_DEFPROP_DATA); /* [key value] -> [] */
    return 0;
}

duk_int_t cduk_pdef_at(duk_context *ctx, duk_idx_t obj_idx) {
    return cduk__protect(ctx, cduk__def_at, &obj_idx, 2, 0);
}

static duk_ret_t cduk__get_at(duk_context *ctx, void *udata) {
    duk_get_prop(ctx, *(const duk_idx_t *) udata); /* [key] -> [value] */
    return 1;
}

duk_int_t cduk_pget_at(duk_context *ctx, duk_idx_t obj_idx) {
    return cduk__protect(ctx, cduk__get_at, &obj_idx, 1, 1);
}

/* ---- Conditional retain (JSManagedValue owners) ----------------------------------- */

#define CDUK__RETAINED_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreRetained")

static duk_ret_t cduk__set_retained(duk_context *ctx, void *udata) {
    (void) udata;
    /* [wrapper list] -> []: wrapper[hidden] = list, or deleted when list is undefined */
    cduk_put_own_hidden(ctx, -2, CDUK__RETAINED_KEY); /* undefined retains nothing */
    return 0;
}

duk_int_t cduk_pset_retained(duk_context *ctx) {
    return cduk__protect(ctx, cduk__set_retained, NULL, 2, 0);
}

/* ---- Whole-object enumeration ---------------------------------------------------------
 *
 * Why: converting an object to a Swift dictionary took one protected call per property.
 * Here one protected call enumerates in C and hands each [key value] pair to a Swift
 * visitor. The visitor returns before the next duk_next, so an error thrown while
 * enumerating (a getter, a Proxy trap) longjmps through C frames only. The visitor itself
 * may use only non-throwing calls and cduk_p* shims, and reports its own failures by
 * returning non-zero (which stops the enumeration). */
typedef struct {
    cduk_visit_fn visit;
    void *udata;
    int own_only;
} cduk__visit_args;

static duk_ret_t cduk__visit(duk_context *ctx, void *udata) {
    cduk__visit_args *a = (cduk__visit_args *) udata;
    if (cduk_visit_fast(ctx, a->own_only, a->visit, a->udata)) {
        duk_pop(ctx);
        return 0;
    }
    duk_enum(ctx, -1, a->own_only ? DUK_ENUM_OWN_PROPERTIES_ONLY : 0);
    while (duk_next(ctx, -1, 1)) {
        int stop = a->visit(a->udata, ctx);
        duk_pop_2(ctx);
        if (stop) {
            break;
        }
    }
    duk_pop(ctx);
    return 0;
}

duk_int_t cduk_pvisit(duk_context *ctx, int own_only, cduk_visit_fn visit, void *udata) {
    cduk__visit_args a = { visit, udata, own_only };
    return cduk__protect(ctx, cduk__visit, &a, 1, 0);
}

/* ---- Bytecode images (JSScript, the compiler VM) ------------------------------------------- */

static duk_ret_t cduk__dump_function(duk_context *ctx, void *udata) {
    (void) udata;
    duk_dump_function(ctx); /* [function] -> [buffer] */
    return 1;
}

duk_int_t cduk_pdump_function(duk_context *ctx) {
    return cduk__protect(ctx, cduk__dump_function, NULL, 1, 1);
}

typedef struct {
    const void *bytes;
    size_t length;
} cduk__bytecode_args;

static duk_ret_t cduk__load_function(duk_context *ctx, void *udata) {
    const cduk__bytecode_args *a = (const cduk__bytecode_args *) udata;
    void *buffer = duk_push_fixed_buffer(ctx, a->length);
    if (a->length > 0) {
        memcpy(buffer, a->bytes, a->length);
    }
    duk_load_function(ctx); /* [buffer] -> [function] */
    return 1;
}

duk_int_t cduk_pload_function(duk_context *ctx, const void *bytes, size_t length) {
    cduk__bytecode_args a = { bytes, length };
    return cduk__protect(ctx, cduk__load_function, &a, 0, 1);
}

uint64_t cduk_hash64(const void *bytes, size_t length, uint64_t seed) {
    /* FNV-1a's constants over 8-byte words, with a final mix: finds corruption (not a MAC). */
    const unsigned char *p = (const unsigned char *) bytes;
    uint64_t hash = 0xcbf29ce484222325ULL ^ seed;
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, p + i, 8);
        hash = (hash ^ word) * 0x100000001b3ULL;
        hash ^= hash >> 29;
    }
    for (; i < length; i++) {
        hash = (hash ^ p[i]) * 0x100000001b3ULL;
    }
    hash ^= (uint64_t) length;
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 33;
    return hash;
}

int cduk_contains(const void *bytes, size_t length, const void *needle, size_t needle_length) {
    return bytes != NULL && needle != NULL && memmem(bytes, length, needle, needle_length) != NULL;
}

