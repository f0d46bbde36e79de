# Self-play for training data: a whole game in C without the GIL, a soft node budget
# per move, the quiet positions packed into the 36-byte records that engine/training/datagen.py writes
# (the layout is drawn there and in pack_record below).
#
# Each move is an ordinary iterative deepening of the existing search on a SearchCore's own
# SearchData and table, with the routines the driver uses (search.pxi): setup_root_c and
# begin_search_c start it, each iteration is search_iteration_c (one line in an aspiration
# window).  No iteration starts once the move's search has spent its node budget (a soft limit:
# the iteration that crosses it is finished, not thrown away), and DATAGEN_HARD_FACTOR times
# the budget ends any search; the best move of the last completed iteration is played with its
# score.  Before each game the table is emptied and clear_histories_c
# forgets the histories and the pawn cache, so a game depends only on its start position and
# the node budget, never on the games a process played before it: that is what makes an
# interrupted run resumable bit for bit.
#
# A game ends by rule (checkmate, stalemate, insufficient material, the fifty-move rule,
# threefold repetition: the same facts the search uses, checked before each move) or by
# adjudication:
#   win   the searches of both sides put white at +ADJ_WIN_SCORE cp or more (or at -ADJ_WIN_SCORE
#         or less) for ADJ_WIN_PLIES plies in a row (mate scores count as large);
#   draw  after ADJ_DRAW_START self-play plies, ADJ_DRAW_PLIES plies in a row scored within
#         +-ADJ_DRAW_SCORE cp;
#   draw  when MAX_GAME_PLIES self-play plies have been played.
#
# A position is recorded when the side to move is not in check, the move chosen is neither a
# capture (en passant included) nor a promotion, and the score is not a mate score: the score
# of a quiet position is what a static evaluation should learn, a tactical one is not.

cdef enum:
    RECORD_BYTES = 36
    MAX_GAME_PLIES = 400
    ADJ_WIN_SCORE = 1000
    ADJ_WIN_PLIES = 6
    ADJ_DRAW_SCORE = 10
    ADJ_DRAW_PLIES = 12
    ADJ_DRAW_START = 60
    DATAGEN_MAX_DEPTH = 100
    # The hard node limit of a move's search, in units of its soft budget.
    DATAGEN_HARD_FACTOR = 8

# Record flags (byte 27).
cdef enum:
    RECORD_BLACK_TO_MOVE = 1
    RECORD_LAST_OF_GAME = 2
    RECORD_CHESS960 = 4

# How a game ended.
cdef enum:
    END_CHECKMATE = 0
    END_STALEMATE = 1
    END_INSUFFICIENT_MATERIAL = 2
    END_FIFTY_MOVES = 3
    END_THREEFOLD_REPETITION = 4
    END_ADJUDICATED_WIN = 5
    END_ADJUDICATED_DRAW = 6
    END_MAX_LENGTH = 7

# Little-endian stores, whatever the machine's byte order.
cdef inline void store_u16(uint8_t* at, uint32_t value) noexcept nogil:
    at[0] = value & 0xFF
    at[1] = (value >> 8) & 0xFF

cdef inline void store_u32(uint8_t* at, uint32_t value) noexcept nogil:
    store_u16(at, value & 0xFFFF)
    store_u16(at + 2, value >> 16)

# One record of the position p, side to move's score; the result and the last-of-game flag are
# filled in when the game is over.  Layout (little-endian):
#    0  u64  occupancy, bit i = square i (a1 = 0 ... h8 = 63)
#    8  16 B the pieces in occupancy order (lowest square first), two per byte, the first in
#            the low nibble; a piece is colour * 8 + type (white 1..6, black 9..14)
#   24  i16  score in centipawns, side to move's view
#   26  i8   result, side to move's view: 1 win, 0 draw, -1 loss
#   27  u8   flags: 1 black to move, 2 last record of its game, 4 a Chess960 game
#   28  u8   halfmove clock (capped at 255)
#   29  u8   en-passant square when a legal capture exists there, else 64
#   30  u16  plies from the game's start position (random plies included)
#   32  u32  game index
cdef void pack_record(Position* p, uint8_t* r, int score, int ply, uint32_t game_index,
                      bint chess960) noexcept nogil:
    cdef Bitboard occ = p.by_type[ALL_PIECES], b = occ
    cdef int k, sq, i = 0
    for k in range(8):
        r[k] = (occ >> (8 * k)) & 0xFF
    memset(r + 8, 0, 16)
    while b:
        sq = lsb(b)
        b &= b - 1
        r[8 + (i >> 1)] |= <uint8_t>(p.board[sq] << (4 * (i & 1)))
        i += 1
    store_u16(r + 24, <uint16_t><int16_t>score)
    r[26] = 0
    r[27] = (RECORD_BLACK_TO_MOVE if p.side == BLACK else 0) | (RECORD_CHESS960 if chess960 else 0)
    r[28] = p.st.rule50 if p.st.rule50 < 255 else 255
    r[29] = p.st.ep
    store_u16(r + 30, ply)
    store_u32(r + 32, game_index)

# Iterative deepening until an iteration ends with `budget` nodes or more spent (or the hard
# limit, DATAGEN_HARD_FACTOR times that, cuts one short): the best move of the last completed
# iteration, its score in *score (VALUE_NONE when not even the first iteration completed; the
# move is then the first in the ordering, still legal).  sd.pos must have a legal move.
cdef Move datagen_search(SearchData* sd, uint64_t budget, int* score) noexcept nogil:
    cdef int depth
    cdef Move best
    setup_root_c(sd, NULL, 0)
    begin_search_c(sd, budget * DATAGEN_HARD_FACTOR)
    best = sd.root_moves[0].move
    score[0] = VALUE_NONE
    for depth in range(1, DATAGEN_MAX_DEPTH + 1):
        if search_iteration_c(sd, depth, 1) < 1:
            break
        best = sd.root_moves[0].move
        score[0] = sd.root_moves[0].score
        if sd.nodes >= budget:
            break
    return best

# The fresh state every game starts from: empty table, histories and pawn cache.
cdef void reset_for_game(SearchData* sd) noexcept nogil:
    memset(sd.tt.clusters, 0, sd.tt.cluster_count * sizeof(TTCluster))
    sd.tt.generation = 0
    clear_histories_c(sd)

ctypedef struct GameOutcome:
    int result            # white's view: 1, 0, -1
    int termination       # END_*
    int record_count
    int move_count
    uint64_t nodes

# Play sd.pos out (see the top of the file), writing records to `records` (room for
# MAX_GAME_PLIES) and the moves played to `moves` (as many).  The state stack must have room
# for MAX_GAME_PLIES + MAX_PLY + 8 more moves.
cdef void play_game_c(SearchData* sd, uint64_t node_limit, uint32_t game_index, int start_ply,
                      bint chess960, uint8_t* records, Move* moves, GameOutcome* out) noexcept nogil:
    cdef Position* p = &sd.pos
    cdef Move legal[MAX_MOVES]
    cdef Move best
    cdef int plies = 0, count = 0, win_streak = 0, draw_streak = 0, score, white, i
    cdef uint8_t* r
    out.nodes = 0
    out.result = 0
    reset_for_game(sd)
    while True:
        # Step 1. The end of the game by rule, checked in the position to be moved from
        if generate_moves(p, GEN_ALL, legal) == 0:
            if p.st.checkers:
                out.termination = END_CHECKMATE
                out.result = -1 if p.side == WHITE else 1
            else:
                out.termination = END_STALEMATE
            break
        if insufficient_material(p):
            out.termination = END_INSUFFICIENT_MATERIAL
            break
        if p.st.rule50 >= 100:
            out.termination = END_FIFTY_MOVES
            break
        if repetition_count(p, 2) >= 2:
            out.termination = END_THREEFOLD_REPETITION
            break
        if plies >= MAX_GAME_PLIES:
            out.termination = END_MAX_LENGTH
            break

        # Step 2. Search, and record the position if it is quiet
        best = datagen_search(sd, node_limit, &score)
        out.nodes += sd.nodes
        if (score != VALUE_NONE and p.st.checkers == 0 and not is_noisy(p, best)
                and VALUE_MATED_IN_MAX_PLY < score < VALUE_MATE_IN_MAX_PLY):
            pack_record(p, records + count * RECORD_BYTES, score, start_ply + plies, game_index,
                        chess960)
            count += 1

        # Step 3. Adjudication on the score, white's view
        if score == VALUE_NONE:
            win_streak = 0
            draw_streak = 0
        else:
            white = score if p.side == WHITE else -score
            if white >= ADJ_WIN_SCORE:
                win_streak = win_streak + 1 if win_streak > 0 else 1
            elif white <= -ADJ_WIN_SCORE:
                win_streak = win_streak - 1 if win_streak < 0 else -1
            else:
                win_streak = 0
            draw_streak = draw_streak + 1 if -ADJ_DRAW_SCORE <= white <= ADJ_DRAW_SCORE else 0
        if win_streak >= ADJ_WIN_PLIES or win_streak <= -ADJ_WIN_PLIES:
            out.termination = END_ADJUDICATED_WIN
            out.result = 1 if win_streak > 0 else -1
            break
        if plies >= ADJ_DRAW_START and draw_streak >= ADJ_DRAW_PLIES:
            out.termination = END_ADJUDICATED_DRAW
            break

        # Step 4. Play the move
        moves[plies] = best
        make_move(p, best)
        plies += 1

    # Step 5. The result, side to move's view, into every record; mark the last one
    for i in range(count):
        r = records + i * RECORD_BYTES
        r[26] = <uint8_t><int8_t>(-out.result if r[27] & RECORD_BLACK_TO_MOVE else out.result)
    if count > 0:
        records[(count - 1) * RECORD_BYTES + 27] |= RECORD_LAST_OF_GAME
    out.record_count = count
    out.move_count = plies
