"""A small convolutional classifier run for inference: the torch.profiler test model of
perfline's "CNN" fixtures."""

import torch
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(32 * 8 * 8, classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.bn1(self.conv1(images))))
        x = self.pool(torch.relu(self.bn2(self.conv2(x))))
        x = torch.flatten(x, 1)
        return self.head(x)


def main(iterations: int = 8) -> None:
    torch.manual_seed(0)
    model = SmallCNN().eval()
    images = torch.randn(4, 3, 32, 32)
    with torch.no_grad():
        for _ in range(iterations):
            logits = model(images)
    print(f"cnn: logits {tuple(logits.shape)}")


if __name__ == "__main__":
    main()
