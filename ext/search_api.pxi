# SearchCore: the Python handle on one search (its table, histories and root moves).  Called
# by engine/search.py once per iteration; every call that searches releases the GIL.


cdef class SearchCore:
    cdef SearchData* sd
    cdef object _root_move_callback

    def __cinit__(self, int hash_mb=16):
        self.sd = <SearchData*>calloc(1, sizeof(SearchData))
        if self.sd == NULL:
            raise MemoryError()
        position_init(&self.sd.pos)
        tt_resize(&self.sd.tt, hash_mb)
        tt_start_warm_up(&self.sd.tt)

    def __dealloc__(self):
        if self.sd != NULL:
            tt_free(&self.sd.tt)
            position_free(&self.sd.pos)
            free(self.sd)
            self.sd = NULL

    def resize_hash(self, int megabytes):
        """Give the table `megabytes` of fresh, empty memory (at once: the OS hands out zeroed
        pages).  The old memory waits for release_retired(), the new one for start_warm_up().

        :raises MemoryError: if it cannot be allocated; the table is then unchanged."""
        tt_resize(&self.sd.tt, megabytes)

    def release_retired(self):
        """Return the memory of earlier tables to the OS, without the GIL (a large table that
        has been used takes a while to unmap); waits for a clear that is still zeroing one of
        them to stop.  Any thread may call it."""
        cdef TTBlock* blocks = self.sd.tt.retired
        self.sd.tt.retired = NULL
        with nogil:
            tt_free_blocks(blocks)

    def start_warm_up(self):
        """Have a C thread write every page of the table once, in the background, so that the
        OS supplies them all (see tt.pxi); nothing happens if one is at it or the table is warm."""
        tt_start_warm_up(&self.sd.tt)

    @property
    def hash_mb(self):
        """The table size in MB."""
        return <uint64_t>self.sd.tt.cluster_count * sizeof(TTCluster) // MB

    def clear_table(self, int threads=1):
        """Empty the table without the GIL.  Returns 0 when there was nothing to do (not
        searched since it was last emptied), -1 when fresh memory replaced it (its warm-up had
        not finished; the old block is retired, for release_retired, and the new one waits for
        start_warm_up), else the number of C threads (at most `threads`) that zeroed the
        granules the search had written (stopping early if a resize retired the block)."""
        cdef TranspositionTable* tt = &self.sd.tt
        cdef TTClearJob job
        cdef int count
        if not tt.dirty:
            tt.generation = 0
            return 0
        if not load_int(&tt.block.warmed):
            try:
                tt_resize(tt, self.hash_mb)
                return -1
            except MemoryError:
                pass            # no room for a second block: zero this one
        count = tt_begin_clear(tt, &job, threads)
        with nogil:
            count = tt_zero(&job, count)
        return count

    @property
    def table_warmed(self):
        """True once the OS has supplied every page of the table (see tt.pxi)."""
        return bool(load_int(&self.sd.tt.block.warmed))

    def clear_histories(self):
        """Forget the move-ordering statistics: histories, killers, countermoves."""
        memset(self.sd.history, 0, sizeof(self.sd.history))
        memset(self.sd.capture_history, 0, sizeof(self.sd.capture_history))
        memset(self.sd.killers, 0, sizeof(self.sd.killers))
        memset(self.sd.countermoves, 0, sizeof(self.sd.countermoves))
        memset(self.sd.continuation, 0, sizeof(self.sd.continuation))

    def hashfull(self):
        return tt_hashfull(&self.sd.tt)

    def set_position(self, CoreBoard board):
        """Search from a copy of board (with its game history, for repetitions)."""
        position_copy(&self.sd.pos, &board.pos)

    def setup_root(self, allowed=None):
        """Collect the root moves (only those in `allowed`, codes, when given), ordered by the
        table move and the capture/killer/history heuristics.  Returns how many there are."""
        cdef SearchData* sd = self.sd
        cdef Move moves[MAX_MOVES]
        cdef int scores[MAX_MOVES]
        cdef int n = generate_moves(&sd.pos, GEN_ALL, moves), i, k = 0
        cdef bint found
        cdef TTEntry* tte = tt_probe(&sd.tt, sd.pos.st.key, &found)
        score_moves(sd, moves, scores, n, tte.move if found else MOVE_NONE, 0)
        for i in range(n):
            m = pick_move(moves, scores, n, i)
            if allowed is not None and m not in allowed:
                continue
            sd.root_moves[k].move = m
            sd.root_moves[k].score = -VALUE_INFINITE
            sd.root_moves[k].previous_score = -VALUE_INFINITE
            sd.root_moves[k].pv[0] = m
            sd.root_moves[k].pv_length = 1
            sd.root_moves[k].seldepth = 0
            k += 1
        sd.root_count = k
        return k

    def start(self, node_limit=0, hard_ms=None):
        """Reset counters and the stop flag for a new search."""
        cdef SearchData* sd = self.sd
        sd.nodes = 0
        sd.node_limit = node_limit or 0
        sd.start_ms = now_ms()
        sd.hard_deadline_ms = sd.start_ms + hard_ms if hard_ms is not None else 0
        sd.check_countdown = 0
        sd.check_interval = 1
        sd.last_check_ms = sd.start_ms
        sd.seldepth = 0
        store_int(&sd.stop, 0)
        tt_new_search(&sd.tt)
        memset(sd.killers, 0, sizeof(sd.killers))

    def set_hard_limit(self, hard_ms):
        """Move the hard deadline to hard_ms from now (None: no deadline).  Thread-safe."""
        self.sd.hard_deadline_ms = now_ms() + hard_ms if hard_ms is not None else 0

    def set_root_move_callback(self, callback):
        """callback(depth, move_code, number) before each root move is searched, or None.
        Called from the searching thread with the GIL held; exceptions are swallowed."""
        self._root_move_callback = callback    # keeps the reference the C side borrows
        self.sd.root_move_callback = <void*>callback if callback is not None else NULL

    def stop(self):
        """Ask the running search to return as soon as possible.  Thread-safe."""
        store_int(&self.sd.stop, 1)

    @property
    def stopped(self):
        return bool(load_int(&self.sd.stop))

    @property
    def nodes(self):
        return self.sd.nodes

    @property
    def seldepth(self):
        return self.sd.seldepth

    def elapsed_ms(self):
        return now_ms() - self.sd.start_ms

    @property
    def root_count(self):
        return self.sd.root_count

    def search_root(self, int depth, int alpha, int beta, int pv_index=0):
        """One root search of the given depth and window for MultiPV line pv_index."""
        cdef SearchData* sd = self.sd
        cdef int score
        if not 0 <= pv_index < sd.root_count:
            raise ValueError("pv_index out of range")
        for i in range(pv_index, sd.root_count):
            sd.root_moves[i].previous_score = sd.root_moves[i].score
            sd.root_moves[i].score = -VALUE_INFINITE
        sd.root_depth = depth
        sd.pv_index = pv_index
        with nogil:
            score = search(sd, alpha, beta, depth, 0, False)
        return score

    def sort_root(self, int start=0):
        """Stable sort of root moves start.. by score, best first."""
        cdef SearchData* sd = self.sd
        cdef int i, j
        cdef RootMove tmp
        for i in range(start + 1, sd.root_count):
            j = i
            while j > start and sd.root_moves[j - 1].score < sd.root_moves[j].score:
                tmp = sd.root_moves[j]
                sd.root_moves[j] = sd.root_moves[j - 1]
                sd.root_moves[j - 1] = tmp
                j -= 1

    def root_move(self, int i):
        """(move code, score, previous score, seldepth, pv codes) of root move i."""
        cdef RootMove* rm
        if not 0 <= i < self.sd.root_count:
            raise IndexError("root move index out of range")
        rm = &self.sd.root_moves[i]
        return rm.move, rm.score, rm.previous_score, rm.seldepth, [rm.pv[k] for k in range(rm.pv_length)]

    def probe_move(self, CoreBoard board):
        """The table's move for board's position, if it is legal there, else None."""
        cdef bint found
        cdef TTEntry* tte = tt_probe(&self.sd.tt, board.pos.st.key, &found)
        if found and tte.move != MOVE_NONE and is_legal_move(&board.pos, tte.move):
            return tte.move
        return None

VALUE_MATE_PY = VALUE_MATE
VALUE_INFINITE_PY = VALUE_INFINITE
MATE_BOUND_PY = VALUE_MATE_IN_MAX_PLY
