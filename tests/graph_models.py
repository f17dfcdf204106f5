"""The torch model the graph explorer's kernel and browser tests trace with ``add_graph``: a
stem, six alike blocks (scopes ``Net/Sequential[layers]/Block[k]``), a head. torch is imported
when the model is asked for, so that importing this module needs no torch."""

from __future__ import annotations

from typing import Any


def cnn_with_blocks() -> tuple[Any, Any]:
    """(the model, an input to trace it with)."""
    import torch

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = torch.nn.Conv2d(4, 4, 3, padding=1)
            self.conv2 = torch.nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x: Any) -> Any:
            return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))

    class Net(torch.nn.Module):
        """A small CNN: a stem, six alike blocks, a head."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.layers = torch.nn.Sequential(*[Block() for _ in range(6)])
            self.head = torch.nn.Linear(4 * 5 * 5, 2)

        def forward(self, x: Any) -> Any:
            return self.head(torch.flatten(self.layers(self.stem(x)), 1))

    return Net(), torch.zeros(1, 3, 5, 5)
