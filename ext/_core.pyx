# The C-level core of Scacco (directives are set in setup.py: bounds checks only in debug builds).
# It is built as one extension so that attack tables, make/unmake and
# move generation inline into the search.  Each concern lives in its own include file:
#
#   types.pxi      C types, enums, the move layout
#   stop.pxi       the clock and the per-search stop token (StopToken)
#   bitboard.pxi   attack tables and magic bitboards
#   position.pxi   Position, StateInfo stack, Zobrist keys, make/unmake, draw facts
#   movegen.pxi    legal move generation and perft
#   evaluate.pxi   static evaluation (tapered material, piece-square tables and terms)
#   nnue.pxi       the neural evaluation: integer network, accumulators kept by make/unmake
#   threads.pxi    C threads without the GIL, shared flags, the clock
#   tt.pxi         transposition table
#   search.pxi     alpha-beta search, quiescence, SEE, move ordering
#   mate.pxi       exact mate proofs for puzzles and `go mate`
#   nnue_api.pxi   the Python-facing network (NnueNetwork), checked when made
#   board_api.pxi  the Python-facing CoreBoard (FEN, UCI moves) used by engine.Board
#   evaluate_api.pxi  Python-facing evaluation helpers (tests, UCI eval, benchmarks)
#   search_api.pxi the Python-facing SearchCore driven by engine/search.py
#   datagen.pxi    self-play games for training data (SelfPlay), on a SearchCore's search

include "types.pxi"
include "stop.pxi"
include "bitboard.pxi"
include "position.pxi"
include "movegen.pxi"
include "evaluate.pxi"
include "nnue.pxi"
include "threads.pxi"
include "tt.pxi"
include "search.pxi"
include "mate.pxi"
include "nnue_api.pxi"
include "board_api.pxi"
include "evaluate_api.pxi"
include "search_api.pxi"
include "datagen.pxi"

init_bitboards()
init_zobrist()
init_evaluation()
init_search_tables()
