#include "DuktapeBaselines.h"
#include "polyfill.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

size_t baseline_resident_bytes(void) {
    FILE *file = fopen("/proc/self/statm", "r");
    if (file == NULL) return 0;
    unsigned long size = 0, resident = 0;
    if (fscanf(file, "%lu %lu", &size, &resident) != 2) resident = 0;
    fclose(file);
    return (size_t) resident * (size_t) sysconf(_SC_PAGESIZE);
}

char *baseline_json_text(int entries, size_t *length) {
    size_t capacity = (size_t) entries * 24 + 16, used = 0;
    char *text = malloc(capacity);
    text[used++] = '{';
    for (int i = 0; i < entries; i++) {
        used += (size_t) snprintf(text + used, capacity - used, "%s\"k%d\":%d", i ? "," : "", i, i);
    }
    text[used++] = '}';
    text[used] = 0;
    *length = used;
    return text;
}

const char *baseline_prelude(void) {
    return BASELINE_PRELUDE;
}

const char *baseline_promise_scripts(void) {
    return W10_SCRIPTS;
}
