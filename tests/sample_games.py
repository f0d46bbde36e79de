"""Short PGN games that several test files analyse."""

SCHOLAR = """[Event "scholar"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0
"""

# A quiet queen's gambit: no mates, so every evaluation is in centipawns.
SHORT = """[Event "short"]
[White "C"]
[Black "D"]
[Result "*"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 Ne4 6. Bxe7 Qxe7 7. Nxe4 dxe4 8. Qa4+ *
"""
