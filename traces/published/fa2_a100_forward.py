#!/usr/bin/env python3
"""Writes fa2_a100_forward.csv: the FlashAttention-2 forward bars of Dao 2023, Figure 5, as
`tgsim validate` rows (README.md in this folder says how they were read).

The bar labels below are transcribed by hand (TFLOPs/s, as printed); the rest is the paper's
benchmark setting and FLOP convention. Usage: python3 fa2_a100_forward.py > fa2_a100_forward.csv
"""
import csv
import sys

SEQS = [512, 1024, 2048, 4096, 8192, 16384]
# Figure 5 panels: (panel, causal, head_dim, title) -> FlashAttention-2 labels at SEQS.
PANELS = [
    ("5(a)", 0, 64, "Forward, without causal mask, head dim 64", [178, 191, 193, 192, 192, 192]),
    ("5(b)", 0, 128, "Forward, without causal mask, head dim 128", [209, 224, 227, 222, 224, 223]),
    ("5(c)", 1, 64, "Forward, with causal mask, head dim 64", [115, 146, 167, 177, 181, 183]),
    ("5(d)", 1, 128, "Forward, with causal mask, head dim 128", [132, 168, 187, 198, 200, 197]),
]
TOKENS = 16384  # batch x seq (paper, Section 4.1)
HIDDEN = 2048   # heads x head_dim
SOURCE = ("Dao 2023, FlashAttention-2 (arXiv 2307.08691v1, https://arxiv.org/abs/2307.08691v1), Figure 5 "
          "'Attention forward speed on A100 GPU' panel {panel} '{title}', A100 80GB SXM4; transcribed TFLOPs/s "
          "value (bar label; read from the PDF's text layer, page 11, where the figure is vector graphics, and "
          "checked against a 400 dpi render of the page); implementation FlashAttention-2; time_us = FLOPs / "
          "TFLOPs/s with the paper's FLOPs = 4*batch*heads*seq^2*head_dim, /2 if causal; batch*seq = 16k tokens, "
          "heads*head_dim = 2048")


def main():
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["op", "gpu", "dtype", "batch", "heads", "heads_kv", "seq_q", "seq_kv", "head_dim", "causal",
                "kernel", "time_us", "source", "published_tflops", "implementation", "figure_panel", "flops",
                "family"])
    for panel, causal, d, title, labels in PANELS:
        for seq, tflops in zip(SEQS, labels):
            batch, heads = TOKENS // seq, HIDDEN // d
            flops = 4 * batch * heads * seq * seq * d // (2 if causal else 1)
            time_us = flops / (tflops * 1e12) * 1e6
            # The paper does not name the dtype (Tensor Cores "FP16/BF16"); fp16 as for the FA3 rows (the
            # model times fp16 and bf16 alike).
            w.writerow(["attention", "a100", "fp16", batch, heads, heads, seq, seq, d, causal, "",
                        f"{time_us:.3f}", SOURCE.format(panel=panel, title=title), tflops, "FlashAttention-2",
                        panel, flops, "fa2"])


if __name__ == "__main__":
    main()
