"""``perfline.torch``: ``profile`` (``with perfline.torch.profile() as run:``) and ``step``.

Only a name: the code is ``perfline.clients.torch_api`` (see ARCHITECTURE.md "Packaging").
Importing it does not import torch; a capture does.
"""

from perfline.clients.torch_api import Run, profile, step

__all__ = ["Run", "profile", "step"]
