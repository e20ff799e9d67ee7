"""The cases of attention_capture.py (no torch needed to import): the sweep, --quick, the held-out
probe set and the one-Q-tile diagnosis set (make_cases), their FLOPs and bytes, and which cases
are checked against the math backend (wants_check)."""

TOKENS = 16384
HIDDEN = 2048
MEM_LIMIT_BYTES = 40 << 30
BACKENDS = ["flash", "cudnn"]


def make_cases(quick=False, probe=False, tile=False):
    """Returns a list of dicts: set, backend, dtype, batch, heads, heads_kv, seq_q,
    seq_kv, head_dim, causal. probe: the held-out set; tile: the one-Q-tile diagnosis set
    (see --cases)."""
    cases = []

    def add(cset, dtype, b, h, hkv, sq, skv, d, causal, backends=BACKENDS):
        for be in backends:
            cases.append(dict(set=cset, backend=be, dtype=dtype, batch=b, heads=h,
                              heads_kv=hkv, seq_q=sq, seq_kv=skv, head_dim=d,
                              causal=causal))

    if tile:
        # One Q tile per (batch, head) (seq_q = the kernels' block_m: 128, or 64 at d=256), n KV
        # blocks per CTA, on 132 CTAs (4 heads x 33: one wave, one CTA per SM), 264 (one wave, two
        # per SM) and 2112 (eight waves of two per SM): time = waves x (F + n c) separates a
        # tile's fixed cost F from a block's cost c, alone on an SM or beside a neighbour.
        for b in (33, 66, 528):
            for skv in (64, 128, 256, 512, 1024, 2048):
                for causal in (0, 1):
                    add("tile", "bf16", b, 4, 4, 128, skv, 128, causal)
                add("tile", "bf16", b, 4, 4, 64, skv, 256, 0, backends=["flash"])
                if skv >= 128:
                    for causal in (0, 1):
                        add("tile", "bf16", b, 4, 4, 128, skv, 64, causal, backends=["flash"])
        return cases
    if probe:
        # short kernels at a fixed per-CTA work (seq 512) with 1/16 ... 4x the CTAs of the sweep
        for b in (2, 8, 64):
            for causal in (0, 1):
                add("probe", "bf16", b, 16, 16, 512, 512, 128, causal)
                add("probe", "bf16", b, 32, 32, 512, 512, 64, causal)
        # sequence lengths that are not multiples of the tiles (ragged last blocks)
        for s, b in ((1000, 8), (3000, 2), (768, 16)):
            for causal in (0, 1):
                add("probe", "bf16", b, 16, 16, s, s, 128, causal)
        add("probe", "bf16", 4, 32, 32, 1500, 1500, 64, 1)
        add("probe", "bf16", 2, 8, 8, 2500, 2500, 256, 0)
        # GQA prefill and decode at shapes the sweep does not have
        add("probe", "bf16", 2, 32, 8, 1024, 1024, 128, 1)
        add("probe", "bf16", 2, 64, 8, 4096, 4096, 128, 0)
        for b, skv in ((2, 2048), (4, 6000), (16, 2048), (64, 3000)):
            add("probe", "bf16", b, 32, 8, 1, skv, 128, 0)
        return cases
    if quick:
        add("prefill", "bf16", 8, 16, 16, 2048, 2048, 128, 0)
        add("decode", "bf16", 8, 32, 8, 1, 8192, 128, 0)
        add("gqa", "bf16", 1, 32, 8, 2048, 2048, 128, 1)
        return cases
    seqs = [512, 1024, 2048, 4096, 8192, 16384]
    for d in (64, 128, 256):
        for causal in (0, 1):
            for s in seqs:
                add("prefill", "bf16", TOKENS // s, HIDDEN // d, HIDDEN // d, s, s, d, causal)
    for s in seqs:
        add("prefill", "fp16", TOKENS // s, HIDDEN // 128, HIDDEN // 128, s, s, 128, 0)
    for b in (1, 8, 32, 128):
        for skv in (1024, 4096, 8192, 16384, 32768):
            add("decode", "bf16", b, 32, 8, 1, skv, 128, 0)
    for b in (1, 4):
        for s in (2048, 8192):
            for h, hkv in ((32, 8), (64, 8)):
                for causal in (0, 1):
                    add("gqa", "bf16", b, h, hkv, s, s, 128, causal)
    return cases


def flops(c):
    f = 4.0 * c["batch"] * c["heads"] * c["seq_q"] * c["seq_kv"] * c["head_dim"]
    if c["causal"] and c["seq_q"] == c["seq_kv"]:
        f /= 2
    return f


def case_bytes(c, expand=False):
    """Bytes of Q, K, V, O (plus the expanded K/V copies when expand)."""
    e = 2
    q = c["batch"] * c["seq_q"] * c["heads"] * c["head_dim"] * e
    kv = 2 * c["batch"] * c["seq_kv"] * c["heads_kv"] * c["head_dim"] * e
    if expand:
        kv += 2 * c["batch"] * c["seq_kv"] * c["heads"] * c["head_dim"] * e
    return 2 * q + kv


def key_of(c):
    return (c["set"], c["backend"], c["dtype"], c["batch"], c["heads"], c["heads_kv"],
            c["seq_q"], c["seq_kv"], c["head_dim"], c["causal"])


CHECK_KEYS = {  # (set, dtype, seq, head_dim, causal) checked for every backend
    ("prefill", "bf16", 1024, 64, 0), ("prefill", "bf16", 1024, 128, 1),
    ("prefill", "bf16", 2048, 256, 1), ("prefill", "fp16", 1024, 128, 0),
    ("decode", "bf16", 4096, 128, 0), ("gqa", "bf16", 2048, 128, 1),
}


def wants_check(c, quick):
    if quick:
        return True
    if c["set"] == "decode":
        return c["batch"] == 8 and c["seq_kv"] == 4096
    if c["set"] == "gqa":
        return c["batch"] == 1 and c["seq_q"] == 2048 and c["heads"] == 32 and c["causal"] == 1
    return (c["set"], c["dtype"], c["seq_q"], c["head_dim"], c["causal"]) in CHECK_KEYS
