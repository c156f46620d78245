/* The system's zlib (`zlib1g-dev`), for DuktapeWeb's inflating of gzip and deflate bodies under
 * the transfer's flow control. Why the wrappers: zlib's init functions are macros, which Swift
 * cannot call. */
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/* A gzip or zlib stream, told apart by its header (windowBits 15, +32 for detection). */
static inline int czlib_inflate_init(z_streamp stream) {
    return inflateInit2(stream, 15 + 32);
}

/* A raw deflate stream, without a zlib header (what some servers send as `deflate`). */
static inline int czlib_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -15);
}

/* A gzip stream (windowBits 15, +16 for the gzip wrapper). */
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/* A zlib stream (HTTP's `deflate`). */
static inline int czlib_deflate_init_zlib(z_streamp stream, int level) {
    return deflateInit(stream, level);
}

/* A raw deflate stream (no header: what some servers send as `deflate`). */
static inline int czlib_deflate_init_raw(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

/* permessage-deflate (RFC 7692): raw deflate with the window the peers agreed on (9–15), and a
 * hash table of 2^(5+7) entries (memLevel 5, as Python's websockets uses) rather than zlib's
 * default 2^15: 112 KiB less per connection that compresses, and about 5 % less time for a
 * 64 KiB message, for output a few percent larger. */
static inline int czlib_deflate_init_raw_window(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, -windowBits, 5, Z_DEFAULT_STRATEGY);
}

#endif
