# The alpha-beta search: principal variation search with a transposition table, quiescence,
# null-move pruning, late move reductions, futility and SEE pruning, killers, history and
# countermoves.  It runs entirely at C level, without the GIL; Python (engine/search.py)
# calls search_iteration_c once per iteration and reads the results.
#
# Threads (Lazy SMP).  With Threads > 1 the main thread (the Python driver's) is joined by
# helper threads, each with a SearchData of its own (position, stacks, histories, pawn cache)
# and all sharing the main thread's table.  A helper runs its own iterative deepening in C
# (helper_main) on the same root moves, skipping a depth that half the threads are already
# searching, so that the threads spread over neighbouring depths and fill the table for each
# other.  The main thread decides when the search ends; then the helpers are told to stop
# (SmpState.abort, seen at their next clock check) and joined, and the driver picks the
# answer among every thread's last completed iteration.

from libc.math cimport log

cdef enum:
    VALUE_DRAW = 0
    VALUE_MATE = 32000
    VALUE_INFINITE = 32001
    VALUE_NONE = 32002
    VALUE_MATE_IN_MAX_PLY = 32000 - 2 * 128
    VALUE_MATED_IN_MAX_PLY = -(32000 - 2 * 128)
    # Won (or lost) for sure, but with no mate that fits before the fifty-move rule: the
    # largest score that is not a mate; the static evaluation stays below it (EVAL_LIMIT).
    VALUE_WON = 9000
    # A win the tablebases prove, at ply p: VALUE_TB_WIN - p, below every mate score and
    # above every evaluation, so that a proven win ranks under a mate the search sees and a
    # nearer one ranks higher (Stockfish's VALUE_MATE_IN_MAX_PLY - 1 - ply).
    VALUE_TB_WIN = 32000 - 2 * 128 - 1
    HISTORY_MAX = 16384
    MAX_SEARCH_THREADS = 512

# ---------------------------------------------------------------------------------------------
# Search parameters: every window, margin, depth bound and reduction of the search, named after
# the ones in Ethereal's search.h (depths in plies, margins in the evaluation's centipawns).

cdef enum:
    # Aspiration windows: from WINDOW_DEPTH on, an iteration first searches +-WINDOW_SIZE
    # around its line's previous score; each failure widens the window by half plus
    # WINDOW_GROWTH (the failed side moves past the score, a fail low also lowers beta).
    WINDOW_DEPTH = 5
    WINDOW_SIZE = 15
    WINDOW_GROWTH = 5
    # Reverse futility ("beta") pruning: up to BETA_PRUNING_DEPTH, a node whose evaluation
    # stands BETA_MARGIN per ply of depth (one ply less when improving) above beta fails high.
    BETA_PRUNING_DEPTH = 8
    BETA_MARGIN = 75
    # Razoring ("alpha" pruning): up to ALPHA_PRUNING_DEPTH, a node whose evaluation is
    # ALPHA_MARGIN + ALPHA_MARGIN_PER_DEPTH2 * depth^2 below alpha gets a quiescence look only.
    ALPHA_PRUNING_DEPTH = 2
    ALPHA_MARGIN = 200
    ALPHA_MARGIN_PER_DEPTH2 = 250
    # Null-move pruning from NULL_MOVE_PRUNING_DEPTH on, reduced by NULL_MOVE_REDUCTION plus a
    # ply per NULL_MOVE_DEPTH_DIVISOR of depth plus a ply per NULL_MOVE_EVAL_DIVISOR of the
    # evaluation above beta (at most NULL_MOVE_MAX_EVAL_REDUCTION); from
    # NULL_MOVE_VERIFICATION_DEPTH on a cutoff is verified by a reduced normal search, in whose
    # first three quarters the verifying side tries no null move (the verification must not
    # rest on a null move of its own).  A table upper bound below beta needs no guard: it
    # lowers eval below beta first.
    NULL_MOVE_PRUNING_DEPTH = 3
    NULL_MOVE_REDUCTION = 3
    NULL_MOVE_DEPTH_DIVISOR = 3
    NULL_MOVE_EVAL_DIVISOR = 200
    NULL_MOVE_MAX_EVAL_REDUCTION = 3
    NULL_MOVE_VERIFICATION_DEPTH = 12
    # Internal iterative reduction: from IIR_DEPTH on, a PV or cut node without a table move.
    IIR_DEPTH = 4
    # Late move pruning: after (LATE_MOVE_PRUNING_BASE + depth^2) / (2 - improving) moves the
    # remaining quiet moves are skipped (checks excepted).
    LATE_MOVE_PRUNING_BASE = 3
    # Futility pruning of quiet moves: up to FUTILITY_PRUNING_DEPTH of reduced depth, a quiet
    # move when the static evaluation plus FUTILITY_MARGIN_BASE + FUTILITY_MARGIN_PER_DEPTH
    # per ply of reduced depth is still at or below alpha.
    FUTILITY_PRUNING_DEPTH = 8
    FUTILITY_MARGIN_BASE = 90
    FUTILITY_MARGIN_PER_DEPTH = 90
    # SEE pruning up to SEE_PRUNING_DEPTH: a quiet move that loses more than -SEE_QUIET_MARGIN
    # per ply of reduced depth squared, a capture that loses more than -SEE_NOISY_MARGIN per ply.
    SEE_PRUNING_DEPTH = 8
    SEE_QUIET_MARGIN = -25
    SEE_NOISY_MARGIN = -90
    # Late move reductions from LMR_DEPTH on; a quiet move's history lowers (or raises) its
    # reduction by a ply per LMR_HISTORY_DIVISOR.
    LMR_DEPTH = 3
    LMR_HISTORY_DIVISOR = 12000
    # Quiescence delta pruning: a capture that cannot bring the score within QS_DELTA_MARGIN
    # of alpha even after winning the piece.
    QS_DELTA_MARGIN = 200
    # History updates: a bonus of HISTORY_BONUS_SCALE * depth^2, the depth capped at
    # HISTORY_BONUS_DEPTH.
    HISTORY_BONUS_SCALE = 16
    HISTORY_BONUS_DEPTH = 12
    # Singular extensions: from SINGULAR_DEPTH on, the table move (a lower bound searched at
    # most SINGULAR_TT_DEPTH_SLACK plies shallower) is tested against the other moves searched
    # at half depth below its score less SINGULAR_MARGIN_PER_DEPTH per ply.  When every other
    # move fails that test, the move is extended by a ply, by two when they fail by
    # DOUBLE_EXTENSION_MARGIN more (at most DOUBLE_EXTENSION_LIMIT times on a line); when one
    # of them passes a test already above beta, the node fails high at once (multi-cut); when
    # the table's score is at or above beta (or no better than that search), the move is
    # searched a ply shallower.
    SINGULAR_DEPTH = 8
    SINGULAR_TT_DEPTH_SLACK = 3
    SINGULAR_MARGIN_PER_DEPTH = 2
    DOUBLE_EXTENSION_MARGIN = 40
    DOUBLE_EXTENSION_LIMIT = 6
    # Correction history: the static evaluation is corrected by how far the searches of
    # positions with the same pawns, and of positions with the same white pieces and with the
    # same black pieces other than pawns (each with the same side to move), have found it off:
    # three tables, each entry in units of 1/CORRECTION_GRAIN cp a running average whose newer
    # result weighs min(depth^2 + 2 depth + 1, CORRECTION_WEIGHT_MAX) / CORRECTION_WEIGHT_SCALE,
    # within +-CORRECTION_LIMIT (that is, 32 cp at most).  The correction is their sum, and
    # each learns what the corrected evaluation missed.
    CORRECTION_SIZE = 16384
    CORRECTION_GRAIN = 256
    CORRECTION_WEIGHT_SCALE = 256
    CORRECTION_WEIGHT_MAX = 128
    CORRECTION_LIMIT = 256 * 32
    # The network's evaluation scaled by the material on the board (NetworkScaling): by
    # (MATERIAL_SCALE_BASE + material) / (MATERIAL_SCALE_BASE + 78), material counted 1, 3, 3,
    # 5, 9 as engine/score.py counts it (78 at the start), so an endgame's score shrinks
    # against a middlegame's by the ratio the network overrates it by, by its fit against
    # Stockfish (NETWORK_SCALE's two ends); and damped towards a draw as the fifty-move counter
    # runs, by (FIFTY_DAMPING - counter) / FIFTY_DAMPING.
    MATERIAL_SCALE_BASE = 256
    FIFTY_DAMPING = 200
    # History in the pruning of quiet moves (the HistoryPruning option): a quiet move ordered
    # by its histories (no killer or counter move) whose history sum is below
    # -HISTORY_PRUNING_MARGIN per ply of depth is skipped while its reduced depth is below
    # HISTORY_PRUNING_DEPTH; and the futility margin grows (or shrinks) by the history sum
    # over FUTILITY_HISTORY_DIVISOR.
    HISTORY_PRUNING_DEPTH = 3
    HISTORY_PRUNING_MARGIN = 2048
    FUTILITY_HISTORY_DIVISOR = 64

# The late move reduction of the m-th move at depth d: LMR_BASE + ln(d) * ln(m) / LMR_DIVISOR.
cdef double LMR_BASE = 0.8
cdef double LMR_DIVISOR = 2.3

# Values used by move ordering, SEE and delta pruning (not by the evaluation).
cdef int SEE_VALUE[7]
SEE_VALUE[:] = [0, 100, 320, 330, 500, 950, 0]

cdef int LMR_TABLE[64][64]

cdef void init_search_tables() noexcept nogil:
    cdef int d, m
    for d in range(64):
        for m in range(64):
            if d == 0 or m == 0:
                LMR_TABLE[d][m] = 0
            else:
                LMR_TABLE[d][m] = <int>(LMR_BASE + log(<double>d) * log(<double>m) / LMR_DIVISOR)

ctypedef struct RootMove:
    Move move
    int score
    int previous_score
    int seldepth
    int pv_length
    uint64_t nodes                    # the main thread's nodes under this move, this search
    Move pv[MAX_PLY]

cdef struct SmpState:
    int abort                         # 1: helpers end their search (set by the main thread)
    int thread_count                  # main thread included
    int depth_count[MAX_PLY + 1]      # how many threads have begun each iteration depth

# Search features on trial (docs/development.md), each behind a check option: 1 switches one
# on (DEFAULT_SWITCHES: which are on in a new search).  Kept in one struct so that helper
# threads take them in one copy.
ctypedef struct SearchSwitches:
    int singular                      # singular extensions (SingularExtensions)
    int correct                       # the correction histories (CorrectionHistory)
    int net_scaling                   # the network's score scaled (NetworkScaling)
    int far_cont                      # continuation history 4 and 6 plies back (FarContinuation)
    int hist_prune                    # histories in quiet pruning (HistoryPruning)
    int best_history                  # histories learn from every best move (BestMoveHistory)

# The switches of a new search (Searcher, datagen): the features that passed their match
# together are on (docs/results/engine.md), each still an option until its own match decides.
# NetworkScaling is off until the centipawn scale and the WDL model are fitted to it, and
# best_history until a warm table's mate distances are right with it (docs/development.md).
cdef SearchSwitches DEFAULT_SWITCHES = SearchSwitches(
    singular=1, correct=1, net_scaling=0, far_cont=1, hist_prune=1, best_history=0)

ctypedef struct SearchData:
    Position pos
    TranspositionTable* tt            # the SearchCore's, shared by all its threads
    int history[2][64][64]            # butterfly history: colour, from, to
    int capture_history[16][64][7]    # moved piece, to, captured type
    Move killers[MAX_PLY + 4][2]
    Move countermoves[16][64]         # reply to (piece, to) of the previous move
    int continuation[16][64][16][64]  # history of (piece, to) following an earlier (piece, to)
    int continuation_none[16 * 64]    # stands in for a null move or the root (kept at zero)
    int* cont_stack[MAX_PLY + 4]      # continuation table of the move made at each ply
    int static_eval[MAX_PLY + 4]
    Move pv[MAX_PLY + 2][MAX_PLY + 2]
    int pv_length[MAX_PLY + 2]
    RootMove root_moves[MAX_MOVES]
    int root_count
    int pv_index                      # MultiPV: lines before this one are excluded
    int root_depth
    int seldepth
    uint64_t nodes
    uint64_t node_limit               # 0 = none
    # Tablebases (syzygy.pxi): probed below the root when tb is not NULL, in positions of at
    # most tb_cardinality pieces (0: never) reached by a zeroing move, at a depth of at least
    # tb_probe_depth (or with fewer pieces than tb_cardinality); tb_rule50: cursed wins and
    # blessed losses count as draws (Syzygy50MoveRule).
    Syzygy* tb
    int tb_cardinality
    int tb_probe_depth
    int tb_rule50
    uint64_t tb_hits
    SearchSwitches on                 # the features on trial switched on (copied to helpers)
    Move excluded[MAX_PLY + 4]        # the move a singular test leaves out at each ply
    int nmp_min_ply                   # no null move of nmp_color's before this ply (set while
    int nmp_color                     # a null move's cutoff is verified)
    int pawn_correction[2][CORRECTION_SIZE]   # side to move, pawn key: see CORRECTION_SIZE
    int non_pawn_correction[2][2][CORRECTION_SIZE]   # side to move, colour, its non-pawn key
    int double_extensions[MAX_PLY + 4]  # double extensions on the line down to each ply
    double start_ms
    StopState* token                  # the search's stop token (held by the SearchCore)
    int stop                          # 1 once this search must end (node limit or token)
    void* root_move_callback          # a Python callable (owned by the SearchCore) or NULL
    int check_countdown               # nodes until the next clock reading
    int check_interval                # nodes between clock readings (see check_clock)
    double last_check_ms
    # Threads: NULL and 0 for a single-threaded search.
    SmpState* smp
    int thread_index                  # 0: the main thread
    int counted_depth                 # main: the last depth counted in smp.depth_count
    uint64_t helper_nodes             # main: the helpers' nodes at the last clock check
    void* helpers                     # main: the SearchCore's SearchData* array (helpers)
    int helper_count
    int max_depth                     # helpers: the deepest iteration to search
    int completed_depth               # helpers: the last iteration finished, and its best line
    RootMove completed
    # Kept last, out of the way of the fields every node reads.
    void* window_callback             # a Python callable (owned by the SearchCore) or NULL
    int line_scores[MAX_MOVES]        # each MultiPV line's score in the last iteration

# ---------------------------------------------------------------------------------------------
# Score helpers

cdef inline int mate_in(int ply) noexcept nogil:
    return VALUE_MATE - ply

cdef inline int mated_in(int ply) noexcept nogil:
    return -VALUE_MATE + ply

# Mate scores in the table are relative to the node, in the tree relative to the root.
cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    if score >= VALUE_MATE_IN_MAX_PLY:
        return score + ply
    if score <= VALUE_MATED_IN_MAX_PLY:
        return score - ply
    return score

# A stored mate in d plies fits when the mating move comes no later than the move that would
# complete the fifty moves (d <= 100 - rule50; a mate on that move still counts).  A mate that
# no longer fits is no longer a mate: it comes back as VALUE_WON, an ordinary winning score
# below engine.search's MAX_CP, so that no false mate distance (and no internal clamp value)
# reaches the root.
cdef inline int score_from_tt(int score, int ply, int rule50) noexcept nogil:
    if score == VALUE_NONE:
        return VALUE_NONE
    if score >= VALUE_MATE_IN_MAX_PLY:
        if VALUE_MATE - score > 100 - rule50:
            return VALUE_WON
        return score - ply
    if score <= VALUE_MATED_IN_MAX_PLY:
        if VALUE_MATE + score > 100 - rule50:
            return -VALUE_WON
        return score + ply
    return score

# ---------------------------------------------------------------------------------------------
# Static exchange evaluation: does the move win at least `threshold` centipawns after the best
# sequence of recaptures on its target square?

cdef inline Bitboard least_valuable(Position* p, Bitboard attackers, int* pt) noexcept nogil:
    cdef int t
    cdef Bitboard b
    for t in range(PAWN, KING + 1):
        b = attackers & p.by_type[t]
        if b:
            pt[0] = t
            return b & (~b + 1)
    pt[0] = NO_PIECE_TYPE
    return 0

cdef bint see_ge(Position* p, Move m, int threshold) noexcept nogil:
    cdef int frm = move_from(m), to = move_to(m)
    cdef int swap, stm, res, pt
    cdef Bitboard occ, attackers, stm_attackers, bb
    if move_kind(m) != NORMAL:
        return 0 >= threshold
    swap = SEE_VALUE[p.board[to] & 7] - threshold
    if swap < 0:
        return False
    swap = SEE_VALUE[p.board[frm] & 7] - swap
    if swap <= 0:
        return True
    occ = p.by_type[ALL_PIECES] ^ square_bb(frm) ^ square_bb(to)
    stm = color_of(p.board[frm])
    attackers = attackers_to(p, to, occ)
    res = 1
    while True:
        stm ^= 1
        attackers &= occ
        stm_attackers = attackers & p.by_color[stm]
        if not stm_attackers:
            break
        res ^= 1
        bb = least_valuable(p, stm_attackers, &pt)
        if pt == KING:
            # the king may only take last: if the other side still attacks, it cannot
            return res ^ 1 if (attackers & ~p.by_color[stm]) else res
        swap = SEE_VALUE[pt] - swap
        if swap < res:
            break
        occ ^= bb
        if pt == PAWN or pt == BISHOP or pt == QUEEN:
            attackers |= bishop_attacks(to, occ) & (p.by_type[BISHOP] | p.by_type[QUEEN])
        if pt == ROOK or pt == QUEEN:
            attackers |= rook_attacks(to, occ) & (p.by_type[ROOK] | p.by_type[QUEEN])
    return res

# ---------------------------------------------------------------------------------------------
# Draws inside the tree

# A repetition is a draw inside the tree when the earlier occurrence is after the root (`ply`
# plies back is the root): the side that repeats could repeat again.  A position that only
# repeats one from the game before the root is drawn only at its third occurrence, as the rules
# say; otherwise a side that is lost would "hold" by returning to a position the game passed
# through once, and the analysis would read a won game as 0.00 (Stockfish's rule too).
cdef inline bint repetition_draw(Position* p, int ply) noexcept nogil:
    cdef int limit = repetition_window(p)
    cdef int i = 4
    cdef bint seen = False
    while i <= limit:
        if (p.st - i).key == p.st.key:
            if i < ply or seen:
                return True
            seen = True
        i += 2
    return False

cdef inline bint is_draw(Position* p, int ply) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    if p.st.rule50 >= 100:
        return p.st.checkers == 0 or generate_moves(p, GEN_ALL, moves) > 0
    return repetition_draw(p, ply) or insufficient_material(p)

cdef inline bint has_non_pawn_material(Position* p, int color) noexcept nogil:
    return (p.by_color[color] & ~(p.by_type[PAWN] | p.by_type[KING])) != 0

# ---------------------------------------------------------------------------------------------
# Checks a move would give, known before making it (pruning spares checking moves).

ctypedef struct CheckInfo:
    Bitboard check_squares[7]   # squares from which each piece type would attack the king
    Bitboard discoverers        # our pieces whose departure uncovers one of our sliders
    int king                    # the enemy king

cdef inline void init_check_info(Position* p, CheckInfo* ci) noexcept nogil:
    cdef int them = p.side ^ 1
    cdef int ksq = king_square(p, them)
    cdef Bitboard occ = p.by_type[ALL_PIECES]
    ci.king = ksq
    ci.check_squares[PAWN] = PAWN_ATTACKS[them][ksq]
    ci.check_squares[KNIGHT] = KNIGHT_ATTACKS[ksq]
    ci.check_squares[BISHOP] = bishop_attacks(ksq, occ)
    ci.check_squares[ROOK] = rook_attacks(ksq, occ)
    ci.check_squares[QUEEN] = ci.check_squares[BISHOP] | ci.check_squares[ROOK]
    ci.check_squares[KING] = 0
    ci.discoverers = slider_blockers(p, ksq, them) & p.by_color[p.side]

cdef inline bint move_gives_check(Position* p, CheckInfo* ci, Move m) noexcept nogil:
    cdef int frm = move_from(m), to = move_to(m)
    cdef bint result
    if move_kind(m) == NORMAL:
        if ci.check_squares[p.board[frm] & 7] & square_bb(to):
            return True
        return (ci.discoverers & square_bb(frm)) != 0 and not (LINE_BB[frm][ci.king] & square_bb(to))
    # promotions, en passant and castling are rare: play the move and look
    make_move(p, m)
    result = p.st.checkers != 0
    unmake_move(p, m)
    return result

# ---------------------------------------------------------------------------------------------
# Root-move reports (UCI `currmove`): once per root move, so taking the GIL costs nothing.

cdef void report_root_move(SearchData* sd, Move m, int number) noexcept nogil:
    with gil:
        try:
            (<object>sd.root_move_callback)(sd.root_depth, m, number)
        except Exception:
            pass

# ---------------------------------------------------------------------------------------------
# Limits

cdef enum:
    CHECK_INTERVAL_MAX = 1024

# The node limit is this search's own; the stop flag and the hard deadline come from the
# token.  They are read about every CHECK_PERIOD_MS: the number of nodes between readings
# doubles (up to CHECK_INTERVAL_MAX) while nodes are fast and shrinks to fit when they are
# slow, as when the search first writes the pages of a fresh large table (each a page fault).
# So the hard deadline is kept to about a millisecond whatever a node costs.
cdef double CHECK_PERIOD_MS = 0.5

cdef void check_clock(SearchData* sd) noexcept nogil:
    cdef double now = now_ms(), elapsed = now - sd.last_check_ms
    if elapsed > CHECK_PERIOD_MS:
        sd.check_interval = <int>(sd.check_interval * CHECK_PERIOD_MS / elapsed)
        if sd.check_interval < 1:
            sd.check_interval = 1
    elif sd.check_interval < CHECK_INTERVAL_MAX:
        sd.check_interval = min(2 * sd.check_interval, <int>CHECK_INTERVAL_MAX)
    sd.last_check_ms = now
    sd.check_countdown = sd.check_interval
    if stop_due(sd.token):
        store_int(&sd.stop, 1)
    if sd.smp != NULL:
        if sd.thread_index > 0:
            if load_int(&sd.smp.abort):
                store_int(&sd.stop, 1)
        elif sd.node_limit:
            sd.helper_nodes = helper_node_total(sd)

cdef uint64_t helper_node_total(SearchData* sd) noexcept nogil:
    cdef SearchData** helpers = <SearchData**>sd.helpers
    cdef uint64_t total = 0
    cdef int i
    for i in range(sd.helper_count):
        total += load_u64(&helpers[i].nodes)
    return total

cdef inline void check_limits(SearchData* sd) noexcept nogil:
    if sd.node_limit and sd.nodes + sd.helper_nodes >= sd.node_limit:
        store_int(&sd.stop, 1)
        return
    sd.check_countdown -= 1
    if sd.check_countdown <= 0:
        check_clock(sd)

# ---------------------------------------------------------------------------------------------
# Move ordering

cdef enum:
    SCORE_TT_MOVE = 1 << 30
    SCORE_GOOD_NOISY = 1 << 28
    SCORE_KILLER_1 = (1 << 27) + 2
    SCORE_KILLER_2 = (1 << 27) + 1
    SCORE_COUNTER = 1 << 27
    SCORE_BAD_NOISY = -(1 << 28)

cdef inline bint is_noisy(Position* p, Move m) noexcept nogil:
    cdef int kind = move_kind(m)
    if kind == CASTLING:
        return False
    return p.board[move_to(m)] != NO_PIECE or kind == EN_PASSANT or kind == PROMOTION

cdef inline int captured_type(Position* p, Move m) noexcept nogil:
    if move_kind(m) == EN_PASSANT:
        return PAWN
    if move_kind(m) == CASTLING:
        return NO_PIECE_TYPE
    return p.board[move_to(m)] & 7

# The continuation table of the move made `back` plies before this node (zeros if none).
cdef inline int* previous_continuation(SearchData* sd, int ply, int back) noexcept nogil:
    if ply >= back:
        return sd.cont_stack[ply - back]
    return sd.continuation_none

cdef void score_moves(SearchData* sd, Move* moves, int* scores, int n, Move tt_move, int ply) noexcept nogil:
    cdef Position* p = &sd.pos
    cdef int i, victim, piece, score, us = p.side
    cdef Move m, counter = MOVE_NONE, prev = p.st.move
    cdef int* cont1 = previous_continuation(sd, ply, 1)
    cdef int* cont2 = previous_continuation(sd, ply, 2)
    # the side's own moves four and six plies back, when FarContinuation is on (the zero
    # table otherwise, which adds nothing)
    cdef int* cont4 = previous_continuation(sd, ply, 4) if sd.on.far_cont else sd.continuation_none
    cdef int* cont6 = previous_continuation(sd, ply, 6) if sd.on.far_cont else sd.continuation_none
    if prev != MOVE_NONE and prev != MOVE_NULL:
        counter = sd.countermoves[p.board[move_to(prev)]][move_to(prev)]
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            scores[i] = SCORE_TT_MOVE
        elif is_noisy(p, m):
            victim = captured_type(p, m)
            piece = p.board[move_from(m)]
            score = SEE_VALUE[victim] * 16 + sd.capture_history[piece][move_to(m)][victim] // 16
            if move_kind(m) == PROMOTION:
                score += SEE_VALUE[promotion_type(m)] * 16 if promotion_type(m) == QUEEN else -20000
            if move_kind(m) == PROMOTION and promotion_type(m) != QUEEN:
                scores[i] = SCORE_BAD_NOISY + score
            else:
                # good until pick_move's exchange test says otherwise
                scores[i] = SCORE_GOOD_NOISY + score
        elif m == sd.killers[ply][0]:
            scores[i] = SCORE_KILLER_1
        elif m == sd.killers[ply][1]:
            scores[i] = SCORE_KILLER_2
        elif m == counter:
            scores[i] = SCORE_COUNTER
        else:
            piece = p.board[move_from(m)] * 64 + move_to(m)
            scores[i] = (sd.history[us][move_from(m)][move_to(m)] + cont1[piece] + cont2[piece]
                         + cont4[piece] + cont6[piece])

# Bring the best remaining move to index i (selection sort, one step per move tried).  A
# capture or promotion score_moves ranked good is only put to the exchange test (SEE) when it
# comes up: one that loses material drops to the bad ones and the pick is made again.  A move
# in the good range here has never been tested (a tested good one is picked at once), and the
# order is the one testing every capture first would give, without testing those a cutoff
# leaves unsearched.
cdef inline Move pick_move(Position* p, Move* moves, int* scores, int n, int i) noexcept nogil:
    cdef int best, j, s, top
    cdef Move m
    while True:
        best = i
        top = scores[i]
        for j in range(i + 1, n):
            if scores[j] > top:
                best = j
                top = scores[j]
        if not (SCORE_KILLER_1 < scores[best] < SCORE_TT_MOVE) or see_ge(p, moves[best], 0):
            break
        scores[best] += SCORE_BAD_NOISY - SCORE_GOOD_NOISY
    if best != i:
        m = moves[i]
        moves[i] = moves[best]
        moves[best] = m
        s = scores[i]
        scores[i] = scores[best]
        scores[best] = s
    return moves[i]

cdef inline int history_bonus(int depth) noexcept nogil:
    if depth > HISTORY_BONUS_DEPTH:
        depth = HISTORY_BONUS_DEPTH
    return HISTORY_BONUS_SCALE * depth * depth

cdef inline void update_history_entry(int* entry, int bonus) noexcept nogil:
    cdef int magnitude = bonus if bonus >= 0 else -bonus
    entry[0] += bonus - entry[0] * magnitude // HISTORY_MAX

# The continuation tables of the moves 1 and 2 plies back learn the bonus; with FarContinuation
# those of 4 and 6 plies back too, except in check (the evasion answers the check, not the
# side's own plan).
cdef inline void update_continuation(SearchData* sd, int ply, int index, int bonus) noexcept nogil:
    cdef int* table
    cdef int back
    cdef int last = 6 if sd.on.far_cont and not sd.pos.st.checkers else 2
    for back in range(1, last + 1):
        if back == 3 or back == 5:
            continue
        table = previous_continuation(sd, ply, back)
        if table != sd.continuation_none:
            update_history_entry(&table[index], bonus)

cdef void update_quiet_stats(SearchData* sd, Move best, Move* quiets, int quiet_count,
                             int depth, int ply) noexcept nogil:
    cdef Position* p = &sd.pos
    cdef int bonus = history_bonus(depth)
    cdef int i, us = p.side
    cdef Move prev = p.st.move
    if sd.killers[ply][0] != best:
        sd.killers[ply][1] = sd.killers[ply][0]
        sd.killers[ply][0] = best
    if prev != MOVE_NONE and prev != MOVE_NULL:
        sd.countermoves[p.board[move_to(prev)]][move_to(prev)] = best
    update_history_entry(&sd.history[us][move_from(best)][move_to(best)], bonus)
    update_continuation(sd, ply, p.board[move_from(best)] * 64 + move_to(best), bonus)
    for i in range(quiet_count):
        if quiets[i] != best:
            update_history_entry(&sd.history[us][move_from(quiets[i])][move_to(quiets[i])], -bonus)
            update_continuation(sd, ply, p.board[move_from(quiets[i])] * 64 + move_to(quiets[i]), -bonus)

cdef void update_capture_stats(SearchData* sd, Move best, Move* captures, int capture_count,
                               int depth) noexcept nogil:
    cdef Position* p = &sd.pos
    cdef int bonus = history_bonus(depth)
    cdef int i
    cdef Move m
    if is_noisy(p, best):
        update_history_entry(&sd.capture_history[p.board[move_from(best)]][move_to(best)][captured_type(p, best)], bonus)
    for i in range(capture_count):
        m = captures[i]
        if m != best:
            update_history_entry(&sd.capture_history[p.board[move_from(m)]][move_to(m)][captured_type(p, m)], -bonus)

cdef inline void update_pv(SearchData* sd, int ply, Move m) noexcept nogil:
    cdef int i
    sd.pv[ply][ply] = m
    for i in range(ply + 1, sd.pv_length[ply + 1]):
        sd.pv[ply][i] = sd.pv[ply + 1][i]
    sd.pv_length[ply] = sd.pv_length[ply + 1] if sd.pv_length[ply + 1] > ply + 1 else ply + 1

# Append the quiet moves that give check and do not lose material, scored below every capture.
cdef int add_quiet_checks(Position* p, Move* moves, int* scores, int n) noexcept nogil:
    cdef Move quiets[MAX_MOVES]
    cdef int q = generate_moves(p, GEN_QUIET, quiets), i
    cdef CheckInfo ci
    init_check_info(p, &ci)
    for i in range(q):
        if move_gives_check(p, &ci, quiets[i]) and see_ge(p, quiets[i], 0):
            moves[n] = quiets[i]
            scores[n] = SCORE_BAD_NOISY - 1
            n += 1
    return n

# ---------------------------------------------------------------------------------------------
# Correction history (see CORRECTION_SIZE)

cdef inline int* pawn_correction_entry(SearchData* sd, Position* p) noexcept nogil:
    return &sd.pawn_correction[p.side][p.st.pawn_key & (CORRECTION_SIZE - 1)]

cdef inline int* non_pawn_correction_entry(SearchData* sd, Position* p, int color) noexcept nogil:
    return &sd.non_pawn_correction[p.side][color][p.st.non_pawn_key[color] & (CORRECTION_SIZE - 1)]

# The network's evaluation `raw` scaled by the material and the fifty-move counter (see
# MATERIAL_SCALE_BASE).
cdef inline int scaled_network_eval(Position* p, int raw) noexcept nogil:
    cdef int material = (popcount(p.by_type[PAWN]) + 3 * popcount(p.by_type[KNIGHT] | p.by_type[BISHOP])
                         + 5 * popcount(p.by_type[ROOK]) + 9 * popcount(p.by_type[QUEEN]))
    cdef int64_t v = <int64_t>raw * (MATERIAL_SCALE_BASE + material) * (FIFTY_DAMPING - p.st.rule50)
    return <int>(v // ((MATERIAL_SCALE_BASE + 78) * FIFTY_DAMPING))

# The static evaluation the search uses: the evaluation `raw` (as the table keeps it) scaled
# when NetworkScaling says so, then by the correction histories (CorrectionHistory), kept inside the
# evaluation's range (VALUE_NONE stays VALUE_NONE).
cdef inline int corrected_eval(SearchData* sd, Position* p, int raw) noexcept nogil:
    cdef int v
    if raw == VALUE_NONE:
        return raw
    if sd.on.net_scaling and p.nnue != NULL:
        raw = scaled_network_eval(p, raw)
    if not sd.on.correct:
        return raw
    v = raw + (pawn_correction_entry(sd, p)[0] + non_pawn_correction_entry(sd, p, WHITE)[0]
               + non_pawn_correction_entry(sd, p, BLACK)[0]) // CORRECTION_GRAIN
    if v > EVAL_LIMIT:
        return EVAL_LIMIT
    if v < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return v

# One correction entry learns `diff` with weight `weight` (see CORRECTION_SIZE).
cdef inline void learn_correction(int* e, int diff, int weight) noexcept nogil:
    cdef int v = (e[0] * (CORRECTION_WEIGHT_SCALE - weight) + diff * CORRECTION_GRAIN * weight) // CORRECTION_WEIGHT_SCALE
    if v > CORRECTION_LIMIT:
        v = CORRECTION_LIMIT
    if v < -CORRECTION_LIMIT:
        v = -CORRECTION_LIMIT
    e[0] = v

# A search `depth` deep found this position worth `diff` more than its corrected evaluation.
cdef inline void update_correction(SearchData* sd, Position* p, int diff, int depth) noexcept nogil:
    cdef int weight = depth * depth + 2 * depth + 1
    if weight > CORRECTION_WEIGHT_MAX:
        weight = CORRECTION_WEIGHT_MAX
    learn_correction(pawn_correction_entry(sd, p), diff, weight)
    learn_correction(non_pawn_correction_entry(sd, p, WHITE), diff, weight)
    learn_correction(non_pawn_correction_entry(sd, p, BLACK), diff, weight)

# ---------------------------------------------------------------------------------------------
# Quiescence: captures and promotions until the position is quiet; all evasions in check.

cdef int qsearch(SearchData* sd, int alpha, int beta, int ply, int qdepth) noexcept nogil:
    cdef Position* p = &sd.pos
    cdef bint pv_node = beta - alpha > 1
    cdef bint in_check = p.st.checkers != 0
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, score, best_score, stand_pat, raw_eval = VALUE_NONE, tt_score = VALUE_NONE, bound
    cdef Move m, tt_move = MOVE_NONE, best_move = MOVE_NONE
    cdef bint found
    cdef TTEntry* tte

    sd.pv_length[ply] = ply
    sd.nodes += 1
    check_limits(sd)
    if load_int(&sd.stop):
        return 0
    if ply > sd.seldepth:
        sd.seldepth = ply
    if is_draw(p, ply):
        return VALUE_DRAW
    if ply >= MAX_PLY - 2:
        return evaluate(p) if not in_check else VALUE_DRAW

    tte = tt_probe(sd.tt, p.st.key, &found)
    if found:
        tt_move = tte.move
        tt_score = score_from_tt(tte.score, ply, p.st.rule50)
        bound = tte.gen_bound & 3
        if (not pv_node and tt_score != VALUE_NONE and tte.depth8 - DEPTH_OFFSET >= (0 if qdepth == 0 else -1)
                and ((bound == BOUND_LOWER and tt_score >= beta) or (bound == BOUND_UPPER and tt_score <= alpha)
                     or bound == BOUND_EXACT)):
            return tt_score

    if in_check:
        best_score = -VALUE_INFINITE
        stand_pat = VALUE_NONE
        n = generate_moves(p, GEN_ALL, moves)
        if n == 0:
            return mated_in(ply)
    else:
        raw_eval = tte.eval if found and tte.eval != VALUE_NONE else evaluate(p)
        stand_pat = corrected_eval(sd, p, raw_eval)
        best_score = stand_pat
        if tt_score != VALUE_NONE and ((tt_score > stand_pat and (tte.gen_bound & BOUND_LOWER))
                                        or (tt_score < stand_pat and (tte.gen_bound & BOUND_UPPER))):
            best_score = tt_score
        if best_score >= beta:
            if not found:
                tt_store(sd.tt, tte, p.st.key, score_to_tt(best_score, ply), raw_eval, BOUND_LOWER, -1, MOVE_NONE)
            return best_score
        if best_score > alpha:
            alpha = best_score
        n = generate_moves(p, GEN_NOISY, moves)

    score_moves(sd, moves, scores, n, tt_move, ply)
    if not in_check and qdepth == 0:
        # At the first quiescence ply quiet checks are searched too, after the captures, so
        # that a mate threat behind a null move or a reduction is not overlooked.
        n = add_quiet_checks(p, moves, scores, n)
    for i in range(n):
        m = pick_move(p, moves, scores, n, i)
        if not in_check:
            if move_kind(m) == PROMOTION and promotion_type(m) != QUEEN:
                continue
            # delta pruning: even winning the piece cannot bring the score near alpha
            if (move_kind(m) != PROMOTION and is_noisy(p, m)
                    and stand_pat + SEE_VALUE[captured_type(p, m)] + QS_DELTA_MARGIN <= alpha):
                continue
            if scores[i] < 0 and scores[i] != SCORE_BAD_NOISY - 1:
                continue   # losing captures (negative SEE) are not worth a look here
        elif best_score > VALUE_MATED_IN_MAX_PLY and not is_noisy(p, m) and i >= 2 and scores[i] < 0:
            continue   # in check: after two evasions, quiet ones with poor history are skipped
        tt_prefetch(sd.tt, key_after(p, m))
        sd.cont_stack[ply] = &sd.continuation[p.board[move_from(m)]][move_to(m)][0][0]
        make_move(p, m)
        score = -qsearch(sd, -beta, -alpha, ply + 1, qdepth + 1)
        unmake_move(p, m)
        if load_int(&sd.stop):
            return 0
        if score > best_score:
            best_score = score
            if score > alpha:
                best_move = m
                if pv_node:
                    update_pv(sd, ply, m)
                if score >= beta:
                    break
                alpha = score

    if in_check and best_score == -VALUE_INFINITE:
        return mated_in(ply)
    bound = BOUND_LOWER if best_score >= beta else (BOUND_EXACT if pv_node and best_move != MOVE_NONE else BOUND_UPPER)
    tt_store(sd.tt, tte, p.st.key, score_to_tt(best_score, ply),
             raw_eval, bound, 0 if qdepth == 0 else -1, best_move)
    return best_score

# ---------------------------------------------------------------------------------------------
# The main search.  Step numbers follow the order in which a node is handled.

cdef int search(SearchData* sd, int alpha, int beta, int depth, int ply, bint cut_node) noexcept nogil:
    cdef Position* p = &sd.pos
    cdef bint pv_node = beta - alpha > 1
    cdef bint root = ply == 0
    cdef bint in_check, found, improving, gives_check, noisy, quiet, skip_quiets = False, staged = False
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Move quiets_tried[64]
    cdef Move noisy_tried[32]
    cdef int quiet_count = 0, noisy_count = 0
    cdef int n, i, score, best_score, static_eval, eval, tt_score = VALUE_NONE, bound, tt_depth = -99
    cdef int raw_eval = VALUE_NONE
    cdef int move_count = 0, new_depth, r, reduced, extension, lmr_depth, null_r, idx, k
    cdef int singular_beta, history_margin, tt_bound = BOUND_NONE
    cdef Move m, tt_move = MOVE_NONE, best_move = MOVE_NONE
    cdef Move excluded = sd.excluded[ply]
    cdef uint64_t root_nodes = 0
    cdef TTEntry* tte
    cdef RootMove* rm
    cdef CheckInfo ci

    # Step 1. Quiescence at the horizon
    if depth <= 0:
        return qsearch(sd, alpha, beta, ply, 0)

    # Step 2. Node bookkeeping, limits, draws, mate distance pruning
    sd.pv_length[ply] = ply
    sd.nodes += 1
    check_limits(sd)
    if load_int(&sd.stop):
        return 0
    if ply > sd.seldepth:
        sd.seldepth = ply
    in_check = p.st.checkers != 0
    if not root:
        if is_draw(p, ply):
            return VALUE_DRAW
        if ply >= MAX_PLY - 2:
            return evaluate(p) if not in_check else VALUE_DRAW
        if alpha < mated_in(ply):
            alpha = mated_in(ply)
        if beta > mate_in(ply + 1):
            beta = mate_in(ply + 1)
        if alpha >= beta:
            return alpha

    if ply + 2 < MAX_PLY + 4:
        sd.killers[ply + 2][0] = MOVE_NONE
        sd.killers[ply + 2][1] = MOVE_NONE
        sd.excluded[ply + 1] = MOVE_NONE
    if root:
        sd.double_extensions[0] = 0

    # Step 3. Transposition table
    tte = tt_probe(sd.tt, p.st.key, &found)
    if root:
        tt_move = sd.root_moves[sd.pv_index].move
    elif found:
        tt_move = tte.move
    if found:
        tt_score = score_from_tt(tte.score, ply, p.st.rule50)
        tt_depth = tte.depth8 - DEPTH_OFFSET
        bound = tte.gen_bound & 3
        tt_bound = bound
        # (a singular test's node has the table entry of the full node: it cannot stand in)
        if (not pv_node and excluded == MOVE_NONE and tt_depth >= depth and tt_score != VALUE_NONE
                and ((bound == BOUND_LOWER and tt_score >= beta) or (bound == BOUND_UPPER and tt_score <= alpha)
                     or bound == BOUND_EXACT)):
            return tt_score

    # Step 3b. Tablebases: after a capture or pawn move, a position the tables hold gets its
    # exact result: a draw ends the node, a win is a lower bound and a loss an upper bound,
    # stored in the table (deeper than this search needs: it is exact).
    if (sd.tb != NULL and not root and excluded == MOVE_NONE and p.st.rule50 == 0
            and p.st.castling == 0 and sd.tb_cardinality > 0):
        idx = popcount(p.by_type[ALL_PIECES])
        if idx <= sd.tb_cardinality and (idx < sd.tb_cardinality or depth >= sd.tb_probe_depth):
            score = tb_probe_wdl(sd.tb, p, &r)
            if r:
                sd.tb_hits += 1
                r = 1 if sd.tb_rule50 else 0      # |wdl| up to this is a draw
                if score < -r:
                    score = -VALUE_TB_WIN + ply
                    bound = BOUND_UPPER
                elif score > r:
                    score = VALUE_TB_WIN - ply
                    bound = BOUND_LOWER
                else:
                    score = VALUE_DRAW
                    bound = BOUND_EXACT
                if (bound == BOUND_EXACT or (bound == BOUND_LOWER and score >= beta)
                        or (bound == BOUND_UPPER and score <= alpha)):
                    tt_store(sd.tt, tte, p.st.key, score_to_tt(score, ply), VALUE_NONE, bound,
                             depth + 6 if depth + 6 < MAX_PLY - 1 else MAX_PLY - 1, MOVE_NONE)
                    return score

    # Step 4. Static evaluation
    if in_check:
        static_eval = VALUE_NONE
        eval = VALUE_NONE
        sd.static_eval[ply] = VALUE_NONE
        improving = False
    else:
        raw_eval = tte.eval if found and tte.eval != VALUE_NONE else evaluate(p)
        static_eval = corrected_eval(sd, p, raw_eval)
        eval = static_eval
        sd.static_eval[ply] = static_eval
        if tt_score != VALUE_NONE and ((tt_score > eval and (tte.gen_bound & BOUND_LOWER))
                                        or (tt_score < eval and (tte.gen_bound & BOUND_UPPER))):
            eval = tt_score
        if not found and excluded == MOVE_NONE:
            tt_store(sd.tt, tte, p.st.key, VALUE_NONE, raw_eval, BOUND_NONE, -1, MOVE_NONE)
        if ply >= 2 and sd.static_eval[ply - 2] != VALUE_NONE:
            improving = static_eval > sd.static_eval[ply - 2]
        elif ply >= 4 and sd.static_eval[ply - 4] != VALUE_NONE:
            improving = static_eval > sd.static_eval[ply - 4]
        else:
            improving = True

    if not pv_node and not in_check and excluded == MOVE_NONE:
        # Step 5. Reverse futility pruning: far above beta at low depth
        # (not when beta is a mated score: that would hide a faster mate of the defender)
        if (depth <= BETA_PRUNING_DEPTH and eval - BETA_MARGIN * (depth - improving) >= beta
                and eval < VALUE_MATE_IN_MAX_PLY
                and beta > VALUE_MATED_IN_MAX_PLY):
            return eval

        # Step 6. Razoring: hopeless at depth 1-2 unless a capture saves it
        if depth <= ALPHA_PRUNING_DEPTH and eval + ALPHA_MARGIN + ALPHA_MARGIN_PER_DEPTH2 * depth * depth <= alpha:
            score = qsearch(sd, alpha, alpha + 1, ply, 0)
            if score <= alpha:
                return score

        # Step 7. Null-move pruning, not in pawn endings (zugzwang) nor twice in a row
        if (depth >= NULL_MOVE_PRUNING_DEPTH and eval >= beta and static_eval >= beta and p.st.move != MOVE_NULL
                and has_non_pawn_material(p, p.side) and beta > VALUE_MATED_IN_MAX_PLY
                and (ply >= sd.nmp_min_ply or p.side != sd.nmp_color)):
            null_r = NULL_MOVE_REDUCTION + depth // NULL_MOVE_DEPTH_DIVISOR + (
                NULL_MOVE_MAX_EVAL_REDUCTION if (eval - beta) // NULL_MOVE_EVAL_DIVISOR > NULL_MOVE_MAX_EVAL_REDUCTION
                else (eval - beta) // NULL_MOVE_EVAL_DIVISOR)
            sd.cont_stack[ply] = sd.continuation_none
            make_null_move(p)
            tt_prefetch(sd.tt, p.st.key)
            sd.static_eval[ply + 1] = VALUE_NONE
            score = -search(sd, -beta, -beta + 1, depth - null_r, ply + 1, not cut_node)
            unmake_null_move(p)
            if load_int(&sd.stop):
                return 0
            if score >= beta:
                if score >= VALUE_MATE_IN_MAX_PLY:
                    score = beta
                # at high depth, verify with a reduced normal search (zugzwang guard); one
                # verification at a time
                if depth < NULL_MOVE_VERIFICATION_DEPTH or sd.nmp_min_ply:
                    return score
                sd.nmp_min_ply = ply + 3 * (depth - null_r) // 4
                sd.nmp_color = p.side
                score = search(sd, beta - 1, beta, depth - null_r, ply, False)
                sd.nmp_min_ply = 0
                if score >= beta:
                    return score

    # Step 8. Internal iterative reduction: no table move to guide a deep node
    if depth >= IIR_DEPTH and tt_move == MOVE_NONE and (pv_node or cut_node):
        depth -= 1

    # Step 9. Move loop
    if root:
        n = 0
        for i in range(sd.pv_index, sd.root_count):
            moves[n] = sd.root_moves[i].move
            scores[n] = sd.root_count - i     # keep the order of the previous iteration
            n += 1
    elif tt_move != MOVE_NONE and move_is_legal(p, tt_move):
        # the table's move is tried alone first: the others are generated and scored (with
        # the histories its search left) only if it does not cut off
        moves[0] = tt_move
        scores[0] = SCORE_TT_MOVE
        n = 1
        staged = True
    else:
        n = generate_moves(p, GEN_ALL, moves)
        if n == 0:
            return mated_in(ply) if in_check else VALUE_DRAW
        score_moves(sd, moves, scores, n, tt_move, ply)

    best_score = -VALUE_INFINITE
    init_check_info(p, &ci)
    for i in range(MAX_MOVES):
        if i == n:
            if not staged:
                break
            staged = False
            # the rest after the table's move: it is among them (it is legal) and leaves
            # its place to the last one
            k = generate_moves(p, GEN_ALL, moves + 1)
            for idx in range(1, k + 1):
                if moves[idx] == tt_move:
                    moves[idx] = moves[k]
                    break
            n = k
            score_moves(sd, moves + 1, scores + 1, n - 1, MOVE_NONE, ply)
            if i == n:
                break
        m = pick_move(p, moves, scores, n, i)
        if m == excluded:
            continue
        noisy = is_noisy(p, m)
        quiet = not noisy
        gives_check = move_gives_check(p, &ci, m)
        if quiet and skip_quiets and not gives_check and m != tt_move:
            continue
        move_count += 1

        r = LMR_TABLE[depth if depth < 64 else 63][move_count if move_count < 64 else 63]

        # Step 10. Shallow-depth pruning of moves that cannot raise alpha
        if not root and best_score > VALUE_MATED_IN_MAX_PLY and has_non_pawn_material(p, p.side):
            if move_count >= (LATE_MOVE_PRUNING_BASE + depth * depth) // (2 - improving):
                skip_quiets = True   # late quiet moves are not searched, except checks
                if quiet and not gives_check:
                    continue
            if quiet and not gives_check:
                lmr_depth = depth - 1 - r
                if lmr_depth < 0:
                    lmr_depth = 0
                history_margin = 0
                if sd.on.hist_prune and scores[i] < SCORE_COUNTER:
                    # a move the histories rate badly enough is not tried near the horizon
                    if lmr_depth < HISTORY_PRUNING_DEPTH and scores[i] < -HISTORY_PRUNING_MARGIN * depth:
                        continue
                    history_margin = scores[i] // FUTILITY_HISTORY_DIVISOR
                # futility: a quiet move cannot lift a static evaluation this far below alpha
                if (not in_check and lmr_depth <= FUTILITY_PRUNING_DEPTH
                        and static_eval + FUTILITY_MARGIN_BASE + FUTILITY_MARGIN_PER_DEPTH * lmr_depth
                            + history_margin <= alpha):
                    continue
                if lmr_depth <= SEE_PRUNING_DEPTH and not see_ge(p, m, SEE_QUIET_MARGIN * lmr_depth * lmr_depth):
                    continue
            elif depth <= SEE_PRUNING_DEPTH and scores[i] < SCORE_GOOD_NOISY and not see_ge(p, m, SEE_NOISY_MARGIN * depth):
                continue

        tt_prefetch(sd.tt, key_after(p, m))

        # Step 11. Extensions (bounded so that a line cannot run away).  The table move is
        # tested for singularity (see SINGULAR_DEPTH); any other move giving check is extended.
        extension = 0
        if ply < 2 * sd.root_depth:
            if (sd.on.singular and not root and m == tt_move and excluded == MOVE_NONE
                    and depth >= SINGULAR_DEPTH and tt_depth >= depth - SINGULAR_TT_DEPTH_SLACK
                    and (tt_bound & BOUND_LOWER) and tt_score != VALUE_NONE
                    and -VALUE_WON < tt_score < VALUE_WON):
                singular_beta = tt_score - SINGULAR_MARGIN_PER_DEPTH * depth
                sd.excluded[ply] = m
                score = search(sd, singular_beta - 1, singular_beta, (depth - 1) // 2, ply, cut_node)
                sd.excluded[ply] = MOVE_NONE
                if load_int(&sd.stop):
                    return 0
                if score < singular_beta:
                    extension = 1
                    if (not pv_node and score < singular_beta - DOUBLE_EXTENSION_MARGIN
                            and sd.double_extensions[ply] < DOUBLE_EXTENSION_LIMIT):
                        extension = 2
                elif singular_beta >= beta:
                    return singular_beta
                elif tt_score >= beta or tt_score <= score:
                    extension = -1
            elif gives_check:
                extension = 1
        new_depth = depth - 1 + extension
        sd.double_extensions[ply + 1] = sd.double_extensions[ply] + (extension == 2)

        if root and sd.root_move_callback != NULL:
            report_root_move(sd, m, move_count + sd.pv_index)
        sd.cont_stack[ply] = &sd.continuation[p.board[move_from(m)]][move_to(m)][0][0]
        if root:
            root_nodes = sd.nodes
        make_move(p, m)

        # Step 12. Late move reductions, then principal variation search
        if depth >= LMR_DEPTH and move_count > 1 + pv_node and (quiet or scores[i] < SCORE_GOOD_NOISY):
            if quiet:
                r += not pv_node
                r += cut_node
                r += not improving
                if scores[i] >= SCORE_COUNTER:
                    r -= 1
                else:
                    r -= scores[i] // LMR_HISTORY_DIVISOR
            else:
                r = r // 2
            if in_check or gives_check:
                r -= 1
            reduced = new_depth - r
            if reduced > new_depth:
                reduced = new_depth
            if reduced < 1:
                reduced = 1
            score = -search(sd, -alpha - 1, -alpha, reduced, ply + 1, True)
            if score > alpha and reduced < new_depth:
                score = -search(sd, -alpha - 1, -alpha, new_depth, ply + 1, not cut_node)
        elif not pv_node or move_count > 1:
            score = -search(sd, -alpha - 1, -alpha, new_depth, ply + 1, not cut_node)
        if pv_node and (move_count == 1 or (score > alpha and (root or score < beta))):
            score = -search(sd, -beta, -alpha, new_depth, ply + 1, False)

        unmake_move(p, m)
        if load_int(&sd.stop):
            return 0

        # Step 13. Root bookkeeping for the driver: scores and lines of every root move
        if root:
            for idx in range(sd.pv_index, sd.root_count):
                if sd.root_moves[idx].move == m:
                    rm = &sd.root_moves[idx]
                    rm.nodes += sd.nodes - root_nodes
                    if move_count == 1 or score > alpha:
                        rm.score = score
                        rm.seldepth = sd.seldepth
                        rm.pv[0] = m
                        rm.pv_length = 1
                        while rm.pv_length < sd.pv_length[1] and rm.pv_length < MAX_PLY:
                            rm.pv[rm.pv_length] = sd.pv[1][rm.pv_length]
                            rm.pv_length += 1
                    else:
                        rm.score = -VALUE_INFINITE
                    break

        if score > best_score:
            best_score = score
            if score > alpha:
                best_move = m
                if pv_node and not root:
                    update_pv(sd, ply, m)
                if score >= beta:
                    break
                alpha = score

        if m != best_move:
            if quiet and quiet_count < 64:
                quiets_tried[quiet_count] = m
                quiet_count += 1
            elif noisy and noisy_count < 32:
                noisy_tried[noisy_count] = m
                noisy_count += 1

    if move_count == 0:
        # every move was pruned (only possible with moves left), or the singular test's
        # excluded move was the only one: fail low safely
        return alpha if not in_check or excluded != MOVE_NONE else mated_in(ply)

    # Step 14. Histories and the table: they learn from a move that failed high, and with
    # best_history also from the best move of a PV node that raised alpha without failing high.
    if best_move != MOVE_NONE and (best_score >= beta or sd.on.best_history):
        if not is_noisy(p, best_move):
            update_quiet_stats(sd, best_move, quiets_tried, quiet_count, depth, ply)
        update_capture_stats(sd, best_move, noisy_tried, noisy_count, depth)

    if not (root and sd.pv_index > 0) and excluded == MOVE_NONE:
        bound = BOUND_LOWER if best_score >= beta else (BOUND_EXACT if pv_node and best_move != MOVE_NONE else BOUND_UPPER)
        # The correction learns from a quiet result (no capture or promotion best) that says
        # more than a bound on the wrong side of the static evaluation.
        if (sd.on.correct and not in_check and (best_move == MOVE_NONE or not is_noisy(p, best_move))
                and not (bound == BOUND_LOWER and best_score <= static_eval)
                and not (bound == BOUND_UPPER and best_score >= static_eval)
                and -VALUE_WON < best_score < VALUE_WON):
            update_correction(sd, p, best_score - static_eval, depth)
        tt_store(sd.tt, tte, p.st.key, score_to_tt(best_score, ply), raw_eval, bound, depth, best_move)
    return best_score

# ---------------------------------------------------------------------------------------------
# The root.  Every thread runs the same routines: the set-up of a search (its root moves, its
# counters), one iteration of its MultiPV lines in aspiration windows, and the history reset of
# a new game.  The Python driver calls search_iteration_c once per iteration (reporting a failed
# window through a callback); a helper thread and self-play call it from their own iterative
# deepening in C.

# Collect the root moves of sd.pos, ordered by the table move and the capture, killer and history
# scores; with allowed (not NULL) only those among its allowed_count moves.  Returns how many.
cdef int setup_root_c(SearchData* sd, Move* allowed, int allowed_count) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n = generate_moves(&sd.pos, GEN_ALL, moves), i, j, k = 0
    cdef bint found, wanted
    cdef TTEntry* tte = tt_probe(sd.tt, sd.pos.st.key, &found)
    cdef Move m
    cdef RootMove* rm
    score_moves(sd, moves, scores, n, tte.move if found else MOVE_NONE, 0)
    for i in range(n):
        m = pick_move(&sd.pos, moves, scores, n, i)
        if allowed != NULL:
            wanted = False
            for j in range(allowed_count):
                if allowed[j] == m:
                    wanted = True
                    break
            if not wanted:
                continue
        rm = &sd.root_moves[k]
        rm.move = m
        rm.score = -VALUE_INFINITE
        rm.previous_score = -VALUE_INFINITE
        rm.pv[0] = m
        rm.pv_length = 1
        rm.seldepth = 0
        rm.nodes = 0
        k += 1
    sd.root_count = k
    return k

# Reset the counters for a search of sd's root moves that ends at node_limit (0: none) or when
# its token says; the killers are forgotten and the table starts a new generation.
cdef void begin_search_c(SearchData* sd, uint64_t node_limit) noexcept nogil:
    sd.pv_index = 0
    sd.nodes = 0
    sd.node_limit = node_limit
    sd.start_ms = now_ms()
    sd.check_countdown = 0
    sd.check_interval = 1
    sd.last_check_ms = sd.start_ms
    sd.seldepth = 0
    sd.stop = 1 if stop_due(sd.token) else 0
    sd.helper_nodes = 0
    sd.counted_depth = 0
    memset(sd.line_scores, 0, sizeof(sd.line_scores))
    tt_new_search(sd.tt)
    memset(sd.killers, 0, sizeof(sd.killers))

# Forget the move-ordering statistics (histories, killers, countermoves) and the pawn cache: a
# search after it depends on nothing searched before but the table.
cdef void clear_histories_c(SearchData* sd) noexcept nogil:
    memset(sd.history, 0, sizeof(sd.history))
    memset(sd.capture_history, 0, sizeof(sd.capture_history))
    memset(sd.killers, 0, sizeof(sd.killers))
    memset(sd.countermoves, 0, sizeof(sd.countermoves))
    memset(sd.continuation, 0, sizeof(sd.continuation))
    memset(sd.pawn_correction, 0, sizeof(sd.pawn_correction))
    memset(sd.non_pawn_correction, 0, sizeof(sd.non_pawn_correction))
    clear_pawn_cache(<PawnEntry*>sd.pos.pawn_cache)

# One root search of the given depth and window for MultiPV line pv_index.
cdef int search_root_c(SearchData* sd, int depth, int alpha, int beta, int pv_index) noexcept nogil:
    cdef int i
    for i in range(pv_index, sd.root_count):
        sd.root_moves[i].previous_score = sd.root_moves[i].score
        sd.root_moves[i].score = -VALUE_INFINITE
    sd.root_depth = depth
    sd.pv_index = pv_index
    if sd.smp != NULL and sd.thread_index == 0 and pv_index == 0 and depth != sd.counted_depth \
            and depth <= MAX_PLY:
        sd.counted_depth = depth
        fetch_add_int(&sd.smp.depth_count[depth], 1)
    return search(sd, alpha, beta, depth, 0, False)

# Stable sort of root moves start.. by score, best first.
cdef void sort_root_c(SearchData* sd, int start) noexcept nogil:
    cdef int i, j
    cdef RootMove tmp
    for i in range(start + 1, sd.root_count):
        j = i
        while j > start and sd.root_moves[j - 1].score < sd.root_moves[j].score:
            tmp = sd.root_moves[j]
            sd.root_moves[j] = sd.root_moves[j - 1]
            sd.root_moves[j - 1] = tmp
            j -= 1

# True once this search must end: its stop flag, or its token (stopped, or past the hard
# deadline) even where the search has not looked at it since.
cdef inline bint search_stopped(SearchData* sd) noexcept nogil:
    if load_int(&sd.stop):
        return True
    if stop_due(sd.token):
        store_int(&sd.stop, 1)
        return True
    return False

# x / 2 rounded toward minus infinity (C division rounds toward zero).
cdef inline int floor_half(int x) noexcept nogil:
    return (x - (x & 1)) // 2

# A failed aspiration window (UCI `info ... upperbound|lowerbound`): at most a few per
# iteration, so taking the GIL costs nothing.  A callback that returns False stops the search.
cdef void report_window(SearchData* sd, int depth, int pv_index, bint fail_low) noexcept nogil:
    with gil:
        try:
            if not (<object>sd.window_callback)(depth, pv_index, fail_low):
                store_int(&sd.stop, 1)
        except BaseException:
            store_int(&sd.stop, 1)

# MultiPV line pv_index searched to `depth` in an aspiration window around the line's score of
# the previous iteration (see WINDOW_DEPTH); after each failure the root moves from pv_index on
# are sorted and the failure reported (window_callback).  Returns the score (meaningless once
# the search is stopped).
cdef int aspiration_window(SearchData* sd, int depth, int pv_index) noexcept nogil:
    cdef int previous = sd.line_scores[pv_index]
    cdef int delta = WINDOW_SIZE, alpha, beta, score
    cdef bint fail_low
    if depth < WINDOW_DEPTH or previous >= VALUE_MATE_IN_MAX_PLY or previous <= VALUE_MATED_IN_MAX_PLY:
        return search_root_c(sd, depth, -VALUE_INFINITE, VALUE_INFINITE, pv_index)
    alpha = max(previous - delta, -VALUE_INFINITE)
    beta = min(previous + delta, VALUE_INFINITE)
    while True:
        score = search_root_c(sd, depth, alpha, beta, pv_index)
        if search_stopped(sd):
            return score
        if score <= alpha:
            beta = floor_half(alpha + beta)
            alpha = max(score - delta, -VALUE_INFINITE)
            fail_low = True
        elif score >= beta:
            beta = min(score + delta, VALUE_INFINITE)
            fail_low = False
        else:
            return score
        sort_root_c(sd, pv_index)
        if sd.window_callback != NULL:
            report_window(sd, depth, pv_index, fail_low)
        delta += delta // 2 + WINDOW_GROWTH

# One iteration: MultiPV lines 0..lines-1 in turn, each an aspiration window whose score becomes
# the line's (sd.line_scores) and whose moves are then sorted below the earlier lines; once all
# are done every root move is sorted, best first (a later line can score above an earlier one:
# the searches are not exact).  Returns how many lines were finished before a stop.
cdef int search_iteration_c(SearchData* sd, int depth, int lines) noexcept nogil:
    cdef int pv_index, score
    for pv_index in range(lines):
        score = aspiration_window(sd, depth, pv_index)
        if search_stopped(sd):
            return pv_index
        sd.line_scores[pv_index] = score
        sort_root_c(sd, pv_index)
    sort_root_c(sd, 0)
    return lines

# A helper thread: iterate until told to stop (or max_depth), recording each finished iteration.
cdef void helper_main(void* arg) noexcept nogil:
    cdef SearchData* sd = <SearchData*>arg
    cdef SmpState* smp = sd.smp
    cdef int depth
    for depth in range(1, sd.max_depth + 1):
        if load_int(&sd.stop) or load_int(&smp.abort):
            break
        # Leave a depth to the threads already on it when they are half of all threads
        # (never the last one: a helper must not run out of depths before the main thread).
        if (depth > 1 and depth < sd.max_depth and depth <= MAX_PLY
                and 2 * load_int(&smp.depth_count[depth]) >= smp.thread_count):
            continue
        if depth <= MAX_PLY:
            fetch_add_int(&smp.depth_count[depth], 1)
        if search_iteration_c(sd, depth, 1) < 1:
            break
        sd.completed = sd.root_moves[0]
        sd.completed_depth = depth
