"""A small U-Net (encoder, bottleneck, decoder with skip connections), written for perfline's
test data: beside its convolutions, many short lines (pooling, upsampling, concatenation) that
hold a few microseconds each, the lines a CI gate's minimum share of the model is for.

Input (1, 3, 64, 64); random weights, fixed seeds.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class UNet(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.enc1 = nn.Conv2d(3, width, 3, padding=1)
        self.enc2 = nn.Conv2d(width, 2 * width, 3, padding=1)
        self.mid = nn.Conv2d(2 * width, 2 * width, 3, padding=1)
        self.dec2 = nn.Conv2d(4 * width, width, 3, padding=1)
        self.dec1 = nn.Conv2d(2 * width, width, 3, padding=1)
        self.head = nn.Conv2d(width, 2, 1)

    def forward(self, x):
        s1 = F.relu(self.enc1(x))
        p1 = F.max_pool2d(s1, 2)
        s2 = F.relu(self.enc2(p1))
        p2 = F.max_pool2d(s2, 2)
        m = F.relu(self.mid(p2))
        u2 = F.interpolate(m, scale_factor=2.0, mode="nearest")
        c2 = torch.cat([u2, s2], dim=1)
        d2 = F.relu(self.dec2(c2))
        u1 = F.interpolate(d2, scale_factor=2.0, mode="nearest")
        c1 = torch.cat([u1, s1], dim=1)
        d1 = F.relu(self.dec1(c1))
        return self.head(d1)


def make_model(seed: int = 0) -> UNet:
    torch.manual_seed(seed)
    return UNet().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(1, 3, 64, 64),)
