/*
 * Promise, AggregateError and the job queue, in C on Duktape's public API (Duktape 2.7 has no
 * Promise). ECMAScript 2021's algorithms, without subclassing: every promise the machinery makes
 * is a plain %Promise% of the realm that makes it, whatever a script did to `Promise`,
 * `Promise.prototype.then`, `constructor` properties, `Function.prototype.call` or
 * `Array.prototype.push` (nothing here reads them: internal slots are hidden-symbol properties,
 * lists are bare arrays, calls are duk_pcall). What the spec makes observable on user objects
 * stays observable: a thenable's `then` getter (read once), `catch`/`finally` invoking `then`,
 * `Promise.resolve(p)` reading `p.constructor`.
 *
 * Why C: a realm gets the whole API for the price of 14 native function objects (context
 * creation stays within the W1 budget), and a step of a `then` chain costs no bytecode.
 *
 * Jobs: one FIFO per heap (a JSVirtualMachine), a bare array of 5 slots per job
 * [kind, a, b, c, realm thread] with head/tail counters in the heap state. Swift drains it with
 * cduk_prun_jobs when the outermost API entry ends. Each job runs on the main thread of the realm
 * that queued it (a realm's built-ins are per thread in Duktape: object literals in a handler
 * must get that realm's prototypes).
 *
 * Unhandled rejections (HTML's model): rejecting a promise that has no handler records an event;
 * when the queue is empty, each recorded promise still without a handler is reported once, and a
 * handler added later to a reported promise records a "handled after all" event.
 */
#include "cduk_internal.h"

#include <math.h>
#include <string.h>

/* ---- Slots and keys ------------------------------------------------------------------- */

#define CDUK__P_STATE DUK_HIDDEN_SYMBOL("PromiseState")      /* number: state | flags */
#define CDUK__P_RESULT DUK_HIDDEN_SYMBOL("PromiseResult")    /* value or reason */
#define CDUK__P_REACTIONS DUK_HIDDEN_SYMBOL("PromiseReactions") /* bare array of triples */
/* The first reaction is kept in three slots of the promise itself (most promises get exactly
 * one): no array to allocate. */
#define CDUK__P_ON_FULFILLED DUK_HIDDEN_SYMBOL("PromiseOnFulfilled")
#define CDUK__P_ON_REJECTED DUK_HIDDEN_SYMBOL("PromiseOnRejected")
#define CDUK__P_DERIVED DUK_HIDDEN_SYMBOL("PromiseDerived")
#define CDUK__P_TARGET DUK_HIDDEN_SYMBOL("PromiseTarget")    /* on resolving records: the promise */
#define CDUK__P_DONE DUK_HIDDEN_SYMBOL("PromiseDone")        /* on resolving records */
#define CDUK__P_RECORD DUK_HIDDEN_SYMBOL("PromiseRecord")    /* on resolving functions: their record */
#define CDUK__P_VALUES DUK_HIDDEN_SYMBOL("PromiseValues")    /* on combinator records */
#define CDUK__P_REMAINING DUK_HIDDEN_SYMBOL("PromiseRemaining")
#define CDUK__P_KIND DUK_HIDDEN_SYMBOL("PromiseKind")        /* on combinator records: all/allSettled/any */
#define CDUK__P_CAPABILITY DUK_HIDDEN_SYMBOL("PromiseCapability") /* a resolving record */
#define CDUK__P_VALUE DUK_HIDDEN_SYMBOL("PromiseValue")      /* finally's callbacks and thunks */

/* The hidden keys reached by position (cduk_slot_get/put; a lookup by name when an object does
 * not have them there). A promise's six are defined in this order when it is made, at positions
 * 0-5 (its key number is its position); a combinator's record has CAPABILITY, VALUES, REMAINING
 * and KIND at 0-3. */
enum {
    CDUK__SLOT_STATE,
    CDUK__SLOT_RESULT,
    CDUK__SLOT_ON_FULFILLED,
    CDUK__SLOT_ON_REJECTED,
    CDUK__SLOT_DERIVED,
    CDUK__SLOT_REACTIONS,
    CDUK__PROMISE_SLOTS,
    CDUK__KEY_CAPABILITY = CDUK__PROMISE_SLOTS,
    CDUK__KEY_VALUES,
    CDUK__KEY_REMAINING,
    CDUK__KEY_KIND,
    CDUK__SLOT_KEYS
};
static const char *const cduk__slot_names[CDUK__SLOT_KEYS] = {
    CDUK__P_STATE, CDUK__P_RESULT, CDUK__P_ON_FULFILLED, CDUK__P_ON_REJECTED, CDUK__P_DERIVED, CDUK__P_REACTIONS,
    CDUK__P_CAPABILITY, CDUK__P_VALUES, CDUK__P_REMAINING, CDUK__P_KIND};
static const duk_size_t cduk__slot_lengths[CDUK__SLOT_KEYS] = {
    sizeof(CDUK__P_STATE) - 1U,      sizeof(CDUK__P_RESULT) - 1U,     sizeof(CDUK__P_ON_FULFILLED) - 1U,
    sizeof(CDUK__P_ON_REJECTED) - 1U, sizeof(CDUK__P_DERIVED) - 1U,  sizeof(CDUK__P_REACTIONS) - 1U,
    sizeof(CDUK__P_CAPABILITY) - 1U, sizeof(CDUK__P_VALUES) - 1U,     sizeof(CDUK__P_REMAINING) - 1U,
    sizeof(CDUK__P_KIND) - 1U};
/* Positions of the keys on a combinator's record. */
enum { CDUK__RECORD_CAPABILITY, CDUK__RECORD_VALUES, CDUK__RECORD_REMAINING, CDUK__RECORD_KIND, CDUK__RECORD_SLOTS };
static const int cduk__record_keys[CDUK__RECORD_SLOTS] = {CDUK__KEY_CAPABILITY, CDUK__KEY_VALUES, CDUK__KEY_REMAINING, CDUK__KEY_KIND};
/* Where the heap stash keeps the interned keys alive. */
#define CDUK__HEAP_SLOT_KEYS "PromiseSlotKeys"

/* Global stash (per realm; no script can reach it). */
#define CDUK__STASH_PROTOTYPE "PromisePrototype"
#define CDUK__STASH_CONSTRUCTOR "PromiseConstructor"
#define CDUK__STASH_THREAD "PromiseRealmThread"
#define CDUK__STASH_AGGREGATE "AggregateErrorPrototype"
#define CDUK__STASH_AGGREGATE_CONSTRUCTOR "AggregateErrorConstructor"

/* Heap stash. */
#define CDUK__HEAP_REALM_CACHE "PromiseRealmCache" /* [global, Promise.prototype, Promise] */
#define CDUK__HEAP_QUEUE "JobQueue"
#define CDUK__HEAP_REJECTIONS "RejectionEvents"

enum {
    CDUK__PENDING = 0,
    CDUK__FULFILLED = 1,
    CDUK__REJECTED = 2,
    CDUK__STATE_MASK = 3,
    CDUK__HANDLED = 4,  /* [[PromiseIsHandled]] */
    CDUK__REPORTED = 8, /* reported as unhandled */
    CDUK__HAS_FIRST_REACTION = 16 /* the first reaction's slots are filled */
};

enum { CDUK__JOB_FULFILL = 1, CDUK__JOB_REJECT = 2, CDUK__JOB_THENABLE = 3, CDUK__JOB_CALL = 4 };
#define CDUK__JOB_SLOTS 5U
/* Slots an emptied queue keeps allocated (beyond that, its storage is released). */
#define CDUK__KEPT_QUEUE_SLOTS 1024U

/* Rejection events (slots per event: promise, thread, kind). */
enum { CDUK__EVENT_REJECTED = 1, CDUK__EVENT_HANDLED = 2 };
#define CDUK__EVENT_SLOTS 3U

/* Magic numbers of the resolving functions. */
enum { CDUK__RESOLVE = 0, CDUK__REJECT = 1 };

/* The combinators (the magic numbers of their functions, and a record's KIND). */
enum { CDUK__ALL = 0, CDUK__ALL_SETTLED = 1, CDUK__ANY = 2, CDUK__RACE = 3 };

static duk_ret_t cduk__promise_then(duk_context *ctx);

static cduk_heap_state *cduk__state(duk_context *ctx) {
    return (cduk_heap_state *) cduk_heap_state_of(ctx);
}

static int cduk__past_deadline(const cduk_heap_state *state) {
    return state != NULL && state->deadline_ns != 0 && cduk_clock_now(state) >= state->deadline_ns;
}

/* ---- Small helpers --------------------------------------------------------------------- */

/* [value] -> []: CreateDataProperty(obj, name, value) (see CDUK_DEFINE_DATA). */
static void cduk__define_named(duk_context *ctx, duk_idx_t obj, const char *name) {
    obj = duk_normalize_index(ctx, obj);
    duk_push_string(ctx, name);
    duk_insert(ctx, -2);
    duk_def_prop(ctx, obj, CDUK_DEFINE_DATA);
}

static void cduk__ensure_promise(duk_context *ctx);

/* [] -> [stash[key]]; key is a string literal (looked up through Duktape's literal cache, not
 * interned again on every call). */
#define cduk__push_stash_value(ctx, key) \
    do { \
        duk_push_global_stash(ctx); \
        duk_get_prop_literal((ctx), -1, key); \
        duk_remove((ctx), -2); \
    } while (0)

/* The state word of the promise at idx, or -1 when it is not a promise. */
static int cduk__promise_state(duk_context *ctx, duk_idx_t idx) {
    cduk_heap_state *heap = cduk__state(ctx);
    duk_int_t fast = cduk_slot_int(ctx, idx, CDUK__SLOT_STATE, heap->promise_keys[CDUK__SLOT_STATE], DUK_INT_MIN);
    if (fast != DUK_INT_MIN) {
        return (int) fast;
    }
    if (!duk_is_object(ctx, idx)) {
        return -1;
    }
    cduk_get_own_hidden(ctx, idx, CDUK__P_STATE);
    int state = duk_is_number(ctx, -1) ? duk_get_int(ctx, -1) : -1;
    duk_pop(ctx);
    return state;
}

/* The heap's interned slot keys, made on first use. */
static void *const *cduk__slot_keys(duk_context *ctx) {
    cduk_heap_state *heap = cduk__state(ctx);
    if (heap->promise_keys[0] == NULL) {
        cduk_pin_keys(ctx, CDUK__HEAP_SLOT_KEYS, cduk__slot_names, heap->promise_keys, CDUK__SLOT_KEYS);
    }
    return heap->promise_keys;
}

/* [] -> [value of hidden key `key`] of the object at idx, found at `position` when it is there. */
static void cduk__get_at(duk_context *ctx, duk_idx_t idx, int position, int key) {
    if (!cduk_slot_get(ctx, idx, (duk_uint32_t) position, cduk__state(ctx)->promise_keys[key])) {
        cduk_get_own_hidden_raw(ctx, idx, cduk__slot_names[key], cduk__slot_lengths[key]);
    }
}

/* [value] -> []: the object's hidden key `key` set to it, in place at `position` when it is there. */
static void cduk__put_at(duk_context *ctx, duk_idx_t idx, int position, int key) {
    idx = duk_normalize_index(ctx, idx);
    if (!cduk_slot_put(ctx, idx, (duk_uint32_t) position, cduk__state(ctx)->promise_keys[key])) {
        cduk_put_own_hidden_raw(ctx, idx, cduk__slot_names[key], cduk__slot_lengths[key]);
    }
}

/* Gives the fresh, empty object at idx the hidden keys `keys` (key numbers), in order. */
static void cduk__define_keyed_slots(duk_context *ctx, duk_idx_t idx, const int *keys, int count) {
    void *const *interned = cduk__slot_keys(ctx);
    void *ordered[CDUK__SLOT_KEYS];
    for (int i = 0; i < count; i++) {
        ordered[i] = interned[keys[i]];
    }
    cduk_define_slots(ctx, idx, ordered, (duk_uint32_t) count);
}

/* A promise's slot: its key number is its position. */
#define cduk__get_slot(ctx, idx, slot) cduk__get_at((ctx), (idx), (slot), (slot))
#define cduk__put_slot(ctx, idx, slot) cduk__put_at((ctx), (idx), (slot), (slot))

static void cduk__set_state(duk_context *ctx, duk_idx_t idx, int state) {
    if (cduk_slot_set_int(ctx, idx, CDUK__SLOT_STATE, cduk__state(ctx)->promise_keys[CDUK__SLOT_STATE], state)) {
        return;
    }
    idx = duk_normalize_index(ctx, idx);
    duk_push_int(ctx, state);
    cduk__put_slot(ctx, idx, CDUK__SLOT_STATE);
}

/* Gives the fresh, empty object at idx a promise's slots, in order, its state pending. */
static void cduk__make_promise_slots(duk_context *ctx, duk_idx_t idx) {
    idx = duk_normalize_index(ctx, idx);
    cduk_define_slots(ctx, idx, cduk__slot_keys(ctx), CDUK__PROMISE_SLOTS);
    cduk__set_state(ctx, idx, CDUK__PENDING);
}

/* A value ES treats as an object (functions and buffers included). */
static int cduk__is_object_like(duk_context *ctx, duk_idx_t idx) {
    return duk_check_type_mask(ctx, idx, DUK_TYPE_MASK_OBJECT | DUK_TYPE_MASK_LIGHTFUNC | DUK_TYPE_MASK_BUFFER);
}

static void cduk__push_function(duk_context *ctx, duk_c_function fn, duk_idx_t nargs, int magic) {
    duk_push_c_function(ctx, fn, nargs);
    duk_set_magic(ctx, -1, magic);
}

/* The cache of one realm's Promise and Promise.prototype, the last realm that made a promise
 * and missed it: a new promise then costs no stash lookup. Its values are held in the heap
 * stash (realm_cache) and their addresses published in the heap state once read back from
 * there and checked to be ctx's realm's. Filling it allocates, and an allocation can run
 * finalizers, which can make promises of another realm and take the cache for theirs (or, by
 * releasing a JSContext, empty it): callers fill it first and read it (cduk__cached) right
 * before they use the address, with no allocation between. A realm whose JSContext is gone (its
 * stash no longer names its main thread, cduk__forget_realm) is not cached: a coroutine of it
 * that runs on would keep it alive. JSContext's deinit empties the cache that holds its realm. */
static void cduk__push_heap_list(duk_context *ctx, void **pointer, const char *key);

static void cduk__cache_realm(duk_context *ctx) {
    cduk_heap_state *state = cduk__state(ctx);
    void *global = cduk_realm_global(ctx);
    if (global == NULL || global == state->promise_realm) {
        return;
    }
    duk_require_stack(ctx, 8);
    cduk__push_stash_value(ctx, CDUK__STASH_PROTOTYPE); /* made last (cduk__make_promise) */
    if (!duk_is_object(ctx, -1)) {
        cduk__ensure_promise(ctx);
    }
    duk_pop(ctx);
    cduk__push_stash_value(ctx, CDUK__STASH_THREAD);
    int alive = duk_get_pointer(ctx, -1) != NULL;
    duk_pop(ctx);
    if (!alive) {
        return;
    }
    cduk__push_heap_list(ctx, &state->realm_cache, CDUK__HEAP_REALM_CACHE);
    state->promise_realm = state->promise_prototype = state->promise_constructor = NULL;
    duk_push_global_object(ctx);
    cduk__push_stash_value(ctx, CDUK__STASH_PROTOTYPE);
    cduk__push_stash_value(ctx, CDUK__STASH_CONSTRUCTOR); /* [cache global prototype constructor] */
    cduk_array_put_range(ctx, -4, 0, 3);
    duk_get_prop_index(ctx, -1, 0);
    duk_get_prop_index(ctx, -2, 1);
    duk_get_prop_index(ctx, -3, 2);
    if (duk_get_heapptr(ctx, -3) == cduk_realm_global(ctx) && duk_is_object(ctx, -2) && duk_is_function(ctx, -1)) {
        state->promise_realm = duk_get_heapptr(ctx, -3);
        state->promise_prototype = duk_get_heapptr(ctx, -2);
        state->promise_constructor = duk_get_heapptr(ctx, -1);
    }
    duk_pop_n(ctx, 4);
}

/* The cached address in *field (promise_prototype or promise_constructor) when the cache holds
 * ctx's realm, else NULL. Allocates nothing. */
static void *cduk__cached(duk_context *ctx, void *const *field) {
    const cduk_heap_state *state = cduk__state(ctx);
    return state->promise_realm != NULL && state->promise_realm == cduk_realm_global(ctx) ? *field : NULL;
}

/* [] -> [new pending promise of ctx's realm]. */
static void cduk__push_new_promise(duk_context *ctx) {
    duk_push_object(ctx);
    cduk__make_promise_slots(ctx, -1);
    duk_require_stack(ctx, 1);
    cduk__cache_realm(ctx);
    void *prototype = cduk__cached(ctx, &cduk__state(ctx)->promise_prototype);
    if (prototype != NULL) {
        duk_push_heapptr(ctx, prototype);
    } else {
        cduk__push_stash_value(ctx, CDUK__STASH_PROTOTYPE);
    }
    duk_set_prototype(ctx, -2);
}

/* ---- The job queue ---------------------------------------------------------------------- */

/* [] -> [the heap's array under `key`], made on first use; *pointer caches its address. */
static void cduk__push_heap_list(duk_context *ctx, void **pointer, const char *key) {
    if (*pointer != NULL) {
        duk_push_heapptr(ctx, *pointer);
        return;
    }
    duk_push_heap_stash(ctx);
    duk_push_bare_array(ctx);
    duk_dup(ctx, -1);
    duk_put_prop_string(ctx, -3, key);
    duk_remove(ctx, -2);
    *pointer = duk_get_heapptr(ctx, -1);
}

/* [] -> [the main thread of ctx's realm], where ctx's jobs run (a coroutine's thread may be
 * suspended or finished by then). Outside a coroutine that is ctx itself. A coroutine reads its
 * realm's main thread from the stash: an address, not a reference (a reference would make a
 * cycle through the realm's global object), which JSContext's deinit clears
 * (cduk_pforget_realm) before the thread can be freed. A coroutine of a realm whose context is
 * gone runs its jobs on the thread at the root of the resume chain, which is running the call. */
static void cduk__push_realm_thread(duk_context *ctx) {
    if (!cduk_is_resumed_coroutine(ctx)) {
        duk_push_current_thread(ctx);
        return;
    }
    cduk__push_stash_value(ctx, CDUK__STASH_THREAD);
    void *thread = duk_get_pointer(ctx, -1);
    duk_pop(ctx);
    if (thread != NULL) {
        duk_push_heapptr(ctx, thread);
    } else {
        cduk_push_resume_root(ctx);
    }
}

/* Queues a job of `kind` with the values at a, b, c (absolute indices). The slots are reserved
 * first (writing them can run a finalizer that queues a job of its own); they are written
 * together, once every value is on the stack: a job whose writing failed (memory) has no kind
 * and is skipped. */
static void cduk__enqueue(duk_context *ctx, int kind, duk_idx_t a, duk_idx_t b, duk_idx_t c) {
    cduk_heap_state *state = cduk__state(ctx);
    duk_require_stack(ctx, 7);
    cduk__push_heap_list(ctx, &state->job_queue, CDUK__HEAP_QUEUE);
    duk_uarridx_t tail = state->job_tail;
    state->job_tail = tail + CDUK__JOB_SLOTS;
    cduk_reserve_array(ctx, -1, tail + CDUK__JOB_SLOTS);
    duk_push_int(ctx, kind);
    duk_dup(ctx, a);
    duk_dup(ctx, b);
    duk_dup(ctx, c);
    cduk__push_realm_thread(ctx);
    cduk_array_put_range(ctx, -6, tail, CDUK__JOB_SLOTS);
    duk_pop(ctx);
}

/* HostPromiseRejectionTracker: records an event for the promise at idx (slots reserved first,
 * the kind written last, as for jobs). */
static void cduk__track_rejection(duk_context *ctx, duk_idx_t idx, int kind) {
    cduk_heap_state *state = cduk__state(ctx);
    idx = duk_normalize_index(ctx, idx);
    duk_require_stack(ctx, 4);
    cduk__push_heap_list(ctx, &state->rejections, CDUK__HEAP_REJECTIONS);
    duk_uarridx_t end = state->rejection_slots;
    state->rejection_slots = end + CDUK__EVENT_SLOTS;
    duk_dup(ctx, idx);
    duk_put_prop_index(ctx, -2, end);
    cduk__push_realm_thread(ctx);
    duk_put_prop_index(ctx, -2, end + 1);
    duk_push_int(ctx, kind);
    duk_put_prop_index(ctx, -2, end + 2);
    duk_pop(ctx);
}

/* ---- Settling --------------------------------------------------------------------------- */

/* cduk__settle, finalizers held: no script runs until the reactions are queued, in order. */
static void cduk__settle_held(duk_context *ctx, duk_idx_t p, duk_idx_t v, int rejected) {
    int state = cduk__promise_state(ctx, p);
    if (state < 0 || (state & CDUK__STATE_MASK) != CDUK__PENDING) {
        return;
    }
    /* [.. state result] -> []: the promise's state and result (slots 0 and 1) */
    duk_push_int(ctx, (state & ~(CDUK__STATE_MASK | CDUK__HAS_FIRST_REACTION)) | (rejected ? CDUK__REJECTED : CDUK__FULFILLED));
    duk_dup(ctx, v);
    void *const *keys = cduk__slot_keys(ctx);
    if (!cduk_slots_put(ctx, p, CDUK__SLOT_STATE, keys, 2)) {
        cduk__put_slot(ctx, p, CDUK__SLOT_RESULT);
        cduk__put_slot(ctx, p, CDUK__SLOT_STATE);
    }
    if (rejected && !(state & CDUK__HANDLED)) {
        cduk__track_rejection(ctx, p, CDUK__EVENT_REJECTED);
    }
    if (!(state & CDUK__HAS_FIRST_REACTION)) {
        return;
    }
    /* The reactions, in order: the first one's slots, then the list (each emptied: a settled
     * promise keeps no handler alive). [.. onFulfilled onRejected derived] */
    if (!cduk_slots_take(ctx, p, CDUK__SLOT_ON_FULFILLED, keys + CDUK__SLOT_ON_FULFILLED, 3)) {
        for (int slot = CDUK__SLOT_ON_FULFILLED; slot <= CDUK__SLOT_DERIVED; slot++) {
            cduk__get_slot(ctx, p, slot);
            duk_push_undefined(ctx);
            cduk__put_slot(ctx, p, slot);
        }
    }
    duk_idx_t top = duk_get_top(ctx);
    cduk__enqueue(ctx, rejected ? CDUK__JOB_REJECT : CDUK__JOB_FULFILL, rejected ? top - 2 : top - 3, top - 1, v);
    duk_pop_3(ctx);
    cduk__get_slot(ctx, p, CDUK__SLOT_REACTIONS); /* [.. reactions] */
    duk_idx_t reactions = duk_get_top_index(ctx);
    if (duk_is_array(ctx, reactions)) {
        duk_push_undefined(ctx);
        cduk__put_slot(ctx, p, CDUK__SLOT_REACTIONS);
        duk_size_t count = duk_get_length(ctx, reactions);
        for (duk_size_t i = 0; i + 2 < count; i += 3) {
            duk_get_prop_index(ctx, reactions, (duk_uarridx_t) (i + (rejected ? 1 : 0))); /* handler */
            duk_get_prop_index(ctx, reactions, (duk_uarridx_t) (i + 2));                  /* derived */
            top = duk_get_top(ctx);
            cduk__enqueue(ctx, rejected ? CDUK__JOB_REJECT : CDUK__JOB_FULFILL, top - 2, top - 1, v);
            duk_pop_2(ctx);
        }
    }
    duk_pop(ctx);
}

/* FulfillPromise / RejectPromise: settles the pending promise at p with the value at v and
 * queues its reactions. A settled promise is left as it is. */
static void cduk__settle(duk_context *ctx, duk_idx_t p, duk_idx_t v, int rejected) {
    p = duk_normalize_index(ctx, p);
    v = duk_normalize_index(ctx, v);
    duk_require_stack(ctx, 8);
    cduk_finalizers_hold(ctx);
    cduk__settle_held(ctx, p, v, rejected);
    cduk_finalizers_release(ctx);
}

static duk_ret_t cduk__get_then(duk_context *ctx, void *udata) {
    (void) udata;
    duk_get_prop_literal(ctx, -1, "then");
    return 1;
}

/* The resolve function's steps after its alreadyResolved check: resolves the promise at p with
 * the value at v (a thenable is followed in a job; `then` is read once, here). */
static void cduk__resolve(duk_context *ctx, duk_idx_t p, duk_idx_t v) {
    p = duk_normalize_index(ctx, p);
    v = duk_normalize_index(ctx, v);
    if (duk_strict_equals(ctx, p, v)) {
        cduk_push_error_object(ctx, DUK_ERR_TYPE_ERROR, "cannot resolve a promise with itself");
        cduk__settle(ctx, p, -1, 1);
        duk_pop(ctx);
        return;
    }
    if (!cduk__is_object_like(ctx, v)) {
        cduk__settle(ctx, p, v, 0);
        return;
    }
    /* [.. then] or [.. error] */
    duk_dup(ctx, v);
    if (duk_safe_call(ctx, cduk__get_then, NULL, 1, 1) != DUK_EXEC_SUCCESS) {
        if (cduk__past_deadline(cduk__state(ctx))) {
            (void) duk_throw(ctx);
        }
        cduk__settle(ctx, p, -1, 1);
    } else if (!duk_is_callable(ctx, -1)) {
        cduk__settle(ctx, p, v, 0);
    } else {
        cduk__enqueue(ctx, CDUK__JOB_THENABLE, p, v, duk_get_top_index(ctx));
    }
    duk_pop(ctx);
}

/* ---- Resolving functions ---------------------------------------------------------------- */

/* A resolving record: the promise and whether a function of the pair has been called. */
static void cduk__push_resolving_record(duk_context *ctx, duk_idx_t promise) {
    promise = duk_normalize_index(ctx, promise);
    duk_push_bare_object(ctx);
    duk_dup(ctx, promise);
    cduk_put_own_hidden(ctx, -2, CDUK__P_TARGET);
}

/* Calls the resolve (rejected == 0) or reject function of the record at r with the value at v. */
static void cduk__resolve_through(duk_context *ctx, duk_idx_t r, duk_idx_t v, int rejected) {
    r = duk_normalize_index(ctx, r);
    v = duk_normalize_index(ctx, v);
    duk_require_stack(ctx, 4);
    /* Checked and marked with finalizers held: a finalizer calling the same function between
     * the two would resolve the promise a second time. */
    cduk_finalizers_hold(ctx);
    cduk_get_own_hidden(ctx, r, CDUK__P_DONE);
    int done = duk_to_boolean(ctx, -1);
    duk_pop(ctx);
    if (!done) {
        duk_push_true(ctx);
        cduk_put_own_hidden(ctx, r, CDUK__P_DONE);
    }
    cduk_finalizers_release(ctx);
    if (done) {
        return;
    }
    cduk_get_own_hidden(ctx, r, CDUK__P_TARGET);
    if (rejected) {
        cduk__settle(ctx, -1, v, 1);
    } else {
        cduk__resolve(ctx, -1, v);
    }
    duk_pop(ctx);
}

/* resolve(value) (magic 0) and reject(reason) (magic 1). */
static duk_ret_t cduk__resolving_function(duk_context *ctx) {
    duk_push_current_function(ctx);
    cduk_get_own_hidden(ctx, -1, CDUK__P_RECORD);
    cduk__resolve_through(ctx, -1, 0, duk_get_current_magic(ctx) == CDUK__REJECT);
    return 0;
}

/* [] -> [resolve reject] for the record at r. */
static void cduk__push_resolving_functions(duk_context *ctx, duk_idx_t r) {
    r = duk_normalize_index(ctx, r);
    for (int magic = CDUK__RESOLVE; magic <= CDUK__REJECT; magic++) {
        cduk__push_function(ctx, cduk__resolving_function, 1, magic);
        duk_dup(ctx, r);
        cduk_put_own_hidden(ctx, -2, CDUK__P_RECORD);
    }
}

/* ---- then ---------------------------------------------------------------------------------- */

/* The reaction (on_fulfilled at the top minus 2, on_rejected at the top minus 1, d) added to the
 * promise at p, or queued as a job when p is settled; pops the two handlers. A reaction is one
 * of:
 * - a handler (callable) or undefined (the value passes through) on each side, and the derived
 *   promise to settle or undefined (no promise: a throw is reported);
 * - a combinator's element: d is the element's index (a number) and a side's handler is the
 *   combinator's record (not callable), or the result's resolve or reject function. Only
 *   cduk__combinator_body makes such a reaction, on a promise of ours, and it runs at most once
 *   (a promise settles once): the spec's element function and its [[AlreadyCalled]] flag are
 *   never observable, so neither is made. */
static void cduk__add_reaction(duk_context *ctx, duk_idx_t p, duk_idx_t d) {
    p = duk_normalize_index(ctx, p);
    d = duk_normalize_index(ctx, d);
    duk_require_stack(ctx, 8);
    duk_idx_t on_fulfilled = duk_get_top(ctx) - 2, on_rejected = on_fulfilled + 1, spare = 0;
    int state, was;
    cduk_finalizers_hold(ctx);
    /* A reaction after the first goes on the list. Making the list is an allocation, which can
     * run finalizers, and a finalizer can settle the promise or add a reaction of its own: so the
     * list is made first (`spare`), then the state and the slot are read again, and the promise's
     * list, if one appeared meanwhile, is the one used. (Appending grows the list's array part,
     * during which Duktape runs no finalizer.) */
    for (;;) {
        state = was = cduk__promise_state(ctx, p);
        if ((state & CDUK__STATE_MASK) != CDUK__PENDING || !(state & CDUK__HAS_FIRST_REACTION)) break;
        cduk__get_slot(ctx, p, CDUK__SLOT_REACTIONS); /* [.. list] */
        if (duk_is_array(ctx, -1)) break;
        duk_pop(ctx);
        if (spare != 0) {
            duk_dup(ctx, spare);
            duk_dup(ctx, -1);
            cduk__put_slot(ctx, p, CDUK__SLOT_REACTIONS); /* [.. list] */
            break;
        }
        duk_push_bare_array(ctx);
        spare = duk_get_top_index(ctx);
    }
    switch (state & CDUK__STATE_MASK) {
    case CDUK__PENDING: {
        if (!(state & CDUK__HAS_FIRST_REACTION)) {
            duk_dup(ctx, on_fulfilled);
            duk_dup(ctx, on_rejected);
            duk_dup(ctx, d);
            if (!cduk_slots_put(ctx, p, CDUK__SLOT_ON_FULFILLED, cduk__slot_keys(ctx) + CDUK__SLOT_ON_FULFILLED, 3)) {
                cduk__put_slot(ctx, p, CDUK__SLOT_DERIVED);
                cduk__put_slot(ctx, p, CDUK__SLOT_ON_REJECTED);
                cduk__put_slot(ctx, p, CDUK__SLOT_ON_FULFILLED);
            }
            state |= CDUK__HAS_FIRST_REACTION; /* written below, with HANDLED */
            break;
        }
        duk_uarridx_t end = (duk_uarridx_t) duk_get_length(ctx, -1); /* [.. list] */
        duk_dup(ctx, on_fulfilled);
        duk_put_prop_index(ctx, -2, end);
        duk_dup(ctx, on_rejected);
        duk_put_prop_index(ctx, -2, end + 1);
        duk_dup(ctx, d);
        duk_put_prop_index(ctx, -2, end + 2);
        break;
    }
    default:
        /* Settled: marked handled before anything that can allocate (a finalizer that adds a
         * reaction meanwhile then finds it handled, and reports nothing twice). */
        if ((state | CDUK__HANDLED) != was) {
            cduk__set_state(ctx, p, state | CDUK__HANDLED);
        }
        if ((state & CDUK__STATE_MASK) != CDUK__FULFILLED && (state & CDUK__REPORTED) && !(state & CDUK__HANDLED)) {
            cduk__track_rejection(ctx, p, CDUK__EVENT_HANDLED);
        }
        cduk__get_slot(ctx, p, CDUK__SLOT_RESULT);
        if ((state & CDUK__STATE_MASK) == CDUK__FULFILLED) {
            cduk__enqueue(ctx, CDUK__JOB_FULFILL, on_fulfilled, d, duk_get_top_index(ctx));
        } else {
            cduk__enqueue(ctx, CDUK__JOB_REJECT, on_rejected, d, duk_get_top_index(ctx));
        }
        cduk_finalizers_release(ctx);
        duk_set_top(ctx, on_fulfilled);
        return;
    }
    if ((state | CDUK__HANDLED) != was) {
        cduk__set_state(ctx, p, state | CDUK__HANDLED);
    }
    cduk_finalizers_release(ctx);
    duk_set_top(ctx, on_fulfilled);
}

/* PerformPromiseThen(promise at p, onFulfilled at f, onRejected at r, derived promise at d):
 * f and r are used when callable; d may be undefined (no promise to settle). */
static void cduk__perform_then(duk_context *ctx, duk_idx_t p, duk_idx_t f, duk_idx_t r, duk_idx_t d) {
    p = duk_normalize_index(ctx, p);
    f = duk_normalize_index(ctx, f);
    r = duk_normalize_index(ctx, r);
    d = duk_normalize_index(ctx, d);
    duk_require_stack(ctx, 4);
    /* Non-callable handlers become undefined: the reaction passes the value through. */
    if (duk_is_callable(ctx, f)) duk_dup(ctx, f); else duk_push_undefined(ctx);
    if (duk_is_callable(ctx, r)) duk_dup(ctx, r); else duk_push_undefined(ctx);
    cduk__add_reaction(ctx, p, d);
}

static void cduk__require_promise_this(duk_context *ctx, const char *method) {
    duk_push_this(ctx);
    if (cduk__promise_state(ctx, -1) < 0) {
        (void) cduk_type_error(ctx, "Promise.prototype.%s called on a value that is not a Promise", method);
    }
}

static duk_ret_t cduk__promise_then(duk_context *ctx) {
    /* [onFulfilled onRejected] */
    cduk__require_promise_this(ctx, "then"); /* [f r this] */
    cduk__push_new_promise(ctx);             /* [f r this derived] */
    cduk__perform_then(ctx, 2, 0, 1, 3);
    return 1;
}

/* Invoke(value at v, "then", args...): [args...] -> [result]. */
static void cduk__invoke_then(duk_context *ctx, duk_idx_t v, duk_idx_t nargs) {
    v = duk_normalize_index(ctx, v);
    duk_dup(ctx, v);
    duk_get_prop_string(ctx, -1, "then"); /* [args... v then] (ToObject: undefined/null throw) */
    duk_swap_top(ctx, -2);                 /* [args... then v] */
    duk_insert(ctx, -(nargs + 2));
    duk_insert(ctx, -(nargs + 2));         /* [then v args...] */
    duk_call_method(ctx, nargs);
}

static duk_ret_t cduk__promise_catch(duk_context *ctx) {
    duk_push_this(ctx);
    duk_push_undefined(ctx);
    duk_dup(ctx, 0);
    cduk__invoke_then(ctx, 1, 2);
    return 1;
}

/* PromiseResolve(%Promise%, value at v): [] -> [promise]. */
static void cduk__push_promise_resolve(duk_context *ctx, duk_idx_t v) {
    v = duk_normalize_index(ctx, v);
    if (cduk__promise_state(ctx, v) >= 0) {
        duk_get_prop_literal(ctx, v, "constructor");
        cduk__cache_realm(ctx);
        void *constructor = cduk__cached(ctx, &cduk__state(ctx)->promise_constructor);
        int same;
        if (constructor != NULL) {
            same = duk_is_function(ctx, -1) && duk_get_heapptr(ctx, -1) == constructor;
        } else {
            cduk__push_stash_value(ctx, CDUK__STASH_CONSTRUCTOR);
            same = duk_strict_equals(ctx, -1, -2);
            duk_pop(ctx);
        }
        duk_pop(ctx);
        if (same) {
            duk_dup(ctx, v);
            return;
        }
    }
    cduk__push_new_promise(ctx);
    cduk__resolve(ctx, -1, v);
}

/* finally: thenFinally (magic 0) and catchFinally (magic 1) carry onFinally; the thunks they
 * pass on (magic 2: return the value, 3: throw the reason) carry the value. */
static duk_ret_t cduk__finally_step(duk_context *ctx) {
    int magic = duk_get_current_magic(ctx);
    duk_push_current_function(ctx);
    cduk_get_own_hidden(ctx, -1, CDUK__P_VALUE);
    if (magic == 2) {
        return 1;
    }
    if (magic == 3) {
        return duk_throw(ctx);
    }
    /* [value fn onFinally] */
    duk_push_undefined(ctx);
    duk_call_method(ctx, 0);             /* [value fn result] */
    cduk__push_promise_resolve(ctx, -1); /* [value fn result promise] */
    cduk__push_function(ctx, cduk__finally_step, 0, magic == 0 ? 2 : 3);
    duk_dup(ctx, 0);
    cduk_put_own_hidden(ctx, -2, CDUK__P_VALUE);
    cduk__invoke_then(ctx, -2, 1);
    return 1;
}

static duk_ret_t cduk__promise_finally(duk_context *ctx) {
    /* [onFinally] */
    duk_push_this(ctx);
    if (!duk_is_callable(ctx, 0)) {
        duk_dup(ctx, 0);
        duk_dup(ctx, 0);
        cduk__invoke_then(ctx, 1, 2);
        return 1;
    }
    for (int magic = 0; magic <= 1; magic++) {
        cduk__push_function(ctx, cduk__finally_step, 1, magic);
        duk_dup(ctx, 0);
        cduk_put_own_hidden(ctx, -2, CDUK__P_VALUE);
    }
    cduk__invoke_then(ctx, 1, 2);
    return 1;
}

/* ---- The constructor and its static methods ------------------------------------------------ */

static duk_ret_t cduk__promise_constructor(duk_context *ctx) {
    /* [executor] */
    if (!duk_is_constructor_call(ctx)) {
        return cduk_type_error(ctx, "Promise constructor cannot be called without 'new'");
    }
    if (!duk_is_callable(ctx, 0)) {
        return cduk_type_error(ctx, "Promise constructor needs an executor function");
    }
    duk_push_this(ctx); /* the new object, with Promise.prototype as its prototype */
    cduk__make_promise_slots(ctx, 1);
    cduk__push_resolving_record(ctx, 1);     /* [executor this record] */
    cduk__push_resolving_functions(ctx, 2); /* [executor this record resolve reject] */
    duk_dup(ctx, 0);
    duk_push_undefined(ctx);
    duk_dup(ctx, 3);
    duk_dup(ctx, 4);
    if (duk_pcall_method(ctx, 2) != DUK_EXEC_SUCCESS) {
        if (cduk__past_deadline(cduk__state(ctx))) {
            return duk_throw(ctx);
        }
        cduk__resolve_through(ctx, 2, -1, 1);
    }
    duk_dup(ctx, 1);
    return 1;
}

static void cduk__require_object_this(duk_context *ctx, const char *method) {
    duk_push_this(ctx);
    if (!cduk__is_object_like(ctx, -1)) {
        (void) cduk_type_error(ctx, "Promise.%s called on a value that is not an object", method);
    }
    duk_pop(ctx);
}

static duk_ret_t cduk__promise_static_resolve(duk_context *ctx) {
    cduk__require_object_this(ctx, "resolve");
    cduk__push_promise_resolve(ctx, 0);
    return 1;
}

static duk_ret_t cduk__promise_static_reject(duk_context *ctx) {
    cduk__require_object_this(ctx, "reject");
    cduk__push_new_promise(ctx);
    cduk__settle(ctx, -1, 0, 1);
    return 1;
}

/* [] -> [new AggregateError(errors at idx, message)] in ctx's realm. */
static void cduk__push_aggregate_error(duk_context *ctx, duk_idx_t errors, const char *message) {
    errors = duk_normalize_index(ctx, errors);
    cduk_push_error_object(ctx, DUK_ERR_ERROR, "%s", message);
    cduk__push_stash_value(ctx, CDUK__STASH_AGGREGATE);
    duk_set_prototype(ctx, -2);
    duk_push_string(ctx, "errors");
    duk_dup(ctx, errors);
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
                              DUK_DEFPROP_SET_CONFIGURABLE);
}

/* A combinator's record: the result promise's resolving record (CAPABILITY), the values (or
 * errors) array, the count of elements not yet settled, and the combinator (KIND). An element
 * is a reaction on its promise (see cduk__add_reaction), not a function object. */

/* One element settled, or (from the body) the initial count of 1 taken off: when none remains,
 * the values array becomes the result (bare while private, it is given Array.prototype), or
 * any's AggregateError of the errors. The record is private (no script reaches it, and its
 * elements run as jobs, which nothing runs inside another job), so no finalizer can see it half
 * changed, and the result's `then` may be read here. */
static void cduk__combinator_finish_one(duk_context *ctx, duk_idx_t record) {
    record = duk_normalize_index(ctx, record);
    cduk__get_at(ctx, record, CDUK__RECORD_REMAINING, CDUK__KEY_REMAINING);
    double remaining = duk_get_number(ctx, -1) - 1;
    duk_pop(ctx);
    duk_push_number(ctx, remaining);
    cduk__put_at(ctx, record, CDUK__RECORD_REMAINING, CDUK__KEY_REMAINING);
    if (remaining != 0) {
        return;
    }
    cduk__get_at(ctx, record, CDUK__RECORD_CAPABILITY, CDUK__KEY_CAPABILITY);
    cduk__get_at(ctx, record, CDUK__RECORD_VALUES, CDUK__KEY_VALUES); /* [.. capability values] */
    duk_push_array(ctx);
    duk_get_prototype(ctx, -1);
    duk_set_prototype(ctx, -3);
    duk_pop(ctx);
    cduk__get_at(ctx, record, CDUK__RECORD_KIND, CDUK__KEY_KIND);
    int kind = duk_get_int(ctx, -1);
    duk_pop(ctx);
    if (kind == CDUK__ANY) {
        /* any: every element rejected */
        cduk__push_aggregate_error(ctx, -1, "all promises were rejected");
        cduk__resolve_through(ctx, -3, -1, 1);
        duk_pop_3(ctx);
        return;
    }
    cduk__resolve_through(ctx, -2, -1, 0);
    duk_pop_2(ctx);
}

/* The element at `index` of the combinator whose record is at `record` settled with the value
 * at v (rejected: 1 when it was rejected). all's and any's elements take one side only (the
 * other is the result's reject or resolve function); allSettled's take both. */
static void cduk__combinator_element(duk_context *ctx, duk_idx_t record, duk_uarridx_t index, duk_idx_t v, int rejected) {
    record = duk_normalize_index(ctx, record);
    v = duk_normalize_index(ctx, v);
    duk_require_stack(ctx, 6);
    cduk__get_at(ctx, record, CDUK__RECORD_KIND, CDUK__KEY_KIND);
    int kind = duk_get_int(ctx, -1);
    duk_pop(ctx);
    cduk__get_at(ctx, record, CDUK__RECORD_VALUES, CDUK__KEY_VALUES); /* [.. values] */
    if (kind == CDUK__ALL_SETTLED) {
        duk_push_object(ctx);
        duk_push_string(ctx, rejected ? "rejected" : "fulfilled");
        cduk__define_named(ctx, -2, "status");
        duk_dup(ctx, v);
        cduk__define_named(ctx, -2, rejected ? "reason" : "value");
    } else {
        duk_dup(ctx, v);
    }
    duk_put_prop_index(ctx, -2, index);
    duk_pop(ctx);
    cduk__combinator_finish_one(ctx, record);
}

/* The iterable at idx as far as Duktape has iterables: a string (by code points), or an object
 * with a length (an array or array-like). Pushes the items as a bare array; throws TypeError
 * for anything else. */
static void cduk__push_items(duk_context *ctx, duk_idx_t idx) {
    idx = duk_normalize_index(ctx, idx);
    duk_push_bare_array(ctx);
    if (duk_is_string(ctx, idx) && !duk_is_symbol(ctx, idx)) {
        /* By code points, as the String iterator: a surrogate pair is one item. */
        duk_size_t length = duk_get_length(ctx, idx);
        duk_uarridx_t out = 0;
        for (duk_size_t i = 0; i < length;) {
            duk_codepoint_t c = duk_char_code_at(ctx, idx, i);
            duk_size_t width = 1;
            if (c >= 0xD800 && c <= 0xDBFF && i + 1 < length) {
                duk_codepoint_t d = duk_char_code_at(ctx, idx, i + 1);
                if (d >= 0xDC00 && d <= 0xDFFF) width = 2;
            }
            duk_dup(ctx, idx);
            duk_substring(ctx, -1, i, i + width);
            duk_put_prop_index(ctx, -2, out++);
            i += width;
        }
        return;
    }
    if (!cduk__is_object_like(ctx, idx)) {
        (void) cduk_type_error(ctx, "value is not iterable (an array, array-like or string)");
    }
    duk_get_prop_string(ctx, idx, "length");
    if (duk_is_undefined(ctx, -1)) {
        (void) cduk_type_error(ctx, "value is not iterable (an array, array-like or string)");
    }
    double length = floor(duk_to_number(ctx, -1)); /* ToLength (NaN and negatives: none) */
    duk_pop(ctx);
    if (!(length > 0)) {
        return;
    }
    if (length > 4294967295.0) {
        length = 4294967295.0;
    }
    for (duk_uarridx_t i = 0; (double) i < length; i++) {
        duk_get_prop_index(ctx, idx, i);
        duk_put_prop_index(ctx, -2, i);
    }
}

/* The body of all/allSettled/any/race, called protected: [iterable result record] */
static duk_ret_t cduk__combinator_body(duk_context *ctx, void *udata) {
    int kind = *(int *) udata;
    duk_idx_t record = duk_get_top(ctx) - 1, iterable = record - 2;
    cduk__push_items(ctx, iterable); /* [.. items] */
    duk_idx_t items = duk_get_top_index(ctx);
    duk_size_t count = duk_get_length(ctx, items);
    if (kind != CDUK__RACE) {
        cduk__get_at(ctx, record, CDUK__RECORD_VALUES, CDUK__KEY_VALUES);
        cduk_reserve_array(ctx, -1, (duk_uint32_t) count);
        duk_pop(ctx);
    }
    cduk__get_at(ctx, record, CDUK__RECORD_CAPABILITY, CDUK__KEY_CAPABILITY); /* [.. items capability] */
    cduk__push_resolving_functions(ctx, -1);               /* [.. items capability resolve reject] */
    duk_idx_t resolve = duk_get_top(ctx) - 2, reject = resolve + 1;
    for (duk_size_t i = 0; i < count; i++) {
        duk_get_prop_index(ctx, items, (duk_uarridx_t) i);
        cduk__push_promise_resolve(ctx, -1); /* [.. item next] */
        if (kind == CDUK__RACE) {
            duk_push_undefined(ctx);
            cduk__perform_then(ctx, -2, resolve, reject, -1);
            duk_pop_3(ctx);
            continue;
        }
        cduk__get_at(ctx, record, CDUK__RECORD_VALUES, CDUK__KEY_VALUES);
        duk_push_undefined(ctx);
        duk_put_prop_index(ctx, -2, (duk_uarridx_t) i);
        duk_pop(ctx);
        cduk__get_at(ctx, record, CDUK__RECORD_REMAINING, CDUK__KEY_REMAINING);
        duk_push_number(ctx, duk_get_number(ctx, -1) + 1);
        cduk__put_at(ctx, record, CDUK__RECORD_REMAINING, CDUK__KEY_REMAINING);
        duk_pop(ctx);
        /* [.. item next index onFulfilled onRejected]: the record stands for the element */
        duk_push_uint(ctx, (duk_uint_t) i);
        duk_dup(ctx, kind == CDUK__ANY ? resolve : record);
        duk_dup(ctx, kind == CDUK__ALL ? reject : record);
        cduk__add_reaction(ctx, -4, -3);
        duk_pop_3(ctx);
    }
    if (kind != CDUK__RACE) {
        /* The initial count of 1, taken off now that every element is registered. */
        cduk__combinator_finish_one(ctx, record);
    }
    return 0;
}

static duk_ret_t cduk__promise_combinator(duk_context *ctx) {
    static const char *const names[4] = { "all", "allSettled", "any", "race" };
    int kind = duk_get_current_magic(ctx);
    cduk__require_object_this(ctx, names[kind]);
    duk_set_top(ctx, 1);
    cduk__push_new_promise(ctx);                /* [iterable result] */
    cduk__push_resolving_record(ctx, 1);        /* [iterable result capability] */
    duk_push_bare_object(ctx);                  /* [iterable result capability record] */
    cduk__define_keyed_slots(ctx, 3, cduk__record_keys, CDUK__RECORD_SLOTS);
    duk_dup(ctx, 2);
    cduk__put_at(ctx, 3, CDUK__RECORD_CAPABILITY, CDUK__KEY_CAPABILITY);
    duk_push_bare_array(ctx);
    cduk__put_at(ctx, 3, CDUK__RECORD_VALUES, CDUK__KEY_VALUES);
    duk_push_int(ctx, 1);
    cduk__put_at(ctx, 3, CDUK__RECORD_REMAINING, CDUK__KEY_REMAINING);
    duk_push_int(ctx, kind);
    cduk__put_at(ctx, 3, CDUK__RECORD_KIND, CDUK__KEY_KIND);
    duk_dup(ctx, 0);
    duk_dup(ctx, 2);
    duk_dup(ctx, 3);                            /* [.. iterable capability record] */
    if (duk_safe_call(ctx, cduk__combinator_body, &kind, 3, 1) != DUK_EXEC_SUCCESS) {
        /* IfAbruptRejectPromise */
        if (cduk__past_deadline(cduk__state(ctx))) {
            return duk_throw(ctx);
        }
        cduk__resolve_through(ctx, 2, -1, 1);
    }
    duk_dup(ctx, 1);
    return 1;
}

/* ---- AggregateError ----------------------------------------------------------------------- */

static duk_ret_t cduk__aggregate_error_constructor(duk_context *ctx) {
    /* [errors message]: the message is converted first, then the errors are listed (the
     * spec's order). */
    cduk_push_error_object(ctx, DUK_ERR_ERROR, "");
    cduk__push_stash_value(ctx, CDUK__STASH_AGGREGATE);
    duk_set_prototype(ctx, -2);
    duk_push_string(ctx, "message");
    duk_del_prop(ctx, -2); /* [errors message error] */
    if (!duk_is_undefined(ctx, 1)) {
        duk_push_string(ctx, "message");
        duk_dup(ctx, 1);
        duk_to_string(ctx, -1);
        duk_def_prop(ctx, 2, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
                                 DUK_DEFPROP_SET_CONFIGURABLE);
    }
    cduk__push_items(ctx, 0); /* [errors message error list] */
    duk_push_array(ctx);
    duk_size_t count = duk_get_length(ctx, 3);
    for (duk_size_t i = 0; i < count; i++) {
        duk_get_prop_index(ctx, 3, (duk_uarridx_t) i);
        cduk_define_index(ctx, -2, (duk_uarridx_t) i);
    }
    duk_push_string(ctx, "errors");
    duk_insert(ctx, -2);
    duk_def_prop(ctx, 2, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
                             DUK_DEFPROP_SET_CONFIGURABLE);
    duk_dup(ctx, 2);
    return 1;
}

/* ---- Realm installation ------------------------------------------------------------------- */


/* [obj] -> [obj]: obj[key] = the string `value`, with `flags`. */
static void cduk__def_string(duk_context *ctx, const char *key, const char *value, duk_uint_t flags) {
    duk_push_string(ctx, key);
    duk_push_string(ctx, value);
    duk_def_prop(ctx, -3, flags);
}

/* [obj] -> [obj]: obj[name] = a native method (with its `name` and `length`). */
static void cduk__def_method(duk_context *ctx, const char *name, duk_c_function fn, duk_idx_t nargs, int magic) {
    cduk_define_function(ctx, -1, name, fn, nargs, nargs, magic);
}

/* Makes Promise, AggregateError and their prototypes for ctx's realm and keeps them in the
 * realm's stash (not in globals: see cduk_install_promise_globals). [] -> []. */
static void cduk__make_promise(duk_context *ctx) {
    duk_require_stack(ctx, 12);
    duk_push_global_stash(ctx); /* [stash] */

    /* Promise and Promise.prototype */
    duk_push_c_function(ctx, cduk__promise_constructor, 1); /* [stash Promise] */
    duk_push_object(ctx);                                     /* [stash Promise proto] */
    cduk__def_method(ctx, "then", cduk__promise_then, 2, 0);
    cduk__def_method(ctx, "catch", cduk__promise_catch, 1, 0);
    cduk__def_method(ctx, "finally", cduk__promise_finally, 1, 0);
    duk_push_string(ctx, "constructor");
    duk_dup(ctx, -3);
    duk_def_prop(ctx, -3, CDUK_BUILTIN_PROP);
    cduk_push_to_string_tag_symbol(ctx);
    duk_push_string(ctx, "Promise");
    duk_def_prop(ctx, -3, CDUK_NAME_PROP);
    duk_push_string(ctx, "prototype");
    duk_insert(ctx, -2);
    duk_def_prop(ctx, -3, CDUK_FIXED_PROP); /* [stash Promise] */
    cduk__def_string(ctx, "name", "Promise", CDUK_NAME_PROP);
    cduk__def_method(ctx, "resolve", cduk__promise_static_resolve, 1, 0);
    cduk__def_method(ctx, "reject", cduk__promise_static_reject, 1, 0);
    cduk__def_method(ctx, "all", cduk__promise_combinator, 1, CDUK__ALL);
    cduk__def_method(ctx, "allSettled", cduk__promise_combinator, 1, CDUK__ALL_SETTLED);
    cduk__def_method(ctx, "any", cduk__promise_combinator, 1, CDUK__ANY);
    cduk__def_method(ctx, "race", cduk__promise_combinator, 1, CDUK__RACE);
    duk_get_prop_string(ctx, -1, "prototype");             /* [stash Promise proto] (fixed) */
    duk_swap_top(ctx, -2);
    duk_put_prop_string(ctx, -3, CDUK__STASH_CONSTRUCTOR); /* [stash proto] */
    /* The prototype last: a new promise finds it only once the constructor is there too
     * (cduk__push_new_promise looks for it alone). */
    duk_put_prop_string(ctx, -2, CDUK__STASH_PROTOTYPE);   /* [stash] */

    /* AggregateError and its prototype (inheriting Error.prototype) */
    duk_push_c_function(ctx, cduk__aggregate_error_constructor, 2); /* [stash AE] */
    cduk_push_builtin(ctx, CDUK_BUILTIN_ERROR);
    duk_set_prototype(ctx, -2); /* AggregateError inherits from Error, as the other error types */
    duk_push_string(ctx, "length");
    duk_push_int(ctx, 2);
    duk_def_prop(ctx, -3, CDUK_NAME_PROP); /* own: it would read Error.length (1) otherwise */
    duk_push_object(ctx);
    cduk_push_error_prototype(ctx);
    duk_set_prototype(ctx, -2); /* [stash AE proto] */
    cduk__def_string(ctx, "name", "AggregateError", CDUK_BUILTIN_PROP);
    cduk__def_string(ctx, "message", "", CDUK_BUILTIN_PROP);
    duk_push_string(ctx, "constructor");
    duk_dup(ctx, -3);
    duk_def_prop(ctx, -3, CDUK_BUILTIN_PROP);
    duk_dup(ctx, -1);
    duk_put_prop_string(ctx, -4, CDUK__STASH_AGGREGATE);
    duk_push_string(ctx, "prototype");
    duk_insert(ctx, -2);
    duk_def_prop(ctx, -3, CDUK_FIXED_PROP);
    cduk__def_string(ctx, "name", "AggregateError", CDUK_NAME_PROP);
    duk_put_prop_string(ctx, -2, CDUK__STASH_AGGREGATE_CONSTRUCTOR);
    duk_pop(ctx);
}

/* [] -> []: the realm's Promise machinery exists (made on first need: a script reading the
 * global `Promise` or `AggregateError`, or the host making or awaiting a promise). The globals
 * that still stand for it (lazy accessors) become the made values. */
static void cduk__ensure_promise(duk_context *ctx) {
    duk_push_global_stash(ctx);
    duk_get_prop_literal(ctx, -1, CDUK__STASH_CONSTRUCTOR);
    int made = duk_is_function(ctx, -1);
    duk_pop_2(ctx);
    if (made) {
        return;
    }
    cduk__make_promise(ctx);
    duk_push_global_object(ctx);
    duk_push_global_stash(ctx); /* [global stash] */
    static const char *const names[2] = { "Promise", "AggregateError" };
    static const char *const stash_keys[2] = { CDUK__STASH_CONSTRUCTOR, CDUK__STASH_AGGREGATE_CONSTRUCTOR };
    for (int i = 0; i < 2; i++) {
        if (cduk_is_pending_lazy(ctx, -2, names[i])) {
            duk_push_string(ctx, names[i]);
            duk_get_prop_string(ctx, -2, stash_keys[i]);
            duk_def_prop(ctx, -4, CDUK_BUILTIN_PROP);
        }
    }
    duk_pop_2(ctx);
}

void cduk_install_promise(duk_context *ctx) {
    duk_push_global_stash(ctx);
    duk_push_pointer(ctx, (void *) ctx);
    duk_put_prop_string(ctx, -2, CDUK__STASH_THREAD);
    duk_pop(ctx);
}

void cduk_install_promise_globals(duk_context *ctx, duk_idx_t owner, int unused) {
    (void) owner;
    (void) unused;
    cduk__ensure_promise(ctx);
}

/* ---- Running jobs ------------------------------------------------------------------------- */

/* One job on its realm's thread: [kind a b c] -> []. */
static duk_ret_t cduk__run_job(duk_context *ctx, void *udata) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    duk_idx_t base = duk_get_top(ctx) - 4;
    duk_idx_t a = base + 1, b = base + 2, c = base + 3;
    duk_require_stack(ctx, 12);
    switch (duk_get_int(ctx, base)) {
    case CDUK__JOB_FULFILL:
    case CDUK__JOB_REJECT: {
        /* NewPromiseReactionJob: a = handler or undefined, b = derived promise or undefined,
         * c = the argument; or a combinator's element (b its index, see cduk__add_reaction). */
        int abrupt = duk_get_int(ctx, base) == CDUK__JOB_REJECT;
        int element = duk_is_number(ctx, b);
        if (element && !duk_is_callable(ctx, a)) {
            cduk__combinator_element(ctx, a, (duk_uarridx_t) duk_get_uint(ctx, b), c, abrupt);
            return 0;
        }
        if (duk_is_callable(ctx, a)) {
            duk_dup(ctx, a);
            duk_push_undefined(ctx);
            duk_dup(ctx, c);
            abrupt = duk_pcall_method(ctx, 1) != DUK_EXEC_SUCCESS;
            if (abrupt && cduk__past_deadline(state)) {
                return duk_throw(ctx);
            }
        } else {
            duk_dup(ctx, c);
        }
        if (element || duk_is_undefined(ctx, b)) {
            /* No promise to settle (the library's own reactions): a throw is reported. */
            return abrupt ? duk_throw(ctx) : 0;
        }
        if (abrupt) {
            cduk__settle(ctx, b, -1, 1);
        } else {
            cduk__resolve(ctx, b, -1);
        }
        return 0;
    }
    case CDUK__JOB_THENABLE: {
        /* NewPromiseResolveThenableJob: a = the promise to resolve, b = the thenable, c = its then.
         * A promise of ours with its own then: the then's reaction settles `a` directly (the
         * resolving functions it would be given are never observable). */
        if (duk_get_c_function(ctx, c) == cduk__promise_then && cduk__promise_state(ctx, b) >= 0) {
            duk_push_undefined(ctx);
            cduk__perform_then(ctx, b, -1, -1, a);
            return 0;
        }
        cduk__push_resolving_record(ctx, a);
        duk_idx_t record = duk_get_top_index(ctx);
        cduk__push_resolving_functions(ctx, record);
        duk_dup(ctx, c);
        duk_dup(ctx, b);
        duk_dup(ctx, record + 1);
        duk_dup(ctx, record + 2);
        if (duk_pcall_method(ctx, 2) != DUK_EXEC_SUCCESS) {
            if (cduk__past_deadline(state)) {
                return duk_throw(ctx);
            }
            cduk__resolve_through(ctx, record, -1, 1);
        }
        return 0;
    }
    case CDUK__JOB_CALL:
        duk_dup(ctx, a);
        duk_push_undefined(ctx);
        duk_call_method(ctx, 0);
        return 0;
    default:
        return 0;
    }
}

/* [list] -> [list v0 .. v(count-1)]: the values of `count` slots from `head`, each slot emptied
 * (a taken job or event keeps nothing alive). */
static void cduk__take_slots(duk_context *ctx, duk_uarridx_t head, duk_uarridx_t count) {
    cduk_array_take_range(ctx, -1, head, count);
}

/* Takes the next job: [] -> [thread kind a b c]. */
static void cduk__take_job(duk_context *ctx, cduk_heap_state *state) {
    duk_push_heapptr(ctx, state->job_queue);
    duk_uarridx_t head = state->job_head;
    cduk__take_slots(ctx, head, CDUK__JOB_SLOTS); /* [q kind a b c thread] */
    duk_insert(ctx, -5);                           /* [q thread kind a b c] */
    state->job_head = head + CDUK__JOB_SLOTS;
    if (state->job_head == state->job_tail) {
        /* Empty: start again at slot 0 (its slots are all empty), keeping a small array's
         * storage (a chain empties the queue at every step). */
        state->job_head = state->job_tail = 0;
        if (head >= CDUK__KEPT_QUEUE_SLOTS) {
            duk_set_length(ctx, -6, 0);
        }
    } else if (state->job_head >= CDUK__KEPT_QUEUE_SLOTS && state->job_head >= state->job_tail - state->job_head) {
        /* Jobs that queue jobs keep the queue from emptying: once the taken part is large and
         * at least as long as what is left, what is left moves to the front (amortized O(1) per
         * job), so the array's storage follows the jobs waiting, not the jobs run. */
        cduk_array_shift_down(ctx, -6, state->job_head, state->job_tail);
        state->job_tail -= state->job_head;
        state->job_head = 0;
    }
    duk_remove(ctx, -6);
}

/* Drops every queued job (after a timeout: the VM must stay usable). */
static duk_ret_t cduk__clear_jobs(duk_context *ctx, void *udata) {
    cduk_heap_state *state = (cduk_heap_state *) udata;
    if (state->job_queue != NULL) {
        duk_push_heapptr(ctx, state->job_queue);
        duk_set_length(ctx, -1, 0);
        duk_pop(ctx);
    }
    state->job_head = state->job_tail = 0;
    return 0;
}

/* The next rejection event: [] -> [promise reason] and 1, or 0 with nothing pushed. */
static int cduk__take_rejection(duk_context *ctx, cduk_heap_state *state, cduk_job_report *report) {
    while (state->rejection_head != state->rejection_slots) {
        duk_push_heapptr(ctx, state->rejections);
        duk_uarridx_t head = state->rejection_head;
        cduk__take_slots(ctx, head, CDUK__EVENT_SLOTS); /* [list promise thread kind] */
        state->rejection_head = head + CDUK__EVENT_SLOTS;
        if (state->rejection_head == state->rejection_slots) {
            state->rejection_head = state->rejection_slots = 0;
            duk_set_length(ctx, -4, 0);
        }
        int kind = duk_get_int(ctx, -1);
        report->thread = duk_get_context(ctx, -2);
        duk_pop_2(ctx);
        duk_remove(ctx, -2); /* [promise] */
        int promise_state = cduk__promise_state(ctx, -1);
        if (promise_state < 0 || report->thread == NULL) {
            duk_pop(ctx);
            continue;
        }
        if (kind == CDUK__EVENT_REJECTED) {
            if (promise_state & CDUK__HANDLED) {
                duk_pop(ctx);
                continue;
            }
            cduk__set_state(ctx, -1, promise_state | CDUK__REPORTED);
            report->event = CDUK_JOBS_UNHANDLED;
        } else {
            report->event = CDUK_JOBS_HANDLED;
        }
        cduk__get_slot(ctx, -1, CDUK__SLOT_RESULT);
        return 1;
    }
    return 0;
}

/* What cduk__run_own_jobs stopped for, besides the public events: a job of another realm. */
#define CDUK__JOBS_FOREIGN 100

/* Runs, on the heap's initial thread (ctx), the jobs of its own realm, one after another: [] ->
 * [x x x a b] with report->event IDLE (all undefined) or a rejection event ([promise reason]),
 * or [thread kind a b c] with CDUK__JOBS_FOREIGN for a job of another realm, which must not run
 * inside this call: Duktape runs finalizers on this thread, and only while it is the current
 * thread or inactive. A job that throws ends the call (its error is the call's), with
 * report->event THREW (TIMEOUT when the deadline had passed: the queue is then emptied). */
static duk_ret_t cduk__run_own_jobs(duk_context *ctx, void *udata) {
    cduk_job_report *report = (cduk_job_report *) udata;
    cduk_heap_state *state = cduk__state(ctx);
    duk_require_stack(ctx, 16);
    while (state->job_head != state->job_tail) {
        cduk__take_job(ctx, state); /* [thread kind a b c] */
        duk_context *thread = duk_get_context(ctx, -5);
        report->thread = thread; /* the realm the timeout is reported to */
        if (cduk__past_deadline(state)) {
            (void) cduk__clear_jobs(ctx, state);
            report->event = CDUK_JOBS_TIMEOUT;
            duk_push_undefined(ctx); /* no script was running: the caller makes the realm's error */
            return duk_throw(ctx);
        }
        if (thread == NULL) {
            duk_pop_n(ctx, 5);
            continue;
        }
        if (thread != ctx) {
            report->event = (cduk_jobs_event) CDUK__JOBS_FOREIGN;
            return 5;
        }
        duk_idx_t base = duk_get_top(ctx) - 5;
        report->event = CDUK_JOBS_THREW; /* what a throw out of the job means */
        (void) cduk__run_job(ctx, state);
        duk_set_top(ctx, base);
        if (cduk_heap_grown(state)) {
            cduk_collect_grown(ctx);
        }
    }
    report->thread = NULL;
    report->event = CDUK_JOBS_IDLE;
    duk_push_undefined(ctx);
    duk_push_undefined(ctx);
    duk_push_undefined(ctx);
    if (!cduk__take_rejection(ctx, state, report)) {
        duk_push_undefined(ctx);
        duk_push_undefined(ctx);
    }
    return 5;
}

duk_int_t cduk_prun_jobs(duk_context *ctx, cduk_job_report *report) {
    cduk_heap_state *state = cduk__state(ctx);
    for (;;) {
        report->thread = NULL;
        report->event = CDUK_JOBS_IDLE;
        duk_int_t rc = cduk__protect(ctx, cduk__run_own_jobs, report, 0, 5);
        if (rc != DUK_EXEC_SUCCESS) {
            if (rc == DUK_EXEC_ERROR && report->event == CDUK_JOBS_THREW && cduk__past_deadline(state)) {
                report->event = CDUK_JOBS_TIMEOUT;
                if (cduk__protect(ctx, cduk__clear_jobs, state, 0, 0) != DUK_EXEC_SUCCESS) {
                    duk_pop(ctx);
                }
            }
            return rc;
        }
        if ((int) report->event != CDUK__JOBS_FOREIGN) {
            /* [x x x a b] -> [a b] */
            duk_remove(ctx, -3);
            duk_remove(ctx, -3);
            duk_remove(ctx, -3);
            return DUK_EXEC_SUCCESS;
        }
        /* [thread kind a b c]: the job runs on its realm's thread, from here, where the heap's
         * initial thread is inactive. */
        duk_context *thread = report->thread;
        if (thread == NULL || !duk_check_stack(thread, 16)) {
            duk_pop_n(ctx, 5); /* its realm's thread cannot even take its values: dropped */
            continue;
        }
        duk_xmove_top(thread, ctx, 4); /* ctx: [thread] */
        rc = cduk__protect(thread, cduk__run_job, state, 4, 0);
        if (rc == DUK_EXEC_SUCCESS || rc == CDUK_EXEC_NOSTACK) {
            duk_pop(ctx);
            if (cduk_heap_grown(state)) {
                cduk_collect_grown(ctx);
            }
            continue;
        }
        duk_xmove_top(ctx, thread, 1); /* [thread error] */
        duk_remove(ctx, -2);
        report->event = CDUK_JOBS_THREW;
        if (cduk__past_deadline(state)) {
            report->event = CDUK_JOBS_TIMEOUT;
            if (cduk__protect(ctx, cduk__clear_jobs, state, 0, 0) != DUK_EXEC_SUCCESS) {
                duk_pop(ctx);
            }
        }
        return DUK_EXEC_ERROR;
    }
}

/* ---- Entry points for Swift ----------------------------------------------------------------- */

duk_int_t cduk_pclear_jobs(duk_context *ctx) {
    return cduk__protect(ctx, cduk__clear_jobs, cduk__state(ctx), 0, 0);
}

static duk_ret_t cduk__new_promise(duk_context *ctx, void *udata) {
    (void) udata;
    cduk__ensure_promise(ctx);
    cduk__push_new_promise(ctx);
    cduk__push_resolving_record(ctx, -1);
    cduk__push_resolving_functions(ctx, -1); /* [promise record resolve reject] */
    duk_remove(ctx, -3);
    return 3;
}

duk_int_t cduk_pnew_promise(duk_context *ctx) {
    return cduk__protect(ctx, cduk__new_promise, NULL, 0, 3);
}

static duk_ret_t cduk__await(duk_context *ctx, void *udata) {
    (void) udata;
    /* [value onFulfilled onRejected] */
    duk_idx_t base = duk_get_top(ctx) - 3;
    cduk__ensure_promise(ctx);
    cduk__push_promise_resolve(ctx, base);
    duk_push_undefined(ctx);
    cduk__perform_then(ctx, -2, base + 1, base + 2, -1);
    return 0;
}

duk_int_t cduk_pawait(duk_context *ctx) {
    return cduk__protect(ctx, cduk__await, NULL, 3, 0);
}

static duk_ret_t cduk__promise_state_of(duk_context *ctx, void *udata) {
    *(int *) udata = cduk__promise_state(ctx, -1);
    return 0;
}

duk_int_t cduk_ppromise_state(duk_context *ctx, int *state) {
    *state = -1;
    return cduk__protect(ctx, cduk__promise_state_of, state, 1, 0);
}

static duk_ret_t cduk__promise_result_of(duk_context *ctx, void *udata) {
    int state = cduk__promise_state(ctx, -1);
    *(int *) udata = state;
    if (state >= 0 && (state & CDUK__STATE_MASK) != CDUK__PENDING) {
        cduk__get_slot(ctx, -1, CDUK__SLOT_RESULT);
    } else {
        duk_push_undefined(ctx);
    }
    duk_remove(ctx, -2);
    return 1;
}

duk_int_t cduk_ppromise_result(duk_context *ctx, int *state) {
    *state = -1;
    return cduk__protect(ctx, cduk__promise_result_of, state, 1, 1);
}

static duk_ret_t cduk__queue_call(duk_context *ctx, void *udata) {
    (void) udata;
    duk_idx_t fn = duk_get_top_index(ctx);
    cduk__enqueue(ctx, CDUK__JOB_CALL, fn, fn, fn);
    return 0;
}

duk_int_t cduk_pqueue_call(duk_context *ctx) {
    return cduk__protect(ctx, cduk__queue_call, NULL, 1, 0);
}

static duk_ret_t cduk__forget_realm(duk_context *ctx, void *udata) {
    (void) udata;
    duk_push_global_stash(ctx);
    duk_push_pointer(ctx, NULL);
    duk_put_prop_string(ctx, -2, CDUK__STASH_THREAD);
    duk_pop(ctx);
    cduk_heap_state *state = cduk__state(ctx);
    if (state->realm_cache != NULL) {
        /* The cache lets the realm go: emptied in place (nothing to allocate), its addresses
         * unpublished first. */
        duk_push_heapptr(ctx, state->realm_cache);
        duk_get_prop_index(ctx, -1, 0);
        int holds = duk_get_heapptr(ctx, -1) == cduk_realm_global(ctx);
        duk_pop(ctx);
        if (holds) {
            state->promise_realm = state->promise_prototype = state->promise_constructor = NULL;
            duk_set_length(ctx, -1, 0);
        }
        duk_pop(ctx);
    }
    return 0;
}

duk_int_t cduk_pforget_realm(duk_context *ctx) {
    return cduk__protect(ctx, cduk__forget_realm, NULL, 0, 0);
}
