"""The Memory panel's words: the legend, strip captions, a value's detail line, the relation
list's headers, kinds and note.

Plain functions of the core model (:mod:`tensor_explorer.core.memory_drawing`), in the current
language; their texts belong to the panel's translation context ("MemoryPanel"). The module is
what the panel gives its relation list (:class:`~.memory_relations.RelationModel`) as ``texts``:
:func:`headers`, :func:`kind_text`, :func:`kind_tip`, :func:`pending_text`.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ..core.autograd import shape_tuple_text
from ..core.memory_drawing import LaneModel, MemoryModel, StripModel, WriteMarks, human_bytes

translate = QCoreApplication.translate


def legend() -> str:
    """The line over the drawing."""
    return translate("MemoryPanel",
        "Grey strip = one block of memory. Rows = values, drawn on the bytes they read. "
        "Same strip = shared memory. Hover a cell.")


def legend_tip() -> str:
    """The legend's tool tip: what the drawing shows and how to hover and zoom it."""
    return translate("MemoryPanel",
        "Each grey strip is one block of memory (an allocation), its bytes numbered from 0. "
        "Each coloured row under it is a value, drawn on the bytes it reads. Values in the "
        "same strip share memory; a separate strip is separate memory. Hover a cell to light "
        "up every element that reads the same bytes.") + "\n\n" + translate("MemoryPanel",
        "Hover a cell: its bytes and every element that reads them light up. Wheel over a "
        "strip zooms into its bytes; double-click zooms out.")


def table_title() -> str:
    """The relation list's title."""
    return translate("MemoryPanel", "Values that share memory")


def failure(message: str) -> str:
    """What the drawing shows when computing it failed with ``message``."""
    return translate("MemoryPanel", "The memory drawing failed: {0}").format(message)


def headers() -> list[str]:
    """The relation list's column headers."""
    return [translate("MemoryPanel", "a"), translate("MemoryPanel", "b"),
            translate("MemoryPanel", "relation"), translate("MemoryPanel", "shared bytes"),
            translate("MemoryPanel", "why")]


def pending_text(a: str, b: str) -> str:
    """The relation cell of a pair still being counted."""
    return translate("MemoryPanel", "overlap? counting…")


def relation_note(model: MemoryModel, pending: int) -> str:
    """The lines under the relation list: no pair, or ``pending`` pairs still being counted;
    the values with memory of their own; what is not drawn."""
    own = model.own_memory()
    lines = []
    if not model.pairs:
        lines.append(translate("MemoryPanel", "No two values share memory."))
    elif pending:
        lines.append(translate("MemoryPanel", "Counting the shared bytes of 1 pair…")
                     if pending == 1 else
                     translate("MemoryPanel", "Counting the shared bytes of {0} pairs…")
                     .format(pending))
    if own:
        lines.append(translate("MemoryPanel", "Own memory (no other value reads its bytes): {0}")
                     .format(", ".join(own)))
    if model.skipped:
        lines.append(translate("MemoryPanel", "Not tensors or arrays, not drawn: {0}").format(
            ", ".join(model.skipped)))
    return "\n".join(lines)


def strip_title(strip: StripModel) -> str:
    """The caption of an allocation: its number, size, device, cell size and owner."""
    if not strip.has_memory:
        return translate("MemoryPanel", "Allocation {0}: none, on {1}").format(
            strip.number, strip.device)
    big = strip.nbytes >= 1024
    size = human_bytes(strip.nbytes) if big else translate(
        "MemoryPanel", "{0} bytes").format(strip.nbytes)
    exact = translate("MemoryPanel", " ({0} bytes)").format(f"{strip.nbytes:,}") if big else ""
    where = "CPU" if strip.device == "cpu" else strip.device.upper()
    title = translate("MemoryPanel", "Allocation {0}: {1}{2} on {3}").format(
        strip.number, size, exact, where)
    if strip.unit > 1:
        title += translate("MemoryPanel", ", one cell = {0} bytes").format(strip.unit)
    if strip.owner:
        title += translate("MemoryPanel", ", owner: {0}").format(strip.owner)
    return title


def lane_detail(lane: LaneModel, marks: WriteMarks) -> str:
    """A value's detail line: kind, dtype, shape, stride, offset, version, ×N."""
    kind = (translate("MemoryPanel", "tensor") if lane.kind == "tensor"
            else translate("MemoryPanel", "NumPy array"))
    parts = [f"{kind} {lane.dtype} {shape_tuple_text(lane.shape)}"]
    if lane.device != "cpu":
        parts.append(lane.device)
    if lane.stride or lane.shape:
        parts.append(translate("MemoryPanel", "stride {0}").format(shape_tuple_text(lane.stride)))
    parts.append(translate("MemoryPanel", "offset {0}").format(lane.offset))
    if lane.version is not None:
        before = marks.version_up.get(lane.name)
        if before is not None:
            parts.append(translate("MemoryPanel", "version {0} → {1}").format(
                before, lane.version))
        else:
            parts.append(translate("MemoryPanel", "version {0}").format(lane.version))
    if lane.max_mult > 1:
        parts.append(translate("MemoryPanel", "up to {0} elements read one element's bytes")
                     .format(lane.max_mult) if not lane.uniform_mult else
                     translate("MemoryPanel", "×{0}: each cell is read by {0} elements")
                     .format(lane.max_mult))
    return " · ".join(parts)


def written_note(lane: LaneModel, marks: WriteMarks) -> str:
    """What the last write did to this value, in words (empty when nothing)."""
    changed = len(marks.changed_cells.get(lane.name, ()))
    if not changed:
        return ""
    text = translate("MemoryPanel", "changed by the last write: {0} cell(s), outlined").format(
        changed)
    if lane.version is not None and lane.name not in marks.version_up:
        text += translate("MemoryPanel", "; version unchanged: torch does not count writes "
                                         "made through NumPy")
    return text


def lane_relation(lane: LaneModel) -> str:
    """How a value sits in the one above it (empty for a top-level value)."""
    if lane.parent is None:
        return ""
    if lane.parent_kind == "alias":
        return translate("MemoryPanel", "alias of {0}: the same bytes").format(lane.parent)
    return translate("MemoryPanel", "view inside {0}: part of its bytes").format(lane.parent)


def kind_text(kind: str, a: str = "a", b: str = "b") -> str:
    """The relation kind of the pair (``a``, ``b``) in words a learner reads, naming them."""
    if kind == "contains":
        return translate("MemoryPanel", "contains: {1} is part of {0}").format(a, b)
    if kind == "inside":
        return translate("MemoryPanel", "inside: {0} is part of {1}").format(a, b)
    return {
        "alias": translate("MemoryPanel", "alias: the same bytes"),
        "overlap": translate("MemoryPanel", "overlap: some bytes in common"),
        "same-storage": translate("MemoryPanel", "same storage, different bytes"),
    }.get(kind, kind)


def kind_tip(kind: str, a: str = "a", b: str = "b") -> str:
    """The tool tip of a relation kind, naming both values."""
    if kind == "contains":
        return translate("MemoryPanel", "Every byte of {1} is also a byte of {0} ({1} is a "
                                        "slice, column or diagonal of {0}): writing {1} "
                                        "changes {0}.").format(a, b)
    return {
        "alias": translate("MemoryPanel", "Both read exactly the same bytes: writing one "
                                          "changes the other."),
        "overlap": translate("MemoryPanel", "They share some bytes, and each has bytes the "
                                            "other lacks."),
        "same-storage": translate("MemoryPanel", "One allocation, but no byte in common: "
                                                 "writing one never changes the other."),
    }.get(kind, "")
