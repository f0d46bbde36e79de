# Python-facing evaluation helpers, for tests, the UCI `eval` command and benchmarks.

TERM_NAMES = ("pawns", "passed", "mobility", "pieces", "threats", "king", "mop-up")

def evaluate_board(CoreBoard board):
    """Static evaluation of the board in centipawns, from the side to move's point of view."""
    return evaluate(&board.pos)

def evaluation_terms(CoreBoard board):
    """The evaluation split into terms, for display (the UCI `eval` command).

    Returns a dict:
      "terms": name -> {"white": (mg, eg), "black": (mg, eg), "total": (mg, eg)}, each term
               from that colour's point of view, "total" being white minus black (untapered);
               "material+psq" comes first (the incremental material and piece-square sums);
      "phase": game phase 0..24 (24 = all pieces on), "scale": endgame scale factor out of 64,
      "tempo": the side-to-move bonus, "white_score": tapered score from white's view,
      "score": the final evaluation from the side to move's view (what the search sees),
      "insufficient_material": True when the score is 0 for lack of mating material.
    """
    cdef Position* p = &board.pos
    cdef EvalTrace t
    cdef int sq, pc, c
    cdef int psq_mg[2]
    cdef int psq_eg[2]
    memset(&t, 0, sizeof(EvalTrace))
    psq_mg[:] = [0, 0]
    psq_eg[:] = [0, 0]
    for sq in range(64):
        pc = p.board[sq]
        if pc != NO_PIECE:
            c = pc >> 3
            psq_mg[c] += PSQ_MG[pc][sq] if c == WHITE else -PSQ_MG[pc][sq]
            psq_eg[c] += PSQ_EG[pc][sq] if c == WHITE else -PSQ_EG[pc][sq]
    white = evaluate_white(p, &t)
    terms = {"material+psq": {"white": (psq_mg[0], psq_eg[0]), "black": (psq_mg[1], psq_eg[1]),
                              "total": (p.psq_mg, p.psq_eg)}}
    for i, name in enumerate(TERM_NAMES):
        terms[name] = {"white": (t.mg[i][0], t.eg[i][0]), "black": (t.mg[i][1], t.eg[i][1]),
                       "total": (t.mg[i][0] - t.mg[i][1], t.eg[i][0] - t.eg[i][1])}
    insufficient = bool(insufficient_material(p))
    return {
        "terms": terms,
        "phase": min(p.phase, PHASE_MAX),
        "scale": t.scale,
        "tempo": TEMPO,
        "white_score": 0 if insufficient else white,
        "score": evaluate(p),
        "insufficient_material": insufficient,
    }

def clear_evaluation_cache():
    """Empty the pawn-structure cache (for reproducible measurements)."""
    clear_pawn_cache()

cdef extern from *:
    """
    #ifdef _MSC_VER
    #include <intrin.h>
    static inline void scacco_compiler_barrier(void) { _ReadWriteBarrier(); }
    #else
    static inline void scacco_compiler_barrier(void) { __asm__ __volatile__("" ::: "memory"); }
    #endif
    """
    void compiler_barrier "scacco_compiler_barrier"() noexcept nogil

def _time_evaluate(CoreBoard board, long n):
    """Evaluate the board n times without the GIL; returns the sum of the scores.

    A compiler barrier between calls keeps the optimiser from evaluating only once.
    """
    cdef long i, total = 0
    cdef Position* p = &board.pos
    with nogil:
        for i in range(n):
            compiler_barrier()
            total += evaluate(p)
    return total

def _taper(int mg, int eg, int phase):
    """The tapering arithmetic of the evaluation, exposed for tests of negative scores."""
    return taper(mg, eg, phase)
