"""The logdirs the documentation's screenshots show: tbnb's demo logdir, seeds for run groups, and
what only torch writes (an hparams sweep, a traced graph, an embedding), as the notebooks do."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tbnb.writer import EventWriter, write_demo_logdir


def write_seeds(root: Path) -> None:
    """Three seeds of two learning rates (the quickstart's run groups)."""
    for lr in (0.1, 0.03):
        for seed in range(3):
            rng = np.random.default_rng(seed)
            with EventWriter(root / f"lr_{lr}" / f"seed_{seed}", start_time=1_700_000_000) as writer:
                for step in range(0, 300, 2):
                    loss = 2.0 * math.exp(-step * lr / 4) + 0.05 + 0.04 * rng.standard_normal()
                    writer.add_scalar("loss/train", loss, step)


def write_sweep(root: Path) -> None:
    """A 2 x 2 sweep of a small MLP with add_hparams (notebooks/hparams_sweep.ipynb)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(0)
    x = torch.linspace(-2, 2, 64).unsqueeze(1)
    y = 3 * x ** 2 - x + 0.1 * torch.randn_like(x)
    for lr in (0.1, 0.01):
        for hidden in (8, 32):
            torch.manual_seed(1)
            model = torch.nn.Sequential(torch.nn.Linear(1, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))
            opt = torch.optim.Adam(model.parameters(), lr=lr)
            with SummaryWriter(str(root / f"lr_{lr}_hidden_{hidden}")) as writer:
                for step in range(100):
                    opt.zero_grad()
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    opt.step()
                    writer.add_scalar("train/loss", loss.item(), step)
                writer.add_hparams({"lr": lr, "hidden": hidden}, {"hparam/final_loss": loss.item()})


def write_graph(root: Path) -> None:
    """A small CNN of four residual blocks traced by add_graph (notebooks/graphs.ipynb)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = torch.nn.Conv2d(8, 8, 3, padding=1)
            self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.layers = torch.nn.Sequential(*[Block() for _ in range(4)])
            self.head = torch.nn.Linear(8, 10)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.layers(torch.relu(self.stem(x)))
            return self.head(x.mean(dim=(2, 3)))

    with SummaryWriter(str(root / "cnn")) as writer:
        writer.add_graph(Net(), torch.zeros(1, 3, 16, 16))


def write_embedding(root: Path) -> None:
    """400 points around four centres with names and kinds (notebooks/projector.ipynb)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    rng = np.random.default_rng(0)
    kinds = ["cat", "dog", "bird", "fish"]
    centres = rng.normal(0, 3, size=(len(kinds), 32))
    rows = [i % len(kinds) for i in range(400)]
    feats = np.stack([centres[k] + rng.normal(size=32) for k in rows]).astype(np.float32)
    meta = [(f"{kinds[k]}{i}", kinds[k]) for i, k in enumerate(rows)]
    with SummaryWriter(str(root / "demo")) as writer:
        writer.add_embedding(torch.from_numpy(feats), metadata=meta, metadata_header=["name", "kind"], tag="feats")


def write_custom_scalars(root: Path) -> None:
    """A layout of a multiline and a margin chart, with its scalars (notebooks/dashboards.ipynb)."""
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(root / "torch")) as writer:
        writer.add_custom_scalars({
            "Losses": {"train and val": ["Multiline", [r"loss/.*"]]},
            "Accuracy": {"mean with its spread": ["Margin", ["acc/mean", "acc/low", "acc/high"]]},
        })
        for step in range(0, 60, 2):
            mean = 0.9 - 0.8 * np.exp(-step / 15)
            writer.add_scalar("loss/train", float(np.exp(-step / 20)), step)
            writer.add_scalar("loss/val", float(np.exp(-step / 25) + 0.05), step)
            writer.add_scalar("acc/mean", float(mean), step)
            writer.add_scalar("acc/low", float(mean - 0.1 * np.exp(-step / 30)), step)
            writer.add_scalar("acc/high", float(mean + 0.1 * np.exp(-step / 30)), step)


def write_mesh(root: Path) -> None:
    """A coloured tetrahedron growing over two steps, in two runs (add_mesh)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    faces = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]], dtype=np.int32)
    colors = np.array([[230, 40, 40], [40, 200, 40], [40, 40, 230], [230, 200, 40]], dtype=np.uint8)
    for k, run in enumerate(("a", "b")):
        with SummaryWriter(str(root / run)) as writer:
            for step in (0, 1):
                writer.add_mesh("tetra", torch.from_numpy(vertices[None] * (1 + step + k)),
                                colors=torch.from_numpy(colors[None]), faces=torch.from_numpy(faces[None]),
                                global_step=step)


def write_all(root: Path) -> None:
    """Every logdir the screenshots use, under ``root``."""
    write_demo_logdir(root / "demo-runs")
    write_seeds(root / "seed-runs")
    write_sweep(root / "sweep-runs")
    write_graph(root / "graph-runs")
    write_embedding(root / "projector-runs")
    write_custom_scalars(root / "custom-runs")
    write_mesh(root / "mesh-runs")
