# Static evaluation: a tapered middlegame/endgame score in centipawns.
#
# Material and piece-square values live in PSQ_MG / PSQ_EG (declared in position.pxi) and are
# summed incrementally by put_piece / remove_piece / move_piece, so that part costs nothing
# here.  Every score is computed from white's point of view, tapered, and only then turned
# to the side to move: truncating division is symmetric under negation, so the evaluation of
# a position and of its colour-flipped mirror are exactly opposite before the tempo bonus.

# Material values and piece-square tables of PeSTO (Ronald Friederich, Rofchade), as
# published on the Chess Programming Wiki.  Tables are written as seen from white with a8
# first, so white's value on square sq (a1 = 0) is TABLE[sq ^ 56].
cdef int PIECE_VALUE_MG[7]
cdef int PIECE_VALUE_EG[7]
PIECE_VALUE_MG[:] = [0, 82, 337, 365, 477, 1025, 0]
PIECE_VALUE_EG[:] = [0, 94, 281, 297, 512, 936, 0]

cdef int PESTO_MG[7][64]
cdef int PESTO_EG[7][64]

PESTO_MG[PAWN][:] = [
      0,   0,   0,   0,   0,   0,   0,   0,
     98, 134,  61,  95,  68, 126,  34, -11,
     -6,   7,  26,  31,  65,  56,  25, -20,
    -14,  13,   6,  21,  23,  12,  17, -23,
    -27,  -2,  -5,  12,  17,   6,  10, -25,
    -26,  -4,  -4, -10,   3,   3,  33, -12,
    -35,  -1, -20, -23, -15,  24,  38, -22,
      0,   0,   0,   0,   0,   0,   0,   0]
PESTO_EG[PAWN][:] = [
      0,   0,   0,   0,   0,   0,   0,   0,
    178, 173, 158, 134, 147, 132, 165, 187,
     94, 100,  85,  67,  56,  53,  82,  84,
     32,  24,  13,   5,  -2,   4,  17,  17,
     13,   9,  -3,  -7,  -7,  -8,   3,  -1,
      4,   7,  -6,   1,   0,  -5,  -1,  -8,
     13,   8,   8,  10,  13,   0,   2,  -7,
      0,   0,   0,   0,   0,   0,   0,   0]
PESTO_MG[KNIGHT][:] = [
   -167, -89, -34, -49,  61, -97, -15,-107,
    -73, -41,  72,  36,  23,  62,   7, -17,
    -47,  60,  37,  65,  84, 129,  73,  44,
     -9,  17,  19,  53,  37,  69,  18,  22,
    -13,   4,  16,  13,  28,  19,  21,  -8,
    -23,  -9,  12,  10,  19,  17,  25, -16,
    -29, -53, -12,  -3,  -1,  18, -14, -19,
   -105, -21, -58, -33, -17, -28, -19, -23]
PESTO_EG[KNIGHT][:] = [
    -58, -38, -13, -28, -31, -27, -63, -99,
    -25,  -8, -25,  -2,  -9, -25, -24, -52,
    -24, -20,  10,   9,  -1,  -9, -19, -41,
    -17,   3,  22,  22,  22,  11,   8, -18,
    -18,  -6,  16,  25,  16,  17,   4, -18,
    -23,  -3,  -1,  15,  10,  -3, -20, -22,
    -42, -20, -10,  -5,  -2, -20, -23, -44,
    -29, -51, -23, -15, -22, -18, -50, -64]
PESTO_MG[BISHOP][:] = [
    -29,   4, -82, -37, -25, -42,   7,  -8,
    -26,  16, -18, -13,  30,  59,  18, -47,
    -16,  37,  43,  40,  35,  50,  37,  -2,
     -4,   5,  19,  50,  37,  37,   7,  -2,
     -6,  13,  13,  26,  34,  12,  10,   4,
      0,  15,  15,  15,  14,  27,  18,  10,
      4,  15,  16,   0,   7,  21,  33,   1,
    -33,  -3, -14, -21, -13, -12, -39, -21]
PESTO_EG[BISHOP][:] = [
    -14, -21, -11,  -8,  -7,  -9, -17, -24,
     -8,  -4,   7, -12,  -3, -13,  -4, -14,
      2,  -8,   0,  -1,  -2,   6,   0,   4,
     -3,   9,  12,   9,  14,  10,   3,   2,
     -6,   3,  13,  19,   7,  10,  -3,  -9,
    -12,  -3,   8,  10,  13,   3,  -7, -15,
    -14, -18,  -7,  -1,   4,  -9, -15, -27,
    -23,  -9, -23,  -5,  -9, -16,  -5, -17]
PESTO_MG[ROOK][:] = [
     32,  42,  32,  51,  63,   9,  31,  43,
     27,  32,  58,  62,  80,  67,  26,  44,
     -5,  19,  26,  36,  17,  45,  61,  16,
    -24, -11,   7,  26,  24,  35,  -8, -20,
    -36, -26, -12,  -1,   9,  -7,   6, -23,
    -45, -25, -16, -17,   3,   0,  -5, -33,
    -44, -16, -20,  -9,  -1,  11,  -6, -71,
    -19, -13,   1,  17,  16,   7, -37, -26]
PESTO_EG[ROOK][:] = [
     13,  10,  18,  15,  12,  12,   8,   5,
     11,  13,  13,  11,  -3,   3,   8,   3,
      7,   7,   7,   5,   4,  -3,  -5,  -3,
      4,   3,  13,   1,   2,   1,  -1,   2,
      3,   5,   8,   4,  -5,  -6,  -8, -11,
     -4,   0,  -5,  -1,  -7, -12,  -8, -16,
     -6,  -6,   0,   2,  -9,  -9, -11,  -3,
     -9,   2,   3,  -1,  -5, -13,   4, -20]
PESTO_MG[QUEEN][:] = [
    -28,   0,  29,  12,  59,  44,  43,  45,
    -24, -39,  -5,   1, -16,  57,  28,  54,
    -13, -17,   7,   8,  29,  56,  47,  57,
    -27, -27, -16, -16,  -1,  17,  -2,   1,
     -9, -26,  -9, -10,  -2,  -4,   3,  -3,
    -14,   2, -11,  -2,  -5,   2,  14,   5,
    -35,  -8,  11,   2,   8,  15,  -3,   1,
     -1, -18,  -9,  10, -15, -25, -31, -50]
PESTO_EG[QUEEN][:] = [
     -9,  22,  22,  27,  27,  19,  10,  20,
    -17,  20,  32,  41,  58,  25,  30,   0,
    -20,   6,   9,  49,  47,  35,  19,   9,
      3,  22,  24,  45,  57,  40,  57,  36,
    -18,  28,  19,  47,  31,  34,  39,  23,
    -16, -27,  15,   6,   9,  17,  10,   5,
    -22, -23, -30, -16, -16, -23, -36, -32,
    -33, -28, -22, -43,  -5, -32, -20, -41]
PESTO_MG[KING][:] = [
    -65,  23,  16, -15, -56, -34,   2,  13,
     29,  -1, -20,  -7,  -8,  -4, -38, -29,
     -9,  24,   2, -16, -20,   6,  22, -22,
    -17, -20, -12, -27, -30, -25, -14, -36,
    -49,  -1, -27, -39, -46, -44, -33, -51,
    -14, -14, -22, -46, -44, -30, -15, -27,
      1,   7,  -8, -64, -43, -16,   9,   8,
    -15,  36,  12, -54,   8, -28,  24,  14]
PESTO_EG[KING][:] = [
    -74, -35, -18, -18, -11,  15,   4, -17,
    -12,  17,  14,  17,  17,  38,  23,  11,
     10,  17,  23,  15,  20,  45,  44,  13,
     -8,  22,  24,  27,  26,  33,  26,   3,
    -18,  -4,  21,  24,  27,  23,   9, -11,
    -19,  -3,  11,  21,  23,  16,   7,  -9,
    -27, -11,   4,  13,  14,   4,  -5, -17,
    -53, -34, -21, -11, -28, -14, -24, -43]

# ---------------------------------------------------------------------------------------------
# Weights of the positional terms, in centipawns, as (middlegame, endgame) pairs.
#
# The terms follow the structure of Stockfish 11's classical evaluation, whose figures
# (rescaled to PeSTO's pawn) were the starting values.  The weights below were then fitted by
# bench/eval_fit.py tune to Stockfish 15.1's scores of quiet positions from games out of
# chessathome_openings.fen, with the PeSTO tables fixed (the data and the losses are in
# docs/results/engine.md).  A few came out with
# surprising signs (a queen lowers the king-danger sum, isolated pawns lose their penalty
# where the weak-unopposed one applies): they are what the data says next to PeSTO's tables.
# The mop-up weights are not fitted (won endings are not in the data).

# Bonus for the side to move (it can act first).
cdef int TEMPO = 21

cdef enum:
    PHASE_MAX = 24

# Mobility by number of safe squares (not attacked by enemy pawns, not occupied by own pieces).
cdef int MOBILITY_MG[7][28]
cdef int MOBILITY_EG[7][28]
MOBILITY_MG[KNIGHT][:] = [-19, -17, -15, -15, -13, -12, -11, -10, -8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                          0, 0, 0, 0, 0, 0, 0, 0, 0]
MOBILITY_EG[KNIGHT][:] = [16, 23, 29, 32, 32, 30, 26, 21, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                          0, 0, 0, 0, 0, 0, 0]
MOBILITY_MG[BISHOP][:] = [-38, -33, -28, -24, -21, -19, -18, -17, -16, -14, -9, -2, 6, 15, 0, 0, 0,
                          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
MOBILITY_EG[BISHOP][:] = [-14, -8, -2, 3, 6, 9, 11, 13, 13, 12, 10, 9, 9, 8, 0, 0, 0, 0, 0, 0, 0,
                          0, 0, 0, 0, 0, 0, 0]
MOBILITY_MG[ROOK][:] = [-18, -19, -20, -22, -24, -23, -22, -21, -20, -17, -13, -8, -2, 4, 11, 0, 0,
                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
MOBILITY_EG[ROOK][:] = [-27, -16, -5, 5, 13, 17, 20, 22, 23, 25, 28, 32, 36, 41, 46, 0, 0, 0, 0, 0,
                        0, 0, 0, 0, 0, 0, 0, 0]
MOBILITY_MG[QUEEN][:] = [-32, -34, -37, -39, -41, -42, -43, -43, -43, -42, -41, -39, -36, -33, -29,
                         -25, -21, -17, -12, -6, 0, 7, 14, 20, 26, 32, 37, 42]
MOBILITY_EG[QUEEN][:] = [-49, -46, -44, -41, -39, -37, -35, -32, -30, -26, -23, -20, -17, -15, -14,
                         -12, -11, -9, -7, -3, 3, 9, 17, 24, 32, 39, 47, 54]

# Pawn structure.  CONNECTED is indexed by relative rank and multiplied by 2 + phalanx -
# opposed; the endgame share grows with the rank.
cdef int CONNECTED[8]
CONNECTED[:] = [0, 0, -1, 3, 6, 33, 57, 0]
cdef int SUPPORTED_MG = 5
cdef int ISOLATED_MG = -4, ISOLATED_EG = -3
cdef int BACKWARD_MG = 0, BACKWARD_EG = -5
cdef int WEAK_UNOPPOSED_MG = 18, WEAK_UNOPPOSED_EG = 9
cdef int DOUBLED_MG = 27, DOUBLED_EG = 40

# Passed pawns: a base bonus by relative rank (cached with the pawn structure), and a
# dynamic part weighted by 5 * rank - 13 from the fourth rank on: king distances to the
# square in front, and a free, safe path to promotion.
cdef int PASSED_MG[8]
cdef int PASSED_EG[8]
PASSED_MG[:] = [0, -5, -32, -19, -5, 17, 47, 0]
PASSED_EG[:] = [0, -1, 10, 35, 60, 76, 82, 0]
cdef int PASSED_THEIR_KING = 18    # per square of distance, in quarters
cdef int PASSED_OUR_KING = 27      # per square of distance, in quarters
cdef int PASSED_FREE = 14, PASSED_SAFE_BLOCK = 4, PASSED_FREE_BLOCK = 1, PASSED_DEFENDED_BLOCK = 6
cdef int UNSTOPPABLE_EG = 285

# Pieces.
cdef int BISHOP_PAIR_MG = 6, BISHOP_PAIR_EG = 62
cdef int ROOK_OPEN_MG = 12, ROOK_OPEN_EG = 5
cdef int ROOK_SEMI_OPEN_MG = 7, ROOK_SEMI_OPEN_EG = 19
cdef int OUTPOST_MG[7]
cdef int OUTPOST_EG[7]
OUTPOST_MG[:] = [0, 0, -3, 6, 0, 0, 0]
OUTPOST_EG[:] = [0, 0, 6, 2, 0, 0, 0]

# Threats, indexed by the type of the attacked piece.
cdef int THREAT_BY_MINOR_MG[7]
cdef int THREAT_BY_MINOR_EG[7]
cdef int THREAT_BY_ROOK_MG[7]
cdef int THREAT_BY_ROOK_EG[7]
THREAT_BY_MINOR_MG[:] = [0, 0, 14, 31, 43, 31, 0]
THREAT_BY_MINOR_EG[:] = [0, 4, 27, 31, 32, 70, 0]
THREAT_BY_ROOK_MG[:] = [0, 7, 16, 22, -9, 61, 0]
THREAT_BY_ROOK_EG[:] = [0, 12, 21, 24, 14, 29, 0]
cdef int HANGING_MG = 12, HANGING_EG = 30
cdef int THREAT_SAFE_PAWN_MG = 46, THREAT_SAFE_PAWN_EG = 40

# King safety.  Shelter by distance of the file from the edge and relative rank of our
# nearest pawn on it (0: none); storm by the rank of their nearest pawn (0: none).
cdef int SHELTER[4][8]
SHELTER[0][:] = [9, 41, 43, 22, 15, 10, 12, 0]
SHELTER[1][:] = [20, 34, 30, 25, 32, 3, -43, 0]
SHELTER[2][:] = [68, 71, 63, 66, 49, -24, -39, 0]
SHELTER[3][:] = [32, 39, 45, 31, 26, -53, -93, 0]
cdef int UNBLOCKED_STORM[4][8]
UNBLOCKED_STORM[0][:] = [21, -170, -53, 56, 33, 9, 16, 0]
UNBLOCKED_STORM[1][:] = [10, -37, 42, -6, 8, -3, -3, 0]
UNBLOCKED_STORM[2][:] = [-27, 10, 105, 30, -5, -10, -31, 0]
UNBLOCKED_STORM[3][:] = [15, -23, 50, 2, -2, -8, 4, 0]
cdef int BLOCKED_STORM_MG = 23, BLOCKED_STORM_EG = -23
cdef int KING_PAWN_DISTANCE_EG = 3

# King danger, in the units of the danger formula: attackers on the king zone by type,
# attacks next to the king, weak zone squares, safe and unsafe checks.  The penalty is
# danger^2 / KING_DANGER_MG_DIV in the middlegame and danger / KING_DANGER_EG_DIV in the
# endgame, and is applied only when the attacker has a queen.
cdef int KING_ATTACK_WEIGHT[7]
KING_ATTACK_WEIGHT[:] = [0, 0, 11, 24, 37, -29, 0]
cdef int KING_ADJACENT_ATTACK = 30
cdef int KING_WEAK_ZONE = 79
cdef int SAFE_CHECK[7]
SAFE_CHECK[:] = [0, 0, 749, 587, 1003, 625, 0]
cdef int UNSAFE_CHECK = 103
cdef int KNIGHT_DEFENDER = 141
# (Compile-time constants, so that the divisions become multiplications.)
cdef enum:
    KING_DANGER_MIN = 100
    KING_DANGER_MG_DIV = 6400
    KING_DANGER_EG_DIV = 36

# Mop-up, when one side has a bare king: drive it to the edge and bring the kings together.
cdef int MOPUP_CENTER = 10, MOPUP_KINGS = 4

# ---------------------------------------------------------------------------------------------
# Masks, filled by init_evaluation.

cdef Bitboard FORWARD_FILE_BB[2][64]      # squares in front of sq on its file
cdef Bitboard PAWN_ATTACK_SPAN_BB[2][64]  # squares in front of sq on the adjacent files
cdef Bitboard PASSED_SPAN_BB[2][64]       # both of the above
cdef Bitboard FORWARD_RANKS_BB[2][8]      # ranks strictly in front of a rank
cdef Bitboard ADJACENT_FILES_BB[8]
cdef Bitboard KING_ZONE_BB[64]            # 3x3 block around the king, pushed off the edges
cdef int CENTER_DISTANCE[64]

# The terms reported by evaluation_terms (material and piece-square values are reported
# separately, since they are summed incrementally for both colours at once).
cdef enum:
    TERM_PAWNS = 0
    TERM_PASSED = 1
    TERM_MOBILITY = 2
    TERM_PIECES = 3
    TERM_THREATS = 4
    TERM_KING = 5
    TERM_MOPUP = 6
    TERM_NB = 7

# Per-colour (mg, eg) of each term; filled only when a caller asks for it.
ctypedef struct EvalTrace:
    int mg[TERM_NB][2]
    int eg[TERM_NB][2]
    int scale

# Facts gathered in one pass over the pieces and used by the later terms.
ctypedef struct EvalInfo:
    Bitboard attacked[2][7]     # squares attacked by colour and piece type (0: any)
    Bitboard attacked2[2]       # squares attacked at least twice
    Bitboard mobility_area[2]
    int king_square[2]
    int king_attackers[2]       # pieces of a colour attacking the enemy king zone
    int king_attack_weight[2]
    int king_adjacent_attacks[2]
    int mg[2]
    int eg[2]

# The pawn-structure cache, keyed by the pawn Zobrist key.  Scores are per colour.  Each
# searcher (each search thread) owns one table, reached through Position.pawn_cache; a
# position without one (a board, a batch) computes its pawn entry afresh every time.
ctypedef struct PawnEntry:
    uint64_t key
    Bitboard passed[2]
    int mg[2]
    int eg[2]
    int king_square[2]      # king square + 1 for which king_mg / king_eg hold (0: none yet)
    int king_mg[2]          # pawn shelter, storm and king-pawn distance of that king
    int king_eg[2]

cdef enum:
    PAWN_CACHE_SIZE = 16384     # entries, a power of two

# A zeroed pawn cache (key 0 is also the key of "no pawns", whose entry is all zeros: correct
# as it stands), or NULL without memory.
cdef PawnEntry* new_pawn_cache() noexcept nogil:
    return <PawnEntry*>calloc(PAWN_CACHE_SIZE, sizeof(PawnEntry))

cdef void clear_pawn_cache(PawnEntry* cache) noexcept nogil:
    if cache != NULL:
        memset(cache, 0, PAWN_CACHE_SIZE * sizeof(PawnEntry))

# Fill the incremental material + piece-square tables (white on sq reads the table at
# sq ^ 56, black is the mirror image with the sign reversed) and the masks.
cdef void init_evaluation() noexcept nogil:
    cdef int pt, sq, c, r, f, kf, kr
    for sq in range(64):
        PSQ_MG[NO_PIECE][sq] = 0
        PSQ_EG[NO_PIECE][sq] = 0
    for pt in range(PAWN, KING + 1):
        for sq in range(64):
            PSQ_MG[make_piece(WHITE, pt)][sq] = PIECE_VALUE_MG[pt] + PESTO_MG[pt][sq ^ 56]
            PSQ_EG[make_piece(WHITE, pt)][sq] = PIECE_VALUE_EG[pt] + PESTO_EG[pt][sq ^ 56]
            PSQ_MG[make_piece(BLACK, pt)][sq] = -(PIECE_VALUE_MG[pt] + PESTO_MG[pt][sq])
            PSQ_EG[make_piece(BLACK, pt)][sq] = -(PIECE_VALUE_EG[pt] + PESTO_EG[pt][sq])
    for f in range(8):
        ADJACENT_FILES_BB[f] = 0
        if f > 0:
            ADJACENT_FILES_BB[f] |= FILE_A_BB << (f - 1)
        if f < 7:
            ADJACENT_FILES_BB[f] |= FILE_A_BB << (f + 1)
    for r in range(8):
        FORWARD_RANKS_BB[WHITE][r] = 0
        FORWARD_RANKS_BB[BLACK][r] = 0
        for f in range(8):
            if f > r:
                FORWARD_RANKS_BB[WHITE][r] |= RANK_1_BB << (8 * f)
            if f < r:
                FORWARD_RANKS_BB[BLACK][r] |= RANK_1_BB << (8 * f)
    for c in range(2):
        for sq in range(64):
            FORWARD_FILE_BB[c][sq] = FORWARD_RANKS_BB[c][rank_of(sq)] & file_bb(sq)
            PAWN_ATTACK_SPAN_BB[c][sq] = FORWARD_RANKS_BB[c][rank_of(sq)] & ADJACENT_FILES_BB[file_of(sq)]
            PASSED_SPAN_BB[c][sq] = FORWARD_FILE_BB[c][sq] | PAWN_ATTACK_SPAN_BB[c][sq]
    for sq in range(64):
        kf = min(max(file_of(sq), 1), 6)
        kr = min(max(rank_of(sq), 1), 6)
        KING_ZONE_BB[sq] = KING_ATTACKS[kr * 8 + kf] | square_bb(kr * 8 + kf)
        f = file_of(sq)
        r = rank_of(sq)
        CENTER_DISTANCE[sq] = max(max(3 - f, f - 4), max(3 - r, r - 4))

# Blend a middlegame and an endgame score (white's view) by the game phase.
cdef inline int taper(int mg, int eg, int phase) noexcept nogil:
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    return (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX

cdef inline void trace_add(EvalTrace* t, int term, int c, int mg, int eg) noexcept nogil:
    if t != NULL:
        t.mg[term][c] += mg
        t.eg[term][c] += eg

# ---------------------------------------------------------------------------------------------
# Pawn structure of one colour, from scratch (on a cache miss).

cdef void evaluate_pawns(Position* p, int us, PawnEntry* e) noexcept nogil:
    cdef int them = us ^ 1
    cdef Bitboard ours = pieces_of(p, us, PAWN), theirs = pieces_of(p, them, PAWN)
    cdef Bitboard b = ours, opposed, stoppers, neighbours, phalanx, supported, push_bb
    cdef int s, r, push, v, mg = 0, eg = 0
    cdef bint backward
    e.passed[us] = 0
    while b:
        s = lsb(b)
        b &= b - 1
        r = relative_rank(us, s)
        push = s + 8 if us == WHITE else s - 8
        push_bb = square_bb(push)
        opposed = theirs & FORWARD_FILE_BB[us][s]
        stoppers = theirs & PASSED_SPAN_BB[us][s]
        neighbours = ours & ADJACENT_FILES_BB[file_of(s)]
        phalanx = neighbours & rank_bb(s)
        supported = ours & PAWN_ATTACKS[them][s]
        # Backward: no friendly pawn beside or behind, and the advance is stopped by a pawn
        # in front or by an enemy pawn guarding the square in front.
        backward = (not (neighbours & ~FORWARD_RANKS_BB[us][rank_of(s)])
                    and ((theirs & push_bb) or (theirs & PAWN_ATTACKS[us][push])))
        if supported or phalanx:
            v = CONNECTED[r] * (2 + (1 if phalanx else 0) - (1 if opposed else 0)) + SUPPORTED_MG * popcount(supported)
            mg += v
            eg += v * (r - 2) / 6
        elif not neighbours:
            mg -= ISOLATED_MG
            eg -= ISOLATED_EG
            if not opposed:
                mg -= WEAK_UNOPPOSED_MG
                eg -= WEAK_UNOPPOSED_EG
        elif backward:
            mg -= BACKWARD_MG
            eg -= BACKWARD_EG
            if not opposed:
                mg -= WEAK_UNOPPOSED_MG
                eg -= WEAK_UNOPPOSED_EG
        if (ours & FORWARD_FILE_BB[us][s]) and not supported:
            mg -= DOUBLED_MG
            eg -= DOUBLED_EG
        if not stoppers and not (ours & FORWARD_FILE_BB[us][s]):
            e.passed[us] |= square_bb(s)
            mg += PASSED_MG[r]
            eg += PASSED_EG[r]
    e.mg[us] = mg
    e.eg[us] = eg

# The pawn entry of the position: from the owner's cache, or computed into `scratch`.
cdef inline PawnEntry* probe_pawns(Position* p, PawnEntry* scratch) noexcept nogil:
    cdef uint64_t key = p.st.pawn_key
    cdef PawnEntry* e
    if p.pawn_cache == NULL:
        e = scratch
        e.key = key ^ 1         # forces the computation below
    else:
        e = &(<PawnEntry*>p.pawn_cache)[key & (PAWN_CACHE_SIZE - 1)]
    if e.key != key:
        e.key = key
        e.king_square[WHITE] = 0
        e.king_square[BLACK] = 0
        evaluate_pawns(p, WHITE, e)
        evaluate_pawns(p, BLACK, e)
    return e

# ---------------------------------------------------------------------------------------------
# Pieces of one colour: mobility, attack maps, king-zone attacks, outposts, rook files.

# The pieces of one type and colour; pt is a constant at every call, so the C compiler
# specialises each copy.  acc receives mobility (mg, eg) and piece bonuses (mg, eg).
cdef inline void evaluate_piece_type(Position* p, int us, int pt, EvalInfo* ei, Bitboard outposts,
                                     int* acc) noexcept nogil:
    cdef int them = us ^ 1, s, n
    cdef Bitboard occ = p.by_type[ALL_PIECES]
    cdef Bitboard b = pieces_of(p, us, pt), att
    cdef Bitboard zone = KING_ZONE_BB[ei.king_square[them]]
    cdef Bitboard our_pawns = pieces_of(p, us, PAWN), their_pawns = pieces_of(p, them, PAWN)
    while b:
        s = lsb(b)
        b &= b - 1
        # Sliders see through their own heavier partners (batteries).
        if pt == KNIGHT:
            att = KNIGHT_ATTACKS[s]
        elif pt == BISHOP:
            att = bishop_attacks(s, occ ^ pieces_of(p, us, QUEEN))
        elif pt == ROOK:
            att = rook_attacks(s, occ ^ pieces_of(p, us, ROOK) ^ pieces_of(p, us, QUEEN))
        else:
            att = queen_attacks(s, occ)
        ei.attacked2[us] |= ei.attacked[us][ALL_PIECES] & att
        ei.attacked[us][ALL_PIECES] |= att
        ei.attacked[us][pt] |= att
        n = popcount(att & ei.mobility_area[us])
        acc[0] += MOBILITY_MG[pt][n]
        acc[1] += MOBILITY_EG[pt][n]
        if att & zone:
            ei.king_attackers[us] += 1
            ei.king_attack_weight[us] += KING_ATTACK_WEIGHT[pt]
            ei.king_adjacent_attacks[us] += popcount(att & KING_ATTACKS[ei.king_square[them]])
        if pt == KNIGHT or pt == BISHOP:
            if (outposts & square_bb(s)) and not (PAWN_ATTACK_SPAN_BB[us][s] & their_pawns):
                acc[2] += OUTPOST_MG[pt]
                acc[3] += OUTPOST_EG[pt]
        elif pt == ROOK:
            if not (our_pawns & file_bb(s)):
                if not (their_pawns & file_bb(s)):
                    acc[2] += ROOK_OPEN_MG
                    acc[3] += ROOK_OPEN_EG
                else:
                    acc[2] += ROOK_SEMI_OPEN_MG
                    acc[3] += ROOK_SEMI_OPEN_EG

# Pieces of one colour: mobility, attack maps, king-zone attacks, outposts, rook files,
# bishop pair.
cdef inline void evaluate_pieces(Position* p, int us, EvalInfo* ei, EvalTrace* t) noexcept nogil:
    cdef Bitboard outposts, bishops = pieces_of(p, us, BISHOP)
    cdef int acc[4]
    acc[0] = 0
    acc[1] = 0
    acc[2] = 0
    acc[3] = 0
    # Outposts: relative ranks 4-6, guarded by an own pawn (and, checked per piece, out of
    # reach of enemy pawns).
    if us == WHITE:
        outposts = (RANK_1_BB << (8 * 3)) | (RANK_1_BB << (8 * 4)) | (RANK_1_BB << (8 * 5))
    else:
        outposts = (RANK_1_BB << (8 * 2)) | (RANK_1_BB << (8 * 3)) | (RANK_1_BB << (8 * 4))
    outposts &= ei.attacked[us][PAWN]
    evaluate_piece_type(p, us, KNIGHT, ei, outposts, acc)
    evaluate_piece_type(p, us, BISHOP, ei, outposts, acc)
    evaluate_piece_type(p, us, ROOK, ei, outposts, acc)
    evaluate_piece_type(p, us, QUEEN, ei, outposts, acc)
    if (bishops & DARK_SQUARES_BB) and (bishops & ~DARK_SQUARES_BB):
        acc[2] += BISHOP_PAIR_MG
        acc[3] += BISHOP_PAIR_EG
    ei.mg[us] += acc[0] + acc[2]
    ei.eg[us] += acc[1] + acc[3]
    trace_add(t, TERM_MOBILITY, us, acc[0], acc[1])
    trace_add(t, TERM_PIECES, us, acc[2], acc[3])

# ---------------------------------------------------------------------------------------------
# King safety of colour us: pawn shelter and storm (cached with the pawns for one king
# square), then the danger from enemy attacks.

cdef void evaluate_shelter(Position* p, int us, int ksq, PawnEntry* e) noexcept nogil:
    cdef int them = us ^ 1
    cdef int f, kf, d, our_rank, their_rank, s, mg = 0, eg = 0, dist
    cdef Bitboard our_pawns = pieces_of(p, us, PAWN), their_pawns = pieces_of(p, them, PAWN)
    cdef Bitboard not_behind = ~FORWARD_RANKS_BB[them][rank_of(ksq)]
    cdef Bitboard b
    # Shelter and storm on the king's file and its neighbours (b..g for a king on the edge).
    kf = min(max(file_of(ksq), 1), 6)
    for f in range(kf - 1, kf + 2):
        b = our_pawns & not_behind & (FILE_A_BB << f)
        if b:
            s = lsb(b) if us == WHITE else msb(b)
            our_rank = relative_rank(us, s)
        else:
            our_rank = 0
        b = their_pawns & not_behind & (FILE_A_BB << f)
        if b:
            s = lsb(b) if us == WHITE else msb(b)
            their_rank = relative_rank(us, s)
        else:
            their_rank = 0
        d = min(f, 7 - f)
        mg += SHELTER[d][our_rank]
        if our_rank and our_rank == their_rank - 1:
            if their_rank == 2:
                mg -= BLOCKED_STORM_MG
                eg -= BLOCKED_STORM_EG
        else:
            mg -= UNBLOCKED_STORM[d][their_rank]
    # Endgame: the king should stay near its pawns.
    if our_pawns:
        dist = 8
        b = our_pawns
        while b:
            s = lsb(b)
            b &= b - 1
            if SQUARE_DISTANCE[ksq][s] < dist:
                dist = SQUARE_DISTANCE[ksq][s]
        eg -= KING_PAWN_DISTANCE_EG * dist
    e.king_square[us] = ksq + 1
    e.king_mg[us] = mg
    e.king_eg[us] = eg

cdef inline void evaluate_king(Position* p, int us, EvalInfo* ei, PawnEntry* pe, EvalTrace* t) noexcept nogil:
    cdef int them = us ^ 1, ksq = ei.king_square[us]
    cdef int danger, mg, eg
    cdef Bitboard b, weak, safe, rook_lines, bishop_lines, knight_lines, checks, unsafe
    cdef Bitboard occ = p.by_type[ALL_PIECES]
    if pe.king_square[us] != ksq + 1:
        evaluate_shelter(p, us, ksq, pe)
    mg = pe.king_mg[us]
    eg = pe.king_eg[us]

    # Danger from the attackers, only when they have a queen.
    if pieces_of(p, them, QUEEN) and ei.king_attackers[them] > 0:
        # Squares attacked by them and defended at most once, by our king or queen only.
        weak = (ei.attacked[them][ALL_PIECES] & ~ei.attacked2[us]
                & (~ei.attacked[us][ALL_PIECES] | ei.attacked[us][KING] | ei.attacked[us][QUEEN]))
        safe = ~p.by_color[them] & (~ei.attacked[us][ALL_PIECES] | (weak & ei.attacked2[them]))
        rook_lines = rook_attacks(ksq, occ ^ pieces_of(p, us, QUEEN))
        bishop_lines = bishop_attacks(ksq, occ ^ pieces_of(p, us, QUEEN))
        knight_lines = KNIGHT_ATTACKS[ksq]
        danger = (ei.king_attackers[them] * ei.king_attack_weight[them]
                  + KING_ADJACENT_ATTACK * ei.king_adjacent_attacks[them]
                  + KING_WEAK_ZONE * popcount(KING_ZONE_BB[ksq] & weak))
        checks = rook_lines & ei.attacked[them][ROOK]
        unsafe = checks & ~safe
        if checks & safe:
            danger += SAFE_CHECK[ROOK]
        b = (rook_lines | bishop_lines) & ei.attacked[them][QUEEN] & safe & ~ei.attacked[us][QUEEN] & ~(checks & safe)
        if b:
            danger += SAFE_CHECK[QUEEN]
        checks = bishop_lines & ei.attacked[them][BISHOP]
        unsafe |= checks & ~safe
        if checks & safe & ~b:
            danger += SAFE_CHECK[BISHOP]
        checks = knight_lines & ei.attacked[them][KNIGHT]
        unsafe |= checks & ~safe
        if checks & safe:
            danger += SAFE_CHECK[KNIGHT]
        danger += UNSAFE_CHECK * popcount(unsafe)
        if ei.attacked[us][KNIGHT] & ei.attacked[us][KING]:
            danger -= KNIGHT_DEFENDER
        danger -= mg * 7 / 6     # a good shelter makes the attack harder
        if danger > KING_DANGER_MIN:
            mg -= danger * danger / KING_DANGER_MG_DIV
            eg -= danger / KING_DANGER_EG_DIV
    ei.mg[us] += mg
    ei.eg[us] += eg
    trace_add(t, TERM_KING, us, mg, eg)

# ---------------------------------------------------------------------------------------------
# Threats by colour us against the enemy pieces.

cdef inline void evaluate_threats(Position* p, int us, EvalInfo* ei, EvalTrace* t) noexcept nogil:
    cdef int them = us ^ 1, s, pt, mg = 0, eg = 0
    cdef Bitboard nonpawn = p.by_color[them] & ~p.by_type[PAWN] & ~p.by_type[KING]
    cdef Bitboard strongly_protected, defended, weak, b, safe
    strongly_protected = ei.attacked[them][PAWN] | (ei.attacked2[them] & ~ei.attacked2[us])
    defended = nonpawn & strongly_protected
    weak = p.by_color[them] & ~p.by_type[KING] & ~strongly_protected & ei.attacked[us][ALL_PIECES]
    if defended | weak:
        b = (defended | weak) & (ei.attacked[us][KNIGHT] | ei.attacked[us][BISHOP])
        while b:
            s = lsb(b)
            b &= b - 1
            pt = p.board[s] & 7
            mg += THREAT_BY_MINOR_MG[pt]
            eg += THREAT_BY_MINOR_EG[pt]
        b = weak & ei.attacked[us][ROOK]
        while b:
            s = lsb(b)
            b &= b - 1
            pt = p.board[s] & 7
            mg += THREAT_BY_ROOK_MG[pt]
            eg += THREAT_BY_ROOK_EG[pt]
        b = weak & (~ei.attacked[them][ALL_PIECES] | (nonpawn & ei.attacked2[us]))
        if b:
            mg += HANGING_MG * popcount(b)
            eg += HANGING_EG * popcount(b)
    # Pawns that are safe (not attacked, or defended) hitting enemy pieces.
    safe = ~ei.attacked[them][ALL_PIECES] | ei.attacked[us][ALL_PIECES]
    b = pawn_attacks_bb(us, pieces_of(p, us, PAWN) & safe) & nonpawn
    if b:
        mg += THREAT_SAFE_PAWN_MG * popcount(b)
        eg += THREAT_SAFE_PAWN_EG * popcount(b)
    ei.mg[us] += mg
    ei.eg[us] += eg
    trace_add(t, TERM_THREATS, us, mg, eg)

# ---------------------------------------------------------------------------------------------
# Passed pawns of colour us: king distances to the square in front, a free and safe path,
# and the rule of the square against a lone king with pawns.

cdef inline void evaluate_passed(Position* p, int us, Bitboard passed, EvalInfo* ei, EvalTrace* t) noexcept nogil:
    cdef int them = us ^ 1, s, r, w, block, k, mg = 0, eg = 0, v, promo, their_dist, our_dist
    cdef int our_king = ei.king_square[us], their_king = ei.king_square[them]
    cdef int up = 8 if us == WHITE else -8
    cdef Bitboard path, unsafe
    cdef bint pawns_only = not (p.by_color[them] & ~p.by_type[PAWN] & ~p.by_type[KING])
    while passed:
        s = lsb(passed)
        passed &= passed - 1
        r = relative_rank(us, s)
        if r > 2:
            w = 5 * r - 13
            block = s + up
            v = (min(SQUARE_DISTANCE[their_king][block], 5) * PASSED_THEIR_KING
                 - min(SQUARE_DISTANCE[our_king][block], 5) * PASSED_OUR_KING) * w / 9
            eg += v
            if p.board[block] == NO_PIECE:
                path = FORWARD_FILE_BB[us][s]
                unsafe = path & (ei.attacked[them][ALL_PIECES] | p.by_color[them])
                if not unsafe:
                    k = PASSED_FREE
                elif not (unsafe & square_bb(block)):
                    k = PASSED_SAFE_BLOCK
                else:
                    k = PASSED_FREE_BLOCK
                if ei.attacked[us][ALL_PIECES] & square_bb(block):
                    k += PASSED_DEFENDED_BLOCK
                mg += k * w * 16 / 25
                eg += k * w * 11 / 25
        # The rule of the square: a king alone cannot catch this pawn.
        if pawns_only and not (FORWARD_FILE_BB[us][s] & p.by_color[us]):
            promo = relative_square(us, 56 + file_of(s))
            our_dist = 7 - r
            if r == 1:
                our_dist = 5
            their_dist = SQUARE_DISTANCE[their_king][promo] - (1 if p.side == them else 0)
            if our_dist < their_dist:
                eg += UNSTOPPABLE_EG
    ei.mg[us] += mg
    ei.eg[us] += eg
    trace_add(t, TERM_PASSED, us, mg, eg)

# ---------------------------------------------------------------------------------------------
# Endgame scale factor (out of 64) for the side that is ahead in the endgame score: drawish
# material (no pawns and at most a bishop more) and opposite-coloured bishops.

cdef inline int non_pawn_material(Position* p, int c) noexcept nogil:
    return (PIECE_VALUE_MG[KNIGHT] * popcount(pieces_of(p, c, KNIGHT))
            + PIECE_VALUE_MG[BISHOP] * popcount(pieces_of(p, c, BISHOP))
            + PIECE_VALUE_MG[ROOK] * popcount(pieces_of(p, c, ROOK))
            + PIECE_VALUE_MG[QUEEN] * popcount(pieces_of(p, c, QUEEN)))

cdef int scale_factor(Position* p, int eg, PawnEntry* pe) noexcept nogil:
    cdef int strong = WHITE if eg > 0 else BLACK
    cdef int weak = strong ^ 1
    cdef int npm_strong = non_pawn_material(p, strong), npm_weak = non_pawn_material(p, weak)
    cdef int strong_pawns = popcount(pieces_of(p, strong, PAWN))
    cdef Bitboard wb = pieces_of(p, WHITE, BISHOP), bb = pieces_of(p, BLACK, BISHOP)
    cdef int sf
    if strong_pawns == 0 and npm_strong - npm_weak <= PIECE_VALUE_MG[BISHOP]:
        if npm_strong < PIECE_VALUE_MG[ROOK]:
            return 0
        return 4 if npm_weak <= PIECE_VALUE_MG[BISHOP] else 14
    # Opposite-coloured bishops: one bishop each, on squares of different colours.
    if (wb and bb and not (wb & (wb - 1)) and not (bb & (bb - 1))
            and ((wb & DARK_SQUARES_BB) != 0) != ((bb & DARK_SQUARES_BB) != 0)):
        if npm_strong == PIECE_VALUE_MG[BISHOP] and npm_weak == PIECE_VALUE_MG[BISHOP]:
            sf = 16 + 4 * popcount(pe.passed[strong])
        else:
            sf = 22 + 3 * popcount(p.by_color[strong])
        return min(sf, 64)
    return min(64, 36 + 7 * strong_pawns)

# ---------------------------------------------------------------------------------------------
# The evaluation proper.

cdef int evaluate_white(Position* p, EvalTrace* t) noexcept nogil:
    cdef EvalInfo ei
    cdef PawnEntry scratch
    cdef PawnEntry* pe
    cdef int c, them, mg, eg, sf, weak, phase
    cdef Bitboard pawns
    pe = probe_pawns(p, &scratch)
    for c in range(2):
        them = c ^ 1
        pawns = pieces_of(p, c, PAWN)
        ei.king_square[c] = king_square(p, c)
        ei.attacked[c][PAWN] = pawn_attacks_bb(c, pawns)
        ei.attacked[c][KING] = KING_ATTACKS[ei.king_square[c]]
        ei.attacked[c][KNIGHT] = 0
        ei.attacked[c][BISHOP] = 0
        ei.attacked[c][ROOK] = 0
        ei.attacked[c][QUEEN] = 0
        ei.attacked[c][ALL_PIECES] = ei.attacked[c][PAWN] | ei.attacked[c][KING]
        if c == WHITE:
            ei.attacked2[c] = ((pawns & ~FILE_A_BB) << 7) & ((pawns & ~FILE_H_BB) << 9)
        else:
            ei.attacked2[c] = ((pawns & ~FILE_A_BB) >> 9) & ((pawns & ~FILE_H_BB) >> 7)
        ei.attacked2[c] |= ei.attacked[c][PAWN] & ei.attacked[c][KING]
        ei.king_attackers[c] = 0
        ei.king_attack_weight[c] = 0
        ei.king_adjacent_attacks[c] = 0
        ei.mg[c] = pe.mg[c]
        ei.eg[c] = pe.eg[c]
        trace_add(t, TERM_PAWNS, c, pe.mg[c], pe.eg[c])
    ei.mobility_area[WHITE] = ~(p.by_color[WHITE] | ei.attacked[BLACK][PAWN])
    ei.mobility_area[BLACK] = ~(p.by_color[BLACK] | ei.attacked[WHITE][PAWN])
    evaluate_pieces(p, WHITE, &ei, t)
    evaluate_pieces(p, BLACK, &ei, t)
    for c in range(2):
        evaluate_king(p, c, &ei, pe, t)
        evaluate_threats(p, c, &ei, t)
        if pe.passed[c]:
            evaluate_passed(p, c, pe.passed[c], &ei, t)
    mg = p.psq_mg + ei.mg[WHITE] - ei.mg[BLACK]
    eg = p.psq_eg + ei.eg[WHITE] - ei.eg[BLACK]
    # Mop-up against a bare king.
    for c in range(2):
        weak = c ^ 1
        if p.by_color[weak] == pieces_of(p, weak, KING) and non_pawn_material(p, c) >= PIECE_VALUE_MG[ROOK]:
            sf = (MOPUP_CENTER * CENTER_DISTANCE[ei.king_square[weak]]
                  + MOPUP_KINGS * (7 - SQUARE_DISTANCE[ei.king_square[c]][ei.king_square[weak]]))
            eg += sf if c == WHITE else -sf
            trace_add(t, TERM_MOPUP, c, 0, sf)
    sf = scale_factor(p, eg, pe)
    if t != NULL:
        t.scale = sf
    phase = p.phase
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    return (mg * phase + eg * sf / 64 * (PHASE_MAX - phase)) / PHASE_MAX

cdef enum:
    # No static evaluation goes beyond this (search scores beyond it are wins or mates).
    EVAL_LIMIT = 8000

# The static evaluation in centipawns from the side to move's point of view: the network's
# when the position carries one (nnue.pxi), else the classical one.
cdef int evaluate(Position* p) noexcept nogil:
    cdef int score
    if p.nnue != NULL:
        return nnue_evaluate(p)
    if not (p.by_type[PAWN] | p.by_type[ROOK] | p.by_type[QUEEN]) and insufficient_material(p):
        return 0
    score = evaluate_white(p, NULL)
    if p.side == BLACK:
        score = -score
    score += TEMPO
    if score > EVAL_LIMIT:
        return EVAL_LIMIT
    if score < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return score
