/*
 * hypercube/hypercube.h -- the hypercube transport of the multiphase
 * strategy (private to hypercube/ and tests/unit_multiphase.c): its state
 * behind mp->state, the phases, passes and rounds of its plan, and its
 * inspector's and executor's entries.
 */
#ifndef COLLIO_MP_HYPERCUBE_H
#define COLLIO_MP_HYPERCUBE_H

#include "../multiphase.h"

/* One exchange phase: buffer A (before; the user's stream in phase 0 of a
 * write) -> buffer B (after) = [kept pieces | partner's data | extra's data]. */
typedef struct collio__mp_phase {
    collio__mp_step step;
    int idle;                 /* group of one rank: B is A, nothing moves */
    int src_slot, dst_slot;   /* work buffer of A and B; -1 = user stream */
    int64_t a_elems, b_elems; /* elements in A and B */
    collio__mp_copy *keep;    /* A -> B copies of the kept pieces */
    int64_t nkeep;
    collio__mp_range *send; /* pieces of A sent, in message order */
    int64_t nsend;
    int64_t send_elems;
    int64_t recv_pos, recv_elems;   /* from partner: B[recv_pos, +recv_elems) */
    int64_t xrecv_pos, xrecv_elems; /* from the lonely rank (extra_from) */
    int64_t tuples;                 /* strided descriptors of what is sent */
    /* MPI datatypes in units of bytes (built by hypercube/phases.c): send =
     * the pieces of A, recv / xrecv = the regions of B. NULL if empty. */
    MPI_Datatype send_type, recv_type, xrecv_type;
} collio__mp_phase;

/* Phases plus final step over (a part of) the rank's data, with the sizes
 * of the two work buffers ("slots") they use. */
typedef struct collio__mp_pass {
    collio__mp_phase ph[MP_MAX_PHASES];
    collio__mp_final fin;
    int64_t bufsize[2]; /* elements of slot 0 and slot 1 */
} collio__mp_pass;

/* One round of a low-memory write (hypercube/rounds.c): the pass over the
 * data that lands in F[target, target + fin.nelems) of the rank's domain
 * buffer F, its slots placed in F from there on (running into the spill
 * area after F where F has no room left). */
typedef struct collio__mp_round {
    collio__mp_pass pass;
    collio__mp_direct *direct; /* the last round of a plan with last_direct:
                                  moves directly from the stream into F (no
                                  slots; pass unused); else NULL */
    int64_t target;            /* F position of the round's first element */
    int64_t slot_pos[2];       /* F position of each slot */
} collio__mp_round;

/* The transport's state (mp->state). */
typedef struct collio__mp_hc {
    collio__mp_pass whole;    /* all data at once: reads, and writes whose
                                 stream may serve as scratch */
    collio__mp_round *rounds; /* writes that keep the stream intact */
    int nrounds;              /* 0: such writes use `whole` too */
    int64_t spill;            /* rounds: elements of the spill area after F */
} collio__mp_hc;

static inline collio__mp_hc *collio__mp_hc_of(const collio__mp_plan *mp)
{
    return (collio__mp_hc *)mp->state;
}

/* ---- the hypercube: pure inspector steps (hypercube/phases.c; no MPI),
 * used by its inspector and the unit test */

/* Phase, local half: splits the held segments (buffer A, a_elems elements)
 * into kept pieces and sent pieces for `st`. Fills ph->step, idle, a_elems,
 * keep, send, send_elems, tuples. *kept gets the kept pieces with their
 * positions in B (B starts with them); *out the descriptors of what is sent
 * (mem = position in the message). */
int collio__mp_phase_split(const collio__seg *held, int64_t nheld, int64_t a_elems,
                           const collio__mp_step *st, collio__mp_phase *ph,
                           collio__segvec *kept, collio__segvec *out);

/* Phase, second half: appends the descriptors received from the partner
 * (rp) and the lonely rank (rx) to *held (which holds the kept pieces on
 * entry) with their positions in B; sets recv_pos/elems, xrecv_pos/elems,
 * b_elems. */
int collio__mp_phase_join(collio__mp_phase *ph, collio__segvec *held,
                          const collio__seg *rp, int64_t nrp, const collio__seg *rx,
                          int64_t nrx);

/* Final step from the held segments (positions in A): scatter ops into
 * file order and the file runs. [lo, hi) is the file range the rank's
 * group holds; when the held elements cover it, F position = off - lo and
 * the file access is one run (the domain). */
int collio__mp_final_build(const collio__seg *held, int64_t nheld, int64_t lo, int64_t hi,
                           collio__mp_final *fin);

void collio__mp_phase_free(collio__mp_phase *ph);

/* ---- the hypercube: rounds (hypercube/rounds.c; pure) */

/* Start, relative to a domain of m elements, of round i of a write in
 * nrounds rounds (i = nrounds gives m): round i < nrounds - 1 takes half of
 * what earlier rounds left, the last one the rest. */
int64_t collio__mp_round_start(int64_t m, int i, int nrounds);

/* Halving rounds for domains of at least m_min elements of esize bytes:
 * `want` > 0 asks for want + 1 rounds, at most as many as leave every
 * round non-empty; 0 for the automatic choice (hypercube/rounds.c).
 * Returns the number of rounds, 0 for none (fewer than 2 make no sense). */
int collio__mp_round_count(int64_t m_min, size_t esize, int want);

/* The pieces of the layout's segments that lie in round i of every domain
 * (P balanced domains of [0, nglobal)), positions in the stream kept. */
int collio__mp_round_clip(const collio__seg *segs, int64_t nsegs, int64_t nglobal, int P,
                          int i, int nrounds, collio__segvec *out);

/* Places a round's slots (r->pass.bufsize, r->target and the round's
 * element count set) in F (fsize elements); raises *spill to how far they
 * run past F's end. */
void collio__mp_round_place(collio__mp_round *r, int64_t fsize, int64_t *spill);

/* ---- the hypercube: the collective inspector (hypercube/inspect.c) */

/* Collective: builds mp->whole and, for writes that leave the stream
 * intact, mp->rounds from p->layout (mp->nphases, allphases, esize and
 * last_direct set; mp->whole initialised). Returns the code every rank
 * agreed on. */
int collio__mp_inspect(collio_plan *p, collio__mp_plan *mp);

/* A pass without datatypes yet (every pass starts so: collio__mp_pass_free
 * frees the others). */
void collio__mp_pass_init(collio__mp_pass *ps);

/* Frees a pass's descriptors and datatypes (not the pass itself). */
void collio__mp_pass_free(collio__mp_pass *ps);

/* Frees a plan's rounds; the plan then has none. */
void collio__mp_drop_rounds(collio__mp_plan *mp);

/* ---- the hypercube: the executor (hypercube/exec.c) */

/* Collective: a write / read through the plan's passes or rounds. */
int collio__mp_hypercube_write(collio_plan *p, collio_file *f, const char *stream);
int collio__mp_hypercube_read(collio_plan *p, collio_file *f, char *stream);

#endif /* COLLIO_MP_HYPERCUBE_H */
