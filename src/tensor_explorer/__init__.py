"""Tensor Explorer: see what a PyTorch tensor is, which values share memory, how autograd flows.

The public API (``describe``, ``stats``, ``diagnose``, ``load_array``, ``Workspace``, ``trace``,
``backward``, ``layout``, ``explore``, ``breakpoint``, ``post_mortem``...) is loaded lazily, so
``import tensor_explorer`` is cheap and never imports Qt. Only :func:`explore`,
:func:`breakpoint` and :func:`post_mortem` touch Qt, and only when a window opens.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it (relative to this package)
_EXPORTS: dict[str, str] = {
    "describe": ".core.facts",
    "TensorFacts": ".core.facts",
    "stats": ".core.stats",
    "Stats": ".core.stats",
    "Cancelled": ".core.stats",
    "diagnose": ".core.diagnose",
    "Diagnosis": ".core.diagnose",
    "load_array": ".core.loading",
    "load_arrays": ".core.loading",
    "LoadError": ".core.loading",
    "to_tensor": ".core.loading",
    "Workspace": ".core.workspace",
    "UndoHistory": ".core.undo",
    "ProgramError": ".core.runner",
    "devices": ".core.devices",
    "element_offsets": ".core.memory",
    "relation": ".core.memory",
    "Relation": ".core.memory",
    "trace": ".core.autograd",
    "backward": ".core.autograd",
    "names": ".core.autograd",
    "Graph": ".core.autograd",
    "Node": ".core.autograd",
    "BackwardRecord": ".core.autograd",
    "layout": ".core.graph_session",
    "explore": ".explore",
    "breakpoint": ".explore",
    "post_mortem": ".explore",
}

__all__ = [
    "BackwardRecord",
    "Cancelled",
    "Diagnosis",
    "Graph",
    "LoadError",
    "Node",
    "ProgramError",
    "Relation",
    "Stats",
    "TensorFacts",
    "UndoHistory",
    "Workspace",
    "__version__",
    "backward",
    "breakpoint",
    "describe",
    "devices",
    "diagnose",
    "element_offsets",
    "explore",
    "layout",
    "load_array",
    "load_arrays",
    "names",
    "post_mortem",
    "relation",
    "stats",
    "to_tensor",
    "trace",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .core.autograd import BackwardRecord, Graph, Node, backward, names, trace
    from .core.devices import devices
    from .core.diagnose import Diagnosis, diagnose
    from .core.facts import TensorFacts, describe
    from .core.graph_session import layout
    from .core.loading import LoadError, load_array, load_arrays, to_tensor
    from .core.memory import Relation, element_offsets, relation
    from .core.runner import ProgramError
    from .core.stats import Cancelled, Stats, stats
    from .core.undo import UndoHistory
    from .core.workspace import Workspace
    from .explore import breakpoint, explore, post_mortem


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tensor_explorer' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    # Importing a submodule binds its name here: loading .explore for ``breakpoint`` made
    # ``tx.explore`` the module. The public name is the function of that name.
    sub = module.rpartition(".")[2]
    if sub in _EXPORTS and isinstance(globals().get(sub), ModuleType):
        globals()[sub] = getattr(importlib.import_module(_EXPORTS[sub], __name__), sub)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
