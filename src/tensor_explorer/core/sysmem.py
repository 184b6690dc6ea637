"""How much memory there is: one probe for the sandbox, loading and sessions (Qt-free)."""

from __future__ import annotations

import os
from typing import Any

import torch

__all__ = ["available_memory", "memory_limit"]


def available_memory(device: Any = None) -> int | None:
    """Bytes that can be allocated now on ``device`` (None: unknown, or no limit applies)."""
    dev = torch.device(device) if device is not None else torch.get_default_device()
    if dev.type == "cuda":
        try:
            return int(torch.cuda.mem_get_info(dev)[0])
        except (RuntimeError, AssertionError, ValueError):
            return None
    if dev.type != "cpu":
        return None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def memory_limit() -> int:
    """Bytes a single read into memory may take on the CPU: what is available now, else (when
    that cannot be measured) half of the physical memory, else 8 GiB."""
    avail = available_memory("cpu")
    if avail is not None:
        return avail
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 8 * 1024**3
