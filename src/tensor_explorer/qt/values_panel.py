"""Values panel: the numbers of one value, drawn.

0-d as a big number; 1-d as a line plot; 2-d (and the chosen plane of an n-d value) as a heatmap
with a colour bar and the value under the cursor; or any of these as a table. NaN, +Inf and -Inf
are painted in the theme's colours; complex values show their magnitude, phase, real or
imaginary part. An n-d value gets a slider per axis that is not displayed and two choosers for
the displayed axes. A huge value is shown as a strided preview computed in the background.

The panel holds no facts of its own: every number it shows comes from
:mod:`tensor_explorer.core.preview` (planes, previews, formats, writes). Editing a table cell
writes the element in place through a write handler the owner can replace
(:meth:`ValuesPanel.set_write_handler`) and announces it with :attr:`ValuesPanel.edited`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import QT_TRANSLATE_NOOP

from ..core import copy_text, preview, value_table
from ..core.facts import short_dtype
from ..core.preview import Plane
from ..core.value_table import SelectionTooLarge, ValueTable
from . import fonts, theme
from .flow_layout import FlowLayout, together
from .values_heatmap import MultiscaleHeatmap
from .values_table import TableTools, ValuesTableModel
from .workers import Task

WriteHandler = Callable[[str | None, tuple[int, ...], Any], None]

#: every view the panel can show (``ValuesPanel.current_view()``)
VIEWS = ("message", "scalar", "plot", "heatmap", "table")
_PLOT_SYMBOLS_UP_TO = 200  # 1-d plots mark every point when there are at most this many
MAX_PLOT_POINTS = 50_000  # a 1-d value longer than this is previewed
_WIDE_LINE_UP_TO = 100  # longer lines are drawn 1 pixel wide (fast)
_FIT_COLUMNS = 12  # table column widths are measured on this many columns (spread evenly)
#: at most this many cells in view get their number drawn in the heatmap
MAX_CELL_LABELS = 400


# ---------------------------------------------------------------------------- helpers


def _set_item_texts(box: QtWidgets.QComboBox, texts: dict[Any, str]) -> None:
    """Re-label the items of ``box`` by their data, keeping the current item (no signals)."""
    with QtCore.QSignalBlocker(box):
        for i in range(box.count()):
            text = texts.get(box.itemData(i))
            if text is not None:
                box.setItemText(i, text)


def _nonfinite_key(plane: Plane, cell: tuple[int, ...]) -> str | None:
    if plane.nan[cell]:
        return "nan"
    if plane.posinf[cell]:
        return "posinf"
    if plane.neginf[cell]:
        return "neginf"
    return None


# ---------------------------------------------------------------------------- the panel


class ValuesPanel(QtWidgets.QWidget):
    """The numbers of one value: number, plot, heatmap or table; see the module docstring.

    Signals:
        edited(name, index, new_value): an element was written in place by a table edit
            (``name`` is the name given to :meth:`set_value`, possibly None; ``index`` a tuple
            into the whole value).
        plane_shown(): a new plane (or message) is on screen.
    """

    edited = QtCore.Signal(object, tuple, object)
    plane_shown = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None,
                 max_cells: int = preview.DEFAULT_MAX_CELLS,
                 max_points: int = MAX_PLOT_POINTS) -> None:
        super().__init__(parent)
        #: most cells of a 2-d plane (heatmap or table) and of a 1-d one (plot or table)
        self.max_cells = int(max_cells)
        self.max_points = int(max_points)
        self._name: str | None = None
        self._value: Any = None
        self._plane: Plane | None = None
        self._axes: tuple[int, ...] = ()
        self._index: dict[int, int] = {}
        self._part = "magnitude"
        self._mode = "auto"
        self._task: Task | None = None
        self._write_handler: WriteHandler | None = None
        self._view = "message"
        self.sliders: dict[int, QtWidgets.QSlider] = {}
        self._slider_labels: dict[int, QtWidgets.QLabel] = {}
        self._slider_names: dict[int, QtWidgets.QLabel] = {}
        self._hover_cell: tuple[int, ...] | None = None  # the cell the hover line describes
        self._refusal: str | None = None  # the reason on the status line, if a refusal is shown
        self._heat_pos: Any = None  # where the pointer last hovered the heatmap (scene)
        self._build()
        self._set_texts()
        theme.state().changed.connect(self._restyle)
        self._restyle()
        self.set_value(None, None)

    # ------------------------------------------------------------------ construction

    def _build(self) -> None:
        self.title = QtWidgets.QLabel()
        self.title.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.mode_box = QtWidgets.QComboBox()
        for mode in ("auto", "table"):
            self.mode_box.addItem("", mode)  # texts: _set_texts
        self.mode_box.currentIndexChanged.connect(self._on_mode_box)
        self.part_label = QtWidgets.QLabel()
        self.part_box = QtWidgets.QComboBox()
        for part in ("magnitude", "phase", "real", "imag"):
            self.part_box.addItem("", part)
        self.part_box.currentIndexChanged.connect(self._on_part_box)
        self.rows_label = QtWidgets.QLabel()
        self.row_axis_box = QtWidgets.QComboBox()
        self.cols_label = QtWidgets.QLabel()
        self.col_axis_box = QtWidgets.QComboBox()
        for box in (self.row_axis_box, self.col_axis_box):
            box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.row_axis_box.activated.connect(lambda _i: self._on_axis_box(0))
        self.col_axis_box.activated.connect(lambda _i: self._on_axis_box(1))

        # the title and the view chooser on one line; the other controls wrap onto more lines
        # (each label with its field) in a narrow dock or at a projector's text size
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.mode_box)
        self.controls = FlowLayout(spacing=8)

        self.slider_box = QtWidgets.QWidget()
        self.slider_grid = QtWidgets.QGridLayout(self.slider_box)
        self.slider_grid.setContentsMargins(0, 0, 0, 0)

        self.stack = QtWidgets.QStackedWidget()
        # message
        self.message = QtWidgets.QLabel()
        self.message.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        # scalar
        self.scalar = QtWidgets.QLabel()
        self.scalar.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.scalar.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        # 1-d plot
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        self._number_axis = self.plot_item.getAxis("left")
        self._date_axis = pg.DateAxisItem(orientation="left", utcOffset=0)  # NumPy's dates
        self.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.plot_item.setMenuEnabled(False)
        # draw at most ~2 points per pixel (min/max per bin, so spikes survive); only what is
        # in view: a 250k-point line then paints in milliseconds, not seconds
        self.plot_item.setDownsampling(auto=True, mode="peak")
        self.plot_item.setClipToView(True)
        self.curve = self.plot_item.plot([], [], connect="finite")
        self.marks = pg.ScatterPlotItem()
        self.marks.setZValue(10)
        self.plot_item.addItem(self.marks)
        # 2-d heatmap
        self.heat_widget = pg.GraphicsLayoutWidget()
        self.heat_item = self.heat_widget.addPlot(
            axisItems={"left": IndexAxis("left"), "bottom": IndexAxis("bottom")})
        self.heat_item.setMenuEnabled(False)
        self.heat_item.invertY(True)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.overlay.setZValue(10)
        self.heat_item.addItem(self.image)
        self.heat_item.addItem(self.overlay)
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), interactive=False, width=18,
                                        colorMapMenu=False)
        self.colorbar.setImageItem(self.image, insert_in=self.heat_item)
        # each cell's number, drawn when few cells are in view and they are large enough
        self.cell_labels: list[pg.TextItem] = []
        self._labels_timer = QtCore.QTimer(self)
        self._labels_timer.setSingleShot(True)
        self._labels_timer.setInterval(15)
        self._labels_timer.timeout.connect(self._update_cell_labels)
        heat_box = self.heat_item.getViewBox()
        heat_box.sigRangeChanged.connect(self._labels_timer.start)
        heat_box.sigResized.connect(self._labels_timer.start)
        # levels of detail (block summary, full-resolution region) and the colour range
        self.heatmap = MultiscaleHeatmap(self)
        self.heatmap.summary_shown.connect(self._on_heat_refined)
        self.heatmap.detail_shown.connect(self._on_heat_refined)
        for w in (self.heatmap.levels_label, self.heatmap.levels_box):
            w.hide()
        for pair in ((self.part_label, self.part_box), (self.rows_label, self.row_axis_box),
                     (self.cols_label, self.col_axis_box),
                     (self.heatmap.levels_label, self.heatmap.levels_box)):
            self.controls.addWidget(together(*pair))
        # table
        self.table = QtWidgets.QTableView()
        self.model = ValuesTableModel(self._edit_cell, self)  # the whole plane, read lazily
        self.table.setModel(self.model)
        self.table_tools = TableTools(self)  # Go to index (Ctrl+G), copy, context menu
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setDefaultSectionSize(96)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                                   | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QtWidgets.QAbstractItemView.EditTrigger.AnyKeyPressed)
        self._pages = {"message": self.message, "scalar": self.scalar,
                       "plot": self.plot_widget, "heatmap": self.heat_widget,
                       "table": self.table}
        for w in self._pages.values():
            self.stack.addWidget(w)

        self.hover = QtWidgets.QLabel(" ")
        self.hover.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status = QtWidgets.QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.hide()
        bottom = QtWidgets.QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.progress)

        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(top)
        lay.addLayout(self.controls)
        lay.addWidget(self.slider_box)
        lay.addWidget(self.table_tools.go_bar)
        lay.addWidget(self.stack, 1)
        lay.addWidget(self.hover)
        lay.addLayout(bottom)

        # hover, rate-limited: the slot runs at most 30 times a second
        self._heat_proxy = pg.SignalProxy(self.heat_widget.scene().sigMouseMoved,
                                          rateLimit=30, slot=self._on_heat_hover)
        self._plot_proxy = pg.SignalProxy(self.plot_widget.scene().sigMouseMoved,
                                          rateLimit=30, slot=self._on_plot_hover)

    def _set_texts(self) -> None:
        """The static texts (labels, combo-box items, tool tips) in the current language."""
        _set_item_texts(self.mode_box, {"auto": self.tr("Chart"), "table": self.tr("Table")})
        self.mode_box.setToolTip(self.tr("Draw the values (number, plot or heatmap) or list "
                                         "them in a table"))
        self.part_label.setText(self.tr("show"))
        _set_item_texts(self.part_box, {
            "magnitude": self.tr("magnitude |z|"), "phase": self.tr("phase (radians)"),
            "real": self.tr("real part"), "imag": self.tr("imaginary part")})
        self.part_box.setToolTip(self.tr("Which part of the complex numbers is drawn"))
        self.rows_label.setText(self.tr("rows"))
        self.cols_label.setText(self.tr("columns"))
        self.row_axis_box.setToolTip(self.tr("The axis drawn downwards"))
        self.col_axis_box.setToolTip(self.tr("The axis drawn across"))
        self.progress.setFormat(self.tr("computing preview… %p%"))
        self.table_tools.retranslate()
        self.heatmap.set_texts()

    def retranslate(self) -> None:
        """Show every text in the language just installed, in place: the value, view, axes,
        slider positions, zoom, table scroll and selection, and hovered cell are kept, and no
        preview is recomputed."""
        self._set_texts()
        value = self._value
        self.title.setText("" if value is None else self._title_text())
        nd = getattr(value, "ndim", 0) if value is not None else 0
        if nd >= 2 and self.row_axis_box.count() == nd:  # the axis choosers of this value
            texts = {a: self.tr("axis {axis} ({size})").format(axis=a, size=int(value.shape[a]))
                     for a in range(nd)}
            for box in (self.row_axis_box, self.col_axis_box):
                _set_item_texts(box, texts)
        for a, label in self._slider_names.items():
            label.setText(self.tr("axis {axis}").format(axis=a))
            self.sliders[a].setToolTip(
                self.tr("Which index of axis {axis} is shown").format(axis=a))
            self._update_slider_label(a)
        if value is None:
            self.message.setText(self.tr("No value selected."))
        plane = self._plane
        if plane is not None:
            if self._view == "scalar":
                self._draw_scalar(plane)
            elif self._view in ("plot", "heatmap"):
                self._label_axes(plane)  # labels only: the zoom and pan stay
        if self._task is not None:
            self.status.setText(html.escape(self.tr("computing preview…")))
        elif self._refusal is not None:
            self._refuse(self._refusal)
        elif plane is not None and self._view != "message":
            self.status.setText(self._status_text(plane))
        self._set_hover(self._hover_cell)

    # ------------------------------------------------------------------ public API

    def set_value(self, name: str | None, value: Any) -> None:
        """Show ``value`` (a tensor or an array) under ``name``; None clears the panel.

        Any preview still being computed for the previous value is cancelled. The displayed
        axes and slider positions are reset to their defaults.
        """
        self._cancel_task()
        self._name = name
        self._value = value
        self._plane = None
        self.model.set_table(None)  # holds the old value: let it go
        self._index = {}
        self._part = "magnitude"
        with QtCore.QSignalBlocker(self.part_box):
            self.part_box.setCurrentIndex(0)
        if value is None:
            self._set_controls(None)
            self._show_message(self.tr("No value selected."))
            self.title.setText("")
            return
        try:
            preview.check_showable(value)
        except preview.PreviewError as exc:
            self.title.setText(self._title_text())
            self._set_controls(None)
            self._show_message(self._preview_error_text(exc))
            return
        self.title.setText(self._title_text())
        self._axes = preview.default_axes(value.ndim)
        self._set_controls(value)
        self._request_plane()

    def refresh(self) -> None:
        """Read the current value again (after it was changed in place elsewhere)."""
        if self._value is not None and self._axes is not None:
            try:
                preview.check_showable(self._value)
            except preview.PreviewError as exc:
                self._show_message(self._preview_error_text(exc))
                return
            self._request_plane()

    def value(self) -> Any:
        """The value shown (None when nothing is)."""
        return self._value

    def name(self) -> str | None:
        return self._name

    def plane(self) -> Plane | None:
        """The plane on screen (None when a message is shown)."""
        return self._plane

    def current_view(self) -> str:
        """Which view is on screen: one of :data:`VIEWS`."""
        return self._view

    def mode(self) -> str:
        return self._mode

    def set_mode(self, mode: str) -> None:
        """``"auto"`` (number, plot or heatmap by rank) or ``"table"``."""
        if mode not in ("auto", "table"):
            raise ValueError(f"mode must be 'auto' or 'table', not {mode!r}")
        self._mode = mode
        with QtCore.QSignalBlocker(self.mode_box):
            self.mode_box.setCurrentIndex(0 if mode == "auto" else 1)
        if self._plane is not None:
            self._draw(self._plane)

    def set_part(self, part: str) -> None:
        """Which part of a complex value is drawn: one of :data:`preview.PARTS`."""
        if part not in preview.PARTS:
            raise ValueError(f"part must be one of {preview.PARTS}, not {part!r}")
        self._part = part
        with QtCore.QSignalBlocker(self.part_box):
            self.part_box.setCurrentIndex(preview.PARTS.index(part))
        self.refresh()

    def axes(self) -> tuple[int, ...]:
        """The displayed axes of the value, (rows, columns)."""
        return self._axes

    def set_axes(self, rows: int, cols: int) -> None:
        """Display axis ``rows`` downwards and ``cols`` across (n-d values, n >= 2)."""
        v = self._value
        if v is None or v.ndim < 2:
            raise ValueError("choosing axes needs a value with at least two dimensions")
        nd = v.ndim
        rows, cols = rows % nd, cols % nd
        if rows == cols:
            raise ValueError("the row and column axes must differ")
        self._axes = (rows, cols)
        self._rebuild_sliders(v)
        self._sync_axis_boxes()
        self._request_plane()

    def index(self) -> dict[int, int]:
        """The index at which every axis that is not displayed is held."""
        return {a: self._index.get(a, 0) for a in self.sliders}

    def set_index(self, axis: int, i: int) -> None:
        """Hold ``axis`` (not displayed) at index ``i`` (moves its slider)."""
        if axis not in self.sliders:
            raise ValueError(f"axis {axis} is displayed or does not exist")
        self.sliders[axis].setValue(int(i))

    def set_write_handler(self, fn: WriteHandler | None) -> None:
        """Who writes a table edit: ``fn(name, index, new_value)``; raise to refuse (the
        message is shown). None restores the default, which writes the element in place with
        :func:`preview.write_element` and refuses what it refuses."""
        self._write_handler = fn

    def busy(self) -> bool:
        """True while a preview is being computed in the background."""
        return self._task is not None

    def table_selection(self) -> tuple[np.ndarray, str, int] | None:
        """The cells selected in the table view, as the block that holds them all (the
        rectangle from the first selected row and column to the last), read from the value at
        their true indices, with the value's dtype and how many axes the shown plane has; None
        when the table is not shown or nothing in it is selected. Raises
        :class:`.value_table.SelectionTooLarge` past :data:`.value_table.MAX_COPY_CELLS`."""
        table = self.model.table
        selection = self.table.selectionModel()
        if self._view != "table" or table is None or selection is None:
            return None
        selected = selection.selection()  # rectangles: never one index per cell (10^8 cells)
        ranges = [selected.at(k) for k in range(selected.count())]
        if not ranges:
            return None
        r0 = min(rg.top() for rg in ranges)
        r1 = max(rg.bottom() for rg in ranges) + 1
        c0 = min(rg.left() for rg in ranges)
        c1 = max(rg.right() for rg in ranges) + 1
        return table.block(r0, r1, c0, c1), table.dtype, table.ndim

    def copy_selection(self, kind: str = "text") -> bool:
        """Copy the table's selected cells, exactly, to the clipboard: ``"text"``
        (tab-separated), ``"csv"`` or ``"numpy"`` (``np.array([...], dtype=...)``). False, with
        a message on the status line, when nothing is selected or too much is."""
        try:
            selected = self.table_selection()
        except SelectionTooLarge as exc:
            self._say(self.tr("Not copied: {cells} cells are selected; at most {limit} can be "
                              "copied").format(cells=f"{exc.cells:,}", limit=f"{exc.limit:,}"))
            return False
        if selected is None:
            self._say(self.tr("Nothing to copy: select cells in the table"))
            return False
        cells, dtype, ndim = selected
        if kind == "numpy":
            text = copy_text.block_literal(cells, dtype, ndim)
        elif kind == "csv":
            text = copy_text.to_csv(cells)
        else:
            text = copy_text.to_tsv(cells)
        QtWidgets.QApplication.clipboard().setText(text)
        self.hover.setText(self.tr("Copied 1 cell") if cells.size == 1 else
                           self.tr("Copied {n} cells").format(n=f"{cells.size:,}"))
        return True

    def go_to(self, index: Any) -> None:
        """Show element ``index`` of the value (one int per axis; negative counts from the
        end) in the table: the view switches to the table, the sliders of the other axes move
        there, and its cell is scrolled to and selected. Raises
        :class:`.value_table.IndexInputError` (a ValueError) when it is not an index of the
        value."""
        v = self._value
        shape = tuple(int(n) for n in v.shape) if v is not None else ()
        idx = value_table.parse_index(", ".join(str(int(i)) for i in index), shape)
        moved = False
        for a, slider in self.sliders.items():
            if self._index.get(a, 0) != idx[a]:
                with QtCore.QSignalBlocker(slider):
                    slider.setValue(idx[a])
                self._index[a] = idx[a]
                self._update_slider_label(a)
                moved = True
        if self._mode != "table":
            self.set_mode("table")
        if moved:
            self._request_plane()
        self.model.set_table(self._make_table())  # the same plane the request will bring
        self._switch("table")
        row, col = self.model.table.table_cell(idx)  # type: ignore[union-attr]
        cell = self.model.index(row, col)
        self.table.scrollTo(cell, QtWidgets.QAbstractItemView.ScrollHint.PositionAtCenter)
        selection = self.table.selectionModel()
        selection.setCurrentIndex(cell, QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def current_cell_index(self) -> tuple[int, ...] | None:
        """The index into the value of the table's current cell (None: no table, no cell)."""
        table, current = self.model.table, self.table.currentIndex()
        if self._view != "table" or table is None or not current.isValid():
            return None
        return table.original_index(current.row(), current.column())

    def _make_table(self) -> ValueTable:
        """The whole plane at the current axes, slider indices and complex part."""
        return ValueTable(self._value, self._axes, self.index(), self._part)

    def _say(self, text: str) -> None:
        """A plain message (not a refusal to write) on the status line, in the error colour."""
        self._refusal = None
        self.status.setText(f'<span style="color:{theme.current().error}">'
                            f"{html.escape(text)}</span>")

    def cell_text(self, *cell: int) -> str:
        """``"[i, j] = value"`` for a displayed cell (what hovering over it shows). In the
        table view a cell is a cell of the table (its true index along the displayed axes) and
        the value is exact (``repr``); otherwise a cell of the drawn plane."""
        table = self.model.table
        if self._view == "table" and table is not None:
            r, c = (*cell, 0, 0)[:2]
            return f"[{', '.join(map(str, table.original_index(r, c)))}] = {table.exact(r, c)}"
        plane = self._plane
        if plane is None:
            return ""
        idx = plane.original_index(*cell)
        text = preview.format_value(plane.raw[cell], plane.dtype)
        if plane.kind == "complex" and plane.part is not None:
            shown = preview.format_value(plane.data[cell], "float64")
            text += f"   ({self._part_text()} {shown})"
        return f"[{', '.join(map(str, idx))}] = {text}"

    # ------------------------------------------------------------------ controls

    def _title_text(self) -> str:
        v = self._value
        name = html.escape(self._name) if self._name else self.tr("(unnamed)")
        if not hasattr(v, "shape") or not hasattr(v, "dtype"):
            return f"<b>{name}</b>"
        shape = " × ".join(str(int(n)) for n in v.shape) if v.ndim else self.tr("scalar")
        where = ""
        if hasattr(v, "device") and getattr(v.device, "type", "cpu") != "cpu":
            where = f" · {v.device}"
        return f"<b>{name}</b> &nbsp; {shape} · {html.escape(short_dtype(v.dtype))}{where}"

    def _set_controls(self, value: Any) -> None:
        nd = value.ndim if value is not None else -1
        is_complex = value is not None and preview.dtype_kind(value.dtype) == "complex"
        self.part_label.setVisible(is_complex)
        self.part_box.setVisible(is_complex)
        show_axes = nd >= 2
        for w in (self.rows_label, self.row_axis_box, self.cols_label, self.col_axis_box):
            w.setVisible(show_axes)
        if show_axes:
            for box in (self.row_axis_box, self.col_axis_box):
                with QtCore.QSignalBlocker(box):
                    box.clear()
                    for a in range(nd):
                        box.addItem(self.tr("axis {axis} ({size})").format(
                            axis=a, size=int(value.shape[a])), a)
            self._sync_axis_boxes()
        self._rebuild_sliders(value)

    def _sync_axis_boxes(self) -> None:
        if len(self._axes) == 2:
            for box, a in ((self.row_axis_box, self._axes[0]), (self.col_axis_box, self._axes[1])):
                with QtCore.QSignalBlocker(box):
                    box.setCurrentIndex(a)

    def _rebuild_sliders(self, value: Any) -> None:
        while self.slider_grid.count():
            item = self.slider_grid.takeAt(0)
            assert item is not None  # count() > 0
            w = item.widget()
            if w is not None:
                w.deleteLater()
        self.sliders = {}
        self._slider_labels = {}
        self._slider_names = {}
        v = value
        extra = [] if v is None or v.ndim < 3 else [a for a in range(v.ndim)
                                                    if a not in self._axes]
        for row, a in enumerate(extra):
            n = int(v.shape[a])
            i = min(self._index.get(a, 0), n - 1)
            self._index[a] = i
            name = QtWidgets.QLabel(self.tr("axis {axis}").format(axis=a))
            slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
            slider.setRange(0, n - 1)
            slider.setValue(i)
            slider.setPageStep(max(1, n // 10))
            slider.setToolTip(self.tr("Which index of axis {axis} is shown").format(axis=a))
            label = QtWidgets.QLabel()
            label.setMinimumWidth(90)
            slider.valueChanged.connect(lambda i, a=a: self._on_slider(a, i))
            self.slider_grid.addWidget(name, row, 0)
            self.slider_grid.addWidget(slider, row, 1)
            self.slider_grid.addWidget(label, row, 2)
            self.sliders[a] = slider
            self._slider_labels[a] = label
            self._slider_names[a] = name
            self._update_slider_label(a)
        self._index = {a: i for a, i in self._index.items() if a in self.sliders}
        self.slider_box.setVisible(bool(extra))

    def _update_slider_label(self, axis: int) -> None:
        n = int(self._value.shape[axis])
        self._slider_labels[axis].setText(
            self.tr("index {i} of 0–{last}").format(i=self._index.get(axis, 0), last=n - 1))

    @QtCore.Slot(int)
    def _on_mode_box(self, i: int) -> None:
        self.set_mode(self.mode_box.itemData(i))

    @QtCore.Slot(int)
    def _on_part_box(self, i: int) -> None:
        self.set_part(self.part_box.itemData(i))

    def _on_axis_box(self, which: int) -> None:
        rows = self.row_axis_box.currentData()
        cols = self.col_axis_box.currentData()
        if rows == cols:  # picked the other one's axis: swap them
            old = self._axes
            rows, cols = (rows, old[0]) if which == 0 else (old[1], cols)
        self.set_axes(int(rows), int(cols))

    def _on_slider(self, axis: int, i: int) -> None:
        self._index[axis] = int(i)
        self._update_slider_label(axis)
        self._request_plane()

    # ------------------------------------------------------------------ computing planes

    def _cancel_task(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.progress.hide()
        self.heatmap.reset(None)  # its block summary and region belong to the old plane

    def _request_plane(self) -> None:
        """Compute the plane for the current axes/index/part: here when it is cheap, else in
        the background (cancelling any earlier request)."""
        self._cancel_task()
        value, axes, index, part = self._value, self._axes, dict(self._index), self._part
        max_cells = self.max_cells if len(axes) != 1 else min(self.max_cells, self.max_points)

        def compute(progress: preview.Progress | None = None,
                    cancel: preview.CancelFn | None = None) -> Plane:
            return preview.slice_plane(value, axes, index, part, max_cells, progress, cancel)

        if not preview.needs_background(value):
            try:
                plane = compute()
            except (preview.PreviewError, ValueError, RuntimeError, TypeError) as exc:
                self._show_message(str(exc))
                return
            self._show_plane(plane)
            return
        task = Task(compute, self)
        task.progress.connect(self._on_progress)
        task.finished.connect(self._on_task_finished)
        task.failed.connect(self._on_task_failed)
        self._task = task
        self.progress.setValue(0)
        self.progress.show()
        self._refusal = None
        self.status.setText(html.escape(self.tr("computing preview…")))
        task.start()

    @QtCore.Slot(float)
    def _on_progress(self, fraction: float) -> None:
        self.progress.setValue(round(100 * fraction))

    @QtCore.Slot(object)
    def _on_task_finished(self, plane: object) -> None:
        if self.sender() is not self._task:
            return
        self._task = None
        self.progress.hide()
        assert isinstance(plane, Plane)
        self._show_plane(plane)

    @QtCore.Slot(str)
    def _on_task_failed(self, message: str) -> None:
        if self.sender() is not self._task:
            return
        self._task = None
        self.progress.hide()
        self._show_message(message.split(": ", 1)[-1])

    # ------------------------------------------------------------------ drawing

    def _preview_error_text(self, exc: preview.PreviewError) -> str:
        """Why a value is not shown, in the window's language (core gives a code and its
        details; English where the code is unknown)."""
        texts = {
            "meta": self.tr("meta tensor: it has a shape {shape} and a dtype ({dtype}) but no "
                            "data to show"),
            "nested": self.tr("nested tensor: its rows have different lengths; not shown"),
            "sparse": self.tr("sparse tensor ({layout}): convert it with .to_dense() to see "
                              "its values"),
            "quantized": self.tr("quantized tensor: call .dequantize() to see its values"),
            "not_array": self.tr("not a tensor or an array: {type}"),
            "record": self.tr("a record with the fields {fields}: each field is a value of its "
                              "own (expand the record in the Workspace and select one)"),
            "not_numbers": self.tr("values of dtype {dtype} are not numbers; not shown"),
            "empty": self.tr("empty: shape {shape} has no elements"),
        }
        text = texts.get(exc.code)
        return text.format(**exc.params) if text is not None else str(exc)

    def _show_message(self, text: str) -> None:
        self._plane = None
        self.message.setText(text)
        self._refusal = None
        self.status.setText("")
        self._set_hover(None)
        self._switch("message")
        self.plane_shown.emit()

    def _switch(self, view: str) -> None:
        self._view = view
        self.heatmap.levels_label.setVisible(view == "heatmap")
        self.heatmap.levels_box.setVisible(view == "heatmap")
        self.stack.setCurrentWidget(self._pages[view])

    def _show_plane(self, plane: Plane) -> None:
        self._plane = plane
        self._draw(plane)
        self.plane_shown.emit()

    def _draw(self, plane: Plane) -> None:
        if self._mode == "table" or (plane.kind == "text" and plane.data.ndim):  # words: a table
            self.model.set_table(self._make_table())  # the whole plane, not the preview
            self._fit_columns()
            self._switch("table")
        elif plane.data.ndim == 0:
            self._draw_scalar(plane)
            self._switch("scalar")
        elif plane.data.ndim == 1:
            self._draw_plot(plane)
            self._switch("plot")
        else:
            self._draw_heatmap(plane)
            self._switch("heatmap")
        self._set_hover(None)
        self._refusal = None
        self.status.setText(self._status_text(plane))

    def _fit_columns(self) -> None:
        """Size the first columns to their (sampled) widest text; the rest get the widest."""
        fm = QtGui.QFontMetrics(self.table.font())
        header = self.table.horizontalHeader()
        pad = int(18 * theme.state().scale)
        ncols = self.model.columnCount()
        widest = 0
        for c in range(0, ncols, max(1, ncols // _FIT_COLUMNS)):  # a few columns, spread out
            texts = [*self.model.sample_texts(c, rows=16), str(self.model.headerData(
                c, QtCore.Qt.Orientation.Horizontal)), str(ncols - 1)]
            widest = max(widest, max(fm.horizontalAdvance(t) for t in texts) + pad)
        if widest:
            header.setDefaultSectionSize(widest)

    def _draw_scalar(self, plane: Plane) -> None:
        t = theme.current()
        text = preview.format_value(plane.raw[()], plane.dtype)
        colour = t.text
        key = _nonfinite_key(plane, ())
        if key is not None:
            colour = getattr(t, key)
        size = round(32 * theme.state().scale)
        rich = html.escape(text)
        if plane.kind == "complex":
            part = f"{self._part_text()} = {preview.format_value(plane.data[()], 'float64')}"
            rich += (f'<br/><span style="font-size: {size // 2}pt; color: {t.muted}">'
                     f"{html.escape(part)}</span>")
        self.scalar.setText(rich)
        self.scalar.setStyleSheet(f"color: {colour}; font-size: {size}pt;")

    def _date_scale(self, plane: Plane) -> float | None:
        """Seconds per unit of a plane of dates (its integers are counts of that unit), or
        None: not dates, or in months or years (no fixed length)."""
        if plane.kind != "datetime":
            return None
        unit, count = np.datetime_data(np.dtype(plane.dtype))
        if unit in ("Y", "M", "generic"):
            return None
        step = np.array(count, dtype=f"m8[{unit}]")  # one unit, as NumPy spells it
        return float(step / np.timedelta64(1, "s"))

    def _left_axis(self, dates: bool) -> None:
        """The plot's value axis: dates and times for dates, numbers otherwise."""
        want = self._date_axis if dates else self._number_axis
        if self.plot_item.getAxis("left") is not want:
            self.plot_item.setAxisItems({"left": want})

    def _draw_plot(self, plane: Plane) -> None:
        t = theme.current()
        x = plane.positions(0).astype(np.float64)
        y = np.where(np.isfinite(plane.data), plane.data, np.nan)
        seconds = self._date_scale(plane)
        self._left_axis(seconds is not None)
        if seconds is not None:
            y = y * seconds  # POSIX seconds: the axis reads dates and times
        scale = theme.state().scale
        n = len(x)
        # Qt strokes wide antialiased lines very slowly (~0.5 ms a point): only short lines
        # get a width that grows with the presentation scale
        pen = pg.mkPen(t.series[0], width=1.6 * scale if n <= _WIDE_LINE_UP_TO else 1)
        symbols: dict[str, Any] = {}
        if n <= _PLOT_SYMBOLS_UP_TO:
            symbols = {"symbol": "o", "symbolSize": 5 * scale, "symbolPen": None,
                       "symbolBrush": t.series[0]}
        else:
            symbols = {"symbol": None}
        self.curve.setData(x, y, pen=pen, connect="finite", **symbols)
        lo = plane.lo if plane.lo is not None else 0.0
        hi = plane.hi if plane.hi is not None else 1.0
        if seconds is not None:
            lo, hi = lo * seconds, hi * seconds
        spots = []
        for key, mask, symbol, ypos in (("nan", plane.nan, "x", lo),
                                        ("posinf", plane.posinf, "t1", hi),
                                        ("neginf", plane.neginf, "t", lo)):
            colour = getattr(t, key)
            for i in np.flatnonzero(mask)[:10_000]:
                spots.append({"pos": (x[i], ypos), "symbol": symbol, "size": 12 * scale,
                              "brush": pg.mkBrush(colour), "pen": pg.mkPen(colour, width=2)})
        self.marks.setData(spots)
        self._label_axes(plane)
        self.plot_item.enableAutoRange()

    def _draw_heatmap(self, plane: Plane) -> None:
        rect = self.heatmap.show(plane)  # preview, block summary, region, colour bar
        self._label_axes(plane)
        self.heat_item.getViewBox().setRange(rect, padding=0)
        self._labels_timer.start()

    @QtCore.Slot()
    def _on_heat_refined(self) -> None:
        """The block summary or a full-resolution region arrived (or was dropped)."""
        plane = self._plane
        if plane is None or self._view != "heatmap":
            return
        if self._task is None and self._refusal is None:
            self.status.setText(self._status_text(plane))
        self._labels_timer.start()
        if self._heat_pos is not None:  # the pointer has not moved: what is under it now
            self._on_heat_hover((self._heat_pos,))

    def shown_cell_labels(self) -> dict[tuple[int, int], str]:
        """(row, column) index along the displayed axes -> the number drawn in that cell (for
        tests). Numbers are only drawn for real elements: the plane itself, or the region read
        at full resolution when a preview is zoomed in."""
        return {item.cell: item.toPlainText() for item in self.cell_labels  # type: ignore[attr-defined]
                if item.isVisible()}

    def _update_cell_labels(self) -> None:
        """Draw the number of every cell in view when there are at most
        :data:`MAX_CELL_LABELS` of them and each is large enough on screen for its text."""
        plane = self.heatmap.label_plane()
        if self._view != "heatmap" or plane is None or plane.data.ndim != 2:
            self._place_cell_labels(None, [])
            return
        box = self.heat_item.getViewBox()
        (x0, x1), (y0, y1) = box.viewRange()
        sr, sc = plane.steps
        o_r, o_c = plane.start(0), plane.start(1)
        rows, cols = plane.data.shape
        r0 = max(0, math.ceil((y0 - o_r + 0.5) / sr - 1))
        r1 = min(rows - 1, int((y1 - o_r + 0.5) / sr))
        c0 = max(0, math.ceil((x0 - o_c + 0.5) / sc - 1))
        c1 = min(cols - 1, int((x1 - o_c + 0.5) / sc))
        count = (r1 - r0 + 1) * (c1 - c0 + 1)
        if r1 < r0 or c1 < c0 or count > MAX_CELL_LABELS or x1 <= x0 or y1 <= y0:
            self._place_cell_labels(None, [])
            return
        cell_w = box.width() / (x1 - x0) * sc  # a cell's size on screen, in pixels
        cell_h = box.height() / (y1 - y0) * sr
        texts = [((r, c), preview.format_value(plane.raw[r, c], plane.dtype))
                 for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        fm = QtGui.QFontMetrics(self.font())
        widest = max(fm.horizontalAdvance(text) for _, text in texts)
        if cell_w < widest + 6 or cell_h < fm.height() + 2:
            self._place_cell_labels(None, [])
            return
        self._place_cell_labels(plane, texts)

    def _place_cell_labels(self, plane: Plane | None,
                           texts: list[tuple[tuple[int, int], str]]) -> None:
        while len(self.cell_labels) < len(texts):
            item = pg.TextItem(anchor=(0.5, 0.5))
            item.setZValue(20)
            self.heat_item.addItem(item)
            self.cell_labels.append(item)
        for item in self.cell_labels[len(texts):]:
            item.hide()
        if not texts or plane is None:
            return
        t = theme.current()
        lo, hi = self.heatmap.levels()
        cmap = pg.colormap.get(t.colormap)
        sr, sc = plane.steps
        o_r, o_c = plane.start(0), plane.start(1)
        font = QtGui.QFont(self.font())
        for item, ((r, c), text) in zip(self.cell_labels, texts, strict=False):
            if plane.nan[r, c] or plane.posinf[r, c] or plane.neginf[r, c]:
                key = "nan" if plane.nan[r, c] else "posinf" if plane.posinf[r, c] else "neginf"
                back = QtGui.QColor(getattr(t, key))
            else:
                v = float(plane.data[r, c])
                back = cmap.map(min(1.0, max(0.0, (v - lo) / (hi - lo))) if hi > lo else 0.5,
                                mode="qcolor")
            dark = 0.299 * back.red() + 0.587 * back.green() + 0.114 * back.blue() > 140
            item.setColor("#000000" if dark else "#ffffff")
            item.setFont(font)
            item.setText(text)
            item.cell = (o_r + r * sr, o_c + c * sc)  # type: ignore[attr-defined]
            item.setPos(o_c + (c + 0.5) * sc - 0.5, o_r + (r + 0.5) * sr - 0.5)
            item.show()

    def _label_axes(self, plane: Plane) -> None:
        """The axis labels of the plot (1-d plane) or heatmap (2-d plane)."""
        if plane.data.ndim == 1:
            self.plot_item.setLabel("bottom", self.tr("index"))
            left = self._part_text() if plane.kind == "complex" else ""
            if plane.kind == "timedelta":  # durations: their integers count this unit
                unit, count = np.datetime_data(np.dtype(plane.dtype))
                left = f"{count} {unit}" if count != 1 else unit
            self.plot_item.setLabel("left", left)
        elif plane.data.ndim == 2:
            r_axis, c_axis = plane.axes
            self.heat_item.setLabel("left", self.tr("axis {axis}").format(axis=r_axis))
            self.heat_item.setLabel("bottom", self.tr("axis {axis}").format(axis=c_axis))

    def _part_text(self) -> str:
        return {"magnitude": self.tr("magnitude"), "phase": self.tr("phase"),
                "real": self.tr("real part"), "imag": self.tr("imaginary part")}[self._part]

    def _status_text(self, plane: Plane) -> str:
        parts: list[str] = []
        # the table shows the whole plane, read from the value: no preview note, no counts of
        # the preview's NaN/Inf (its cells are coloured where they are)
        table = self._mode == "table"
        if plane.downsampled and not table:
            size = " × ".join(str(n) for n in plane.full_size)
            steps = plane.steps
            if len(steps) == 1:
                parts.append(self.tr("preview: 1 of every {r} elements of {size}").format(
                    r=steps[0], size=size))
            else:
                parts.append(self.tr(
                    "preview: 1 of every {r} rows and 1 of every {c} columns of {size}"
                ).format(r=steps[0], c=steps[1], size=size))
        heat = self._view == "heatmap" and self.heatmap.plane is plane
        if heat and self.heatmap.detail is not None:
            parts.append(self.tr("zoomed in: exact elements"))
        elif heat and self.heatmap.summary is not None:
            parts.append(self.tr("each cell drawn as the extreme of its block"))
        elif heat and self.heatmap.busy():
            parts.append(self.tr("looking for NaN, Inf and extremes…"))
        if plane.kind == "bool" and plane.data.ndim and not table:
            parts.append(self.tr("1 = True, 0 = False"))
        if plane.index:
            key = ", ".join(str(plane.index[a]) if a in plane.index else ":"
                            for a in range(len(plane.shape)))
            transposed = ".T" if len(plane.axes) == 2 and plane.axes[0] > plane.axes[1] else ""
            parts.append(self.tr("showing {expr}").format(
                expr=f"{self._name or 'value'}[{key}]{transposed}"))
        text = html.escape(" · ".join(parts))
        t = theme.current()
        legend = []
        exact = self.heatmap.counts() if heat else None  # the whole plane's, from the summary
        counts = exact[:3] if exact else (plane.nan_count, plane.posinf_count,
                                          plane.neginf_count)
        for key, count, label in zip(("nan", "posinf", "neginf"), counts,
                                     ("NaN", "+Inf", "−Inf"), strict=True):
            if count and not table:
                legend.append(f'<span style="color:{getattr(t, key)}">■</span> '
                              f"{count} {label}")
        if legend:
            shown = self.tr("in all") if exact else self.tr("shown")
            text = (text + " · " if text else "") + ", ".join(legend) + " " + html.escape(shown)
        return text

    # ------------------------------------------------------------------ hover

    def _on_heat_hover(self, event: tuple[Any, ...]) -> None:
        plane = self._plane
        if plane is None or self._view != "heatmap" or plane.data.ndim != 2:
            return
        pos = event[0]
        vb = self.heat_item.getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            self._heat_pos = None
            self._set_hover(None)
            return
        self._heat_pos = pos
        p = vb.mapSceneToView(pos)
        hit = self.heatmap.locate(p.x(), p.y())
        if hit is None:
            self._set_hover(None)
            return
        cell, detail_cell = hit
        self._set_hover(cell)
        # zoomed in: the exact element there; a preview: what its block holds
        more = self.heatmap.hover_text(cell, detail_cell)
        if more is not None:  # an exact element, or a finer level's block: on its own
            self.hover.setText(more if detail_cell is not None or self.heatmap.in_mid()
                               else f"{self.hover.text()}   · {more}")

    def _on_plot_hover(self, event: tuple[Any, ...]) -> None:
        plane = self._plane
        if plane is None or self._view != "plot" or plane.data.ndim != 1:
            return
        pos = event[0]
        vb = self.plot_item.getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            self._set_hover(None)
            return
        p = vb.mapSceneToView(pos)
        i = round(p.x() / plane.steps[0])
        if 0 <= i < plane.data.shape[0]:
            self._set_hover((i,))
        else:
            self._set_hover(None)

    def _set_hover(self, cell: tuple[int, ...] | None) -> None:
        """Describe displayed ``cell`` on the hover line (None: nothing hovered)."""
        self._hover_cell = cell if self._plane is not None else None
        text = self.cell_text(*self._hover_cell) if self._hover_cell is not None else ""
        self.hover.setText(text or " ")

    # ------------------------------------------------------------------ editing

    def _default_write(self, name: str | None, index: tuple[int, ...], new: Any) -> None:
        preview.write_element(self._value, index, new)

    def _edit_cell(self, index: tuple[int, ...], text: str) -> bool:
        """Write the table edit ``text`` at ``index`` (the cell's true index into the whole
        value) into the value; False if refused."""
        value = self._value
        if value is None:
            return False
        try:
            new = preview.parse_value(text, value.dtype)
        except ValueError as exc:
            self._refuse(str(exc))
            return False
        handler = self._write_handler or self._default_write
        try:
            handler(self._name, index, new)
        except Exception as exc:  # a refusal from the handler: shown, never raised
            self._refuse(str(exc) or type(exc).__name__)
            return False
        self.edited.emit(self._name, index, new)
        self.model.forget()  # the table reads the written cell now, not after the preview
        self.refresh()
        return True

    def _refuse(self, reason: str) -> None:
        self._refusal = reason
        t = theme.current()
        self.status.setText(f'<span style="color:{t.error}">'
                            f"{html.escape(self.tr('Not written: '))}{html.escape(reason)}"
                            "</span>")

    def last_message(self) -> str:
        """The plain text of the status line (notes, refusals)."""
        doc = QtGui.QTextDocument()
        doc.setHtml(self.status.text())
        return doc.toPlainText()

    # ------------------------------------------------------------------ theme

    @QtCore.Slot()
    def _restyle(self) -> None:
        t = theme.current()
        scale = theme.state().scale
        font = QtGui.QFont(self.font())
        font.setPointSizeF(theme.BASE_POINT_SIZE * scale)
        for w in (self.plot_widget, self.heat_widget):
            w.setBackground(t.base)
        for item in (self.plot_item, self.heat_item):
            for side in ("left", "bottom"):
                ax = item.getAxis(side)
                ax.setPen(pg.mkPen(t.border))
                ax.setTextPen(pg.mkPen(t.text))
                ax.setStyle(tickFont=font)
                ax.label.setFont(font)
        cbar_axis = self.colorbar.axis
        cbar_axis.setPen(pg.mkPen(t.border))
        cbar_axis.setTextPen(pg.mkPen(t.text))
        cbar_axis.setStyle(tickFont=font)
        self.colorbar.setColorMap(pg.colormap.get(t.colormap))
        self.table.setFont(fonts.mono_font(theme.BASE_POINT_SIZE * scale))
        self.table.verticalHeader().setDefaultSectionSize(int(22 * scale))
        self.table.horizontalHeader().setDefaultSectionSize(int(96 * scale))
        self.message.setStyleSheet(f"color: {t.muted};")
        self.hover.setStyleSheet(f"color: {t.text};")
        self.model.restyle()
        if self._plane is not None:
            self._redraw_keeping_view(self._plane)

    def _redraw_keeping_view(self, plane: Plane) -> None:
        """Draw ``plane`` again in the new colours and sizes, keeping what the user set up: the
        zoom and pan of the plot or heatmap, the table's current cell and scroll, the hover."""
        plot_box, heat_box = self.plot_item.getViewBox(), self.heat_item.getViewBox()
        plot_range, plot_auto = plot_box.viewRange(), plot_box.autoRangeEnabled()
        heat_range = heat_box.viewRange()
        current = self.table.currentIndex()
        scroll = (self.table.horizontalScrollBar().value(),
                  self.table.verticalScrollBar().value())
        hover = self._hover_cell
        view = self._view
        self._draw(plane)
        if self._view != view:
            return
        if view == "plot" and not all(plot_auto):
            plot_box.setRange(xRange=plot_range[0], yRange=plot_range[1], padding=0)
        elif view == "heatmap":
            heat_box.setRange(xRange=heat_range[0], yRange=heat_range[1], padding=0)
        elif view == "table":
            if current.isValid():
                self.table.setCurrentIndex(self.model.index(current.row(), current.column()))
            self.table.horizontalScrollBar().setValue(scroll[0])
            self.table.verticalScrollBar().setValue(scroll[1])
        self._set_hover(hover)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self._cancel_task()
        super().closeEvent(event)


class IndexAxis(pg.AxisItem):
    """An axis of array indices: ticks only at whole numbers, the centres of the cells."""

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        levels: list[tuple[float, float]] = []
        for spacing, _offset in super().tickSpacing(minVal, maxVal, size):
            whole = (float(max(1, math.ceil(spacing))), 0.0)
            if whole not in levels:
                levels.append(whole)
        return levels


# Texts this module translates inside f-strings, where pyside6-lupdate cannot see them:
# listed here so they are extracted for translation (tests/qt/test_i18n.py checks this).
_LUPDATE = (
    QT_TRANSLATE_NOOP("ValuesPanel", "Not written: "),
)
