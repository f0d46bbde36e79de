# Transposition table: clusters of five 12-byte entries in one 64-byte cache line.  The index
# comes from the high bits of the key (multiply-shift), the entry checks 32 other key bits.
# Replacement keeps deep entries of the current search and refreshes stale ones: the victim
# in a cluster is the entry with the lowest depth minus eight times its age.

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

ctypedef struct TranspositionTable:
    TTCluster* clusters
    uint64_t cluster_count
    uint8_t generation

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

cdef int tt_resize(TranspositionTable* tt, size_t megabytes) except -1:
    cdef uint64_t count = (<uint64_t>megabytes * 1024 * 1024) // sizeof(TTCluster)
    cdef TTCluster* clusters
    if count < 1:
        count = 1
    clusters = <TTCluster*>malloc(count * sizeof(TTCluster))
    if clusters == NULL:
        raise MemoryError(f"cannot allocate a {megabytes} MB hash table")
    free(tt.clusters)
    tt.clusters = clusters
    tt.cluster_count = count
    tt_clear(tt)
    return 0

cdef void tt_free(TranspositionTable* tt) noexcept:
    free(tt.clusters)
    tt.clusters = NULL
    tt.cluster_count = 0

cdef void tt_clear(TranspositionTable* tt) noexcept nogil:
    memset(tt.clusters, 0, tt.cluster_count * sizeof(TTCluster))
    tt.generation = 0

# A new search: entries of older searches become replaceable first.
cdef inline void tt_new_search(TranspositionTable* tt) noexcept nogil:
    tt.generation = <uint8_t>(tt.generation + 4)

# The entry for key: the matching one (found = 1) or the one to replace (found = 0).
cdef inline TTEntry* tt_probe(TranspositionTable* tt, uint64_t key, bint* found) noexcept nogil:
    cdef TTCluster* cluster = &tt.clusters[mul_hi64(key, tt.cluster_count)]
    cdef uint32_t key32 = <uint32_t>key
    cdef TTEntry* replace = &cluster.entry[0]
    cdef TTEntry* e
    cdef int i, worth, best_worth = 1 << 30
    for i in range(TT_CLUSTER_SIZE):
        e = &cluster.entry[i]
        if e.key32 == key32 and e.depth8 != 0:
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
    if move != MOVE_NONE or e.key32 != key32:
        e.move = move
    # Keep a deeper entry of the same position unless the new one is exact.
    if bound == BOUND_EXACT or e.key32 != key32 or depth + DEPTH_OFFSET + 4 > e.depth8:
        e.key32 = key32
        e.score = <int16_t>score
        e.eval = <int16_t>eval
        e.depth8 = <uint8_t>(depth + DEPTH_OFFSET)
        e.gen_bound = <uint8_t>(tt.generation | bound)

# Permille of the first thousand clusters' entries written in this search.
cdef int tt_hashfull(TranspositionTable* tt) noexcept nogil:
    cdef uint64_t i, n = 1000 if tt.cluster_count >= 1000 else tt.cluster_count
    cdef int j, used = 0
    for i in range(n):
        for j in range(TT_CLUSTER_SIZE):
            if tt.clusters[i].entry[j].depth8 != 0 and (tt.clusters[i].entry[j].gen_bound & 0xFC) == tt.generation:
                used += 1
    return <int>(used * 1000 // (n * TT_CLUSTER_SIZE))
