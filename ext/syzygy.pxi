# Syzygy endgame tablebases: a reader of the WDL (.rtbw) and DTZ (.rtbz) files, C only.
#
# The files are memory-mapped read-only by syzygy_api.pxi, which hands this file a pointer and
# a size per file and turns the error codes of tb_parse_table into messages.  Every table is
# parsed when it is loaded (headers, Huffman code bases, symbol lengths), so a probe only reads:
# probes from any number of search threads share the tables without a lock.  Every offset read
# from a file is checked against the file's size, at load time or in the probe, so a corrupt
# file can make a probe fail (the caller treats it as "not in the tables") but never makes it
# read outside the mapping.
#
# The format, in short (see the generator github:syzygy1/tb for the authority):
#   - a table holds one material; a position is turned into an index by placing the pieces
#     in a fixed order (stored in the file) after using the board's symmetries: 8 for pawnless
#     tables, the left-right mirror for tables with pawns (one sub-table per file a-d of the
#     "leading" pawn);
#   - the value array is compressed with a pair encoding (symbols that stand for pairs of
#     symbols) whose symbols are Huffman-coded in blocks, with an index to find the block;
#   - WDL values are 0..4 for loss, blessed loss, draw, cursed win, win; DTZ files store one
#     side to move only, the distance to a zeroing move, sometimes halved and through a map.
#
# The probe functions follow python-chess's chess.syzygy (our tests' oracle) in their answers:
# probe_wdl resolves captures first (a table assumes the best capture was looked at), then
# en passant; probe_dtz does the same and falls back on a search one ply deep when the table
# stores the other side to move.

cdef enum:
    TB_MAX_PIECES = 7
    TB_WDL = 0
    TB_DTZ = 1
    TB_PROBE_MAX_DEPTH = 24      # plies of make/unmake a probe may add to a position

# Load errors (syzygy_api.pxi gives the messages).
cdef enum:
    TB_OK = 0
    TB_ERR_SIZE = 1              # size not 16 modulo 64 (every table ends with a checksum)
    TB_ERR_MAGIC = 2
    TB_ERR_FLAGS = 3             # pawn flag disagrees with the material of the file name
    TB_ERR_PIECES = 4            # the piece list does not match the file name
    TB_ERR_TRUNCATED = 5         # a part of the table lies beyond the end of the file
    TB_ERR_PAIRS = 6             # bad compression parameters (code lengths, block sizes)
    TB_ERR_SYMBOLS = 7           # a symbol refers to a missing or circular symbol
    TB_ERR_MEMORY = 8
    TB_ERR_SPLIT = 9             # a two-sided WDL table without the second side

ctypedef struct TbPairs:
    int constant                 # the value when the whole sub-table holds one value, else -1
    int flags                    # the sub-table's flag byte (DTZ: side stored, maps)
    int blocksize                # log2 of the bytes per compressed block
    int idxbits                  # log2 of the positions per entry of the index table
    int min_len, max_len         # shortest and longest Huffman code, in bits
    int num_syms
    uint64_t real_blocks         # blocks of data in the file
    uint64_t num_blocks          # entries of the size table (real blocks and padding)
    uint64_t num_indices         # entries of the index table
    uint64_t tb_size             # positions of the sub-table
    size_t indextable, sizetable, data, sympat, lowsym   # offsets in the file
    uint8_t* symlen              # values a symbol stands for, minus one (the generator's
                                 # symbols stand for 256 values at most)
    uint64_t* base               # left-aligned first code of each length (index len - min_len)

# The encoding of one sub-table: pieces in their stored order, group sizes and factors.
ctypedef struct TbSide:
    int pieces[TB_MAX_PIECES]    # colour * 8 + type, as in types.pxi
    int norm[TB_MAX_PIECES]      # at the first index of each group: the group's size
    uint64_t factor[TB_MAX_PIECES]
    TbPairs pairs
    int present

ctypedef struct TbTable:
    const uint8_t* data
    size_t size
    int kind                     # TB_WDL or TB_DTZ
    int num                      # pieces, kings included
    int has_pawns
    int enc_type                 # pawnless: 0 (three unique pieces lead) or 2 (the kings lead)
    int pawns0, pawns1           # leading pawns and pawns of the other colour
    int symmetric                # the same material for both colours (KRvKR)
    int files                    # 4 with pawns (leading pawn on file a..d), else 1
    uint64_t key                 # material of the file's colour 0 as white (tb_signature)
    TbSide sides[4][2]           # [file][side to move in the table's orientation]; DTZ: side 0
    size_t map_off[4][4]         # DTZ value maps: offset of each map's first value, or 0
    int map_len[4][4]            # values in each map

ctypedef struct TbEntry:
    uint64_t sig                 # material signature (tb_signature) | TB_USED
    int32_t wdl, dtz             # table indices, -1 when absent

ctypedef struct Syzygy:
    TbTable* wdl
    TbTable* dtz
    int wdl_count, dtz_count
    TbEntry* hash
    uint64_t hash_mask
    int max_pieces

cdef uint64_t TB_USED = (<uint64_t>1) << 63

# Index tables of the encoding, computed at import (tb_init_tables).
cdef int TB_TRIANGLE[64]         # pawnless: square -> 0..9 in the a1-d1-d4 triangle
cdef int TB_INV_TRIANGLE[10]
cdef int TB_DIAG[64]             # squares of the a1-h8 diagonal -> 0..7
cdef int TB_LOWER[64]            # squares below (and above) the diagonal -> 0..27, diagonal 28..35
cdef int TB_KK_IDX[10][64]       # two kings -> 0..461
cdef int TB_FLAP[64]             # pawn squares of files a-d -> 0..23 (file * 6 + rank - 1)
cdef int TB_INV_FLAP[24]
cdef int TB_PTWIST[64]           # pawn squares -> 0..47, the order of the leading pawns
cdef uint64_t TB_PAWN_IDX[6][24]
cdef uint64_t TB_PFACTOR[6][4]
cdef uint64_t TB_BINOM[TB_MAX_PIECES + 1][64]
cdef int TB_WDL_TO_MAP[5]
cdef int TB_PA_FLAGS[5]

cdef inline int tb_offdiag(int sq) noexcept nogil:
    return (sq >> 3) - (sq & 7)

cdef inline int tb_flipdiag(int sq) noexcept nogil:
    return ((sq >> 3) | (sq << 3)) & 63

cdef inline int tb_adjacent(int a, int b) noexcept nogil:
    cdef int df = (a & 7) - (b & 7), dr = (a >> 3) - (b >> 3)
    return -1 <= df <= 1 and -1 <= dr <= 1

cdef void tb_init_tables() noexcept nogil:
    cdef int sq, f, r, t, i, j, k, n, idx, s1, s2
    cdef uint64_t total
    # The triangle a1-d1-d4: off-diagonal squares first, then the diagonal ones.
    TB_INV_TRIANGLE[0] = 1    # b1
    TB_INV_TRIANGLE[1] = 2    # c1
    TB_INV_TRIANGLE[2] = 3    # d1
    TB_INV_TRIANGLE[3] = 10   # c2
    TB_INV_TRIANGLE[4] = 11   # d2
    TB_INV_TRIANGLE[5] = 19   # d3
    TB_INV_TRIANGLE[6] = 0    # a1
    TB_INV_TRIANGLE[7] = 9    # b2
    TB_INV_TRIANGLE[8] = 18   # c3
    TB_INV_TRIANGLE[9] = 27   # d4
    for sq in range(64):
        f = sq & 7
        r = sq >> 3
        if f > 3:
            f = 7 - f
        if r > 3:
            r = 7 - r
        if r > f:
            t = r
            r = f
            f = t
        for i in range(10):
            if TB_INV_TRIANGLE[i] == r * 8 + f:
                TB_TRIANGLE[sq] = i
        f = sq & 7
        r = sq >> 3
        TB_DIAG[sq] = f if f == r else (8 + r if f + r == 7 else 0)
    # Below the diagonal, rank by rank; above it mirrors below; the diagonal last.
    idx = 0
    for r in range(8):
        for f in range(r + 1, 8):
            TB_LOWER[r * 8 + f] = idx
            TB_LOWER[f * 8 + r] = idx
            idx += 1
    for r in range(8):
        TB_LOWER[r * 9] = 28 + r
    # Two kings: first every pair whose first king is off the diagonal or whose second king is
    # below it, then the pairs with both kings on the diagonal.
    idx = 0
    for i in range(10):
        s1 = TB_INV_TRIANGLE[i]
        for s2 in range(64):
            TB_KK_IDX[i][s2] = -1
            if s1 == s2 or tb_adjacent(s1, s2):
                continue
            if tb_offdiag(s1) == 0 and tb_offdiag(s2) >= 0:
                continue
            TB_KK_IDX[i][s2] = idx
            idx += 1
    for i in range(6, 10):
        s1 = TB_INV_TRIANGLE[i]
        for s2 in range(64):
            if s1 != s2 and not tb_adjacent(s1, s2) and tb_offdiag(s2) == 0:
                TB_KK_IDX[i][s2] = idx
                idx += 1
    # Pawns.
    for sq in range(64):
        f = sq & 7
        r = sq >> 3
        TB_FLAP[sq] = 0
        TB_PTWIST[sq] = 0
        if 1 <= r <= 6:
            TB_FLAP[sq] = (f if f < 4 else 7 - f) * 6 + r - 1
            TB_PTWIST[sq] = (47 - 12 * f - 2 * (r - 1)) if f < 4 else (10 + 12 * (f - 4) - 2 * (r - 1))
    for j in range(24):
        TB_INV_FLAP[j] = 8 * (j % 6 + 1) + j // 6
    for n in range(TB_MAX_PIECES + 1):
        for k in range(64):
            TB_BINOM[n][k] = 0
    for k in range(64):
        TB_BINOM[0][k] = 1
        for n in range(1, TB_MAX_PIECES + 1):
            if k > 0:
                TB_BINOM[n][k] = TB_BINOM[n][k - 1] + TB_BINOM[n - 1][k - 1]
    for i in range(6):
        for f in range(4):
            total = 0
            for j in range(f * 6, f * 6 + 6):
                TB_PAWN_IDX[i][j] = total
                total += 1 if i == 0 else TB_BINOM[i][TB_PTWIST[TB_INV_FLAP[j]]]
            TB_PFACTOR[i][f] = total
    # DTZ maps are kept for the loss, blessed loss, cursed win and win classes; the flags say
    # which classes store distances in whole moves rather than plies.
    TB_WDL_TO_MAP[0] = 1
    TB_WDL_TO_MAP[1] = 3
    TB_WDL_TO_MAP[2] = 0
    TB_WDL_TO_MAP[3] = 2
    TB_WDL_TO_MAP[4] = 0
    TB_PA_FLAGS[0] = 8
    TB_PA_FLAGS[1] = 0
    TB_PA_FLAGS[2] = 0
    TB_PA_FLAGS[3] = 0
    TB_PA_FLAGS[4] = 4

# ---------------------------------------------------------------------------------------------
# Reading the file (little-endian headers, big-endian compressed stream)

cdef inline uint32_t tb_u16(const uint8_t* d) noexcept nogil:
    return d[0] | (<uint32_t>d[1] << 8)

cdef inline uint32_t tb_u32(const uint8_t* d) noexcept nogil:
    return d[0] | (<uint32_t>d[1] << 8) | (<uint32_t>d[2] << 16) | (<uint32_t>d[3] << 24)

cdef inline uint32_t tb_u32_be(const uint8_t* d) noexcept nogil:
    return (<uint32_t>d[0] << 24) | (<uint32_t>d[1] << 16) | (<uint32_t>d[2] << 8) | d[3]

cdef inline uint64_t tb_u64_be(const uint8_t* d) noexcept nogil:
    return (<uint64_t>tb_u32_be(d) << 32) | tb_u32_be(d + 4)

# The material of a position as one number: 4 bits per piece type (pawn .. queen) and colour,
# white's counts first.  Kings are implied.
cdef inline uint64_t tb_signature_counts(int* white, int* black) noexcept nogil:
    cdef uint64_t sig = 0
    cdef int t
    for t in range(PAWN, KING):
        sig |= (<uint64_t>white[t]) << (4 * (t - PAWN))
        sig |= (<uint64_t>black[t]) << (4 * (t - PAWN) + 20)
    return sig

cdef inline uint64_t tb_position_signature(Position* p, int mirrored) noexcept nogil:
    cdef int counts[2][7]
    cdef int c, t
    for c in range(2):
        for t in range(7):
            counts[c][t] = popcount(p.by_color[c] & p.by_type[t]) if PAWN <= t < KING else 0
    if mirrored:
        return tb_signature_counts(counts[1], counts[0])
    return tb_signature_counts(counts[0], counts[1])

# The signature of the same material with the colours swapped.
cdef inline uint64_t tb_mirror_signature(uint64_t sig) noexcept nogil:
    return ((sig & 0xFFFFF) << 20) | ((sig >> 20) & 0xFFFFF)

cdef inline uint64_t tb_hash_slot(uint64_t sig, uint64_t mask) noexcept nogil:
    return ((sig * <uint64_t>0x9E3779B97F4A7C15) >> 32) & mask

cdef inline TbEntry* tb_lookup(Syzygy* tb, uint64_t sig) noexcept nogil:
    cdef uint64_t i = tb_hash_slot(sig, tb.hash_mask)
    while tb.hash[i].sig != 0:
        if tb.hash[i].sig == (sig | TB_USED):
            return &tb.hash[i]
        i = (i + 1) & tb.hash_mask
    return NULL

# Symbol lengths, depth first; state 1 marks a symbol being expanded (a cycle is corruption).
cdef int tb_symlen(TbTable* t, TbPairs* d, int s, uint8_t* state) noexcept nogil:
    cdef const uint8_t* w = t.data + d.sympat + 3 * s
    cdef int s1, s2
    if state[s] == 2:
        return 0
    if state[s] == 1:
        return TB_ERR_SYMBOLS
    state[s] = 1
    s2 = (w[2] << 4) | (w[1] >> 4)
    if s2 == 0xFFF:
        d.symlen[s] = 0
    else:
        s1 = ((w[1] & 0xF) << 8) | w[0]
        if s1 >= d.num_syms or s2 >= d.num_syms:
            return TB_ERR_SYMBOLS
        if tb_symlen(t, d, s1, state) or tb_symlen(t, d, s2, state):
            return TB_ERR_SYMBOLS
        if d.symlen[s1] + d.symlen[s2] + 1 > 255:
            return TB_ERR_SYMBOLS
        d.symlen[s] = <uint8_t>(d.symlen[s1] + d.symlen[s2] + 1)
    state[s] = 2
    return 0

# Read one sub-table's compression header at *pos (advanced past it); the index, size and data
# offsets are filled in later, once every header of the file has been read.
cdef int tb_setup_pairs(TbTable* t, TbPairs* d, size_t* pos, uint64_t tb_size, int wdl) noexcept nogil:
    cdef const uint8_t* h
    cdef size_t at = pos[0]
    cdef int lengths, i
    cdef uint8_t* state
    cdef uint64_t lo, hi
    d.tb_size = tb_size
    d.symlen = NULL
    d.base = NULL
    if at + 2 > t.size:
        return TB_ERR_TRUNCATED
    h = t.data + at
    d.flags = h[0]
    if h[0] & 0x80:
        d.constant = h[1] if wdl else 0
        d.idxbits = 0
        d.real_blocks = 0
        d.num_blocks = 0
        d.num_indices = 0
        pos[0] = at + 2
        return 0
    if at + 12 > t.size:
        return TB_ERR_TRUNCATED
    d.constant = -1
    d.blocksize = h[1]
    d.idxbits = h[2]
    d.real_blocks = tb_u32(h + 4)
    d.num_blocks = d.real_blocks + h[3]
    d.max_len = h[8]
    d.min_len = h[9]
    if (d.min_len < 1 or d.max_len > 32 or d.max_len < d.min_len or d.idxbits < 1
            or d.idxbits > 40 or d.blocksize < 4 or d.blocksize > 24):
        return TB_ERR_PAIRS
    lengths = d.max_len - d.min_len + 1
    if at + 12 + 2 * lengths > t.size:
        return TB_ERR_TRUNCATED
    d.lowsym = at + 10
    d.num_syms = tb_u16(h + 10 + 2 * lengths)
    d.sympat = at + 12 + 2 * lengths
    if d.num_syms == 0 or d.num_syms > 4095:
        return TB_ERR_PAIRS
    if d.sympat + 3 * <size_t>d.num_syms > t.size:
        return TB_ERR_TRUNCATED
    pos[0] = d.sympat + 3 * <size_t>d.num_syms + (d.num_syms & 1)
    d.num_indices = (tb_size + ((<uint64_t>1) << d.idxbits) - 1) >> d.idxbits
    d.symlen = <uint8_t*>calloc(d.num_syms, sizeof(uint8_t))
    d.base = <uint64_t*>calloc(lengths, sizeof(uint64_t))
    state = <uint8_t*>calloc(d.num_syms, 1)
    if d.symlen == NULL or d.base == NULL or state == NULL:
        free(state)
        return TB_ERR_MEMORY
    for i in range(d.num_syms):
        if tb_symlen(t, d, i, state):
            free(state)
            return TB_ERR_SYMBOLS
    free(state)
    # base[i]: the first code of length min_len + i, as a number of that many bits; a code of
    # that length is one not below base[i] once shifted to the top of 64 bits.
    d.base[lengths - 1] = 0
    i = lengths - 2
    while i >= 0:
        lo = tb_u16(h + 10 + 2 * i)
        hi = tb_u16(h + 10 + 2 * i + 2)
        if d.base[i + 1] + lo < hi:
            return TB_ERR_PAIRS
        d.base[i] = (d.base[i + 1] + lo - hi) // 2
        i -= 1
    for i in range(lengths):
        if d.min_len + i < 64 and (d.base[i] >> (d.min_len + i)) != 0:
            return TB_ERR_PAIRS
        d.base[i] <<= 64 - (d.min_len + i)
    return 0

cdef void tb_free_table(TbTable* t) noexcept nogil:
    cdef int f, s
    for f in range(4):
        for s in range(2):
            free(t.sides[f][s].pairs.symlen)
            free(t.sides[f][s].pairs.base)
            t.sides[f][s].pairs.symlen = NULL
            t.sides[f][s].pairs.base = NULL
            t.sides[f][s].present = 0

# Group sizes: the leading group (the three unique pieces, the two kings, or the pawns), then
# runs of identical pieces.
cdef void tb_set_norm(TbTable* t, TbSide* e) noexcept nogil:
    cdef int i, j
    for i in range(TB_MAX_PIECES):
        e.norm[i] = 0
    if t.has_pawns:
        e.norm[0] = t.pawns0
        if t.pawns1:
            e.norm[t.pawns0] = t.pawns1
        i = t.pawns0 + t.pawns1
    else:
        e.norm[0] = 3 if t.enc_type == 0 else 2
        i = e.norm[0]
    while i < t.num:
        j = i
        while j < t.num and e.pieces[j] == e.pieces[i]:
            e.norm[i] += 1
            j += 1
        i += e.norm[i]

# Factors of each group in the index (the group order is stored in the file); returns the
# number of positions of the sub-table.
cdef uint64_t tb_calc_factors(TbTable* t, TbSide* e, int order, int order2, int file_) noexcept nogil:
    cdef int i, k = 0, n
    cdef uint64_t f = 1
    if not t.has_pawns:
        i = e.norm[0]
        n = 64 - i
        while i < t.num or k == order:
            if k == order:
                e.factor[0] = f
                f *= 31332 if t.enc_type == 0 else 462
            else:
                e.factor[i] = f
                f *= TB_BINOM[e.norm[i]][n]
                n -= e.norm[i]
                i += e.norm[i]
            k += 1
        return f
    i = e.norm[0]
    if order2 < 0x0F:
        i += e.norm[i]
    n = 64 - i
    while i < t.num or k == order or k == order2:
        if k == order:
            e.factor[0] = f
            f *= TB_PFACTOR[e.norm[0] - 1][file_]
        elif k == order2:
            e.factor[e.norm[0]] = f
            f *= TB_BINOM[e.norm[e.norm[0]]][48 - e.norm[0]]
        else:
            e.factor[i] = f
            f *= TB_BINOM[e.norm[i]][n]
            n -= e.norm[i]
            i += e.norm[i]
        k += 1
    return f

# Read the piece list of one sub-table (nibble `shift` of each byte) and check it against the
# material the file name gave (counts: [colour][type]).
cdef int tb_read_pieces(TbTable* t, TbSide* e, const uint8_t* b, int shift, int* counts) noexcept nogil:
    cdef int seen[2][7]
    cdef int i, pc, c, pt
    memset(seen, 0, sizeof(seen))
    for i in range(t.num):
        pc = (b[i] >> shift) & 0xF
        c = pc >> 3
        pt = pc & 7
        if pt < PAWN or pt > KING:
            return TB_ERR_PIECES
        e.pieces[i] = pc
        seen[c][pt] += 1
    for c in range(2):
        for pt in range(PAWN, KING + 1):
            if seen[c][pt] != counts[c * 7 + pt]:
                return TB_ERR_PIECES
    if t.has_pawns:
        # The leading pawns come first, then the other colour's pawns.
        for i in range(t.num):
            pc = e.pieces[i]
            if i < t.pawns0:
                if pc != e.pieces[0] or (pc & 7) != PAWN:
                    return TB_ERR_PIECES
            elif i < t.pawns0 + t.pawns1:
                if pc != (e.pieces[0] ^ 8):
                    return TB_ERR_PIECES
            elif (pc & 7) == PAWN:
                return TB_ERR_PIECES
    return 0

# Parse a whole table whose file name gave the material name_counts ([colour * 7 + type]);
# t.data, t.size and t.kind are set by the caller.  The colours of the table are those of its
# stored piece list (some files store the name's material with the colours swapped).  Returns
# TB_OK or an error code; on error the caller frees.
cdef int tb_parse_table(TbTable* t, int* name_counts) noexcept nogil:
    cdef const uint8_t* d = t.data
    cdef size_t pos, end
    cdef int c, pt, i, f, s, err, sides, split, order, order2, uniques, stride, swapped
    cdef int counts[2][7]
    cdef int flat[14]
    cdef int stored[14]
    cdef int wcounts[7]
    cdef int bcounts[7]
    cdef TbSide* e
    cdef TbPairs* pr
    memset(t.sides, 0, sizeof(t.sides))
    memset(t.map_off, 0, sizeof(t.map_off))
    memset(t.map_len, 0, sizeof(t.map_len))
    if t.size < 64 or t.size % 64 != 16:
        return TB_ERR_SIZE
    if t.kind == TB_WDL:
        if not (d[0] == 0x71 and d[1] == 0xE8 and d[2] == 0x23 and d[3] == 0x5D):
            return TB_ERR_MAGIC
    elif not (d[0] == 0xD7 and d[1] == 0x66 and d[2] == 0x0C and d[3] == 0xA5):
        return TB_ERR_MAGIC
    t.num = 0
    for c in range(2):
        for pt in range(7):
            counts[c][pt] = name_counts[c * 7 + pt]
            t.num += counts[c][pt]
    if t.num > TB_MAX_PIECES or t.num < 3 or counts[0][KING] != 1 or counts[1][KING] != 1:
        return TB_ERR_PIECES
    # Which colours does the file use?  Its first piece list decides.
    stride = 1 if counts[0][PAWN] + counts[1][PAWN] == 0 else (2 if counts[0][PAWN] and counts[1][PAWN] else 1)
    if 5 + <size_t>(stride + t.num) > t.size:
        return TB_ERR_TRUNCATED
    memset(stored, 0, sizeof(stored))
    for i in range(t.num):
        pt = d[5 + stride + i] & 7
        c = (d[5 + stride + i] >> 3) & 1
        stored[c * 7 + pt] += 1
    swapped = 0
    for pt in range(7):
        if stored[pt] != counts[0][pt] or stored[7 + pt] != counts[1][pt]:
            swapped = 1
    if swapped:
        for pt in range(7):
            c = counts[0][pt]
            counts[0][pt] = counts[1][pt]
            counts[1][pt] = c
    for c in range(2):
        for pt in range(7):
            flat[c * 7 + pt] = counts[c][pt]
    t.pawns0 = 0
    t.pawns1 = 0
    uniques = 0
    for c in range(2):
        for pt in range(PAWN, KING + 1):
            if counts[c][pt] == 1:
                uniques += 1
    t.has_pawns = counts[0][PAWN] + counts[1][PAWN] > 0
    t.enc_type = 0 if uniques >= 3 else 2
    for pt in range(7):
        wcounts[pt] = counts[0][pt] if PAWN <= pt < KING else 0
        bcounts[pt] = counts[1][pt] if PAWN <= pt < KING else 0
    t.key = tb_signature_counts(wcounts, bcounts)
    t.symmetric = t.key == tb_signature_counts(bcounts, wcounts)
    if t.has_pawns:
        # The leading colour is the one with fewer pawns, but at least one.
        c = 0
        if counts[1][PAWN] > 0 and (counts[0][PAWN] == 0 or counts[1][PAWN] < counts[0][PAWN]):
            c = 1
        t.pawns0 = counts[c][PAWN]
        t.pawns1 = counts[c ^ 1][PAWN]
    if ((d[4] & 2) != 0) != (t.has_pawns != 0):
        return TB_ERR_FLAGS
    split = (d[4] & 1) if t.kind == TB_WDL else 0
    sides = 2 if t.kind == TB_WDL else 1
    t.files = 4 if t.has_pawns else 1
    pos = 5
    stride = 1 + (1 if t.pawns1 else 0)
    # Piece lists and factors of every sub-table.
    for f in range(t.files):
        if not t.has_pawns:
            stride = 1
        if pos + <size_t>(t.num + stride) > t.size:
            return TB_ERR_TRUNCATED
        for s in range(sides):
            e = &t.sides[f][s]
            if s == 1 and not split:
                continue
            err = tb_read_pieces(t, e, d + pos + stride, 4 * s, flat)
            if err:
                return err
            order = (d[pos] >> (4 * s)) & 0xF
            order2 = ((d[pos + 1] >> (4 * s)) & 0xF) if t.has_pawns and t.pawns1 else 0x0F
            tb_set_norm(t, e)
            e.pairs.tb_size = tb_calc_factors(t, e, order, order2, f)
        pos += t.num + stride
    pos += pos & 1
    # Compression headers.
    for f in range(t.files):
        for s in range(sides):
            if s == 1 and not split:
                continue
            e = &t.sides[f][s]
            err = tb_setup_pairs(t, &e.pairs, &pos, e.pairs.tb_size, t.kind == TB_WDL)
            if err:
                return err
            e.present = 1
    if t.kind == TB_WDL and not split and not t.symmetric:
        return TB_ERR_SPLIT
    # DTZ value maps: four per sub-table, each a count then 8- or 16-bit values.
    if t.kind == TB_DTZ:
        for f in range(t.files):
            pr = &t.sides[f][0].pairs
            if not (pr.flags & 2):
                continue
            if pr.flags & 16:
                if t.has_pawns:
                    pos += pos & 1
                for i in range(4):
                    if pos + 2 > t.size:
                        return TB_ERR_TRUNCATED
                    t.map_len[f][i] = tb_u16(d + pos)
                    t.map_off[f][i] = pos + 2
                    pos += 2 + 2 * <size_t>t.map_len[f][i]
            else:
                for i in range(4):
                    if pos + 1 > t.size:
                        return TB_ERR_TRUNCATED
                    t.map_len[f][i] = d[pos]
                    t.map_off[f][i] = pos + 1
                    pos += 1 + <size_t>t.map_len[f][i]
            if pos > t.size:
                return TB_ERR_TRUNCATED
        pos += pos & 1
    # Index tables, size tables, then the data (each sub-table's data 64-byte aligned).
    for f in range(t.files):
        for s in range(sides):
            pr = &t.sides[f][s].pairs
            if t.sides[f][s].present:
                pr.indextable = pos
                pos += 6 * pr.num_indices
    for f in range(t.files):
        for s in range(sides):
            pr = &t.sides[f][s].pairs
            if t.sides[f][s].present:
                pr.sizetable = pos
                pos += 2 * pr.num_blocks
    for f in range(t.files):
        for s in range(sides):
            pr = &t.sides[f][s].pairs
            if t.sides[f][s].present:
                pos = (pos + 0x3F) & ~(<size_t>0x3F)
                pr.data = pos
                if pr.constant < 0 and pr.real_blocks > (t.size >> pr.blocksize):
                    return TB_ERR_TRUNCATED
                pos += pr.real_blocks << pr.blocksize
                if pos > t.size:
                    return TB_ERR_TRUNCATED
    end = pos
    if end > t.size:
        return TB_ERR_TRUNCATED
    return TB_OK

# ---------------------------------------------------------------------------------------------
# Decoding one value

# The value at index idx of a sub-table, or -1 when the file's data is inconsistent.
cdef int tb_decompress(TbTable* t, TbPairs* d, uint64_t idx) noexcept nogil:
    cdef uint64_t main_idx, block, code, wide
    cdef int64_t lit
    cdef size_t ptr, stop
    cdef int bitcnt = 0, l, sym, s1, kind_dtz = t.kind == TB_DTZ
    cdef const uint8_t* w
    if d.constant >= 0:
        return d.constant
    if idx >= d.tb_size:
        return -1
    main_idx = idx >> d.idxbits
    if main_idx >= d.num_indices:
        return -1
    w = t.data + d.indextable + 6 * main_idx
    block = tb_u32(w)
    lit = <int64_t>(idx & (((<uint64_t>1) << d.idxbits) - 1)) - ((<int64_t>1) << (d.idxbits - 1))
    lit += tb_u16(w + 4)
    if block >= d.num_blocks:
        return -1
    if lit < 0:
        while lit < 0:
            if block == 0:
                return -1
            block -= 1
            lit += tb_u16(t.data + d.sizetable + 2 * block) + 1
    else:
        while lit > tb_u16(t.data + d.sizetable + 2 * block):
            lit -= tb_u16(t.data + d.sizetable + 2 * block) + 1
            block += 1
            if block >= d.num_blocks:
                return -1
    if block >= d.real_blocks:
        return -1
    ptr = d.data + (block << d.blocksize)
    stop = t.size
    if ptr + 8 > stop:
        return -1
    code = tb_u64_be(t.data + ptr)
    ptr += 8
    while True:
        l = d.min_len
        while code < d.base[l - d.min_len]:
            l += 1
        wide = tb_u16(t.data + d.lowsym + 2 * (l - d.min_len)) + ((code - d.base[l - d.min_len]) >> (64 - l))
        if wide >= <uint64_t>d.num_syms:
            return -1
        sym = <int>wide
        if lit < d.symlen[sym] + 1:
            break
        lit -= d.symlen[sym] + 1
        code <<= l
        bitcnt += l
        if bitcnt >= 32:
            bitcnt -= 32
            if ptr + 4 > stop:
                return -1
            code |= (<uint64_t>tb_u32_be(t.data + ptr)) << bitcnt
            ptr += 4
    # Walk down the pair tree to the value.
    while d.symlen[sym]:
        w = t.data + d.sympat + 3 * sym
        s1 = ((w[1] & 0xF) << 8) | w[0]
        if lit < d.symlen[s1] + 1:
            sym = s1
        else:
            lit -= d.symlen[s1] + 1
            sym = (w[2] << 4) | (w[1] >> 4)
    w = t.data + d.sympat + 3 * sym
    if kind_dtz:
        return ((w[1] & 0xF) << 8) | w[0]
    return w[0]

# ---------------------------------------------------------------------------------------------
# Positions to indices

cdef inline void tb_swap(int* a, int i, int j) noexcept nogil:
    cdef int x = a[i]
    a[i] = a[j]
    a[j] = x

# The index of the groups after the leading one (and, for pawn tables, after the other
# colour's pawns): each group's squares as a combination of the squares still free.
cdef uint64_t tb_encode_groups(TbTable* t, TbSide* e, int* sq, int i, uint64_t idx) noexcept nogil:
    cdef int n = t.num, g, j, k, m, l, below
    cdef uint64_t s
    while i < n:
        g = e.norm[i]
        if g <= 0:
            break
        for j in range(i, i + g):
            for k in range(j + 1, i + g):
                if sq[j] > sq[k]:
                    tb_swap(sq, j, k)
        s = 0
        for m in range(i, i + g):
            below = 0
            for l in range(i):
                if sq[l] < sq[m]:
                    below += 1
            s += TB_BINOM[m - i + 1][sq[m] - below]
        idx += s * e.factor[i]
        i += g
    return idx

cdef uint64_t tb_encode_piece(TbTable* t, TbSide* e, int* sq) noexcept nogil:
    cdef int n = t.num, i, j, lead = 3 if t.enc_type == 0 else 2
    cdef uint64_t idx
    if sq[0] & 4:
        for i in range(n):
            sq[i] ^= 7
    if sq[0] & 32:
        for i in range(n):
            sq[i] ^= 56
    i = 0
    while i < n and tb_offdiag(sq[i]) == 0:
        i += 1
    if i < lead and tb_offdiag(sq[i]) > 0:
        for j in range(n):
            sq[j] = tb_flipdiag(sq[j])
    if t.enc_type == 0:
        i = 1 if sq[1] > sq[0] else 0
        j = (1 if sq[2] > sq[0] else 0) + (1 if sq[2] > sq[1] else 0)
        if tb_offdiag(sq[0]):
            idx = TB_TRIANGLE[sq[0]] * 63 * 62 + (sq[1] - i) * 62 + (sq[2] - j)
        elif tb_offdiag(sq[1]):
            idx = 6 * 63 * 62 + TB_DIAG[sq[0]] * 28 * 62 + TB_LOWER[sq[1]] * 62 + sq[2] - j
        elif tb_offdiag(sq[2]):
            idx = 6 * 63 * 62 + 4 * 28 * 62 + TB_DIAG[sq[0]] * 7 * 28 + (TB_DIAG[sq[1]] - i) * 28 + TB_LOWER[sq[2]]
        else:
            idx = (6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + TB_DIAG[sq[0]] * 7 * 6
                   + (TB_DIAG[sq[1]] - i) * 6 + (TB_DIAG[sq[2]] - j))
        i = 3
    else:
        idx = <uint64_t>TB_KK_IDX[TB_TRIANGLE[sq[0]]][sq[1]]
        i = 2
    return tb_encode_groups(t, e, sq, i, idx * e.factor[0])

# Which of the four pawn sub-tables: the leading pawn nearest the edge (lowest FLAP) first.
cdef inline int tb_pawn_file(TbTable* t, int* sq) noexcept nogil:
    cdef int i
    for i in range(1, t.pawns0):
        if TB_FLAP[sq[0]] > TB_FLAP[sq[i]]:
            tb_swap(sq, 0, i)
    return (sq[0] & 7) if (sq[0] & 7) < 4 else 7 - (sq[0] & 7)

cdef uint64_t tb_encode_pawn(TbTable* t, TbSide* e, int* sq) noexcept nogil:
    cdef int n = t.num, i, j, k, m, below, lead = t.pawns0
    cdef uint64_t idx, s
    if sq[0] & 4:
        for i in range(n):
            sq[i] ^= 7
    for i in range(1, lead):
        for j in range(i + 1, lead):
            if TB_PTWIST[sq[i]] < TB_PTWIST[sq[j]]:
                tb_swap(sq, i, j)
    idx = TB_PAWN_IDX[lead - 1][TB_FLAP[sq[0]]]
    i = lead - 1
    while i > 0:
        idx += TB_BINOM[lead - i][TB_PTWIST[sq[i]]]
        i -= 1
    idx *= e.factor[0]
    i = lead
    k = lead + t.pawns1
    if k > i:
        for j in range(i, k):
            for m in range(j + 1, k):
                if sq[j] > sq[m]:
                    tb_swap(sq, j, m)
        s = 0
        for m in range(i, k):
            below = 0
            for j in range(i):
                if sq[j] < sq[m]:
                    below += 1
            s += TB_BINOM[m - i + 1][sq[m] - below - 8]
        idx += s * e.factor[i]
        i = k
    return tb_encode_groups(t, e, sq, i, idx)

# Fill sq[from..] with the squares of the pieces e.pieces[from..] (colours swapped by cmirror,
# squares flipped by mirror); returns the number of pieces placed.
cdef inline int tb_place(Position* p, TbTable* t, TbSide* e, int* sq, int start, int cmirror, int mirror) noexcept nogil:
    cdef int i = start, pc
    cdef Bitboard b
    while i < t.num:
        pc = e.pieces[i] ^ cmirror
        b = p.by_color[pc >> 3] & p.by_type[pc & 7]
        if not b:
            return i
        while b and i < t.num:
            sq[i] = lsb(b) ^ mirror
            b &= b - 1
            i += 1
    return i

# The raw value of table t for the position: the WDL value 0..4, or for DTZ the stored
# distance; found[0] = 0 when a DTZ table stores the other side to move; -1 on a file error.
cdef int tb_probe_table(TbTable* t, Position* p, uint64_t sig, int wdl, int* found) noexcept nogil:
    cdef int cmirror, mirror, bside, bside_table = 0, f = 0, res, mi
    cdef int sq[TB_MAX_PIECES]
    cdef TbSide* e
    cdef uint64_t idx
    found[0] = 1
    if t.symmetric:
        cmirror = 8 if p.side == BLACK else 0
        mirror = 56 if p.side == BLACK else 0
        bside = 0
    elif sig != t.key:
        cmirror = 8
        mirror = 56
        bside = p.side == WHITE
    else:
        cmirror = 0
        mirror = 0
        bside = p.side == BLACK
    if t.kind == TB_DTZ:
        bside_table = bside
        bside = 0
    if not t.has_pawns:
        if t.kind == TB_DTZ and (t.sides[0][0].pairs.flags & 1) != bside_table and not t.symmetric:
            found[0] = 0
            return 0
        e = &t.sides[0][bside]
        if not e.present:
            return -1
        if tb_place(p, t, e, sq, 0, cmirror, mirror) != t.num:
            return -1
        idx = tb_encode_piece(t, e, sq)
    else:
        e = &t.sides[0][0]
        if tb_place(p, t, e, sq, 0, cmirror, mirror) < t.pawns0:
            return -1
        f = tb_pawn_file(t, sq)
        if t.kind == TB_DTZ and (t.sides[f][0].pairs.flags & 1) != bside_table:
            found[0] = 0
            return 0
        e = &t.sides[f][bside]
        if not e.present:
            return -1
        if tb_place(p, t, e, sq, t.pawns0, cmirror, mirror) != t.num:
            return -1
        idx = tb_encode_pawn(t, e, sq)
    res = tb_decompress(t, &e.pairs, idx)
    if res < 0 or t.kind == TB_WDL:
        return res
    # DTZ: through the value map of the WDL class, then back to plies where stored in moves.
    if e.pairs.flags & 2:
        mi = TB_WDL_TO_MAP[wdl + 2]
        if res >= t.map_len[f][mi]:
            return -1
        if e.pairs.flags & 16:
            res = <int>tb_u16(t.data + t.map_off[f][mi] + 2 * res)
        else:
            res = t.data[t.map_off[f][mi] + res]
    if not (e.pairs.flags & TB_PA_FLAGS[wdl + 2]) or (wdl & 1):
        res *= 2
    return res

# ---------------------------------------------------------------------------------------------
# Probing positions (python-chess's semantics).  ok[0] is cleared when a table is missing or a
# file is inconsistent; the return value then means nothing.

cdef inline bint tb_room(Position* p) noexcept nogil:
    return (p.st - p.states) + 2 < p.capacity

cdef int tb_table_wdl(Syzygy* tb, Position* p, int* ok) noexcept nogil:
    cdef uint64_t sig
    cdef TbEntry* entry
    cdef int v, found
    if p.by_type[ALL_PIECES] == p.by_type[KING]:
        return 0
    sig = tb_position_signature(p, 0)
    entry = tb_lookup(tb, sig)
    if entry == NULL or entry.wdl < 0:
        ok[0] = 0
        return 0
    v = tb_probe_table(&tb.wdl[entry.wdl], p, sig, 0, &found)
    if v < 0 or v > 4:
        ok[0] = 0
        return 0
    return v - 2

# Alpha-beta over the captures (en passant aside), then the table; success[0] = 2 when a
# capture gives the result.
cdef int tb_probe_ab(Syzygy* tb, Position* p, int alpha, int beta, int* success, int* ok, int depth) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n, i, v, sub
    cdef Move m
    if depth > TB_PROBE_MAX_DEPTH or popcount(p.by_type[ALL_PIECES]) > TB_MAX_PIECES + 1:
        ok[0] = 0
        return 0
    n = generate_moves(p, GEN_NOISY, moves)
    for i in range(n):
        m = moves[i]
        if move_kind(m) == EN_PASSANT or move_kind(m) == CASTLING or p.board[move_to(m)] == NO_PIECE:
            continue
        if not tb_room(p):
            ok[0] = 0
            return 0
        make_move(p, m)
        v = -tb_probe_ab(tb, p, -beta, -alpha, &sub, ok, depth + 1)
        unmake_move(p, m)
        if not ok[0]:
            return 0
        if v > alpha:
            if v >= beta:
                success[0] = 2
                return v
            alpha = v
    v = tb_table_wdl(tb, p, ok)
    if not ok[0]:
        return 0
    if alpha >= v:
        success[0] = 1 + (1 if alpha > 0 else 0)
        return alpha
    success[0] = 1
    return v

cdef bint tb_only_en_passant(Position* p) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_moves(p, GEN_ALL, moves), i
    for i in range(n):
        if move_kind(moves[i]) != EN_PASSANT:
            return False
    return True

# The best result of the en-passant captures of the position (-3 when there is none).
cdef int tb_best_en_passant(Syzygy* tb, Position* p, int* ok, int depth) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n, i, v, best = -3, success
    if p.st.ep == SQ_NONE:
        return -3
    n = generate_moves(p, GEN_NOISY, moves)
    for i in range(n):
        if move_kind(moves[i]) != EN_PASSANT:
            continue
        if not tb_room(p):
            ok[0] = 0
            return 0
        make_move(p, moves[i])
        v = -tb_probe_ab(tb, p, -2, 2, &success, ok, depth + 1)
        unmake_move(p, moves[i])
        if not ok[0]:
            return 0
        if v > best:
            best = v
    return best

# WDL from the side to move's view: -2 loss, -1 blessed loss, 0 draw, 1 cursed win, 2 win,
# as if the position was reached by a zeroing move.
cdef int tb_probe_wdl_at(Syzygy* tb, Position* p, int* ok, int depth) noexcept nogil:
    cdef int success, v, v1
    v = tb_probe_ab(tb, p, -2, 2, &success, ok, depth)
    if not ok[0] or p.st.ep == SQ_NONE:
        return v
    v1 = tb_best_en_passant(tb, p, ok, depth)
    if not ok[0]:
        return 0
    if v1 > -3:
        if v1 >= v:
            v = v1
        elif v == 0 and tb_only_en_passant(p):
            v = v1
    return v

cdef inline int tb_dtz_before_zeroing(int wdl) noexcept nogil:
    if wdl == 0:
        return 0
    return (1 if wdl > 0 else -1) * (1 if wdl == 2 or wdl == -2 else 101)


cdef int tb_table_dtz(Syzygy* tb, Position* p, int wdl, int* found, int* ok) noexcept nogil:
    cdef uint64_t sig = tb_position_signature(p, 0)
    cdef TbEntry* entry = tb_lookup(tb, sig)
    cdef int v
    if entry == NULL or entry.dtz < 0:
        ok[0] = 0
        return 0
    v = tb_probe_table(&tb.dtz[entry.dtz], p, sig, wdl, found)
    if v < 0:
        ok[0] = 0
        return 0
    return v

cdef bint tb_is_checkmate(Position* p) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    return p.st.checkers != 0 and generate_moves(p, GEN_ALL, moves) == 0

cdef int tb_probe_dtz_no_ep(Syzygy* tb, Position* p, int* ok, int depth) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int wdl, success, n, i, v, dtz, found, best, kind
    cdef Move m
    if depth > TB_PROBE_MAX_DEPTH:
        ok[0] = 0
        return 0
    wdl = tb_probe_ab(tb, p, -2, 2, &success, ok, depth)
    if not ok[0]:
        return 0
    if wdl == 0:
        return 0
    if success == 2:
        return tb_dtz_before_zeroing(wdl)
    n = generate_moves(p, GEN_ALL, moves)
    if wdl > 0:
        # A pawn push (not a capture) that keeps the result zeroes at once.
        for i in range(n):
            m = moves[i]
            kind = move_kind(m)
            if (p.board[move_from(m)] & 7) != PAWN or kind == EN_PASSANT or p.board[move_to(m)] != NO_PIECE:
                continue
            if not tb_room(p):
                ok[0] = 0
                return 0
            make_move(p, m)
            v = -tb_probe_wdl_at(tb, p, ok, depth + 1)
            unmake_move(p, m)
            if not ok[0]:
                return 0
            if v == wdl:
                return 1 if v == 2 else 101
    dtz = tb_table_dtz(tb, p, wdl, &found, ok)
    if not ok[0]:
        return 0
    if found:
        return tb_dtz_before_zeroing(wdl) + (dtz if wdl > 0 else -dtz)
    # The table stores the other side to move: one ply of search.
    if wdl > 0:
        best = 0xFFFF
        for i in range(n):
            m = moves[i]
            if (p.board[move_from(m)] & 7) == PAWN or move_kind(m) == CASTLING or p.board[move_to(m)] != NO_PIECE:
                continue
            if not tb_room(p):
                ok[0] = 0
                return 0
            make_move(p, m)
            v = -tb_probe_dtz_at(tb, p, ok, depth + 1)
            if ok[0] and v == 1 and tb_is_checkmate(p):
                best = 1
            elif ok[0] and v > 0 and v + 1 < best:
                best = v + 1
            unmake_move(p, m)
            if not ok[0]:
                return 0
        return best
    best = -1
    for i in range(n):
        m = moves[i]
        if not tb_room(p):
            ok[0] = 0
            return 0
        make_move(p, m)
        if p.st.rule50 == 0:
            if wdl == -2:
                v = -1
            else:
                v = tb_probe_ab(tb, p, 1, 2, &success, ok, depth + 1)
                v = 0 if v == 2 else -101
        else:
            v = -tb_probe_dtz_at(tb, p, ok, depth + 1) - 1
        unmake_move(p, m)
        if not ok[0]:
            return 0
        if v < best:
            best = v
    return best

# DTZ as python-chess reports it: plies to the next zeroing move with the fifty-move rule's
# rounding, positive when the side to move wins, beyond +-100 for cursed wins / blessed losses.
cdef int tb_probe_dtz_at(Syzygy* tb, Position* p, int* ok, int depth) noexcept nogil:
    cdef int v, v1
    v = tb_probe_dtz_no_ep(tb, p, ok, depth)
    if not ok[0] or p.st.ep == SQ_NONE:
        return v
    v1 = tb_best_en_passant(tb, p, ok, depth)
    if not ok[0]:
        return 0
    if v1 > -3:
        v1 = tb_dtz_before_zeroing(v1)
        if v < -100:
            if v1 >= 0:
                v = v1
        elif v < 0:
            if v1 >= 0 or v1 < -100:
                v = v1
        elif v > 100:
            if v1 > 0:
                v = v1
        elif v > 0:
            if v1 == 1:
                v = v1
        elif v1 >= 0:
            v = v1
        elif tb_only_en_passant(p):
            v = v1
    return v

# Entry points: the position must have no castling rights and at most max_pieces pieces.
cdef inline bint tb_probeable(Syzygy* tb, Position* p) noexcept nogil:
    return (tb != NULL and tb.wdl_count > 0 and p.st.castling == 0
            and popcount(p.by_type[ALL_PIECES]) <= tb.max_pieces)

cdef int tb_probe_wdl(Syzygy* tb, Position* p, int* ok) noexcept nogil:
    ok[0] = 1
    if not tb_probeable(tb, p):
        ok[0] = 0
        return 0
    return tb_probe_wdl_at(tb, p, ok, 0)

cdef int tb_probe_dtz(Syzygy* tb, Position* p, int* ok) noexcept nogil:
    ok[0] = 1
    if not tb_probeable(tb, p):
        ok[0] = 0
        return 0
    return tb_probe_dtz_at(tb, p, ok, 0)
