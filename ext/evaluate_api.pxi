# Python-facing evaluation helpers, for tests, the UCI `eval` command and benchmarks.

def evaluate_board(CoreBoard board):
    """Static evaluation of the board in centipawns, from the side to move's point of view."""
    return evaluate(&board.pos)

def evaluation_terms(CoreBoard board):
    """The evaluation split into terms, for display.

    Returns a dict with "terms" (name -> (mg, eg), white minus black, before tapering),
    "phase" (0..24), "white_score" (tapered, white's view) and "score" (side to move).
    """
    cdef Position* p = &board.pos
    terms = {"material+psq": (p.psq_mg, p.psq_eg)}
    white = 0 if insufficient_material(p) else taper(p.psq_mg, p.psq_eg, p.phase)
    return {
        "terms": terms,
        "phase": min(p.phase, PHASE_MAX),
        "tempo": TEMPO,
        "white_score": white,
        "score": evaluate(p),
    }

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
