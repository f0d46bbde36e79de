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
    cdef PawnEntry* cache = new_pawn_cache()     # as in a search: pawn entries are cached
    if cache == NULL:
        raise MemoryError()
    p.pawn_cache = cache
    try:
        with nogil:
            for i in range(n):
                compiler_barrier()
                total += evaluate(p)
    finally:
        p.pawn_cache = NULL
        free(cache)
    return total

def _taper(int mg, int eg, int phase):
    """The tapering arithmetic of the evaluation, exposed for tests of negative scores."""
    return taper(mg, eg, phase)

# ---------------------------------------------------------------------------------------------
# Tuning support (bench/eval_fit.py): the weights by name, and a batch of positions held in
# C so that the whole set can be evaluated in a few milliseconds.

# name, number of ints, step of the finite differences when fitting (0: not fitted; king
# danger units are small, so they take a larger step)
EVAL_PARAMETERS = (
    ("MOBILITY_MG", 7 * 28, 4), ("MOBILITY_EG", 7 * 28, 4),
    ("CONNECTED", 8, 4), ("SUPPORTED_MG", 1, 4),
    ("ISOLATED_MG", 1, 4), ("ISOLATED_EG", 1, 4),
    ("BACKWARD_MG", 1, 4), ("BACKWARD_EG", 1, 4),
    ("WEAK_UNOPPOSED_MG", 1, 4), ("WEAK_UNOPPOSED_EG", 1, 4),
    ("DOUBLED_MG", 1, 4), ("DOUBLED_EG", 1, 4),
    ("PASSED_MG", 8, 4), ("PASSED_EG", 8, 4),
    ("PASSED_THEIR_KING", 1, 4), ("PASSED_OUR_KING", 1, 4),
    ("PASSED_FREE", 1, 4), ("PASSED_SAFE_BLOCK", 1, 4),
    ("PASSED_FREE_BLOCK", 1, 4), ("PASSED_DEFENDED_BLOCK", 1, 4),
    ("UNSTOPPABLE_EG", 1, 4),
    ("BISHOP_PAIR_MG", 1, 4), ("BISHOP_PAIR_EG", 1, 4),
    ("ROOK_OPEN_MG", 1, 4), ("ROOK_OPEN_EG", 1, 4),
    ("ROOK_SEMI_OPEN_MG", 1, 4), ("ROOK_SEMI_OPEN_EG", 1, 4),
    ("OUTPOST_MG", 7, 4), ("OUTPOST_EG", 7, 4),
    ("THREAT_BY_MINOR_MG", 7, 4), ("THREAT_BY_MINOR_EG", 7, 4),
    ("THREAT_BY_ROOK_MG", 7, 4), ("THREAT_BY_ROOK_EG", 7, 4),
    ("HANGING_MG", 1, 4), ("HANGING_EG", 1, 4),
    ("THREAT_SAFE_PAWN_MG", 1, 4), ("THREAT_SAFE_PAWN_EG", 1, 4),
    ("SHELTER", 4 * 8, 4), ("UNBLOCKED_STORM", 4 * 8, 4),
    ("BLOCKED_STORM_MG", 1, 4), ("BLOCKED_STORM_EG", 1, 4),
    ("KING_PAWN_DISTANCE_EG", 1, 4),
    ("KING_ATTACK_WEIGHT", 7, 16), ("KING_ADJACENT_ATTACK", 1, 16),
    ("KING_WEAK_ZONE", 1, 16), ("SAFE_CHECK", 7, 16), ("UNSAFE_CHECK", 1, 16),
    ("KNIGHT_DEFENDER", 1, 16),
    ("MOPUP_CENTER", 1, 0), ("MOPUP_KINGS", 1, 0),
    ("TEMPO", 1, 4),
)

cdef int* parameter_address(int i) noexcept:
    cdef int* table[52]
    table[:] = [
        &MOBILITY_MG[0][0], &MOBILITY_EG[0][0], &CONNECTED[0], &SUPPORTED_MG,
        &ISOLATED_MG, &ISOLATED_EG, &BACKWARD_MG, &BACKWARD_EG,
        &WEAK_UNOPPOSED_MG, &WEAK_UNOPPOSED_EG, &DOUBLED_MG, &DOUBLED_EG,
        &PASSED_MG[0], &PASSED_EG[0], &PASSED_THEIR_KING, &PASSED_OUR_KING,
        &PASSED_FREE, &PASSED_SAFE_BLOCK, &PASSED_FREE_BLOCK, &PASSED_DEFENDED_BLOCK,
        &UNSTOPPABLE_EG, &BISHOP_PAIR_MG, &BISHOP_PAIR_EG,
        &ROOK_OPEN_MG, &ROOK_OPEN_EG, &ROOK_SEMI_OPEN_MG, &ROOK_SEMI_OPEN_EG,
        &OUTPOST_MG[0], &OUTPOST_EG[0],
        &THREAT_BY_MINOR_MG[0], &THREAT_BY_MINOR_EG[0], &THREAT_BY_ROOK_MG[0], &THREAT_BY_ROOK_EG[0],
        &HANGING_MG, &HANGING_EG, &THREAT_SAFE_PAWN_MG, &THREAT_SAFE_PAWN_EG,
        &SHELTER[0][0], &UNBLOCKED_STORM[0][0], &BLOCKED_STORM_MG, &BLOCKED_STORM_EG,
        &KING_PAWN_DISTANCE_EG,
        &KING_ATTACK_WEIGHT[0], &KING_ADJACENT_ATTACK, &KING_WEAK_ZONE, &SAFE_CHECK[0],
        &UNSAFE_CHECK, &KNIGHT_DEFENDER, &MOPUP_CENTER, &MOPUP_KINGS, &TEMPO, NULL,
    ]
    return table[i]

def get_eval_parameter(str name):
    """The values of a weight (a list of ints) by its name in EVAL_PARAMETERS."""
    cdef int i = [p[0] for p in EVAL_PARAMETERS].index(name)
    cdef int* address = parameter_address(i)
    return [address[k] for k in range(EVAL_PARAMETERS[i][1])]

cdef extern from *:
    """
    #ifndef SCACCO_TUNING
    #define SCACCO_TUNING 0
    #endif
    """
    int SCACCO_TUNING

TUNING_BUILD = bool(SCACCO_TUNING)

def set_eval_parameter(str name, values):
    """Overwrite a weight.  Only in a tuning build (SCACCO_TUNING=1 pip install -e ., in a
    virtual environment of its own): in every other build the weights are read-only, so that
    no searcher's evaluation can change under it.

    :raises RuntimeError: in a normal build.  :raises ValueError: on a wrong count of values.
    """
    if not SCACCO_TUNING:
        raise RuntimeError("evaluation weights are read-only in this build; tune in a build of "
                           "its own (SCACCO_TUNING=1 pip install -e .)")
    cdef int i = [p[0] for p in EVAL_PARAMETERS].index(name)
    cdef int* address = parameter_address(i)
    if len(values) != EVAL_PARAMETERS[i][1]:
        raise ValueError(f"{name} needs {EVAL_PARAMETERS[i][1]} values, got {len(values)}")
    for k, v in enumerate(values):
        address[k] = v

cdef class EvalBatch:
    """Positions copied into C arrays (no game history), evaluated in one nogil loop."""
    cdef Position* positions
    cdef StateInfo* states
    cdef int count

    def __cinit__(self, fens):
        cdef CoreBoard board = CoreBoard()
        cdef int i
        fens = list(fens)
        self.count = len(fens)
        self.positions = <Position*>malloc(max(1, self.count) * sizeof(Position))
        self.states = <StateInfo*>malloc(max(1, self.count) * sizeof(StateInfo))
        if self.positions == NULL or self.states == NULL:
            raise MemoryError()
        for i, fen in enumerate(fens):
            board.set_fen(fen)
            memcpy(&self.positions[i], &board.pos, sizeof(Position))
            memcpy(&self.states[i], board.pos.st, sizeof(StateInfo))
            self.positions[i].states = &self.states[i]
            self.positions[i].st = &self.states[i]
            self.positions[i].capacity = 1

    def __dealloc__(self):
        free(self.positions)
        free(self.states)

    def __len__(self):
        return self.count

    def parts(self, int[:, ::1] out):
        """Fill out[i] = (mg, eg, phase, scale, side, insufficient) for every position: mg and
        eg untapered from white's view; out must have shape (len(self), 6)."""
        cdef EvalTrace t
        cdef Position* p
        cdef int i, k, mg, eg
        if out.shape[0] != self.count or out.shape[1] != 6:
            raise ValueError("out must have shape (len(batch), 6)")
        with nogil:
            for i in range(self.count):
                p = &self.positions[i]
                memset(&t, 0, sizeof(EvalTrace))
                evaluate_white(p, &t)
                mg = p.psq_mg
                eg = p.psq_eg
                for k in range(TERM_NB):
                    mg += t.mg[k][0] - t.mg[k][1]
                    eg += t.eg[k][0] - t.eg[k][1]
                out[i, 0] = mg
                out[i, 1] = eg
                out[i, 2] = min(p.phase, PHASE_MAX)
                out[i, 3] = t.scale
                out[i, 4] = p.side
                out[i, 5] = insufficient_material(p)
