"""What the autograd graph pane says: node and edge labels, gradients as short text, the
``gradient=`` field, and the constants cut off from the graph (no Qt).

Every text a person reads is a ``graph.*`` code of the core's one catalog
(:mod:`~tensor_explorer.core.catalog`), in English and Chinese side by side; the functions take
``lang`` (the pane passes the interface's language) and say English without it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from .autograd import EdgeGrad, Graph, grad_norm, shape_tuple_text
from .catalog import Message, render, template  # (template: looked up once per call, not per node)
from .graph_drawing import NodeText
from .graph_layout import CollapsedGraph

__all__ = [
    "CUT_REASONS",
    "EdgeNorm",
    "GradientInputError",
    "bundle_norms",
    "const_label",
    "cut_constants",
    "edge_norms",
    "edge_texts",
    "full_values",
    "node_texts",
    "ops_text",
    "parse_gradient",
    "shape_text",
    "short_values",
]

MAX_CONSTANTS = 12

#: why a value is cut off from the graph (``Origin.cut_off``) -> the catalog code saying so
CUT_REASONS: dict[str, str] = {
    "no_grad": "graph.cut-no-grad",
    "inference_mode": "graph.cut-inference-mode",
    "detach": "graph.cut-detach",
}


# ---------------------------------------------------------------------------------------------
# numbers as short text


def ops_text(labels: Any) -> str:
    """``A → B → C`` for up to three op labels, else ``A → … → Z (n)``."""
    labels = list(labels)
    if len(labels) <= 3:
        return " → ".join(labels)
    return f"{labels[0]} → … → {labels[-1]} ({len(labels)})"


def shape_text(shape: Any) -> str:
    """``(3,)``, ``(2, 3)``, ``()``; ``?`` when unknown."""
    return "?" if shape is None else shape_tuple_text(shape)


def _num(v: float) -> str:
    return f"{v:.4g}"


#: a sparse tensor with at most this many elements is shown as its dense values; a larger one
#: by its stored values (its dense form could be far larger than what it holds)
SPARSE_DENSE_LIMIT = 4096


def _stored(t: torch.Tensor) -> torch.Tensor:
    """The values a sparse tensor stores (COO coalesced, CSR/CSC/BSR/BSC as stored)."""
    return t.coalesce().values() if t.layout == torch.sparse_coo else t.values()


def _as_numbers(t: torch.Tensor) -> np.ndarray | None:
    if t.device.type == "meta":
        return None
    t = t.detach()
    if t.layout != torch.strided:  # sparse: dense when small, else what it stores
        t = t.to_dense() if t.numel() <= SPARSE_DENSE_LIMIT else _stored(t)
    if t.is_complex():
        return t.to("cpu").resolve_conj().numpy()
    return t.to("cpu", torch.float64).numpy()


def short_values(t: torch.Tensor | None, limit: int = 4, lang: str = "en") -> str:
    """``None``, ``[2, 4, 6]`` for a few elements, else ``‖·‖ = 7.483``."""
    if t is None:
        return "None"
    if t.device.type != "meta" and t.numel() > limit:  # (no copy of a large tensor for a norm)
        return f"‖·‖ = {_num(grad_norm(t) or 0.0)}"
    a = _as_numbers(t)
    if a is None:
        return render("graph.no-values", lang)
    if a.ndim == 0:
        return _scalar(a)
    if a.size <= limit:
        return _nested(a)
    return f"‖·‖ = {_num(float(np.linalg.norm(a.reshape(-1))))}"


def _scalar(a: np.ndarray) -> str:
    if np.iscomplexobj(a):
        z = complex(a)
        return f"{_num(z.real)}{'+' if z.imag >= 0 else '-'}{_num(abs(z.imag))}j"
    return _num(float(a))


def _nested(a: np.ndarray) -> str:
    """``[[32], [48]]``: a small array written as nested lists."""
    if a.ndim == 0:
        return _scalar(a)
    return "[" + ", ".join(_nested(sub) for sub in a) + "]"


def full_values(t: torch.Tensor | None, lang: str = "en") -> str:
    """The values as text (summarised beyond a few hundred elements)."""
    if t is None:
        return "None"
    a = _as_numbers(t)
    if a is None:
        return render("graph.no-values", lang)
    text = np.array2string(a, precision=5, threshold=200, edgeitems=4, suppress_small=False)
    if t.layout != torch.strided and t.numel() > SPARSE_DENSE_LIMIT:
        return f"{str(t.layout).removeprefix('torch.')}, {a.size:,} stored values: {text}"
    return text


def norm_text(v: float) -> str:
    """A norm as the labels write it."""
    return _num(v)


# ---------------------------------------------------------------------------------------------
# the gradient= field


class GradientInputError(ValueError):
    """The gradient text could not be read: ``message`` (a catalog :class:`Message`) says why;
    :meth:`text` says it in a language."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message)  # (a Message: catalog.error_in says it in a language)

    def text(self, lang: str = "en") -> str:
        """The message in ``lang``."""
        return self.message.render(lang)


def parse_gradient(text: str, root: torch.Tensor) -> torch.Tensor | None:
    """The ``gradient=`` argument from the pane's text: empty -> None; ``ones`` / ``zeros`` ->
    like the root; a number -> the root's shape filled with it; a nested list -> that tensor
    (its shape is checked by backward)."""
    t = text.strip()
    if not t:
        return None
    low = t.lower().replace(" ", "")
    if low in ("ones", "ones_like", "torch.ones_like(root)", "torch.ones_like(y)"):
        return torch.ones_like(root)
    if low in ("zeros", "zeros_like", "torch.zeros_like(root)"):
        return torch.zeros_like(root)
    try:
        value = ast.literal_eval(t)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise GradientInputError(Message("graph.gradient-unreadable", text=t)) from None
    if isinstance(value, bool) or not isinstance(value, (int, float, list, tuple)):
        raise GradientInputError(Message("graph.gradient-not-numbers"))
    if isinstance(value, (int, float)):
        return torch.full_like(root, float(value))
    try:
        return torch.as_tensor(value, dtype=root.dtype, device=root.device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise GradientInputError(
            Message("graph.gradient-not-rectangular", error=str(exc))) from None


def gradient_code(text: str, root: str) -> str:
    """The ``gradient=`` text as Python for the script (``root``: the root's name)."""
    t = text.strip()
    low = t.lower().replace(" ", "")
    if low in ("ones", "ones_like", "torch.ones_like(root)", "torch.ones_like(y)"):
        return f"torch.ones_like({root})"
    if low in ("zeros", "zeros_like", "torch.zeros_like(root)"):
        return f"torch.zeros_like({root})"
    value = ast.literal_eval(t)
    if isinstance(value, (int, float)):
        return f"torch.full_like({root}, {float(value)!r})"
    return f"torch.tensor({value!r}, dtype={root}.dtype, device={root}.device)"


# ---------------------------------------------------------------------------------------------
# node and edge labels


def node_texts(
    shown: Graph | CollapsedGraph,
    graph: Graph,
    retained: Mapping[str, torch.Tensor | None] | None = None,
    lang: str = "en",
) -> dict[int, NodeText]:
    """What each node of the shown graph says in ``lang`` (a leaf's ``.grad`` read live from
    the leaf; ``retained``: the ``.grad`` of intermediates retain_grad was called on, by name).

    Linear and cheap per node (templates looked up once, shape texts cached): big graphs
    have tens of thousands of nodes.
    """
    t_leaf = template("graph.leaf", lang)
    t_ops = template("graph.ops", lang)
    t_repeat = template("graph.repeat-ops", lang)
    t_block = template("graph.block", lang)
    t_expand = render("graph.click-to-expand", lang)
    t_root_named = template("graph.root-named", lang)
    t_root = render("graph.root", lang)
    t_retained = template("graph.retained", lang)
    t_stale = render("graph.stale", lang)
    tip_leaf = render("graph.tip-leaf", lang)
    tip_group = render("graph.tip-chain", lang)
    tip_repeat = template("graph.tip-repeat", lang)
    tip_block = render("graph.tip-block", lang)
    tip_op = render("graph.tip-op", lang)
    tip_module = template("graph.tip-module", lang)
    t_call = template("graph.call", lang)
    t_calls = template("graph.calls", lang)
    meta_cache: dict[tuple[Any, Any], tuple[str, str, str]] = {}
    groups = shown.groups if isinstance(shown, CollapsedGraph) else {}
    infos = shown.info if isinstance(shown, CollapsedGraph) else {}
    retained = retained or {}
    out: dict[int, NodeText] = {}
    for node in shown.nodes:
        mk = (node.shapes[0] if node.shapes else None, node.dtypes[0] if node.dtypes else None)
        cached = meta_cache.get(mk)
        if cached is None:
            shape = shape_text(mk[0]) if mk[0] is not None else ""
            dtype = (mk[1] or "").replace("torch.", "")
            cached = meta_cache[mk] = (f"{shape} {dtype}".strip(), shape, dtype)
        meta = cached[0]
        named = node.tensor is not None
        kind = node.kind
        saved = node.saved
        stale = bool(saved) and True in [sv.stale for sv in saved]
        if kind == "leaf":
            var = graph.leaf_tensor(node.id)
            grad = None if var is None else var.grad
            title = node.tensor or "AccumulateGrad"
            lines = [t_leaf.format(shape=cached[1], dtype=cached[2]).strip(),
                     f"grad = {short_values(grad, lang=lang)}"]
            tip = tip_leaf
        elif kind == "group":
            members = groups.get(node.id, ())
            info = infos.get(node.id)
            if info is not None and info.kind == "module":
                title = info.title
                lines = [ops_text(info.block_ops)]
                inside = [graph.nodes[m].tensor for m in members if graph.nodes[m].tensor]
                if inside:
                    lines.append(", ".join(f"= {t}" for t in inside[:3]))
                if info.index > 1:
                    lines.append(t_call.format(index=info.index))
                lines.append(t_expand)
                tip = tip_module.format(title=info.title)
            elif info is not None and info.kind == "repeat":
                title = (f"{info.repeats} × {info.title}" if info.title
                         else t_repeat.format(repeats=info.repeats, count=len(info.block_ops)))
                lines = [t_calls.format(repeats=info.repeats) if info.title else
                         ops_text(info.block_ops), t_expand]
                tip = tip_repeat.format(repeats=info.repeats)
            elif info is not None and info.kind == "block":
                title = t_block.format(index=info.index, repeats=info.repeats)
                lines = [info.title or ops_text(info.block_ops), t_expand]
                tip = tip_block
            else:
                first = graph.nodes[members[0]].label if members else ""
                last = graph.nodes[members[-1]].label if members else ""
                title = t_ops.format(count=len(members))
                lines = [f"{first} … {last}", t_expand]
                tip = tip_group
        else:
            title = node.label
            lines = []
            if kind == "root":
                lines.append(t_root_named.format(name=node.tensor) if named else t_root)
            elif named:
                lines.append(f"= {node.tensor}")
            lines.append(meta)
            if node.tensor is not None and node.tensor in retained:
                lines.append(t_retained.format(
                    value=short_values(retained[node.tensor], lang=lang)))
            if stale:
                lines.append(t_stale)
            tip = tip_op
        out[node.id] = NodeText(title, lines, kind, named, stale, tip)
    return out


def _parts(g: EdgeGrad | None) -> list[torch.Tensor | None]:
    """An edge's gradient as a list of parts (one, or one per output of a multi-output op)."""
    if g is None:
        return []
    return list(g) if isinstance(g, tuple) else [g]


def edge_grad_norm(g: EdgeGrad | None) -> float | None:
    """The norm of an edge's gradient; for one that feeds several outputs of a multi-output op
    (a tuple), of all its parts together (root of the sum of squares). None: no gradient."""
    norms = [grad_norm(p) for p in _parts(g)]
    known = [n for n in norms if n is not None]
    if not known:
        return None
    return float(sum(n * n for n in known) ** 0.5)


EdgeNorm = float | tuple[float | None, ...] | None


def edge_norms(record: Any) -> dict[tuple[int, int], EdgeNorm]:
    """The norm of the gradient along every edge of a :class:`BackwardRecord`; for an edge
    into several outputs of a multi-output op, one norm per slot (in slot order)."""
    return {k: tuple(grad_norm(p) for p in g) if isinstance(g, tuple) else grad_norm(g)
            for k, g in record.edge_grads.items()}


def bundle_norms(
    shown: Graph | CollapsedGraph, record: Any | None
) -> dict[tuple[int, int], float | None]:
    """For each shown edge that stands for several edges (a group of repeated blocks to a leaf
    they all read), the norm of the sum of their gradients: what the group sends along it.

    The edges of a bundle end at the same node (or, between two groups, at a few nodes of the
    same group); the gradients into each node's input add up, and the sums for different
    nodes or outputs of a multi-output op are combined as one vector (root of the sum of
    squares). ``None`` where no gradient flowed.
    """
    out: dict[tuple[int, int], float | None] = {}
    if record is None or not isinstance(shown, CollapsedGraph):
        return out
    slot_grads = record.slot_grads
    info_of = shown.source.edge_info
    for key, originals in shown.bundles.items():
        sums: dict[tuple[int, int], torch.Tensor] = {}
        for e in originals:
            info = info_of.get(e)
            if info is None:
                continue
            for slot, nr in zip(info.slots, info.input_nrs, strict=True):
                g = slot_grads.get((e[0], slot))
                if g is None or g.device.type == "meta":
                    continue
                g64 = g.detach().to(torch.complex128 if g.is_complex() else torch.float64)
                prev = sums.get((e[1], nr))
                sums[(e[1], nr)] = g64 if prev is None else prev + g64
        if not sums:
            out[key] = None
        else:
            sq = sum((grad_norm(t) or 0.0) ** 2 for t in sums.values())
            out[key] = sq ** 0.5
    return out


def edge_texts(
    shown: Graph | CollapsedGraph,
    graph: Graph,
    norms: Mapping[tuple[int, int], EdgeNorm] | None,
    bundled: Mapping[tuple[int, int], float | None] | None = None,
    lang: str = "en",
) -> tuple[dict[tuple[int, int], str], dict[tuple[int, int], int]]:
    """Label (shape, and the gradient's norm after backward) and kind (0 plain, 1 carried a
    gradient) of each shown edge, in ``lang``.

    ``norms`` are by original edge; an edge that stands for several (see :func:`bundle_norms`,
    which gives ``bundled``) says how many (``× N``) and the norm of their sum. An input used
    twice by one op (``x * x``) says ``×2``; an edge into several outputs of a multi-output op
    (``split``) says which outputs.
    """
    labels: dict[tuple[int, int], str] = {}
    kinds: dict[tuple[int, int], int] = {}
    edge_map = shown.edge_map if isinstance(shown, CollapsedGraph) else None
    bundles = shown.bundles if isinstance(shown, CollapsedGraph) else {}
    no_grad = "\n" + render("graph.no-grad", lang)
    t_outputs = template("graph.outputs", lang)
    t_out = template("graph.out", lang)
    cache: dict[tuple[Any, ...], str] = {}
    info_of = graph.edge_info
    for key in shown.edges:
        bundle = bundles.get(key)
        norm: EdgeNorm
        if bundle is not None:
            info = info_of.get(bundle[0])
            shape = shape_text(info.shape) if info is not None and info.shape is not None else ""
            text = f"{shape} × {len(bundle)}".strip()
            norm, sign = (None if bundled is None else bundled.get(key)), "‖∑∇‖"
        else:
            orig = edge_map[key] if edge_map is not None else key
            info = info_of.get(orig)
            ck: tuple[Any, ...] = ((None, 1, ()) if info is None
                                   else (info.shape, len(info.slots), info.input_nrs))
            cached = cache.get(ck)
            if cached is None:
                nrs = sorted(set(ck[2]))
                if len(nrs) > 1:
                    cached = t_outputs.format(outputs=", ".join(map(str, nrs)))
                else:
                    cached = shape_text(ck[0]) if ck[0] is not None else ""
                    if ck[1] > 1:
                        cached += f" ×{ck[1]}"
                cache[ck] = cached
            text = cached
            norm, sign = (None if norms is None else norms.get(orig)), "‖∇‖"
        if norms is not None:
            if isinstance(norm, tuple):  # one line per output of a multi-output op
                outs = info.input_nrs if info is not None else tuple(range(len(norm)))
                for nr, part in zip(outs, norm, strict=False):
                    shown_norm = "None" if part is None else _num(part)
                    text += f"\n{t_out.format(output=nr)} {sign} = {shown_norm}"
                kinds[key] = 1
            elif norm is None:
                text += no_grad
            else:
                text += f"\n{sign} = {_num(norm)}"
                kinds[key] = 1
        labels[key] = text
    return labels, kinds


# ---------------------------------------------------------------------------------------------
# constants cut off from the graph


def const_label(name: str, reason: str, lang: str = "en") -> NodeText:
    """What the box of a cut-off constant says in ``lang`` (``reason``: a key of
    :data:`CUT_REASONS`)."""
    return NodeText(
        name,
        [render("graph.constant", lang, reason=reason), render("graph.gradient-stops", lang)],
        "const",
        False,
        False,
        render(CUT_REASONS[reason], lang),
    )


def cut_constants(ws: Any, graph: Graph | None, selected: str | None) -> list[tuple[str, str,
                                                                                    list[int]]]:
    """Workspace tensors cut off from the graph (origin says no_grad / inference_mode /
    detach): ``(name, reason, ids of the graph nodes named in the expression that made it)``."""
    by_name: dict[str, list[int]] = {}
    if graph is not None:
        for node in graph.nodes:
            for t in node.tensors:
                by_name.setdefault(t, []).append(node.id)
    out: list[tuple[str, str, list[int]]] = []
    for name in ws.names():
        value = ws.get(name)
        if not isinstance(value, torch.Tensor) or value.grad_fn is not None:
            continue
        origin = ws.origin(name)
        reason = origin.cut_off if origin is not None else None
        if reason is None or reason not in CUT_REASONS:
            continue
        expr = origin.call or origin.statement or ""
        refs = set(re.findall(r"[A-Za-z_]\w*", expr))
        sources = sorted({i for r in refs for i in by_name.get(r, ())})
        if not sources and name != selected:
            continue
        out.append((name, reason, sources))
        if len(out) >= MAX_CONSTANTS:
            break
    return out
