"""What an ``nn.Module`` holds: :func:`module_summary` (counts, devices, dtypes, mode) and
:func:`members` (its parameters, buffers and submodules as a tree, by qualified name).

Everything is read from torch itself (``named_parameters()``, ``named_buffers()``,
``named_modules()``, ``numel()``, ``requires_grad``, ``.training``) and returned as data; the
panels turn it into sentences.

Shared tensors and modules (tied weights: the same ``Parameter`` under two names) are counted
once, as torch's own ``parameters()`` and ``named_parameters()`` do (they drop duplicates by
identity): ``module_summary(m).parameters == sum(p.numel() for p in m.parameters())``. In the
tree a shared parameter appears at every place it is registered, the later places with
``shared_with`` naming the first (the name ``named_parameters()`` gives it); a shared submodule
appears once in full and at its later places as a leaf with ``shared_with`` set.

Parameters of lazy modules (``nn.LazyLinear``) that a forward pass has not initialised yet have
no shape: they are listed with ``shape=None`` and count no elements.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch.nn.parameter import is_lazy

from .facts import short_dtype

Kind = Literal["parameter", "buffer", "module"]


@dataclass(frozen=True)
class ModuleSummary:
    """The facts of a module as a whole. Tensors are counted once however many names they
    have (see the module docstring)."""

    class_name: str
    #: elements in all parameters (``sum(p.numel() for p in m.parameters())``)
    parameters: int
    #: elements in the parameters that require grad (the ones an optimizer trains)
    trainable: int
    #: how many parameter tensors (``len(list(m.parameters()))``)
    parameter_tensors: int
    #: how many parameter tensors have a ``.grad``
    with_grad: int
    #: how many buffer tensors (``len(list(m.buffers()))``) and their elements
    buffers: int
    buffer_elements: int
    #: the devices and dtypes of the parameters and buffers (``"cpu"``, ``"float32"``)
    devices: frozenset[str]
    dtypes: frozenset[str]
    #: ``m.training``: True after ``train()`` (the default), False after ``eval()``
    training: bool
    #: submodules (``named_modules()`` without the module itself)
    submodules: int
    #: submodules whose mode differs from the module's (``m.eval(); m[0].train()``)
    other_mode: int
    #: parameters of a lazy module not initialised yet (no shape, no elements)
    uninitialized: int = 0

    @property
    def frozen(self) -> int:
        """Elements in parameters that do not require grad."""
        return self.parameters - self.trainable


@dataclass(frozen=True)
class Member:
    """One parameter, buffer or submodule of a module.

    ``name`` is qualified relative to the module :func:`members` was given (``"hidden.weight"``
    in ``net``: ``net.hidden.weight`` in the workspace); ``leaf`` is its last part.
    """

    name: str
    kind: Kind
    value: Any = None
    #: the tensor's shape (None for a module or an uninitialised lazy parameter)
    shape: tuple[int, ...] | None = None
    dtype: str | None = None  # "float32"
    device: str | None = None
    #: tensors: ``requires_grad``; modules: None
    requires_grad: bool | None = None
    #: tensors: elements; modules: elements of their parameters (counted once)
    numel: int = 0
    #: modules: their class name (``"Linear"``); tensors: None
    class_name: str | None = None
    #: the first qualified name of the same tensor or module when it is registered again here
    shared_with: str | None = None
    #: how many members this one has directly (modules only; 0 for a shared module's repeat)
    size: int = 0
    #: the members of a module, in the module's order (empty beyond ``depth``)
    children: tuple[Member, ...] = ()

    @property
    def leaf(self) -> str:
        return self.name.rpartition(".")[2]


def _numel(t: torch.Tensor) -> int:
    return 0 if is_lazy(t) else t.numel()


def _tensors(module: torch.nn.Module) -> tuple[list[torch.Tensor], list[torch.Tensor],
                                                list[torch.nn.Module]]:
    """The distinct parameters, buffers and modules (``parameters()``, ``buffers()``,
    ``modules()``, in their order) in one walk."""
    params: dict[int, torch.Tensor] = {}
    buffers: dict[int, torch.Tensor] = {}
    mods = list(module.modules())
    for m in mods:
        for p in m._parameters.values():
            if p is not None:
                params.setdefault(id(p), p)
        for b in m._buffers.values():
            if b is not None:
                buffers.setdefault(id(b), b)
    return list(params.values()), list(buffers.values()), mods


def module_summary(module: torch.nn.Module) -> ModuleSummary:
    """The summary of ``module`` and everything below it."""
    params, buffers, mods = _tensors(module)
    tensors = params + buffers
    subs = mods[1:]
    return ModuleSummary(
        class_name=type(module).__name__,
        parameters=sum(_numel(p) for p in params),
        trainable=sum(_numel(p) for p in params if p.requires_grad),
        parameter_tensors=len(params),
        with_grad=sum(1 for p in params if p.grad is not None),
        buffers=len(buffers),
        buffer_elements=sum(_numel(b) for b in buffers),
        devices=frozenset(str(t.device) for t in tensors),
        dtypes=frozenset(short_dtype(t.dtype) for t in tensors if not is_lazy(t)),
        training=module.training,
        submodules=len(subs),
        other_mode=sum(1 for m in subs if m.training != module.training),
        uninitialized=sum(1 for p in tensors if is_lazy(p)),
    )


def first_names(module: torch.nn.Module) -> dict[int, str]:
    """``id`` of every parameter, buffer and submodule -> its first qualified name (the one
    ``named_parameters()``/``named_buffers()``/``named_modules()`` give it)."""
    out: dict[int, str] = {}
    for name, m in module.named_modules():
        out.setdefault(id(m), name)
        prefix = f"{name}." if name else ""
        for entries in (m._parameters, m._buffers):
            for leaf, t in entries.items():
                if t is not None:
                    out.setdefault(id(t), prefix + leaf)
    return out


def _direct(module: torch.nn.Module) -> list[tuple[str, Kind, Any]]:
    """The module's own parameters, buffers and submodules, in registration order (None
    entries, ``register_parameter("bias", None)``, left out)."""
    out: list[tuple[str, Kind, Any]] = []
    out += [(n, "parameter", p) for n, p in module._parameters.items() if p is not None]
    out += [(n, "buffer", b) for n, b in module._buffers.items() if b is not None]
    out += [(n, "module", m) for n, m in module._modules.items() if m is not None]
    return out


def size(module: torch.nn.Module) -> int:
    """How many members ``module`` has directly (its rows one level down)."""
    return len(_direct(module))


def members(module: torch.nn.Module, under: str = "", *, depth: int | None = None,
            first: dict[int, str] | None = None, start: int = 0,
            stop: int | None = None) -> list[Member]:
    """The parameters, buffers and submodules of ``module`` (or of its submodule ``under``,
    still named relative to ``module``) as a tree: each module's own parameters, then its
    buffers, then its submodules with their members as ``children``.

    Parameters in tree order are ``named_parameters()`` (and buffers ``named_buffers()``) when
    nothing is shared. ``depth`` limits the levels (1: only the direct members, their
    ``children`` empty; ``size`` still says how many there are); ``start``/``stop`` take a
    slice of the direct members (a long ``nn.Sequential`` shown a part at a time); ``first``
    is :func:`first_names` of ``module`` when the caller has it already.
    """
    first = first_names(module) if first is None else first
    top = module.get_submodule(under) if under else module
    return _members(top, f"{under}." if under else "", depth, first, start, stop)


def _members(module: torch.nn.Module, prefix: str, depth: int | None,
             first: dict[int, str], start: int = 0, stop: int | None = None) -> list[Member]:
    out = []
    for leaf, kind, obj in _direct(module)[start:stop]:
        name = prefix + leaf
        # a tensor or module met before (named_*() name it where it was first registered)
        shared = first.get(id(obj), name)
        shared_with = shared if shared != name else None
        if kind == "module":
            children: tuple[Member, ...] = ()
            if shared_with is None and (depth is None or depth > 1):
                children = tuple(_members(obj, name + ".", None if depth is None else depth - 1,
                                          first))
            out.append(Member(
                name, "module", obj, class_name=type(obj).__name__,
                numel=sum(_numel(p) for p in obj.parameters()), shared_with=shared_with,
                size=0 if shared_with else size(obj), children=children))
        else:
            lazy = is_lazy(obj)
            out.append(Member(
                name, kind, obj,
                shape=None if lazy else tuple(int(n) for n in obj.shape),
                dtype=None if lazy else short_dtype(obj.dtype), device=str(obj.device),
                requires_grad=bool(obj.requires_grad), numel=_numel(obj),
                shared_with=shared_with))
    return out


def walk(tree: list[Member]) -> list[Member]:
    """Every member of a tree from :func:`members`, in pre-order (a module before its
    members)."""
    out = []
    for m in tree:
        out.append(m)
        out += walk(list(m.children))
    return out


def access_code(root: str, module: torch.nn.Module, qualified: str) -> str:
    """How to reach ``qualified`` (relative to ``module``, which the workspace calls ``root``)
    in Python: ``net[0].weight`` for ``"0.weight"`` in an ``nn.Sequential``,
    ``net.hidden.weight`` for ``"hidden.weight"``; ``net.get_parameter('...')`` (or
    ``get_buffer``, ``get_submodule``) where no shorter spelling reaches it."""
    code: str = root
    current: Any = module
    for part in qualified.split("."):
        if isinstance(current, _INDEXED) and part.isdigit():
            code += f"[{part}]"
        elif isinstance(current, _KEYED):
            code += f"[{part!r}]"
        elif isinstance(current, torch.nn.Module) and part.isidentifier() and \
                not keyword.iskeyword(part):
            code += f".{part}"
        else:
            kind = member_kind(module, qualified)
            getter = {"parameter": "get_parameter", "buffer": "get_buffer"}.get(
                kind or "", "get_submodule")
            return f"{root}.{getter}({qualified!r})"
        current = current._modules.get(part) if isinstance(current, torch.nn.Module) else None
    return code


_INDEXED = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ParameterList)
_KEYED = (torch.nn.ModuleDict, torch.nn.ParameterDict)


def member_kind(module: torch.nn.Module, qualified: str) -> Kind | None:
    """Whether ``qualified`` names a parameter, a buffer or a submodule of ``module``."""
    getters: tuple[tuple[Kind, Any], ...] = (
        ("parameter", module.get_parameter), ("buffer", module.get_buffer),
        ("module", module.get_submodule))
    for kind, get in getters:
        try:
            get(qualified)
        except (AttributeError, TypeError):
            continue
        return kind
    return None
