"""The devices this machine can compute on, for the app's device choosers."""

from __future__ import annotations

import torch

from .catalog import Message


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
    """Normalise ``device`` to a string torch accepts here, or raise ``ValueError`` saying why
    (its ``args[0]`` a catalog :class:`~tensor_explorer.core.catalog.Message`, ``device.*``:
    as a ``str``, the English).

    ``"meta"`` is always accepted (shapes without data: lessons use it to show device
    mismatches on CPU-only machines); ``"cuda"`` means ``"cuda:0"``.
    """
    if device is None:
        return None
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(Message("device.bad-name", name=device, detail=str(exc))) from None
    if dev.type == "meta":
        return "meta"
    name = str(dev)
    if dev.type == "cuda" and dev.index is None:
        name = "cuda:0"
    available = devices()
    if name not in available:
        raise ValueError(Message("device.unavailable", name=name, available=tuple(available)))
    return name
