import torch
import torch.nn as nn


class Mixer(nn.Module):
    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        y = self.norm(x)
        y = torch.nn.functional.gelu(self.up(y))
        return x + self.down(y)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv1d(8, 32, kernel_size=3, padding=1)
        self.blocks = nn.Sequential(Mixer(), Mixer(), Mixer())
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        x = self.stem(x).transpose(1, 2)
        x = self.blocks(x)
        x = x.mean(dim=1)
        return self.head(x)
