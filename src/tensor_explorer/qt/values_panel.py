"""Values panel: the numbers of one value, drawn.

0-d as a big number; 1-d as a line plot; 2-d (and the chosen plane of an n-d value) as a heatmap
with a colour bar and the value under the cursor; or any of these as a table. NaN, +Inf and -Inf
are painted in the theme's colours; complex values show their magnitude, phase, real or
imaginary part. An n-d value gets a slider per axis that is not displayed and two choosers for
the displayed axes. A huge value is shown as a strided preview computed in the background.

The panel holds no facts of its own: every number it shows comes from
:mod:`tensor_explorer.core.preview` (planes, previews, formats, writes) and
:mod:`tensor_explorer.core.values_view` (what is shown and how: :class:`ValuesChoice`). Its
parts live in their own modules: the controls (:mod:`.values_controls`), computing planes
(:mod:`.values_planes`), the plot and the big number (:mod:`.values_plot`), the heatmap's
levels (:mod:`.values_heatmap`) and cell numbers (:mod:`.values_cell_labels`), the table and
its edits (:mod:`.values_table`), the hovered cell (:mod:`.values_hover`), and the words and
status line (:mod:`.values_status`). Editing a table cell writes the element in place through a
write handler the owner can replace (:meth:`ValuesPanel.set_write_handler`) and announces it
with :attr:`ValuesPanel.edited`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ..core import preview, value_table, values_view
from ..core.preview import Plane
from ..core.value_table import ValueTable
from ..core.values_view import ValuesChoice
from . import fonts, theme
from .flow_layout import together
from .values_cell_labels import MAX_CELL_LABELS, CellLabels
from .values_controls import ValuesControls
from .values_heatmap import MultiscaleHeatmap
from .values_hover import HoveredCell
from .values_planes import PlaneLoader
from .values_plot import ValuesPlot, draw_scalar
from .values_status import ValuesStatus, preview_error_text, status_text, title_text
from .values_table import TableTools, ValuesTableModel, WriteHandler

#: every view the panel can show (``ValuesPanel.current_view()``)
VIEWS = ("message", "scalar", "plot", "heatmap", "table")
MAX_PLOT_POINTS = 50_000  # a 1-d value longer than this is previewed
__all__ = ["MAX_CELL_LABELS", "MAX_PLOT_POINTS", "VIEWS", "IndexAxis", "ValuesPanel"]


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
        self.choice = ValuesChoice()  # the value, its axes, part and mode (core)
        self._plane: Plane | None = None
        self._view = "message"
        self._build()
        self._set_texts()
        theme.state().changed.connect(self._restyle)
        self._restyle()
        self.set_value(None, None)

    # ------------------------------------------------------------------ construction

    def _build(self) -> None:
        self.title = QtWidgets.QLabel()
        self.title.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = ValuesControls(self)  # choosers and sliders
        self.bar.index_changed.connect(self._request_plane)
        self.mode_box, self.part_label, self.part_box = (
            self.bar.mode_box, self.bar.part_label, self.bar.part_box)
        self.rows_label, self.row_axis_box = self.bar.rows_label, self.bar.row_axis_box
        self.cols_label, self.col_axis_box = self.bar.cols_label, self.bar.col_axis_box
        self.controls, self.slider_box = self.bar.flow, self.bar.slider_box

        self.stack = QtWidgets.QStackedWidget()
        self.message = QtWidgets.QLabel()
        self.message.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.scalar = QtWidgets.QLabel()
        self.scalar.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.scalar.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.plot = ValuesPlot(self)  # the 1-d plot
        self.plot_widget, self.plot_item = self.plot.widget, self.plot.item
        self.curve, self.marks = self.plot.curve, self.plot.marks
        self._build_heatmap()
        self._build_table()
        self._pages = {"message": self.message, "scalar": self.scalar,
                       "plot": self.plot_widget, "heatmap": self.heat_widget,
                       "table": self.table}
        for w in self._pages.values():
            self.stack.addWidget(w)
        self.status_line = ValuesStatus(self)  # the hover and status lines, the progress
        self.hover, self.status = self.status_line.hover, self.status_line.status
        self.progress = self.status_line.progress
        self.planes = PlaneLoader(self.status_line, self)  # computed here or in the background
        self.planes.ready.connect(self._show_plane)
        self.planes.failed.connect(self._show_message)
        self.hovered = HoveredCell(self)  # what the hover line describes

        # the title and the view chooser on one line; the other controls wrap onto more lines
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.mode_box)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(top)
        lay.addLayout(self.controls)
        lay.addWidget(self.slider_box)
        lay.addWidget(self.table_tools.go_bar)
        lay.addWidget(self.stack, 1)
        lay.addWidget(self.hover)
        lay.addLayout(self.status_line.bottom)

    def _build_heatmap(self) -> None:
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
        self.labels = CellLabels(self)
        # levels of detail (block summary, full-resolution region) and the colour range
        self.heatmap = MultiscaleHeatmap(self)
        self.heatmap.summary_shown.connect(self._on_heat_refined)
        self.heatmap.detail_shown.connect(self._on_heat_refined)
        for w in (self.heatmap.levels_label, self.heatmap.levels_box):
            w.hide()
        self.controls.addWidget(together(self.heatmap.levels_label, self.heatmap.levels_box))

    def _build_table(self) -> None:
        self.table = QtWidgets.QTableView()
        self.table_tools = TableTools(self)  # Go to index (Ctrl+G), copy, context menu, edits
        self.model = ValuesTableModel(self.table_tools.edit, self)  # the plane, read lazily
        self.table.setModel(self.model)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setDefaultSectionSize(96)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                                   | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QtWidgets.QAbstractItemView.EditTrigger.AnyKeyPressed)

    @property
    def sliders(self) -> dict[int, QtWidgets.QSlider]:
        """Axis -> the slider that holds it (every axis that is not displayed)."""
        return self.bar.sliders

    @property
    def _slider_labels(self) -> dict[int, QtWidgets.QLabel]:
        return self.bar.slider_labels

    def _set_texts(self) -> None:
        """The static texts (labels, combo-box items, tool tips) in the current language."""
        self.bar.set_texts()
        self.status_line.set_texts()
        self.table_tools.retranslate()
        self.heatmap.set_texts()

    def retranslate(self) -> None:
        """Show every text in the language just installed, in place: the value, view, axes,
        slider positions, zoom, table scroll and selection, and hovered cell are kept, and no
        preview is recomputed."""
        self._set_texts()
        value = self.choice.value
        self.title.setText("" if value is None else title_text(self.choice.name, value))
        self.bar.retranslate(value)
        if value is None:
            self.message.setText(self.tr("No value selected."))
        elif self._view == "message" and (why := _why_not_shown(value)) is not None:
            self.message.setText(why)  # said again in the language now installed
        plane = self._plane
        if plane is not None:
            if self._view == "scalar":
                draw_scalar(self.scalar, plane, self.choice.part)
            elif self._view in ("plot", "heatmap"):
                self._label_axes(plane)  # labels only: the zoom and pan stay
        if self.planes.busy():
            self.status_line.computing()
        elif self.status_line.refusal is not None:
            self.status_line.refuse(self.status_line.refusal)
        elif plane is not None and self._view != "message":
            self.status.setText(self._status_text(plane))
        self.hovered.describe_again()

    # ------------------------------------------------------------------ public API

    def set_value(self, name: str | None, value: Any) -> None:
        """Show ``value`` (a tensor or an array) under ``name``; None clears the panel.

        Any preview still being computed for the previous value is cancelled. The displayed
        axes and slider positions are reset to their defaults.
        """
        self._cancel_task()
        choice = self.choice
        choice.name, choice.value = name, value
        self._plane = None
        self.model.set_table(None)  # holds the old value: let it go
        self.bar.index = {}
        choice.part = "magnitude"
        with QtCore.QSignalBlocker(self.part_box):
            self.part_box.setCurrentIndex(0)
        if value is None:
            self.bar.set_value(None, choice.axes)
            self._show_message(self.tr("No value selected."))
            self.title.setText("")
            return
        self.title.setText(title_text(name, value))
        why = _why_not_shown(value)
        if why is not None:
            self.bar.set_value(None, choice.axes)
            self._show_message(why)
            return
        choice.axes = preview.default_axes(value.ndim)
        self.bar.set_value(value, choice.axes)
        self._request_plane()

    def refresh(self) -> None:
        """Read the current value again (after it was changed in place elsewhere)."""
        if self.choice.value is not None and self.choice.axes is not None:
            why = _why_not_shown(self.choice.value)
            if why is not None:
                self._show_message(why)
                return
            self._request_plane()

    def value(self) -> Any:
        """The value shown (None when nothing is)."""
        return self.choice.value

    def name(self) -> str | None:
        return self.choice.name

    def plane(self) -> Plane | None:
        """The plane on screen (None when a message is shown)."""
        return self._plane

    def current_view(self) -> str:
        """Which view is on screen: one of :data:`VIEWS`."""
        return self._view

    def mode(self) -> str:
        return self.choice.mode

    def set_mode(self, mode: str) -> None:
        """``"auto"`` (number, plot or heatmap by rank) or ``"table"``."""
        self.choice.set_mode(mode)
        with QtCore.QSignalBlocker(self.mode_box):
            self.mode_box.setCurrentIndex(values_view.MODES.index(mode))
        if self._plane is not None:
            self._draw(self._plane)

    def set_part(self, part: str) -> None:
        """Which part of a complex value is drawn: one of :data:`preview.PARTS`."""
        self.choice.set_part(part)
        with QtCore.QSignalBlocker(self.part_box):
            self.part_box.setCurrentIndex(preview.PARTS.index(part))
        self.refresh()

    def axes(self) -> tuple[int, ...]:
        """The displayed axes of the value, (rows, columns)."""
        return self.choice.axes

    def set_axes(self, rows: int, cols: int) -> None:
        """Display axis ``rows`` downwards and ``cols`` across (n-d values, n >= 2)."""
        self.choice.set_axes(rows, cols)
        self.bar.rebuild_sliders(self.choice.value, self.choice.axes)
        self.bar.sync_axis_boxes(self.choice.axes)
        self._request_plane()

    def index(self) -> dict[int, int]:
        """The index at which every axis that is not displayed is held."""
        return {a: self.bar.index.get(a, 0) for a in self.sliders}

    def set_index(self, axis: int, i: int) -> None:
        """Hold ``axis`` (not displayed) at index ``i`` (moves its slider)."""
        if axis not in self.sliders:
            raise ValueError(f"axis {axis} is displayed or does not exist")
        self.sliders[axis].setValue(int(i))

    def set_write_handler(self, fn: WriteHandler | None) -> None:
        """Who writes a table edit: ``fn(name, index, new_value)``; raise to refuse (the
        message is shown). None restores the default, which writes the element in place with
        :func:`preview.write_element` and refuses what it refuses."""
        self.table_tools.write_handler = fn

    def busy(self) -> bool:
        """True while a preview is being computed in the background."""
        return self.planes.busy()

    def table_selection(self) -> tuple[np.ndarray, str, int] | None:
        """The cells selected in the table view, as the block that holds them all (the
        rectangle from the first selected row and column to the last), read from the value at
        their true indices, with the value's dtype and how many axes the shown plane has; None
        when the table is not shown or nothing in it is selected. Raises
        :class:`.value_table.SelectionTooLarge` past :data:`.value_table.MAX_COPY_CELLS`."""
        return self.table_tools.selection()

    def copy_selection(self, kind: str = "text") -> bool:
        """Copy the table's selected cells, exactly, to the clipboard: ``"text"``
        (tab-separated), ``"csv"`` or ``"numpy"`` (``np.array([...], dtype=...)``). False, with
        a message on the status line, when nothing is selected or too much is."""
        return self.table_tools.copy(kind)

    def go_to(self, index: Any) -> None:
        """Show element ``index`` of the value (one int per axis; negative counts from the
        end) in the table: the view switches to the table, the sliders of the other axes move
        there, and its cell is scrolled to and selected. Raises
        :class:`.value_table.IndexInputError` (a ValueError) when it is not an index of the
        value."""
        v = self.choice.value
        shape = tuple(int(n) for n in v.shape) if v is not None else ()
        idx = value_table.parse_index(", ".join(str(int(i)) for i in index), shape)
        moved = self.bar.move_to(idx)
        if self.choice.mode != "table":
            self.set_mode("table")
        if moved:
            self._request_plane()
        self.model.set_table(self._make_table())  # the same plane the request will bring
        self._switch("table")
        self.table_tools.select(idx)

    def current_cell_index(self) -> tuple[int, ...] | None:
        """The index into the value of the table's current cell (None: no table, no cell)."""
        table, current = self.model.table, self.table.currentIndex()
        if self._view != "table" or table is None or not current.isValid():
            return None
        return table.original_index(current.row(), current.column())

    def _make_table(self) -> ValueTable:
        """The whole plane at the current axes, slider indices and complex part."""
        c = self.choice
        return ValueTable(c.value, c.axes, self.index(), c.part)

    def cell_text(self, *cell: int) -> str:
        """``"[i, j] = value"`` for a displayed cell (what hovering over it shows). In the
        table view a cell is a cell of the table (its true index along the displayed axes) and
        the value is exact (``repr``); otherwise a cell of the drawn plane."""
        return self.hovered.cell_text(*cell)

    # ------------------------------------------------------------------ computing planes

    def _cancel_task(self) -> None:
        self.planes.cancel()
        self.heatmap.reset(None)  # its block summary and region belong to the old plane

    @QtCore.Slot()
    def _request_plane(self) -> None:
        """Compute the plane for the current axes/index/part: here when it is cheap, else in
        the background (cancelling any earlier request); :meth:`_show_plane` or
        :meth:`_show_message` shows what comes of it."""
        self._cancel_task()
        c = self.choice
        self.planes.request(c.value, c.axes, dict(self.bar.index), c.part,
                            c.max_cells(self.max_cells, self.max_points), self)

    # ------------------------------------------------------------------ drawing

    def _show_message(self, text: str) -> None:
        self._plane = None
        self.message.setText(text)
        self.status_line.show("")
        self.hovered.show(None)
        self._switch("message")
        self.plane_shown.emit()

    def _switch(self, view: str) -> None:
        self._view = view
        self.heatmap.levels_label.setVisible(view == "heatmap")
        self.heatmap.levels_box.setVisible(view == "heatmap")
        self.stack.setCurrentWidget(self._pages[view])

    @QtCore.Slot(object)
    def _show_plane(self, plane: Plane) -> None:
        self._plane = plane
        self._draw(plane)
        self.plane_shown.emit()

    def _draw(self, plane: Plane) -> None:
        view = self.choice.view_for(plane)  # table mode and words: a table; else by rank
        if view == "table":
            self.model.set_table(self._make_table())  # the whole plane, not the preview
            self.table_tools.fit_columns()
        elif view == "scalar":
            draw_scalar(self.scalar, plane, self.choice.part)
        elif view == "plot":
            self.plot.draw(plane, self.choice.part)
        else:
            self._draw_heatmap(plane)
        self._switch(view)
        self.hovered.show(None)
        self.status_line.show(self._status_text(plane))

    def _draw_heatmap(self, plane: Plane) -> None:
        rect = self.heatmap.show(plane)  # preview, block summary, region, colour bar
        self._label_axes(plane)
        self.heat_item.getViewBox().setRange(rect, padding=0)
        self.labels.timer.start()

    @QtCore.Slot()
    def _on_heat_refined(self) -> None:
        """The block summary or a full-resolution region arrived (or was dropped)."""
        plane = self._plane
        if plane is None or self._view != "heatmap":
            return
        if not self.planes.busy() and self.status_line.refusal is None:
            self.status.setText(self._status_text(plane))
        self.labels.timer.start()
        self.hovered.again()  # the pointer has not moved: what is under it now

    def shown_cell_labels(self) -> dict[tuple[int, int], str]:
        """(row, column) index along the displayed axes -> the number drawn in that cell (for
        tests). Numbers are only drawn for real elements: the plane itself, or the region read
        at full resolution when a preview is zoomed in."""
        return self.labels.shown()

    def _label_axes(self, plane: Plane) -> None:
        """The axis labels of the plot (1-d plane) or heatmap (2-d plane)."""
        if plane.data.ndim == 1:
            self.plot.label_axes(plane, self.choice.part)
        elif plane.data.ndim == 2:
            r_axis, c_axis = plane.axes
            self.heat_item.setLabel("left", self.tr("axis {axis}").format(axis=r_axis))
            self.heat_item.setLabel("bottom", self.tr("axis {axis}").format(axis=c_axis))

    def _status_text(self, plane: Plane) -> str:
        heat = self._view == "heatmap" and self.heatmap.plane is plane
        return status_text(plane, self.choice.name, self.choice.mode == "table",
                           self.heatmap if heat else None)

    # ------------------------------------------------------------------ status

    def last_message(self) -> str:
        """The plain text of the status line (notes, refusals)."""
        return self.status_line.last_message()

    # ------------------------------------------------------------------ theme

    @QtCore.Slot()
    def _restyle(self) -> None:
        t = theme.current()
        scale = theme.state().scale
        font = QtGui.QFont(self.font())
        font.setPointSizeF(theme.BASE_POINT_SIZE * scale)
        _style_graphs((self.plot_widget, self.heat_widget), (self.plot_item, self.heat_item),
                      self.colorbar, font)
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
        zoom and pan of the plot or heatmap, the table's current cell and scroll, the hover,
        and a refused edit's reason on the status line."""
        refusal = self.status_line.refusal
        plot_box, heat_box = self.plot_item.getViewBox(), self.heat_item.getViewBox()
        plot_range, plot_auto = plot_box.viewRange(), plot_box.autoRangeEnabled()
        heat_range = heat_box.viewRange()
        current = self.table.currentIndex()
        scroll = (self.table.horizontalScrollBar().value(),
                  self.table.verticalScrollBar().value())
        hover = self.hovered.cell
        view = self._view
        self._draw(plane)
        if refusal is not None:
            self.status_line.refuse(refusal)
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
        self.hovered.cell = hover
        self.hovered.describe_again()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self._cancel_task()
        super().closeEvent(event)


def _style_graphs(widgets: tuple[pg.GraphicsView, ...], items: tuple[pg.PlotItem, ...],
                  colorbar: pg.ColorBarItem, font: QtGui.QFont) -> None:
    """The theme's colours and ``font`` on the plot's and the heatmap's backgrounds, axes and
    colour bar."""
    t = theme.current()
    for w in widgets:
        w.setBackground(t.base)
    for item in items:
        for side in ("left", "bottom"):
            ax = item.getAxis(side)
            ax.setPen(pg.mkPen(t.border))
            ax.setTextPen(pg.mkPen(t.text))
            ax.setStyle(tickFont=font)
            ax.label.setFont(font)
    cbar_axis = colorbar.axis
    cbar_axis.setPen(pg.mkPen(t.border))
    cbar_axis.setTextPen(pg.mkPen(t.text))
    cbar_axis.setStyle(tickFont=font)
    colorbar.setColorMap(pg.colormap.get(t.colormap))


class IndexAxis(pg.AxisItem):
    """An axis of array indices: ticks only at whole numbers, the centres of the cells."""

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        levels: list[tuple[float, float]] = []
        for spacing, _offset in super().tickSpacing(minVal, maxVal, size):
            whole = (float(max(1, math.ceil(spacing))), 0.0)
            if whole not in levels:
                levels.append(whole)
        return levels


def _why_not_shown(value: Any) -> str | None:
    """Why ``value`` is not drawn at all (a meta tensor, a record, an empty value: what
    :func:`preview.check_showable` refuses), in the window's language; None when it can be."""
    try:
        preview.check_showable(value)
    except preview.PreviewError as exc:
        return preview_error_text(exc)
    return None
