"""The review of finished games: lichess's judging formulas (accuracy), the analysis of every
move (analysis) and its Win% graph (graph).  Built on the engine's core (board, pgn, search,
score), never the other way round."""
