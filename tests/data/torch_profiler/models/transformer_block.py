"""A pre-norm transformer block (attention written out with tensor operators), run for
inference: the torch.profiler test model of perfline's "transformer block" fixtures."""

import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, dim = x.shape
        head = dim // self.heads
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(batch, tokens, self.heads, head).transpose(1, 2)
        k = k.view(batch, tokens, self.heads, head).transpose(1, 2)
        v = v.view(batch, tokens, self.heads, head).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(head)
        weights = scores.softmax(dim=-1)
        mixed = (weights @ v).transpose(1, 2).reshape(batch, tokens, dim)
        return self.proj(mixed)


class Block(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


def main(iterations: int = 8) -> None:
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(2, 32, 64)
    with torch.no_grad():
        for _ in range(iterations):
            y = model(x)
    print(f"transformer block: output {tuple(y.shape)}")


if __name__ == "__main__":
    main()
