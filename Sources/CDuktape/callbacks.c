/*
 * A queue of callbacks kept in the heap: the event loop's immediates (DuktapeRuntime).
 *
 * `setImmediate` and `clearImmediate` are C functions here, and the loop's check phase takes
 * the entries from C too: queueing and running an immediate makes no JSValue and takes no lock
 * of the loop's. The entries live in one array in the heap stash (so the VM's memory limit
 * bounds them): entry k is the slots 3k (its id), 3k + 1 (the callback) and 3k + 2 (its extra
 * arguments as an array, or undefined). A run or cleared entry has an undefined callback. The
 * array exists while entries are pending; the runner drops it once the head reaches the tail.
 *
 * The queue's state is a C struct in memory the Swift object that made it owns (freed with it);
 * the functions hold that object as their box, so the struct lives as long as either does. Its
 * counters are read under the VM lock, except `live` and `closed`, which the loop reads from
 * its own thread without it (atomics).
 */
#include "cduk_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cduk_callback_queue {
    _Atomic long live;  /* entries queued, not run and not cleared */
    _Atomic int closed; /* CDUK_QUEUE_OPEN, _STOPPED (setImmediate returns 0), _RELEASED (undefined) */
    cduk_queue_queued_fn queued;
    cduk_queue_id_in_use_fn timer_id_in_use;
    void *info;
    /* Under the VM lock: */
    void *array; /* heap pointer of the entries' array (held by the heap stash), or NULL */
    duk_uarridx_t head, tail;
    duk_uarridx_t end; /* where the running check phase ends */
    int32_t next_id;
    int ids_wrapped;
    char key[48]; /* the stash key: a hidden symbol unique to this queue */
};

#define CDUK__QUEUE_KEY DUK_HIDDEN_SYMBOL("DuktapeCoreCallbackQueue")
#define CDUK__LARGEST_ID 2147483647

size_t cduk_callback_queue_size(void) {
    return sizeof(cduk_callback_queue);
}

cduk_callback_queue *cduk_callback_queue_init(void *storage) {
    cduk_callback_queue *queue = (cduk_callback_queue *) storage;
    memset(queue, 0, sizeof(cduk_callback_queue));
    atomic_init(&queue->live, 0);
    atomic_init(&queue->closed, CDUK_QUEUE_OPEN);
    queue->next_id = 1;
    snprintf(queue->key, sizeof(queue->key), "%sDuktapeCoreCallbackQueue:%p", "\xFF", (void *) queue);
    return queue;
}

void cduk_callback_queue_set_hooks(cduk_callback_queue *queue, cduk_queue_queued_fn queued,
                                   cduk_queue_id_in_use_fn timer_id_in_use, void *info) {
    queue->queued = queued;
    queue->timer_id_in_use = timer_id_in_use;
    queue->info = info;
}

long cduk_callback_queue_live(const cduk_callback_queue *queue) {
    /* A stop from another thread zeroes the count while the runner may still take one entry,
     * or a setImmediate that passed the closed check may still count its own: closed is none. */
    cduk_callback_queue *mutable_queue = (cduk_callback_queue *) queue;
    long live = atomic_load(&mutable_queue->live);
    return live > 0 && atomic_load(&mutable_queue->closed) == CDUK_QUEUE_OPEN ? live : 0;
}

void cduk_callback_queue_close(cduk_callback_queue *queue, int closed) {
    /* The entries stay in the heap until the functions or the loop next touch the queue (they
     * cannot be reached without the VM lock); they no longer count. */
    atomic_store(&queue->closed, closed);
    atomic_store(&queue->live, 0);
}

int cduk_callback_queue_closed(const cduk_callback_queue *queue) {
    return atomic_load(&((cduk_callback_queue *) queue)->closed);
}

int32_t cduk_callback_queue_next_id(const cduk_callback_queue *queue) {
    return queue->next_id;
}

int cduk_callback_queue_ids_wrapped(const cduk_callback_queue *queue) {
    return queue->ids_wrapped;
}

void cduk_callback_queue_set_next_id(cduk_callback_queue *queue, int32_t next_id) {
    queue->next_id = next_id;
}

/* [..] -> [.. array] when the queue has its array (1), else [..] (0). Never throws: the caller
 * reserved one slot. */
static int cduk__push_array(duk_context *ctx, cduk_callback_queue *queue) {
    if (queue->array == NULL) {
        return 0;
    }
    duk_push_heapptr(ctx, queue->array);
    return 1;
}

/* Drops the array (its stash slot): every entry has run or was cleared, or the queue closed. */
static void cduk__drop_array(duk_context *ctx, cduk_callback_queue *queue) {
    if (queue->array == NULL) {
        return;
    }
    /* Forgotten first: freeing the entries left (a closed queue's) can run finalizers, and one
     * that queues an immediate must start a new array, not write to this one. */
    queue->array = NULL;
    queue->head = 0;
    queue->tail = 0;
    queue->end = 0; /* entries queued from here on are the next phase's */
    duk_push_heap_stash(ctx);
    duk_del_prop_string(ctx, -1, queue->key);
    duk_pop(ctx);
}

/* The position of the pending entry with `id` in [head, tail), or -1. Ids increase along the
 * queue until the counter wraps (binary search), then the search is linear. [.. array] */
static long cduk__position(duk_context *ctx, cduk_callback_queue *queue, int32_t id) {
    duk_uarridx_t low = queue->head, high = queue->tail;
    if (!queue->ids_wrapped) {
        while (low < high) {
            duk_uarridx_t middle = low + (high - low) / 2;
            duk_get_prop_index(ctx, -1, 3 * middle);
            int32_t found = duk_get_int(ctx, -1);
            duk_pop(ctx);
            if (found < id) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        high = low < queue->tail ? low + 1 : low;
    }
    for (duk_uarridx_t at = low; at < high; at++) {
        duk_get_prop_index(ctx, -1, 3 * at);
        int32_t found = duk_get_int(ctx, -1);
        duk_get_prop_index(ctx, -2, 3 * at + 1);
        int pending = !duk_is_undefined(ctx, -1);
        duk_pop_2(ctx);
        if (found == id && pending) {
            return (long) at;
        }
    }
    return -1;
}

int cduk_callback_queue_contains(duk_context *ctx, cduk_callback_queue *queue, int32_t id) {
    if (atomic_load(&queue->closed) != CDUK_QUEUE_OPEN || !duk_check_stack(ctx, 3) || !cduk__push_array(ctx, queue)) {
        return 0;
    }
    long position = cduk__position(ctx, queue, id);
    duk_pop(ctx);
    return position >= 0;
}

int32_t cduk_callback_queue_take_id(duk_context *_Nullable ctx, cduk_callback_queue *queue, cduk_queue_id_in_use_fn _Nullable timer_id_in_use,
                                    void *_Nullable info) {
    for (;;) {
        int32_t id = queue->next_id > 0 ? queue->next_id : 1;
        if (id >= CDUK__LARGEST_ID) {
            queue->ids_wrapped = 1;
        }
        queue->next_id = id >= CDUK__LARGEST_ID ? 1 : id + 1;
        /* Until the counter first wraps, every id is fresh. */
        if (!queue->ids_wrapped ||
            ((timer_id_in_use == NULL || !timer_id_in_use(info, id)) && (ctx == NULL || !cduk_callback_queue_contains(ctx, queue, id)))) {
            return id;
        }
    }
}

typedef struct {
    cduk_callback_queue *queue;
    int32_t id;
    duk_idx_t count; /* the callback and its arguments, at 0..count-1 */
} cduk__enqueue_args;

/* [callback args...] -> [callback args... id]: writes the entry (the callback checked by the
 * caller). Run protected, with finalizers held (cduk__enqueue). */
static duk_ret_t cduk__enqueue_held(duk_context *ctx, void *udata) {
    cduk__enqueue_args *args = (cduk__enqueue_args *) udata;
    cduk_callback_queue *queue = args->queue;
    if (queue->array == NULL) {
        duk_push_heap_stash(ctx);
        duk_push_bare_array(ctx);
        void *array = duk_get_heapptr(ctx, -1);
        duk_put_prop_string(ctx, -2, queue->key); /* may throw (memory): the queue is unchanged */
        duk_pop(ctx);
        queue->array = array;
        queue->head = 0;
        queue->tail = 0;
    }
    duk_push_heapptr(ctx, queue->array);
    if (queue->head >= 1024 && queue->head * 2 >= queue->tail) {
        /* Immediates that queue immediates: the array would grow for as long as they do. */
        cduk_array_shift_down(ctx, -1, 3 * queue->head, 3 * queue->tail);
        queue->tail -= queue->head;
        queue->end = queue->end > queue->head ? queue->end - queue->head : 0;
        queue->head = 0;
    }
    duk_push_int(ctx, args->id);
    duk_dup(ctx, 0);
    if (args->count > 1) {
        duk_push_bare_array(ctx);
        duk_idx_t list = duk_get_top_index(ctx);
        for (duk_idx_t i = 1; i < args->count; i++) {
            duk_dup(ctx, i);
        }
        cduk_array_put_range(ctx, list, 0, (duk_uint32_t) (args->count - 1));
    } else {
        duk_push_undefined(ctx);
    }
    cduk_reserve_array(ctx, -4, 3 * queue->tail + 3); /* doubling: may throw (memory), nothing queued */
    cduk_array_put_range(ctx, -4, 3 * queue->tail, 3);
    queue->tail++;
    duk_pop(ctx);
    duk_push_int(ctx, args->id);
    return 1;
}

/* [callback args...] -> [id]: queues the entry. Finalizers are held meanwhile: an allocation
 * here can collect garbage, and a finalizer that queued an immediate in the middle would make a
 * second array or write where this entry goes. The writing is a protected call, so that an error
 * (memory) lowers the hold before it goes on to the script. */
static duk_ret_t cduk__enqueue(duk_context *ctx, cduk_callback_queue *queue, int32_t id) {
    cduk__enqueue_args args = { queue, id, duk_get_top(ctx) };
    cduk_finalizers_hold(ctx);
    duk_int_t status = cduk_safe_call_keeping_holds(ctx, cduk__enqueue_held, &args, 0, 1);
    long before = status == DUK_EXEC_SUCCESS ? atomic_fetch_add(&queue->live, 1) : 1;
    cduk_finalizers_release(ctx); /* the finalizers that waited run now */
    if (status != DUK_EXEC_SUCCESS) {
        return duk_throw(ctx);
    }
    if (before == 0 && queue->queued != NULL) {
        queue->queued(queue->info);
    }
    return 1;
}

/* The queue of the function being called (its own hidden slot), or NULL. */
static cduk_callback_queue *cduk__callee_queue(duk_context *ctx) {
    duk_push_current_function(ctx);
    cduk_get_own_hidden(ctx, -1, CDUK__QUEUE_KEY);
    cduk_callback_queue *queue = (cduk_callback_queue *) duk_get_pointer(ctx, -1);
    duk_pop_2(ctx);
    return cduk_callee_box(ctx) == NULL ? NULL : queue; /* the box keeps the struct alive */
}

/* setImmediate(callback, ...arguments): the id, 0 when the loop stopped, undefined when it was
 * released (the callback is checked first in every case). */
static duk_ret_t cduk__set_immediate(duk_context *ctx) {
    if (duk_is_constructor_call(ctx)) {
        return cduk_type_error(ctx, "setImmediate is not a constructor");
    }
    cduk_callback_queue *queue = cduk__callee_queue(ctx);
    if (!duk_is_function(ctx, 0)) {
        return cduk_type_error(ctx, "setImmediate: the callback is %s",
                               duk_is_string(ctx, 0) ? "a string (strings are not evaluated)" : "not a function");
    }
    int closed = queue == NULL ? CDUK_QUEUE_RELEASED : atomic_load(&queue->closed);
    if (closed != CDUK_QUEUE_OPEN) {
        if (closed == CDUK_QUEUE_RELEASED) return 0;
        duk_push_int(ctx, 0);
        return 1;
    }
    duk_require_stack(ctx, duk_get_top(ctx) + 4); /* the arguments are copied through the stack */
    int32_t id = cduk_callback_queue_take_id(ctx, queue, queue->timer_id_in_use, queue->info);
    return cduk__enqueue(ctx, queue, id);
}

/* WebIDL's conversion to `long` of a handle: ToNumber, truncation, modulo 2^32 into int32. */
static int32_t cduk__webidl_long(double number) {
    if (!isfinite(number)) {
        return 0;
    }
    double value = fmod(trunc(number), 4294967296.0);
    if (value < 0) value += 4294967296.0;
    if (value >= 2147483648.0) value -= 4294967296.0;
    return (int32_t) value;
}

/* clearImmediate(id): an unknown, finished or non-numeric id does nothing. */
static duk_ret_t cduk__clear_immediate(duk_context *ctx) {
    if (duk_is_constructor_call(ctx)) {
        return cduk_type_error(ctx, "clearImmediate is not a constructor");
    }
    cduk_callback_queue *queue = cduk__callee_queue(ctx);
    duk_int_t type = duk_get_type(ctx, 0);
    if (type == DUK_TYPE_UNDEFINED || type == DUK_TYPE_NULL || type == DUK_TYPE_NONE ||
        (type == DUK_TYPE_STRING && duk_is_symbol(ctx, 0))) {
        return 0;
    }
    int32_t id = cduk__webidl_long(duk_to_number(ctx, 0)); /* a valueOf that throws throws to the script */
    if (queue == NULL || atomic_load(&queue->closed) != CDUK_QUEUE_OPEN || id <= 0 || !cduk__push_array(ctx, queue)) {
        return 0;
    }
    duk_require_stack(ctx, 3);
    long position = cduk__position(ctx, queue, id);
    if (position >= 0) {
        /* Both slots written before the callback and arguments are released (a finalizer that
         * runs then may queue immediates, which can move the entries). */
        atomic_fetch_sub(&queue->live, 1);
        duk_push_undefined(ctx);
        duk_push_undefined(ctx);
        cduk_array_put_range(ctx, -3, 3 * (duk_uarridx_t) position + 1, 2);
        /* Nothing pending (a finalizer run just now may have queued one): the cleared entries
         * go, as they would when a check phase passed them. */
        if (atomic_load(&queue->live) <= 0) {
            cduk__drop_array(ctx, queue);
        }
    }
    return 0;
}

typedef struct {
    cduk_callback_queue *queue;
} cduk__functions_args;

static void cduk__push_queue_function(duk_context *ctx, cduk_callback_queue *queue, duk_c_function native, duk_idx_t nargs,
                                      const char *name) {
    duk_push_c_function(ctx, native, nargs);
    duk_push_string(ctx, "name");
    duk_push_string(ctx, name);
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE | DUK_DEFPROP_SET_CONFIGURABLE);
    duk_push_string(ctx, "length");
    duk_push_int(ctx, 1);
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE | DUK_DEFPROP_SET_CONFIGURABLE);
    duk_push_literal(ctx, CDUK__QUEUE_KEY);
    duk_push_pointer(ctx, queue);
    duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE);
}

static duk_ret_t cduk__push_queue_functions(duk_context *ctx, void *udata) {
    cduk__functions_args *args = (cduk__functions_args *) udata;
    cduk__push_queue_function(ctx, args->queue, cduk__set_immediate, DUK_VARARGS, "setImmediate");
    cduk__push_queue_function(ctx, args->queue, cduk__clear_immediate, 1, "clearImmediate");
    return 2;
}

duk_int_t cduk_ppush_callback_queue_functions(duk_context *ctx, cduk_callback_queue *queue) {
    cduk__functions_args args = { queue };
    return cduk__protect(ctx, cduk__push_queue_functions, &args, 0, 2);
}

duk_uarridx_t cduk_callback_queue_stored(const cduk_callback_queue *queue) {
    return queue->tail;
}

typedef struct {
    cduk_callback_queue *queue;
    int begin;
    int ran;
} cduk__run_args;

/* [] -> [result]: takes the next pending entry before the phase's end (set first when `begin`)
 * and calls it (`this` the global object); ran = 0 and [undefined] when there is none. */
static duk_ret_t cduk__run_next(duk_context *ctx, void *udata) {
    cduk__run_args *args = (cduk__run_args *) udata;
    cduk_callback_queue *queue = args->queue;
    if (args->begin) {
        queue->end = queue->tail; /* the phase runs the entries queued so far */
    }
    if (!cduk__push_array(ctx, queue)) {
        duk_push_undefined(ctx);
        return 1;
    }
    while (queue->head < queue->end && queue->head < queue->tail) {
        cduk_array_take_range(ctx, -1, 3 * queue->head, 3); /* [array id callback arguments] */
        queue->head++;
        if (duk_is_undefined(ctx, -2)) { /* cleared */
            duk_pop_3(ctx);
            continue;
        }
        atomic_fetch_sub(&queue->live, 1);
        args->ran = 1;
        duk_idx_t count = duk_is_array(ctx, -1) ? (duk_idx_t) duk_get_length(ctx, -1) : 0;
        duk_require_stack(ctx, count + 1);
        duk_push_global_object(ctx);
        duk_swap_top(ctx, -2);
        if (count > 0) {
            cduk_array_take_range(ctx, -1, 0, (duk_uint32_t) count);
        }
        duk_remove(ctx, -1 - count); /* [array id callback global args...] */
        if (queue->head == queue->tail) {
            cduk__drop_array(ctx, queue);
        }
        duk_remove(ctx, -3 - count); /* the id */
        duk_remove(ctx, -3 - count); /* the array: [callback global args...] */
        duk_call_method(ctx, count);
        return 1;
    }
    duk_pop(ctx);
    if (queue->head == queue->tail) {
        cduk__drop_array(ctx, queue);
    }
    duk_push_undefined(ctx);
    return 1;
}

duk_int_t cduk_callback_queue_run_next(duk_context *ctx, cduk_callback_queue *queue, int begin, int *ran) {
    cduk__run_args args = { queue, begin, 0 };
    duk_int_t status = cduk__protect(ctx, cduk__run_next, &args, 0, 1);
    *ran = args.ran;
    return status;
}

void cduk_callback_queue_discard(duk_context *ctx, cduk_callback_queue *queue) {
    if (duk_check_stack(ctx, 2)) {
        cduk__drop_array(ctx, queue);
    }
}
