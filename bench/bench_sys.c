/*
 * bench_sys.c -- small system helpers of collio-bench: memory figures from
 * /proc/self/status (VmHWM = peak resident set, VmRSS = current), resetting
 * the peak between runs so each run reports its own, medians, list parsing,
 * and which file system holds the output directory (collio_fs_identify).
 */
#include "bench_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

double bench_vm_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1.0;
    char line[256];
    size_t klen = strlen(key);
    double v = -1.0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = strtod(line + klen + 1, NULL); /* "  1234 kB" */
            break;
        }
    }
    fclose(f);
    return v;
}

/* Writing "5" to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
 * Where that is not allowed the peak stays the process-wide one, which
 * only over-reports. */
void bench_reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return;
    fputs("5", f);
    fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_parse_i64_list(const char *s, int64_t *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || n >= max)
            return -1;
        out[n++] = (int64_t)v;
        if (*end == ',')
            end++;
        else if (*end != '\0')
            return -1;
        p = end;
    }
    return n;
}

void bench_fs_of(const char *dir, bench_fs *fs)
{
    collio_fs_identify(dir, fs);
}
