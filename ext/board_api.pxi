# The Python-facing board: FEN in and out (validated, since FENs come from users), moves as
# UCI strings, draw facts, perft.  Nothing here runs per search node.

FILE_NAMES = "abcdefgh"
PIECE_LETTERS = " PNBRQK  pnbrqk"
STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
MAX_CLOCK = 1000000

def square_name(int sq):
    return FILE_NAMES[sq & 7] + str((sq >> 3) + 1)

def parse_square(str text):
    """Square index of a name like "e4"; ValueError for anything else."""
    if len(text) != 2 or text[0] not in FILE_NAMES or text[1] not in "12345678":
        raise ValueError(f"invalid square {text!r}")
    return FILE_NAMES.index(text[0]) + 8 * (int(text[1]) - 1)

cdef class CoreBoard:
    """A chess position with its game history, backed by the C Position struct."""
    cdef Position pos
    cdef NnueNetwork _network        # the net the board evaluates with (kept alive), or None

    def __cinit__(self):
        position_init(&self.pos)

    def __dealloc__(self):
        position_free(&self.pos)

    # -- set-up -------------------------------------------------------------------------

    def set_fen(self, fen, bint chess960=False):
        """Set the position from a FEN (standard, X-FEN or Shredder-FEN castling; 4 or 6 fields).

        The game history is cleared.  :raises ValueError: naming what is wrong; the board is
        left unchanged then.
        """
        cdef CoreBoard scratch = CoreBoard.__new__(CoreBoard)
        scratch._load_fen(fen, chess960)
        position_copy(&self.pos, &scratch.pos)

    cdef int _load_fen(self, fen, bint chess960) except -1:
        cdef Position* p = &self.pos
        cdef int sq, color, rook_sq, ksq, f, i, right, ep, capsq
        if not isinstance(fen, str):
            raise ValueError(f"FEN must be a string, not {type(fen).__name__}")
        fields = fen.split()
        if len(fields) not in (4, 6):
            raise ValueError(f"FEN needs 6 fields (or 4 without the clocks), got {len(fields)}: {fen!r}")
        placement, side, castling, ep_text = fields[:4]
        halfmove, fullmove = (fields[4], fields[5]) if len(fields) == 6 else ("0", "1")

        # Piece placement
        ranks = placement.split("/")
        if len(ranks) != 8:
            raise ValueError(f"FEN board needs 8 ranks separated by '/', got {len(ranks)}")
        board = [NO_PIECE] * 64
        for r, rank_text in enumerate(ranks):
            f = 0
            previous_digit = False
            for ch in rank_text:
                if ch in "12345678":
                    if previous_digit:
                        raise ValueError(f"FEN rank {8 - r} has two digits in a row: {rank_text!r}")
                    f += int(ch)
                    previous_digit = True
                elif ch in "PNBRQKpnbrqk":
                    if f >= 8:
                        raise ValueError(f"FEN rank {8 - r} has more than 8 squares: {rank_text!r}")
                    board[(7 - r) * 8 + f] = PIECE_LETTERS.index(ch)
                    f += 1
                    previous_digit = False
                else:
                    raise ValueError(f"FEN has an invalid piece letter {ch!r} in rank {8 - r}")
            if f != 8:
                raise ValueError(f"FEN rank {8 - r} has {f} squares instead of 8: {rank_text!r}")
        for color in (WHITE, BLACK):
            name = "white" if color == WHITE else "black"
            kings = board.count(make_piece(color, KING))
            if kings != 1:
                raise ValueError(f"FEN must have exactly one {name} king, found {kings}")
            count = sum(1 for pc in board if pc != NO_PIECE and color_of(pc) == color)
            if count > 16:
                raise ValueError(f"FEN has {count} {name} pieces, more than 16")
        for sq in list(range(8)) + list(range(56, 64)):
            if type_of(board[sq]) == PAWN:
                raise ValueError(f"FEN has a pawn on the first or last rank ({square_name(sq)})")

        if side not in ("w", "b"):
            raise ValueError(f"FEN side to move must be 'w' or 'b', not {side!r}")

        # Clocks (lengths first: int() of thousands of digits fails with a message of its own)
        if not halfmove.isdigit() or not halfmove.isascii():
            raise ValueError(f"FEN halfmove clock must be a non-negative integer, not {halfmove!r}")
        if not fullmove.isdigit() or not fullmove.isascii():
            raise ValueError(f"FEN fullmove number must be a non-negative integer, not {fullmove!r}")
        if (len(halfmove.lstrip("0")) > 7 or len(fullmove.lstrip("0")) > 7
                or int(halfmove) > MAX_CLOCK or int(fullmove) > MAX_CLOCK):
            raise ValueError(f"FEN clock values are too large (at most {MAX_CLOCK})")

        # Build the position
        memset(p.by_type, 0, sizeof(p.by_type))
        memset(p.by_color, 0, sizeof(p.by_color))
        memset(p.board, 0, sizeof(p.board))
        memset(p.castling_mask, 0, sizeof(p.castling_mask))
        for i in range(4):
            p.castling_rook[i] = SQ_NONE
            p.castling_path[i] = 0
            p.castling_king_path[i] = 0
        p.st = p.states
        memset(p.st, 0, sizeof(StateInfo))
        p.st.ep = SQ_NONE
        p.st.move = MOVE_NONE
        for sq in range(64):
            if board[sq] != NO_PIECE:
                put_piece(p, board[sq], sq)
        p.side = WHITE if side == "w" else BLACK
        p.chess960 = chess960
        p.st.rule50 = int(halfmove)
        # Many EPD collections write fullmove 0; like python-chess, read it as 1.
        p.game_ply = 2 * (max(int(fullmove), 1) - 1) + p.side

        if is_attacked(p, king_square(p, p.side ^ 1), p.side, p.by_type[ALL_PIECES]):
            raise ValueError("FEN is illegal: the side not to move is in check")

        # Castling rights, as rook squares
        if castling != "-":
            if len(set(castling)) != len(castling):
                raise ValueError(f"FEN castling field repeats a right: {castling!r}")
            for ch in castling:
                if ch not in "KQkqABCDEFGHabcdefgh":
                    raise ValueError(f"FEN castling field has an invalid letter {ch!r}")
                color = WHITE if ch.isupper() else BLACK
                name = "white" if color == WHITE else "black"
                ksq = king_square(p, color)
                back = relative_square(color, 0)
                if rank_of(ksq) != rank_of(back):
                    raise ValueError(f"FEN castling right {ch!r} but the {name} king is not on its back rank")
                rooks = [s for s in range(back, back + 8) if board[s] == make_piece(color, ROOK)]
                if ch in "Kk":
                    side_rooks = [s for s in rooks if s > ksq]
                    rook_sq = max(side_rooks) if side_rooks else SQ_NONE
                elif ch in "Qq":
                    side_rooks = [s for s in rooks if s < ksq]
                    rook_sq = min(side_rooks) if side_rooks else SQ_NONE
                else:
                    rook_sq = back + FILE_NAMES.index(ch.lower())
                    if rook_sq not in rooks:
                        rook_sq = SQ_NONE
                if rook_sq == SQ_NONE:
                    raise ValueError(f"FEN castling right {ch!r} but there is no {name} rook for it")
                if not chess960 and (file_of(ksq) != 4 or file_of(rook_sq) not in (0, 7)):
                    raise ValueError(f"FEN castling right {ch!r} needs the king on the e-file and the "
                                     f"rook in the corner (Chess960 is off)")
                right = (0 if rook_sq > ksq else 1) + 2 * color
                if p.st.castling & (1 << right):
                    raise ValueError(f"FEN castling field gives {name} two rights on one side: {castling!r}")
                add_castling_right(p, color, rook_sq)

        # En passant: a pawn must have just made the double step.
        if ep_text != "-":
            try:
                ep = parse_square(ep_text)
            except ValueError:
                raise ValueError(f"FEN en-passant field must be a square like e3 or '-', not {ep_text!r}") from None
            if rank_of(ep) != (5 if p.side == WHITE else 2):
                raise ValueError(f"FEN en-passant square {ep_text} is not on the {'6th' if p.side == WHITE else '3rd'} rank")
            capsq = ep - 8 if p.side == WHITE else ep + 8
            if (board[capsq] != make_piece(p.side ^ 1, PAWN) or board[ep] != NO_PIECE
                    or board[ep + (8 if p.side == WHITE else -8)] != NO_PIECE):
                raise ValueError(f"FEN en-passant square {ep_text} without a pawn that just made a double step")
            if ep_capture_legal(p, ep):
                p.st.ep = ep

        compute_keys(p)
        set_check_info(p)
        return 0

    def copy(self):
        """An independent copy, with the game history."""
        cdef CoreBoard other = type(self).__new__(type(self))
        position_copy(&other.pos, &self.pos)
        other._copy_extra(self)
        return other

    def _copy_extra(self, other):
        pass

    # -- output -------------------------------------------------------------------------

    def fen(self, shredder=False):
        """FEN of the position; castling as X-FEN (KQkq when unambiguous) or Shredder-FEN."""
        cdef Position* p = &self.pos
        cdef int r, f, empty, pc
        rows = []
        for r in range(7, -1, -1):
            row = ""
            empty = 0
            for f in range(8):
                pc = p.board[r * 8 + f]
                if pc == NO_PIECE:
                    empty += 1
                else:
                    if empty:
                        row += str(empty)
                        empty = 0
                    row += PIECE_LETTERS[pc]
            if empty:
                row += str(empty)
            rows.append(row)
        ep = square_name(p.st.ep) if p.st.ep != SQ_NONE else "-"
        return (f"{'/'.join(rows)} {'w' if p.side == WHITE else 'b'} {self.castling_fen(shredder)} "
                f"{ep} {p.st.rule50} {p.game_ply // 2 + 1}")

    def castling_fen(self, shredder=False):
        cdef Position* p = &self.pos
        cdef int color, right, rsq, ksq, other
        out = ""
        for color in (WHITE, BLACK):
            ksq = king_square(p, color)
            for right in (2 * color, 2 * color + 1):
                if not (p.st.castling & (1 << right)):
                    continue
                rsq = p.castling_rook[right]
                ch = FILE_NAMES[file_of(rsq)]
                if not shredder:
                    outer = False
                    for other in range(relative_square(color, 0), relative_square(color, 0) + 8):
                        if other != rsq and p.board[other] == make_piece(color, ROOK):
                            if (other > rsq and rsq > ksq) or (other < rsq and rsq < ksq):
                                outer = True
                    if not outer:
                        ch = "k" if rsq > ksq else "q"
                out += ch.upper() if color == WHITE else ch
        return out or "-"

    # -- the neural evaluation (tests, UCI eval) ------------------------------------------

    def set_network(self, NnueNetwork network):
        """Evaluate with `network` (its accumulators kept up to date by push and pop), or with
        the classical evaluation for None.  A copy of the board evaluates classically."""
        position_set_network(&self.pos, NULL if network is None else &network.net)
        self._network = network

    def network_evaluation(self, NnueNetwork network not None):
        """(score, output): the static evaluation with `network` (draw rule and limits as in a
        search) and the network's raw output, centipawns from the side to move's view, from an
        accumulator built from scratch.  The board is not changed."""
        cdef Accumulator* a = <Accumulator*>malloc(sizeof(Accumulator))
        cdef int output, score
        if a == NULL:
            raise MemoryError()
        nnue_refresh(&network.net, &self.pos, a)
        output = nnue_output(&network.net, a, self.pos.side, nnue_bucket(&network.net, &self.pos))
        score = nnue_evaluate_with(&self.pos, &network.net, a)
        free(a)
        return score, output

    def accumulator_check(self):
        """(valid, difference) for the board's current accumulator once brought up to date as
        an evaluation does (from the changes make/unmake wrote down): whether it is valid (its
        key is the position's), and the largest difference of any of its values from a full
        refresh.  :raises ValueError: without a network."""
        cdef NnueStack* s = <NnueStack*>self.pos.nnue
        cdef Accumulator* a
        cdef Accumulator* fresh
        cdef int persp, i, diff = 0, d
        if s == NULL:
            raise ValueError("the board has no network (set_network)")
        a = nnue_current(&self.pos)
        fresh = <Accumulator*>malloc(sizeof(Accumulator))
        if fresh == NULL:
            raise MemoryError()
        nnue_refresh(s.net, &self.pos, fresh)
        for persp in range(2):
            for i in range(s.net.hidden):
                d = abs(a.values[persp][i] - fresh.values[persp][i])
                if d > diff:
                    diff = d
        valid = a.key == self.pos.st.key
        free(fresh)
        return valid, diff

    def move_uci(self, int m):
        """UCI text of a move code (castling as e1g1, or king takes rook in Chess960)."""
        cdef int frm = move_from(m), to = move_to(m), right
        if m == MOVE_NONE or m == MOVE_NULL:
            return "0000"
        if move_kind(m) == CASTLING and not self.pos.chess960:
            right = (0 if to > frm else 1) + 2 * color_of(self.pos.board[frm])
            to = self.pos.castling_king_to[right]
        text = square_name(frm) + square_name(to)
        if move_kind(m) == PROMOTION:
            text += "nbrq"[promotion_type(m) - KNIGHT]
        return text

    # -- moves --------------------------------------------------------------------------

    def legal_move_codes(self):
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(&self.pos, GEN_ALL, moves), i
        return [moves[i] for i in range(n)]

    def legal_check_mismatches(self):
        """The move codes (all 65536) on which move_is_legal, the search's check of a table
        move, and the legal move generator disagree here (a check of the former: empty)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(&self.pos, GEN_ALL, moves), i
        cdef unsigned char legal[65536]
        cdef int code
        memset(legal, 0, sizeof(legal))
        for i in range(n):
            legal[moves[i]] = 1
        return [code for code in range(65536) if move_is_legal(&self.pos, <Move>code) != legal[code]]

    def legal_moves(self):
        """The legal moves as UCI strings."""
        return [self.move_uci(m) for m in self.legal_move_codes()]

    def moves_to(self, int to, int piece_type):
        """The legal moves (UCI) of the side to move's pieces of one type (1 pawn .. 6 king)
        to a square, castling left out: what SAN needs to find a move and to disambiguate
        it, without building every move's text."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(&self.pos, GEN_ALL, moves), i
        cdef Move m
        out = []
        if not 0 <= to < 64:
            return out
        for i in range(n):
            m = moves[i]
            if (move_to(m) == to and move_kind(m) != CASTLING
                    and type_of(self.pos.board[move_from(m)]) == piece_type):
                out.append(self.move_uci(m))
        return out

    def parse_uci(self, text):
        """The legal move code named by a UCI string.  :raises ValueError: if malformed or illegal."""
        if not isinstance(text, str) or not 4 <= len(text) <= 5:
            raise ValueError(f"invalid move {text!r}: expected UCI notation like e2e4 or e7e8q")
        try:
            frm = parse_square(text[0:2])
            to = parse_square(text[2:4])
        except ValueError:
            raise ValueError(f"invalid move {text!r}: expected UCI notation like e2e4 or e7e8q") from None
        if len(text) == 5 and text[4] not in "nbrq":
            raise ValueError(f"invalid move {text!r}: promotion piece must be one of n, b, r, q")
        for m in self.legal_move_codes():
            if move_from(m) != frm:
                continue
            if move_kind(m) == CASTLING:
                if len(text) == 4 and (to == move_to(m) or (not self.pos.chess960 and self.move_uci(m) == text)):
                    return m
            elif move_to(m) == to:
                if move_kind(m) == PROMOTION:
                    if len(text) == 5 and "nbrq"[promotion_type(m) - KNIGHT] == text[4]:
                        return m
                elif len(text) == 4:
                    return m
        raise ValueError(f"illegal move {text} in position {self.fen()}")

    def push_code(self, int m):
        """Play a move given by its code.  :raises ValueError: if it is not legal here."""
        if not 0 <= m <= 0xFFFF or not is_legal_move(&self.pos, <Move>m):
            raise ValueError(f"move code {m} is not a legal move in {self.fen()}")
        ensure_capacity(&self.pos, MAX_PLY + 8)
        make_move(&self.pos, <Move>m)

    def push_uci(self, text):
        """Play a move given in UCI notation.  :raises ValueError: if malformed or illegal."""
        self.push_code(self.parse_uci(text))

    def push_null(self):
        """Pass the turn (a null move: "--" or "Z0" in PGN, "0000" on the move stack).

        Game records use it for a move left out; the search never sees it.
        :raises ValueError: when in check (the king would stay attacked).
        """
        if self.pos.st.checkers:
            raise ValueError(f"a null move is not allowed in check in {self.fen()}")
        ensure_capacity(&self.pos, MAX_PLY + 8)
        make_null_move(&self.pos)

    def pop(self):
        """Take back the last move; returns it in UCI notation.  :raises IndexError: at the start."""
        cdef Move m
        if self.pos.st == self.pos.states:
            raise IndexError("pop from a board with no moves played")
        m = self.pos.st.move
        if m == MOVE_NULL:
            unmake_null_move(&self.pos)
        else:
            unmake_move(&self.pos, m)
        return self.move_uci(m)

    def move_stack(self):
        """The moves played since the FEN was set, in UCI notation."""
        cdef int n = <int>(self.pos.st - self.pos.states), i
        codes = [self.pos.states[i].move for i in range(1, n + 1)]
        # Moves are printed from the position before each of them.
        scratch = self.copy()
        for _ in range(n):
            scratch.pop()
        out = []
        for m in codes:
            out.append(scratch.move_uci(m))
            if m == MOVE_NULL:
                scratch.push_null()
            else:
                scratch.push_code(m)
        return out

    # -- facts --------------------------------------------------------------------------

    @property
    def turn(self):
        """True when white is to move (as python-chess)."""
        return self.pos.side == WHITE

    @property
    def chess960(self):
        return bool(self.pos.chess960)

    @property
    def halfmove_clock(self):
        return self.pos.st.rule50

    @property
    def fullmove_number(self):
        return self.pos.game_ply // 2 + 1

    @property
    def ply(self):
        """Number of moves on the stack (since the FEN was set)."""
        return <int>(self.pos.st - self.pos.states)

    def zobrist_key(self):
        return self.pos.st.key

    def structure_keys(self):
        """(pawn key, white's non-pawn key, black's non-pawn key): the Zobrist keys of the
        pawns alone and of each colour's other pieces (king included), which the pawn cache
        and the correction histories use."""
        return (self.pos.st.pawn_key, self.pos.st.non_pawn_key[WHITE],
                self.pos.st.non_pawn_key[BLACK])

    def is_check(self):
        return self.pos.st.checkers != 0

    def checkers(self):
        """Squares (names) of the pieces giving check."""
        cdef Bitboard b = self.pos.st.checkers
        out = []
        while b:
            out.append(square_name(lsb(b)))
            b &= b - 1
        return out

    def has_legal_moves(self):
        cdef Move moves[MAX_MOVES]
        return generate_moves(&self.pos, GEN_ALL, moves) > 0

    def repetitions(self):
        """How many times the current position occurred earlier in the game."""
        return repetition_count(&self.pos, MAX_PLY * 1024)

    def is_insufficient_material(self):
        return bool(insufficient_material(&self.pos))

    def piece_at(self, sq):
        """Letter of the piece on a square index ('P', 'n', ...) or None."""
        cdef int pc = self.pos.board[sq & 63]
        return PIECE_LETTERS[pc] if pc != NO_PIECE else None

    def perft(self, int depth, StopToken stop=None):
        """Number of leaf nodes of the legal move tree of the given depth.  With a stop token
        that gets stopped, the count is partial: check stop.stopped."""
        cdef uint64_t nodes
        cdef StopToken token = stop if stop is not None else StopToken()
        if depth < 0:
            raise ValueError("perft depth must be non-negative")
        if depth > MAX_PLY - 8:
            raise ValueError("perft depth too large")
        ensure_capacity(&self.pos, depth + 8)
        with nogil:
            nodes = perft(&self.pos, depth, &token.state)
        return nodes

    def divide(self, int depth, StopToken stop=None):
        """Perft split by root move: a list of (uci, count).  A stop token ends it early: the
        list then holds the root moves counted before the stop (the last one maybe partly)."""
        out = []
        if depth < 1:
            raise ValueError("divide depth must be at least 1")
        for m in self.legal_move_codes():
            if stop is not None and stop.stopped:
                break
            text = self.move_uci(m)
            self.push_code(m)
            out.append((text, self.perft(depth - 1, stop)))
            self.pop()
        return out
