"""A training loop (forward, cross-entropy loss, backward, AdamW step) of a small MLP
classifier: the torch.profiler test model of perfline's "training step" fixtures."""

import torch
from torch import nn
from torch.nn import functional


class Classifier(nn.Module):
    def __init__(self, features: int = 128, hidden: int = 256, classes: int = 10) -> None:
        super().__init__()
        self.hidden = nn.Linear(features, hidden)
        self.dropout = nn.Dropout(0.1)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = functional.relu(self.hidden(x))
        return self.out(self.dropout(h))


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    optimizer.zero_grad(set_to_none=True)
    logits = model(x)
    loss = functional.cross_entropy(logits, y)
    loss.backward()
    optimizer.step()
    return loss


def main(iterations: int = 8) -> None:
    torch.manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(64, 128)
    y = torch.randint(0, 10, (64,))
    for _ in range(iterations):
        loss = train_step(model, optimizer, x, y)
    print(f"train step: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
