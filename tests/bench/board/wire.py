"""What crossed the kernel websocket, as the browser saw it (Playwright's ``page.on("websocket")``).

JupyterLab 4 talks to jupyter_server with the ``v1.kernel.websocket.jupyter.org`` protocol: every
frame is binary, ``n`` (uint64 LE), ``n`` offsets (uint64 LE), then channel, header, parent header,
metadata, content and the message's binary buffers. Frames in the legacy protocol (JSON text, or
binary without the offset table) are counted by size only.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Frame:
    t: float  # time.perf_counter() in this process when Playwright reported it
    direction: str  # "recv" (kernel -> page) or "send"
    size: int  # bytes of the websocket frame
    msg_type: str | None = None
    custom: str | None = None  # "type" of a Board message (comm_msg with method "custom")
    buffer_bytes: int = 0
    points: int | None = None  # points sent in a "series" reply


def _u64(b: bytes, i: int) -> int:
    return int.from_bytes(b[8 * i : 8 * i + 8], "little")


def parse_v1(payload: bytes) -> tuple[dict[str, Any], dict[str, Any], int] | None:
    """(header, content, buffer bytes) of a v1 frame, or None if ``payload`` is not one."""
    if len(payload) < 16:
        return None
    n = _u64(payload, 0)
    if not 6 <= n <= 4096 or 8 * (n + 1) > len(payload):
        return None
    offsets = [_u64(payload, i + 1) for i in range(n)]
    if offsets[0] != 8 * (n + 1) or offsets[-1] > len(payload) or offsets != sorted(offsets):
        return None
    parts = [payload[offsets[i] : offsets[i + 1]] for i in range(1, n - 1)]
    try:
        header = json.loads(parts[0])
        content = json.loads(parts[3])
    except (ValueError, UnicodeDecodeError):
        return None
    return header, content, sum(len(p) for p in parts[4:])


@dataclass
class WireLog:
    """Frames of the kernel websockets of one page."""

    frames: list[Frame] = field(default_factory=list)

    def attach(self, ws: Any) -> None:
        if "/api/kernels/" not in ws.url:
            return
        ws.on("framereceived", lambda payload: self._add("recv", payload))
        ws.on("framesent", lambda payload: self._add("send", payload))

    def clear(self) -> None:
        self.frames.clear()

    def _add(self, direction: str, payload: bytes | str) -> None:
        data = payload.encode() if isinstance(payload, str) else payload
        frame = Frame(time.perf_counter(), direction, len(data))
        parsed = parse_v1(data) if isinstance(payload, (bytes, bytearray)) else None
        if parsed is not None:
            header, content, frame.buffer_bytes = parsed
            frame.msg_type = header.get("msg_type")
            data_field = content.get("data") if isinstance(content, dict) else None
            if frame.msg_type == "comm_msg" and isinstance(data_field, dict) and data_field.get("method") == "custom":
                custom = data_field.get("content") or {}
                frame.custom = custom.get("type")
                if isinstance(custom.get("series"), list):
                    frame.points = sum(int(s.get("sent") or 0) for s in custom["series"])
        self.frames.append(frame)

    def summary(self) -> dict[str, Any]:
        """Bytes by direction and by Board message type; every series reply's size and points."""
        out: dict[str, Any] = {"recv_bytes": 0, "send_bytes": 0, "frames": len(self.frames), "by_type": {},
                               "series_replies": []}
        for f in self.frames:
            out[f"{f.direction}_bytes"] += f.size
            if f.custom is None:
                continue
            key = f"{f.direction}:{f.custom}"
            entry = out["by_type"].setdefault(key, {"count": 0, "bytes": 0})
            entry["count"] += 1
            entry["bytes"] += f.size
            if f.direction == "recv" and f.custom == "series":
                out["series_replies"].append({"bytes": f.size, "buffer_bytes": f.buffer_bytes, "points": f.points})
        return out
