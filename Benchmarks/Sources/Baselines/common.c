#include "Baselines.h"
#include <stdio.h>
#include <unistd.h>

size_t baseline_resident_bytes(void) {
    FILE *file = fopen("/proc/self/statm", "r");
    if (file == NULL) return 0;
    unsigned long size = 0, resident = 0;
    if (fscanf(file, "%lu %lu", &size, &resident) != 2) resident = 0;
    fclose(file);
    return (size_t) resident * (size_t) sysconf(_SC_PAGESIZE);
}
