# Strictly legal move generation into C arrays, and perft.
#
# Legality is built in rather than tested afterwards: pinned pieces move only along the line
# through their king, in check every non-king move must capture the checker or block the
# check, the king never steps onto an attacked square (computed with the king lifted off the
# board), and en passant is simulated on the occupancy to catch the discovered rank check.

ctypedef struct MoveList:
    Move moves[MAX_MOVES]
    int count

cdef inline void add_promotions(Move* out, int* n, int frm, int to, int kind) noexcept nogil:
    if kind != GEN_QUIET:
        out[n[0]] = make_special(frm, to, PROMOTION, QUEEN)
        out[n[0] + 1] = make_special(frm, to, PROMOTION, KNIGHT)
        out[n[0] + 2] = make_special(frm, to, PROMOTION, ROOK)
        out[n[0] + 3] = make_special(frm, to, PROMOTION, BISHOP)
        n[0] += 4

# Generate the legal moves of the requested kind; returns how many were written to out.
cdef int generate_moves(Position* p, int kind, Move* out) noexcept nogil:
    cdef int us = p.side, them = p.side ^ 1
    cdef Bitboard occ = p.by_type[ALL_PIECES]
    cdef Bitboard ours = p.by_color[us], theirs = p.by_color[them]
    cdef int ksq = king_square(p, us)
    cdef Bitboard checkers = p.st.checkers
    cdef Bitboard pinned = p.st.blockers & ours
    cdef Bitboard target, check_mask, b, att, pawns, promo_pawns, single, double_push, caps_l, caps_r
    cdef Bitboard rank3, rank7, sliders_rq, sliders_bq
    cdef int n = 0, frm, to, up, right, checker
    cdef Bitboard kocc

    if kind == GEN_ALL:
        target = ~ours
    elif kind == GEN_NOISY:
        target = theirs
    else:
        target = ~occ

    # King moves, never onto an attacked square (the king itself lifted off the board).
    kocc = occ ^ square_bb(ksq)
    att = KING_ATTACKS[ksq] & target
    while att:
        to = lsb(att)
        att &= att - 1
        if not is_attacked(p, to, them, kocc):
            out[n] = make_move_code(ksq, to)
            n += 1

    if checkers & (checkers - 1):
        return n   # double check: only the king can move

    if checkers:
        checker = lsb(checkers)
        check_mask = BETWEEN_BB[ksq][checker] | checkers
    else:
        check_mask = ~(<Bitboard>0)

    # Pawns
    pawns = pieces_of(p, us, PAWN)
    if us == WHITE:
        up = 8
        rank7 = RANK_1_BB << 48
        rank3 = RANK_1_BB << 16
    else:
        up = -8
        rank7 = RANK_1_BB << 8
        rank3 = RANK_1_BB << 40
    promo_pawns = pawns & rank7
    pawns &= ~rank7

    if kind != GEN_NOISY:
        single = pawn_push(us, pawns) & ~occ
        double_push = pawn_push(us, single & rank3) & ~occ & check_mask
        single &= check_mask
        while single:
            to = lsb(single)
            single &= single - 1
            frm = to - up
            if (pinned & square_bb(frm)) and not (LINE_BB[ksq][frm] & square_bb(to)):
                continue
            out[n] = make_move_code(frm, to)
            n += 1
        while double_push:
            to = lsb(double_push)
            double_push &= double_push - 1
            frm = to - 2 * up
            if (pinned & square_bb(frm)) and not (LINE_BB[ksq][frm] & square_bb(to)):
                continue
            out[n] = make_move_code(frm, to)
            n += 1

    if kind != GEN_QUIET:
        if us == WHITE:
            caps_l = ((pawns & ~FILE_A_BB) << 7) & theirs & check_mask
            caps_r = ((pawns & ~FILE_H_BB) << 9) & theirs & check_mask
        else:
            caps_l = ((pawns & ~FILE_A_BB) >> 9) & theirs & check_mask
            caps_r = ((pawns & ~FILE_H_BB) >> 7) & theirs & check_mask
        while caps_l:
            to = lsb(caps_l)
            caps_l &= caps_l - 1
            frm = to - up + 1
            if (pinned & square_bb(frm)) and not (LINE_BB[ksq][frm] & square_bb(to)):
                continue
            out[n] = make_move_code(frm, to)
            n += 1
        while caps_r:
            to = lsb(caps_r)
            caps_r &= caps_r - 1
            frm = to - up - 1
            if (pinned & square_bb(frm)) and not (LINE_BB[ksq][frm] & square_bb(to)):
                continue
            out[n] = make_move_code(frm, to)
            n += 1
        if p.st.ep != SQ_NONE:
            # The state keeps an en-passant square only when a legal capture exists, but a
            # pinned pawn or an unrelated check can still forbid a particular capturer.
            b = PAWN_ATTACKS[them][p.st.ep] & pawns
            while b:
                frm = lsb(b)
                b &= b - 1
                to = p.st.ep
                kocc = (occ ^ square_bb(frm) ^ square_bb(to - up)) | square_bb(to)
                if checkers and not (checkers & square_bb(to - up)) and not (check_mask & square_bb(to)):
                    continue
                if rook_attacks(ksq, kocc) & theirs & (p.by_type[ROOK] | p.by_type[QUEEN]):
                    continue
                if bishop_attacks(ksq, kocc) & theirs & (p.by_type[BISHOP] | p.by_type[QUEEN]):
                    continue
                out[n] = make_special(frm, to, EN_PASSANT, KNIGHT)
                n += 1

    # Promotions: every kind of promotion is noisy.
    if promo_pawns and kind != GEN_QUIET:
        b = promo_pawns
        while b:
            frm = lsb(b)
            b &= b - 1
            att = (PAWN_ATTACKS[us][frm] & theirs) | (square_bb(frm + up) & ~occ)
            att &= check_mask
            if pinned & square_bb(frm):
                att &= LINE_BB[ksq][frm]
            while att:
                to = lsb(att)
                att &= att - 1
                add_promotions(out, &n, frm, to, kind)

    # Knights (a pinned knight can never move), bishops, rooks and queens.
    target &= check_mask
    b = pieces_of(p, us, KNIGHT) & ~pinned
    while b:
        frm = lsb(b)
        b &= b - 1
        att = KNIGHT_ATTACKS[frm] & target
        while att:
            to = lsb(att)
            att &= att - 1
            out[n] = make_move_code(frm, to)
            n += 1
    b = ours & (p.by_type[BISHOP] | p.by_type[QUEEN])
    while b:
        frm = lsb(b)
        b &= b - 1
        att = bishop_attacks(frm, occ) & target
        if pinned & square_bb(frm):
            att &= LINE_BB[ksq][frm]
        while att:
            to = lsb(att)
            att &= att - 1
            out[n] = make_move_code(frm, to)
            n += 1
    b = ours & (p.by_type[ROOK] | p.by_type[QUEEN])
    while b:
        frm = lsb(b)
        b &= b - 1
        att = rook_attacks(frm, occ) & target
        if pinned & square_bb(frm):
            att &= LINE_BB[ksq][frm]
        while att:
            to = lsb(att)
            att &= att - 1
            out[n] = make_move_code(frm, to)
            n += 1

    # Castling: not out of check (castling_allowed says the rest).
    if kind != GEN_NOISY and not checkers and (p.st.castling & (3 << (2 * us))):
        for right in range(2 * us, 2 * us + 2):
            if castling_allowed(p, right, ksq):
                out[n] = make_special(ksq, p.castling_rook[right], CASTLING, KNIGHT)
                n += 1
    return n

# May the side to move, not in check, castle by this right of its own?  The right is held, the
# path is empty and the king never crosses or lands on an attacked square (the castling rook
# lifted, so a rook that shielded the king's target counts).
cdef inline bint castling_allowed(Position* p, int right, int ksq) noexcept nogil:
    cdef Bitboard occ = p.by_type[ALL_PIECES], kocc, path
    cdef int to
    if not (p.st.castling & (1 << right)) or (occ & p.castling_path[right]):
        return False
    kocc = occ ^ square_bb(ksq) ^ square_bb(p.castling_rook[right])
    path = p.castling_king_path[right]
    while path:
        to = lsb(path)
        path &= path - 1
        if is_attacked(p, to, p.side ^ 1, kocc):
            return False
    return True

cdef inline bint in_check(Position* p) noexcept nogil:
    return p.st.checkers != 0

# Is a (possibly corrupted, e.g. from the transposition table) move legal here?
cdef bint is_legal_move(Position* p, Move m) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_moves(p, GEN_ALL, moves), i
    if m == MOVE_NONE or m == MOVE_NULL:
        return False
    for i in range(n):
        if moves[i] == m:
            return True
    return False

# Is a move from the transposition table (a guess: another position's move after a key
# collision, or any 16 bits) legal here?  The answer generate_moves would give, from the
# move's own piece alone, so that the search can try the table's move before generating.
cdef bint move_is_legal(Position* p, Move m) noexcept nogil:
    cdef int us = p.side, them = p.side ^ 1
    cdef int frm = move_from(m), to = move_to(m), kind = move_kind(m)
    cdef int piece = p.board[frm], pt = piece & 7, ksq, up, right
    cdef Bitboard occ = p.by_type[ALL_PIECES], ours = p.by_color[us], theirs = p.by_color[them]
    cdef Bitboard to_bb = square_bb(to), checkers = p.st.checkers, kocc, rank7, start
    if m == MOVE_NONE or m == MOVE_NULL or piece == NO_PIECE or (piece >> 3) != us:
        return False
    if kind != PROMOTION and (m >> 12) & 3:
        return False
    ksq = king_square(p, us)
    if kind == CASTLING:
        if pt != KING or checkers:
            return False
        for right in range(2 * us, 2 * us + 2):
            if p.castling_rook[right] == to and (p.st.castling & (1 << right)):
                return castling_allowed(p, right, ksq)
        return False
    if to_bb & ours:
        return False
    if pt == KING:
        if kind != NORMAL or not (KING_ATTACKS[frm] & to_bb):
            return False
        return not is_attacked(p, to, them, occ ^ square_bb(frm))
    if checkers & (checkers - 1):
        return False
    up = 8 if us == WHITE else -8
    if pt == PAWN:
        rank7 = RANK_1_BB << (48 if us == WHITE else 8)
        start = RANK_1_BB << (8 if us == WHITE else 48)
        if kind == EN_PASSANT:
            if to != p.st.ep or not (PAWN_ATTACKS[us][frm] & to_bb):
                return False
            # the captured pawn must be the checker, or the capture must block the check
            if checkers and not (checkers & square_bb(to - up)) and not (BETWEEN_BB[ksq][lsb(checkers)] & to_bb):
                return False
            kocc = (occ ^ square_bb(frm) ^ square_bb(to - up)) | to_bb
            return not ((rook_attacks(ksq, kocc) & theirs & (p.by_type[ROOK] | p.by_type[QUEEN]))
                        or (bishop_attacks(ksq, kocc) & theirs & (p.by_type[BISHOP] | p.by_type[QUEEN])))
        if (kind == PROMOTION) != ((square_bb(frm) & rank7) != 0):
            return False
        if PAWN_ATTACKS[us][frm] & to_bb:
            if not (to_bb & theirs):
                return False
        elif to == frm + up:
            if to_bb & occ:
                return False
        elif to == frm + 2 * up and (square_bb(frm) & start):
            if (to_bb | square_bb(frm + up)) & occ:
                return False
        else:
            return False
    elif kind != NORMAL:
        return False
    elif pt == KNIGHT:
        if not (KNIGHT_ATTACKS[frm] & to_bb):
            return False
    elif pt == BISHOP:
        if not (bishop_attacks(frm, occ) & to_bb):
            return False
    elif pt == ROOK:
        if not (rook_attacks(frm, occ) & to_bb):
            return False
    elif not ((bishop_attacks(frm, occ) | rook_attacks(frm, occ)) & to_bb):
        return False
    # a move of a piece other than the king: it must answer a check, and a pinned piece stays
    # on the line through its king
    if checkers and not ((BETWEEN_BB[ksq][lsb(checkers)] | checkers) & to_bb):
        return False
    if (p.st.blockers & square_bb(frm)) and not (LINE_BB[ksq][frm] & to_bb):
        return False
    return True

# Leaf nodes counted in bulk: at depth 1 the number of legal moves is the answer.
# Leaf count of the legal move tree (bulk counting at the last ply).  It gives up, returning
# a partial count, once the token's stop flag is set (read at every interior node: a load
# beside a move generation).
cdef uint64_t perft(Position* p, int depth, StopState* token) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_moves(p, GEN_ALL, moves), i
    cdef uint64_t nodes = 0
    if depth <= 1:
        return n if depth == 1 else 1
    for i in range(n):
        if load_int(&token.stop):
            break
        make_move(p, moves[i])
        nodes += perft(p, depth - 1, token)
        unmake_move(p, moves[i])
    return nodes
