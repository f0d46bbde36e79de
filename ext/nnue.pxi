# The neural evaluation (NNUE): a 768 -> 2 x H -> 1 network in integers, and the
# accumulators that make/unmake keep up to date.
#
# Inputs: one per (perspective, piece of ours or theirs, type, square), the square seen from the
# perspective (flipped vertically for black), 768 per perspective.  The first layer turns the
# pieces into an accumulator of H int16 per perspective; the side to move's half goes first into
# the output layer, after SCReLU (clamp to 0..QA, then squared).  The output layer may come in
# B buckets chosen by the number of pieces on the board (see nnue_bucket): one set of output
# weights and bias per bucket.  The file format and the trainer are in engine/nnue.py and
# engine/training/nnue_train.py.
#
# A position that evaluates with the network carries an NnueStack (Position.nnue): one
# accumulator per StateInfo, at the same index, so unmake has nothing to do and helper threads
# (each with a position of its own) never share one.  An accumulator is valid when its key is
# the position's Zobrist key.  make_move only writes down which pieces the move added and
# removed (with the keys of the positions before and after it); the values are brought up to
# date when an evaluation needs them (nnue_current), from the nearest valid accumulator below by
# those changes, so that a node the table or a draw ends costs no accumulator work.  Anything
# else (set-up, a copied position, a change written for another line) is put right by a full
# refresh.  The net itself is shared read-only.

cdef enum:
    NNUE_INPUTS = 768
    # SCReLU products summed per perspective in int32 stay exact for H <= 256 and output
    # weights in -128..127 (256 * 255 * 255 * 128 < 2^31), so the loader refuses larger nets.
    NNUE_MAX_HIDDEN = 256
    # Output buckets by piece count: at most this many.
    NNUE_MAX_BUCKETS = 8

ctypedef struct NnueNet:
    int hidden
    int qa                       # activation clamp and first-layer scale
    int qb                       # output-layer scale
    int scale                    # centipawns per unit of the float output
    int buckets                  # output buckets (1: a single output layer)
    int bucket_divisor           # 32 // buckets: how many piece counts share a bucket
    int16_t* feature_weights     # [NNUE_INPUTS][hidden]
    int16_t* feature_bias        # [hidden]
    int16_t* output_weights      # [buckets][2][hidden]: the side to move's half, then the other's
    int32_t output_bias[NNUE_MAX_BUCKETS]   # by bucket, in units of 1 / (qa * qb)

ctypedef struct Accumulator:
    int16_t values[2][NNUE_MAX_HIDDEN]   # by perspective (white, black)
    uint64_t key                         # the position this holds; 0: none yet
    # The move into this state, as make_move left it: valid for the positions change_from ->
    # change_to; add_count pieces put on and sub_count taken off (at most two each).
    uint64_t change_from
    uint64_t change_to
    int add_count
    int sub_count
    int add_piece[2]
    int add_square[2]
    int sub_piece[2]
    int sub_square[2]

ctypedef struct NnueStack:
    NnueNet* net
    Accumulator* acc             # capacity entries, indexed like Position.states
    int capacity

# The input index of `piece` on `sq` seen from `persp`.
cdef inline int nnue_feature(int persp, int piece, int sq) noexcept nogil:
    return ((((piece >> 3) ^ persp) * 6 + (piece & 7) - 1) << 6) + (sq ^ (persp * 56))

# A stack for a position whose state stack holds `capacity` records; NULL without memory.
cdef NnueStack* new_nnue_stack(NnueNet* net, int capacity) noexcept nogil:
    cdef NnueStack* s = <NnueStack*>calloc(1, sizeof(NnueStack))
    if s == NULL:
        return NULL
    s.acc = <Accumulator*>calloc(capacity, sizeof(Accumulator))
    if s.acc == NULL:
        free(s)
        return NULL
    s.net = net
    s.capacity = capacity
    return s

cdef void free_nnue_stack(NnueStack* s) noexcept nogil:
    if s != NULL:
        free(s.acc)
        free(s)

# Room for `capacity` accumulators (called by ensure_capacity before the states grow).
cdef int nnue_stack_reserve(NnueStack* s, int capacity) except -1:
    cdef Accumulator* grown
    if capacity <= s.capacity:
        return 0
    grown = <Accumulator*>realloc(s.acc, capacity * sizeof(Accumulator))
    if grown == NULL:
        raise MemoryError()
    memset(grown + s.capacity, 0, (capacity - s.capacity) * sizeof(Accumulator))
    s.acc = grown
    s.capacity = capacity
    return 0

# ---------------------------------------------------------------------------------------------
# Accumulator arithmetic: plain loops over contiguous int16 rows, which gcc vectorises at -O3.

cdef inline void nnue_add_row(int16_t* dst, const int16_t* row, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        dst[i] = <int16_t>(dst[i] + row[i])

# dst = src + a - s
cdef inline void nnue_add_sub(int16_t* dst, const int16_t* src, const int16_t* a,
                              const int16_t* s, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        dst[i] = <int16_t>(src[i] + a[i] - s[i])

# dst = src + a - s1 - s2 (a capture)
cdef inline void nnue_add_sub_sub(int16_t* dst, const int16_t* src, const int16_t* a,
                                  const int16_t* s1, const int16_t* s2, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        dst[i] = <int16_t>(src[i] + a[i] - s1[i] - s2[i])

# dst = src + a1 + a2 - s1 - s2 (castling)
cdef inline void nnue_add_add_sub_sub(int16_t* dst, const int16_t* src, const int16_t* a1,
                                      const int16_t* a2, const int16_t* s1, const int16_t* s2,
                                      int n) noexcept nogil:
    cdef int i
    for i in range(n):
        dst[i] = <int16_t>(src[i] + a1[i] + a2[i] - s1[i] - s2[i])

# Both perspectives of `a` from scratch: the bias plus the row of every piece on the board.
cdef void nnue_refresh(NnueNet* net, Position* p, Accumulator* a) noexcept nogil:
    cdef int n = net.hidden, persp, sq
    cdef Bitboard b
    for persp in range(2):
        memcpy(a.values[persp], net.feature_bias, n * sizeof(int16_t))
        b = p.by_type[ALL_PIECES]
        while b:
            sq = lsb(b)
            b &= b - 1
            nnue_add_row(a.values[persp],
                         net.feature_weights + nnue_feature(persp, p.board[sq], sq) * n, n)
    a.key = p.st.key

# Called by make_move once the move is made: write down the move's changes on the new state's
# accumulator.  `piece` moved from the move's from-square; `captured` (or NO_PIECE) was taken;
# for castling the king and rook squares come from the position.
cdef void nnue_after_make(Position* p, Move m, int piece, int captured) noexcept nogil:
    cdef NnueStack* s = <NnueStack*>p.nnue
    cdef Accumulator* a = &s.acc[p.st - p.states]
    cdef int us = piece >> 3, right
    cdef int frm = move_from(m), to = move_to(m), kind = move_kind(m)
    a.change_from = (p.st - 1).key
    a.change_to = p.st.key
    a.sub_piece[0] = piece
    a.sub_square[0] = frm
    if kind == CASTLING:
        right = (0 if to > frm else 1) + 2 * us
        a.add_piece[0] = piece
        a.add_square[0] = p.castling_king_to[right]
        a.add_piece[1] = make_piece(us, ROOK)
        a.add_square[1] = p.castling_rook_to[right]
        a.sub_piece[1] = make_piece(us, ROOK)
        a.sub_square[1] = to
        a.add_count = 2
        a.sub_count = 2
        return
    a.add_piece[0] = p.board[to]          # the promoted piece after a promotion
    a.add_square[0] = to
    a.add_count = 1
    a.sub_count = 1
    if captured != NO_PIECE:
        a.sub_piece[1] = captured
        a.sub_square[1] = to
        if kind == EN_PASSANT:
            a.sub_square[1] = to - 8 if us == WHITE else to + 8
        a.sub_count = 2

# A null move changes no piece.
cdef void nnue_after_null_move(Position* p) noexcept nogil:
    cdef NnueStack* s = <NnueStack*>p.nnue
    cdef Accumulator* a = &s.acc[p.st - p.states]
    a.change_from = (p.st - 1).key
    a.change_to = p.st.key
    a.add_count = 0
    a.sub_count = 0

# dst = src with the changes written down on dst (see Accumulator), for both perspectives.
cdef void nnue_apply_change(NnueNet* net, Accumulator* src, Accumulator* dst) noexcept nogil:
    cdef int n = net.hidden, persp
    cdef const int16_t* w = net.feature_weights
    for persp in range(2):
        if dst.add_count == 0:
            memcpy(dst.values[persp], src.values[persp], n * sizeof(int16_t))
        elif dst.add_count == 2:
            nnue_add_add_sub_sub(dst.values[persp], src.values[persp],
                                 w + nnue_feature(persp, dst.add_piece[0], dst.add_square[0]) * n,
                                 w + nnue_feature(persp, dst.add_piece[1], dst.add_square[1]) * n,
                                 w + nnue_feature(persp, dst.sub_piece[0], dst.sub_square[0]) * n,
                                 w + nnue_feature(persp, dst.sub_piece[1], dst.sub_square[1]) * n, n)
        elif dst.sub_count == 2:
            nnue_add_sub_sub(dst.values[persp], src.values[persp],
                             w + nnue_feature(persp, dst.add_piece[0], dst.add_square[0]) * n,
                             w + nnue_feature(persp, dst.sub_piece[0], dst.sub_square[0]) * n,
                             w + nnue_feature(persp, dst.sub_piece[1], dst.sub_square[1]) * n, n)
        else:
            nnue_add_sub(dst.values[persp], src.values[persp],
                         w + nnue_feature(persp, dst.add_piece[0], dst.add_square[0]) * n,
                         w + nnue_feature(persp, dst.sub_piece[0], dst.sub_square[0]) * n, n)

# The current position's accumulator, brought up to date: from the nearest valid one below it
# by the changes written down in between when each of them belongs to this line, else by a
# full refresh.
cdef Accumulator* nnue_current(Position* p) noexcept nogil:
    cdef NnueStack* s = <NnueStack*>p.nnue
    cdef int top = <int>(p.st - p.states), i = top
    cdef Accumulator* a = &s.acc[top]
    if a.key == p.st.key:
        return a
    while s.acc[i].key != p.states[i].key:
        if (i == 0 or s.acc[i].change_to != p.states[i].key
                or s.acc[i].change_from != p.states[i - 1].key):
            nnue_refresh(s.net, p, a)
            return a
        i -= 1
    while i < top:
        i += 1
        nnue_apply_change(s.net, &s.acc[i - 1], &s.acc[i])
        s.acc[i].key = p.states[i].key
    return a

# ---------------------------------------------------------------------------------------------
# Output

# Sum over i of clamp(x_i, 0, qa)^2 * w_i: the product clamp * w fits in int16 (|w| <= 128,
# qa <= 255), so this is the int16 x int16 -> int32 dot product gcc turns into pmaddwd.
cdef inline int32_t nnue_screlu_dot(const int16_t* x, const int16_t* w, int n, int16_t qa) noexcept nogil:
    cdef int32_t total = 0
    cdef int16_t c, cw
    cdef int i
    for i in range(n):
        c = x[i]
        c = 0 if c < 0 else c
        c = qa if c > qa else c
        cw = <int16_t>(c * w[i])
        total += <int32_t>cw * <int32_t>c
    return total

# The output bucket of a position: its pieces (kings included) less two, bucket_divisor piece
# counts to a bucket, the last bucket taking what is left over (engine/nnue.py's bucket_of).
cdef inline int nnue_bucket(NnueNet* net, Position* p) noexcept nogil:
    cdef int b = (popcount(p.by_type[ALL_PIECES]) - 2) // net.bucket_divisor
    if b < 0:
        return 0
    return b if b < net.buckets else net.buckets - 1

# The network's output in centipawns, side to move's view, from a valid accumulator, with the
# output layer of `bucket`.
cdef inline int nnue_output(NnueNet* net, Accumulator* a, int side, int bucket) noexcept nogil:
    cdef int n = net.hidden
    cdef const int16_t* w = net.output_weights + bucket * 2 * n
    cdef int64_t total = (<int64_t>nnue_screlu_dot(a.values[side], w, n, <int16_t>net.qa)
                          + nnue_screlu_dot(a.values[side ^ 1], w + n, n, <int16_t>net.qa))
    return <int>((total / net.qa + net.output_bias[bucket]) * net.scale / (net.qa * net.qb))

# The static evaluation with the network, from accumulator `a` of the current position
# (refreshed when not valid); the same draw rule and limits as the classical one.
cdef inline int nnue_evaluate_with(Position* p, NnueNet* net, Accumulator* a) noexcept nogil:
    cdef int score
    if not (p.by_type[PAWN] | p.by_type[ROOK] | p.by_type[QUEEN]) and insufficient_material(p):
        return 0
    if a.key != p.st.key:
        nnue_refresh(net, p, a)
    score = nnue_output(net, a, p.side, nnue_bucket(net, p))
    if score > EVAL_LIMIT:
        return EVAL_LIMIT
    if score < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return score

cdef int nnue_evaluate(Position* p) noexcept nogil:
    return nnue_evaluate_with(p, (<NnueStack*>p.nnue).net, nnue_current(p))

# Give the position a fresh accumulator stack for `net`, or none (classical evaluation) for NULL.
cdef int position_set_network(Position* p, NnueNet* net) except -1:
    cdef NnueStack* s = NULL
    if net != NULL:
        s = new_nnue_stack(net, p.capacity)
        if s == NULL:
            raise MemoryError()
    free_nnue_stack(<NnueStack*>p.nnue)
    p.nnue = s
    return 0
