"""A model with a custom ``torch.autograd.Function`` (forward and backward written in Python),
trained for a few steps: the torch.profiler test model of perfline's "custom autograd" fixtures."""

import torch
from torch import nn


class ScaledTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, scale: float) -> torch.Tensor:
        y = torch.tanh(x * scale)
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (y,) = ctx.saved_tensors
        slope = (1 - y * y) * ctx.scale
        return grad * slope, None


class Gated(nn.Module):
    def __init__(self, dim: int = 64) -> None:
        super().__init__()
        self.inner = nn.Linear(dim, 2 * dim)
        self.outer = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = ScaledTanh.apply(self.inner(x), 0.5)
        return self.outer(h)


def main(iterations: int = 8) -> None:
    torch.manual_seed(0)
    model = Gated()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 64)
    target = torch.randn(32, 64)
    for _ in range(iterations):
        optimizer.zero_grad()
        loss = (model(x) - target).pow(2).mean()
        loss.backward()
        optimizer.step()
    print(f"custom function: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
