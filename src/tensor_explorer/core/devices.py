"""The devices this machine can compute on, for the app's device choosers."""

from __future__ import annotations

import torch


def devices() -> list[str]:
    """``"cpu"``, then ``"cuda:N"`` for every CUDA device, then ``"mps"`` when available."""
    out = ["cpu"]
    if torch.cuda.is_available():
        out.extend(f"cuda:{i}" for i in range(torch.cuda.device_count()))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        out.append("mps")
    return out


def check_device(device: str | torch.device | None) -> str | None:
    """Normalise ``device`` to a string torch accepts here, or raise ``ValueError`` saying why.

    ``"meta"`` is always accepted (shapes without data: lessons use it to show device
    mismatches on CPU-only machines); ``"cuda"`` means ``"cuda:0"``.
    """
    if device is None:
        return None
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"{device!r} is not a device name ({exc})") from None
    if dev.type == "meta":
        return "meta"
    name = str(dev)
    if dev.type == "cuda" and dev.index is None:
        name = "cuda:0"
    available = devices()
    if name not in available:
        raise ValueError(
            f"device {name!r} is not available on this machine; available: {', '.join(available)}"
        )
    return name
