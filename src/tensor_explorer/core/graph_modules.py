"""Which operations of an autograd graph each ``nn.Module`` call made (no Qt).

While the workspace runs a program, :func:`recording` has every module call leave a note on
the autograd nodes of its outputs (``grad_fn.metadata``, which lives as long as the graph):
the module (weakly), and the range of autograd sequence numbers made during the call. Autograd
numbers the nodes it creates on a thread in order (``Node._sequence_nr()``), so the nodes a
call made are exactly those reachable from its outputs whose number is in that range — found
later by :func:`module_calls` without keeping anything alive and without re-running anything.
This is what TorchLens and torchvista learn with hooks too; here the hooks are global module
hooks (``torch.nn.modules.module.register_module_forward_pre_hook``), registered once and
doing nothing outside :func:`recording` on the thread that records.

Module paths (``encoder.0``) come from the workspace's modules (``named_modules``): a call of a
module the workspace does not hold is named by its class only.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from .autograd import Graph

__all__ = ["ModuleCall", "module_calls", "recording"]

_KEY = "tensor_explorer.module_calls"
_MAX_OUTPUTS = 64  # tensors looked at in one call's outputs (tuples, dicts of tensors)


class _Local(threading.local):
    def __init__(self) -> None:
        self.depth = 0
        self.stack: list[tuple[Any, int, int]] = []  # (module, call id, first sequence nr)


_local = _Local()
_installed = False
_install_lock = threading.Lock()
_calls = itertools.count(1)
_probe: torch.Tensor | None = None


def _next_sequence_nr() -> int | None:
    """The sequence number autograd gives the next node it creates on this thread (None when
    autograd records nothing now)."""
    global _probe
    if not torch.is_grad_enabled() or torch.is_inference_mode_enabled():
        return None
    if _probe is None:
        _probe = torch.zeros((), requires_grad=True)
    fn = _probe.view(()).grad_fn
    return None if fn is None else int(fn._sequence_nr()) + 1


def _pre_hook(module: Any, _args: Any) -> None:
    local = _local
    if not local.depth:
        return
    start = _next_sequence_nr()
    if start is not None:
        local.stack.append((module, next(_calls), start))


def _tensors(value: Any, out: list[torch.Tensor], depth: int = 0) -> None:
    if len(out) >= _MAX_OUTPUTS:
        return
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif depth < 3 and isinstance(value, (tuple, list)):
        for v in value[:_MAX_OUTPUTS]:
            _tensors(v, out, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for v in list(value.values())[:_MAX_OUTPUTS]:
            _tensors(v, out, depth + 1)


def _post_hook(module: Any, _args: Any, output: Any) -> None:
    local = _local
    if not local.depth or not local.stack:
        return
    while local.stack:  # a call whose forward raised never reached its post hook: skip it
        mod, call, start = local.stack.pop()
        if mod is module:
            break
    else:
        return
    end = _next_sequence_nr()
    if end is None:
        return
    tensors: list[torch.Tensor] = []
    _tensors(output, tensors)
    note = (call, start, end - 1, weakref.ref(module), type(module).__name__)
    for t in tensors:
        fn = t.grad_fn
        if fn is None:
            continue
        try:
            if not start <= fn._sequence_nr() < end:
                continue  # (an input handed back: not made by this call)
            metadata: dict[str, Any] = fn.metadata  # type: ignore[assignment]  # (a dict)
            metadata.setdefault(_KEY, []).append(note)
        except (RuntimeError, AttributeError):  # an odd node: no note
            continue


def _install() -> None:
    global _installed
    with _install_lock:
        if not _installed:
            from torch.nn.modules import module as nn_module

            nn_module.register_module_forward_pre_hook(_pre_hook)
            nn_module.register_module_forward_hook(_post_hook)
            _installed = True


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Note, on this thread, which autograd nodes each module call makes (while inside)."""
    _install()
    local = _local
    local.depth += 1
    try:
        yield
    finally:
        local.depth -= 1
        if not local.depth:
            local.stack.clear()


@dataclass(frozen=True)
class ModuleCall:
    """One call of a module found in a graph.

    ``path``: the module's place in the workspace (``"net.encoder.0"``), or ``""`` when the
    workspace does not hold it; ``type``: its class name (``"Linear"``); ``members``: the ids of
    the op nodes the call made (never leaves); ``exits``: those whose results the call
    returned; ``parent``: the index, in :func:`module_calls`'s list, of the call it was made in
    (None at the top); ``index``: 1 for the first call of this module in the graph, 2 for the
    next... (a cell called in a loop).
    """

    path: str
    type: str
    members: tuple[int, ...]
    exits: tuple[int, ...]
    parent: int | None
    index: int
    call: int

    @property
    def title(self) -> str:
        """``encoder.0 · Linear`` (the class alone when the module has no path)."""
        return f"{self.path} · {self.type}" if self.path else self.type


def _paths(modules: Mapping[str, Any]) -> dict[int, str]:
    out: dict[int, str] = {}
    for name, value in modules.items():
        if not isinstance(value, torch.nn.Module):
            continue
        try:
            for sub, module in value.named_modules(remove_duplicate=False):
                out.setdefault(id(module), f"{name}.{sub}" if sub else name)
        except Exception:  # a user's module may misbehave: no paths from it
            continue
    return out


def module_calls(graph: Graph, modules: Mapping[str, Any] | None = None) -> list[ModuleCall]:
    """The module calls that made ops of ``graph`` (noted while :func:`recording`), outer
    calls before the calls made inside them; ``modules``: the workspace's values by name
    (modules among them name the calls by path)."""
    nodes = graph.nodes
    notes: dict[int, tuple[int, int, Any, str]] = {}
    exits: dict[int, list[int]] = {}
    seq: list[int] = [-1] * len(nodes)
    for node in nodes:
        if node.kind == "leaf":
            continue
        fn = graph.function(node.id)
        try:
            seq[node.id] = int(fn._sequence_nr())
            found = fn.metadata.get(_KEY)
        except (RuntimeError, AttributeError):
            continue
        if found:
            for call, start, last, ref, tname in found:
                notes.setdefault(call, (start, last, ref, tname))
                exits.setdefault(call, []).append(node.id)
    if not notes:
        return []
    paths = _paths(modules or {})
    members: dict[int, list[int]] = {}
    for call, (start, last, _ref, _t) in notes.items():
        seen = set(exits[call])
        stack = list(exits[call])
        while stack:
            v = stack.pop()
            for w in nodes[v].next_ids:
                if w is None or w in seen or nodes[w].kind == "leaf":
                    continue
                if start <= seq[w] <= last:
                    seen.add(w)
                    stack.append(w)
        members[call] = sorted(seen)
    # nesting: a call made inside another has a sequence range inside the other's; outer
    # calls first (wider ranges, then earlier), so a parent always comes before its children
    order = sorted(notes, key=lambda c: (notes[c][0], -notes[c][1], c))
    out: list[ModuleCall] = []
    index_of: dict[int, int] = {}
    open_calls: list[int] = []  # the calls containing the current one, outermost first
    counts: dict[Any, int] = {}
    for call in order:
        start, last, ref, tname = notes[call]
        while open_calls and notes[open_calls[-1]][1] < start:
            open_calls.pop()
        module = ref()
        path = paths.get(id(module), "") if module is not None else ""
        key = (path, tname) if path else id(module)
        counts[key] = counts.get(key, 0) + 1
        parent = index_of[open_calls[-1]] if open_calls else None
        index_of[call] = len(out)
        out.append(ModuleCall(path, tname, tuple(members[call]), tuple(exits[call]), parent,
                              counts[key], call))
        open_calls.append(call)
    return out
