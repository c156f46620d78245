/*
 * Strings across the boundary at memory speed (StringCoding.swift is the Swift side).
 *
 * Duktape's internal form is CESU-8: UTF-8 except that a code point above U+FFFF is two 3-byte
 * surrogate encodings (ED A0-AF xx, ED B0-BF xx) instead of one 4-byte sequence. A string without
 * 4-byte sequences (Swift to JS) or without surrogate encodings (JS to Swift) is the same bytes in
 * both forms. Swift to JS, such a string is handed to the engine after one scan, written so that
 * the compiler vectorizes it; JS to Swift, the ASCII prefix is found by a scan of the same kind and
 * only the rest is validated as UTF-8 by Swift (which forbids surrogate encodings), with this
 * file's transcoder as the fallback. The transcoders copy the runs between the rare sequences
 * they rewrite with memcpy.
 */
#include "CDuktape.h"

#include <string.h>

/* The scans, written so that the compiler vectorizes them: per 256-byte block, ASCII (the common
 * case) is one OR a vector; a block that is not is looked at byte by byte (`STOP`, the byte that
 * ends the scan: a 4-byte lead, or any byte that is not ASCII). Compiled twice: for AVX2 (32-byte
 * vectors, half the instructions of the baseline's SSE2) where the processor has it, and for
 * the baseline. */
#define CDUK__SCAN_BODY(STOP) \
    enum { block = 256 }; \
    size_t index = 0; \
    for (; index + block <= length; index += block) { \
        unsigned char any = 0; \
        for (size_t offset = 0; offset < block; offset++) any |= bytes[index + offset]; \
        if (!(any & 0x80)) continue; \
        unsigned char found = 0; \
        for (size_t offset = 0; offset < block; offset++) found |= STOP(bytes[index + offset]); \
        if (found) break; \
    } \
    for (; index < length; index++) { \
        if (STOP(bytes[index])) return index; \
    } \
    return length;

#define CDUK__FOUR_BYTE_LEAD(byte) ((byte) >= 0xF0)
#define CDUK__NOT_ASCII(byte) ((byte) >= 0x80)

/* A scan's two builds, and `public`, which runs the AVX2 one where the processor has it. */
#if defined(__x86_64__) && defined(__clang__)
#define CDUK__SCANNER(public, name, STOP) \
    __attribute__((target("avx2"))) static size_t name##_avx2(const unsigned char *bytes, size_t length) { \
        CDUK__SCAN_BODY(STOP) \
    } \
    static size_t name(const unsigned char *bytes, size_t length) { CDUK__SCAN_BODY(STOP) } \
    size_t public(const unsigned char *bytes, size_t length) { \
        return __builtin_cpu_supports("avx2") ? name##_avx2(bytes, length) : name(bytes, length); \
    }
#else
#define CDUK__SCANNER(public, name, STOP) \
    static size_t name(const unsigned char *bytes, size_t length) { CDUK__SCAN_BODY(STOP) } \
    size_t public(const unsigned char *bytes, size_t length) { return name(bytes, length); }
#endif

CDUK__SCANNER(cduk_utf8_four_byte_lead, cduk__four_byte_lead, CDUK__FOUR_BYTE_LEAD)
CDUK__SCANNER(cduk_ascii_prefix, cduk__ascii_prefix, CDUK__NOT_ASCII)

size_t cduk_utf8_to_cesu8(const unsigned char *bytes, size_t length, unsigned char *out) {
    size_t written = 0;
    size_t index = 0;
    while (index < length) {
        size_t lead = index + cduk_utf8_four_byte_lead(bytes + index, length - index);
        memcpy(out + written, bytes + index, lead - index);
        written += lead - index;
        if (lead >= length) break;
        if (lead + 3 >= length) {
            /* Not from a Swift string (always valid UTF-8): copied as it is. */
            memcpy(out + written, bytes + lead, length - lead);
            written += length - lead;
            break;
        }
        unsigned long scalar = ((unsigned long) (bytes[lead] & 0x07) << 18)
            | ((unsigned long) (bytes[lead + 1] & 0x3F) << 12)
            | ((unsigned long) (bytes[lead + 2] & 0x3F) << 6)
            | (unsigned long) (bytes[lead + 3] & 0x3F);
        unsigned long offset = scalar - 0x10000;
        unsigned long units[2] = { 0xD800 | ((offset >> 10) & 0x3FF), 0xDC00 | (offset & 0x3FF) };
        for (int unit = 0; unit < 2; unit++) {
            out[written++] = (unsigned char) (0xE0 | (units[unit] >> 12));
            out[written++] = (unsigned char) (0x80 | ((units[unit] >> 6) & 0x3F));
            out[written++] = (unsigned char) (0x80 | (units[unit] & 0x3F));
        }
        index = lead + 4;
    }
    return written;
}

/* The UTF-16 code unit of a complete surrogate encoding at index (ED A0-BF 80-BF), or 0 (ED
 * 80-9F is U+D000-U+D7FF, not a surrogate). */
static unsigned cduk__surrogate_at(const unsigned char *bytes, size_t index, size_t length) {
    if (index + 2 >= length || bytes[index] != 0xED || bytes[index + 1] < 0xA0 || bytes[index + 1] > 0xBF) return 0;
    if ((bytes[index + 2] & 0xC0) != 0x80) return 0;
    return 0xD000u | ((unsigned) (bytes[index + 1] & 0x3F) << 6) | (unsigned) (bytes[index + 2] & 0x3F);
}

size_t cduk_cesu8_to_utf8(const unsigned char *bytes, size_t length, unsigned char *out) {
    size_t written = 0;
    size_t index = 0;
    while (index < length) {
        const unsigned char *found = memchr(bytes + index, 0xED, length - index);
        size_t lead = found == NULL ? length : (size_t) (found - bytes);
        memcpy(out + written, bytes + index, lead - index);
        written += lead - index;
        index = lead;
        if (found == NULL) break;
        unsigned unit = cduk__surrogate_at(bytes, lead, length);
        if (unit == 0) {
            /* ED 80-9F (U+D000-U+D7FF), or ED A0-BF without its third byte (left for the
             * caller's UTF-8 repair). */
            out[written++] = bytes[lead];
            index = lead + 1;
            continue;
        }
        unsigned low = unit >= 0xDC00 ? 0 : cduk__surrogate_at(bytes, lead + 3, length);
        if (unit < 0xDC00 && low >= 0xDC00) {
            unsigned long scalar = 0x10000ul + (((unsigned long) unit - 0xD800) << 10) + (low - 0xDC00);
            out[written++] = (unsigned char) (0xF0 | (scalar >> 18));
            out[written++] = (unsigned char) (0x80 | ((scalar >> 12) & 0x3F));
            out[written++] = (unsigned char) (0x80 | ((scalar >> 6) & 0x3F));
            out[written++] = (unsigned char) (0x80 | (scalar & 0x3F));
            index = lead + 6;
        } else {
            /* A lone surrogate: U+FFFD, as the same length (EF BF BD). */
            out[written++] = 0xEF;
            out[written++] = 0xBF;
            out[written++] = 0xBD;
            index = lead + 3;
        }
    }
    return written;
}
