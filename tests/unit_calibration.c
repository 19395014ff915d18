/*
 * unit_calibration.c -- the calibration file of strategy "auto"
 * (src/machine/calibration.c) and collio_fs_identify: a file written here
 * as literal JSON text (the format of docs/auto.md) reads back as the
 * values in the text; save then load keeps every value; a missing file is
 * COLLIO_ERR_IO, a corrupt or out-of-range one COLLIO_ERR_ARG, and either
 * leaves the built-in defaults in place. Without json-c the loads are
 * COLLIO_ERR_UNSUPPORTED (checked instead).
 */
#include "collio.h"
#include <mpi.h>
#include "unit_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *good =
    "{ \"format\": \"collio-calibration\", \"version\": 1,\n"
    "  \"network\": { \"intra_node\": { \"latency_s\": 2e-6, \"bandwidth_Bps\": 3e9 },\n"
    "               \"inter_node\": { \"latency_s\": 4e-5, \"bandwidth_Bps\": 1.25e7 } "
    "},\n"
    "  \"copy_Bps\": 6e9, \"piece_s\": 1.5e-8, \"cores_per_node\": 2, \"shm_window\": "
    "false,\n"
    "  \"filesystems\": [ { \"type\": \"ext4\", \"mount\": \"/\", \"source\": "
    "\"/dev/vda\",\n"
    "      \"magic\": 61267, \"write_request_s\": 3e-6, \"write_Bps\": 1.2e9,\n"
    "      \"read_request_s\": 1e-6, \"read_Bps\": 4e9, \"mpiio_write_piece_s\": 5e-6,\n"
    "      \"mpiio_read_piece_s\": 4e-6, \"mpiio_write_call_s\": 0.002,\n"
    "      \"mpiio_read_call_s\": 0.001, \"mpiio_write_byte_s\": 1.5e-9,\n"
    "      \"mpiio_read_byte_s\": 0, \"serial_write_byte_s\": 6e-10,\n"
    "      \"serial_read_byte_s\": 4.5e-10, \"multiphase_write_round_s\": 2e-4,\n"
    "      \"multiphase_read_round_s\": 1.5e-4,\n"
    "      \"calls\": { \"ranks\": 8, \"ranks_per_node\": 4,\n"
    "                 \"serial\": { \"write_s\": 1e-4, \"read_s\": 2e-4 },\n"
    "                 \"independent\": { \"write_s\": 3e-5, \"read_s\": 0 },\n"
    "                 \"multiphase\": { \"write_s\": 5e-4, \"read_s\": 6e-4 } },\n"
    "      \"interleaved\": [ { \"bytes\": 4, \"write_s\": 2e-6, \"read_s\": 5e-7 },\n"
    "                       { \"bytes\": 16384, \"write_s\": 9e-6, \"read_s\": 0 } ] },\n"
    "    { \"type\": \"fuse.glusterfs\", \"mount\": \"/mnt/pfs\", \"source\": \"h:/v\",\n"
    "      \"magic\": 1702057286, \"write_request_s\": 3e-4, \"write_Bps\": 1.1e7,\n"
    "      \"read_request_s\": 2e-4, \"read_Bps\": 1.2e7, \"mpiio_write_piece_s\": "
    "1e-4,\n"
    "      \"mpiio_read_piece_s\": 9e-5 } ] }\n";

/* 1 if fs has the term KEY with these times. */
static int term_is(const collio_fs_costs *fs, const char *key, double w, double r)
{
    const collio_cost_term *t = collio_fs_costs_term(fs, key);
    return t != NULL && t->write_s == w && t->read_s == r;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* Writes `good` to path with fs[0]'s "interleaved" value replaced by v. */
static void with_interleaved(const char *path, const char *v)
{
    const char *from = strstr(good, "\"interleaved\": ") + strlen("\"interleaved\": ");
    const char *to = strstr(from, "] },") + 1;
    char text[4096];
    snprintf(text, sizeof text, "%.*s%s%s", (int)(from - good), good, v, to);
    put(path, text);
}

/* A load that must fail with `want`, leaving the defaults. */
static void bad(const char *path, const char *text, int want, const char *what)
{
    if (text != NULL)
        put(path, text);
    collio_calibration c, d;
    memset(&c, 0x5a, sizeof c);
    collio_calibration_defaults(&d);
    int rc = collio_calibration_load(path, &c);
    CHECK(rc == want, "%s: code %d (%s), want %d", what, rc, collio_last_error(), want);
    CHECK(memcmp(&c, &d, sizeof c) == 0, "%s: the defaults in place", what);
}

/* collio_fs_is_networked against the mount table's type names and
 * statfs(2)'s magic numbers as Linux and the file systems' clients
 * define them. */
static void check_networked(void)
{
    static const struct {
        const char *type;
        unsigned long magic;
        int networked;
    } cases[] = {
        {"nfs", 0, 1},
        {"nfs4", 0, 1},
        {"lustre", 0, 1},
        {"gpfs", 0, 1},
        {"beegfs", 0, 1},
        {"ceph", 0, 1},
        {"cifs", 0, 1},
        {"fuse.glusterfs", 0x65735546UL, 1}, /* the emulated cluster's volume */
        {"fuse.ceph-fuse", 0x65735546UL, 1},
        {"ext4", 0xEF53UL, 0},
        {"xfs", 0x58465342UL, 0},
        {"tmpfs", 0x01021994UL, 0},
        {"overlay", 0x794C7630UL, 0},
        {"fuse", 0x65735546UL, 0}, /* FUSE alone: may be local */
        {"fuse.lxcfs", 0x65735546UL, 0},
        {"nfsd", 0x6E667364UL, 0}, /* the NFS server's own, not a client */
        {"unknown", 0, 0},
        {"0x6969", 0x6969UL, 1},         /* no mount table: NFS's magic */
        {"0xbd00bd0", 0x0BD00BD0UL, 1},  /* Lustre's */
        {"0xef53", 0xEF53UL, 0},         /* ext4's */
        {"0x65735546", 0x65735546UL, 0}, /* FUSE's */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        collio_fs_id id;
        memset(&id, 0, sizeof id);
        snprintf(id.type, sizeof id.type, "%s", cases[i].type);
        id.magic = cases[i].magic;
        CHECK(collio_fs_is_networked(&id) == cases[i].networked, "%s networked: want %d",
              cases[i].type, cases[i].networked);
    }
    CHECK(collio_fs_is_networked(NULL) == 0, "NULL: not networked");
    collio_fs_id proc;
    CHECK(collio_fs_identify("/proc", &proc) == COLLIO_OK
              && collio_fs_is_networked(&proc) == 0,
          "/proc (%s) is local", proc.type);
}

/* good with `from` replaced by `to` (the first occurrence), into path. */
static void put_replaced(const char *path, const char *from, const char *to)
{
    char text[4096];
    const char *at = strstr(good, from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, to,
             at + strlen(from));
    put(path, text);
}

/* Whatever is not a regular file is refused at once (IO), never read: a
 * FIFO (its open would block without a writer; the load returns, the
 * test is alarmed if it hangs), a directory, a character device. */
static void check_not_regular(const char *dir)
{
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    alarm(20); /* a hang fails the test */
    bad(fifo, NULL, COLLIO_ERR_IO, "a FIFO");
    CHECK(strstr(collio_last_error(), "FIFO") != NULL, "the reason names the FIFO: %s",
          collio_last_error());
    bad(dir, NULL, COLLIO_ERR_IO, "a directory");
    bad("/dev/zero", NULL, COLLIO_ERR_IO, "a character device");
    alarm(0);
    collio_calibration c;
    collio_calibration_defaults(&c);
    CHECK(collio_calibration_store(fifo, NULL, &c.fs[0]) == COLLIO_ERR_IO,
          "no store over a FIFO");
    struct stat st;
    CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is left alone");
    unlink(fifo);
}

/* Values of the wrong JSON type are refused (ARG) where a lenient reader
 * would coerce them: a string or a number for a boolean, a string version,
 * a fractional count, a method of another name. */
static void check_ill_typed(const char *path)
{
    static const char *const cases[][3] = {
        {"\"shm_window\": false", "\"shm_window\": \"false\"", "a string boolean"},
        {"\"shm_window\": false", "\"shm_window\": 0", "a number for a boolean"},
        {"\"version\": 1", "\"version\": \"1\"", "a string version"},
        {"\"version\": 1", "\"version\": 1.0", "a fractional version"},
        {"\"cores_per_node\": 2", "\"cores_per_node\": 2.5", "half a core"},
        {"\"cores_per_node\": 2", "\"cores_per_node\": \"2\"", "a string count"},
        {"\"ranks\": 8,", "\"ranks\": 8.5,", "a fractional rank count"},
        {"\"magic\": 61267", "\"magic\": -1", "a negative magic number"},
        {"\"magic\": 61267", "\"magic\": 61267, \"method\": \"guess\"", "a method"},
        {"\"type\": \"ext4\"", "\"type\": 4", "a number for a name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        put_replaced(path, cases[i][0], cases[i][1]);
        bad(path, NULL, COLLIO_ERR_ARG, cases[i][2]);
    }
    put_replaced(path, "\"magic\": 61267", "\"magic\": 61267, \"method\": \"quick\"");
    collio_calibration c;
    CHECK(collio_calibration_load(path, &c) == COLLIO_OK && c.fs[0].quick == 1
              && c.fs[1].quick == 0,
          "method quick read, full by default");
}

/* collio_calibration_store merges one entry into the file: the entry of
 * the same file system and rank layout replaced, another layout's or file
 * system's kept, the network constants replaced only where given, a
 * corrupt file replaced whole; collio_calibration_covers by layout. */
static void check_store(const char *dir)
{
    char path[300];
    snprintf(path, sizeof path, "%s/store/cal.json", dir);
    collio_calibration m;
    collio_calibration_defaults(&m);
    m.copy_Bps = 1.25e9;
    collio_fs_costs a = {0};
    snprintf(a.id.type, sizeof a.id.type, "ext4");
    snprintf(a.id.mount, sizeof a.id.mount, "/");
    snprintf(a.id.source, sizeof a.id.source, "/dev/x");
    a.write_request_s = a.read_request_s = 1e-6;
    a.write_Bps = a.read_Bps = a.mpiio_write_piece_s = a.mpiio_read_piece_s = 1;
    a.call_ranks = 8, a.call_ranks_per_node = 8, a.quick = 1;
    CHECK(collio_calibration_store(path, &m, &a) == COLLIO_OK,
          "store into a new file: %s", collio_last_error());
    collio_fs_costs b = a; /* another layout of the same file system */
    b.call_ranks = 4, b.call_ranks_per_node = 4, b.write_Bps = 2;
    collio_calibration other = m;
    other.copy_Bps = 7e9;
    CHECK(collio_calibration_store(path, NULL, &b) == COLLIO_OK, "store b");
    collio_fs_costs a2 = a; /* the same layout again: replaces a */
    a2.write_Bps = 3;
    CHECK(collio_calibration_store(path, NULL, &a2) == COLLIO_OK, "store a again");
    collio_calibration c;
    CHECK(collio_calibration_load(path, &c) == COLLIO_OK && c.nfs == 2, "two entries: %d",
          c.nfs);
    CHECK(c.copy_Bps == 1.25e9, "the first store's machine kept: %g", c.copy_Bps);
    int ia = collio_calibration_find_covering(&c, &a.id, 8, 8);
    int ib = collio_calibration_find_covering(&c, &a.id, 4, 4);
    CHECK(ia >= 0 && c.fs[ia].write_Bps == 3, "8 ranks: the replaced entry");
    CHECK(ib >= 0 && c.fs[ib].write_Bps == 2, "4 ranks: its own entry");
    CHECK(collio_calibration_find_covering(&c, &a.id, 16, 8) == -1,
          "16 ranks on 2 nodes: not covered by one node's");
    CHECK(collio_calibration_covers(&c.fs[ia], 8, 8)
              && !collio_calibration_covers(&c.fs[ia], 8, 4),
          "covers: the same ranks per node");
    CHECK(collio_calibration_store(path, &other, &b) == COLLIO_OK, "store a machine");
    CHECK(collio_calibration_load(path, &c) == COLLIO_OK && c.copy_Bps == 7e9
              && c.nfs == 2,
          "the machine replaced, entries kept");
    put(path, "{ corrupt");
    CHECK(collio_calibration_store(path, NULL, &a) == COLLIO_OK
              && collio_calibration_load(path, &c) == COLLIO_OK && c.nfs == 1,
          "a corrupt file replaced");
    /* another MPI library's entry covers nothing here and is kept apart
     * (MPI_Get_library_version may be called before MPI_Init) */
    char mine[64];
    int len = 0;
    static char v[16384];
    MPI_Get_library_version(v, &len);
    collio_fs_costs o = a;
    snprintf(o.mpi, sizeof o.mpi, "Some Other MPI 9.9");
    CHECK(!collio_calibration_covers(&o, 8, 8), "another MPI's entry covers nothing");
    CHECK(collio_calibration_store(path, NULL, &o) == COLLIO_OK
              && collio_calibration_load(path, &c) == COLLIO_OK && c.nfs == 2
              && strcmp(c.fs[1].mpi, o.mpi) == 0,
          "another MPI's entry stored beside this one's, its mpi kept");
    snprintf(mine, sizeof mine, "%.5s", v);
    CHECK(collio_calibration_find_covering(&c, &a.id, 8, 8) == 0,
          "this MPI's entry (%s...) still the covering one", mine);
}

/* Many processes store an entry each into one file at the same moment
 * (released together through a pipe), rounds times: every entry is in
 * the file after each round -- the lock serialises the read-merge-writes
 * (without it, concurrent merges drop entries). */
static void check_store_concurrent(const char *dir)
{
    enum { PROCS = 12, ROUNDS = 10 };
    char path[300];
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(path, sizeof path, "%s/race-%d.json", dir, r);
        int go[2];
        if (pipe(go) != 0)
            return;
        pid_t kids[PROCS];
        for (int k = 0; k < PROCS; k++) {
            kids[k] = fork();
            if (kids[k] == 0) {
                char c;
                close(go[1]);
                if (read(go[0], &c, 1) < 0) /* (EOF: all released at once) */
                    _exit(3);
                collio_fs_costs e = {0};
                snprintf(e.id.type, sizeof e.id.type, "racefs%d", k);
                e.write_request_s = e.read_request_s = 1e-6;
                e.write_Bps = e.read_Bps = e.mpiio_write_piece_s = e.mpiio_read_piece_s =
                    1;
                _exit(collio_calibration_store(path, NULL, &e) == COLLIO_OK ? 0 : 1);
            }
        }
        close(go[0]);
        close(go[1]);
        int ok = 1;
        for (int k = 0; k < PROCS; k++) {
            int st = 0;
            waitpid(kids[k], &st, 0);
            ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
        }
        collio_calibration c;
        CHECK(ok && collio_calibration_load(path, &c) == COLLIO_OK && c.nfs == PROCS,
              "round %d: %d processes stored, the file holds %d entries", r, PROCS,
              c.nfs);
    }
}

int main(void)
{
    check_networked();
    char dir[] = "/tmp/unit_calibration.XXXXXX";
    if (mkdtemp(dir) == NULL)
        return 1;
    char path[256], path2[256];
    snprintf(path, sizeof path, "%s/cal.json", dir);
    snprintf(path2, sizeof path2, "%s/sub/dir/cal.json", dir);

    collio_fs_id root, nofile;
    CHECK(collio_fs_identify("/", &root) == COLLIO_OK && root.type[0], "fs of /");
    CHECK(strcmp(root.mount, "/") == 0, "the mount point of / is /: '%s'", root.mount);
    CHECK(collio_fs_identify(path, &nofile) == COLLIO_OK, "fs of a file not made yet");
    collio_fs_id tmpd;
    collio_fs_identify(dir, &tmpd);
    CHECK(strcmp(nofile.type, tmpd.type) == 0 && strcmp(nofile.mount, tmpd.mount) == 0,
          "a new file's fs is its directory's (%s on %s)", nofile.type, nofile.mount);
    CHECK(collio_fs_identify(NULL, &root) == COLLIO_ERR_ARG, "NULL path");

    put(path, good);
    collio_calibration c;
    int rc = collio_calibration_load(path, &c);
    if (rc == COLLIO_ERR_UNSUPPORTED) {
        CHECK(c.from_file == 0, "without json-c: the defaults");
        CHECK(collio_calibration_save(path2, &c) == COLLIO_ERR_UNSUPPORTED, "no save");
        return unit_summary("unit_calibration (built without json-c)");
    }
    CHECK(rc == COLLIO_OK, "load: %s", collio_last_error());
    CHECK(c.from_file == 1, "from_file");
    CHECK(c.latency_s[0] == 2e-6 && c.bandwidth_Bps[0] == 3e9, "intra-node link");
    CHECK(c.latency_s[1] == 4e-5 && c.bandwidth_Bps[1] == 1.25e7, "inter-node link");
    CHECK(c.copy_Bps == 6e9 && c.piece_s == 1.5e-8, "memory");
    CHECK(c.cores_per_node == 2 && c.shm_window == 0, "cores, shm");
    CHECK(c.nfs == 2, "2 file systems: %d", c.nfs);
    CHECK(strcmp(c.fs[1].id.type, "fuse.glusterfs") == 0
              && strcmp(c.fs[1].id.mount, "/mnt/pfs") == 0
              && strcmp(c.fs[1].id.source, "h:/v") == 0
              && c.fs[1].id.magic == 1702057286UL,
          "fs[1] identity");
    CHECK(c.fs[0].write_request_s == 3e-6 && c.fs[0].write_Bps == 1.2e9
              && c.fs[0].read_request_s == 1e-6 && c.fs[0].read_Bps == 4e9
              && c.fs[0].mpiio_write_piece_s == 5e-6
              && c.fs[0].mpiio_read_piece_s == 4e-6,
          "fs[0] costs");
    CHECK(c.fs[0].ninterleaved == 2 && c.fs[0].interleaved_bytes[0] == 4
              && c.fs[0].interleaved_bytes[1] == 16384
              && c.fs[0].write_interleaved_s[0] == 2e-6
              && c.fs[0].write_interleaved_s[1] == 9e-6
              && c.fs[0].read_interleaved_s[0] == 5e-7
              && c.fs[0].read_interleaved_s[1] == 0,
          "fs[0] list I/O costs");
    CHECK(c.fs[1].ninterleaved == 0, "fs[1]: no list I/O costs (optional)");
    CHECK(c.fs[0].mpiio_write_call_s == 0.002 && c.fs[0].mpiio_read_call_s == 0.001,
          "fs[0] MPI-IO cost per call");
    CHECK(c.fs[1].mpiio_write_call_s == 0 && c.fs[1].mpiio_read_call_s == 0,
          "fs[1]: no MPI-IO cost per call (optional): 0");
    CHECK(c.fs[0].mpiio_write_byte_s == 1.5e-9 && c.fs[0].mpiio_read_byte_s == 0,
          "fs[0] MPI-IO cost per byte");
    CHECK(c.fs[1].mpiio_write_byte_s == 0 && c.fs[1].mpiio_read_byte_s == 0,
          "fs[1]: no MPI-IO cost per byte (optional): 0");
    /* (collio 0.2's numbers of the entry, read as the strategies' terms) */
    CHECK(term_is(&c.fs[0], "serial.byte", 6e-10, 4.5e-10),
          "fs[0] serial's cost per byte");
    CHECK(collio_fs_costs_term(&c.fs[1], "serial.byte") == NULL,
          "fs[1]: no serial cost per byte (optional): none");
    CHECK(term_is(&c.fs[0], "multiphase.round", 2e-4, 1.5e-4),
          "fs[0] multiphase's cost per pull round");
    CHECK(collio_fs_costs_term(&c.fs[1], "multiphase.round") == NULL,
          "fs[1]: no multiphase cost per round (optional): none");
    CHECK(c.fs[0].call_ranks == 8 && c.fs[0].call_ranks_per_node == 4,
          "fs[0] calls: ranks %d, per node %d", c.fs[0].call_ranks,
          c.fs[0].call_ranks_per_node);
    CHECK(term_is(&c.fs[0], "serial.call", 1e-4, 2e-4)
              && term_is(&c.fs[0], "independent.call", 3e-5, 0)
              && term_is(&c.fs[0], "multiphase.call", 5e-4, 6e-4) && c.fs[0].nterms == 5,
          "fs[0] calls' costs: the terms STRATEGY.call (%d terms)", c.fs[0].nterms);
    CHECK(collio_fs_costs_term(&c.fs[0], "two_phase.call") == NULL,
          "fs[0]: two_phase's call not given (optional): none");
    CHECK(c.fs[1].call_ranks == 0 && c.fs[1].nterms == 0,
          "fs[1]: no calls (optional): none");
    /* the terms as this collio writes them: an object "terms" */
    {
        char text[4096];
        const char *legacy = "\"serial_write_byte_s\": 6e-10,\n"
                             "      \"serial_read_byte_s\": 4.5e-10,";
        const char *now =
            "\"terms\": { \"serial.byte\": { \"write_s\": 7e-10, "
            "\"read_s\": 5e-10 }, \"x.y\": { \"write_s\": 1, \"read_s\": 2 } },";
        const char *at = strstr(good, legacy);
        CHECK(at != NULL, "the legacy pair in the test's text");
        if (at != NULL) {
            snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, now,
                     at + strlen(legacy));
            put(path, text);
            collio_calibration t;
            CHECK(collio_calibration_load(path, &t) == COLLIO_OK
                      && term_is(&t.fs[0], "serial.byte", 7e-10, 5e-10)
                      && term_is(&t.fs[0], "x.y", 1, 2),
                  "an entry's \"terms\": %s", collio_last_error());
        }
    }
    collio_fs_id want = c.fs[1].id, other = c.fs[1].id;
    CHECK(collio_calibration_find_fs(&c, &want) == 1, "find fs[1]");
    snprintf(other.mount, sizeof other.mount, "/mnt/other");
    CHECK(collio_calibration_find_fs(&c, &other) == -1, "another mount point: not found");

    /* save (into directories that do not exist yet) and load again */
    CHECK(collio_calibration_save(path2, &c) == COLLIO_OK, "save: %s",
          collio_last_error());
    collio_calibration c2;
    CHECK(collio_calibration_load(path2, &c2) == COLLIO_OK, "load the saved");
    CHECK(memcmp(&c, &c2, sizeof c) == 0, "save + load keeps every value");

    /* the default path follows COLLIO_CALIBRATION */
    char where[512];
    setenv("COLLIO_CALIBRATION", path2, 1);
    CHECK(collio_calibration_path(where, sizeof where) == COLLIO_OK
              && strcmp(where, path2) == 0,
          "COLLIO_CALIBRATION: %s", where);
    CHECK(collio_calibration_load(NULL, &c2) == COLLIO_OK && c2.from_file, "load(NULL)");
    unsetenv("COLLIO_CALIBRATION");
    setenv("XDG_CONFIG_HOME", dir, 1);
    collio_calibration_path(where, sizeof where);
    char x[300];
    snprintf(x, sizeof x, "%s/collio/calibration.json", dir);
    CHECK(strcmp(where, x) == 0, "XDG_CONFIG_HOME: %s", where);
    CHECK(collio_calibration_path(where, 4) == COLLIO_ERR_ARG, "a buffer too small");

    /* what is never a crash: the defaults, and the reason */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.json", dir);
    bad(missing, NULL, COLLIO_ERR_IO, "missing");
    bad(path, "{ \"format\": \"collio-calibration\", ", COLLIO_ERR_ARG, "truncated JSON");
    bad(path, "\x01\xff garbage", COLLIO_ERR_ARG, "not JSON");
    bad(path, "[1, 2]", COLLIO_ERR_ARG, "an array");
    bad(path, "{\"format\": \"other\", \"version\": 1}", COLLIO_ERR_ARG,
        "another format");
    char *v2 = strdup(good);
    char *at = strstr(v2, "\"version\": 1");
    at[11] = '7';
    bad(path, v2, COLLIO_ERR_ARG, "version 7");
    free(v2);
    char *neg = strdup(good);
    at = strstr(neg, "\"copy_Bps\": 6e9");
    memcpy(at, "\"copy_Bps\":-6e9", 15);
    bad(path, neg, COLLIO_ERR_ARG, "a negative bandwidth");
    free(neg);
    char *nostr = strdup(good);
    at = strstr(nostr, "\"write_Bps\"");
    memcpy(at, "\"writeXBps\"", 11);
    bad(path, nostr, COLLIO_ERR_ARG, "a missing key");
    free(nostr);

    /* the calls: an object, ranks > 0, at most ranks per node, costs >= 0;
     * the collective's cost per byte: a number >= 0 */
    const char *bad_entries[][2] = {
        {"\"ranks\": 8,", "\"ranks\": 0,"},
        {"\"ranks_per_node\": 4", "\"ranks_per_node\": 9"},
        {"\"write_s\": 5e-4", "\"write_s\":-5e-4"},
        {"\"calls\": { \"ranks\": 8,", "\"calls\": 7, \"x\": { \"ranks\": 8,"},
        {"\"mpiio_write_byte_s\": 1.5e-9", "\"mpiio_write_byte_s\": -1.5e-9"},
        {"\"mpiio_read_byte_s\": 0", "\"mpiio_read_byte_s\": \"fast\""},
        {"\"serial_write_byte_s\": 6e-10", "\"serial_write_byte_s\": -6e-10"},
        {"\"serial_read_byte_s\": 4.5e-10", "\"serial_read_byte_s\": null"},
        {"\"multiphase_write_round_s\": 2e-4", "\"multiphase_write_round_s\": -2e-4"},
        {"\"serial\": { \"write_s\": 1e-4", "\"serial\": { \"write_x\": 1e-4"}};
    for (size_t i = 0; i < sizeof bad_entries / sizeof bad_entries[0]; i++) {
        char text[4096];
        const char *from = strstr(good, bad_entries[i][0]);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(from - good), good,
                 bad_entries[i][1], from + strlen(bad_entries[i][0]));
        char what[128];
        snprintf(what, sizeof what, "a bad entry: %s", bad_entries[i][1]);
        bad(path, text, COLLIO_ERR_ARG, what);
    }

    /* the list I/O costs: sizes must increase, at most
     * COLLIO_CAL_INTERLEAVED_MAX entries, an array */
    char *order = strdup(good);
    at = strstr(order, "\"bytes\": 16384");
    memcpy(at, "\"bytes\":     2", 14);
    bad(path, order, COLLIO_ERR_ARG, "interleaved sizes that do not increase");
    free(order);
    with_interleaved(path, "7");
    bad(path, NULL, COLLIO_ERR_ARG, "interleaved not an array");
    with_interleaved(path, "[ {\"bytes\": 1, \"write_s\": 1e-6, \"read_s\": 1e-6},"
                           " {\"bytes\": 2, \"write_s\": 1e-6, \"read_s\": 1e-6},"
                           " {\"bytes\": 3, \"write_s\": 1e-6, \"read_s\": 1e-6},"
                           " {\"bytes\": 4, \"write_s\": 1e-6, \"read_s\": 1e-6},"
                           " {\"bytes\": 5, \"write_s\": 1e-6, \"read_s\": 1e-6} ]");
    bad(path, NULL, COLLIO_ERR_ARG, "more interleaved sizes than the most");
    with_interleaved(path, "[ {\"bytes\": 4, \"write_s\": -1e-6, \"read_s\": 1e-6} ]");
    bad(path, NULL, COLLIO_ERR_ARG, "a negative list I/O cost");
    with_interleaved(path, "[ {\"bytes\": 0, \"write_s\": 1e-6, \"read_s\": 1e-6} ]");
    bad(path, NULL, COLLIO_ERR_ARG, "a piece of 0 bytes");
    with_interleaved(path, "[ ]");
    collio_calibration e;
    CHECK(collio_calibration_load(path, &e) == COLLIO_OK && e.fs[0].ninterleaved == 0,
          "an empty interleaved list: none");
    CHECK(COLLIO_CAL_INTERLEAVED_MAX == 4, "the test above writes 5 sizes");

    check_not_regular(dir);
    check_ill_typed(path);
    check_store(dir);
    check_store_concurrent(dir);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return unit_summary("unit_calibration");
}
