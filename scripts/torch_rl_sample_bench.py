#!/usr/bin/python3
"""Peer for one online RL step's sampling (nn's BenchmarkRLSample): the small preset's shapes
(vocab 2048, d128, 4 layers, 4 heads, FFN 512, learned positions up to 768, untied head, no
pointer head) in PyTorch on the CPU (Debian python3-torch), 8 prompts of 448 tokens prefilled
once, their key/value caches repeated for K = 4 samples, then 128 tokens sampled at temperature
0.7 for all 32 sequences. Prints completion tokens/s, the prefill's time included.
usage: /usr/bin/python3 torch_rl_sample_bench.py [threads] [repetitions]
"""
import sys, time, math, statistics, torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
V, D, H, L, FF, T = 2048, 128, 4, 4, 512, 768
PROMPTS, K, PROMPT_LEN, NEW = 8, 4, 448, 128

class Block(nn.Module):
    def __init__(s):
        super().__init__(); s.ln1 = nn.LayerNorm(D); s.qkv = nn.Linear(D, 3 * D); s.o = nn.Linear(D, D)
        s.ln2 = nn.LayerNorm(D); s.f1 = nn.Linear(D, FF); s.f2 = nn.Linear(FF, D)
    def forward(s, x, cache):
        B, n, _ = x.shape
        q, k, v = s.qkv(s.ln1(x)).view(B, n, 3, H, D // H).permute(2, 0, 3, 1, 4)
        if 'k' in cache: k = torch.cat([cache['k'], k], 2); v = torch.cat([cache['v'], v], 2)
        cache['k'], cache['v'] = k, v
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
        if n > 1:  # the prompt: causal over itself (the cache is empty then)
            att = att.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float('-inf'))
        y = att.softmax(-1) @ v
        x = x + s.o(y.transpose(1, 2).reshape(B, n, D))
        return x + s.f2(F.gelu(s.f1(s.ln2(x))))

class LM(nn.Module):
    def __init__(s):
        super().__init__(); s.emb = nn.Embedding(V, D); s.pos = nn.Embedding(T, D)
        s.blocks = nn.ModuleList([Block() for _ in range(L)]); s.ln = nn.LayerNorm(D); s.head = nn.Linear(D, V)
    def forward(s, idx, caches, start):
        x = s.emb(idx) + s.pos(torch.arange(start, start + idx.shape[1]))
        for b, c in zip(s.blocks, caches): x = b(x, c)
        return s.head(s.ln(x[:, -1]))

torch.manual_seed(1)
m = LM().eval()
prompts = torch.randint(0, V, (PROMPTS, PROMPT_LEN))

def step():
    caches = [dict() for _ in range(L)]
    logits = m(prompts, caches, 0)
    for c in caches:
        c['k'] = c['k'].repeat_interleave(K, 0); c['v'] = c['v'].repeat_interleave(K, 0)
    logits = logits.repeat_interleave(K, 0)
    for pos in range(PROMPT_LEN, PROMPT_LEN + NEW):
        nxt = torch.multinomial((logits / 0.7).softmax(-1), 1)
        logits = m(nxt, caches, pos)

with torch.no_grad():
    step()
    rates = []
    for _ in range(REPS):
        t = time.time(); step(); rates.append(PROMPTS * K * NEW / (time.time() - t))
print(f'torch {torch.__version__} threads={torch.get_num_threads()} RL sampling (8 prompts x K=4, 448+128 tokens, T 0.7): '
      f'median {statistics.median(rates):.0f} completion tok/s over {REPS} ({", ".join(f"{r:.0f}" for r in rates)})')
