# The Python-facing self-play: SelfPlay plays datagen.pxi's games on a SearchCore of its own,
# and the record layout's constants and the adjudication thresholds that
# engine/training/datagen.py reads.

cdef class SelfPlay:
    """Self-play games for training data, each a C loop without the GIL (see datagen.pxi).
    It owns a SearchCore of `hash_mb` MB whose table and histories every game starts from
    empty, so the same start position and node budget always give the same game."""
    cdef SearchCore core
    cdef uint8_t* records
    cdef Move* moves

    def __cinit__(self, int hash_mb=4):
        if not 1 <= hash_mb <= 1024:
            raise ValueError(f"hash_mb must be in 1..1024, not {hash_mb}")
        self.core = SearchCore(hash_mb)
        self.records = <uint8_t*>malloc(MAX_GAME_PLIES * RECORD_BYTES)
        self.moves = <Move*>malloc(MAX_GAME_PLIES * sizeof(Move))
        if self.records == NULL or self.moves == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.records)
        free(self.moves)

    def set_network(self, NnueNetwork network):
        """Play with `network` (None: the classical evaluation) from the next game on.
        :raises MemoryError: when the accumulators cannot be allocated."""
        self.core.set_network(network)

    def play(self, CoreBoard start not None, long long nodes, long long game_index=0,
             int start_ply=0):
        """Play a game from `start` (with its history, for repetitions) at `nodes` per move.
        Returns (records, result, termination, moves, nodes searched): the records as bytes
        (RECORD_BYTES each, see pack_record), white's result (1, 0, -1), an END_* code, the
        move codes played from `start`.  game_index and start_ply (plies before `start`)
        are written into the records.

        :raises ValueError: nodes outside 1..2**31, game_index outside 0..2**32-1, start_ply
            outside 0..60000, or more than 32 pieces on the board."""
        cdef SearchData* sd = self.core.sd
        cdef GameOutcome out
        cdef uint32_t index
        cdef bint chess960 = start.pos.chess960
        if not 1 <= nodes <= 2 ** 31:
            raise ValueError(f"nodes must be in 1..2**31, not {nodes}")
        if not 0 <= game_index < 2 ** 32:
            raise ValueError(f"game_index must be in 0..2**32-1, not {game_index}")
        if not 0 <= start_ply <= 60000:
            raise ValueError(f"start_ply must be in 0..60000, not {start_ply}")
        if popcount(start.pos.by_type[ALL_PIECES]) > 32:
            raise ValueError("more than 32 pieces: a record holds at most 32")
        index = <uint32_t>game_index
        position_copy(&sd.pos, &start.pos)
        ensure_capacity(&sd.pos, MAX_GAME_PLIES + MAX_PLY + 8)
        with nogil:
            play_game_c(sd, <uint64_t>nodes, index, start_ply, chess960, self.records,
                        self.moves, &out)
        return ((<char*>self.records)[:out.record_count * RECORD_BYTES], out.result, out.termination,
                [self.moves[i] for i in range(out.move_count)], out.nodes)


RECORD_BYTES_PY = RECORD_BYTES
MAX_GAME_PLIES_PY = MAX_GAME_PLIES
GAME_ENDS = ("checkmate", "stalemate", "insufficient material", "fifty moves",
             "threefold repetition", "adjudicated win", "adjudicated draw", "max length")
ADJUDICATION = {"win_score": ADJ_WIN_SCORE, "win_plies": ADJ_WIN_PLIES,
                "draw_score": ADJ_DRAW_SCORE, "draw_plies": ADJ_DRAW_PLIES,
                "draw_start": ADJ_DRAW_START, "max_game_plies": MAX_GAME_PLIES}
