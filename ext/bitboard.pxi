# Bitboard tables: leaper attacks, magic-indexed slider attacks, between and line masks.
# All of them are filled once at import by init_bitboards() (a few milliseconds).

cdef Bitboard PAWN_ATTACKS[2][64]
cdef Bitboard KNIGHT_ATTACKS[64]
cdef Bitboard KING_ATTACKS[64]
cdef Bitboard BETWEEN_BB[64][64]   # squares strictly between two aligned squares
cdef Bitboard LINE_BB[64][64]      # the whole line through two aligned squares, else 0
cdef int SQUARE_DISTANCE[64][64]

# Fancy magic bitboards: index = ((occupancy & mask) * magic) >> shift, per square.
ctypedef struct Magic:
    Bitboard mask
    Bitboard magic
    Bitboard* attacks
    int shift

cdef Magic ROOK_MAGICS[64]
cdef Magic BISHOP_MAGICS[64]
cdef Bitboard ROOK_TABLE[102400]
cdef Bitboard BISHOP_TABLE[5248]

# Magic multipliers found offline by a random sparse search (one per square).
cdef uint64_t ROOK_MAGIC_NUMBERS[64]
ROOK_MAGIC_NUMBERS[:] = [
    0x1080004008801020, 0x0840092002c03000, 0x1900200010400900, 0x0880100008000480,
    0x4200100420080200, 0x8100020100080400, 0x0200040110886200, 0x0200008040220411,
    0x0404800084400220, 0x0000401000402000, 0x0086001081220440, 0x0408800800100280,
    0x000a001201040820, 0x8848800200840080, 0x4001000100040200, 0x0442000102105084,
    0x9080010020804100, 0x0040404000201009, 0x0000808010002009, 0x2200090021d00100,
    0x0008008008040080, 0x0004004002010040, 0x0011040008015042, 0x00000a0001768104,
    0x0000800080204009, 0x2010004140002001, 0x9800200280100080, 0x1000100080080080,
    0x0442000a00049020, 0x2100040080020080, 0x0800120400900148, 0x0010040a00128541,
    0x2800804000800030, 0x1010002000400041, 0x4000200011004100, 0x0610008410800800,
    0x0400802402800800, 0xc100020080800400, 0x0002000802000401, 0x0182085882000401,
    0x0220204000808000, 0x2860100040024022, 0x0001002004110040, 0x99101042000a0020,
    0x0004080004008080, 0x0010040002008080, 0x2012004881020004, 0x8300842444820011,
    0x0088403882010200, 0x0820400080210100, 0x0110910040a00300, 0x0801100280080480,
    0x0242009008200600, 0x1002000489500200, 0x0040800200010080, 0x0091800041000080,
    0x0000209300488001, 0x04c1002414824001, 0x020020000b001041, 0x7000100004200901,
    0x8002002004100802, 0x30010002084c0007, 0x0888221800813004, 0x4000002840840112,
]
cdef uint64_t BISHOP_MAGIC_NUMBERS[64]
BISHOP_MAGIC_NUMBERS[:] = [
    0xa010041108003100, 0x006082020a002900, 0x6810010619200000, 0x08281a0520000408,
    0x0001104001000400, 0x0018901008048400, 0x00040a0210245280, 0x000200210808a402,
    0x9140048410821200, 0x0800091010820041, 0x20504804832202c0, 0x0100091401081000,
    0x8021011140000012, 0x0810020804450400, 0x208b0542109008a2, 0x0080084a08040204,
    0x0040e2a80811244c, 0x2505022008008108, 0x0430220100420040, 0x010a040420220040,
    0x1105000290400000, 0x0093001200822120, 0x4000a62048043004, 0x280120048a015004,
    0x006090002a020814, 0x44042000240800d0, 0x01102800040a4400, 0x1004080080220040,
    0x0001001011004024, 0x0010044000805040, 0x0914041200820100, 0x0004821012821480,
    0x0024040500c05021, 0x0088611002080200, 0x0116080a00040020, 0x4000020080080080,
    0x2450450140840040, 0x0000880201484100, 0x0222020404020092, 0x8081110600002e00,
    0x2842101105000801, 0x1100809008001025, 0x00020202221c0400, 0x0422014022009020,
    0x0210046102100c00, 0xc004008082029102, 0x00aa461801101200, 0x0404080080201108,
    0x020542108c205002, 0x0410544804100100, 0x0040910841100000, 0x0400200042021100,
    0x00004204850400c0, 0x0200100410a42102, 0x1040020801210102, 0x0805040410420000,
    0x2884804130100200, 0x800c262201242000, 0x1058000194108800, 0x0014221054420204,
    0x0104000012a02200, 0x0200881003300100, 0x0140400202840100, 0x0402020801010201,
]

cdef inline Bitboard rook_attacks(int sq, Bitboard occ) noexcept nogil:
    cdef Magic* m = &ROOK_MAGICS[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline Bitboard bishop_attacks(int sq, Bitboard occ) noexcept nogil:
    cdef Magic* m = &BISHOP_MAGICS[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline Bitboard queen_attacks(int sq, Bitboard occ) noexcept nogil:
    return rook_attacks(sq, occ) | bishop_attacks(sq, occ)

cdef inline Bitboard piece_attacks(int pt, int sq, Bitboard occ) noexcept nogil:
    if pt == KNIGHT:
        return KNIGHT_ATTACKS[sq]
    if pt == BISHOP:
        return bishop_attacks(sq, occ)
    if pt == ROOK:
        return rook_attacks(sq, occ)
    if pt == QUEEN:
        return queen_attacks(sq, occ)
    return KING_ATTACKS[sq]

cdef inline Bitboard shift_north(Bitboard b) noexcept nogil:
    return b << 8

cdef inline Bitboard shift_south(Bitboard b) noexcept nogil:
    return b >> 8

cdef inline Bitboard pawn_push(int color, Bitboard b) noexcept nogil:
    return (b << 8) if color == WHITE else (b >> 8)

# Squares attacked by all pawns in b of the given colour.
cdef inline Bitboard pawn_attacks_bb(int color, Bitboard b) noexcept nogil:
    if color == WHITE:
        return ((b & ~FILE_A_BB) << 7) | ((b & ~FILE_H_BB) << 9)
    return ((b & ~FILE_A_BB) >> 9) | ((b & ~FILE_H_BB) >> 7)

cdef inline Bitboard file_bb(int sq) noexcept nogil:
    return FILE_A_BB << (sq & 7)

cdef inline Bitboard rank_bb(int sq) noexcept nogil:
    return RANK_1_BB << (8 * (sq >> 3))

# Ray attacks computed square by square; only used to build the tables.
cdef Bitboard sliding_attack(int sq, Bitboard occ, bint rook) noexcept nogil:
    cdef int rook_dirs[4][2]
    cdef int bishop_dirs[4][2]
    rook_dirs[0][:] = [1, 0]
    rook_dirs[1][:] = [-1, 0]
    rook_dirs[2][:] = [0, 1]
    rook_dirs[3][:] = [0, -1]
    bishop_dirs[0][:] = [1, 1]
    bishop_dirs[1][:] = [1, -1]
    bishop_dirs[2][:] = [-1, 1]
    bishop_dirs[3][:] = [-1, -1]
    cdef Bitboard result = 0
    cdef int d, df, dr, f, r
    for d in range(4):
        df = rook_dirs[d][0] if rook else bishop_dirs[d][0]
        dr = rook_dirs[d][1] if rook else bishop_dirs[d][1]
        f = file_of(sq) + df
        r = rank_of(sq) + dr
        while 0 <= f < 8 and 0 <= r < 8:
            result |= square_bb(r * 8 + f)
            if occ & square_bb(r * 8 + f):
                break
            f += df
            r += dr
    return result

cdef void init_magics(Magic* magics, Bitboard* table, uint64_t* numbers, bint rook) noexcept nogil:
    cdef int sq, n
    cdef Bitboard edges, subset, mask
    cdef Bitboard* cursor = table
    cdef Magic* m
    for sq in range(64):
        edges = (((RANK_1_BB | RANK_8_BB) & ~rank_bb(sq))
                 | ((FILE_A_BB | FILE_H_BB) & ~file_bb(sq)))
        mask = sliding_attack(sq, 0, rook) & ~edges
        m = &magics[sq]
        m.mask = mask
        m.magic = numbers[sq]
        n = popcount(mask)
        m.shift = 64 - n
        m.attacks = cursor
        subset = 0
        while True:
            m.attacks[((subset & mask) * m.magic) >> m.shift] = sliding_attack(sq, subset, rook)
            subset = (subset - mask) & mask
            if subset == 0:
                break
        cursor += (<Bitboard>1) << n

cdef void init_bitboards() noexcept nogil:
    cdef int sq, s2, f, r, df, dr, i
    cdef Bitboard b
    cdef int knight_steps[8][2]
    knight_steps[0][:] = [1, 2]
    knight_steps[1][:] = [2, 1]
    knight_steps[2][:] = [2, -1]
    knight_steps[3][:] = [1, -2]
    knight_steps[4][:] = [-1, -2]
    knight_steps[5][:] = [-2, -1]
    knight_steps[6][:] = [-2, 1]
    knight_steps[7][:] = [-1, 2]
    for sq in range(64):
        f = file_of(sq)
        r = rank_of(sq)
        b = 0
        for i in range(8):
            if 0 <= f + knight_steps[i][0] < 8 and 0 <= r + knight_steps[i][1] < 8:
                b |= square_bb((r + knight_steps[i][1]) * 8 + f + knight_steps[i][0])
        KNIGHT_ATTACKS[sq] = b
        b = 0
        for df in range(-1, 2):
            for dr in range(-1, 2):
                if (df != 0 or dr != 0) and 0 <= f + df < 8 and 0 <= r + dr < 8:
                    b |= square_bb((r + dr) * 8 + f + df)
        KING_ATTACKS[sq] = b
        PAWN_ATTACKS[WHITE][sq] = pawn_attacks_bb(WHITE, square_bb(sq))
        PAWN_ATTACKS[BLACK][sq] = pawn_attacks_bb(BLACK, square_bb(sq))
        for s2 in range(64):
            df = file_of(s2) - f
            dr = rank_of(s2) - r
            SQUARE_DISTANCE[sq][s2] = max(abs(df), abs(dr))
    init_magics(ROOK_MAGICS, ROOK_TABLE, ROOK_MAGIC_NUMBERS, True)
    init_magics(BISHOP_MAGICS, BISHOP_TABLE, BISHOP_MAGIC_NUMBERS, False)
    for sq in range(64):
        for s2 in range(64):
            BETWEEN_BB[sq][s2] = 0
            LINE_BB[sq][s2] = 0
            if sq == s2:
                continue
            if bishop_attacks(sq, 0) & square_bb(s2):
                LINE_BB[sq][s2] = (bishop_attacks(sq, 0) & bishop_attacks(s2, 0)) | square_bb(sq) | square_bb(s2)
                BETWEEN_BB[sq][s2] = bishop_attacks(sq, square_bb(s2)) & bishop_attacks(s2, square_bb(sq))
            elif rook_attacks(sq, 0) & square_bb(s2):
                LINE_BB[sq][s2] = (rook_attacks(sq, 0) & rook_attacks(s2, 0)) | square_bb(sq) | square_bb(s2)
                BETWEEN_BB[sq][s2] = rook_attacks(sq, square_bb(s2)) & rook_attacks(s2, square_bb(sq))
