"""The logdirs the documentation's screenshots show: tbnb's demo logdir, seeds for run groups, and
what only torch writes (an hparams sweep, a traced graph, an embedding), as the notebooks do."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from tbnb.writer import EventWriter, write_demo_logdir


def write_seeds(root: Path) -> None:
    """Three seeds of two learning rates (the quickstart's run groups); each seed learns at its own
    pace (0.8, 1 and 1.2 times the rate), so that the group's band is wide enough to see."""
    for lr in (0.1, 0.03):
        for seed in range(3):
            rng = np.random.default_rng(seed)
            pace = lr * (0.8 + 0.2 * seed)
            with EventWriter(root / f"lr_{lr}" / f"seed_{seed}", start_time=1_700_000_000) as writer:
                for step in range(0, 300, 2):
                    loss = 2.0 * math.exp(-step * pace / 4) + 0.05 + 0.04 * rng.standard_normal()
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


def write_segmentation(root: Path, steps: range = range(0, 50, 10)) -> None:
    """A validation sample of tests/segmentation_logs.py's shapes (a disc and a square on noise)
    logged by ``tbnb.log_segmentation``: the prediction is the label shifted by a few pixels that
    shrink with the step, with part of the disc taken for the square early on."""
    import tbnb
    from tests.segmentation_logs import CLASSES, shapes

    images, masks = shapes(np.random.default_rng(3), 1, size=48)
    label = masks[0]
    with EventWriter(root / "unet", start_time=1_700_000_000) as writer:
        for step in steps:
            shift = max(1, 6 - step // 8)
            prediction = np.roll(label, (shift, -shift), axis=(0, 1))
            if step < 30:
                prediction[(prediction == 1) & (np.arange(48)[None, :] < 24)] = 2
            tbnb.log_segmentation(writer, "val/sample", images[0], label, prediction, step, classes=CLASSES,
                                  palette=["#202020", "#e6194b", "#3cb44b"])
            writer.add_scalar("loss/val", 1.0 / (1 + step / 10), step)


def write_diagnostics(root: Path) -> None:
    """Runs whose curves each say one thing: overfitting, a learning rate too high, a range test,
    update ratios out of the band and a healthy run (tests/diagnostics_logs.py, as the UI test)."""
    from tests.diagnostics_logs import write_diagnostics_logdir

    write_diagnostics_logdir(root)


#: The bucket and prefix the remote logdir's picture reads, over S3's API.
S3_LOGDIR = "s3://tbnb-demo/exp"


@contextmanager
def s3_logdir(local: Path) -> Iterator[str]:
    """Serve ``local``'s event files as :data:`S3_LOGDIR` from moto's S3 server on loopback (as
    tests/reader/test_remote_s3.py does); yield its endpoint. Kernels started meanwhile find the
    server's test credentials in their environment, so a cell needs only the endpoint."""
    import boto3
    from moto.server import ThreadedMotoServer

    bucket, prefix = S3_LOGDIR.removeprefix("s3://").split("/", 1)
    credentials = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    saved = {name: os.environ.get(name) for name in credentials}
    os.environ.update(credentials)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per S3 request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        s3 = boto3.client("s3", endpoint_url=endpoint)
        s3.create_bucket(Bucket=bucket)
        for path in sorted(local.rglob("*tfevents*")):
            s3.put_object(Bucket=bucket, Key=f"{prefix}/{path.relative_to(local).as_posix()}", Body=path.read_bytes())
        yield endpoint
    finally:
        server.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def write_all(root: Path) -> None:
    """Every logdir the screenshots use, under ``root``."""
    write_demo_logdir(root / "demo-runs")
    write_seeds(root / "seed-runs")
    write_sweep(root / "sweep-runs")
    write_graph(root / "graph-runs")
    write_embedding(root / "projector-runs")
    write_custom_scalars(root / "custom-runs")
    write_mesh(root / "mesh-runs")
    write_segmentation(root / "segmentation-runs")
    write_diagnostics(root / "diagnostics-runs")
