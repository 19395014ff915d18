/*
 * machine/fs_id.c -- which file system holds a path (collio_fs_identify):
 * the cost model keeps one set of file costs per file system, and the
 * bench records where its file lived. statfs(2) gives the kind (its magic
 * number); /proc/self/mountinfo gives the mount point and what is mounted
 * there, which tell two file systems of one kind apart (two ext4 disks, a
 * local ext4 and a networked volume's brick). Its type says whether the
 * file system is a network hop away (collio_fs_is_networked), which sets
 * the model's costs where no calibration measured it.
 */
#include "base/base.h"
#include "machine/machine.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

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

/* The real path of `path`, or of its directory when it does not exist
 * (a file about to be created). 0 on success. */
static int existing_real_path(const char *path, char real[PATH_MAX])
{
    if (realpath(path, real) != NULL)
        return 0;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return realpath(dir, real) != NULL ? 0 : -1;
}

int collio_fs_identify(const char *path, collio_fs_id *fs)
{
    if (path == NULL || fs == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_fs_identify: %s is NULL",
                          path == NULL ? "path" : "out");
        return COLLIO_ERR_ARG;
    }
    memset(fs, 0, sizeof *fs);
    char real[PATH_MAX];
    struct stat st;
    struct statfs sf;
    if (existing_real_path(path, real) != 0 || stat(real, &st) != 0) {
        snprintf(fs->type, sizeof fs->type, "unknown");
        return COLLIO_OK;
    }
    if (statfs(real, &sf) == 0)
        fs->magic = (unsigned long)sf.f_type;
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
        /* the device that holds the path first; among those the deepest
         * mount point; among equals the last (the top of stacked mounts) */
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
    return COLLIO_OK;
}

/* File systems whose data lives on other hosts, by their mount table
 * type: each request is a round trip over the network (an RPC to a
 * server), not a page-cache copy. Exact types, then prefixes ("fuse."
 * alone is not one: FUSE serves local file systems too). */
static const char *const networked_types[] = {
    "nfs",    "nfs4",  "cifs", "smb3",      "smbfs",    "lustre", "gpfs",
    "beegfs", "ceph",  "afs",  "pvfs2",     "orangefs", "panfs",  "wekafs",
    "9p",     "ocfs2", "gfs2", "glusterfs", "daos"};
static const char *const networked_prefixes[] = {
    "fuse.glusterfs", "fuse.ceph", "fuse.dfuse",   "fuse.daos",
    "fuse.sshfs",     "fuse.s3fs", "fuse.gcsfuse", "fuse.juicefs"};
/* statfs(2) magic numbers of the same, for a path with no mount table
 * entry (type "0x<magic>"). */
static const unsigned long networked_magics[] = {
    0x6969UL,     /* NFS */
    0xFF534D42UL, /* CIFS */
    0xFE534D42UL, /* SMB2 */
    0x0BD00BD0UL, /* Lustre */
    0x47504653UL, /* GPFS */
    0x19830326UL, /* BeeGFS */
    0x00C36400UL, /* Ceph */
    0x5346414FUL, /* AFS */
    0x20030528UL, /* PVFS2 / OrangeFS */
    0xAAD7AAEAUL, /* PanFS */
    0x01021997UL, /* 9p */
    0x7461636FUL, /* OCFS2 */
    0x01161970UL, /* GFS2 */
};

int collio_fs_is_networked(const collio_fs_id *id)
{
    if (id == NULL)
        return 0;
    for (size_t i = 0; i < sizeof networked_types / sizeof networked_types[0]; i++)
        if (strcmp(id->type, networked_types[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof networked_prefixes / sizeof networked_prefixes[0]; i++)
        if (strncmp(id->type, networked_prefixes[i], strlen(networked_prefixes[i])) == 0)
            return 1;
    if (strncmp(id->type, "0x", 2) == 0) /* no mount table: the magic alone */
        for (size_t i = 0; i < sizeof networked_magics / sizeof networked_magics[0]; i++)
            if (id->magic == networked_magics[i])
                return 1;
    return 0;
}

uint64_t collio__fs_key(const collio_fs_id *id)
{
    /* FNV-1a over "type\0mount\0source\0" */
    uint64_t h = 0xcbf29ce484222325ULL;
    const char *parts[3] = {id->type, id->mount, id->source};
    for (int k = 0; k < 3; k++) {
        for (const char *c = parts[k];; c++) {
            h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
            if (*c == '\0')
                break;
        }
    }
    return h != 0 ? h : 1;
}
