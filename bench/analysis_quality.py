"""Are the moves `scacco analyse` calls blunders the ones a much deeper search calls blunders?

1. Games: Scacco at UCI_LimitStrength / UCI_Elo --elo (default 900) against full-strength
   Scacco at --strong-nodes per move, colours alternating, from the first positions of the
   shared openings file; written to --games (kept: running again reuses the file, and a
   larger --count appends the games missing, played with the evaluation of today's build:
   use a new file after a change of the default evaluation).
2. Ours: every game analysed at the given budget (default: the analysis default).
3. Reference: every position evaluated by Stockfish at --sf-depth (default 20, one thread),
   or with --reference scacco by Scacco at --factor (default 20) times our nodes (one table
   through the game, as the analysis), or with --reference scacco-fresh the same with each
   position searched on its own (table and histories cleared first); the same lichess rules
   (engine/review/accuracy.py judge) turn the reference evaluations into judgements.  Stockfish's
   centipawns are already on the normalised scale; Scacco's are cached raw and normalised
   (engine.score.normalised_cp, by the position's material) when read.
4. The headline figures, as issue 29 sets them: precision, of the moves we mark `??`, the
   share the reference calls a mistake or a blunder; recall, of the reference's blunders, the
   share we mark `?` or `??`; each side's game accuracy against lichess's formula on the
   reference's evaluations (the mean absolute difference over player-games) and the average
   centipawn loss (ours over the reference's, in total and per player-game).  Also the strict
   figures (blunder against blunder, mistake-or-worse against mistake-or-worse).
5. With --against KIND, a second reference already cached for the games (run with
   --reference KIND first): how far the two references agree with each other (the second's
   blunders against the first's, strictly and in the headline's terms: how well the reference
   repeats itself, about the best an analysis as deep as it can expect; with --reference
   stockfish --against scacco-fresh, what our search at --factor times the budget reaches
   against Stockfish), and our figures on the moves the two judge alike (blunder or
   not), the others left out.

    python bench/analysis_quality.py --games /tmp/scacco-quality.pgn --count 10 --jobs 2
    python bench/analysis_quality.py --games bench/quality/sf-set.pgn --no-play --count 100 \
        --sf-depth 18 --jobs 2           # the set of bench/make_quality_set.py, the primary figure

--jobs N plays, analyses and evaluates N games at a time (the figures do not depend on it).
Progress on stderr; the reference evaluations are cached in --games + ".stockfish-d20.jsonl"
(or ".scacco-NODES-nnue.jsonl", ".scacco-NODES-nnue-fresh.jsonl" for scacco-fresh, "classical"
for "nnue" when the packaged network cannot be used), one line per game, so an interrupted run
resumes.
"""
import argparse
import io
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.review import accuracy as acc  # noqa: E402
from scacco.engine.review.accuracy import Eval  # noqa: E402
from scacco.engine.score import material, normalised_cp  # noqa: E402
from scacco.engine.review.analysis import (DEFAULT_NODES, DEFAULT_REVIEW, Budget, analyse_game,  # noqa: E402
                                           evaluate_position, judge_move, _game_accuracy)
from scacco.engine.batch import Failure, run_local  # noqa: E402
from scacco.engine.board import NULL_MOVE, Board  # noqa: E402
from scacco.engine.levels import play  # noqa: E402
from scacco.engine.pgn import Game, MoveNode, read_games, write_game  # noqa: E402
from scacco.engine.search import Searcher, default_network, score_to_cp_mate  # noqa: E402
from tests.shared import shared_dir  # noqa: E402
from bench import review_knobs  # noqa: E402

MAX_PLIES = 200


def play_one(index: int, fen: str, elo: int, strong_nodes: int):
    """Game number `index` (see play_games) as (PGN text, plies, result)."""
    weak_white = index % 2 == 0
    board = Board(fen)
    weak, strong = Searcher(16), Searcher(16)
    rng = random.Random(index)
    game = Game(headers={"Event": "analysis quality", "Round": str(index + 1),
                         "White": f"Scacco {elo}" if weak_white else "Scacco",
                         "Black": "Scacco" if weak_white else f"Scacco {elo}",
                         "FEN": fen, "SetUp": "1"}, fen=fen)
    while board.outcome(claim_draw=True) is None and board.ply < MAX_PLIES:
        if (board.turn == weak_white):
            move = play(weak, board, limit_strength=True, elo=elo, rng=rng).best_move
        else:
            move = strong.search(board, nodes=strong_nodes).best_move
        game.moves.append(MoveNode(move, board.san(move)))
        board.push_uci(move)
    outcome = board.outcome(claim_draw=True)
    game.result = outcome.result() if outcome else "*"
    game.headers["Result"] = game.result
    text = io.StringIO()
    write_game(game, text)
    return text.getvalue(), len(game.moves), game.result


def play_games(path: Path, count: int, elo: int, strong_nodes: int, jobs: int = 1) -> None:
    """count games from the openings 0, 1, ...: the weak level plays White in the even ones;
    game i's level draws its noise from random.Random(i) and the strong side searches a node
    budget, so the games are the same on every run and whatever the jobs.  Games already in
    the file are kept and the missing ones appended (a file of 10 games grows to 20 with
    --count 20), in order."""
    done = sum(1 for _ in read_games(str(path))) if path.exists() else 0
    with open(shared_dir() / "data" / "chessathome_openings.fen") as openings:
        fens = [line.strip() for line in openings][done:count]
    tasks = [(index, fen, elo, strong_nodes) for index, fen in enumerate(fens, done)]
    with open(path, "a") as handle:
        for (index, *_), played in zip(tasks, run_local(play_one, tasks, jobs)):
            text, plies, result = unwrap(played)
            handle.write(text)
            handle.flush()
            print(f"game {index + 1}/{count}: {plies} plies, {result}", file=sys.stderr, flush=True)


def stockfish_evals(game: Game, depth: int):
    import chess
    import chess.engine

    engine = chess.engine.SimpleEngine.popen_uci("/usr/games/stockfish")
    engine.configure({"Threads": 1, "Hash": 64})
    try:
        board = chess.Board(game.fen)
        out = []
        for index in range(len(game.moves) + 1):
            if board.is_checkmate():
                out.append(({"mate": 0, "winner": not board.turn}, None))
            elif board.is_stalemate() or board.is_insufficient_material():
                out.append(({"cp": 0}, None))
            else:
                info = engine.analyse(board, chess.engine.Limit(depth=depth))
                score = info["score"].white()
                best = info["pv"][0].uci() if info.get("pv") else None
                if score.is_mate():
                    out.append(({"mate": score.mate()}, best))
                else:
                    out.append(({"cp": score.score()}, best))
            if index < len(game.moves):
                board.push_uci(game.moves[index].uci)
        return out
    finally:
        engine.quit()


def scacco_evals(game: Game, nodes: int, fresh: bool = False):
    """Scacco's evaluation of every position at `nodes`, White's view: as the analysis makes
    it (one table through the game), or with `fresh` each position on its own (the table and
    histories cleared before it, so its evaluation depends on the position only); centipawns
    raw (not yet times the scale, see normalised()), so the cache outlives a change of the
    scale."""
    searcher = Searcher(64)
    board = game.board()
    out = []
    for index in range(len(game.moves) + 1):
        if fresh:
            searcher.clear()
        if not board.has_legal_moves():
            evaluation, best = evaluate_position(searcher, board, Budget(nodes=nodes))[:2]
            out.append(({k: v for k, v in evaluation.__dict__.items() if v is not None}, best))
        else:
            result = searcher.search(board, nodes=nodes)
            sign = 1 if board.turn else -1
            score = ({"mate": sign * result.score_mate} if result.score_mate is not None
                     else {"cp_raw": sign * score_to_cp_mate(result.score)[0]})
            out.append((score, result.best_move))
        if index < len(game.moves):
            board.push_move(game.moves[index].uci)
    return out


def normalised(game: Game, evals, network):
    """Evaluations with Scacco's raw centipawns ("cp_raw") put on the analysis' scale (that of
    `network`'s evaluation at each position's material)."""
    out, board = [], game.board()
    for index, (e, best) in enumerate(evals):
        if "cp_raw" in e:
            e = {"cp": normalised_cp(e["cp_raw"], network, material(board))}
        out.append((e, best))
        if index < len(game.moves):
            board.push_move(game.moves[index].uci)
    return out


def reference_sides(game: Game, evals):
    """lichess's game accuracy and average centipawn loss per side, (White, Black), on the
    reference's evaluations; a null move (a pass) is not judged, as in the analysis."""
    board = game.board()
    wins = [acc.eval_win_percent(Eval(**e)) for e, _ in evals]
    passes = {ply for ply, node in enumerate(game.moves) if node.uci == NULL_MOVE}
    accuracy = _game_accuracy(wins, bool(board.turn), passes)
    losses = {True: [], False: []}
    white = bool(board.turn)
    for ply in range(len(game.moves)):
        if ply not in passes:
            losses[white].append(acc.centipawn_loss(Eval(**evals[ply][0]),
                                                    Eval(**evals[ply + 1][0]), white))
        white = not white
    return ((accuracy[0], acc.average_centipawn_loss(losses[True])),
            (accuracy[1], acc.average_centipawn_loss(losses[False])))


def judgements(game: Game, evals):
    """{ply: judgement} from a list of (Eval dict, best move) per position."""
    out = {}
    board = game.board()
    for ply, node in enumerate(game.moves):
        before, best = evals[ply]
        after, _ = evals[ply + 1]
        if node.uci != NULL_MOVE:
            verdict, _ = judge_move(Eval(**before), Eval(**after), bool(board.turn), node.uci, best)
            if verdict:
                out[ply] = verdict
        board.push_move(node.uci)
    return out


def scores(ours, reference, classes, near=None):
    """(agreed, ours, reference) counts of the moves judged in `classes`; with `near`, a
    move counts as agreed when the other side judges it in `near` (a wider set)."""
    mine = {k for k, v in ours.items() if v in classes}
    theirs = {k for k, v in reference.items() if v in classes}
    if near is None:
        return len(mine & theirs), len(mine), len(theirs)
    return (sum(1 for k in mine if reference.get(k) in near),
            sum(1 for k in theirs if ours.get(k) in near))


def disagreement(game: Game, ply: int, analysis, reference_evals, ours, reference) -> str:
    """One line on a move that one side calls a blunder and the other does not."""
    move = analysis.moves[ply]
    weak = game.headers["White" if move.white else "Black"].startswith("Scacco ")
    before, after = Eval(**reference_evals[ply][0]), Eval(**reference_evals[ply + 1][0])
    return (f"  game {game.headers.get('Round')} ply {ply} {move.label().replace('??', '')} "
            f"({'weak' if weak else 'strong'} side): ours {ours.get(ply) or '-'} "
            f"{move.before.short()} -> {move.after.short()} (drop {acc.winning_chance_drop(move.before, move.after, move.white):.2f}), "
            f"reference {reference.get(ply) or '-'} {before.short()} -> {after.short()} "
            f"(drop {acc.winning_chance_drop(before, after, move.white):.2f})")


def unwrap(result):
    """A run_local result, or the error it stands for raised again."""
    if isinstance(result, Failure):
        raise result.error
    return result


def judge_game(number: int, game: Game, args, cached: bool):
    """Our analysis of one game and, unless cached, the reference's evaluations of it."""
    review_knobs.apply(args.look)
    analysis = analyse_game(game, Budget(nodes=args.nodes, review=args.review), number=number)
    evals = None
    if not cached:
        evals = (stockfish_evals(game, args.sf_depth) if args.reference == "stockfish"
                 else scacco_evals(game, args.nodes * args.factor, args.reference == "scacco-fresh"))
    return analysis, evals


def reference_key(kind: str, args, evaluation: str) -> str:
    """The name of a reference's cache (the file's suffix)."""
    if kind == "stockfish":
        return f"stockfish-d{args.sf_depth}"
    return (f"scacco-{args.nodes * args.factor}-{evaluation}"
            + ("-fresh" if kind == "scacco-fresh" else ""))


def load_cache(path: Path) -> dict:
    """{round: evaluations} of a reference cache file (empty if there is none)."""
    cache = {}
    if path.exists():
        for line in open(path):
            record = json.loads(line)
            cache[record["game"]] = record["evals"]
    return cache


def ratio(part: int, whole: int) -> str:
    """part / whole as a percentage, "n/a" when whole is 0 (no blunders to agree on)."""
    return f"{part / whole:.1%}" if whole else "n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", required=True, help="PGN file of the games (made if missing)")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--elo", type=int, default=900)
    parser.add_argument("--strong-nodes", type=int, default=20000)
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES, help="our budget per position")
    parser.add_argument("--review", type=int, default=DEFAULT_REVIEW,
                        help="our second look's factor (1: none; see engine/review/analysis.py)")
    review_knobs.add_option(parser)
    kinds = ["stockfish", "scacco", "scacco-fresh"]
    parser.add_argument("--reference", choices=kinds, default="stockfish")
    parser.add_argument("--against", choices=kinds,
                        help="a second reference, already cached for these games: how far the two "
                             "agree, and our figures on the moves they judge alike")
    parser.add_argument("--sf-depth", type=int, default=20)
    parser.add_argument("--factor", type=int, default=20)
    parser.add_argument("--no-play", action="store_true",
                        help="judge the games of --games as they are (none played)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes (games in parallel; the figures do not depend on it)")
    args = parser.parse_args()
    path = Path(args.games)
    if args.no_play:
        if not path.exists():
            print(f"{path}: no such file (--no-play reads a made set)", file=sys.stderr)
            return 2
    else:
        play_games(path, args.count, args.elo, args.strong_nodes, args.jobs)
    network = default_network()          # what Searcher() evaluates with
    evaluation = "classical" if network is None else "nnue"
    cache_path = Path(str(path) + f".{reference_key(args.reference, args, evaluation)}.jsonl")
    cache = load_cache(cache_path)
    games = list(read_games(str(path)))[:args.count]
    # a game's cache key is its number in the file: Round headers repeat in real exports ("?")
    keys = [str(number) for number in range(1, len(games) + 1)]
    second = None
    if args.against:
        second_path = Path(str(path) + f".{reference_key(args.against, args, evaluation)}.jsonl")
        second = load_cache(second_path)
        missing = [key for key in keys if key not in second]
        if missing:
            print(f"--against {args.against}: {second_path} has no evaluations of games "
                  f"{', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}; run with "
                  f"--reference {args.against} first", file=sys.stderr)
            return 2
    totals = {"blunder": [0, 0, 0], "mistake+": [0, 0, 0]}
    repeat = [0, 0, 0]       # the second reference's blunders against the first's
    repeat_near = [0, 0]     # the same in the headline's terms (a mistake or worse counts)
    ours_second = [0, 0, 0]  # ours against the second reference
    consensus = [0, 0, 0]    # ours against the blunders both references agree on
    positions = reviewed = 0
    near = [0, 0]     # our blunders the reference calls a mistake or worse, and the other way
    lines = []
    player_games = []  # (our accuracy, the reference's, our ACPL, the reference's) per side
    start = time.monotonic()
    tasks = [(number, game, args, key in cache)
             for number, (game, key) in enumerate(zip(games, keys), 1)]
    for (number, game, _, _), key, judged in zip(tasks, keys, run_local(judge_game, tasks, args.jobs)):
        analysis, evals = unwrap(judged)
        ours = {m.ply: m.judgement for m in analysis.moves if m.judgement}
        positions, reviewed = positions + analysis.positions, reviewed + analysis.reviewed
        if key not in cache:
            cache[key] = evals
            with open(cache_path, "a") as handle:
                handle.write(json.dumps({"game": key, "evals": evals}) + "\n")
        reference_evals = normalised(game, cache[key], network)
        for side, (ref_accuracy, ref_acpl) in zip((analysis.white, analysis.black),
                                                 reference_sides(game, reference_evals)):
            if side.accuracy is not None and ref_accuracy is not None:
                player_games.append((side.accuracy, ref_accuracy, side.acpl, ref_acpl))
        reference = judgements(game, reference_evals)
        for name, classes in (("blunder", {acc.BLUNDER}), ("mistake+", {acc.BLUNDER, acc.MISTAKE})):
            counts = scores(ours, reference, classes)
            totals[name] = [t + c for t, c in zip(totals[name], counts)]
        near = [t + c for t, c in zip(near, scores(ours, reference, {acc.BLUNDER},
                                                   near={acc.BLUNDER, acc.MISTAKE}))]
        if second is not None:
            other = judgements(game, normalised(game, second[key], network))
            repeat = [t + c for t, c in zip(repeat, scores(other, reference, {acc.BLUNDER}))]
            repeat_near = [t + c for t, c in zip(repeat_near, scores(
                other, reference, {acc.BLUNDER}, near={acc.BLUNDER, acc.MISTAKE}))]
            ours_second = [t + c for t, c in zip(ours_second, scores(ours, other, {acc.BLUNDER}))]
            # the moves the two references judge alike (blunder or not); the others are left out
            alike = {ply for ply in range(len(game.moves))
                     if (reference.get(ply) == acc.BLUNDER) == (other.get(ply) == acc.BLUNDER)}
            counts = scores({k: v for k, v in ours.items() if k in alike},
                            {k: v for k, v in reference.items() if k in alike}, {acc.BLUNDER})
            consensus = [t + c for t, c in zip(consensus, counts)]
        missed = sorted(k for k, v in reference.items() if v == acc.BLUNDER and ours.get(k) != acc.BLUNDER)
        extra = sorted(k for k, v in ours.items() if v == acc.BLUNDER and reference.get(k) != acc.BLUNDER)
        print(f"game {number}/{len(games)}: {len(game.moves)} plies, blunders ours "
              f"{sum(1 for v in ours.values() if v == acc.BLUNDER)}, reference "
              f"{sum(1 for v in reference.values() if v == acc.BLUNDER)}, missed plies {missed}, "
              f"extra plies {extra} ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)
        lines += [disagreement(game, ply, analysis, reference_evals, ours, reference)
                  for ply in sorted(set(missed) | set(extra))]
    names = {"stockfish": f"Stockfish depth {args.sf_depth}", "scacco": f"Scacco {args.factor}x nodes",
             "scacco-fresh": f"Scacco {args.factor}x nodes, each position on a cleared table"}
    print(f"{len(games)} games, ours {Budget(nodes=args.nodes, review=args.review).describe()}, "
          f"reference {names[args.reference]}; {positions} positions, {reviewed} looked at again"
          + (f"; {dict(args.look)}" if args.look else ""))
    for name, (both, mine, theirs) in totals.items():
        print(f"{name:9} ours {mine:3}  reference {theirs:3}  agreed {both:3}  "
              f"precision {ratio(both, mine)}  recall {ratio(both, theirs)}")
    mine, theirs = totals["blunder"][1:]
    print(f"precision: our blunders the reference calls a mistake or worse: {near[0]}/{mine} "
          f"{ratio(near[0], mine)} (target >= 90%)")
    print(f"recall: the reference's blunders we call a mistake or worse: {near[1]}/{theirs} "
          f"{ratio(near[1], theirs)} (target >= 90%)")
    if player_games:
        gap = sum(abs(a - b) for a, b, *_ in player_games) / len(player_games)
        bias = sum(a - b for a, b, *_ in player_games) / len(player_games)
        ours_cpl = sum(c for *_, c, _ in player_games)
        ref_cpl = sum(d for *_, d in player_games)
        relative = [abs(c - d) / d for *_, c, d in player_games if d]
        print(f"game accuracy on {len(player_games)} player-games: mean |ours - reference| "
              f"{gap:.2f} points (target <= 2.5), mean ours - reference {bias:+.2f}")
        print(f"ACPL: ours {ours_cpl / len(player_games):.1f}, reference "
              f"{ref_cpl / len(player_games):.1f} per player-game (ratio "
              f"{ours_cpl / ref_cpl if ref_cpl else float('nan'):.3f}, target within 0.85..1.15); "
              f"mean per player-game relative gap "
              f"{sum(relative) / len(relative) if relative else float('nan'):.1%}")
    if second is not None:
        both, mine, theirs = ours_second
        print(f"against {names[args.against]}: blunders ours {mine}, reference {theirs}, agreed "
              f"{both}  precision {ratio(both, mine)}  recall {ratio(both, theirs)}")
        both, mine, theirs = repeat
        print(f"the reference against itself: {names[args.against]} calls {mine} moves blunders, "
              f"{both} of the reference's {theirs} (precision {ratio(both, mine)}, recall "
              f"{ratio(both, theirs)})")
        print(f"  in the headline's terms: precision {repeat_near[0]}/{mine} "
              f"{ratio(repeat_near[0], mine)}, recall {repeat_near[1]}/{theirs} "
              f"{ratio(repeat_near[1], theirs)}")
        both, mine, theirs = consensus
        print(f"on the moves both references judge alike: ours {mine}, reference {theirs}, agreed "
              f"{both}  precision {ratio(both, mine)}  recall {ratio(both, theirs)}")
    print("blunders judged differently (evaluations White's view, drops in the mover's winning chances):")
    print("\n".join(lines) if lines else "  none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
