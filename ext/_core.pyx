# The C-level core of Scacco (directives are set in setup.py: bounds checks only in debug builds).
# It is built as one extension so that attack tables, make/unmake and
# move generation inline into the search.  Each concern lives in its own include file:
#
#   types.pxi      C types, enums, the move layout
#   stop.pxi       the clock and the stop state polled by the search
#   bitboard.pxi   attack tables and magic bitboards
#   position.pxi   Position, StateInfo stack, Zobrist keys, make/unmake, draw facts
#   movegen.pxi    legal move generation and perft
#   syzygy.pxi     the Syzygy tablebase reader: WDL and DTZ probes on mapped files, no GIL
#   evaluate.pxi   static evaluation (tapered material, piece-square tables and terms)
#   nnue.pxi       the neural evaluation: integer network, accumulators kept by make/unmake
#   threads.pxi    C threads without the GIL, shared flags, the clock
#   tt.pxi         transposition table
#   search.pxi     alpha-beta search, quiescence, SEE, move ordering
#   mate.pxi       exact mate proofs for puzzles and `go mate`
#   datagen.pxi    self-play games for training data, on a SearchData's search
#
# Everything Python sees (classes, functions, constants) is in the *_api.pxi files, which come
# last, with the C helpers only they use; the files above are C only.
#
#   stop_api.pxi      the per-search stop token (StopToken)
#   nnue_api.pxi      the network (NnueNetwork), checked when made
#   board_api.pxi     CoreBoard (FEN, UCI moves, perft), used by engine.Board
#   evaluate_api.pxi  evaluation helpers (tests, UCI eval, benchmarks)
#   mate_api.pxi      the mate prover (MateSearch)
#   syzygy_api.pxi    the tablebases (SyzygyTables): finding, mapping and checking the files
#   search_api.pxi    SearchCore, driven by engine/search.py
#   datagen_api.pxi   self-play (SelfPlay) and the training record's constants
#
# A C constant that Python needs is exported as its C name with the suffix _PY (a Python name
# cannot be the cdef enum's own); engine/ binds its public name to it once.

include "types.pxi"
include "stop.pxi"
include "bitboard.pxi"
include "position.pxi"
include "movegen.pxi"
include "syzygy.pxi"
include "evaluate.pxi"
include "nnue.pxi"
include "threads.pxi"
include "tt.pxi"
include "search.pxi"
include "mate.pxi"
include "datagen.pxi"
include "stop_api.pxi"
include "nnue_api.pxi"
include "board_api.pxi"
include "evaluate_api.pxi"
include "mate_api.pxi"
include "syzygy_api.pxi"
include "search_api.pxi"
include "datagen_api.pxi"

init_bitboards()
init_zobrist()
init_evaluation()
init_search_tables()
tb_init_tables()
