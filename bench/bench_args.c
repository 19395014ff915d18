/*
 * bench_args.c -- collio-bench's command line: defaults, parsing, usage.
 * Local (every rank parses the same argv); no MPI calls here.
 */
#include "bench_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void collio_bench_config_init(collio_bench_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->workload = COLLIO_BENCH_VECTOR;
    cfg->nx = 1 << 20;
    cfg->bx[0] = 1;
    cfg->nbx = 1;
    cfg->hole_every = 4;
    cfg->reps = 3;
    cfg->warmup = 1;
    cfg->do_write = 1;
    cfg->esize = 4;
    strcpy(cfg->dir, ".");
    cfg->verify = 1;
    cfg->backend = COLLIO_BACKEND_POSIX;
    cfg->progress = 1;
    cfg->table_out = stdout;
}

int collio_bench_usage(FILE *out)
{
    fprintf(out, "usage: collio-bench vector --nx N --bx B[,B...] [options]\n"
                 "       collio-bench array --shape SL1|SL2|SL3|X,Y,Z,L,PH [options]\n"
                 "       collio-bench small [--sizes S[,S...]] [options]\n"
                 "       collio-bench sparse --nx N --bx B[,B...] [--hole-every K]\n"
                 "                    [options]\n"
                 "       collio-bench mesh --mesh FILE.msh [--load L[,L...]]\n"
                 "                    [--replicas P[,P...]] [--partition FILE]\n"
                 "                    [--order gmsh|rcm] [options]\n"
                 "       collio-bench calibrate [--dir DIR] [--out FILE] [--mb M]\n"
                 "                    [--pieces N] [--quiet]   (the constants of\n"
                 "                    strategy auto's cost model; calibrate --help)\n"
                 "       collio-bench --options-markdown   (the tables of\n"
                 "                    docs/options.md; no MPI needed)\n"
                 "\n"
                 "workloads:\n"
                 "  vector  nx elements block-cyclic over the ranks with block bx\n"
                 "          (seed 004); one case per bx\n"
                 "  array   STEM-II SL(x,y,z,l,ph), Fortran order, BLOCK over y\n"
                 "          (seed 001); --shape may repeat or list names: SL1,SL3\n"
                 "  small   each rank one contiguous piece of S bytes, in rank\n"
                 "          order (seed 002); one case per --sizes value, with K\n"
                 "          or M suffixes (default 1K,4K,16K,64K,256K,1M)\n"
                 "  mesh    a field on the nodes of a gmsh mesh (seed 003): P\n"
                 "          METIS parts (or --partition FILE, METIS .npart\n"
                 "          format), halo nodes replicated; node tag t is file\n"
                 "          element t-1, --load float64 values per node (one\n"
                 "          case per load, default 1); --order rcm renumbers\n"
                 "          the nodes by reverse Cuthill-McKee first; one\n"
                 "          variant per strategy and --replicas policy (owner,\n"
                 "          idg, random, first, domain, auto; default auto)\n"
                 "  sparse  the vector with holes, as a dataset among others:\n"
                 "          the file cut into blocks of bx, every K-th one a\n"
                 "          hole no rank holds (--hole-every K, default 4:\n"
                 "          blocks 3, 7, 11, ...), the others dealt round-robin\n"
                 "          to the ranks; nx elements of data (the file spans\n"
                 "          about nx*K/(K-1)); collio_layout_extents; verified:\n"
                 "          the pattern where held, zero bytes in the holes;\n"
                 "          one case per bx\n"
                 "options:\n"
                 "  --strategies s[,s...]  strategies to compare (default: all)\n"
                 "  --reps R               timed runs per case and strategy (3); each\n"
                 "                         rep after the first runs the variants in a\n"
                 "                         shuffled order (the same on every rank)\n"
                 "  --warmup W             calls per case and strategy before the\n"
                 "                         reps, not in the medians (1): a plan's\n"
                 "                         first call makes its buffers; its time\n"
                 "                         is the CSV's warmup_s\n"
                 "  --max-time S           stop a strategy's reps in a case once its\n"
                 "                         runs took S seconds (at least 1 rep; 0: off)\n"
                 "  --ops write[,read]     operations to time (write)\n"
                 "  --esize BYTES          element size (4, i.e. float32)\n"
                 "  --dir DIR              where the files go (.); removed after\n"
                 "  --csv FILE             one row per run\n"
                 "  --no-verify            skip the byte-for-byte checks\n"
                 "  --h5                   keep the last write of each case and\n"
                 "                         canonical variant as DIR/collio-bench-\n"
                 "                         CASE-vN.raw with an HDF5 description\n"
                 "                         beside it (.h5; needs collio built with\n"
                 "                         HDF5)\n"
                 "  --backend posix|mpiio  file backend (posix)\n"
                 "  --quiet                no progress lines on stderr\n"
                 "  --settle               sync() on every rank before each timed\n"
                 "                         call, outside its time: no earlier run's\n"
                 "                         page-cache writeback overlaps it\n"
                 "Run it through scripts/mpirun N. Exit status: 0 ok, 1 a run failed\n"
                 "or did not verify, 2 usage error.\n\n");
    return bench_usage_options(out);
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* Calls take(item, i, cfg) for each item of a comma list, i = 0, 1, ...;
 * returns the number of items, or -1 if take refused one (returned
 * nonzero), the list is empty or longer than COLLIO_BENCH_MAX_LIST. */
typedef int (*item_fn)(const char *item, int i, collio_bench_config *cfg);

static int each_item(const char *arg, item_fn take, collio_bench_config *cfg)
{
    char buf[COLLIO_BENCH_PATH_LEN];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    int n = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n >= COLLIO_BENCH_MAX_LIST || take(t, n, cfg) != 0)
            return -1;
        n++;
    }
    return n > 0 ? n : -1;
}

/* --strategies s[,s...]: names (unknown ones are reported by the run) */
static int take_strategy(const char *t, int i, collio_bench_config *cfg)
{
    if (strlen(t) >= COLLIO_BENCH_NAME_LEN)
        return -1;
    strcpy(cfg->strategies[i], t);
    return 0;
}

/* --ops write[,read] */
static int take_op(const char *t, int i, collio_bench_config *cfg)
{
    (void)i;
    int *flag = strcmp(t, "write") == 0  ? &cfg->do_write
                : strcmp(t, "read") == 0 ? &cfg->do_read
                                         : NULL;
    if (flag == NULL)
        return -1;
    *flag = 1;
    return 0;
}

/* A comma list into cfg with take; *count gets the items (0 on error). */
static int parse_list(const char *arg, item_fn take, collio_bench_config *cfg, int *count)
{
    int n = each_item(arg, take, cfg);
    *count = n > 0 ? n : 0;
    return n > 0 ? 0 : -1;
}

int collio_bench_parse(int argc, char **argv, collio_bench_config *cfg, FILE *out,
                       char *err, size_t errlen)
{
    if (argc < 2) {
        snprintf(err, errlen, "missing workload (vector, array, small, mesh or sparse)");
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        if (out)
            collio_bench_usage(out);
        return 1;
    }
    if (strcmp(argv[1], "--options-markdown") == 0) {
        if (out)
            collio_bench_options_markdown(out);
        return 1;
    }
    if (bench_workload_named(argv[1], &cfg->workload) == NULL) {
        snprintf(err, errlen,
                 "unknown workload '%s' (vector, array, small, mesh or sparse)", argv[1]);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        const char *a = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t v, list[COLLIO_BENCH_MAX_LIST];
        int n, takes = 1;
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            if (out)
                collio_bench_usage(out);
            return 1;
        } else if (strcmp(o, "--no-verify") == 0) {
            cfg->verify = 0;
            takes = 0;
        } else if (strcmp(o, "--h5") == 0) {
            cfg->h5 = 1;
            takes = 0;
        } else if (strcmp(o, "--destroy-input") == 0) {
            cfg->destroy_input = 1;
            takes = 0;
        } else if (strcmp(o, "--quiet") == 0) {
            cfg->progress = 0;
            takes = 0;
        } else if (strcmp(o, "--settle") == 0) {
            cfg->settle = 1;
            takes = 0;
        } else if (!a) {
            snprintf(err, errlen, "%s needs a value", o);
            return 2;
        } else if (strcmp(o, "--hints") == 0) {
            if (bench_parse_hints(a, cfg, err, errlen))
                return 2;
        } else if ((n = bench_parse_option_flag(o, a, cfg, err, errlen)) != 1) {
            if (n == 2)
                return 2; /* a plan option (--KEY or an alias): err names it */
        } else if (strcmp(o, "--nx") == 0) {
            if (parse_i64(a, &cfg->nx) || cfg->nx < 0)
                goto bad;
        } else if (strcmp(o, "--bx") == 0) {
            if ((n = bench_parse_i64_list(a, cfg->bx, COLLIO_BENCH_MAX_LIST)) < 1)
                goto bad;
            cfg->nbx = n;
        } else if (strcmp(o, "--hole-every") == 0) {
            if (parse_i64(a, &cfg->hole_every) || cfg->hole_every < 2)
                goto bad;
        } else if (strcmp(o, "--shape") == 0) {
            if (bench_array_parse_shapes(a, cfg, err, errlen))
                return 2;
        } else if (strcmp(o, "--sizes") == 0) {
            if (bench_small_parse_sizes(a, cfg, err, errlen))
                return 2;
        } else if (strcmp(o, "--mesh") == 0 || strcmp(o, "--partition") == 0) {
            char *dst = strcmp(o, "--mesh") == 0 ? cfg->mesh : cfg->partition;
            if (strlen(a) >= COLLIO_BENCH_PATH_LEN)
                goto bad;
            strcpy(dst, a);
        } else if (strcmp(o, "--order") == 0) {
            if (strcmp(a, "rcm") != 0 && strcmp(a, "gmsh") != 0)
                goto bad;
            cfg->order_rcm = strcmp(a, "rcm") == 0;
        } else if (strcmp(o, "--load") == 0) {
            if ((n = bench_parse_i64_list(a, list, COLLIO_BENCH_MAX_LIST)) < 1)
                goto bad;
            for (int k = 0; k < n; k++) {
                if (list[k] < 1 || list[k] > (1 << 17))
                    goto bad;
                cfg->loads[k] = list[k];
            }
            cfg->nloads = n;
        } else if (strcmp(o, "--strategies") == 0) {
            if (parse_list(a, take_strategy, cfg, &cfg->nstrategies))
                goto bad;
        } else if (strcmp(o, "--reps") == 0) {
            if (parse_i64(a, &v) || v < 1 || v > 1000000)
                goto bad;
            cfg->reps = (int)v;
        } else if (strcmp(o, "--warmup") == 0) {
            if (parse_i64(a, &v) || v < 0 || v > 1000)
                goto bad;
            cfg->warmup = (int)v;
        } else if (strcmp(o, "--max-time") == 0) {
            char *end;
            errno = 0;
            cfg->max_time = strtod(a, &end);
            if (errno || end == a || *end || cfg->max_time < 0)
                goto bad;
        } else if (strcmp(o, "--ops") == 0) {
            int nops;
            cfg->do_write = cfg->do_read = 0;
            if (parse_list(a, take_op, cfg, &nops))
                goto bad;
        } else if (strcmp(o, "--esize") == 0) {
            if (parse_i64(a, &v) || v < 1 || v > (1 << 20))
                goto bad;
            cfg->esize = (size_t)v;
        } else if (strcmp(o, "--dir") == 0) {
            if (strlen(a) >= sizeof cfg->dir)
                goto bad;
            strcpy(cfg->dir, a);
        } else if (strcmp(o, "--csv") == 0) {
            if (strlen(a) >= sizeof cfg->csv)
                goto bad;
            strcpy(cfg->csv, a);
        } else if (strcmp(o, "--backend") == 0) {
            if (strcmp(a, "posix") == 0)
                cfg->backend = COLLIO_BACKEND_POSIX;
            else if (strcmp(a, "mpiio") == 0)
                cfg->backend = COLLIO_BACKEND_MPIIO;
            else
                goto bad;
        } else if (strchr(o, '.') != NULL) {
            snprintf(err, errlen,
                     "unknown option '%s': no plan option '%s' in the catalogue (--help "
                     "lists them)",
                     o, strncmp(o, "--", 2) == 0 ? o + 2 : o);
            return 2;
        } else {
            snprintf(err, errlen, "unknown option '%s' (--help lists them)", o);
            return 2;
        }
        i += takes;
        continue;
    bad:
        snprintf(err, errlen, "bad value for %s: '%s'", o, a ? a : "");
        return 2;
    }
    if (cfg->workload == COLLIO_BENCH_MESH && cfg->mesh[0] == '\0') {
        snprintf(err, errlen, "mesh needs --mesh FILE.msh");
        return 2;
    }
    if (cfg->workload == COLLIO_BENCH_ARRAY && cfg->nshapes == 0) {
        snprintf(err, errlen, "array needs --shape (SL1, SL2, SL3 or X,Y,Z,L,PH)");
        return 2;
    }
    return 0;
}
