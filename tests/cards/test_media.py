"""Image, audio and text cards: the written bytes as data URLs, text escaped, limits kept."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import numpy as np

import tbnb

from .conftest import AUDIO_RATE, RUNS, image


def data_urls(html: str, tag: str) -> list[tuple[str, bytes]]:
    return [(mime, base64.b64decode(data)) for mime, data in
            re.findall(rf'<{tag}[^>]* src="data:([\w/]+);base64,([A-Za-z0-9+/=]+)"', html)]


def test_images_of_the_last_step_as_data_urls(logdir: Path) -> None:
    from PIL import Image

    card = tbnb.card(logdir, "img")
    urls = data_urls(card.body, "img")
    assert [m for m, _ in urls] == ["image/png"] * len(RUNS)
    for i, (_, data) in enumerate(urls):
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), image(i, 20))
    assert card.info["steps"] == {run: 20 for run in RUNS}
    assert set(card._repr_mimebundle_()) == {"text/plain", "text/html"}


def test_step_picks_another_step(logdir: Path) -> None:
    from PIL import Image

    card = tbnb.card(logdir, "img", step=10)
    _, data = data_urls(card.body, "img")[1]
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), image(1, 10))
    assert "a: no sampled step 11" in tbnb.card(logdir, "img", step=11, runs=["a"]).body


def test_too_large_is_said_not_sent(logdir: Path) -> None:
    card = tbnb.card(logdir, "img", max_blob_bytes=10)
    assert not data_urls(card.body, "img") and "is over max_blob_bytes (10)" in card.body


def test_audio_as_wav_data_urls(logdir: Path) -> None:
    import soundfile

    urls = data_urls(tbnb.card(logdir, "tone").body, "audio")
    assert [m for m, _ in urls] == ["audio/wav"] * len(RUNS)
    samples, rate = soundfile.read(io.BytesIO(urls[0][1]))
    assert rate == AUDIO_RATE and len(samples) == AUDIO_RATE // 10


def test_text_is_escaped_never_markup(logdir: Path) -> None:
    card = tbnb.card(logdir, "notes/text_summary")
    assert "<script>window.__pwned" not in card.body and "<b>bold" not in card.body
    assert "run **b** &lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;window.__pwned=1&lt;/script&gt;" in card.body
    assert card.info["steps"] == {run: 7 for run in RUNS}
