# Exact mate search for puzzles and `go mate`: a full-width AND/OR proof search with no
# pruning that could hide a mate.  The attacker needs one move that works, the defender must
# be beaten after every reply.  Only two sound shortcuts are taken: with one move left only
# checking moves can mate, and proven or refuted positions are remembered per moves-left.
#
# The table is keyed on the position only, so it must hold only results that do not depend on
# the way the position was reached.  Two automatic draws do depend on it: the 75-move rule and
# fivefold repetition.  A result whose proof met one of them is not remembered (the `draws`
# counter tells), and a remembered mate is used only while the 75-move rule cannot interrupt it.
# With that the table stays valid from one position to the next and is never cleared between
# proofs (only by clear()).

cdef enum:
    MATE_TABLE_BITS = 20
    MAX_MATE_MOVES = 60         # the deepest proof asked for (moves of the attacker)

# One remembered result: the attacker (side to move) mates within `mate_within` moves when
# that is > 0; it cannot within `no_mate_within` moves.
ctypedef struct MateEntry:
    uint64_t key
    int8_t mate_within
    int8_t no_mate_within

ctypedef struct MateSolver:
    Position pos
    MateEntry* table
    uint64_t nodes
    uint64_t node_limit          # 0 = none
    StopState* token             # the search's stop token (owned by the MateSearch object)
    double deadline_ms           # this proof's own time limit (absolute), 0 = none
    int countdown                # nodes to the next poll of the token
    int cut                      # 1 once a limit ended the proof (stays until reset)
    uint64_t draws               # automatic draws (75 moves, fivefold) met so far

# True when the proof must end now: node limit, stop, or the hard deadline.
cdef inline bint mate_cut(MateSolver* ms) noexcept nogil:
    if ms.cut:
        return True
    if ms.node_limit and ms.nodes >= ms.node_limit:
        ms.cut = 1
        return True
    ms.countdown -= 1
    if ms.countdown > 0:
        if load_int(&ms.token.stop):
            ms.cut = 1
        return ms.cut
    ms.countdown = 1024
    if (ms.deadline_ms > 0 and now_ms() >= ms.deadline_ms) or stop_due(ms.token):
        ms.cut = 1
    return ms.cut

cdef inline MateEntry* mate_entry(MateSolver* ms, uint64_t key) noexcept nogil:
    return &ms.table[key & ((1 << MATE_TABLE_BITS) - 1)]

cdef int attacker_mates(MateSolver* ms, int moves_left) noexcept nogil:
    """1 when the side to move forces mate within moves_left moves, 0 when it cannot,
    -1 when the node limit or a stop request cut the proof short."""
    cdef Position* p = &ms.pos
    cdef Move moves[MAX_MOVES]
    cdef int n, i, result, any_unknown = 0
    cdef MateEntry* e = mate_entry(ms, p.st.key)
    cdef CheckInfo ci
    cdef Move m
    cdef uint64_t draws_before
    if e.key == p.st.key:
        if (e.mate_within > 0 and e.mate_within <= moves_left
                and p.st.rule50 + 2 * e.mate_within < 150):
            return 1
        if e.no_mate_within >= moves_left:
            return 0
    ms.nodes += 1
    if mate_cut(ms):
        return -1
    draws_before = ms.draws
    n = generate_moves(p, GEN_ALL, moves)
    init_check_info(p, &ci)
    # Checks first, then captures: mates are found sooner, the order never changes the answer.
    order_for_mate(p, &ci, moves, n)
    for i in range(n):
        m = moves[i]
        if moves_left == 1 and not move_gives_check(p, &ci, m):
            continue
        make_move(p, m)
        result = defender_loses(ms, moves_left)
        unmake_move(p, m)
        if result == 1:
            if ms.draws == draws_before:
                remember_mate(ms, p.st.key, moves_left, True)
            return 1
        if result < 0:
            any_unknown = 1
    if any_unknown:
        return -1
    if ms.draws == draws_before:
        remember_mate(ms, p.st.key, moves_left, False)
    return 0

cdef int defender_loses(MateSolver* ms, int moves_left) noexcept nogil:
    """After the attacker's move: 1 when every defence loses within the remaining moves_left - 1
    attacker moves (or this is mate already), 0 when one defence holds, -1 when cut short."""
    cdef Position* p = &ms.pos
    cdef Move moves[MAX_MOVES]
    cdef int n, i, result, any_unknown = 0
    # Counted and polled here too: a proof that lives on remembered results visits few
    # attacker nodes.
    ms.nodes += 1
    if mate_cut(ms):
        return -1
    n = generate_moves(p, GEN_ALL, moves)
    if n == 0:
        return 1 if p.st.checkers else 0
    if moves_left == 1:
        return 0
    # Automatic draws end the game before the attacker's next move.
    if insufficient_material(p):
        return 0
    if p.st.rule50 >= 150 or repetition_count(p, 4) >= 4:
        ms.draws += 1            # this result depends on the history: see the header
        return 0
    for i in range(n):
        make_move(p, moves[i])
        result = attacker_mates(ms, moves_left - 1)
        unmake_move(p, moves[i])
        if result == 0:
            return 0
        if result < 0:
            any_unknown = 1
    return -1 if any_unknown else 1

cdef void remember_mate(MateSolver* ms, uint64_t key, int moves_left, bint mates) noexcept nogil:
    cdef MateEntry* e = mate_entry(ms, key)
    if e.key != key:
        e.key = key
        e.mate_within = 0
        e.no_mate_within = 0
    if mates:
        if e.mate_within == 0 or moves_left < e.mate_within:
            e.mate_within = moves_left
    elif moves_left > e.no_mate_within:
        e.no_mate_within = moves_left

# Checking moves first, then captures (most valuable victim first), then the rest.
cdef void order_for_mate(Position* p, CheckInfo* ci, Move* moves, int n) noexcept nogil:
    cdef int keys[MAX_MOVES]
    cdef int i, j, k
    cdef Move m
    for i in range(n):
        keys[i] = 0
        if move_gives_check(p, ci, moves[i]):
            keys[i] += 1000
        if is_noisy(p, moves[i]):
            keys[i] += 10 + SEE_VALUE[captured_type(p, moves[i])] // 100
    for i in range(1, n):
        m = moves[i]
        k = keys[i]
        j = i
        while j > 0 and keys[j - 1] < k:
            moves[j] = moves[j - 1]
            keys[j] = keys[j - 1]
            j -= 1
        moves[j] = m
        keys[j] = k
