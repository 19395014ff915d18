/*
 * replicas/replicas.h -- replicas: replicated data -- who writes a replicated element
 * (its classification, the writer policies) and the plans around a strategy that make it
 * so (the files of src/replicas/).
 */
#ifndef COLLIO_REPLICAS_REPLICAS_H
#define COLLIO_REPLICAS_REPLICAS_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "core/core.h"
/* ------------------------------------------------------ replicated data */

/*
 * Node classification of a replicated layout (replicas/classify.c): every
 * rank sends runs of what it holds (consecutive elements, all owned or all
 * not) to the ranks of the elements' file-order domains
 * (collio__domain_range, domain d on rank d), which learn every element's
 * owner and other holders. Memory per rank: O(its runs + its domain's
 * elements and their halo copies).
 */
typedef struct collio__repl_dom {
    int64_t lo, hi; /* this rank's domain [lo, hi) */
    int nranks;
    int32_t *owner;      /* owner of element lo + j */
    int64_t *opos;       /* its position in the owner's stream */
    int64_t *hstart;     /* CSR: the other holders of element lo + j are */
    int32_t *holder;     /*   holder[hstart[j] .. hstart[j+1]), increasing */
    int64_t *hpos;       /*   and the element's position in their streams */
    int64_t nreplicated; /* elements of the domain with more than 1 holder */
} collio__repl_dom;

/* Collective: classifies l (a replicated index list) on comm, checking
 * that every element is held and owned exactly once (RANGE, OVERLAP,
 * COVERAGE with a message naming the element and ranks). Agreed code. */
int collio__repl_classify(MPI_Comm comm, const collio_layout *l, collio__repl_dom *d);
/* Collective: every holder of a replicated element of d learns its writer
 * (writer[j] for element lo + j) and the element's position in the
 * writer's stream: out[its own position] = position * P + writer. The
 * entries of unreplicated elements are not touched. Agreed code. */
int collio__repl_tell(MPI_Comm comm, const collio__repl_dom *d, const int32_t *writer,
                      int64_t *out, int64_t nout);
void collio__repl_dom_free(collio__repl_dom *d);

/* Writer choice (replicas/policy.c): writer[j] for each element lo + j of
 * the domain, by `policy` (not AUTO), equal to the sequential algorithm
 * over the whole file (IDG's chain crosses domains: resolved by a scan of
 * per-domain transfer maps); *prev_writer: the writer of element lo - 1
 * (-1 for element 0 or an empty domain). rank_domain: the plan's
 * strategy's hook (DOMAIN keeps elements on the rank whose file domain
 * holds them; NULL: domain r on rank r). Collective. */
int collio__repl_schedule(MPI_Comm comm, const collio__repl_dom *d, int64_t nglobal,
                          int policy, uint64_t seed,
                          int (*rank_domain)(int nranks, int rank), int32_t *writer,
                          int32_t *prev_writer);
/* The policies: which holder of a replicated element writes it, the
 * values of hint replicas.policy (docs/replicas.md describes each; policy.c
 * holds their table). Each writes every element exactly once. */
enum {
    COLLIO__REPLICAS_AUTO,   /* what the plan's strategy prefers (its table's
                                replicas_auto), else IDG */
    COLLIO__REPLICAS_OWNER,  /* its owner: best balance */
    COLLIO__REPLICAS_IDG,    /* Interval Data Grouping: long runs per writer */
    COLLIO__REPLICAS_RANDOM, /* a holder drawn from a hash of (seed, element) */
    COLLIO__REPLICAS_FIRST,  /* the lowest-ranked holder */
    COLLIO__REPLICAS_DOMAIN, /* the holder whose file domain holds it, else
                                the owner */
    COLLIO__REPLICAS_COUNT
};
/* Their names, index = policy (hint replicas.policy). */
extern const char *const collio__replicas_names[COLLIO__REPLICAS_COUNT + 1];
/* The policy of that name, -1 if none. */
int collio__replicas_of(const char *name);

/* Replicated plans (replicas/plan.c): the plan's strategy runs on the
 * "writer layout" -- the elements this rank writes, a partition -- and
 * this state maps between it and the user's layout. */
typedef struct collio__repl collio__repl;
typedef struct collio__strategy collio__strategy;
/* Collective, at plan creation: classifies, schedules (by hint
 * replicas.policy; AUTO: what `strategy` prefers), builds p->layout (the
 * writer layout) from user (the plan's copy of the replicated layout,
 * which p->repl keeps) and the read's fill plan; fills the "replicas"
 * stats. */
int collio__repl_plan(collio_plan *p, collio_layout *user,
                      const collio__strategy *strategy);
/* Local: the written elements of the user stream, packed in writer order. */
void collio__repl_select(const collio__repl *r, const char *user_stream, char *out);
/* Collective: the user stream from the writer stream read from the file:
 * own written elements copied, the others received from their writers. */
int collio__repl_fill(collio_plan *p, const char *writer_stream, char *user_stream);
/* 1 if the writer stream is the user stream (this rank writes all it holds
 * in that order: no copy needed). */
int collio__repl_identity(const collio__repl *r);
const collio_layout *collio__repl_user_layout(const collio__repl *r);
/* Local: what this rank's share of the replicas' work around a strategy
 * moves (the cost model of strategy auto prices it): the runs a write's
 * selection and a read's own-element copy take (0 where the writer
 * stream is the user stream), and a read's fill -- the elements this rank
 * copies into and out of the fill's buffers, their bytes, the bytes it
 * sends and the ranks it sends to (all 0 where no read fills). */
typedef struct collio__repl_work {
    double runs, fill_elements, fill_bytes, fill_sent, fill_peers;
} collio__repl_work;
collio__repl_work collio__repl_work_of(const collio_plan *p);
void collio__repl_free(collio__repl **r);

#endif /* COLLIO_REPLICAS_REPLICAS_H */
