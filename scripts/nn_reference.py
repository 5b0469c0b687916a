#!/usr/bin/python3
"""PyTorch reference for package nn (as llm.c checks its C against PyTorch).

Builds the same tiny model as nn (nn/doc.go, nn/model.go, nn/forward.go,
nn/layers.go, nn/copy.go): token embeddings tied to the output head plus a
previous-token embedding (PrevToken), pre-norm blocks of RMSNorm, causal
multi-head attention with rotary positions (halves rotated, base 10000), a
GELU (tanh) feed-forward layer, no biases, and the pointer head (Copy): the
next-token distribution g*softmax(h wte^T) + (1-g)*copy, where copy sums the
pointer attention (q = h wcq, k_j = h_j wck, scaled by 1/sqrt(dc), plus the
continuation bonuses beta1*[x_{j-1}=x_t] and beta2*[x_{j-2..j-1}=x_{t-1..t}])
over the positions holding each token, up to the sequence's copy limit.

Everything is computed in float64 with autograd, so the reference is the
exact mathematics; nn computes in float32 (with a Cephes exp), and
nn/reference_test.go compares the two with tolerances relative to the
magnitudes and the lengths of the reductions.

The weights are not stored: both sides generate them from an integer hash of
the flat parameter index (weight() below and refWeight in the Go test), which
is exact in both languages; the output carries their sum so that a mismatch
shows as a clear failure rather than as wrong gradients.

Run with Debian's PyTorch (apt-get install python3-torch), not the pyenv
python:  /usr/bin/python3 scripts/nn_reference.py
It writes nn/testdata/reference.json (per-token log-probabilities, the loss
and the gradient of every parameter tensor). The Go test needs no Python.
"""

import json
import math
import os
import sys

import torch

torch.set_default_dtype(torch.float64)

# The model: nn.Config{Vocab: 24, Dim: 16, Layers: 2, Heads: 2, Hidden: 32,
# MaxSeq: 32, PrevToken: true, Copy: true, CopyDim: 6}.
CFG = dict(vocab=24, dim=16, layers=2, heads=2, hidden=32, max_seq=32, copy_dim=6)
NORM_EPS = 1e-5
ROPE_BASE = 10000.0

# The batch: a language-modelling sequence scored at every position (Batch.Add
# with from 0, no copy limit) and a prompted one whose completion is scored and
# may copy from its 6-token prompt only (Batch.AddPrompted). Both repeat tokens,
# so the pointer head and its continuation bonuses have something to do.
SEQS = [
    dict(tokens=[1, 5, 7, 2, 9, 5, 7, 3, 1, 5, 7, 2], start=0, copy_limit=0),
    dict(tokens=[4, 6, 11, 6, 4, 20, 6, 11, 6, 4, 23, 4, 6], start=5, copy_limit=6),
]


def tensors(c):
    """The parameter tensors in storage order (nn.Config.Tensors)."""
    d, f, v, dc = c["dim"], c["hidden"], c["vocab"], c["copy_dim"]
    ts = [("wte", v, d)]
    for l in range(c["layers"]):
        p = f"layer{l}."
        ts += [(p + "ln1", 1, d), (p + "wqkv", d, 3 * d), (p + "wo", d, d),
               (p + "ln2", 1, d), (p + "w1", d, f), (p + "w2", f, d)]
    ts += [("lnf", 1, d), ("wprev", v, d), ("wcq", d, dc), ("wck", d, dc),
           ("wgate", 1, d + 1), ("wbeta", 2, d + 1)]
    return ts


def hash_unit(k):
    """A uniform value in [-0.5, 0.5) from the flat index k: an integer hash,
    exact in Python and in Go (uint32 arithmetic)."""
    h = ((k + 1) * 2654435761) & 0xFFFFFFFF
    h ^= h >> 15
    h = (h * 2246822519) & 0xFFFFFFFF
    h ^= h >> 13
    return h / 4294967296.0 - 0.5


def weight(name, k):
    """Parameter k (flat index): norm gains 1 + u/2, everything else u; the
    value is then rounded to float32, as nn stores it."""
    u = hash_unit(k)
    if name.endswith("ln1") or name.endswith("ln2") or name == "lnf":
        return 1 + u / 2
    return u


def rmsnorm(x, w):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + NORM_EPS) * w


def rope(x, pos, heads):
    """Rotates each head of x ([T, heads*dh]) by its position: element j with
    j+dh/2, by the angle pos * base^(-2j/dh)."""
    T, d = x.shape
    dh = d // heads
    half = dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = pos[:, None] * ROPE_BASE ** (-2 * i / dh)  # [T, half]
    c, s = torch.cos(theta), torch.sin(theta)
    xh = x.view(T, heads, dh)
    a, b = xh[..., :half], xh[..., half:]
    out = torch.cat([a * c[:, None] - b * s[:, None], a * s[:, None] + b * c[:, None]], dim=-1)
    return out.reshape(T, d)


def gelu(u):
    return 0.5 * u * (1 + torch.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))


def match_order(toks, t, j):
    """How many continuation bonuses position t gives position j (nn's matchOrder)."""
    if j < 1 or toks[j - 1] != toks[t]:
        return 0
    if j >= 2 and t >= 1 and toks[j - 2] == toks[t - 1]:
        return 2
    return 1


def forward_seq(W, c, seq):
    """Log-probabilities of the scored targets of one sequence."""
    toks = seq["tokens"]
    T, d, H = len(toks), c["dim"], c["heads"]
    dh, dc = d // H, c["copy_dim"]
    idx = torch.tensor(toks)
    x = W["wte"][idx].clone()
    x[1:] = x[1:] + W["wprev"][idx[:-1]]
    pos = torch.arange(T, dtype=torch.float64)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(c["layers"]):
        p = f"layer{l}."
        h1 = rmsnorm(x, W[p + "ln1"][0])
        qkv = h1 @ W[p + "wqkv"]
        q, k, v = rope(qkv[:, :d], pos, H), rope(qkv[:, d:2 * d], pos, H), qkv[:, 2 * d:]
        ys = []
        for h in range(H):
            sl = slice(h * dh, (h + 1) * dh)
            s = (q[:, sl] @ k[:, sl].T) / math.sqrt(dh)
            s = s.masked_fill(~mask, float("-inf"))
            ys.append(torch.softmax(s, dim=-1) @ v[:, sl])
        mid = x + torch.cat(ys, dim=-1) @ W[p + "wo"]
        h2 = rmsnorm(mid, W[p + "ln2"][0])
        x = mid + gelu(h2 @ W[p + "w1"]) @ W[p + "w2"]
    hf = rmsnorm(x, W["lnf"][0])
    kc = hf @ W["wck"]
    out = []
    for t in range(seq["start"], T - 1):
        h, y = hf[t], toks[t + 1]
        pv = torch.softmax(h @ W["wte"].T, dim=-1)[y]
        lim = t + 1
        if 0 < seq["copy_limit"] < t + 1:
            lim = seq["copy_limit"]
        beta1 = W["wbeta"][0, :d] @ h + W["wbeta"][0, d]
        beta2 = W["wbeta"][1, :d] @ h + W["wbeta"][1, d]
        score = (kc[:lim] @ (h @ W["wcq"])) / math.sqrt(dc)
        bonus = []
        for j in range(lim):
            o = match_order(toks, t, j)
            bonus.append(beta1 * (o >= 1) + beta2 * (o == 2))
        alpha = torch.softmax(score + torch.stack(bonus), dim=-1)
        pc = sum(alpha[j] for j in range(lim) if toks[j] == y)
        g = torch.sigmoid(W["wgate"][0, :d] @ h + W["wgate"][0, d])
        out.append(torch.log(g * pv + (1 - g) * pc))
    return out


def main():
    c = CFG
    W, flat, off = {}, [], 0
    for name, r, cols in tensors(c):
        vals = [float(torch.tensor(weight(name, off + i), dtype=torch.float32)) for i in range(r * cols)]
        flat += vals
        W[name] = torch.tensor(vals).view(r, cols).requires_grad_()
        off += r * cols
    logp = []
    for seq in SEQS:
        logp += forward_seq(W, c, seq)
    P = len(logp)
    # A weighted NLL: row i weighs (1 + i%3)/P, so a misplaced or missing
    # row's gradient shows.
    coef = [(1 + i % 3) / P for i in range(P)]
    loss = -sum(w * lp for w, lp in zip(coef, logp))
    loss.backward()
    fmt = lambda v: float(f"{v:.10g}")
    out = {
        "about": "written by scripts/nn_reference.py (PyTorch %s, float64); read by nn/reference_test.go" % torch.__version__,
        "config": c,
        "sequences": SEQS,
        "coef": coef,
        "param_sum": math.fsum(flat),
        "param_abs_sum": math.fsum(abs(v) for v in flat),
        "logp": [fmt(v.item()) for v in logp],
        "loss": loss.item(),
        "grads": {name: [fmt(v) for v in W[name].grad.flatten().tolist()] for name, _, _ in tensors(c)},
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nn", "testdata", "reference.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}: {P} log-probs, loss {loss.item():.6f}, {len(flat)} parameters", file=sys.stderr)


if __name__ == "__main__":
    main()
