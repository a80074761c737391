"""A small pre-norm transformer encoder block, written for perfline's test data.

Input (1, 16, 64): 16 tokens of width 64; 4 heads of width 16. One operation per line, so the
exported stack traces put each operator on its own line. Random weights, fixed seeds.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class EncoderBlock(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4, hidden: int = 256):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.norm1(x)
        qkv = self.qkv(h)
        qkv = qkv.reshape(b, t, 3, self.heads, self.head_dim)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = torch.matmul(q, k.transpose(-2, -1))
        scores = scores / math.sqrt(self.head_dim)
        weights = torch.softmax(scores, dim=-1)
        context = torch.matmul(weights, v)
        context = context.transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(context)
        h = self.norm2(x)
        h = F.gelu(self.fc1(h))
        x = x + self.fc2(h)
        return x


def make_model(seed: int = 0) -> EncoderBlock:
    torch.manual_seed(seed)
    return EncoderBlock().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(1, 16, 64),)
