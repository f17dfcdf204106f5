"""``samples_per_plugin``: how many items of each non-scalar series the reader keeps.

TensorBoard's defaults (images 10, audio 10, histograms 500, pr_curves 100, every other plugin
10) and its flag syntax ``"images=all,audio=20"``. As in TensorBoard, ``0`` and ``"all"`` both
mean keep everything. Scalars are never sampled: tbnb keeps every point.

``"*"`` names every plugin the caller did not name, TensorBoard's defaults for images, audio,
histograms and PR curves included: ``{"*": "all"}`` keeps everything, ``{"*": "all", "images":
5}`` keeps everything but five images per tag.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULTS: dict[str, int | None] = {
    "images": 10,
    "audio": 10,
    "histograms": 500,
    "pr_curves": 100,
    "*": 10,
}



def _count(plugin: str, raw: int | str) -> int | None:
    text = str(raw).strip().lower()
    if text == "all":
        return None
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"samples_per_plugin: {plugin}={raw!r} is not a count or 'all'") from None
    if n < 0:
        raise ValueError(f"samples_per_plugin: {plugin}={n} is negative")
    return None if n == 0 else n


def parse_samples_per_plugin(spec: str | Mapping[str, int | str] | None) -> dict[str, int | None]:
    """Capacities per plugin (None: unbounded), with ``"*"`` the default for unlisted plugins."""
    caps = dict(DEFAULTS)
    if spec is None:
        return caps
    if isinstance(spec, str):
        pairs: dict[str, int | str] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            name, sep, value = part.partition("=")
            if not sep or not name.strip():
                raise ValueError(f"samples_per_plugin: {part!r} is not of the form plugin=count")
            pairs[name.strip()] = value
        spec = pairs
    if "*" in spec:  # the caller's default replaces TensorBoard's for every plugin not named
        caps = {"*": caps["*"]}
    for plugin, raw in spec.items():
        if plugin == "scalars":
            continue  # every scalar point is kept; accepted so TensorBoard command lines work
        caps[plugin] = _count(plugin, raw)
    return caps
