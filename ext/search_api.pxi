# SearchCore: the Python handle on one search (its table, histories and root moves).  Called
# by engine/search.py once per iteration; every call that searches releases the GIL.  The
# routines it wraps (root set-up, the search's start, an iteration, the history reset) are
# search.pxi's, the same ones the helper threads and self-play (datagen.pxi) run.


cdef SearchData* new_search_data(TranspositionTable* tt) except NULL:
    """A SearchData (zeroed: empty histories) with its position stack and pawn cache."""
    cdef SearchData* sd = <SearchData*>calloc(1, sizeof(SearchData))
    if sd == NULL:
        raise MemoryError()
    try:
        position_init(&sd.pos)
    except MemoryError:
        free(sd)
        raise
    sd.pos.pawn_cache = new_pawn_cache()
    if sd.pos.pawn_cache == NULL:
        position_free(&sd.pos)
        free(sd)
        raise MemoryError()
    sd.tt = tt
    sd.on = DEFAULT_SWITCHES
    return sd

cdef void free_search_data(SearchData* sd) noexcept:
    if sd != NULL:
        free(sd.pos.pawn_cache)
        position_free(&sd.pos)
        free(sd)

# The plies before the root that a search can read: a repetition is sought no further back
# than the last capture, pawn move or null move (rule50, plies_from_null), and not at all in a
# position the fifty-move rule has drawn (is_draw in search.pxi: rule50 >= 100 is a draw
# before any repetition scan).  The older history cannot change a search.
cdef enum:
    SEARCH_HISTORY_LIMIT = 100

# Copy src into dst (both initialised) with only the history a search can read (see
# SEARCH_HISTORY_LIMIT): a game of any length costs each search thread a few KB, not a copy of
# every state (and of an accumulator per state with the network).
cdef int copy_search_position(Position* dst, Position* src) except -1:
    cdef StateInfo* states = dst.states
    cdef int capacity = dst.capacity
    cdef void* pawn_cache = dst.pawn_cache
    cdef void* nnue = dst.nnue
    cdef int back = <int>(src.st - src.states)
    if src.st.rule50 < back:
        back = src.st.rule50
    if src.st.plies_from_null < back:
        back = src.st.plies_from_null
    if SEARCH_HISTORY_LIMIT < back:
        back = SEARCH_HISTORY_LIMIT
    memcpy(dst, src, sizeof(Position))
    dst.states = states
    dst.capacity = capacity
    dst.pawn_cache = pawn_cache
    dst.nnue = nnue
    dst.st = states
    ensure_capacity(dst, back + 1 + MAX_PLY + 8)
    memcpy(dst.states, src.st - back, (back + 1) * sizeof(StateInfo))
    dst.st = dst.states + back
    return 0


cdef class SearchCore:
    """One searcher's C state: table, histories, pawn cache, root moves, and the helper
    threads of a parallel search (each with histories, pawn cache and position of its own, all
    sharing the table).  Nothing in it is shared with another SearchCore."""
    cdef SearchData* sd                # the main thread's
    cdef TranspositionTable* table
    cdef SearchData** helpers          # helper_count of them
    cdef int helper_count
    cdef SmpState* smp
    cdef thread_handle* handles        # the helper threads of the running search
    cdef int* running                  # 1 where a helper thread was started and not joined
    cdef object _root_move_callback
    cdef object _window_report     # the window callback's wrapper that the C side borrows
    cdef list _window_errors       # what that callback raised in the running iteration
    cdef StopToken _token          # the token of the current search (kept alive here)
    cdef NnueNetwork _network      # the net every thread evaluates with, or None: classical
    cdef SyzygyTables _tablebase   # the tables every thread probes (kept alive here), or None
    cdef int _tb_cardinality       # the most pieces a probe in the search may have (0: none)

    def __cinit__(self, int hash_mb=16):
        self.table = <TranspositionTable*>calloc(1, sizeof(TranspositionTable))
        self.smp = <SmpState*>calloc(1, sizeof(SmpState))
        if self.table == NULL or self.smp == NULL:
            raise MemoryError()
        self.sd = new_search_data(self.table)
        tt_resize(self.table, hash_mb)
        tt_start_warm_up(self.table)
        self._token = StopToken()
        self.sd.token = &self._token.state

    def __dealloc__(self):
        self._join_helpers()
        self._free_helpers()
        if self.sd != NULL:
            free_search_data(self.sd)
            self.sd = NULL
        if self.table != NULL:
            tt_free(self.table)
            free(self.table)
            self.table = NULL
        free(self.smp)
        self.smp = NULL

    # -- threads ----------------------------------------------------------------------

    @property
    def threads(self):
        """Threads a search uses: the main one and its helpers."""
        return self.helper_count + 1

    def set_threads(self, int count):
        """Use `count` threads (1..MAX_SEARCH_THREADS) from the next search on: helpers with
        fresh histories are made (or freed) to match.  Not during a search.

        :raises ValueError: out of range.
        :raises MemoryError: when the helpers cannot be allocated; the old ones stay."""
        cdef SearchData** fresh
        cdef thread_handle* handles
        cdef int* running
        cdef int i, n = count - 1
        if not 1 <= count <= MAX_SEARCH_THREADS:
            raise ValueError(f"threads must be in 1..{MAX_SEARCH_THREADS}, not {count}")
        if n == self.helper_count:
            return
        fresh = <SearchData**>calloc(n if n > 0 else 1, sizeof(SearchData*))
        handles = <thread_handle*>calloc(n if n > 0 else 1, sizeof(thread_handle))
        running = <int*>calloc(n if n > 0 else 1, sizeof(int))
        if fresh == NULL or handles == NULL or running == NULL:
            free(fresh); free(handles); free(running)
            raise MemoryError()
        try:
            for i in range(n):
                fresh[i] = new_search_data(self.table)
                if self._network is not None:
                    position_set_network(&fresh[i].pos, &self._network.net)
                fresh[i].smp = self.smp
                fresh[i].thread_index = i + 1
        except MemoryError:
            for i in range(n):
                free_search_data(fresh[i])
            free(fresh); free(handles); free(running)
            raise
        self._free_helpers()
        self.helpers = fresh
        self.handles = handles
        self.running = running
        self.helper_count = n
        self.sd.helpers = <void*>fresh
        self.sd.helper_count = n

    # -- evaluation -------------------------------------------------------------------

    @property
    def network(self):
        """The NnueNetwork the search evaluates with, or None for the classical evaluation."""
        return self._network

    def set_network(self, NnueNetwork network):
        """Evaluate with `network` (None: the classical evaluation) from the next search on,
        in every thread; each thread's position gets accumulators of its own.  Not during a
        search.  The table keeps static evaluations: clear it after a change.

        :raises MemoryError: when the accumulators cannot be allocated; nothing changes then."""
        cdef NnueNet* net = NULL if network is None else &network.net
        cdef int i
        position_set_network(&self.sd.pos, net)
        try:
            for i in range(self.helper_count):
                position_set_network(&self.helpers[i].pos, net)
        except MemoryError:
            for i in range(self.helper_count):
                position_set_network(&self.helpers[i].pos, NULL if self._network is None else &self._network.net)
            position_set_network(&self.sd.pos, NULL if self._network is None else &self._network.net)
            raise
        self._network = network

    cdef void _free_helpers(self) noexcept:
        cdef int i
        if self.helpers != NULL:
            for i in range(self.helper_count):
                free_search_data(self.helpers[i])
        free(self.helpers)
        free(self.handles)
        free(self.running)
        self.helpers = NULL
        self.handles = NULL
        self.running = NULL
        self.helper_count = 0
        if self.sd != NULL:
            self.sd.helpers = NULL
            self.sd.helper_count = 0

    def start_helpers(self, int max_depth):
        """Start the helper threads on the root set up for the main thread (after setup_root
        and start, which zeroes their node counts and results): each searches a copy of the
        position with the same root moves, the same token and no node limit, up to max_depth,
        until stop_helpers().  Returns how many threads search (the main one included)."""
        cdef SearchData* sd = self.sd
        cdef SearchData* h
        cdef int i, count = 1
        if self.helper_count == 0:
            return 1
        self._join_helpers()
        memset(self.smp, 0, sizeof(SmpState))
        self.smp.thread_count = self.helper_count + 1
        sd.smp = self.smp
        for i in range(self.helper_count):
            h = self.helpers[i]
            position_copy(&h.pos, &sd.pos)
            memcpy(h.root_moves, sd.root_moves, sd.root_count * sizeof(RootMove))
            h.root_count = sd.root_count
            h.pv_index = 0
            h.token = sd.token
            h.node_limit = 0
            h.start_ms = sd.start_ms
            h.check_countdown = 0
            h.check_interval = 1
            h.last_check_ms = sd.start_ms
            h.seldepth = 0
            h.stop = sd.stop
            h.root_move_callback = NULL
            h.window_callback = NULL
            memset(h.line_scores, 0, sizeof(h.line_scores))
            h.max_depth = max_depth if max_depth <= MAX_PLY else MAX_PLY
            h.tb = sd.tb
            h.tb_cardinality = sd.tb_cardinality
            h.tb_probe_depth = sd.tb_probe_depth
            h.tb_rule50 = sd.tb_rule50
            h.on = sd.on
            memset(h.killers, 0, sizeof(h.killers))
        with nogil:
            for i in range(self.helper_count):
                self.running[i] = thread_start(&self.handles[i], helper_main, self.helpers[i])
                count += self.running[i]
        return count

    def stop_helpers(self):
        """Tell the helpers to stop and wait for them (within a clock check: well under a
        millisecond).  Their nodes stay counted until the next start."""
        self._join_helpers()

    cdef void _join_helpers(self) noexcept:
        cdef int i
        if self.helper_count == 0 or self.running == NULL:
            return
        store_int(&self.smp.abort, 1)
        with nogil:
            for i in range(self.helper_count):
                if self.running[i]:
                    thread_join(self.handles[i])
                    self.running[i] = 0
        if self.sd != NULL:
            self.sd.smp = NULL

    def thread_results(self):
        """[(depth, move code, score, seldepth, pv codes)] of each helper's last completed
        iteration in this search (helpers that completed none are left out)."""
        cdef SearchData* h
        cdef int i
        out = []
        for i in range(self.helper_count):
            h = self.helpers[i]
            if h.completed_depth > 0:
                out.append((h.completed_depth, h.completed.move, h.completed.score,
                            h.completed.seldepth,
                            [h.completed.pv[k] for k in range(h.completed.pv_length)]))
        return out

    # -- table ------------------------------------------------------------------------

    def resize_hash(self, int megabytes):
        """Give the table `megabytes` of fresh, empty memory (at once: the OS hands out zeroed
        pages).  The old memory waits for release_retired(), the new one for start_warm_up().

        :raises MemoryError: if it cannot be allocated; the table is then unchanged."""
        tt_resize(self.sd.tt, megabytes)

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
        tt_start_warm_up(self.sd.tt)

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
        cdef TranspositionTable* tt = self.sd.tt
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
        """Forget the move-ordering statistics (histories, killers, countermoves) and the pawn
        cache, without the GIL: megabytes of memset must not stall the thread reading commands."""
        cdef SearchData* sd
        cdef int i
        for i in range(self.helper_count + 1):
            sd = self.sd if i == 0 else self.helpers[i - 1]
            with nogil:
                clear_histories_c(sd)

    def hashfull(self):
        return tt_hashfull(self.sd.tt)

    def set_position(self, CoreBoard board):
        """Search from a copy of board, with the part of its game history that can still
        count for a repetition (see copy_search_position); the helpers copy this one."""
        copy_search_position(&self.sd.pos, &board.pos)

    def history_plies(self):
        """[plies of game history before the root] of each thread's position, the main
        thread's first: what set_position (and start_helpers, for the helpers) kept.  Not
        during a search."""
        out = [<int>(self.sd.pos.st - self.sd.pos.states)]
        for i in range(self.helper_count):
            out.append(<int>(self.helpers[i].pos.st - self.helpers[i].pos.states))
        return out

    def setup_root(self, allowed=None):
        """Collect the root moves (only those in `allowed`, codes, when given), ordered by the
        table move and the capture/killer/history heuristics.  Returns how many there are."""
        cdef Move legal[MAX_MOVES]
        cdef Move chosen[MAX_MOVES]
        cdef int n, i, count = 0
        if allowed is None:
            return setup_root_c(self.sd, NULL, 0)
        n = generate_moves(&self.sd.pos, GEN_ALL, legal)
        for i in range(n):
            if legal[i] in allowed:
                chosen[count] = legal[i]
                count += 1
        return setup_root_c(self.sd, chosen, count)

    def start(self, StopToken token not None, node_limit=0, bint tb_probes=True):
        """Reset the counters for a new search that ends at node_limit (0: none) or when the
        token says (stop, hard deadline).  The token itself is never reset.  tb_probes=False:
        no tablebase probes below the root in this search (the root moves were already
        chosen by the tables)."""
        cdef int i
        self._token = token
        self.sd.token = &token.state
        begin_search_c(self.sd, node_limit or 0)
        self.sd.tb_cardinality = self._tb_cardinality if tb_probes else 0
        self.sd.tb_hits = 0
        for i in range(self.helper_count):
            self.helpers[i].nodes = 0
            self.helpers[i].tb_hits = 0
            self.helpers[i].completed_depth = 0

    def set_tablebase(self, SyzygyTables tables, int probe_limit=7, int probe_depth=1,
                      bint rule50=True):
        """Probe `tables` (None: no tablebases) in every thread's search from the next search
        on: positions of at most probe_limit pieces (and at most the largest table's), at a
        remaining depth of at least probe_depth; with rule50, cursed wins and blessed losses
        are draws.  Not during a search."""
        cdef int limit = 0
        if tables is not None:
            limit = min(probe_limit, tables.c.max_pieces)
        self._tablebase = tables
        self._tb_cardinality = limit if limit > 0 else 0
        self.sd.tb = NULL if tables is None else &tables.c
        self.sd.tb_cardinality = self._tb_cardinality
        self.sd.tb_probe_depth = probe_depth
        self.sd.tb_rule50 = rule50

    cdef int* _switch(self, str name) except NULL:
        cdef SearchSwitches* on = &self.sd.on
        if name == "singular_extensions":       # see SINGULAR_DEPTH in search.pxi
            return &on.singular
        if name == "correction_history":        # see CORRECTION_SIZE
            return &on.correct
        if name == "network_scaling":           # see MATERIAL_SCALE_BASE
            return &on.net_scaling
        if name == "far_continuation":
            return &on.far_cont
        if name == "history_pruning":           # see HISTORY_PRUNING_DEPTH
            return &on.hist_prune
        if name == "best_move_history":
            return &on.best_history
        raise ValueError(f"no search switch {name!r}")

    def switch(self, str name):
        """True when the search feature on trial `name` (a Searcher attribute's name, such as
        "history_pruning") is on.  Raises ValueError for an unknown name."""
        return bool(self._switch(name)[0])

    def set_switch(self, str name, bint on):
        """Switch the search feature on trial `name` on or off from the next search on (the
        helper threads take it when they start).  Raises ValueError for an unknown name."""
        self._switch(name)[0] = 1 if on else 0

    def set_tablebase_enabled(self, bint on):
        """Probe the tables set by set_tablebase (on) or none of them (off) from the next
        search on, without forgetting them."""
        self.sd.tb = NULL if self._tablebase is None or not on else &self._tablebase.c

    @property
    def tablebase(self):
        """The SyzygyTables the search probes, or None."""
        return self._tablebase

    @property
    def tbhits(self):
        """Tablebase probes that found the position, in this search, every thread's."""
        cdef uint64_t total = load_u64(&self.sd.tb_hits)
        cdef int i
        for i in range(self.helper_count):
            total += load_u64(&self.helpers[i].tb_hits)
        return total

    def set_root_move_callback(self, callback):
        """callback(depth, move_code, number) before each root move is searched, or None.
        Called from the searching thread with the GIL held; exceptions are swallowed."""
        self._root_move_callback = callback    # keeps the reference the C side borrows
        self.sd.root_move_callback = <void*>callback if callback is not None else NULL

    def set_window_callback(self, callback):
        """callback(depth, pv_index, fail_low) after each failed aspiration window of
        search_iteration (the root moves from pv_index on sorted by the scores it gave), or
        None.  Called from the searching thread with the GIL held; an exception it raises stops
        the search and is raised again by search_iteration."""
        errors = self._window_errors = []

        def report(depth, pv_index, fail_low):
            try:
                callback(depth, pv_index, fail_low)
                return True
            except BaseException as error:
                errors.append(error)
                return False
        self._window_report = report if callback is not None else None
        self.sd.window_callback = <void*>report if callback is not None else NULL

    @property
    def stopped(self):
        """True when the search has ended on its node limit or its token."""
        return search_stopped(self.sd)

    @property
    def nodes(self):
        """Nodes of this search, every thread's."""
        cdef uint64_t total = self.sd.nodes
        cdef int i
        for i in range(self.helper_count):
            total += load_u64(&self.helpers[i].nodes)
        return total

    @property
    def seldepth(self):
        return self.sd.seldepth

    def elapsed_ms(self):
        return now_ms() - self.sd.start_ms

    @property
    def root_count(self):
        return self.sd.root_count

    def search_iteration(self, int depth, int lines=1):
        """One iteration of `depth` over MultiPV lines 0..lines-1, each in an aspiration window
        around its score of the previous iteration (0 after start()); the root moves are left
        sorted, best first.  Returns how many lines were finished before the search stopped."""
        cdef int finished
        if not 1 <= lines <= self.sd.root_count:
            raise ValueError("lines out of range")
        with nogil:
            finished = search_iteration_c(self.sd, depth, lines)
        if self._window_errors:
            raise self._window_errors.pop()
        return finished

    def root_move(self, int i):
        """(move code, score, previous score, seldepth, pv codes) of root move i."""
        cdef RootMove* rm
        if not 0 <= i < self.sd.root_count:
            raise IndexError("root move index out of range")
        rm = &self.sd.root_moves[i]
        return rm.move, rm.score, rm.previous_score, rm.seldepth, [rm.pv[k] for k in range(rm.pv_length)]

    def root_move_nodes(self, int i):
        """The main thread's nodes under root move i in this search so far (every iteration,
        the interrupted one included)."""
        if not 0 <= i < self.sd.root_count:
            raise IndexError("root move index out of range")
        return self.sd.root_moves[i].nodes

    def probe_move(self, CoreBoard board):
        """The table's move for board's position, if it is legal there, else None."""
        cdef bint found
        cdef TTEntry* tte = tt_probe(self.sd.tt, board.pos.st.key, &found)
        if found and tte.move != MOVE_NONE and is_legal_move(&board.pos, tte.move):
            return tte.move
        return None

MAX_SEARCH_THREADS_PY = MAX_SEARCH_THREADS
MAX_HASH_MB_PY = MAX_HASH_MB
VALUE_MATE_PY = VALUE_MATE
VALUE_INFINITE_PY = VALUE_INFINITE
VALUE_MATE_IN_MAX_PLY_PY = VALUE_MATE_IN_MAX_PLY
