# Transposition table: clusters of five 12-byte entries in one 64-byte cache line.  The index
# comes from the high bits of the key (multiply-shift), the entry checks 32 other key bits.
#
# Threads.  The threads of a parallel search share one table and write it without locks.  An
# entry's key field holds those 32 key bits XORed with its move, score, evaluation and depth
# (tt_lock), so an entry whose fields come from two different stores (one thread writing while
# another writes or reads) no longer matches its key and reads as a miss.  Whatever is read,
# a table move is only ever played when it is among the legal moves generated at the node.
# Replacement keeps deep entries of the current search and refreshes stale ones: the victim
# in a cluster is the entry with the lowest depth minus eight times its age.
#
# Memory.  A table lives in one block straight from the OS (mmap / VirtualAlloc): fresh pages
# read as zeros, so a new table needs no clearing pass and its allocation costs the same at
# 16 MB and at 64 GB.  The OS still has to supply each page when it is first written, and a
# search that meets thousands of such page faults crawls; so each block has a warm-up thread
# that writes every page once in the background, with an atomic
# compare-and-swap of zero by zero on its first word: a page is faulted in, and a word the
# search has written meanwhile is left as it is (the swap is one locked or exclusive access,
# so no store of the search can fall between its compare and its write).  It takes no lock of
# the process's memory map (MADV_POPULATE_WRITE would, so other threads' mmap calls, Python's
# allocator among them, would wait behind it).  No huge-page advice: with Linux's usual defrag
# setting it makes every fault compact memory first, which is far slower here.  A resize puts
# the old block on a retired list and tells its warm-up (and any clear still zeroing it) to stop; the caller returns retired blocks
# to the OS later, from any thread and without the GIL (unmapping a large used table takes a
# while), and then starts the new block's warm-up: the old pages are gone before the new ones
# are asked for, so the process never holds two large tables in memory.
#
# Clearing.  A map with one byte per granule (TT_GRANULE_SHIFT) records where the search has stored
# entries.  Once the warm-up is complete every page is in memory, and a clear zeroes just the
# written granules, shared among several C threads (threads.pxi).  Before that, zeroing would
# first make the OS supply the pages the search never touched; a fresh block (empty, and
# allocated at once) replaces the table instead, and the old one is retired.  Either way the
# cost follows what was used.

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1
    BOUND_LOWER = 2
    BOUND_EXACT = 3
    TT_CLUSTER_SIZE = 5

ctypedef struct TTEntry:
    uint32_t key32
    Move move
    int16_t score
    int16_t eval
    uint8_t depth8      # depth + DEPTH_OFFSET; 0 marks an empty slot
    uint8_t gen_bound   # generation in the upper six bits, bound in the lower two

ctypedef struct TTCluster:
    TTEntry entry[5]
    char padding[4]

cdef enum:
    TT_GRANULE_SHIFT = 18    # 256 KB granules in the written map: 4096 clusters each

# One block of table memory, with its written map and its warm-up thread.
ctypedef struct TTBlock:
    void* base               # as the OS returned it (page aligned), and its length
    size_t bytes
    uint8_t* written         # per granule: 1 once an entry was stored in it since the last clear
    uint64_t granule_count
    int stop_warm_up         # set (store_int) to make the warm-up return after its chunk
    int warmed               # set by the warm-up when every page is in memory
    bint warming             # a warm-up thread was started and is not joined yet
    int zeroing              # a clear is zeroing it (set with the GIL, reset when it is done)
    int stop_clear           # set when the block is retired: a clear stops after its piece
    thread_handle warm_up
    TTBlock* next            # the retired list

ctypedef struct TranspositionTable:
    TTCluster* clusters      # the current block's memory (copied here for the hot path)
    uint64_t cluster_count
    uint8_t* written
    uint8_t generation
    bint dirty               # searched since the memory was allocated or last cleared
    TTBlock* block
    TTBlock* retired         # older blocks, for tt_free_blocks

# A clear: the written granules of the clusters to zero, split evenly among the threads.
ctypedef struct TTClearJob:
    TTBlock* block
    TTCluster* clusters
    uint64_t count
    uint8_t* written
    uint64_t granule_count

cdef enum:
    DEPTH_OFFSET = 2     # quiescence entries have depth 0 or -1

cdef extern from *:
    """
    static inline unsigned long long scacco_mul_hi64(unsigned long long a, unsigned long long b) {
    #if defined(__SIZEOF_INT128__)
        return (unsigned long long)(((unsigned __int128)a * (unsigned __int128)b) >> 64);
    #else
        unsigned long long a_lo = (unsigned int)a, a_hi = a >> 32, b_lo = (unsigned int)b, b_hi = b >> 32;
        unsigned long long c1 = (a_lo * b_lo) >> 32, c2 = a_hi * b_lo + c1, c3 = a_lo * b_hi + (unsigned int)c2;
        return a_hi * b_hi + (c2 >> 32) + (c3 >> 32);
    #endif
    }
    """
    uint64_t mul_hi64 "scacco_mul_hi64"(uint64_t a, uint64_t b) noexcept nogil

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define scacco_prefetch(address) __builtin_prefetch(address)
    #else
    #define scacco_prefetch(address) ((void)(address))
    #endif
    """
    void scacco_prefetch(const void* address) noexcept nogil

# Zeroed pages from the OS (NULL when it refuses), given back with table_free; table_touch
# writes every page of a range once, keeping its contents (see above).
# table_free works through the block a few MB at a time: unmapping holds the process's memory
# map locked, and other threads (the one answering the GUI) must get their turn in between.
cdef extern from *:
    """
    #define SCACCO_FREE_CHUNK ((size_t)16 << 20)
    #if defined(_WIN32)
    #include <windows.h>
    static void* scacco_table_alloc(size_t bytes) {
        return VirtualAlloc(NULL, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    }
    static void scacco_table_free(void* base, size_t bytes) {
        size_t offset, chunk;
        if (!base) return;
        for (offset = 0; offset < bytes; offset += chunk) {
            chunk = bytes - offset < SCACCO_FREE_CHUNK ? bytes - offset : SCACCO_FREE_CHUNK;
            VirtualFree((char*)base + offset, chunk, MEM_DECOMMIT);
        }
        VirtualFree(base, 0, MEM_RELEASE);
    }
    #elif defined(__unix__) || defined(__APPLE__)
    #include <sys/mman.h>
    #if !defined(MAP_ANONYMOUS)
    #define MAP_ANONYMOUS MAP_ANON
    #endif
    static void* scacco_table_alloc(size_t bytes) {
        void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    static void scacco_table_free(void* base, size_t bytes) {
        size_t offset, chunk;
        if (!base) return;
        for (offset = 0; offset < bytes; offset += chunk) {
            chunk = bytes - offset < SCACCO_FREE_CHUNK ? bytes - offset : SCACCO_FREE_CHUNK;
            munmap((char*)base + offset, chunk);
        }
    }
    #else
    #include <stdlib.h>
    static void* scacco_table_alloc(size_t bytes) { return calloc(bytes, 1); }
    static void scacco_table_free(void* base, size_t bytes) { (void)bytes; free(base); }
    #endif
    #define SCACCO_TOUCH_STRIDE ((size_t)4096)
    static void scacco_table_touch(void* start, size_t bytes) {
        size_t offset;
        for (offset = 0; offset < bytes; offset += SCACCO_TOUCH_STRIDE) {
    #if defined(_MSC_VER)
            _InterlockedCompareExchange64((volatile __int64*)((char*)start + offset), 0, 0);
    #else
            unsigned long long zero = 0;
            __atomic_compare_exchange_n((unsigned long long*)((char*)start + offset), &zero, 0ULL,
                                        0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    #endif
        }
    }
    """
    void* table_alloc "scacco_table_alloc"(size_t bytes) noexcept nogil
    void table_free "scacco_table_free"(void* base, size_t bytes) noexcept nogil
    void table_touch "scacco_table_touch"(void* start, size_t bytes) noexcept nogil

cdef enum:
    MB = 1024 * 1024
    # The largest table a searcher accepts (the UCI Hash option's maximum).
    MAX_HASH_MB = 65536
    # A clearing thread gets at least this much of the table (fewer threads for small tables).
    CLEAR_SHARE_MIN_BYTES = 64 * MB
    # The warm-up looks at its stop flag every this many bytes (well under a millisecond).
    WARM_UP_CHUNK_BYTES = 256 * 1024
    # A clear zeroes at most this much between looks at its stop flag (about a millisecond).
    CLEAR_PIECE_BYTES = 64 * MB

# The warm-up thread of a block: every page written once, chunk by chunk, until done or stopped.
cdef void tt_warm_up(void* arg) noexcept nogil:
    cdef TTBlock* block = <TTBlock*>arg
    cdef size_t offset = 0, chunk
    while offset < block.bytes and not load_int(&block.stop_warm_up):
        chunk = block.bytes - offset
        if chunk > WARM_UP_CHUNK_BYTES:
            chunk = WARM_UP_CHUNK_BYTES
        table_touch(<char*>block.base + offset, chunk)
        offset += chunk
    if offset >= block.bytes:
        store_int(&block.warmed, 1)

# Stop a block's warm-up and any clear of it and wait for both, then give its memory back.
cdef void tt_block_free(TTBlock* block) noexcept nogil:
    store_int(&block.stop_warm_up, 1)
    store_int(&block.stop_clear, 1)
    if block.warming:
        thread_join(block.warm_up)
        block.warming = False
    while load_int(&block.zeroing):
        sleep_us(100)
    table_free(block.base, block.bytes)
    free(block.written)
    free(block)

# Fresh, empty memory for a table of `megabytes` (tt_start_warm_up asks the OS for its pages).
# The old block goes on the retired list, its warm-up and clears told to stop (the caller frees
# it with tt_free_blocks when it suits); on failure the table is unchanged.
cdef int tt_resize(TranspositionTable* tt, size_t megabytes) except -1:
    cdef uint64_t count = (<uint64_t>megabytes * MB) // sizeof(TTCluster)
    cdef TTBlock* block
    if count < 1:
        count = 1
    if count > (<size_t>-1) // sizeof(TTCluster):
        raise MemoryError(f"a {megabytes} MB hash table does not fit in the address space")
    block = <TTBlock*>calloc(1, sizeof(TTBlock))
    if block == NULL:
        raise MemoryError()
    block.bytes = <size_t>count * sizeof(TTCluster)
    block.granule_count = (block.bytes >> TT_GRANULE_SHIFT) + 1
    block.written = <uint8_t*>calloc(<size_t>block.granule_count, 1)
    if block.written != NULL:
        # With the GIL held throughout (the OS call returns at once): it serialises every change
        # of block between the GUI's thread and the clearing thread.
        block.base = table_alloc(block.bytes)
    if block.base == NULL:
        free(block.written)
        free(block)
        raise MemoryError(f"cannot allocate a {megabytes} MB hash table")
    if tt.block != NULL:
        store_int(&tt.block.stop_warm_up, 1)
        store_int(&tt.block.stop_clear, 1)
        tt.block.next = tt.retired
        tt.retired = tt.block
    tt.block = block
    tt.clusters = <TTCluster*>block.base
    tt.cluster_count = count
    tt.written = block.written
    tt.generation = 0
    tt.dirty = False
    return 0

# Start the current block's warm-up thread unless it has one or is warm already (call it with
# the GIL, like tt_resize).
cdef void tt_start_warm_up(TranspositionTable* tt) noexcept:
    cdef TTBlock* block = tt.block
    if block != NULL and not block.warming and not load_int(&block.warmed):
        block.warming = thread_start(&block.warm_up, tt_warm_up, block) != 0

# Return a list of retired blocks to the OS (detach it from the table first, with the GIL).
cdef void tt_free_blocks(TTBlock* block) noexcept nogil:
    cdef TTBlock* following
    while block != NULL:
        following = block.next
        tt_block_free(block)
        block = following

# All the table's memory, current and retired (when its owner goes away).
cdef void tt_free(TranspositionTable* tt) noexcept nogil:
    tt_free_blocks(tt.retired)
    tt.retired = NULL
    if tt.block != NULL:
        tt_block_free(tt.block)
    tt.block = NULL
    tt.clusters = NULL
    tt.written = NULL
    tt.cluster_count = 0

# Share `index` of `count`: zero the written granules in its part of the map and mark them
# clean.  Runs of written granules are zeroed by one memset each (large memsets stream past
# the cache, so a table written all over clears at the speed of memory).
cdef void tt_clear_share(void* arg, int index, int count) noexcept nogil:
    cdef TTClearJob* job = <TTClearJob*>arg
    cdef uint64_t first = job.granule_count * <uint64_t>index // <uint64_t>count
    cdef uint64_t last = job.granule_count * <uint64_t>(index + 1) // <uint64_t>count
    cdef uint64_t per_granule = (<uint64_t>1 << TT_GRANULE_SHIFT) // sizeof(TTCluster)
    cdef uint64_t g = first, run, begin, end, piece
    while g < last:
        if not job.written[g]:
            g += 1
            continue
        run = g
        while run < last and job.written[run]:
            job.written[run] = 0
            run += 1
        begin = g * per_granule
        end = run * per_granule
        if end > job.count:
            end = job.count
        while begin < end:
            if load_int(&job.block.stop_clear):
                return          # retired meanwhile: nobody will read it again
            piece = end - begin
            if piece > CLEAR_PIECE_BYTES // sizeof(TTCluster):
                piece = CLEAR_PIECE_BYTES // sizeof(TTCluster)
            memset(&job.clusters[begin], 0, <size_t>piece * sizeof(TTCluster))
            begin += piece
        g = run

# Start emptying a table that has been searched and whose pages are all in memory: note what
# to zero in job and mark the table empty.  Returns how many C threads should share the work
# (at most `threads`, and fewer for a table too small to need them).  Call it with the GIL held
# (a resize on another thread must not swap the block halfway), then tt_zero without the GIL:
# the block is marked as being zeroed, so freeing it waits until tt_zero is done.
cdef int tt_begin_clear(TranspositionTable* tt, TTClearJob* job, int threads) noexcept:
    cdef uint64_t most = tt.cluster_count * sizeof(TTCluster) // CLEAR_SHARE_MIN_BYTES
    tt.generation = 0
    tt.dirty = False
    store_int(&tt.block.zeroing, 1)
    job.block = tt.block
    job.clusters = tt.clusters
    job.count = tt.cluster_count
    job.written = tt.written
    job.granule_count = tt.block.granule_count
    if <uint64_t>threads > most:
        threads = <int>most
    return threads if threads >= 1 else 1

# Zero the clusters of a job with `threads` C threads; returns how many took part.
cdef int tt_zero(TTClearJob* job, int threads) noexcept nogil:
    cdef int ran = run_parallel(tt_clear_share, job, threads)
    store_int(&job.block.zeroing, 0)
    return ran

# A new search: entries of older searches become replaceable first.
cdef inline void tt_new_search(TranspositionTable* tt) noexcept nogil:
    tt.generation = <uint8_t>(tt.generation + 4)
    tt.dirty = True

# The entry's data folded into 32 bits, XORed into its stored key (see Threads above); the
# generation, which a probe refreshes, stays out of it.
cdef inline uint32_t tt_lock(TTEntry* e) noexcept nogil:
    return ((<uint32_t>e.move | (<uint32_t><uint16_t>e.score << 16))
            ^ (<uint32_t><uint16_t>e.eval | (<uint32_t>e.depth8 << 16)))

# The entry for key: the matching one (found = 1) or the one to replace (found = 0).
# Ask the memory for key's cluster ahead of its probe (right after a move is made: the probe
# at the start of the child's search then seldom waits for it).
cdef inline void tt_prefetch(TranspositionTable* tt, uint64_t key) noexcept nogil:
    scacco_prefetch(&tt.clusters[mul_hi64(key, tt.cluster_count)])

cdef inline TTEntry* tt_probe(TranspositionTable* tt, uint64_t key, bint* found) noexcept nogil:
    cdef TTCluster* cluster = &tt.clusters[mul_hi64(key, tt.cluster_count)]
    cdef uint32_t key32 = <uint32_t>key
    cdef TTEntry* replace = &cluster.entry[0]
    cdef TTEntry* e
    cdef int i, worth, best_worth = 1 << 30
    for i in range(TT_CLUSTER_SIZE):
        e = &cluster.entry[i]
        if (e.key32 ^ tt_lock(e)) == key32 and e.depth8 != 0:
            # refresh the age so the entry survives this search
            e.gen_bound = <uint8_t>(tt.generation | (e.gen_bound & 3))
            found[0] = True
            return e
        if e.depth8 == 0:
            found[0] = False
            return e
        worth = e.depth8 - 2 * <int>(<uint8_t>(tt.generation - (e.gen_bound & 0xFC)))
        if worth < best_worth:
            best_worth = worth
            replace = e
    found[0] = False
    return replace

cdef inline void tt_store(TranspositionTable* tt, TTEntry* e, uint64_t key, int score, int eval,
                          int bound, int depth, Move move) noexcept nogil:
    cdef uint32_t key32 = <uint32_t>key
    cdef bint same = (e.key32 ^ tt_lock(e)) == key32
    cdef uint8_t* written = &tt.written[(<size_t>(<char*>e - <char*>tt.clusters)) >> TT_GRANULE_SHIFT]
    # Read before writing: the map is a few cache lines that every thread would otherwise
    # write on every store, passing them from core to core.
    if not written[0]:
        written[0] = 1
    if move != MOVE_NONE or not same:
        e.move = move
    # Keep a deeper entry of the same position unless the new one is exact.
    if bound == BOUND_EXACT or not same or depth + DEPTH_OFFSET + 4 > e.depth8:
        e.score = <int16_t>score
        e.eval = <int16_t>eval
        e.depth8 = <uint8_t>(depth + DEPTH_OFFSET)
        e.gen_bound = <uint8_t>(tt.generation | bound)
    e.key32 = key32 ^ tt_lock(e)

# Permille of the first thousand clusters' entries written in this search.
cdef int tt_hashfull(TranspositionTable* tt) noexcept nogil:
    cdef uint64_t i, n = 1000 if tt.cluster_count >= 1000 else tt.cluster_count
    cdef int j, used = 0
    for i in range(n):
        for j in range(TT_CLUSTER_SIZE):
            if tt.clusters[i].entry[j].depth8 != 0 and (tt.clusters[i].entry[j].gen_bound & 0xFC) == tt.generation:
                used += 1
    return <int>(used * 1000 // (n * TT_CLUSTER_SIZE))
