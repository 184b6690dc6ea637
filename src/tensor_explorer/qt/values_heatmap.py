"""The Values panel's heatmap at every zoom: :class:`MultiscaleHeatmap`.

A huge plane is first drawn from a strided preview (:func:`.preview.slice_plane`): fast, but
blind between its samples. This helper, owned by the :class:`.ValuesPanel`, adds three levels
of truth, each computed in the background (:class:`.Task`, cancelled when superseded):

- the *block summary* (:func:`.multiscale.summarise`): each preview cell is drawn as the extreme
  of the block of elements it stands for, and marked in the theme's NaN/+Inf/-Inf colour when
  that block holds one, so a NaN anywhere is visible at every scale; the colour range is the
  plane's exact finite range;
- the *region summary* (a finer level of the pyramid, made for the part in view): zoomed in,
  but not yet far enough for the elements to fit the budget, the region in view is summarised
  the same way with the finest blocks that fit (``3 x 3`` elements where the preview has
  ``33 x 33``), drawn over the preview, so detail and NaN marks sharpen at every zoom;
- the *full-resolution region*: once the view is zoomed in so far that the elements in view fit
  the panel's cell budget, they are read exactly (debounced; a new zoom cancels the previous
  read) and drawn over the preview, so hover, tool tips and cell numbers are real elements at
  their true indices; zooming out again drops back to the preview;
- the *colour range* chosen in :attr:`levels_box`: exact min/max, the 1st-99th percentile
  (estimated from the preview's evenly spread elements), or symmetric around 0.

The panel asks it what to draw (:meth:`show`, :meth:`levels`), where the cursor is
(:meth:`locate`, :meth:`hover_text`) and which plane its cell numbers come from
(:meth:`label_plane`); it holds no facts of its own beyond what the core computed.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ..core import multiscale, preview
from ..core.multiscale import BlockSummary
from ..core.preview import Plane
from . import theme
from .values_controls import set_item_texts
from .workers import Task

if TYPE_CHECKING:
    from .values_panel import ValuesPanel

#: colour ranges the heatmap offers (:meth:`MultiscaleHeatmap.set_levels_mode`)
LEVEL_MODES = ("minmax", "percentile", "symmetric")
PERCENTILES = (1.0, 99.0)
DETAIL_DELAY_MS = 120  # a zoom or pan settles this long before the region is read
MARK_PX = 7  # the side of a NaN/Inf marker on screen, whatever the zoom
MAX_MARKS = 5000  # beyond this many marked cells the cells themselves show (no markers)


def overlay_rgba(masks: dict[str, np.ndarray]) -> np.ndarray | None:
    """An RGBA image painting each ``"nan"``/``"posinf"``/``"neginf"`` mask in the theme's
    colour for it (NaN wins over +Inf over -Inf); None when no mask is set anywhere."""
    if not any(m.any() for m in masks.values()):
        return None
    t = theme.current()
    shape = next(iter(masks.values())).shape
    rgba = np.zeros((*shape, 4), dtype=np.uint8)
    for key in ("neginf", "posinf", "nan"):  # later keys paint over earlier ones
        c = QtGui.QColor(getattr(t, key))
        rgba[masks[key]] = (c.red(), c.green(), c.blue(), 255)
    return rgba


def _exact(x: Any, kind: str, dtype: str) -> str:
    """One element at full precision: the shortest text that reads back to the same number
    in its own dtype (float32 stays float32), ints exact."""
    if kind == "float" and isinstance(x, np.floating):
        v = float(x)
        return preview.format_value(v) if not math.isfinite(v) else str(x)
    return preview.format_value(x, dtype)


def _draw_layer(image: pg.ImageItem, overlay: pg.ImageItem, data: np.ndarray,
                masks: dict[str, np.ndarray], rect: QtCore.QRectF, lo: float, hi: float) -> None:
    """One layer of the heatmap (the preview, the finer level or the exact region): its
    values on the colour scale (non-finite ones drawn at ``lo`` under their marks) and its
    NaN/Inf marks over them."""
    shown = np.where(np.isfinite(data), data, lo).astype(np.float32)  # pyqtgraph: faster
    image.setImage(shown, autoLevels=False, levels=(lo, hi))
    image.setRect(rect)
    image.show()
    rgba = overlay_rgba(masks)
    if rgba is None:
        overlay.clear()
        overlay.hide()
    else:
        overlay.setImage(rgba, autoLevels=False, levels=(0, 255))
        overlay.setRect(rect)
        overlay.show()


class BlockMarks:
    """A marker of a few pixels on each preview cell that holds NaN/±Inf, at any zoom: in an
    overview a cell is 1–2 px, and 13 NaNs of a 4096² array were 7 pixels nobody could see."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.item = pg.ScatterPlotItem(pxMode=True, size=MARK_PX, symbol="s")
        self.item.setZValue(10.4)  # over the preview's marks, under the finer levels
        self.item.hide()
        plot.addItem(self.item)

    def paint(self, masks: dict[str, np.ndarray], steps: tuple[int, ...]) -> None:
        """A square marker of :data:`MARK_PX` pixels, in the theme's NaN/+Inf/-Inf colour with
        at each preview cell holding one (NaN wins); none when there are
        more than :data:`MAX_MARKS` such cells (then the cells themselves are plain to see)."""
        t = theme.current()
        spots: list[dict[str, Any]] = []
        taken = np.zeros(next(iter(masks.values())).shape, dtype=bool)
        for key in ("nan", "posinf", "neginf"):
            where = np.argwhere(masks[key] & ~taken)
            taken |= masks[key]
            if len(spots) + len(where) > MAX_MARKS:
                self.item.hide()
                return
            brush = pg.mkBrush(getattr(t, key))
            pen = pg.mkPen(getattr(t, key), width=1)  # (a cell large on screen keeps its colour)
            sr, sc = steps[0], steps[1]
            spots += [{"pos": (c * sc + (sc - 1) / 2, r * sr + (sr - 1) / 2), "brush": brush,
                       "pen": pen} for r, c in where.tolist()]
        self.item.setData(spots)
        self.item.setVisible(bool(spots))

    def positions(self) -> list[tuple[float, float]]:
        """Where the markers are (in elements: column, row), for tests and the hover line."""
        if not self.item.isVisible():
            return []
        xs, ys = self.item.getData()
        return list(zip(np.asarray(xs).tolist(), np.asarray(ys).tolist(), strict=True))


class MultiscaleHeatmap(QtCore.QObject):
    """Block summary, full-resolution region and colour range of the panel's heatmap.

    Signals: ``summary_shown()`` the block summary is drawn; ``detail_shown()`` a
    full-resolution region was drawn, or dropped on zooming out.
    """

    summary_shown = QtCore.Signal()
    detail_shown = QtCore.Signal()

    def __init__(self, panel: ValuesPanel) -> None:
        super().__init__(panel)
        self._panel = panel
        self.plane: Plane | None = None  # the preview plane drawn
        self.summary: BlockSummary | None = None
        self.detail: Plane | None = None  # the full-resolution region on screen
        #: the region summary on screen: its blocks and where it starts (row, column)
        self.mid: tuple[BlockSummary, int, int] | None = None
        self._mid_task: Task | None = None
        self._mid_wanted: tuple[int, int, int, int, int] | None = None  # region + step
        self._pointer: tuple[int, int] | None = None  # the element :meth:`locate` last found
        self._summary_task: Task | None = None
        self._detail_task: Task | None = None
        self._detail_wanted: tuple[int, int, int, int] | None = None  # being read
        self._mode = "minmax"
        self._percentile: tuple[Plane, tuple[float, float] | None] | None = None
        self.mid_image = pg.ImageItem(axisOrder="row-major")
        self.mid_image.setZValue(10.5)  # over the preview and its NaN marks
        self.mid_overlay = pg.ImageItem(axisOrder="row-major")
        self.mid_overlay.setZValue(10.6)
        for item in (self.mid_image, self.mid_overlay):
            item.hide()
            panel.heat_item.addItem(item)
        self.detail_image = pg.ImageItem(axisOrder="row-major")
        self.detail_image.setZValue(11)  # over the region summary
        self.detail_overlay = pg.ImageItem(axisOrder="row-major")
        self.detail_overlay.setZValue(12)
        for item in (self.detail_image, self.detail_overlay):
            item.hide()
            panel.heat_item.addItem(item)
        self.marks = BlockMarks(panel.heat_item)
        panel.colorbar.setImageItem([panel.image, self.mid_image, self.detail_image])
        self.levels_label = QtWidgets.QLabel()
        self.levels_box = QtWidgets.QComboBox()
        for mode in LEVEL_MODES:
            self.levels_box.addItem("", mode)
        self.levels_box.currentIndexChanged.connect(
            lambda i: self.set_levels_mode(self.levels_box.itemData(i)))
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DETAIL_DELAY_MS)
        self._timer.timeout.connect(self.update_detail)
        box = panel.heat_item.getViewBox()
        box.sigRangeChanged.connect(self._timer.start)
        box.sigResized.connect(self._timer.start)
        self.set_texts()

    def set_texts(self) -> None:
        """The texts of the colour-range chooser in the current language."""
        self.levels_label.setText(self.tr("colours"))
        texts = {"minmax": self.tr("min to max"),
                 "percentile": self.tr("{lo:g}% to {hi:g}%").format(lo=PERCENTILES[0],
                                                                    hi=PERCENTILES[1]),
                 "symmetric": self.tr("± around 0")}
        set_item_texts(self.levels_box, texts)
        self.levels_box.setToolTip(self.tr(
            "Colour range of the heatmap: the exact smallest to largest value; the {lo:g}th to "
            "{hi:g}th percentile, estimated from up to {n} evenly spread elements; or "
            "symmetric around 0").format(lo=PERCENTILES[0], hi=PERCENTILES[1],
                                          n=f"{self._panel.max_cells:,}"))

    # ------------------------------------------------------------------ state

    def reset(self, plane: Plane | None) -> None:
        """Forget the summary and the region (a new plane, or none); cancel their reads."""
        for task in (self._summary_task, self._detail_task, self._mid_task):
            if task is not None:
                task.cancel()
        self._summary_task = self._detail_task = self._mid_task = None
        self._detail_wanted = self._mid_wanted = None
        self.plane, self.summary, self.detail, self.mid = plane, None, None, None
        for item in (self.detail_image, self.detail_overlay, self.mid_image, self.mid_overlay):
            item.hide()

    def busy(self) -> bool:
        """True while the block summary or a region is being read."""
        return (self._summary_task is not None or self._detail_task is not None
                or self._mid_task is not None)

    # ------------------------------------------------------------------ colour range

    def levels_mode(self) -> str:
        return self._mode

    def set_levels_mode(self, mode: str) -> None:
        """The colour range: one of :data:`LEVEL_MODES`; repaints the heatmap."""
        if mode not in LEVEL_MODES:
            raise ValueError(f"mode must be one of {LEVEL_MODES}, not {mode!r}")
        self._mode = mode
        with QtCore.QSignalBlocker(self.levels_box):
            self.levels_box.setCurrentIndex(LEVEL_MODES.index(mode))
        if self.plane is not None and self._panel.current_view() == "heatmap":
            self.paint()
            self._panel.labels.timer.start()

    def exact_range(self) -> tuple[float, float] | None:
        """The plane's finite (min, max): exact once the summary is in (or when the preview is
        the whole plane), the preview's until then; None when nothing is finite."""
        plane = self.plane
        if plane is None:
            return None
        if self.summary is not None:
            lo, hi = self.summary.min, self.summary.max
        else:
            lo, hi = plane.lo, plane.hi
        return None if lo is None or hi is None else (float(lo), float(hi))

    def _percentiles(self) -> tuple[float, float] | None:
        plane = self.plane
        assert plane is not None
        if self._percentile is None or self._percentile[0] is not plane:
            data = plane.data[np.isfinite(plane.data)]
            got = None
            if data.size:
                lo, hi = np.percentile(data, PERCENTILES)
                got = (float(lo), float(hi))
            self._percentile = (plane, got)
        return self._percentile[1]

    def levels(self) -> tuple[float, float]:
        """The colour bar's (low, high) for the current plane and mode."""
        plane = self.plane
        if plane is None or plane.kind == "bool":
            return 0.0, 1.0
        got = self.exact_range()
        if got is None:
            return 0.0, 1.0
        lo, hi = got
        if self._mode == "symmetric":
            m = max(abs(lo), abs(hi))
            lo, hi = -m, m
        elif self._mode == "percentile":
            lo, hi = self._percentiles() or (lo, hi)
        if lo == hi:
            return lo - 0.5, hi + 0.5
        return lo, hi

    # ------------------------------------------------------------------ drawing

    def show(self, plane: Plane) -> QtCore.QRectF:
        """Draw ``plane`` (and what is known beyond it); returns the rectangle it covers.
        A new plane starts its block summary when it is a downsampled preview."""
        if plane is not self.plane:
            self.reset(plane)
        self.paint()
        if plane.downsampled and plane.data.ndim == 2 and self.summary is None \
                and self._summary_task is None:
            self._start_summary(plane)
        rows, cols = plane.data.shape
        return QtCore.QRectF(-0.5, -0.5, cols * plane.steps[1], rows * plane.steps[0])

    def paint(self) -> None:
        """(Re)paint the preview, its NaN/Inf marks, the colour bar and the region."""
        plane = self.plane
        assert plane is not None
        p = self._panel
        lo, hi = self.levels()
        if self.summary is not None:
            s = self.summary
            data = s.shown((lo + hi) / 2)
            masks = {"nan": s.nan > 0, "posinf": s.posinf > 0, "neginf": s.neginf > 0}
        else:
            data = plane.data
            masks = {"nan": plane.nan, "posinf": plane.posinf, "neginf": plane.neginf}
        rows, cols = data.shape
        rect = QtCore.QRectF(-0.5, -0.5, cols * plane.steps[1], rows * plane.steps[0])
        _draw_layer(p.image, p.overlay, data, masks, rect, lo, hi)
        self.marks.paint(masks, plane.steps)
        p.colorbar.setLevels((lo, hi))
        # bool: only the two ends, 0 (False) and 1 (True), not a scale of fractions
        if plane.kind == "bool":
            p.colorbar.axis.setTickSpacing(1.0, 1.0)
        else:
            p.colorbar.axis.setTickSpacing()
        self._paint_mid(lo, hi)
        self._paint_detail(lo, hi)

    def _paint_mid(self, lo: float, hi: float) -> None:
        if self.mid is None:
            self.mid_image.hide()
            self.mid_overlay.hide()
            return
        s, r0, c0 = self.mid
        data = s.shown((lo + hi) / 2)
        rows, cols = data.shape
        # blocks of the region from its corner (the last ones may be smaller than a step)
        rect = QtCore.QRectF(c0 - 0.5, r0 - 0.5, cols * s.steps[1], rows * s.steps[0])
        masks = {"nan": s.nan > 0, "posinf": s.posinf > 0, "neginf": s.neginf > 0}
        _draw_layer(self.mid_image, self.mid_overlay, data, masks, rect, lo, hi)

    def _paint_detail(self, lo: float, hi: float) -> None:
        d = self.detail
        if d is None:
            self.detail_image.hide()
            self.detail_overlay.hide()
            return
        rows, cols = d.data.shape
        rect = QtCore.QRectF(d.start(1) - 0.5, d.start(0) - 0.5, cols * d.steps[1],
                             rows * d.steps[0])
        masks = {"nan": d.nan, "posinf": d.posinf, "neginf": d.neginf}
        _draw_layer(self.detail_image, self.detail_overlay, d.data, masks, rect, lo, hi)

    # ------------------------------------------------------------------ block summary

    def _start_summary(self, plane: Plane) -> None:
        value = self._panel.value()
        axes, index, part, steps = plane.axes, dict(plane.index), plane.part, plane.steps

        def compute(progress: preview.Progress, cancel: preview.CancelFn) -> BlockSummary:
            return multiscale.summarise(value, steps, axes, index, part or "magnitude",
                                        progress, cancel)

        task = Task(compute, self)
        task.finished.connect(self._on_summary)
        task.failed.connect(self._on_summary_failed)
        self._summary_task = task
        task.start()

    @QtCore.Slot(object)
    def _on_summary(self, summary: object) -> None:
        if self.sender() is not self._summary_task:
            return
        self._summary_task = None
        assert isinstance(summary, BlockSummary)
        self.summary = summary
        if self.plane is not None and self._panel.current_view() == "heatmap":
            self.paint()
        self.summary_shown.emit()

    @QtCore.Slot(str)
    def _on_summary_failed(self, _message: str) -> None:
        if self.sender() is self._summary_task:
            self._summary_task = None  # the strided preview stays

    # ------------------------------------------------------------------ full resolution

    def visible(self) -> tuple[int, int, int, int] | None:
        """Rows ``[r0, r1)`` and columns ``[c0, c1)`` of the plane in view (None: none)."""
        plane = self.plane
        if plane is None or plane.data.ndim != 2:
            return None
        (x0, x1), (y0, y1) = self._panel.heat_item.getViewBox().viewRange()
        h, w = plane.full_size
        r0, r1 = max(0, math.floor(y0 + 0.5)), min(h, math.ceil(y1 + 0.5))
        c0, c1 = max(0, math.floor(x0 + 0.5)), min(w, math.ceil(x1 + 0.5))
        if r1 <= r0 or c1 <= c0:
            return None
        return r0, r1, c0, c1

    @staticmethod
    def _covers(have: tuple[int, int, int, int] | None,
                want: tuple[int, int, int, int]) -> bool:
        return have is not None and have[0] <= want[0] and want[1] <= have[1] \
            and have[2] <= want[2] and want[3] <= have[3]

    def _detail_region(self) -> tuple[int, int, int, int] | None:
        d = self.detail
        if d is None:
            return None
        return d.start(0), d.start(0) + d.data.shape[0], d.start(1), d.start(1) + d.data.shape[1]

    @QtCore.Slot()
    def update_detail(self) -> None:
        """Read the elements in view at full resolution when they fit the budget (in the
        background), or go back to the preview when they no longer do."""
        plane = self.plane
        if plane is None or not plane.downsampled or self._panel.current_view() != "heatmap":
            return
        want = self.visible()
        if want is None:
            return
        r0, r1, c0, c1 = want
        budget = self._panel.max_cells
        if (r1 - r0) * (c1 - c0) > budget:
            self._drop_detail()
            self._update_mid(plane, want, budget)
            return
        if self._covers(self._detail_region(), want) or (
                self._detail_task is not None and self._covers(self._detail_wanted, want)):
            return
        # read a margin around the view too (within the budget): small pans need no new read
        h, w = plane.full_size
        grow = min(2.0, math.sqrt(budget / ((r1 - r0) * (c1 - c0))))
        nh, nw = min(h, max(r1 - r0, int((r1 - r0) * grow))), \
            min(w, max(c1 - c0, int((c1 - c0) * grow)))
        a = max(0, min(h - nh, r0 - (nh - (r1 - r0)) // 2))
        b = max(0, min(w - nw, c0 - (nw - (c1 - c0)) // 2))
        region = (a, a + nh, b, b + nw)
        if self._detail_task is not None:
            self._detail_task.cancel()
        value = self._panel.value()
        axes, index, part = plane.axes, dict(plane.index), plane.part or "magnitude"

        def compute(progress: preview.Progress, cancel: preview.CancelFn) -> Plane:
            return preview.slice_plane(value, axes, index, part, budget, progress, cancel,
                                       region=[(region[0], region[1]), (region[2], region[3])])

        task = Task(compute, self)
        task.finished.connect(self._on_detail)
        task.failed.connect(self._on_detail_failed)
        self._detail_task, self._detail_wanted = task, region
        task.start()

    def _update_mid(self, plane: Plane, want: tuple[int, int, int, int], budget: int) -> None:
        """Summarise the region in view (and a margin) with the finest square blocks that fit
        the budget, unless the preview is already that fine or what is shown covers it."""
        r0, r1, c0, c1 = want
        h, w = plane.full_size
        # a margin of half the view on each side: small pans need no new summary
        dr, dc = (r1 - r0) // 2, (c1 - c0) // 2
        region = (max(0, r0 - dr), min(h, r1 + dr), max(0, c0 - dc), min(w, c1 + dc))
        area = (region[1] - region[0]) * (region[3] - region[2])
        step = max(1, math.ceil(math.sqrt(area / budget)))
        if step * 2 > min(plane.steps):  # not even twice as fine as the preview: no level
            self._drop_mid()
            return
        if self.mid is not None:
            s, m0, n0 = self.mid
            have = (m0, m0 + s.size[0], n0, n0 + s.size[1])
            # shown covers the view and is fine enough (at most twice as coarse as wanted now)
            if self._covers(have, want) and s.steps[0] <= 2 * max(
                    1, math.ceil(math.sqrt((r1 - r0) * (c1 - c0) / budget))):
                return
        if self._mid_task is not None and self._mid_wanted is not None \
                and self._covers(self._mid_wanted[:4], want) and self._mid_wanted[4] == step:
            return
        if self._mid_task is not None:
            self._mid_task.cancel()
        value = self._panel.value()
        axes, index, part = plane.axes, dict(plane.index), plane.part or "magnitude"
        a, b, c, d = region

        def compute(progress: preview.Progress, cancel: preview.CancelFn) -> BlockSummary:
            return multiscale.summarise(value, (step, step), axes, index, part, progress, cancel,
                                        region=[(a, b), (c, d)])

        task = Task(compute, self)
        # (a lambda's call has no sender(): the task itself says which read this was)
        task.finished.connect(lambda got, t=task, at=(a, c): self._on_mid(t, got, at))
        task.failed.connect(lambda _message, t=task: self._on_mid_failed(t))
        self._mid_task, self._mid_wanted = task, (a, b, c, d, step)
        task.start()

    def _on_mid(self, task: Task, summary: object, at: tuple[int, int]) -> None:
        if task is not self._mid_task:
            return
        self._mid_task, self._mid_wanted = None, None
        assert isinstance(summary, BlockSummary)
        self.mid = (summary, at[0], at[1])
        if self._panel.current_view() == "heatmap":
            self._paint_mid(*self.levels())
        self.detail_shown.emit()

    def _on_mid_failed(self, task: Task) -> None:
        if task is self._mid_task:
            self._mid_task, self._mid_wanted = None, None

    def _drop_mid(self) -> None:
        if self._mid_task is not None:
            self._mid_task.cancel()
            self._mid_task, self._mid_wanted = None, None
        if self.mid is not None:
            self.mid = None
            self.mid_image.hide()
            self.mid_overlay.hide()
            self.detail_shown.emit()

    def _drop_detail(self) -> None:
        if self._detail_task is not None:
            self._detail_task.cancel()
            self._detail_task, self._detail_wanted = None, None
        if self.detail is not None:
            self.detail = None
            self.detail_image.hide()
            self.detail_overlay.hide()
            self.detail_shown.emit()  # (the panel relabels the cells)

    @QtCore.Slot(object)
    def _on_detail(self, plane: object) -> None:
        if self.sender() is not self._detail_task:
            return
        self._detail_task, self._detail_wanted = None, None
        assert isinstance(plane, Plane)
        self.detail = plane
        if self._panel.current_view() == "heatmap":
            self._paint_detail(*self.levels())
        self.detail_shown.emit()  # (the panel relabels the cells)

    @QtCore.Slot(str)
    def _on_detail_failed(self, _message: str) -> None:
        if self.sender() is self._detail_task:
            self._detail_task, self._detail_wanted = None, None

    # ------------------------------------------------------------------ cursor and numbers

    def label_plane(self) -> Plane | None:
        """The plane whose elements may be written in the cells: the full-resolution region,
        or the plane itself when it is not a preview (never a preview's samples)."""
        if self.detail is not None:
            return self.detail
        plane = self.plane
        return plane if plane is not None and not plane.downsampled else None

    def locate(self, x: float, y: float) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
        """The cell of the preview at view point ``(x, y)`` and the cell of the full-resolution
        region there (None when no region covers it); None outside the plane."""
        plane = self.plane
        if plane is None or plane.data.ndim != 2:
            return None
        er, ec = math.floor(y + 0.5), math.floor(x + 0.5)  # the element's indices
        self._pointer = (er, ec)  # for the region summary's block (hover_text)
        i, j = er // plane.steps[0], ec // plane.steps[1]
        if not (0 <= i < plane.data.shape[0] and 0 <= j < plane.data.shape[1]):
            return None
        d = self.detail
        if d is not None:
            di, dj = er - d.start(0), ec - d.start(1)
            if 0 <= di < d.data.shape[0] and 0 <= dj < d.data.shape[1]:
                return (i, j), (di, dj)
        return (i, j), None

    def in_mid(self) -> bool:
        """Whether the element :meth:`locate` last found lies in the region summary (the hover
        line then describes that level's block, not the preview's sample)."""
        if self.mid is None or self._pointer is None:
            return False
        m, m0, n0 = self.mid
        er, ec = self._pointer[0] - m0, self._pointer[1] - n0
        return 0 <= er < m.size[0] and 0 <= ec < m.size[1]

    def hover_text(self, cell: tuple[int, int], detail_cell: tuple[int, int] | None) -> str | None:
        """What hovering says beyond the preview's own cell: the exact element of the region,
        or the extremes and NaN/Inf counts of the block the preview cell stands for."""
        d = self.detail
        if detail_cell is not None and d is not None:
            idx = ", ".join(map(str, d.original_index(*detail_cell)))
            text = _exact(d.raw[detail_cell], d.kind, d.dtype)
            if d.kind == "complex" and d.part is not None:
                text += f"   ({preview.format_value(d.data[detail_cell], 'float64')})"
            return f"[{idx}] = {text}"
        s, origin = self.summary, (0, 0)
        if self.mid is not None and self._pointer is not None and self.in_mid():
            m, m0, n0 = self.mid  # the finer level's block
            er, ec = self._pointer[0] - m0, self._pointer[1] - n0
            s, origin, cell = m, (m0, n0), (er // m.steps[0], ec // m.steps[1])
        if s is None:
            return None
        i, j = cell
        lo, hi = s.lo[i, j], s.hi[i, j]
        parts = []
        if not np.isnan(lo):
            parts.append(self.tr("{lo} to {hi}").format(lo=preview.format_value(lo),
                                                        hi=preview.format_value(hi)))
        for label, counts in (("NaN", s.nan), ("+Inf", s.posinf), ("−Inf", s.neginf)):
            if counts[i, j]:
                parts.append(f"{int(counts[i, j])} {label}")
        rows, cols = s.block(i, j)
        where = self.tr("block [{r0}–{r1}, {c0}–{c1}]").format(
            r0=origin[0] + rows.start, r1=origin[0] + rows.stop - 1,
            c0=origin[1] + cols.start, c1=origin[1] + cols.stop - 1)
        return f"{where}: {', '.join(parts)}"
