"""A residual MLP block stack run through ``torch.compile`` (the default inductor backend) and
trained with SGD: the torch.profiler test model of perfline's compiled-graph fixture."""

import torch
from torch import nn
from torch.nn import functional


class Block(nn.Module):
    def __init__(self, dim: int = 128) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.up(self.norm(x))
        return x + self.down(functional.gelu(h))


class Stack(nn.Module):
    def __init__(self, depth: int = 3, dim: int = 128, classes: int = 10) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def main(iterations: int = 8) -> None:
    torch.manual_seed(0)
    model = Stack()
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    x = torch.randn(32, 16, 128)
    y = torch.randint(0, 10, (32 * 16,))
    for _ in range(iterations):
        logits = compiled(x)
        loss = functional.cross_entropy(logits.reshape(-1, 10), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    print(f"compiled: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
