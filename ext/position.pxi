# The position: bitboards and a mailbox, with a stack of StateInfo records so that make/unmake
# restore everything without the caller holding any undo data.  Castling rights are stored as
# rook squares, which makes Chess960 and standard chess one and the same code.

from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset

# What make_move cannot recompute on unmake, plus cached facts about the position.
ctypedef struct StateInfo:
    uint64_t key            # Zobrist key of the position (en passant only when capturable)
    uint64_t pawn_key       # Zobrist key of the pawns alone (pawn structure cache)
    uint64_t non_pawn_key[2]  # Zobrist key of each colour's other pieces, king included
    Bitboard checkers       # enemy pieces giving check to the side to move
    Bitboard blockers       # pieces (both colours) shielding the side to move's king from sliders
    int castling            # castling right bits
    int ep                  # en-passant target square or SQ_NONE (set only if a capture is legal)
    int rule50              # half moves since the last capture or pawn move
    int plies_from_null     # half moves since the last null move (repetition scan limit)
    int captured            # piece captured by the move that led here
    Move move               # move that led here (MOVE_NONE at the root of the game)

ctypedef struct Position:
    Bitboard by_type[7]     # index 0 (ALL_PIECES) is every piece
    Bitboard by_color[2]
    uint8_t board[64]
    int side
    int game_ply            # half moves since the start of the game (fullmove derives from it)
    int chess960
    int castling_rook[4]    # rook square of each right, or SQ_NONE
    int castling_king_to[4]
    int castling_rook_to[4]
    Bitboard castling_path[4]       # squares that must be empty (king and rook excluded)
    Bitboard castling_king_path[4]  # squares the king stands on, crosses or reaches
    int castling_mask[64]   # rights lost when a piece leaves or enters the square
    int psq_mg              # incremental material + piece-square score, white's view
    int psq_eg
    int phase               # game phase material (24 = all minor and major pieces)
    StateInfo* st           # current state, st - states = number of moves on the stack
    StateInfo* states
    int capacity            # number of StateInfo records allocated
    void* pawn_cache        # the owner's PawnEntry table (evaluate.pxi), or NULL: no caching.
                            # Kept by position_copy: a copy never shares its source's cache.
    void* nnue              # the position's NnueStack (nnue.pxi) when it evaluates with the
                            # network, else NULL; owned by the position, kept by position_copy.

# Zobrist keys, from a fixed xorshift sequence so that keys are the same in every run.
cdef uint64_t ZOBRIST_PSQ[16][64]
cdef uint64_t ZOBRIST_EP_FILE[8]
cdef uint64_t ZOBRIST_CASTLING[16]
cdef uint64_t ZOBRIST_SIDE

# Piece values and piece-square tables, material included, filled by the evaluation at import.
cdef int PSQ_MG[16][64]
cdef int PSQ_EG[16][64]
cdef int PHASE_WEIGHT[7]
PHASE_WEIGHT[:] = [0, 0, 1, 1, 2, 4, 0]

cdef uint64_t prng_state = 0x2545F4914F6CDD1D

cdef uint64_t prng_next() noexcept nogil:
    global prng_state
    prng_state ^= prng_state >> 12
    prng_state ^= prng_state << 25
    prng_state ^= prng_state >> 27
    return prng_state * <uint64_t>2685821657736338717

cdef void init_zobrist() noexcept nogil:
    global ZOBRIST_SIDE
    cdef int p, sq, i
    for p in range(16):
        for sq in range(64):
            ZOBRIST_PSQ[p][sq] = prng_next() if (p & 7) != 0 and (p & 7) != 7 else 0
    for i in range(8):
        ZOBRIST_EP_FILE[i] = prng_next()
    for i in range(16):
        ZOBRIST_CASTLING[i] = prng_next()
    ZOBRIST_SIDE = prng_next()

# ---------------------------------------------------------------------------------------------
# Small queries

cdef inline Bitboard pieces_of(Position* p, int color, int pt) noexcept nogil:
    return p.by_color[color] & p.by_type[pt]

cdef inline int king_square(Position* p, int color) noexcept nogil:
    return lsb(p.by_color[color] & p.by_type[KING])

cdef inline int piece_on(Position* p, int sq) noexcept nogil:
    return p.board[sq]

# Every piece of either colour attacking sq, given the occupancy occ.
cdef inline Bitboard attackers_to(Position* p, int sq, Bitboard occ) noexcept nogil:
    return ((PAWN_ATTACKS[BLACK][sq] & pieces_of(p, WHITE, PAWN))
            | (PAWN_ATTACKS[WHITE][sq] & pieces_of(p, BLACK, PAWN))
            | (KNIGHT_ATTACKS[sq] & p.by_type[KNIGHT])
            | (rook_attacks(sq, occ) & (p.by_type[ROOK] | p.by_type[QUEEN]))
            | (bishop_attacks(sq, occ) & (p.by_type[BISHOP] | p.by_type[QUEEN]))
            | (KING_ATTACKS[sq] & p.by_type[KING]))

# Is sq attacked by a piece of colour `by`, given the occupancy occ?
cdef inline bint is_attacked(Position* p, int sq, int by, Bitboard occ) noexcept nogil:
    cdef Bitboard them = p.by_color[by]
    return ((PAWN_ATTACKS[by ^ 1][sq] & them & p.by_type[PAWN])
            or (KNIGHT_ATTACKS[sq] & them & p.by_type[KNIGHT])
            or (KING_ATTACKS[sq] & them & p.by_type[KING])
            or (rook_attacks(sq, occ) & them & (p.by_type[ROOK] | p.by_type[QUEEN]))
            or (bishop_attacks(sq, occ) & them & (p.by_type[BISHOP] | p.by_type[QUEEN])))

# Pieces of either colour that alone stand between sq and an enemy slider of `color`'s
# opponents aiming at it (pins and discovered-check candidates).
cdef inline Bitboard slider_blockers(Position* p, int sq, int color) noexcept nogil:
    cdef Bitboard them = p.by_color[color ^ 1]
    cdef Bitboard snipers = ((rook_attacks(sq, 0) & (p.by_type[ROOK] | p.by_type[QUEEN]))
                             | (bishop_attacks(sq, 0) & (p.by_type[BISHOP] | p.by_type[QUEEN]))) & them
    cdef Bitboard occ = p.by_type[ALL_PIECES] ^ snipers
    cdef Bitboard blockers = 0, b
    cdef int s
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - 1
        b = BETWEEN_BB[sq][s] & occ
        if b and not (b & (b - 1)):
            blockers |= b
    return blockers

cdef inline void set_check_info(Position* p) noexcept nogil:
    cdef int ksq = king_square(p, p.side)
    p.st.checkers = attackers_to(p, ksq, p.by_type[ALL_PIECES]) & p.by_color[p.side ^ 1]
    p.st.blockers = slider_blockers(p, ksq, p.side)

cdef inline void put_piece(Position* p, int piece, int sq) noexcept nogil:
    cdef Bitboard b = square_bb(sq)
    p.board[sq] = piece
    p.by_type[ALL_PIECES] |= b
    p.by_type[piece & 7] |= b
    p.by_color[piece >> 3] |= b
    p.psq_mg += PSQ_MG[piece][sq]
    p.psq_eg += PSQ_EG[piece][sq]
    p.phase += PHASE_WEIGHT[piece & 7]

cdef inline void remove_piece(Position* p, int sq) noexcept nogil:
    cdef int piece = p.board[sq]
    cdef Bitboard b = square_bb(sq)
    p.board[sq] = NO_PIECE
    p.by_type[ALL_PIECES] ^= b
    p.by_type[piece & 7] ^= b
    p.by_color[piece >> 3] ^= b
    p.psq_mg -= PSQ_MG[piece][sq]
    p.psq_eg -= PSQ_EG[piece][sq]
    p.phase -= PHASE_WEIGHT[piece & 7]

cdef inline void move_piece(Position* p, int frm, int to) noexcept nogil:
    cdef int piece = p.board[frm]
    cdef Bitboard b = square_bb(frm) | square_bb(to)
    p.board[frm] = NO_PIECE
    p.board[to] = piece
    p.by_type[ALL_PIECES] ^= b
    p.by_type[piece & 7] ^= b
    p.by_color[piece >> 3] ^= b
    p.psq_mg += PSQ_MG[piece][to] - PSQ_MG[piece][frm]
    p.psq_eg += PSQ_EG[piece][to] - PSQ_EG[piece][frm]

# True when the side to move has a legal en-passant capture onto ep (a pawn of theirs on
# the square in front of ep just made the double step).
cdef bint ep_capture_legal(Position* p, int ep) noexcept nogil:
    cdef int us = p.side, them = p.side ^ 1
    cdef int ksq = king_square(p, us)
    cdef int capsq = ep - 8 if us == WHITE else ep + 8
    cdef Bitboard candidates = PAWN_ATTACKS[them][ep] & pieces_of(p, us, PAWN)
    cdef Bitboard occ
    cdef int frm
    cdef Bitboard checkers = attackers_to(p, ksq, p.by_type[ALL_PIECES]) & p.by_color[them]
    while candidates:
        frm = lsb(candidates)
        candidates &= candidates - 1
        occ = (p.by_type[ALL_PIECES] ^ square_bb(frm) ^ square_bb(capsq)) | square_bb(ep)
        # Every checker other than the captured pawn must be a slider whose line is now shut.
        if checkers & ~square_bb(capsq) & ~(p.by_type[BISHOP] | p.by_type[ROOK] | p.by_type[QUEEN]):
            continue
        if rook_attacks(ksq, occ) & p.by_color[them] & (p.by_type[ROOK] | p.by_type[QUEEN]):
            continue
        if bishop_attacks(ksq, occ) & p.by_color[them] & (p.by_type[BISHOP] | p.by_type[QUEEN]):
            continue
        return True
    return False

# ---------------------------------------------------------------------------------------------
# Make and unmake.  The caller guarantees st + 1 lies inside the allocated stack
# (ensure_capacity) and that m is legal in the position.

# The key after move m for the common case (the piece moved and any piece taken on the target
# square; not castling rights, en passant or promotions): close enough to fetch the table's
# line for the position early, which is all it is for.
cdef inline uint64_t key_after(Position* p, Move m) noexcept nogil:
    cdef int frm = move_from(m), to = move_to(m), piece = p.board[frm]
    cdef uint64_t key = p.st.key ^ ZOBRIST_SIDE ^ ZOBRIST_PSQ[piece][frm] ^ ZOBRIST_PSQ[piece][to]
    if p.board[to] != NO_PIECE and move_kind(m) != CASTLING:
        key ^= ZOBRIST_PSQ[p.board[to]][to]
    return key

cdef void make_move(Position* p, Move m) noexcept nogil:
    cdef StateInfo* prev = p.st
    cdef StateInfo* st = prev + 1
    cdef int us = p.side, them = p.side ^ 1
    cdef int frm = move_from(m), to = move_to(m), kind = move_kind(m)
    cdef int piece = p.board[frm]
    cdef int captured = NO_PIECE if kind == CASTLING else p.board[to]
    cdef uint64_t key = prev.key ^ ZOBRIST_SIDE
    cdef uint64_t pawn_key = prev.pawn_key
    cdef uint64_t non_pawn_us = prev.non_pawn_key[p.side], non_pawn_them = prev.non_pawn_key[p.side ^ 1]
    cdef uint64_t castle
    cdef int capsq, rfrom, rto, kto, right, promo, ep_sq

    p.st = st
    st.rule50 = prev.rule50 + 1
    st.plies_from_null = prev.plies_from_null + 1
    st.castling = prev.castling
    st.move = m
    st.ep = SQ_NONE
    p.game_ply += 1
    if prev.ep != SQ_NONE:
        key ^= ZOBRIST_EP_FILE[file_of(prev.ep)]

    if kind == CASTLING:
        right = (0 if to > frm else 1) + 2 * us
        rfrom = to
        kto = p.castling_king_to[right]
        rto = p.castling_rook_to[right]
        remove_piece(p, frm)
        remove_piece(p, rfrom)
        put_piece(p, make_piece(us, KING), kto)
        put_piece(p, make_piece(us, ROOK), rto)
        castle = (ZOBRIST_PSQ[piece][frm] ^ ZOBRIST_PSQ[piece][kto]
                  ^ ZOBRIST_PSQ[make_piece(us, ROOK)][rfrom] ^ ZOBRIST_PSQ[make_piece(us, ROOK)][rto])
        key ^= castle
        non_pawn_us ^= castle
    else:
        if kind == EN_PASSANT:
            capsq = to - 8 if us == WHITE else to + 8
            captured = p.board[capsq]
            remove_piece(p, capsq)
            key ^= ZOBRIST_PSQ[captured][capsq]
            pawn_key ^= ZOBRIST_PSQ[captured][capsq]
            st.rule50 = 0
        elif captured != NO_PIECE:
            remove_piece(p, to)
            key ^= ZOBRIST_PSQ[captured][to]
            if (captured & 7) == PAWN:
                pawn_key ^= ZOBRIST_PSQ[captured][to]
            else:
                non_pawn_them ^= ZOBRIST_PSQ[captured][to]
            st.rule50 = 0
        move_piece(p, frm, to)
        key ^= ZOBRIST_PSQ[piece][frm] ^ ZOBRIST_PSQ[piece][to]
        if (piece & 7) == PAWN:
            st.rule50 = 0
            pawn_key ^= ZOBRIST_PSQ[piece][frm]
            if kind == PROMOTION:
                promo = make_piece(us, promotion_type(m))
                remove_piece(p, to)
                put_piece(p, promo, to)
                key ^= ZOBRIST_PSQ[piece][to] ^ ZOBRIST_PSQ[promo][to]
                non_pawn_us ^= ZOBRIST_PSQ[promo][to]
            else:
                pawn_key ^= ZOBRIST_PSQ[piece][to]
        else:
            non_pawn_us ^= ZOBRIST_PSQ[piece][frm] ^ ZOBRIST_PSQ[piece][to]
    st.captured = captured

    if st.castling and (p.castling_mask[frm] | p.castling_mask[to]):
        key ^= ZOBRIST_CASTLING[st.castling]
        st.castling &= ~(p.castling_mask[frm] | p.castling_mask[to])
        key ^= ZOBRIST_CASTLING[st.castling]

    p.side = them
    set_check_info(p)
    # A double step creates an en-passant square only when the reply can really take.
    if (piece & 7) == PAWN and (to ^ frm) == 16:
        ep_sq = (to + frm) >> 1
        if PAWN_ATTACKS[us][ep_sq] & pieces_of(p, them, PAWN) and ep_capture_legal(p, ep_sq):
            st.ep = ep_sq
            key ^= ZOBRIST_EP_FILE[file_of(ep_sq)]
    st.key = key
    st.pawn_key = pawn_key
    st.non_pawn_key[us] = non_pawn_us
    st.non_pawn_key[them] = non_pawn_them
    if p.nnue != NULL:
        nnue_after_make(p, m, piece, captured)

cdef void unmake_move(Position* p, Move m) noexcept nogil:
    cdef int them = p.side, us = p.side ^ 1
    cdef int frm = move_from(m), to = move_to(m), kind = move_kind(m)
    cdef int right, kto, rto, captured = p.st.captured
    p.side = us
    p.game_ply -= 1
    if kind == CASTLING:
        right = (0 if to > frm else 1) + 2 * us
        kto = p.castling_king_to[right]
        rto = p.castling_rook_to[right]
        remove_piece(p, kto)
        remove_piece(p, rto)
        put_piece(p, make_piece(us, KING), frm)
        put_piece(p, make_piece(us, ROOK), to)
    else:
        if kind == PROMOTION:
            remove_piece(p, to)
            put_piece(p, make_piece(us, PAWN), to)
        move_piece(p, to, frm)
        if kind == EN_PASSANT:
            put_piece(p, captured, to - 8 if us == WHITE else to + 8)
        elif captured != NO_PIECE:
            put_piece(p, captured, to)
    p.st -= 1

# A null move passes the turn; used by null-move pruning.  Never called in check.
cdef void make_null_move(Position* p) noexcept nogil:
    cdef StateInfo* prev = p.st
    cdef StateInfo* st = prev + 1
    p.st = st
    st.key = prev.key ^ ZOBRIST_SIDE
    st.pawn_key = prev.pawn_key
    st.non_pawn_key[0] = prev.non_pawn_key[0]
    st.non_pawn_key[1] = prev.non_pawn_key[1]
    if prev.ep != SQ_NONE:
        st.key ^= ZOBRIST_EP_FILE[file_of(prev.ep)]
    st.ep = SQ_NONE
    st.castling = prev.castling
    st.rule50 = prev.rule50 + 1
    st.plies_from_null = 0
    st.captured = NO_PIECE
    st.move = MOVE_NULL
    p.side ^= 1
    p.game_ply += 1
    set_check_info(p)
    if p.nnue != NULL:
        nnue_after_null_move(p)

cdef void unmake_null_move(Position* p) noexcept nogil:
    p.side ^= 1
    p.game_ply -= 1
    p.st -= 1

# ---------------------------------------------------------------------------------------------
# Draw facts

# How far back an earlier occurrence of the current position can lie: no further than the last
# irreversible move or null move, nor than the start of the state stack.
cdef inline int repetition_window(Position* p) noexcept nogil:
    cdef int limit = p.st.rule50
    cdef int depth = <int>(p.st - p.states)
    if p.st.plies_from_null < limit:
        limit = p.st.plies_from_null
    if limit > depth:
        limit = depth
    return limit

# Times the current position occurred before (same key: pieces, side, castling, en passant),
# within repetition_window; the scan stops once `enough` earlier occurrences are found.
cdef int repetition_count(Position* p, int enough) noexcept nogil:
    cdef int limit = repetition_window(p)
    cdef int n = 0, i
    i = 4
    while i <= limit:
        if (p.st - i).key == p.st.key:
            n += 1
            if n >= enough:
                break
        i += 2
    return n

# The game-theoretic insufficient-material test of python-chess / FIDE: no sequence of legal
# moves can end in mate for either side.
cdef bint side_has_insufficient_material(Position* p, int color) noexcept nogil:
    cdef Bitboard ours = p.by_color[color], theirs = p.by_color[color ^ 1]
    cdef Bitboard bishops
    if ours & (p.by_type[PAWN] | p.by_type[ROOK] | p.by_type[QUEEN]):
        return False
    if ours & p.by_type[KNIGHT]:
        return popcount(ours) <= 2 and not (theirs & ~p.by_type[KING] & ~p.by_type[QUEEN])
    if ours & p.by_type[BISHOP]:
        bishops = p.by_type[BISHOP]
        return ((not (bishops & DARK_SQUARES_BB) or not (bishops & ~DARK_SQUARES_BB))
                and not p.by_type[PAWN] and not p.by_type[KNIGHT])
    return True

cdef bint insufficient_material(Position* p) noexcept nogil:
    return side_has_insufficient_material(p, WHITE) and side_has_insufficient_material(p, BLACK)

# ---------------------------------------------------------------------------------------------
# Allocation: the stack grows in Python-facing code only, never inside a search.

cdef int position_init(Position* p) except -1:
    memset(p, 0, sizeof(Position))
    p.capacity = 1024
    p.states = <StateInfo*>malloc(p.capacity * sizeof(StateInfo))
    if p.states == NULL:
        raise MemoryError()
    memset(p.states, 0, p.capacity * sizeof(StateInfo))
    p.st = p.states
    return 0

cdef void position_free(Position* p) noexcept:
    free_nnue_stack(<NnueStack*>p.nnue)
    p.nnue = NULL
    free(p.states)
    p.states = NULL
    p.st = NULL

# Make sure `extra` more moves can be made from the current state.
cdef int ensure_capacity(Position* p, int extra) except -1:
    cdef int used = <int>(p.st - p.states) + 1
    cdef int new_capacity
    cdef StateInfo* grown
    if used + extra <= p.capacity:
        return 0
    new_capacity = p.capacity * 2
    while new_capacity < used + extra:
        new_capacity *= 2
    if p.nnue != NULL:
        nnue_stack_reserve(<NnueStack*>p.nnue, new_capacity)
    grown = <StateInfo*>realloc(p.states, new_capacity * sizeof(StateInfo))
    if grown == NULL:
        raise MemoryError()
    p.states = grown
    p.st = grown + used - 1
    p.capacity = new_capacity
    return 0

# Copy src into dst (both initialised), with the game history.
cdef int position_copy(Position* dst, Position* src) except -1:
    cdef StateInfo* states = dst.states
    cdef int capacity = dst.capacity
    cdef void* pawn_cache = dst.pawn_cache
    cdef void* nnue = dst.nnue
    cdef int used = <int>(src.st - src.states) + 1
    memcpy(dst, src, sizeof(Position))
    dst.states = states
    dst.capacity = capacity
    dst.pawn_cache = pawn_cache
    dst.nnue = nnue
    dst.st = states
    ensure_capacity(dst, used + MAX_PLY + 8)
    memcpy(dst.states, src.states, used * sizeof(StateInfo))
    dst.st = dst.states + used - 1
    return 0

# Recompute the keys from scratch (after set-up).
cdef void compute_keys(Position* p) noexcept nogil:
    cdef uint64_t key = 0, pawn_key = 0
    cdef uint64_t non_pawn_key[2]
    cdef int sq, pc
    non_pawn_key[0] = non_pawn_key[1] = 0
    for sq in range(64):
        pc = p.board[sq]
        if pc != NO_PIECE:
            key ^= ZOBRIST_PSQ[pc][sq]
            if (pc & 7) == PAWN:
                pawn_key ^= ZOBRIST_PSQ[pc][sq]
            else:
                non_pawn_key[color_of(pc)] ^= ZOBRIST_PSQ[pc][sq]
    if p.side == BLACK:
        key ^= ZOBRIST_SIDE
    key ^= ZOBRIST_CASTLING[p.st.castling]
    if p.st.ep != SQ_NONE:
        key ^= ZOBRIST_EP_FILE[file_of(p.st.ep)]
    p.st.key = key
    p.st.pawn_key = pawn_key
    p.st.non_pawn_key[0] = non_pawn_key[0]
    p.st.non_pawn_key[1] = non_pawn_key[1]

# Recompute the incremental evaluation sums (after the tables change or after set-up).
cdef void compute_psq(Position* p) noexcept nogil:
    cdef int sq, pc
    p.psq_mg = 0
    p.psq_eg = 0
    p.phase = 0
    for sq in range(64):
        pc = p.board[sq]
        if pc != NO_PIECE:
            p.psq_mg += PSQ_MG[pc][sq]
            p.psq_eg += PSQ_EG[pc][sq]
            p.phase += PHASE_WEIGHT[pc & 7]

# Register a castling right for colour c with its rook on rook_sq (king already placed).
cdef void add_castling_right(Position* p, int color, int rook_sq) noexcept nogil:
    cdef int ksq = king_square(p, color)
    cdef int kingside = rook_sq > ksq
    cdef int right = (0 if kingside else 1) + 2 * color
    cdef int kto = relative_square(color, 6 if kingside else 2)
    cdef int rto = relative_square(color, 5 if kingside else 3)
    p.st.castling |= 1 << right
    p.castling_rook[right] = rook_sq
    p.castling_king_to[right] = kto
    p.castling_rook_to[right] = rto
    p.castling_mask[ksq] |= 1 << right
    p.castling_mask[rook_sq] |= 1 << right
    p.castling_path[right] = ((BETWEEN_BB[ksq][kto] | square_bb(kto) | BETWEEN_BB[rook_sq][rto] | square_bb(rto))
                              & ~(square_bb(ksq) | square_bb(rook_sq)))
    p.castling_king_path[right] = BETWEEN_BB[ksq][kto] | square_bb(kto) | square_bb(ksq)
