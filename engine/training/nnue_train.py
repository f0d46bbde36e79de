"""Train the neural evaluation on `scacco datagen` files, with PyTorch.

    scacco train DATA.bin [DATA.bin ...] --out net.nnue --seed 1

(the command line is uci/cli/training.py; train() and export_checkpoint() here are the
work).  PyTorch is a development extra
(`pip install -e '.[train]'`); the engine never needs it.

The network is the one of engine/nnue.py: 768 inputs per perspective -> H (SCReLU) each ->
both halves, side to move's first -> one output y, in units of `scale` centipawns, from one
output layer or (--output-buckets B) from the layer of the position's bucket by piece count
(nnue.bucket_of).  The loss is
the mean squared error between sigmoid(y) and the target

    lambda * sigmoid(score / scale) + (1 - lambda) * (result + 1) / 2

(score and result from the side to move's view).  Every VALIDATION_EVERY-th game (by game
index) is held out for validation; the epoch with the lowest validation loss is the one exported.  AdamW (weight
decay --weight-decay) with a cosine learning rate from --lr down to a tenth of it; --mirror
adds each training position's file-mirrored copy (a <-> h: without castling rights, which the
net does not see, the rules are symmetric).  Output weights are clipped to what quantises to
-128..127; the quantised net's output bias is corrected so that its mean output on CALIBRATION
held-out positions is the float net's (engine/nnue.py, quantise).  With --calibrate-scale the
exported header's scale is fitted on the same positions so that the net's evaluations are in
the units of their search scores (nnue.fit_output_scale: targets blended with the game result
make a net read larger than the search it learnt from, and the next generation's data, scored
by its search, larger again; docs/results/network.md has the ratios); --score-factor DATA=F puts a file scored in other
units (by such an uncalibrated net) on the others' scale.  Everything follows from --seed: the initial
weights and the order of the positions in each epoch, and torch runs single-threaded with its
deterministic algorithms, so the same data and arguments give the same file.

--init NET.nnue.npz starts from the float weights of an earlier run instead of random ones
(the same hidden size): a net can so go on learning from new data in later runs, when the
data of the earlier ones is gone.  Weights of a single output layer may start a bucketed net:
each bucket begins as a copy of that layer.

After every epoch a checkpoint (--checkpoint, default OUT.ckpt) holds the model, the optimiser
and the best weights so far; started again with the same arguments the trainer goes on from
the epoch after it.  Writes OUT (the quantised net), OUT.npz (the float weights: w1, b1, w2, b2)
and prints the losses on stderr.
"""
from __future__ import annotations

import math
import os
import sys
import time
from typing import List, Optional, Sequence, Tuple

from .datagen import FLAG_BLACK_TO_MOVE, DatagenError, load_numpy
from ..nnue import (INPUTS, OUTPUT_WEIGHT_LIMIT, SCALE, bucket_of, fit_output_scale, quantise,
                    write_network)

PAD = INPUTS                   # the feature index of an empty slot (a zero row)
SLOTS = 32                     # at most 32 pieces on a board
VALIDATION_EVERY = 20          # games whose index is a multiple of this: validation
# Positions whose search score is beyond this (mates, won endgames) teach the sigmoid nothing.
MAX_SCORE = 3000
CALIBRATION = 50_000           # held-out positions that the quantised output bias is fitted on


def decode_features(records) -> Tuple["object", "object"]:
    """Active inputs of each record: (us, them), int16 arrays [N, 32] padded with PAD, the
    side to move's perspective in `us`."""
    import numpy as np

    n = len(records)
    us = np.full((n, SLOTS), PAD, dtype=np.int16)
    them = np.full((n, SLOTS), PAD, dtype=np.int16)
    chunk = 100_000
    shifts = np.arange(64, dtype=np.uint64)
    for start in range(0, n, chunk):
        part = records[start:start + chunk]
        bits = ((part["occupancy"][:, None] >> shifts) & np.uint64(1)).astype(bool)
        nibbles = np.empty((len(part), 32), dtype=np.uint8)
        nibbles[:, 0::2] = part["pieces"] & 15
        nibbles[:, 1::2] = part["pieces"] >> 4
        rank = np.cumsum(bits, axis=1) - 1
        rows, squares = np.nonzero(bits)
        slots = rank[rows, squares]
        piece = nibbles[rows, slots].astype(np.int32)
        colour, kind = piece >> 3, (piece & 7) - 1
        white = ((colour * 6 + kind) << 6) + squares
        black = (((colour ^ 1) * 6 + kind) << 6) + (squares ^ 56)
        black_to_move = (part["flags"][rows] & FLAG_BLACK_TO_MOVE) != 0
        us[start + rows, slots] = np.where(black_to_move, black, white)
        them[start + rows, slots] = np.where(black_to_move, white, black)
    return us, them


def load(paths: Sequence[str], stream=sys.stderr, score_factors: Optional[dict] = None):
    """(us, them, score, result, validation mask) of every usable record of the files; the
    scores of a file named in score_factors (path -> factor) are multiplied by its factor
    (files scored by searches in other units) before the MAX_SCORE cut."""
    import numpy as np

    score_factors = score_factors or {}
    unknown = set(score_factors) - set(paths)
    if unknown:
        raise DatagenError(f"a score factor names a file that is not among the data: "
                           f"{sorted(unknown)[0]}")
    parts, scores = [], []
    for path in paths:
        records = load_numpy(path)
        factor = score_factors.get(path, 1.0)
        print(f"{path}: {len(records)} positions"
              f"{f', scores times {factor}' if factor != 1.0 else ''}", file=stream)
        parts.append(records)
        scores.append(records["score"].astype(np.float32) * np.float32(factor))
    records = np.concatenate(parts) if parts else np.zeros(0)
    score = np.concatenate(scores) if scores else np.zeros(0, dtype=np.float32)
    keep = np.abs(score) <= MAX_SCORE
    records, score = records[keep], score[keep]
    us, them = decode_features(records)
    validation = (records["game"] % VALIDATION_EVERY) == 0
    return us, them, score, records["result"].astype(np.float32), validation


def _mirrored(features):
    """The same inputs with every square's file mirrored (a <-> h); padding stays padding."""
    import numpy as np

    return np.where(features == PAD, PAD, features ^ 7).astype(features.dtype)


def build_model(hidden: int, buckets: int = 1):
    import torch
    from torch import nn

    class Network(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.EmbeddingBag(INPUTS + 1, hidden, mode="sum", padding_idx=PAD)
            self.feature_bias = nn.Parameter(torch.zeros(hidden))
            self.output = nn.Linear(2 * hidden, buckets)
            with torch.no_grad():
                self.features.weight.normal_(0.0, 0.05)
                self.features.weight[PAD].zero_()
                self.feature_bias.fill_(0.1)
                self.output.weight.uniform_(-0.1, 0.1)
                self.output.bias.zero_()

        def forward(self, us, them):
            a = torch.clamp(self.features(us) + self.feature_bias, 0.0, 1.0) ** 2
            b = torch.clamp(self.features(them) + self.feature_bias, 0.0, 1.0) ** 2
            out = self.output(torch.cat([a, b], dim=1))
            if buckets == 1:
                return out.squeeze(1)
            # the layer of each position's bucket (nnue.bucket_of on its count of pieces)
            bucket = torch.from_numpy(bucket_of((us != PAD).sum(dim=1).numpy(), buckets))
            return out.gather(1, bucket.unsqueeze(1)).squeeze(1)

        def float_weights(self):
            weights = {"w1": self.features.weight[:INPUTS].detach().double().numpy().copy(),
                       "b1": self.feature_bias.detach().double().numpy().copy()}
            if buckets == 1:
                weights["w2"] = self.output.weight[0].detach().double().numpy().copy()
                weights["b2"] = float(self.output.bias.detach()[0])
            else:
                weights["w2"] = self.output.weight.detach().double().numpy().copy()
                weights["b2"] = self.output.bias.detach().double().numpy().copy()
            return weights

    return Network()


def load_float_weights(model, path: str, hidden: int, buckets: int = 1) -> None:
    """Set the model's weights from an OUT.npz the trainer wrote (w1, b1, w2, b2).  Weights
    with a single output layer start every bucket of a bucketed model from that layer (a net
    gains output buckets without learning its features again).
    :raises DatagenError: a file that is not such weights, or of another hidden size or
    number of output buckets (other than one)."""
    import numpy as np
    import torch

    try:
        with np.load(path) as data:
            weights = {key: np.asarray(data[key], dtype=np.float64) for key in ("w1", "b1", "w2", "b2")}
    except (OSError, ValueError, KeyError) as error:
        raise DatagenError(f"{path}: not the float weights of a network ({error})") from None
    shapes = {"w1": (INPUTS, hidden), "b1": (hidden,), "w2": (2 * hidden,), "b2": ()}
    if buckets > 1:
        if weights["w2"].shape == (2 * hidden,) and weights["b2"].shape == ():
            weights["w2"] = np.tile(weights["w2"], (buckets, 1))
            weights["b2"] = np.full(buckets, weights["b2"])
        shapes.update(w2=(buckets, 2 * hidden), b2=(buckets,))
    for key, shape in shapes.items():
        if weights[key].shape != shape:
            raise DatagenError(f"{path}: {key} has shape {weights[key].shape}, a net of "
                               f"{hidden} hidden units and {buckets} output bucket(s) needs "
                               f"{shape}")
        if not np.all(np.isfinite(weights[key])):
            raise DatagenError(f"{path}: {key} holds values that are not finite")
    with torch.no_grad():
        model.features.weight[:INPUTS] = torch.from_numpy(weights["w1"]).float()
        model.features.weight[PAD].zero_()
        model.feature_bias.copy_(torch.from_numpy(weights["b1"]).float())
        model.output.weight.copy_(torch.from_numpy(weights["w2"].reshape(buckets, 2 * hidden)).float())
        model.output.bias.copy_(torch.from_numpy(weights["b2"].reshape(buckets)).float())


def _loss(model, us, them, score, result, lam: float, scale: float):
    import torch

    target = lam * torch.sigmoid(score / scale) + (1.0 - lam) * (result + 1.0) / 2.0
    return torch.mean((torch.sigmoid(model(us, them)) - target) ** 2)


def _evaluate(model, data, lam, scale, batch) -> float:
    import torch

    us, them, score, result = data
    total, count = 0.0, len(score)
    if count == 0:
        return float("nan")
    with torch.no_grad():
        for start in range(0, count, batch):
            end = start + batch
            total += _loss(model, us[start:end].long(), them[start:end].long(), score[start:end],
                           result[start:end], lam, scale).item() * len(score[start:end])
    return total / count


def train(paths: Sequence[str], out: str, *, seed: int = 1, hidden: int = 128, buckets: int = 1,
          epochs: int = 20, batch: int = 16384, lr: float = 1e-3, lam: float = 0.75,
          scale: float = SCALE, checkpoint: Optional[str] = None, threads: int = 1,
          weight_decay: float = 0.0, mirror: bool = False, init: Optional[str] = None,
          calibrate_scale: bool = False, score_factors: Optional[dict] = None,
          stream=sys.stderr) -> dict:
    """Train, export OUT and OUT.npz; returns the losses.  See the module docstring."""
    import numpy as np
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    us, them, score, result, validation = load(paths, stream, score_factors)
    train_idx = np.nonzero(~validation)[0]
    val_idx = np.nonzero(validation)[0]
    if mirror:
        # Each training position once more with the files mirrored (a <-> h): the net sees no
        # castling rights, and without them the rules are symmetric.  Validation stays as is.
        us, them, score, result = (np.concatenate([us, _mirrored(us[train_idx])]),
                                   np.concatenate([them, _mirrored(them[train_idx])]),
                                   np.concatenate([score, score[train_idx]]),
                                   np.concatenate([result, result[train_idx]]))
        train_idx = np.concatenate([train_idx, np.arange(len(validation), len(score))])
    if len(train_idx) == 0:
        raise DatagenError("no training positions in the data")
    print(f"{len(train_idx)} training and {len(val_idx)} validation positions "
          f"(|score| <= {MAX_SCORE}); hidden {hidden}, "
          f"{f'{buckets} output buckets, ' if buckets > 1 else ''}{epochs} epochs of batch {batch}, "
          f"lr {lr}, weight decay {weight_decay}, lambda {lam}, scale {scale}, "
          f"{'mirrored copies, ' if mirror else ''}seed {seed}"
          f"{f', from the weights of {init}' if init else ''}", file=stream)

    def tensors(idx):
        # The inputs stay int16 (a quarter of int64's memory: tens of millions of rows fit);
        # each batch is widened to the int64 that EmbeddingBag takes when it is used.
        return (torch.from_numpy(us[idx]), torch.from_numpy(them[idx]),
                torch.from_numpy(score[idx]), torch.from_numpy(result[idx]))

    train_data, val_data = tensors(train_idx), tensors(val_idx)
    calibration = _calibration(us, them, score, val_idx)
    model = build_model(hidden, buckets)
    if init is not None:
        load_float_weights(model, init, hidden, buckets)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    checkpoint = checkpoint or out + ".ckpt"
    settings = dict(paths=[os.path.abspath(p) for p in paths], positions=len(score), seed=seed,
                    hidden=hidden, epochs=epochs, batch=batch, lr=lr, lam=lam, scale=scale,
                    weight_decay=weight_decay, mirror=mirror,
                    init=None if init is None else os.path.abspath(init))
    if buckets > 1:
        settings["buckets"] = buckets        # absent for one output layer, as older runs have it
    if score_factors:
        settings["score_factors"] = {os.path.abspath(p): f for p, f in score_factors.items()}
    history: List[dict] = []
    best = None
    first_epoch = 0
    if os.path.exists(checkpoint):
        state = torch.load(checkpoint, weights_only=False)
        if state["settings"] != settings:
            raise DatagenError(f"the checkpoint {checkpoint} was made with other settings or "
                               f"data; remove it to start again")
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        history, best, first_epoch = state["history"], state["best"], state["epoch"] + 1
        print(f"resumed from {checkpoint} after epoch {first_epoch}", file=stream)

    count = len(train_idx)
    batches = math.ceil(count / batch)
    for epoch in range(first_epoch, epochs):
        # The order of epoch e depends on (seed, e) only, so a resumed run sees the same one.
        order = torch.from_numpy(np.random.default_rng([seed, epoch]).permutation(count))
        for group in optimiser.param_groups:
            group["lr"] = lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * epoch / max(1, epochs))))
        started, shown, total = time.monotonic(), time.monotonic(), 0.0
        for number in range(batches):
            idx = order[number * batch:(number + 1) * batch]
            loss = _loss(model, train_data[0][idx].long(), train_data[1][idx].long(),
                         train_data[2][idx], train_data[3][idx], lam, scale)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            with torch.no_grad():
                model.output.weight.clamp_(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT)
                model.features.weight[PAD].zero_()
            total += loss.item() * len(idx)
            if time.monotonic() - shown > 10:
                shown = time.monotonic()
                print(f"epoch {epoch + 1}/{epochs}: batch {number + 1}/{batches}, "
                      f"loss {total / min(count, (number + 1) * batch):.6f}", file=stream)
        train_loss = total / count
        val_loss = _evaluate(model, val_data, lam, scale, batch)
        history.append({"epoch": epoch + 1, "train": train_loss, "validation": val_loss})
        improved = best is None or not val_loss >= best["validation"]
        if improved:
            best = {"epoch": epoch + 1, "validation": val_loss, "model": model.state_dict()}
            best["model"] = {k: v.clone() for k, v in best["model"].items()}
        print(f"epoch {epoch + 1}/{epochs}: train loss {train_loss:.6f}, validation loss "
              f"{val_loss:.6f}{' (best)' if improved else ''}, "
              f"{time.monotonic() - started:.0f} s", file=stream)
        torch.save({"settings": settings, "model": model.state_dict(),
                    "optimiser": optimiser.state_dict(), "history": history, "best": best,
                    "epoch": epoch, "calibration": calibration}, checkpoint + ".tmp")
        os.replace(checkpoint + ".tmp", checkpoint)

    _export(model, best, out, calibration, stream, calibrate_scale)
    return {"history": history, "best_epoch": best["epoch"], "positions": len(score),
            "training": len(train_idx), "validation": len(val_idx)}


def _calibration(us, them, score, val_idx):
    """The positions the quantised net's output bias is corrected on (nnue.quantise) and its
    output scale fitted on (--calibrate-scale): (us, them, score) of up to CALIBRATION
    held-out ones, evenly spread; None when there are none."""
    import numpy as np

    if len(val_idx) == 0:
        return None
    sample = val_idx[np.linspace(0, len(val_idx) - 1, min(CALIBRATION, len(val_idx))).astype(np.int64)]
    return us[sample], them[sample], score[sample]


def _export(model, best, out: str, calibration, stream, calibrate_scale: bool = False) -> None:
    import numpy as np

    model.load_state_dict(best["model"])
    weights = model.float_weights()
    scale = SCALE
    if calibrate_scale:
        if calibration is None or len(calibration) < 3:
            raise DatagenError("the output scale is fitted on held-out positions with their "
                               "scores, and there are none")
        scale = fit_output_scale(weights, *calibration)
        print(f"output scale fitted on {len(calibration[2])} held-out positions: {scale} "
              f"cp per unit (the training targets' {SCALE})", file=stream)
    write_network(out, quantise(weights, calibration, scale=scale))
    np.savez(out + ".npz", **weights)
    print(f"wrote {out} (epoch {best['epoch']}, validation loss {best['validation']:.6f}) "
          f"and {out}.npz", file=stream)


def export_checkpoint(checkpoint: str, out: str, paths: Sequence[str] = (),
                      stream=sys.stderr, calibrate_scale: bool = False) -> dict:
    """Write OUT and OUT.npz from the best epoch a checkpoint holds (a run stopped early).  A
    checkpoint of an older trainer holds no calibration positions, or no scores with them:
    they are then taken from the data files `paths` (those it was trained on, with the
    checkpoint's score factors), as training would have taken them."""
    import numpy as np
    import torch

    state = torch.load(checkpoint, weights_only=False)
    if state.get("best") is None:
        raise DatagenError(f"{checkpoint} holds no finished epoch")
    model = build_model(state["settings"]["hidden"], state["settings"].get("buckets", 1))
    for entry in state["history"]:
        print(f"epoch {entry['epoch']}: train loss {entry['train']:.6f}, validation loss "
              f"{entry['validation']:.6f}", file=stream)
    calibration = state.get("calibration")
    if calibration is None or (calibrate_scale and len(calibration) < 3):
        if not paths:
            raise DatagenError(f"{checkpoint} holds no calibration positions with their "
                               f"scores (an older trainer's): name the data files it was "
                               f"trained on")
        saved = state["settings"].get("score_factors", {})      # by absolute path
        factors = {p: saved[os.path.abspath(p)] for p in paths if os.path.abspath(p) in saved}
        us, them, score, _, validation = load(paths, stream, factors)
        calibration = _calibration(us, them, score, np.nonzero(validation)[0])
    _export(model, state["best"], out, calibration, stream, calibrate_scale)
    return state
