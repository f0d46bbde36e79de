# The Python-facing mate prover: MateSearch runs mate.pxi's proofs on a copy of a board,
# without the GIL, under a node limit and a StopToken.

cdef class MateSearch:
    """Exact mate proofs on a copy of a board; see the header of mate.pxi.

    Each proof runs under a node limit and a StopToken (reset() sets both); stop() stops the
    current token from any thread.  The table of proven results survives set_position().
    """
    cdef MateSolver* ms
    cdef StopToken _token

    def __cinit__(self):
        self.ms = <MateSolver*>calloc(1, sizeof(MateSolver))
        if self.ms == NULL:
            raise MemoryError()
        position_init(&self.ms.pos)
        self.ms.table = <MateEntry*>calloc(1 << MATE_TABLE_BITS, sizeof(MateEntry))
        if self.ms.table == NULL:
            raise MemoryError()
        self._token = StopToken()
        self.ms.token = &self._token.state

    def __dealloc__(self):
        if self.ms != NULL:
            free(self.ms.table)
            position_free(&self.ms.pos)
            free(self.ms)
            self.ms = NULL

    def set_position(self, CoreBoard board):
        """Prove from a copy of board (with its game history, for the draw rules)."""
        position_copy(&self.ms.pos, &board.pos)

    def clear(self):
        """Forget every remembered result (without the GIL: 16 MB of memset)."""
        cdef MateEntry* table = self.ms.table
        with nogil:
            memset(table, 0, (1 << MATE_TABLE_BITS) * sizeof(MateEntry))

    def stop(self):
        """Stop the running proof (its token).  Thread-safe."""
        self._token.stop()

    @property
    def nodes(self):
        return self.ms.nodes

    def reset(self, node_limit=0, StopToken token=None, time_limit_ms=None):
        """Start counting nodes from zero under node_limit (0: none), the given token (a fresh
        one when None) and time_limit_ms from now (None: only the token's deadline).  The
        token is never cleared here: a stop sent to it stays."""
        self.ms.nodes = 0
        self.ms.node_limit = node_limit or 0
        self.ms.deadline_ms = now_ms() + max(0.0, time_limit_ms) if time_limit_ms is not None else 0
        self.ms.countdown = 0
        self.ms.cut = 0
        self._token = token if token is not None else StopToken()
        self.ms.token = &self._token.state

    def move_mates(self, int move, int moves_left):
        """Does the legal move `move` force mate within moves_left moves (counting itself)?
        True, False, or None when the node limit or the token cut the proof short."""
        cdef int result
        if moves_left < 1 or moves_left > MAX_MATE_MOVES:
            raise ValueError(f"moves_left must be in 1..{MAX_MATE_MOVES}")
        if not is_legal_move(&self.ms.pos, <Move>move):
            raise ValueError("illegal move")
        ensure_capacity(&self.ms.pos, 2 * moves_left + 8)
        with nogil:
            make_move(&self.ms.pos, <Move>move)
            result = defender_loses(self.ms, moves_left)
            unmake_move(&self.ms.pos, <Move>move)
        return None if result < 0 else bool(result)

    def side_to_move_mates(self, int moves_left):
        """Can the side to move force mate within moves_left moves?  True/False/None."""
        cdef int result
        if moves_left < 1 or moves_left > MAX_MATE_MOVES:
            raise ValueError(f"moves_left must be in 1..{MAX_MATE_MOVES}")
        ensure_capacity(&self.ms.pos, 2 * moves_left + 8)
        with nogil:
            result = attacker_mates(self.ms, moves_left)
        return None if result < 0 else bool(result)

    def push(self, int move):
        if not is_legal_move(&self.ms.pos, <Move>move):
            raise ValueError("illegal move")
        ensure_capacity(&self.ms.pos, MAX_PLY)
        make_move(&self.ms.pos, <Move>move)

    def pop(self):
        if self.ms.pos.st == self.ms.pos.states:
            raise IndexError("nothing to pop")
        unmake_move(&self.ms.pos, self.ms.pos.st.move)

    def legal_move_codes(self):
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(&self.ms.pos, GEN_ALL, moves), i
        return [moves[i] for i in range(n)]

MAX_MATE_MOVES_PY = MAX_MATE_MOVES
