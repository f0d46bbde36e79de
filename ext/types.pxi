# Shared C types and constants of the core.
#
# Squares run a1 = 0, b1 = 1, ..., h8 = 63.  A piece is colour * 8 + type, so white pieces are
# 1..6 and black pieces 9..14; 0 is an empty square.
#
# A move fits in 16 bits:
#
#   bits  0-5   from square
#   bits  6-11  to square (for castling: the square of the castling rook, "king takes rook")
#   bits 12-13  promotion piece minus KNIGHT (0 knight, 1 bishop, 2 rook, 3 queen)
#   bits 14-15  kind: 0 normal, 1 promotion, 2 en passant, 3 castling
#
# MOVE_NONE (0) and MOVE_NULL (from = to = b1) can never be real moves.

from libc.stdint cimport uint64_t, uint32_t, uint16_t, uint8_t, int8_t, int16_t, int32_t, int64_t

ctypedef uint64_t Bitboard
ctypedef uint16_t Move

cdef extern from *:
    """
    static inline int scacco_popcount(unsigned long long b) { return __builtin_popcountll(b); }
    static inline int scacco_lsb(unsigned long long b) { return __builtin_ctzll(b); }
    static inline int scacco_msb(unsigned long long b) { return 63 - __builtin_clzll(b); }
    """
    int popcount "scacco_popcount"(unsigned long long b) noexcept nogil
    int lsb "scacco_lsb"(unsigned long long b) noexcept nogil
    int msb "scacco_msb"(unsigned long long b) noexcept nogil

cdef enum:
    WHITE = 0
    BLACK = 1

cdef enum:
    NO_PIECE_TYPE = 0
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6
    ALL_PIECES = 0

cdef enum:
    NO_PIECE = 0
    W_PAWN = 1
    W_KNIGHT = 2
    W_BISHOP = 3
    W_ROOK = 4
    W_QUEEN = 5
    W_KING = 6
    B_PAWN = 9
    B_KNIGHT = 10
    B_BISHOP = 11
    B_ROOK = 12
    B_QUEEN = 13
    B_KING = 14
    PIECE_NB = 16

cdef enum:
    SQ_NONE = 64
    MAX_MOVES = 256
    MAX_PLY = 128

cdef enum:
    MOVE_NONE = 0
    MOVE_NULL = 65

cdef enum:
    NORMAL = 0
    PROMOTION = 1
    EN_PASSANT = 2
    CASTLING = 3

# Castling right bits; the index of a right is its bit number.
cdef enum:
    WHITE_OO = 1
    WHITE_OOO = 2
    BLACK_OO = 4
    BLACK_OOO = 8

# Kinds of generation: everything, noisy moves (captures, en passant, all promotions),
# quiet moves (everything else, castling included).
cdef enum:
    GEN_ALL = 0
    GEN_NOISY = 1
    GEN_QUIET = 2

cdef Bitboard FILE_A_BB = 0x0101010101010101
cdef Bitboard FILE_H_BB = FILE_A_BB << 7
cdef Bitboard RANK_1_BB = 0xFF
cdef Bitboard RANK_8_BB = RANK_1_BB << 56
cdef Bitboard DARK_SQUARES_BB = 0xAA55AA55AA55AA55

cdef inline Bitboard square_bb(int sq) noexcept nogil:
    return (<Bitboard>1) << sq

cdef inline int make_piece(int color, int pt) noexcept nogil:
    return (color << 3) | pt

cdef inline int type_of(int piece) noexcept nogil:
    return piece & 7

cdef inline int color_of(int piece) noexcept nogil:
    return piece >> 3

cdef inline int file_of(int sq) noexcept nogil:
    return sq & 7

cdef inline int rank_of(int sq) noexcept nogil:
    return sq >> 3

cdef inline int relative_square(int color, int sq) noexcept nogil:
    return sq ^ (color * 56)

cdef inline int relative_rank(int color, int sq) noexcept nogil:
    return (sq >> 3) ^ (color * 7)

cdef inline Move make_move_code(int frm, int to) noexcept nogil:
    return <Move>(frm | (to << 6))

cdef inline Move make_special(int frm, int to, int kind, int promo_pt) noexcept nogil:
    return <Move>(frm | (to << 6) | ((promo_pt - KNIGHT) << 12) | (kind << 14))

cdef inline int move_from(Move m) noexcept nogil:
    return m & 63

cdef inline int move_to(Move m) noexcept nogil:
    return (m >> 6) & 63

cdef inline int move_kind(Move m) noexcept nogil:
    return m >> 14

cdef inline int promotion_type(Move m) noexcept nogil:
    return ((m >> 12) & 3) + KNIGHT
