"""The chess trainer: puzzles judged move by move (puzzles), their themes (themes), puzzles
found in games (puzzle_finder), the puzzle of the day (daily), hints with their words
(hints, hint_text) and endgame drills from Syzygy tables (drills).  Built on the engine's core
and the review (the finder judges a game's moves as the analysis does)."""
