"""Autograd made visible: trace the graph behind a tensor, run ``backward`` while recording the
gradient along every edge, count accumulation, zero gradients, and check gradients numerically.

Everything here is Qt-free and returns plain dataclasses; the graph pane draws them.

- :func:`trace` walks ``grad_fn.next_functions`` iteratively (graphs of 100k nodes are fine) and
  returns a :class:`Graph` of :class:`Node` s and ``(src, dst)`` edges.
- :func:`backward` runs ``torch.autograd.backward`` with post-hooks on enough operation nodes
  to see every slot of every ``next_functions`` and returns a :class:`BackwardRecord`: the
  gradient sent along each slot and along each edge, every leaf's ``.grad`` before and after
  the call, and ``.step`` (how many calls have accumulated into the leaves since their
  ``.grad`` was last ``None``).
- :func:`zero_grad` clears or zeroes leaf gradients, :class:`GradHistory` keeps ``.grad`` after
  each call for the accumulation table and plot, :func:`numerical_check` compares autograd with
  central finite differences in float64.

Failures come out as :class:`BackwardError` (a ``ValueError``) whose message explains the problem
in plain words and keeps torch's own message. The plain words are a catalog
:class:`~tensor_explorer.core.catalog.Message` (``autograd.*`` codes), rendered in the language
where they are shown.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
import torch

from .catalog import LANGUAGES, Message, text_in
from .facts import grad_norm

__all__ = [
    "BackwardError",
    "BackwardRecord",
    "EdgeGrad",
    "EdgeInfo",
    "GradHistory",
    "Graph",
    "HistoryEntry",
    "InputCheck",
    "Node",
    "NumericalCheck",
    "SavedTensorInfo",
    "ZeroGradRecord",
    "backward",
    "grad_norm",
    "names",
    "numerical_check",
    "trace",
    "zero_grad",
]

NodeKind = Literal["root", "op", "leaf", "group"]  # "group": collapsed chains only
Names = Mapping[str, Any] | Any  # a mapping name -> value, or a Workspace (names() + [])

_ACCUMULATE = "AccumulateGrad"
_VERSION_RE = re.compile(r"is at version (\d+); expected version (\d+)")


# ---------------------------------------------------------------------------------------------
# errors


_WARMED = threading.Event()


def warm_up() -> None:
    """Import what torch loads lazily on its first backward call (``torch.fx``'s symbolic
    shapes and SymPy: ~0.3 s), so that a first backward on a UI thread does not pause.
    Meant for a background thread; cheap after the first call."""
    if _WARMED.is_set():
        return
    # best effort: a torch without the module has nothing to warm, and an import that another
    # thread is running at the same moment may raise importlib's _DeadlockError (RuntimeError)
    with contextlib.suppress(ImportError, RuntimeError):
        importlib.import_module("torch.fx.experimental.symbolic_shapes")
    _WARMED.set()


class BackwardError(ValueError):
    """A plain-words explanation of why a graph cannot be traced or backward cannot run.

    ``str(error)`` is the explanation followed by torch's own message (when there is one).

    Attributes:
        code: a stable key for the pane and for translations: ``"no_graph"``,
            ``"backward_twice"``, ``"stale_saved"``, ``"non_scalar"``, ``"bad_gradient"``,
            ``"too_large"``, ``"other"``.
        explanation: the plain-words part only: a catalog :class:`Message` (as a ``str``, its
            English); see :meth:`explanation_in`.
        explanations: the plain words in the other languages (``{"zh": ...}``), rendered
            from the Message (empty for an explanation given as plain text).
        torch_message: torch's message, or ``None`` when the check happened before torch ran.
        node_ids: graph nodes the problem is about (e.g. nodes holding a stale saved tensor).
    """

    def __init__(
        self,
        code: str,
        explanation: str,
        torch_message: str | None = None,
        node_ids: Sequence[int] = (),
    ) -> None:
        self.code = code
        self.explanation = explanation
        self.torch_message = torch_message
        self.node_ids = tuple(node_ids)
        text = (
            str(explanation)
            if torch_message is None
            else f"{explanation}\n\ntorch says: {torch_message}"
        )
        super().__init__(text)

    @property
    def explanations(self) -> dict[str, str]:
        """The plain words in each language other than English."""
        if not isinstance(self.explanation, Message):
            return {}
        return {lang: self.explanation.render(lang) for lang in LANGUAGES if lang != "en"}

    def explanation_in(self, lang: str) -> str:
        """The plain words in ``lang`` ("en" or "zh"; the English where there is no
        translation)."""
        return text_in(self.explanation, lang)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy rebuild it from its parts (the Message keeps its code)
        return (type(self), (self.code, self.explanation, self.torch_message, self.node_ids))


def shape_tuple_text(shape: Sequence[int]) -> str:
    """A shape as Python writes the tuple: ``(3,)``, ``(2, 3)``, ``()``."""
    return "(" + ", ".join(str(int(s)) for s in shape) + (",)" if len(shape) == 1 else ")")


def no_graph_message(tensor: torch.Tensor) -> Message | None:
    """Why ``tensor`` has no ``grad_fn`` (a catalog :class:`Message`), or ``None`` when it
    has one."""
    if tensor.grad_fn is not None:
        return None
    if tensor.is_inference():
        return Message("autograd.no-graph-inference")
    if tensor.requires_grad:
        return Message("autograd.no-graph-leaf")
    return Message("autograd.no-graph-constant")


def no_graph_reason(tensor: torch.Tensor, lang: str = "en") -> str | None:
    """Why ``tensor`` has no ``grad_fn`` (plain words in ``lang``, "en" or "zh"), or ``None``
    when it has one."""
    reason = no_graph_message(tensor)
    return None if reason is None else reason.render(lang)


def _root_function(root: torch.Tensor) -> Any:
    if not isinstance(root, torch.Tensor):
        raise BackwardError(
            "no_graph", Message("autograd.not-a-tensor", cls=type(root).__name__)
        )
    reason = no_graph_message(root)
    if reason is not None:
        raise BackwardError("no_graph", reason)
    return root.grad_fn


# ---------------------------------------------------------------------------------------------
# graph


class SavedTensorInfo(NamedTuple):
    """A tensor an autograd node saved for its backward pass.

    ``stale`` is True when the tensor was modified in place after it was saved (its version
    counter moved on: ``version`` is the current one, ``saved_version`` the one autograd
    recorded); backward through this node will fail. ``freed`` is True when a backward call
    without ``retain_graph`` already released it.
    """

    name: str
    shape: tuple[int, ...] | None
    dtype: str | None
    device: str | None
    stale: bool = False
    freed: bool = False
    version: int | None = None
    saved_version: int | None = None

    @property
    def message(self) -> str | None:
        """Plain words for a stale or freed saved tensor, else ``None``."""
        if self.stale:
            return (
                f"'{self.name}' was changed in place after autograd saved it (it is at version "
                f"{self.version}, autograd saved version {self.saved_version}); backward "
                "through this node will fail."
            )
        if self.freed:
            return (
                f"'{self.name}' was freed by an earlier backward call (use retain_graph=True to "
                "keep saved tensors)."
            )
        return None


class Node(NamedTuple):
    """One autograd node.

    ``id`` is the node's index in :attr:`Graph.nodes` (breadth-first from the root, children in
    ``next_functions`` order); ``label`` the autograd class name; ``kind`` ``"root"``, ``"op"``
    or ``"leaf"`` (an ``AccumulateGrad`` node); ``tensor`` the name of the leaf, or of the named
    intermediate whose ``grad_fn`` this is, else ``None``.

    Extra fields: ``next_ids`` the node id at each position of ``next_functions`` (``None`` where
    the entry is ``None``: an input that needs no gradient); ``shapes``/``dtypes``/``device`` the
    metadata of the gradients this node receives (one per output of the forward op; for a leaf,
    the leaf tensor's shape and dtype); ``saved`` the tensors it saved for backward;
    ``tensors`` every name that maps to this node (a multi-output op can have several).
    """

    id: int
    label: str
    kind: NodeKind
    tensor: str | None = None
    next_ids: tuple[int | None, ...] = ()
    shapes: tuple[tuple[int, ...], ...] = ()
    dtypes: tuple[str, ...] = ()
    device: str | None = None
    saved: tuple[SavedTensorInfo, ...] = ()
    tensors: tuple[str, ...] = ()

    @property
    def shape(self) -> tuple[int, ...] | None:
        """Shape of the (first) gradient this node receives; for a leaf, the leaf's shape."""
        return self.shapes[0] if self.shapes else None

    @property
    def dtype(self) -> str | None:
        """Dtype of the (first) gradient this node receives; for a leaf, the leaf's dtype."""
        return self.dtypes[0] if self.dtypes else None

    @property
    def stale(self) -> bool:
        """True when one of the node's saved tensors was modified in place after saving."""
        return any(s.stale for s in self.saved)


class EdgeInfo(NamedTuple):
    """What flows along an edge ``src -> dst``: ``slots`` the positions in ``src``'s
    ``next_functions`` that point at ``dst`` (two for ``x * x``), ``shape``/``dtype`` of the
    gradient that flows along its first slot (known before backward, from ``dst``'s metadata),
    ``input_nrs`` which of ``dst``'s inputs each slot feeds (same order as ``slots``; not 0
    only for multi-output ops: ``a, b = x.unbind(0); a * b`` has one edge with two slots
    feeding inputs 0 and 1 of ``UnbindBackward0``), ``input_nr`` the first of them."""

    src: int
    dst: int
    slots: tuple[int, ...]
    shape: tuple[int, ...] | None
    dtype: str | None
    input_nr: int = 0
    input_nrs: tuple[int, ...] = ()

    @property
    def multi_output(self) -> bool:
        """True when the slots feed different inputs of ``dst`` (different outputs of a
        multi-output op such as split, unbind, chunk): the edge's gradient in
        :attr:`BackwardRecord.edge_grads` is then a tuple, one entry per slot."""
        nrs = self.input_nrs
        return len(nrs) > 1 and any(nr != nrs[0] for nr in nrs)


class _Walk:
    """The graph as the walk found it, in flat lists (what :func:`backward` needs; the
    :class:`Node` and :class:`EdgeInfo` objects are made from it on first read).

    ``functions[i]`` is node ``i``'s autograd object; its ``next_functions`` slots are
    ``starts[i]:starts[i + 1]`` of ``dsts`` (the node each slot points at, -1 for ``None``)
    and ``nrs`` (which input of that node the slot feeds, -1 for ``None``). ``leaf_ids``: the
    ``AccumulateGrad`` nodes; ``names``: node id -> the names that map to it.
    """

    __slots__ = ("dsts", "functions", "leaf_ids", "names", "nrs", "starts")

    def __init__(
        self,
        functions: list[Any],
        starts: list[int],
        dsts: list[int],
        nrs: list[int],
        leaf_ids: list[int],
        names: dict[int, list[str]],
    ) -> None:
        self.functions = functions
        self.starts = starts
        self.dsts = dsts
        self.nrs = nrs
        self.leaf_ids = leaf_ids
        self.names = names


class Graph:
    """The autograd graph behind a tensor.

    ``nodes[i].id == i``; ``root`` is node 0. ``edges`` lists each ``(src, dst)`` pair once, in
    the order met (``src`` an op, ``dst`` one of its ``next_functions``); ``edge_info`` has the
    details of each. The graph keeps references to the autograd nodes (and so to their saved
    tensors) while it lives.

    A graph made by ``trace(saved=False)`` (and by :func:`backward`, which does not need them)
    builds ``nodes``, ``edges`` and ``edge_info`` on first read; ``trace(saved=True)`` builds
    them at once (the nodes' saved-tensor state is the one at trace time).
    """

    def __init__(
        self,
        nodes: list[Node] | None = None,
        edges: list[tuple[int, int]] | None = None,
        edge_info: dict[tuple[int, int], EdgeInfo] | None = None,
        root: int = 0,
        _functions: list[Any] | None = None,
        *,
        _walk: _Walk | None = None,
    ) -> None:
        if _walk is None:
            nodes = [] if nodes is None else nodes
            edges = [] if edges is None else edges
            edge_info = {} if edge_info is None else edge_info
        self._nodes = nodes
        self._edges = edges
        self._edge_info = edge_info
        self.root = root
        if _functions is None:
            _functions = _walk.functions if _walk is not None else []
        self._functions: list[Any] = _functions
        self._walk = _walk
        self._plan: _Plan | None = None

    def __repr__(self) -> str:
        return (
            f"Graph(nodes={self.nodes!r}, edges={self.edges!r}, edge_info={self.edge_info!r}, "
            f"root={self.root!r})"
        )

    @property
    def nodes(self) -> list[Node]:
        """The nodes, ``nodes[i].id == i``."""
        if self._nodes is None:
            assert self._walk is not None
            self._nodes = _make_nodes(self._walk, False)
        return self._nodes

    @nodes.setter
    def nodes(self, value: list[Node]) -> None:
        self._nodes = value

    @property
    def edges(self) -> list[tuple[int, int]]:
        """Each ``(src, dst)`` pair once, in the order met."""
        if self._edges is None:
            self._make_edges()
        assert self._edges is not None
        return self._edges

    @edges.setter
    def edges(self, value: list[tuple[int, int]]) -> None:
        self._edges = value

    @property
    def edge_info(self) -> dict[tuple[int, int], EdgeInfo]:
        """``(src, dst)`` -> :class:`EdgeInfo`, in the order of ``edges``."""
        if self._edge_info is None:
            self._make_edges()
        assert self._edge_info is not None
        return self._edge_info

    @edge_info.setter
    def edge_info(self, value: dict[tuple[int, int], EdgeInfo]) -> None:
        self._edge_info = value

    @property
    def _hook_plan(self) -> tuple[list[int], frozenset[tuple[int, int]]] | None:
        """The last hook plan of :func:`backward` on this graph: the hooked node ids and the
        edges read at their destination (``None`` before any call)."""
        return None if self._plan is None else self._plan.summary()

    def _make_edges(self) -> None:
        with no_gc():
            self._edges, self._edge_info = _make_edges(self._walk_data(), self.nodes)

    def _walk_data(self) -> _Walk:
        """The flat form (made from ``nodes`` and ``edge_info`` for a graph built by hand)."""
        if self._walk is None:
            self._walk = _walk_from_nodes(self.nodes, self.edge_info, self._functions)
        return self._walk

    def __len__(self) -> int:
        if self._nodes is None and self._walk is not None:
            return len(self._walk.functions)
        return len(self.nodes)

    def node(self, node_id: int) -> Node:
        """The node with this id."""
        return self.nodes[node_id]

    def leaves(self) -> list[Node]:
        """The ``AccumulateGrad`` nodes, in id order."""
        return [n for n in self.nodes if n.kind == "leaf"]

    def function(self, node_id: int) -> Any:
        """The ``torch.autograd.graph.Node`` object behind a node."""
        return self._functions[node_id]

    def leaf_tensor(self, node_id: int) -> torch.Tensor | None:
        """The leaf tensor of an ``AccumulateGrad`` node, else ``None``."""
        fn = self._functions[node_id]
        return fn.variable if self.nodes[node_id].kind == "leaf" else None

    def saved_value(self, node_id: int, name: str) -> torch.Tensor:
        """The value of a saved tensor (for the details view).

        Raises :class:`BackwardError` when it is stale or freed.
        """
        fn = self._functions[node_id]
        base, _, index = name.partition("[")
        attr = base if base == "saved_tensors" else f"_saved_{base}"
        try:
            value = getattr(fn, attr)
        except RuntimeError as exc:
            raise _explain(exc, self) from exc
        if index:
            value = value[int(index.rstrip("]"))]
        if not isinstance(value, torch.Tensor):
            raise KeyError(name)
        return value

    def stale_nodes(self) -> list[int]:
        """Ids of nodes holding a saved tensor changed in place since it was saved."""
        return [n.id for n in self.nodes if n.stale]


_saved_attrs_cache: dict[type, tuple[tuple[str, str, str], ...]] = {}
_text_cache: dict[Any, str] = {}  # str() of dtypes and devices (hashable, few distinct values)


def _text(value: Any) -> str:
    text = _text_cache.get(value)
    if text is None:
        text = _text_cache[value] = str(value)
    return text


def _saved_attrs(fn_type: type) -> tuple[tuple[str, str, str], ...]:
    """(attribute, raw attribute, display name) of every saved tensor a node type has.

    Saved tensors are the ``_saved_*`` attributes that have a ``_raw_saved_*`` twin (the
    others are saved scalars and sizes); a custom ``autograd.Function`` has ``saved_tensors``.
    """
    cached = _saved_attrs_cache.get(fn_type)
    if cached is None:
        names = set(dir(fn_type))
        if "saved_tensors" in names and "_raw_saved_tensors" in names:  # custom Function
            cached = (("saved_tensors", "_raw_saved_tensors", "saved_tensors"),)
        else:
            cached = tuple(
                (a, "_raw" + a, a[len("_saved_") :])
                for a in sorted(names)
                if a.startswith("_saved_") and "_raw" + a in names
            )
        _saved_attrs_cache[fn_type] = cached
    return cached


def _info(name: str, t: torch.Tensor) -> SavedTensorInfo:
    return SavedTensorInfo(name, tuple(t.shape), _text(t.dtype), _text(t.device))


def _saved_infos(fn: Any) -> tuple[SavedTensorInfo, ...]:
    """What ``fn`` saved for backward: shape, dtype, device, and whether each saved tensor is
    stale (changed in place since it was saved: torch refuses to unpack it, naming both
    versions) or freed (by a backward call without ``retain_graph``)."""
    attrs = _saved_attrs(type(fn))
    if not attrs:
        return ()
    out: list[SavedTensorInfo] = []
    for attr, raw_attr, name in attrs:
        try:
            value = getattr(fn, attr)
        except RuntimeError as exc:
            match = _VERSION_RE.search(str(exc))
            raw = getattr(fn, raw_attr, None)
            raws: Sequence[Any] = raw if isinstance(raw, (list, tuple)) else [raw]
            many = isinstance(raw, (list, tuple))
            for i, r in enumerate(raws):
                data = getattr(r, "data", None) if r is not None else None
                tensor = data if isinstance(data, torch.Tensor) else None
                out.append(
                    SavedTensorInfo(
                        f"{name}[{i}]" if many else name,
                        tuple(tensor.shape) if tensor is not None else None,
                        _text(tensor.dtype) if tensor is not None else None,
                        _text(tensor.device) if tensor is not None else None,
                        match is not None,
                        match is None,
                        int(match.group(1)) if match else None,
                        int(match.group(2)) if match else None,
                    )
                )
            continue
        if isinstance(value, torch.Tensor):
            out.append(_info(name, value))
        elif isinstance(value, (tuple, list)):
            for i, v in enumerate(value):
                if isinstance(v, torch.Tensor):
                    out.append(_info(f"{name}[{i}]", v))
    return tuple(out)


def names(ws: Any) -> dict[str, torch.Tensor]:
    """``{qualified name: tensor}`` for every tensor value of the workspace ``ws`` and every
    parameter and buffer of every module in it (``net.fc1.weight``, ``bn.running_mean``), for
    ``trace``/``backward``'s ``names=``. A value's own name wins over a module member's; a
    tensor shared by two modules (tied weights) keeps its first name."""
    out: dict[str, torch.Tensor] = {}
    items = [(n, ws[n]) for n in ws.names()]
    for name, value in items:
        if isinstance(value, torch.Tensor):
            out[name] = value
    for name, value in items:
        if isinstance(value, torch.nn.Module):
            for kind in (value.named_parameters(), value.named_buffers()):
                for member, t in kind:
                    out.setdefault(f"{name}.{member}", t)
    return out


def _name_items(names: Names | None) -> list[tuple[str, Any]]:
    if names is None:
        return []
    if isinstance(names, Mapping):
        return list(names.items())
    if hasattr(names, "names"):  # a Workspace: its values and its modules' members
        return list(globals()["names"](names).items())
    raise TypeError("names must be a mapping of name -> tensor (or a Workspace)")


def trace(root: torch.Tensor, names: Names | None = None, *, saved: bool = True) -> Graph:
    """Trace the autograd graph behind ``root`` (its ``grad_fn`` and everything reachable).

    Args:
        root: a tensor with a ``grad_fn``.
        names: workspace names -> values; leaves and intermediates found among them get their
            name on their node (``Node.tensor``). Values that are not tensors are ignored.
        saved: also list each node's saved tensors (and whether they are stale). Set False for
            a faster trace when they are not shown (the nodes and edges are then made on
            first read).

    Raises:
        BackwardError: ``code == "no_graph"`` when ``root`` has no ``grad_fn`` (a leaf, or made
            under ``no_grad`` / ``inference_mode`` / ``detach``), with the reason in plain words.
    """
    root_fn = _root_function(root)
    with no_gc():
        return _trace(root_fn, names, saved)


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: walks of big graphs create many small objects, and
    each collection they trigger scans every live object (tens of ms each on large graphs)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _trace(root_fn: Any, names: Names | None, saved: bool) -> Graph:
    walk = _walk_graph(root_fn, names)
    graph = Graph(_walk=walk)
    if saved:  # the saved tensors' state now, not when the nodes are first read; and the
        # edges, as the pane reads them at once
        graph.nodes = _make_nodes(walk, True)
        graph._make_edges()
    return graph


def _walk_graph(root_fn: Any, names: Names | None) -> _Walk:
    """Breadth-first, iterative walk of ``next_functions`` from ``root_fn``: flat lists only
    (one list entry per node and per slot, no per-node objects)."""
    keep: list[Any] = []  # keep named grad_fns alive so their id() stays theirs during the walk
    leaf_names: dict[int, list[str]] = {}
    fn_names: dict[int, list[str]] = {}
    for name, value in _name_items(names):
        if not isinstance(value, torch.Tensor):
            continue
        fn = value.grad_fn
        if fn is None:
            if value.requires_grad:
                leaf_names.setdefault(id(value), []).append(name)
                keep.append(value)
        else:
            fn_names.setdefault(id(fn), []).append(name)
            keep.append(fn)

    functions: list[Any] = [root_fn]
    index: dict[int, int] = {id(root_fn): 0}
    starts = [0]
    dsts: list[int] = []
    nrs: list[int] = []
    add_fn = functions.append
    add_dst = dsts.append
    add_nr = nrs.append
    add_start = starts.append
    get = index.get
    for fn in functions:  # grows while it is walked: breadth-first
        for child, input_nr in fn.next_functions:
            if child is None:
                add_dst(-1)
                add_nr(-1)
                continue
            key = id(child)
            j = get(key)
            if j is None:
                j = index[key] = len(functions)
                add_fn(child)
            add_dst(j)
            add_nr(input_nr)
        add_start(len(dsts))

    leaf_types = {t for t in set(map(type, functions)) if t.__name__ == _ACCUMULATE}
    leaf_ids = [i for i, fn in enumerate(functions) if type(fn) in leaf_types]
    node_names: dict[int, list[str]] = {}
    for key, found in fn_names.items():
        j = index.get(key)
        if j is not None:
            node_names[j] = found
    if leaf_names:
        for j in leaf_ids:
            leaf_found = leaf_names.get(id(functions[j].variable))
            if leaf_found is not None:
                node_names[j] = leaf_found
    del keep
    return _Walk(functions, starts, dsts, nrs, leaf_ids, node_names)


def _make_nodes(walk: _Walk, saved: bool) -> list[Node]:
    """The :class:`Node` of each node of a walk (``saved``: with its saved tensors now)."""
    functions = walk.functions
    starts = walk.starts
    dsts = walk.dsts
    names = walk.names
    is_leaf = [False] * len(functions)
    for j in walk.leaf_ids:
        is_leaf[j] = True
    nodes: list[Node] = []
    append = nodes.append
    label_cache: dict[type, str] = {}
    for nid, fn in enumerate(functions):
        t = type(fn)
        label = label_cache.get(t)
        if label is None:
            label = label_cache[t] = t.__name__
        meta = getattr(fn, "_input_metadata", ())
        if meta:
            shapes = tuple([tuple(m.shape) for m in meta])
            dtypes = tuple([_text(m.dtype) for m in meta])
            device: str | None = _text(meta[0].device)
        else:
            shapes, dtypes, device = (), (), None
        tnames = names.get(nid, ())
        if is_leaf[nid]:
            if not shapes:
                variable = fn.variable
                shapes, dtypes = (tuple(variable.shape),), (_text(variable.dtype),)
                device = _text(variable.device)
            kind: NodeKind = "leaf"
            saved_infos: tuple[SavedTensorInfo, ...] = ()
        else:
            kind = "root" if nid == 0 else "op"
            saved_infos = _saved_infos(fn) if saved else ()
        next_ids = tuple([None if d < 0 else d for d in dsts[starts[nid] : starts[nid + 1]]])
        append(
            Node(
                nid,
                label,
                kind,
                tnames[0] if tnames else None,
                next_ids,
                shapes,
                dtypes,
                device,
                saved_infos,
                tuple(tnames),
            )
        )
    return nodes


def _make_edges(
    walk: _Walk, nodes: list[Node]
) -> tuple[list[tuple[int, int]], dict[tuple[int, int], EdgeInfo]]:
    """The edges of a walk, each ``(src, dst)`` once, and their :class:`EdgeInfo`."""
    starts = walk.starts
    dsts = walk.dsts
    nrs = walk.nrs
    edges: list[tuple[int, int]] = []
    edge_info: dict[tuple[int, int], EdgeInfo] = {}
    for src in range(len(starts) - 1):
        first = starts[src]
        for k in range(first, starts[src + 1]):
            dst = dsts[k]
            if dst < 0:
                continue
            edge = (src, dst)
            info = edge_info.get(edge)
            nr = nrs[k]
            if info is not None:  # several slots into one node (x * x, or a * b of unbind)
                edge_info[edge] = info._replace(
                    slots=(*info.slots, k - first), input_nrs=(*info.input_nrs, nr)
                )
                continue
            d = nodes[dst]
            shape = d.shapes[nr] if 0 <= nr < len(d.shapes) else None
            dtype = d.dtypes[nr] if 0 <= nr < len(d.dtypes) else None
            edges.append(edge)
            edge_info[edge] = EdgeInfo(src, dst, (k - first,), shape, dtype, nr, (nr,))
    return edges, edge_info


def _walk_from_nodes(
    nodes: list[Node], edge_info: Mapping[tuple[int, int], EdgeInfo], functions: list[Any]
) -> _Walk:
    """The flat form of a graph given as nodes and edges (a :class:`Graph` built by hand)."""
    starts = [0]
    dsts: list[int] = []
    for node in nodes:
        dsts.extend(-1 if d is None else d for d in node.next_ids)
        starts.append(len(dsts))
    nrs = [-1] * len(dsts)
    for info in edge_info.values():
        first = starts[info.src]
        for slot, nr in zip(info.slots, _input_nrs(info), strict=True):
            nrs[first + slot] = nr
    for k, d in enumerate(dsts):
        if d >= 0 and nrs[k] < 0:
            nrs[k] = 0
    names = {n.id: list(n.tensors or ((n.tensor,) if n.tensor else ())) for n in nodes}
    leaf_ids = [n.id for n in nodes if n.kind == "leaf"]
    return _Walk(functions, starts, dsts, nrs, leaf_ids, names)


# ---------------------------------------------------------------------------------------------
# step counter (weak, per leaf tensor)


class _StepCounter:
    """How many backward calls accumulated into each leaf's ``.grad`` since it was last None.

    Keyed by ``id(tensor)`` with a weak reference (tensors compare element-wise, so they cannot
    be dict keys by value); an entry goes away with its tensor.
    """

    def __init__(self) -> None:
        self._counts: dict[int, tuple[weakref.ref[torch.Tensor], int]] = {}

    def get(self, t: torch.Tensor) -> int | None:
        entry = self._counts.get(id(t))
        if entry is None or entry[0]() is not t:
            return None
        return entry[1]

    def set(self, t: torch.Tensor, value: int) -> None:
        key = id(t)
        counts = self._counts

        def _gone(_: object, key: int = key) -> None:
            entry = counts.get(key)
            if entry is not None and entry[0]() is None:
                del counts[key]

        entry = counts.get(key)
        if entry is not None and entry[0]() is t:
            counts[key] = (entry[0], value)
        else:
            counts[key] = (weakref.ref(t, _gone), value)

    def clear(self, t: torch.Tensor) -> None:
        entry = self._counts.get(id(t))
        if entry is not None and entry[0]() is t:
            del self._counts[id(t)]


_STEPS = _StepCounter()


def step_count(tensor: torch.Tensor) -> int:
    """Backward calls accumulated into ``tensor.grad`` since it was last None (0 when None).

    Counts calls made through :func:`backward`; a leaf whose ``.grad`` was filled by other
    code counts as one call.
    """
    if tensor.grad is None:
        return 0
    return _STEPS.get(tensor) or 1


# ---------------------------------------------------------------------------------------------
# backward


EdgeGrad = torch.Tensor | tuple[torch.Tensor | None, ...]
"""The gradient along one edge: a tensor, or (multi-output destination) one entry per slot."""


class _Captures:
    """What the hooks captured during one backward call, split into edges on first access
    (by :class:`_EdgeGrads` or :class:`_SlotGrads`) and into slots on first access of those.

    Recording during backward only stores each hooked node's ``(grad_inputs, grad_outputs)``.
    A slot ``(src, slot)`` is read at its source (``grad_inputs[slot]``) when ``src`` was
    hooked, else at its destination (``grad_outputs[input_nr]``) when the plan reads ``src``'s
    slots there (each of them then feeds an input of its destination alone). The captures
    are dropped once the edges are built; the slots of an edge with several of them are kept
    (the others are the edge's own gradient).
    """

    __slots__ = ("_captured", "_edges", "_parts", "_plan", "_slots", "_walk")

    def __init__(self, walk: _Walk, plan: _Plan, captured: list[Any]) -> None:
        self._walk = walk
        self._plan = plan
        self._captured = captured
        self._edges: dict[tuple[int, int], EdgeGrad] | None = None
        self._parts: dict[tuple[int, int], tuple[torch.Tensor | None, ...]] = {}
        self._slots: dict[tuple[int, int], torch.Tensor] | None = None

    def edges(self) -> dict[tuple[int, int], EdgeGrad]:
        if self._edges is None:
            with no_gc():
                self._edges = self._build()
        return self._edges

    def slots(self) -> dict[tuple[int, int], torch.Tensor]:
        if self._slots is None:
            edges = self.edges()
            parts = self._parts
            several = self._plan.several
            starts = self._walk.starts
            dsts = self._walk.dsts
            out: dict[tuple[int, int], torch.Tensor] = {}
            for src in range(len(starts) - 1):
                first = starts[src]
                end = starts[src + 1]
                if src not in several:
                    for k in range(first, end):
                        dst = dsts[k]
                        if dst >= 0:
                            g = edges.get((src, dst))
                            if g is not None:  # one slot: the edge's own gradient
                                out[(src, k - first)] = g  # type: ignore[assignment]
                    continue
                for dst, ks in _slot_groups(dsts, first, end).items():
                    if len(ks) == 1:
                        g = edges.get((src, dst))
                        if g is not None:
                            out[(src, ks[0] - first)] = g  # type: ignore[assignment]
                        continue
                    for k, part in zip(ks, parts.get((src, dst), ()), strict=False):
                        if part is not None:
                            out[(src, k - first)] = part
            self._slots = out
        return self._slots

    def _build(self) -> dict[tuple[int, int], EdgeGrad]:
        captured = self._captured
        starts = self._walk.starts
        dsts = self._walk.dsts
        nrs = self._walk.nrs
        plan = self._plan
        via_dst = plan.via_dst
        # the gradient of every slot, in slot order (None: nothing known or nothing carried)
        vals: list[Any] = []
        extend = vals.extend
        append = vals.append
        for src in range(len(starts) - 1):
            first = starts[src]
            count = starts[src + 1] - first
            if not count:
                continue
            pair = captured[src]
            if pair is not None:  # read at the source: its grad_inputs, slot by slot
                at_src = pair[0]
                if len(at_src) == count:
                    extend(at_src)
                else:
                    extend([at_src[i] if i < len(at_src) else None for i in range(count)])
            elif via_dst[src]:  # each slot at the input of its destination it alone feeds
                for k in range(first, first + count):
                    dst = dsts[k]
                    dst_pair = captured[dst] if dst >= 0 else None
                    nr = nrs[k]
                    if dst_pair is not None and nr < len(dst_pair[1]):
                        append(dst_pair[1][nr])
                    else:
                        append(None)
            else:
                extend([None] * count)
        for k in plan.none_slots:  # slots without a next function are no edge
            vals[k] = None
        for src in plan.several:
            self._build_several(vals, src, starts[src], starts[src + 1])
        self._captured = []  # drop the references to every other captured gradient
        # an edge is where its first slot is: the order of the edges
        keys = zip(plan.srcs, dsts, strict=True)
        return {key: g for key, g in zip(keys, vals, strict=True) if g is not None}

    def _build_several(self, vals: list[Any], src: int, first: int, end: int) -> None:
        """The edges of a source with several slots into one node (``x * x``, ``a * b`` of
        ``unbind``): each such edge's gradient goes to its first slot in ``vals``, its other
        slots get None; its slots' own gradients are kept in ``_parts``."""
        nrs = self._walk.nrs
        for dst, ks in _slot_groups(self._walk.dsts, first, end).items():
            if len(ks) == 1:
                continue
            parts = tuple([vals[k] for k in ks])
            self._parts[(src, dst)] = parts
            for k in ks:
                vals[k] = None
            if all(g is None for g in parts):
                continue
            nr = nrs[ks[0]]
            if any(nrs[k] != nr for k in ks):  # different outputs of a multi-output op
                vals[ks[0]] = parts
                continue
            total: torch.Tensor | None = None  # several slots into one input (x * x): the sum
            for g in parts:
                if g is not None:
                    total = g if total is None else total + g
            vals[ks[0]] = total


def _slot_groups(dsts: list[int], first: int, end: int) -> dict[int, list[int]]:
    """The slots ``first:end`` (positions in ``dsts``) grouped by destination, in the order
    of each destination's first slot."""
    groups: dict[int, list[int]] = {}
    for k in range(first, end):
        dst = dsts[k]
        if dst >= 0:
            groups.setdefault(dst, []).append(k)
    return groups


class _SlotGrads(Mapping[tuple[int, int], torch.Tensor]):
    """``{(src, slot): gradient}`` sent along ``src``'s ``next_functions[slot]`` (lazy)."""

    __slots__ = ("_captures",)

    def __init__(self, captures: _Captures) -> None:
        self._captures = captures

    def __getitem__(self, key: tuple[int, int]) -> torch.Tensor:
        return self._captures.slots()[key]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._captures.slots())

    def __len__(self) -> int:
        return len(self._captures.slots())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._captures.slots()!r})"


class _EdgeGrads(Mapping[tuple[int, int], EdgeGrad]):
    """``{(src, dst): gradient}`` along each edge (lazy): the one slot's gradient, the sum of
    the slots' when they feed the same input of ``dst`` (``x * x``), or a tuple with one entry
    per slot (``None`` for a slot that carried nothing) when they feed different inputs of a
    multi-output ``dst`` (split, unbind, chunk)."""

    __slots__ = ("_captures",)

    def __init__(self, captures: _Captures) -> None:
        self._captures = captures

    def __getitem__(self, key: tuple[int, int]) -> EdgeGrad:
        return self._captures.edges()[key]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._captures.edges())

    def __len__(self) -> int:
        return len(self._captures.edges())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._captures.edges()!r})"


@dataclass(eq=False)
class BackwardRecord:
    """What one :func:`backward` call did.

    Attributes:
        graph: the graph it ran on; its node ids are the ones in ``slot_grads`` and
            ``edge_grads``.
        slot_grads: ``{(src, slot): gradient}`` sent along ``src``'s ``next_functions[slot]``,
            for every slot that carried one (``x * x``: two slots into ``x``, each with its
            own part). A slot with no entry carried no gradient.
        edge_grads: ``{(src, dst): gradient}`` along each edge: its one slot's gradient; the
            sum of its slots' when they all feed the same input of ``dst`` (``x * x``); a
            tuple of the slots' gradients, in slot order (``None`` for a slot that carried
            nothing), when they feed different outputs of a multi-output op (split, unbind,
            chunk: see :attr:`EdgeInfo.multi_output`). An edge with no entry carried no
            gradient. (Exact also when an intermediate given in ``names`` has a hook that
            changes its gradient, ``y.register_hook(lambda g: 2 * g)``; such a hook on an
            unnamed intermediate cannot be seen, and the slots into it may show the changed
            gradient.)
        grads: ``{name: .grad}`` of the named leaves after the call (snapshots: later calls do
            not change them); ``None`` when a leaf has no gradient, or when the graph does not
            reach it (its ``.grad`` is left as it was; ``steps`` has 0 for it).
        grads_before: the same before the call (``None`` for a leaf the graph does not
            reach).
        leaf_grads: ``{node_id: .grad}`` of every leaf of the graph after the call, named or not.
        steps: ``{name: step}`` per named leaf.
        step: how many backward calls have accumulated into these leaves since their ``.grad``
            was last None: the largest per-leaf count (all leaves of one graph share it unless
            some were zeroed or filled separately; the largest is the one the pane shows as
            "call N", and ``steps`` has each).
        retained: ``{name: .grad}`` of the named intermediates given in ``retain``.
        root_gradient: the gradient backward started from (``1`` for a scalar root).
        retain_graph: whether saved tensors were kept for another call.
    """

    graph: Graph
    slot_grads: Mapping[tuple[int, int], torch.Tensor]
    edge_grads: Mapping[tuple[int, int], torch.Tensor | tuple[torch.Tensor | None, ...]]
    grads: dict[str, torch.Tensor | None]
    grads_before: dict[str, torch.Tensor | None]
    leaf_grads: dict[int, torch.Tensor | None]
    steps: dict[str, int]
    step: int
    retained: dict[str, torch.Tensor | None]
    root_gradient: torch.Tensor
    retain_graph: bool


def _explain(exc: RuntimeError, graph: Graph | None) -> BackwardError:
    msg = str(exc)
    if "backward through the graph a second time" in msg or "already been freed" in msg:
        return BackwardError("backward_twice", Message("autograd.backward-twice"), msg)
    match = _VERSION_RE.search(msg)
    if match is not None or "modified by an inplace operation" in msg:
        return _explain_stale(msg, match, graph)
    if "implicitly created only for scalar outputs" in msg:
        return BackwardError("non_scalar", Message("autograd.non-scalar"), msg)
    if "Mismatch in shape" in msg or "Mismatch in dtype" in msg or "Mismatch in device" in msg:
        return BackwardError("bad_gradient", Message("autograd.bad-gradient"), msg)
    if "does not require grad and does not have a grad_fn" in msg:
        return BackwardError("no_graph", Message("autograd.no-grad-fn"), msg)
    return BackwardError("other", Message("autograd.failed"), msg)


def _explain_stale(msg: str, match: re.Match[str] | None, graph: Graph | None) -> BackwardError:
    """A saved tensor changed in place: which node saved it, and its versions when torch
    says them."""
    nodes: list[int] = []
    where: str = ""
    if graph is not None:
        try:
            fresh = trace_saved_state(graph)
        except Exception:  # the explanation itself must not fail
            fresh = []
        nodes = [nid for nid, _ in fresh]
        if fresh:
            nid, info = fresh[0]
            where = Message("autograd.stale-where", node=graph.nodes[nid].label, name=info.name)
    versions: str = ""
    if match is not None:
        versions = Message("autograd.stale-versions", now=match.group(1), saved=match.group(2))
    explanation = Message("autograd.stale-saved", where=where, versions=versions)
    return BackwardError("stale_saved", explanation, msg, nodes)


def trace_saved_state(graph: Graph) -> list[tuple[int, SavedTensorInfo]]:
    """Re-read every node's saved tensors now and return the stale ones as (node id, info)."""
    out: list[tuple[int, SavedTensorInfo]] = []
    for node in graph.nodes:
        if node.kind == "leaf":
            continue
        for info in _saved_infos(graph.function(node.id)):
            if info.stale:
                out.append((node.id, info))
    return out


def _input_nrs(info: EdgeInfo) -> tuple[int, ...]:
    """The input of ``dst`` each slot feeds (``input_nr`` for each, when not recorded)."""
    return info.input_nrs or (info.input_nr,) * len(info.slots)


class _Plan:
    """Which nodes :func:`backward` hooks (``hooked``), whose slots are read at their
    destinations (``via_dst[node]``), and which sources have several slots into one node
    (``several``)."""

    __slots__ = ("_summary", "_walk", "hooked", "none_slots", "several", "srcs", "via_dst")

    def __init__(
        self,
        walk: _Walk,
        hooked: list[int],
        via_dst: list[bool],
        several: frozenset[int],
        srcs: list[int],
        none_slots: list[int],
    ) -> None:
        self._walk = walk
        self.hooked = hooked
        self.via_dst = via_dst
        self.several = several
        self.srcs = srcs  # the source of each slot
        self.none_slots = none_slots  # slots whose next function is None
        self._summary: tuple[list[int], frozenset[tuple[int, int]]] | None = None

    def summary(self) -> tuple[list[int], frozenset[tuple[int, int]]]:
        """The hooked nodes and the edges ``(src, dst)`` read at their destination."""
        if self._summary is None:
            starts = self._walk.starts
            dsts = self._walk.dsts
            from_dst = frozenset(
                (src, dsts[k])
                for src, flag in enumerate(self.via_dst)
                if flag
                for k in range(starts[src], starts[src + 1])
                if dsts[k] >= 0
            )
            self._summary = (self.hooked, from_dst)
        return self._summary


def _plan_hooks(walk: _Walk, changed: frozenset[int] = frozenset()) -> _Plan:
    """Which nodes get a hook, and which nodes' slots are read at their destinations (each
    slot at its own input of its destination).

    A post-hook on node ``u`` sees ``grad_inputs``: the gradient along each of ``u``'s
    ``next_functions`` slots. It also sees ``grad_outputs``, what ``u`` received, one entry per
    input of ``u`` (per output of the forward op): entry ``k`` is the sum of every slot that
    feeds input ``k``, so for an input fed by exactly one slot it *is* that slot's gradient.
    So a slot ``u[i] -> (v, k)`` is known when ``u`` is hooked, or when ``v`` is hooked and
    its input ``k`` is fed by that slot alone. A multi-output ``v`` (split, unbind) is judged
    input by input: ``a, b = x.unbind(0)`` feeds each of its two inputs once. Slots into
    leaves and into inputs fed several times need their source hooked; along runs of
    single-consumer nodes, hooking every other node covers every slot. This keeps the hook
    count (the cost of recording) well under one per node.

    ``changed``: nodes whose ``grad_outputs`` may differ from what their slots sent (a hook
    registered on their tensor, ``y.register_hook(lambda g: 2 * g)``, runs before our
    post-hook sees them); their in-slots are read at the source.
    """
    n = len(walk.functions)
    starts = np.asarray(walk.starts, dtype=np.int64)
    dst_all = np.asarray(walk.dsts, dtype=np.int64)
    src_all = np.repeat(np.arange(n, dtype=np.int64), np.diff(starts))
    valid = dst_all >= 0
    src = src_all[valid]
    dst = dst_all[valid]
    nr = np.asarray(walk.nrs, dtype=np.int64)[valid]
    # slots feeding each input (node, input_nr)
    width = int(nr.max()) + 1 if len(nr) else 1
    key = dst * width + nr
    if n * width <= 1 << 24:
        fed = np.bincount(key, minlength=n * width)[key]
    else:  # many inputs per node somewhere: count the inputs that occur
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        fed = counts[inverse]
    blocked = np.zeros(n, dtype=bool)  # leaves, and nodes whose grad_outputs may be changed
    blocked[walk.leaf_ids] = True
    if changed:
        blocked[sorted(changed)] = True
    readable = (fed == 1) & ~blocked[dst]  # the slot alone feeds an input of a non-leaf
    at_src = np.zeros(n, dtype=bool)
    at_src[src[~readable]] = True
    # sources with several slots into one node
    pair = np.sort(src * n + dst)
    repeated = pair[1:][pair[1:] == pair[:-1]]
    several = frozenset((repeated // n).tolist()) if len(repeated) else frozenset()

    hooked = at_src.tolist()
    via_dst = [False] * n
    dst_list = walk.dsts
    start_list = walk.starts
    for s in range(n):  # breadth-first: a node hooked as a destination is read as a source
        if hooked[s]:
            continue
        via_dst[s] = True
        for k in range(start_list[s], start_list[s + 1]):
            d = dst_list[k]
            if d >= 0:
                hooked[d] = True
    return _Plan(
        walk,
        [v for v in range(n) if hooked[v]],
        via_dst,
        several,
        src_all.tolist(),
        np.flatnonzero(~valid).tolist(),
    )


def _tensor_hooked(functions: list[Any], name_items: list[tuple[str, Any]]) -> frozenset[int]:
    """Nodes behind named intermediates that have a hook of their own (``register_hook``):
    such a hook may change the gradient the node receives, so its in-slots cannot be read at
    the node. (Hooks on unnamed intermediates cannot be seen from the graph.)"""
    fn_ids = {
        id(v.grad_fn)
        for _, v in name_items
        if isinstance(v, torch.Tensor)
        and v.grad_fn is not None
        and getattr(v, "_backward_hooks", None)
    }
    if not fn_ids:
        return frozenset()
    return frozenset(i for i, fn in enumerate(functions) if id(fn) in fn_ids)


def _snapshot(g: torch.Tensor | None) -> torch.Tensor | None:
    return None if g is None else g.detach().clone()


def _resolve(names: Names | None, retain: Iterable[str]) -> list[tuple[str, torch.Tensor]]:
    lookup = dict(_name_items(names))
    out: list[tuple[str, torch.Tensor]] = []
    for name in retain:
        value = lookup.get(name)
        if not isinstance(value, torch.Tensor):
            raise BackwardError("other", Message("autograd.retain-not-tensor", name=name))
        if value.grad_fn is None:
            raise BackwardError("other", Message("autograd.retain-leaf", name=name))
        out.append((name, value))
    return out


def backward(
    root: torch.Tensor,
    gradient: torch.Tensor | Sequence[Any] | float | None = None,
    retain_graph: bool = False,
    names: Names | None = None,
    *,
    retain: Iterable[str] = (),
    graph: Graph | None = None,
    snapshot: bool = True,
) -> BackwardRecord:
    """Run ``root.backward(gradient, retain_graph)`` and record what flowed where.

    Args:
        root: the tensor to backpropagate from.
        gradient: needed when ``root`` has more than one element: a tensor (or nested list) of
            the root's shape; it becomes the root's dtype and device.
        retain_graph: keep saved tensors so backward can run on this graph again.
        names: workspace names -> values; named leaves are reported in ``grads`` and
            ``steps`` (those the graph does not reach as ``None`` and 0).
        retain: names of intermediates to call ``retain_grad()`` on; their ``.grad`` is
            reported in ``retained``.
        graph: a graph already traced from ``root`` (the pane's); traced here when omitted
            (without the list of saved tensors: :func:`saved_infos` reads them live).
            Its node ids are the keys of ``slot_grads`` and ``edge_grads``.
        snapshot: copy leaf gradients after the call (so a later call does not change this
            record); False keeps references to the live ``.grad`` tensors.

    Raises:
        BackwardError: in plain words, with torch's message kept: no ``grad_fn``, a non-scalar
            root without ``gradient``, a gradient of the wrong shape, backward twice without
            ``retain_graph``, a saved tensor changed in place.
    """
    root_fn = _root_function(root)
    if gradient is None:
        if root.numel() != 1:
            raise BackwardError(
                "non_scalar", Message("autograd.root-shape", shape=shape_tuple_text(root.shape))
            )
        grad_tensor = torch.ones_like(root, memory_format=torch.preserve_format)
    else:
        grad_tensor = torch.as_tensor(gradient, dtype=root.dtype, device=root.device)
        if grad_tensor.shape != root.shape:
            shapes = Message(
                "autograd.gradient-shape",
                shape=shape_tuple_text(grad_tensor.shape),
                root_shape=shape_tuple_text(root.shape),
            )
            raise BackwardError("bad_gradient", shapes)
    with no_gc():  # the walk, the hooks and what they capture: many small objects
        return _record_backward(
            root, root_fn, grad_tensor, retain_graph, names, retain, graph, snapshot
        )


def _record_backward(
    root: torch.Tensor,
    root_fn: Any,
    grad_tensor: torch.Tensor,
    retain_graph: bool,
    names: Names | None,
    retain: Iterable[str],
    graph: Graph | None,
    snapshot: bool,
) -> BackwardRecord:
    if graph is None or not graph._functions or graph._functions[0] is not root_fn:
        # (no saved-tensor list and no Node objects: saved_infos reads the saved tensors
        # live, and the nodes are made when first read)
        graph = _trace(root_fn, names, saved=False)
    retained_pairs = _resolve(names, retain)
    for _, t in retained_pairs:
        t.retain_grad()

    walk = graph._walk_data()
    functions = walk.functions
    name_items = _name_items(names)
    leaf_name_of: dict[int, str] = {}
    for name, value in name_items:
        if isinstance(value, torch.Tensor) and value.grad_fn is None and value.requires_grad:
            leaf_name_of.setdefault(id(value), name)

    leaves: list[tuple[int, torch.Tensor]] = []
    before: dict[int, torch.Tensor | None] = {}
    was_none: dict[int, bool] = {}
    for nid in walk.leaf_ids:
        var = functions[nid].variable
        leaves.append((nid, var))
        g = var.grad
        was_none[nid] = g is None
        if id(var) in leaf_name_of:
            before[nid] = _snapshot(g)

    changed = _tensor_hooked(functions, name_items)
    if changed:  # rare: a plan for this call only
        plan = _plan_hooks(walk, changed)
    else:
        if graph._plan is None:
            graph._plan = _plan_hooks(walk)
        plan = graph._plan
    captured: list[Any] = [None] * len(functions)
    setter = captured.__setitem__
    handles = []
    error: RuntimeError | None = None
    try:
        for nid in plan.hooked:
            handles.append(
                functions[nid].register_hook(lambda gi, go, nid=nid: setter(nid, (gi, go)))
            )
        torch.autograd.backward(root, grad_tensor, retain_graph=retain_graph)
    except RuntimeError as exc:
        error = exc
    finally:
        for h in handles:
            h.remove()
        handles.clear()
    if error is not None:
        raise _explain(error, graph) from error

    leaf_grads: dict[int, torch.Tensor | None] = {}
    grads: dict[str, torch.Tensor | None] = {}
    grads_before: dict[str, torch.Tensor | None] = {}
    steps: dict[str, int] = {}
    reached: set[str] = set()
    step = 0
    for nid, var in leaves:
        g = var.grad
        if g is None:
            count = 0
            _STEPS.clear(var)
        elif was_none[nid]:
            count = 1
            _STEPS.set(var, 1)
        else:
            count = (_STEPS.get(var) or 1) + 1
            _STEPS.set(var, count)
        step = max(step, count)
        leaf_grads[nid] = _snapshot(g) if snapshot else g
        leaf_name = leaf_name_of.get(id(var))
        if leaf_name is not None:
            grads[leaf_name] = leaf_grads[nid]
            grads_before[leaf_name] = before.get(nid)
            steps[leaf_name] = count
            reached.add(leaf_name)
    for leaf_name in leaf_name_of.values():
        if leaf_name not in reached:  # a named leaf this graph does not reach: nothing flowed
            grads[leaf_name] = None
            grads_before[leaf_name] = None
            steps[leaf_name] = 0
    retained = {name: (_snapshot(t.grad) if snapshot else t.grad) for name, t in retained_pairs}
    captures = _Captures(walk, plan, captured)
    return BackwardRecord(
        graph=graph,
        slot_grads=_SlotGrads(captures),
        edge_grads=_EdgeGrads(captures),
        grads=grads,
        grads_before=grads_before,
        leaf_grads=leaf_grads,
        steps=steps,
        step=step,
        retained=retained,
        root_gradient=grad_tensor,
        retain_graph=retain_graph,
    )


# ---------------------------------------------------------------------------------------------
# zero_grad and history


@dataclass(frozen=True)
class ZeroGradRecord:
    """What :func:`zero_grad` did: ``grads`` ``{name: None | zeros}`` after it."""

    grads: dict[str, torch.Tensor | None]
    set_to_none: bool


def zero_grad(
    tensors: Iterable[torch.Tensor | str] | Mapping[str, torch.Tensor] | Graph,
    set_to_none: bool = True,
    names: Names | None = None,
) -> ZeroGradRecord:
    """Clear the gradients of leaves, like ``optimizer.zero_grad(set_to_none=...)``.

    ``set_to_none=True`` makes ``.grad`` None (the next backward starts a new count: step 1);
    ``False`` fills existing gradients with zeros in place (``.grad`` stays a tensor, so the
    step count goes on, and a leaf that gets no gradient later reads zeros, not None).

    Args:
        tensors: leaf tensors, names (looked up in ``names``), a mapping name -> tensor, or a
            :class:`Graph` (all its leaves).
        set_to_none: None (True) or zeros (False).
        names: name -> tensor, used to resolve names and to key the result.
    """
    lookup = dict(_name_items(names))
    name_of = {id(v): n for n, v in lookup.items() if isinstance(v, torch.Tensor)}
    pairs: list[tuple[str, torch.Tensor]] = []
    if isinstance(tensors, Graph):
        for node in tensors.leaves():
            var = tensors.leaf_tensor(node.id)
            assert var is not None
            pairs.append((name_of.get(id(var)) or node.tensor or f"leaf {node.id}", var))
    elif isinstance(tensors, Mapping):
        pairs = list(tensors.items())
    else:
        for i, item in enumerate(tensors):
            if isinstance(item, str):
                value = lookup.get(item)
                if not isinstance(value, torch.Tensor):
                    raise ValueError(f"zero_grad: '{item}' is not a tensor in names.")
                pairs.append((item, value))
            else:
                pairs.append((name_of.get(id(item), f"tensor {i}"), item))
    out: dict[str, torch.Tensor | None] = {}
    for name, t in pairs:
        if not t.is_leaf and not t.retains_grad:
            raise ValueError(
                f"zero_grad: '{name}' is not a leaf (it has a grad_fn); only leaves (and "
                "intermediates with retain_grad) keep a .grad to clear."
            )
        if set_to_none:
            t.grad = None
            _STEPS.clear(t)
        elif t.grad is not None:
            g = t.grad
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()
        out[name] = _snapshot(t.grad)
    return ZeroGradRecord(out, set_to_none)


@dataclass(frozen=True)
class HistoryEntry:
    """One row of the accumulation history: the event and ``.grad`` of each leaf after it."""

    event: Literal["backward", "zero_grad"]
    grads: dict[str, torch.Tensor | None]
    step: int
    set_to_none: bool | None = None




_norm = grad_norm  # the old private name


def saved_infos(graph: Graph, node_id: int) -> tuple[SavedTensorInfo, ...]:
    """Re-read the saved-tensor state of node ``node_id`` now (stale after an in-place change,
    freed after backward), rather than as it was when the graph was traced."""
    fn = graph.function(node_id)
    return _saved_infos(fn) if fn is not None else ()


class GradHistory:
    """``.grad`` of each named leaf after every backward (and zero_grad) call, for the
    accumulation table and plot.

    ``add(record)`` takes a :class:`BackwardRecord` or a :class:`ZeroGradRecord`.
    """

    def __init__(self) -> None:
        self.entries: list[HistoryEntry] = []

    def add(self, record: BackwardRecord | ZeroGradRecord) -> HistoryEntry:
        """Append what a call left in the leaves' ``.grad``."""
        if isinstance(record, BackwardRecord):
            entry = HistoryEntry("backward", dict(record.grads), record.step)
        else:
            entry = HistoryEntry("zero_grad", dict(record.grads), 0, record.set_to_none)
        self.entries.append(entry)
        return entry

    def clear(self) -> None:
        """Forget every entry."""
        self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)

    def names(self) -> list[str]:
        """Leaf names seen, in first-seen order."""
        seen: dict[str, None] = {}
        for e in self.entries:
            for n in e.grads:
                seen.setdefault(n)
        return list(seen)

    def values(self, name: str) -> list[torch.Tensor | None]:
        """``.grad`` of ``name`` after each entry (None where it was None or not involved)."""
        return [e.grads.get(name) for e in self.entries]

    def norms(self, name: str) -> list[float | None]:
        """L2 norm of ``.grad`` of ``name`` after each entry (None: no gradient), to plot."""
        return [grad_norm(g) for g in self.values(name)]

    def rows(self) -> list[dict[str, Any]]:
        """Table rows: ``{"call", "event", "step", name: norm | None, ...}`` per entry."""
        names = self.names()
        rows = []
        for i, e in enumerate(self.entries, start=1):
            row: dict[str, Any] = {"call": i, "event": e.event, "step": e.step}
            for n in names:
                row[n] = grad_norm(e.grads.get(n))
            rows.append(row)
        return rows


# ---------------------------------------------------------------------------------------------
# numerical gradient check

MAX_CHECK_ELEMENTS = 4096  # total input elements (2 forward calls each)
MAX_CHECK_OUTPUTS = 4096  # output elements (one backward call each)


@dataclass(frozen=True)
class InputCheck:
    """Autograd vs finite differences for one input: largest absolute and relative difference,
    and the input element where the absolute difference is largest."""

    name: str
    max_abs_diff: float
    max_rel_diff: float
    worst_index: tuple[int, ...] | None
    analytic: torch.Tensor  # d out / d input, shape (out numel, *input shape)
    numerical: torch.Tensor


@dataclass(frozen=True)
class NumericalCheck:
    """Result of :func:`numerical_check`: one :class:`InputCheck` per floating input."""

    inputs: dict[str, InputCheck]
    eps: float
    atol: float
    rtol: float

    @property
    def max_abs_diff(self) -> float:
        """The largest difference over all inputs (0.0 when there are none)."""
        return max((c.max_abs_diff for c in self.inputs.values()), default=0.0)

    @property
    def passed(self) -> bool:
        """Whether every difference is within ``atol + rtol * |numerical|`` (gradcheck's rule)."""
        for c in self.inputs.values():
            if not torch.all(
                (c.analytic - c.numerical).abs() <= self.atol + self.rtol * c.numerical.abs()
            ):
                return False
        return True


def numerical_check(
    fn: Callable[..., torch.Tensor],
    inputs: Mapping[str, torch.Tensor],
    eps: float = 1e-6,
    *,
    atol: float = 1e-5,
    rtol: float = 1e-3,
) -> NumericalCheck:
    """Compare autograd's gradients of ``fn(**inputs)`` with central finite differences.

    Works on float64 copies of the floating inputs (the originals are not touched); the other
    inputs are passed as they are. The full Jacobian is compared: column ``j`` numerically as
    ``(f(x + eps e_j) - f(x - eps e_j)) / 2 eps``, row ``i`` by autograd. Like
    ``torch.autograd.gradcheck``, it is for small graphs: at most ``MAX_CHECK_ELEMENTS`` input
    elements and ``MAX_CHECK_OUTPUTS`` output elements.

    Raises:
        BackwardError: ``code == "too_large"`` for inputs or output above those bounds;
            ``"no_graph"`` when the output does not depend on any checked input.
    """
    copies: dict[str, Any] = {}
    checked: list[str] = []
    total = 0
    for name, value in inputs.items():
        if isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex()):
            if value.is_complex():
                raise BackwardError("other", Message("autograd.check-complex", name=name))
            copies[name] = value.detach().to(torch.float64).clone().requires_grad_(True)
            checked.append(name)
            total += value.numel()
        else:
            copies[name] = value
    if total > MAX_CHECK_ELEMENTS:
        raise BackwardError(
            "too_large",
            Message("autograd.check-too-many-inputs", total=total, limit=MAX_CHECK_ELEMENTS),
        )
    if not checked:
        raise BackwardError("no_graph", Message("autograd.check-no-input"))

    out = fn(**copies)
    if not isinstance(out, torch.Tensor):
        raise BackwardError("other", Message("autograd.check-not-tensor"))
    if out.numel() > MAX_CHECK_OUTPUTS:
        raise BackwardError(
            "too_large",
            Message("autograd.check-too-many-outputs", count=out.numel(), limit=MAX_CHECK_OUTPUTS),
        )
    if out.grad_fn is None:
        raise BackwardError("no_graph", Message("autograd.check-no-graph"))
    flat_out = out.reshape(-1)
    n_out = flat_out.numel()
    leaves = [copies[n] for n in checked]
    analytic = {
        n: torch.zeros((n_out, copies[n].numel()), dtype=torch.float64, device=copies[n].device)
        for n in checked
    }
    for i in range(n_out):
        gs = torch.autograd.grad(flat_out[i], leaves, retain_graph=True, allow_unused=True)
        for n, g in zip(checked, gs, strict=True):
            if g is not None:
                analytic[n][i] = g.reshape(-1)

    numerical = {n: torch.zeros_like(analytic[n]) for n in checked}
    with torch.no_grad():
        for n in checked:
            flat = copies[n].view(-1)
            for j in range(flat.numel()):
                orig = flat[j].item()
                flat[j] = orig + eps
                plus = fn(**copies).reshape(-1).to(torch.float64)
                flat[j] = orig - eps
                minus = fn(**copies).reshape(-1).to(torch.float64)
                flat[j] = orig
                numerical[n][:, j] = (plus - minus) / (2 * eps)

    results: dict[str, InputCheck] = {}
    for n in checked:
        a, b = analytic[n], numerical[n]
        diff = (a - b).abs()
        shape = (n_out, *copies[n].shape)
        if diff.numel():
            k = int(torch.argmax(diff))
            col = k % diff.shape[1]
            worst = tuple(int(v) for v in torch.unravel_index(torch.tensor(col), copies[n].shape))
            max_abs = float(diff.max())
            max_rel = float((diff / b.abs().clamp_min(atol)).max())
        else:
            worst, max_abs, max_rel = None, 0.0, 0.0
        results[n] = InputCheck(n, max_abs, max_rel, worst, a.reshape(shape), b.reshape(shape))
    return NumericalCheck(results, eps, atol, rtol)
