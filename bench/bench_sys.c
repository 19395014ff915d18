/*
 * bench_sys.c -- small system helpers of collio-bench: memory figures from
 * /proc/self/status (VmHWM = peak resident set, VmRSS = current), resetting
 * the peak between runs so each run reports its own, medians, list parsing,
 * and which file system holds the output directory (/proc/self/mountinfo
 * and statfs(2)).
 */
#include "bench_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

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

/* Decodes mountinfo's octal escapes ("\040" for a blank) in place. */
static void unescape_mount_field(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7'
            && p[3] >= '0' && p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

/* 1 if mount point m contains path p ("/" contains everything). */
static int mount_contains(const char *m, const char *p)
{
    size_t n = strlen(m);
    if (strcmp(m, "/") == 0)
        return 1;
    return strncmp(m, p, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

void bench_fs_of(const char *dir, bench_fs *fs)
{
    memset(fs, 0, sizeof *fs);
    struct statfs sf;
    if (statfs(dir, &sf) == 0)
        fs->magic = (unsigned long)sf.f_type;
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(dir, real) || stat(real, &st) != 0) {
        snprintf(fs->type, sizeof fs->type, "unknown");
        return;
    }
    FILE *f = fopen("/proc/self/mountinfo", "r");
    size_t best = 0;
    int best_dev = 0;
    char line[3 * PATH_MAX];
    while (f && fgets(line, sizeof line, f)) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
        unsigned maj, min;
        char mnt[PATH_MAX], type[sizeof fs->type], source[sizeof fs->source];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %u:%u %*s %4095s", &maj, &min, mnt) != 3
            || sscanf(dash + 3, "%63s %1023s", type, source) != 2)
            continue;
        unescape_mount_field(mnt);
        unescape_mount_field(source);
        if (!mount_contains(mnt, real))
            continue;
        /* the device that holds dir first; among those the deepest mount
         * point; among equals the last (the top of stacked mounts) */
        int dev = major(st.st_dev) == maj && minor(st.st_dev) == min;
        size_t len = strlen(mnt);
        if (dev < best_dev || (dev == best_dev && len < best))
            continue;
        best_dev = dev;
        best = len;
        snprintf(fs->type, sizeof fs->type, "%s", type);
        snprintf(fs->mount, sizeof fs->mount, "%s", mnt);
        snprintf(fs->source, sizeof fs->source, "%s", source);
    }
    if (f)
        fclose(f);
    if (!fs->type[0]) /* no mount table: statfs's magic number is all we have */
        snprintf(fs->type, sizeof fs->type, "0x%lx", fs->magic);
}
