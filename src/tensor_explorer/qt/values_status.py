"""The Values panel's words: its title, why a value is not shown, what the plane on screen is
(preview steps, the slice, the NaN/Inf legend), and the status line (notes, refusals, the
progress of a preview) with the hover line above it.

Owned by :class:`.ValuesPanel`; every text is translated in the panel's context
(``"ValuesPanel"``), so the panel's catalogue serves them all.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..core import preview, values_view
from ..core.catalog import text_in
from ..core.facts import short_dtype
from ..core.preview import Plane
from . import i18n, theme

if TYPE_CHECKING:
    from .values_heatmap import MultiscaleHeatmap

translate = QtCore.QCoreApplication.translate


def title_text(name: str | None, value: Any) -> str:
    """The panel's title (rich text): the name, shape, dtype and device of ``value``."""
    v = value
    shown = html.escape(name) if name else translate("ValuesPanel", "(unnamed)")
    if not hasattr(v, "shape") or not hasattr(v, "dtype"):
        return f"<b>{shown}</b>"
    shape = (" × ".join(str(int(n)) for n in v.shape) if v.ndim
             else translate("ValuesPanel", "scalar"))
    where = ""
    if hasattr(v, "device") and getattr(v.device, "type", "cpu") != "cpu":
        where = f" · {v.device}"
    return f"<b>{shown}</b> &nbsp; {shape} · {html.escape(short_dtype(v.dtype))}{where}"


def part_text(part: str) -> str:
    """The name of a part of a complex number (one of :data:`preview.PARTS`)."""
    return {"magnitude": translate("ValuesPanel", "magnitude"),
            "phase": translate("ValuesPanel", "phase"),
            "real": translate("ValuesPanel", "real part"),
            "imag": translate("ValuesPanel", "imaginary part")}[part]


def plane_cell_text(plane: Plane, cell: tuple[int, ...], part: str) -> str:
    """``"[i, j] = value"`` for ``cell`` of the drawn ``plane`` (its index into the whole
    value, and, for a complex number, the ``part`` drawn)."""
    idx = plane.original_index(*cell)
    text = preview.format_value(plane.raw[cell], plane.dtype)
    if plane.kind == "complex" and plane.part is not None:
        shown = preview.format_value(plane.data[cell], "float64")
        text += f"   ({part_text(part)} {shown})"
    return f"[{', '.join(map(str, idx))}] = {text}"


def preview_error_text(exc: preview.PreviewError) -> str:
    """Why a value is not shown, in the window's language (core gives a code and its details;
    English where the code is unknown)."""
    texts = {
        "meta": translate("ValuesPanel", "meta tensor: it has a shape {shape} and a dtype "
                          "({dtype}) but no data to show"),
        "nested": translate("ValuesPanel",
                            "nested tensor: its rows have different lengths; not shown"),
        "sparse": translate("ValuesPanel", "sparse tensor ({layout}): convert it with "
                            ".to_dense() to see its values"),
        "quantized": translate("ValuesPanel",
                               "quantized tensor: call .dequantize() to see its values"),
        "not_array": translate("ValuesPanel", "not a tensor or an array: {type}"),
        "record": translate("ValuesPanel", "a record with the fields {fields}: each field is "
                            "a value of its own (expand the record in the Workspace and "
                            "select one)"),
        "not_numbers": translate("ValuesPanel",
                                 "values of dtype {dtype} are not numbers; not shown"),
        "empty": translate("ValuesPanel", "empty: shape {shape} has no elements"),
    }
    text = texts.get(exc.code)
    return text.format(**exc.params) if text is not None else str(exc)


def _notes(plane: Plane, heatmap: MultiscaleHeatmap | None, table: bool) -> list[str]:
    """The notes about ``plane``: its preview steps, its heatmap's level, what 1 and 0 mean."""
    parts: list[str] = []
    if plane.downsampled and not table:
        size = " × ".join(str(n) for n in plane.full_size)
        steps = plane.steps
        if len(steps) == 1:
            parts.append(translate(
                "ValuesPanel", "preview: 1 of every {r} elements of {size}").format(
                r=steps[0], size=size))
        else:
            parts.append(translate(
                "ValuesPanel",
                "preview: 1 of every {r} rows and 1 of every {c} columns of {size}"
            ).format(r=steps[0], c=steps[1], size=size))
    if heatmap is not None and heatmap.detail is not None:
        parts.append(translate("ValuesPanel", "zoomed in: exact elements"))
    elif heatmap is not None and heatmap.summary is not None:
        parts.append(translate("ValuesPanel", "each cell drawn as the extreme of its block"))
    elif heatmap is not None and heatmap.busy():
        parts.append(translate("ValuesPanel", "looking for NaN, Inf and extremes…"))
    if plane.kind == "bool" and plane.data.ndim and not table:
        parts.append(translate("ValuesPanel", "1 = True, 0 = False"))
    return parts


def status_text(plane: Plane, name: str | None, table: bool,
                heatmap: MultiscaleHeatmap | None) -> str:
    """The status line (rich text) for ``plane`` of the value called ``name``. ``table``: the
    table shows it (the whole plane, read from the value: no preview note, no counts of the
    preview's NaN/Inf, its cells are coloured where they are); ``heatmap``: the heatmap that
    draws it, when it is on screen."""
    parts = _notes(plane, heatmap, table)
    expr = values_view.slice_expression(plane, name)
    if expr is not None:
        parts.append(translate("ValuesPanel", "showing {expr}").format(expr=expr))
    text = html.escape(" · ".join(parts))
    t = theme.current()
    legend = []
    # the whole plane's counts once its block summary is in, else what the preview shows
    summary = heatmap.summary if heatmap is not None else None
    exact = summary is not None
    src = summary if summary is not None else plane
    counts = (src.nan_count, src.posinf_count, src.neginf_count)
    for key, count, label in zip(("nan", "posinf", "neginf"), counts,
                                 ("NaN", "+Inf", "−Inf"), strict=True):
        if count and not table:
            legend.append(f'<span style="color:{getattr(t, key)}">■</span> {count} {label}')
    if legend:
        shown = translate("ValuesPanel", "in all") if exact else translate("ValuesPanel",
                                                                            "shown")
        text = (text + " · " if text else "") + ", ".join(legend) + " " + html.escape(shown)
    return text


class ValuesStatus(QtCore.QObject):
    """The hover line (:attr:`hover`), the status line (:attr:`status`) and the preview's
    progress bar (:attr:`progress`); :attr:`bottom` lays out the last two. :attr:`refusal` is
    the reason on the status line while a refusal is shown."""

    def __init__(self, parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self.refusal: str | None = None
        self.hover = QtWidgets.QLabel(" ")
        self.hover.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status = QtWidgets.QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.hide()
        self.bottom = QtWidgets.QHBoxLayout()
        self.bottom.addWidget(self.status, 1)
        self.bottom.addWidget(self.progress)

    def set_texts(self) -> None:
        self.progress.setFormat(translate("ValuesPanel", "computing preview… %p%"))

    def computing(self) -> None:
        """Say that a preview is being computed."""
        self.status.setText(html.escape(translate("ValuesPanel", "computing preview…")))

    def show(self, text: str) -> None:
        """Show rich ``text`` (what the plane on screen is), ending any refusal shown."""
        self.refusal = None
        self.status.setText(text)

    def say(self, text: str) -> None:
        """A plain message (not a refusal to write) on the status line, in the error colour."""
        self.refusal = None
        self.status.setText(f'<span style="color:{theme.current().error}">'
                            f"{html.escape(text)}</span>")

    def refuse(self, reason: str) -> None:
        """Say that an edit was not written, and why (``reason``: a catalog Message is said in
        the current language, again after a language switch)."""
        self.refusal = reason
        t = theme.current()
        not_written = translate("ValuesPanel", "Not written: ")
        said = text_in(reason, i18n.current())
        self.status.setText(f'<span style="color:{t.error}">'
                            f"{html.escape(not_written)}{html.escape(said)}</span>")

    def last_message(self) -> str:
        """The plain text of the status line (notes, refusals)."""
        doc = QtGui.QTextDocument()
        doc.setHtml(self.status.text())
        return doc.toPlainText()
