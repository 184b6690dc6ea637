"""Memory panel: which values share an allocation, drawn byte by byte, with hover linking.

Each allocation is a strip of its bytes (grouped in cells of the element size); under it, each
value that lives there is a row in its own colour, its elements drawn on the bytes they occupy,
with their values when the cells are wide enough. Views sit under the value that contains them,
an alias under the earlier of the two. Each row says the value's kind, dtype, shape, stride,
storage offset and (tensors) version counter. Where several elements of one value read the
same bytes (``expand``, overlapping ``unfold``), cells are marked ×N.

Hovering an element lights up its bytes and every element of every value that reads them
(:func:`tensor_explorer.core.memory.readers`); hover is rate-limited by a single-shot timer, and
what it says goes to a line of fixed height under the drawing (nothing moves when it changes).
Selecting a value in the workspace scrolls the drawing to its row. Under the drawing, the
relation list says, for each related pair, the kind in words (naming both values), the bytes
shared and why (:func:`tensor_explorer.core.memory.sharing_reason` on how the value was made);
it reads the pairs lazily (:mod:`.memory_relations`), so a thousand views of one tensor show at
once and the half-million pairs are counted only as far as the list is scrolled.

Large allocations are drawn as ranges (one bin per pixel, computed from the footprint without
touching elements); the mouse wheel over a strip zooms into its bytes, down to cells, and a
double click zooms back out. The model is computed in a background :class:`Task`; redrawing it
(on resize, theme change, zoom) lays every row out but makes scene items only for the rows on
screen and near it (more as the drawing scrolls), and those only paint what is visible.

In-place writes: the workspace's ``changed`` event fires for every alias of a written value;
the next drawing marks the cells whose value changed (dashed outline) and each row's version
counter, with an arrow where it went up. Table edits in the Values panel do not go through the
workspace: connect ``ValuesPanel.edited`` to :meth:`MemoryPanel.value_written`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from PySide6 import QtCore, QtGui, QtWidgets

from ..core import memory
from ..core.memory_drawing import (
    MemoryModel,
    StripModel,
    WriteMarks,
    ZoomWindows,
    compute_model,
    sharing_whys,
)
from . import i18n, memory_texts, theme
from .bridge import WorkspaceBridge
from .memory_hover import INFO_LINES, HoverLine, MemoryHover
from .memory_layout import MemoryLayout
from .memory_relations import FETCH_ROWS, RelationModel, RelationTable, Slices
from .memory_view import LaneItem, Palette, palette_for
from .workers import Task

__all__ = ["INFO_LINES", "MemoryPanel"]



class _View(QtWidgets.QGraphicsView):
    """The drawing; forwards mouse moves (rate-limited by the panel), wheel and double click."""

    def __init__(self, panel: MemoryPanel) -> None:
        super().__init__()
        self.panel = panel
        self.setMouseTracking(True)
        self.setRenderHints(QtGui.QPainter.RenderHint.Antialiasing
                            | QtGui.QPainter.RenderHint.TextAntialiasing)
        self.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        self.panel.hover.queue(self.mapToScene(event.position().toPoint()))
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QtCore.QEvent) -> None:
        self.panel.hover.queue(None)
        super().leaveEvent(event)

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        pos = self.mapToScene(event.position().toPoint())
        if event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier or \
                self.panel.strip_at(pos) is not None:
            steps = event.angleDelta().y() / 120
            if steps and self.panel.zoom_at(pos, 0.7 ** steps):
                event.accept()
                return
        super().wheelEvent(event)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:
        strip = self.panel.strip_at(self.mapToScene(event.position().toPoint()))
        if strip is not None:
            self.panel.reset_zoom(strip.number)
        super().mouseDoubleClickEvent(event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            # only the width changes the drawing; what is lit stays lit. In a later turn: a
            # resize comes with other work (a new model, the splitter) and several come at once
            self.panel.slices.want(self.panel._resized)
        else:
            self.panel._materialize_visible()


class MemoryPanel(QtWidgets.QWidget):
    """Allocations as strips of bytes, each value's footprint on them, hover linking, and the
    relation list (a, b, kind, shared bytes, why).

    Signals: ``drawn()`` after each drawing of a new model (tests wait for it).
    """

    drawn = QtCore.Signal()

    def __init__(self, bridge: WorkspaceBridge, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MemoryPanel")
        self.bridge = bridge
        self.model = MemoryModel()
        self._task: Task | None = None
        self._dirty = False  # a recompute was asked for while one ran
        self._ready = False
        self.marks = WriteMarks()  # what the last in-place write changed
        self.zoom = ZoomWindows()  # the bytes shown of each allocation
        self._failure: str | None = None  # the message of a failed drawing, while shown
        self._model_lang = i18n.current()  # the language of the model's "why" sentences
        self._task_lang = self._model_lang  # that of the model being computed
        self._user_split = False
        # a selected value not drawn yet: at first the one selected before the panel was made
        # (it is built when first shown)
        selected = bridge.workspace.selected
        self._scroll_to: str | None = selected if isinstance(selected, str) else None
        # the deferred work (laying rows out, making items near the view, a redraw after a
        # resize, filling and measuring the relation list): one slice per turn, in turns
        self.slices = Slices(self)

        self.legend = QtWidgets.QLabel()
        self.legend.setWordWrap(True)
        self._build_drawing()
        self.drawing = MemoryLayout(self)  # the drawing's rows, laid out; items made on demand
        self.view.verticalScrollBar().valueChanged.connect(self._materialize_visible)
        self._build_relations()
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        self.splitter.addWidget(self._drawing_box)
        self.splitter.addWidget(self._side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.splitterMoved.connect(self._splitter_moved)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.legend)
        layout.addWidget(self.splitter, 1)

        self.hover = MemoryHover(self)  # what the pointer lights up

        bridge.modified.connect(self.refresh)
        bridge.changed.connect(self._note_changed)
        bridge.selected.connect(self.scroll_to)
        theme.state().changed.connect(self._restyle)
        self._set_texts()
        self.set_info(None)
        self._restyle()
        self.refresh()

    def _build_drawing(self) -> None:
        """The drawing and, under it, the hover line (its height fixed, so hovering never
        moves a cell)."""
        self.info = HoverLine()
        self.scene = QtWidgets.QGraphicsScene(self)
        self.view = _View(self)
        self.view.setScene(self.scene)
        self._drawing_box = QtWidgets.QWidget()
        drawing_layout = QtWidgets.QVBoxLayout(self._drawing_box)
        drawing_layout.setContentsMargins(0, 0, 0, 0)
        drawing_layout.setSpacing(2)
        drawing_layout.addWidget(self.view, 1)
        drawing_layout.addWidget(self.info)

    def _build_relations(self) -> None:
        """The relation list, its title and the note under it."""
        self.relations = RelationModel(memory_texts, self)  # (its words: memory_texts')
        self.table = RelationTable(self.relations, slices=self.slices)
        self.table.selectionModel().selectionChanged.connect(self._row_selected)
        self.relations.counted.connect(self._set_note)
        self.relations.settled.connect(self._set_note)
        self.relations.rowsInserted.connect(self._set_note)
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        self._side = QtWidgets.QWidget()
        side_layout = QtWidgets.QVBoxLayout(self._side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        self.table_title = QtWidgets.QLabel()
        side_layout.addWidget(self.table_title)
        side_layout.addWidget(self.table, 1)
        side_layout.addWidget(self.note)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_split()
        self.info.fit()

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self._fit_split()

    def _fit_split(self) -> None:
        """Give the relation list the height of its rows (25-45 %), the drawing the rest,
        until the user moves the splitter."""
        if self._user_split:
            return
        total = self.splitter.height() - self.splitter.handleWidth()
        if total <= 0:
            return
        # (the rows' number, not their heights: those come later, a slice at a time; a reason
        # usually wraps to two lines)
        row = self.table.verticalHeader().defaultSectionSize()
        rows = min(self.model.pairs, 12) * 2 * row

        want = (self.table.horizontalHeader().height() + rows + self.table_title.sizeHint().height()
                + self.note.sizeHint().height() + 24)
        side = int(min(max(want, total * 0.25), total * 0.45))
        self.splitter.setSizes([total - side, side])

    @QtCore.Slot(int, int)
    def _splitter_moved(self, *_: int) -> None:
        self._user_split = True

    # ------------------------------------------------------------------ texts

    def _set_texts(self) -> None:
        """The static texts (legend, list title, column headers) in the current language."""
        self.legend.setText(memory_texts.legend())
        self.legend.setToolTip(memory_texts.legend_tip())
        self.table_title.setText(memory_texts.table_title())

    def retranslate(self) -> None:
        """Show every text in the language just installed, in place: the model is not
        recomputed, and the relation list's selection and scroll, the drawing's zoom and scroll
        and what is lit are kept."""
        self._set_texts()
        self._model_lang = self._translate_whys(self.model, self._model_lang)
        self.relations.whys = dict(self.model.whys)
        self.relations.retranslate()
        self._set_note()
        self._fit_split()
        if self._failure is not None:
            self._draw_failure()
        elif self._ready or self.model.strips:  # not before the first model is drawn
            hovered = self.hover.hovered
            self.redraw_keeping_view()
            if hovered is None and self.hover.pos is None:
                self.set_info(None)
        elif self.hover.pos is None:
            self.set_info(None)

    def redraw_keeping_view(self) -> None:
        """Draw again (new language, colours or text size) with the same scroll position and
        the same elements lit."""
        bar = self.view.verticalScrollBar()
        top, old_max = bar.value(), bar.maximum()
        hovered = self.hover.hovered
        self.redraw()
        # the same place: the same offset, or the same fraction when the drawing's height
        # changed (another language's font, presentation mode)
        bar.setValue(top if bar.maximum() == old_max or not old_max
                     else round(top / old_max * bar.maximum()))
        if self.hover.pos is None and hovered is not None:
            self.hover.rehover(hovered)

    def _whys(self) -> dict[str, str]:
        """The "why" sentences of the workspace's values, in the current language."""
        return sharing_whys(self.bridge.workspace, i18n.current())

    def _translate_whys(self, model: MemoryModel, lang: str) -> str:
        """Put ``model``'s "why" sentences, written in ``lang``, into the current language;
        returns the current language."""
        now = i18n.current()
        if lang != now:
            model.set_whys(self._whys())
        return now

    def set_info(self, text: str | None) -> None:
        """The hover line (:class:`~.memory_hover.HoverLine`) says ``text``."""
        self.info.say(text)

    # ------------------------------------------------------------------ model

    @QtCore.Slot()
    def refresh(self) -> None:
        """Recompute the model from the workspace (in the background) and redraw."""
        if self._task is not None and self._task.running:
            self._dirty = True
            return
        items = [(n, v) for n, v in self.bridge.workspace.items()]
        whys = self._whys()
        self._task_lang = i18n.current()
        self._ready = False
        self._dirty = False
        task = Task(lambda progress, cancel: compute_model(items, whys, cancel), parent=self)
        task.finished.connect(self._apply)
        task.failed.connect(self._failed)
        self._task = task
        task.start()

    @QtCore.Slot(object)
    def _apply(self, model: MemoryModel) -> None:
        self._task = None
        if self._dirty:
            self.refresh()
            return
        self.marks.update(model)
        # the language may have changed while it was computed
        self._model_lang = self._translate_whys(model, self._task_lang)
        self._failure = None
        self.model = model
        self.relations.reset({}, 0, {})
        self._fit_split()
        self.redraw()
        if self._scroll_to is not None:
            self.scroll_to(self._scroll_to)
        # the relation list in a later turn (each turn holds the UI thread for one slice)
        self.slices.want(self._filled)

    def _filled(self, deadline: float) -> bool:
        if self._task is not None or self._ready:
            return False
        self._fill_table(deadline)
        self._ready = True
        self.drawn.emit()
        return False

    @QtCore.Slot(str)
    def _failed(self, message: str) -> None:
        self._task = None
        self.model = MemoryModel()
        self.relations.reset({}, 0, {})
        self._failure = message
        self._draw_failure()
        self._ready = True
        self.drawn.emit()

    def _draw_failure(self) -> None:
        self.drawing.clear()
        self.scene.addSimpleText(memory_texts.failure(str(self._failure)))

    @QtCore.Slot(str)
    def _note_changed(self, name: str) -> None:
        self.marks.note(name)

    @QtCore.Slot(object, tuple, object)
    def value_written(self, name: object, index: tuple[int, ...] = (),
                      value: object = None) -> None:
        """An element of ``name`` was written in place outside the workspace's events (a table
        edit in the Values panel): mark it and its aliases as written and redraw."""
        if isinstance(name, str):
            self.marks.note(name)
        self.refresh()

    def is_ready(self) -> bool:
        """True when the drawing shows the latest model."""
        return self._ready and (self._task is None or not self._task.running)

    # ------------------------------------------------------------------ relation list

    def _fill_table(self, deadline: float) -> None:
        """The relation list for the new model: the first rows now (as many as fit before
        ``deadline``), the rest as the list is scrolled."""
        model = self.model
        self.relations.reset(model.values, model.pairs, model.whys)
        # (half the slice reading pairs: adding the rows, sizing the columns take the rest)
        self.relations.fetch(FETCH_ROWS, max((deadline - time.perf_counter()) / 2, 0.002))
        self._set_note()

    @QtCore.Slot()
    def _set_note(self, *_: object) -> None:
        """The lines under the relation list."""
        self.note.setText(memory_texts.relation_note(self.model, self.relations.pending()))

    def relation_rows(self) -> list[tuple[str, str, str, int, str]]:
        """(a, b, kind, shared bytes, why) for each row of the relation list read so far (the
        why as it reads, without the invisible wrap points of :func:`breakable`); a pair still
        being counted has kind "pending" and -1 bytes."""
        out: list[tuple[str, str, str, int, str]] = []
        for r, rel in enumerate(self.relations.rows):
            why = self.relations.text(r, 4)
            if isinstance(rel, memory.Relation):
                out.append((rel.a or "", rel.b or "", rel.kind, rel.shared_bytes, why))
            else:
                out.append((rel.a or "", rel.b or "", "pending", -1, why))
        return out

    @QtCore.Slot()
    def _row_selected(self, *_: object) -> None:
        rows = {i.row() for i in self.table.selectedItems()}
        if len(rows) != 1:
            return
        rel = self.relations.rows[rows.pop()]
        lane = self.model.lane(rel.b or "")
        if lane is not None and lane.numel:
            self.scroll_to(lane.name)
            self.hover_element(lane.name, (0,) * len(lane.shape))

    # ------------------------------------------------------------------ drawing

    def palette_now(self) -> Palette:
        """The colours and fonts of the drawing, for the current theme and text size."""
        return palette_for(self.font())

    @QtCore.Slot()
    def _restyle(self) -> None:
        t = theme.current()
        self.view.setBackgroundBrush(QtGui.QColor(t.base))
        self.legend.setStyleSheet(f"color: {t.muted};")
        self.info.restyle(t.text)
        self.table.remeasure()  # (a larger font: wider columns, taller rows)
        if self._ready:
            self.redraw_keeping_view()

    @QtCore.Slot()
    def redraw(self) -> None:
        """Draw the current model for the current size, theme and zoom. Rows are laid out from
        the top, a slice at a time (the rest in later turns of the event loop, the scene's
        height estimated meanwhile); scene items are made only for the rows near the visible
        part (:class:`~.memory_layout.MemoryLayout`)."""
        self.drawing.start()
        if self.hover.pos is not None:
            self.hover.now()

    def is_laid_out(self) -> bool:
        """True when every row of the drawing has its place (at the view's width)."""
        return self.drawing.is_laid_out() and not self.slices.pending(self._resized)

    def _resized(self, deadline: float) -> bool:
        """A slice: the view's width changed; lay the drawing out again if it changes it."""
        if self.drawing.laid_width is not None and self.drawing.width() == self.drawing.laid_width:
            self.drawing.materialize_visible()
        else:
            self.redraw_keeping_view()
        return False

    @QtCore.Slot()
    def _materialize_visible(self, *_: object) -> None:
        """Make the scene items of the rows in view (and near it, in later turns)."""
        self.drawing.materialize_visible()

    @property
    def _lane_items(self) -> dict[str, LaneItem]:
        """The values' scene items made so far (see :class:`~.memory_layout.MemoryLayout`)."""
        return self.drawing.lane_items

    @property
    def _laid_width(self) -> int | None:
        return self.drawing.laid_width

    @QtCore.Slot(object)
    def scroll_to(self, name: object) -> None:
        """Scroll the drawing so that the row of ``name`` is in view (on a selection); a value
        not drawn yet is scrolled to once its model is drawn."""
        if not isinstance(name, str):
            return
        row = self.drawing.lane_rows.get(name)
        if row is None:  # not drawn (yet): scrolled to when it is
            self._scroll_to = name if name in self.bridge.workspace else None
            return
        self._scroll_to = None
        top, bottom = row
        s = theme.state().scale
        self.view.ensureVisible(QtCore.QRectF(0, top, 1, bottom - top), 0, int(12 * s))
        self.view.horizontalScrollBar().setValue(0)
        self.drawing.materialize_visible()

    def lane_rect(self, name: str) -> QtCore.QRect | None:
        """Where the row of ``name`` is on the view's viewport now (None: not drawn)."""
        self.drawing.ensure_made(name)
        item = self._lane_items.get(name)
        if item is None:
            return None
        return self.view.mapFromScene(item.sceneBoundingRect()).boundingRect()

    # ------------------------------------------------------------------ zoom (ZoomWindows)

    def strip_at(self, pos: QtCore.QPointF) -> StripModel | None:
        """The strip drawn at scene ``pos`` (None outside strips)."""
        for strip in self.model.strips:
            rect = self.drawing.strip_rects.get(strip.number)
            if rect is not None and rect.contains(pos) and strip.has_memory:
                return strip
        return None

    def zoom_at(self, pos: QtCore.QPointF, factor: float) -> bool:
        """Zoom the strip under ``pos`` by ``factor`` (< 1: in) around the byte under it."""
        strip = self.strip_at(pos)
        geom = self.drawing.geoms.get(strip.number) if strip is not None else None
        if strip is None or geom is None:
            return False
        if not self.zoom.zoom(strip, geom.lo, geom.hi, geom.byte_at(pos.x()), factor):
            return False
        self.redraw()
        return True

    def reset_zoom(self, number: int | None = None) -> None:
        """Show whole allocations again (one strip, or all)."""
        self.zoom.reset(self.model.strips, number)
        self.redraw()

    def set_window(self, name: str, lo: int, hi: int) -> None:
        """Show bytes ``[lo, hi)`` of the allocation holding ``name``."""
        strip = self.model.strip_of(name)
        if strip is None:
            raise KeyError(name)
        self.zoom.set(strip, lo, hi)
        self.redraw()

    # ------------------------------------------------------------------ hover (MemoryHover)

    def hover_at(self, pos: QtCore.QPointF) -> dict[str, list[tuple[int, ...]]]:
        """Hover the scene point ``pos`` (see :meth:`MemoryHover.at`)."""
        return self.hover.at(pos)

    def hover_element(self, name: str, index: Iterable[int]) -> dict[str, list[tuple[int, ...]]]:
        """Light up element ``index`` of ``name``, its bytes, and every element of every value
        that reads them. Returns ``{value name: [index, ...]}`` of what is lit."""
        return self.hover.element(name, index)

    def clear_hover(self) -> None:
        """Nothing lit."""
        self.hover.clear()

    def lit(self) -> dict[str, set[tuple[int, ...]]]:
        """What the last hover lit: ``{value name: {element index, ...}}``."""
        return self.hover.lit()

    # ------------------------------------------------------------------ inspection (tests)

    def allocations(self) -> list[list[str]]:
        """The value names drawn on each strip, top to bottom."""
        return [[lane.name for lane in strip.lanes] for strip in self.model.strips]

    def shown_value(self, name: str, index: Iterable[int]) -> str | None:
        """The text drawn in the cell of element ``index`` of ``name``."""
        lane = self.model.lane(name)
        if lane is None:
            return None
        return lane.text_at(lane.offset_of(tuple(int(i) for i in index)))

    def shown_multiplicity(self, name: str) -> dict[int, int]:
        """{strip offset: ×N} for the cells of ``name`` marked as read by N > 1 elements."""
        lane = self.model.lane(name)
        if lane is None or lane.cell_offsets is None or lane.cell_mult is None:
            return {}
        return {int(o): int(m) for o, m in zip(lane.cell_offsets, lane.cell_mult, strict=True)
                if m > 1}

    def changed_cells(self, name: str) -> set[int]:
        """Strip offsets of the cells of ``name`` marked as changed by the last write."""
        return set(self.marks.changed_cells.get(name, set()))

    def scene_texts(self) -> list[str]:
        """Every text item in the drawing (labels, details, titles)."""
        return [item.text() for item in self.scene.items()
                if isinstance(item, QtWidgets.QGraphicsSimpleTextItem)]

    def lane_text(self, name: str) -> str:
        """The detail line drawn for ``name`` (kind, dtype, shape, stride, offset, version)."""
        lane = self.model.lane(name)
        return memory_texts.lane_detail(lane, self.marks) if lane is not None else ""

    def lane_mode(self, name: str) -> str | None:
        """"cells" or "ranges": how the strip holding ``name`` is drawn now."""
        item = self._lane_items.get(name)
        return item.geom.mode if item is not None else None

    def cell_centre(self, name: str, index: Iterable[int]) -> QtCore.QPointF:
        """Scene point at the centre of the cell of element ``index`` of ``name``."""
        self.drawing.ensure_made(name)
        item = self._lane_items[name]
        off = item.lane.offset_of(tuple(int(i) for i in index))
        x = item.geom.x(off + item.lane.itemsize / 2)
        return item.mapToScene(QtCore.QPointF(x, item.h / 2))

    def lit_cells(self, name: str) -> set[int]:
        """Strip offsets of the lit cells of ``name`` as drawn."""
        item = self._lane_items.get(name)
        return set(item.lit) if item is not None else set()
