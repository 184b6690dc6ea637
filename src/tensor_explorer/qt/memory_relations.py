"""The Memory panel's relation list: every related pair of values, read lazily.

A thousand views of one tensor are half a million pairs; counting them all before showing any
would hold the panel for minutes. :class:`RelationModel` is a virtual table: it reads pairs from
:func:`tensor_explorer.core.memory.iter_relations` only as rows are needed (``canFetchMore`` /
``fetchMore``: the view asks when it is scrolled to the bottom), a batch at a time, each pair
with a work budget and each batch with a time limit: the view's ask reads for
:data:`FETCH_SECONDS`, the rest of its batch is read in later turns. A pair whose count runs
past its budget comes back as a :class:`~tensor_explorer.core.memory.PendingRelation`: its
row reads "overlap? counting…" while a background :class:`~tensor_explorer.qt.workers.Task`
finishes the count (cancelled when the model is replaced); then the row shows the answer.

:class:`RelationTable` is the view: names, kind and bytes as wide as their texts, the "why"
column the rest, wrapped, each row as tall as its text (heights measured for the rows fetched,
a slice at a time after a width change). Every text names the values by their real names.

:class:`Slices` runs the deferred work of the panel (its drawing's layout, the list's fill,
fetches, row heights and column widths): one slice per turn of the event loop, so no input
waits for several of them at once (the guide: nothing holds the UI thread past ~50 ms).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..core import memory
from ..core.memory_drawing import yielding
from .workers import Task

#: work units one pair may take on the UI thread before it is left to the background
PAIR_BUDGET = 1 << 14
#: longest a fetch of rows may hold the UI thread (seconds): the view's ``fetchMore`` (the
#: list scrolled to its end) reads this long, the rest of its :data:`FETCH_ROWS` in later turns
FETCH_SECONDS = 0.006
#: most rows one fetch adds
FETCH_ROWS = 200
#: longest one background batch counts before it reports what it finished (seconds)
BATCH_SECONDS = 0.25
#: longest one turn of the event loop measures row heights (seconds; the rest: next turns)
HEIGHT_SECONDS = 0.01
#: a change of more rows than this re-fits the columns a slice a turn (a new language: every
#: row's texts change; thousands of rows are measured in several turns)
FIT_ROWS = 200
#: longest one slice of deferred work (:class:`Slices`) holds the UI thread (seconds)
SLICE_SECONDS = 0.008
#: a slice waits one more turn when the UI thread was busy this long since the last one ended
#: (an input, painting, a model arriving: their turn is not made longer by a slice)
YIELD_SECONDS = 0.004

Row = memory.Relation | memory.PendingRelation

_BREAK_AFTER = re.compile(r"([._(,=])(?=\S)")


def breakable(text: str) -> str:
    """``text`` with places a cell may wrap inside code (``torch.from_numpy(array),``): a
    zero-width space after dots, brackets and commas, so a narrow column wraps the code instead
    of cutting it off at the edge. Drawn as nothing; for the table's display only."""
    return _BREAK_AFTER.sub("\\1\u200b", text)


def _count(batch: list[memory.PendingRelation], cancel: Callable[[], bool]) -> list[Row]:
    """Resume the pending pairs of ``batch`` in order until they are done, ``cancel()`` or
    :data:`BATCH_SECONDS` (background thread). Returns what each is now."""
    out: list[Row] = []
    stop = time.monotonic() + BATCH_SECONDS
    for pending in batch:
        now: Row = pending
        while isinstance(now, memory.PendingRelation) and not cancel():
            now = pending.resume(PAIR_BUDGET * 4, cancel)
            if time.monotonic() > stop:
                break
        out.append(now)
        if cancel() or time.monotonic() > stop:
            break
    return out


Job = Callable[[float], bool]


class Slices(QtCore.QObject):
    """Deferred work on the UI thread, at most one slice per turn of the event loop.

    A job is ``job(deadline) -> bool``: it works until ``time.perf_counter()`` passes
    ``deadline`` (about :data:`SLICE_SECONDS` away) and says whether it has more to do. Jobs
    asked for with :meth:`want` take turns (round robin); one zero-delay single-shot timer runs
    one slice and posts itself again while any job has work, so several kinds of deferred work
    (laying the drawing out, filling the relation list, measuring its rows, a redraw after a
    resize) never add up in one turn. When the thread was busy since the last slice (an input
    was handled, a view painted), the slice waits one turn more, so it never lands on top of
    that work.
    """

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: dict[Job, None] = {}  # pending jobs, in their order of turn
        self._since = 0.0  # when the last slice ended (or the first was asked for)
        self._waited = False
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._run)

    def want(self, job: Job) -> None:
        """Run ``job`` in a later turn (once, however often it is asked for meanwhile)."""
        self._jobs.setdefault(job, None)
        if not self._timer.isActive():
            self._since = time.perf_counter()
            self._waited = False
            self._timer.start()

    def drop(self, job: Job) -> None:
        """``job`` has nothing to do any more."""
        self._jobs.pop(job, None)

    def pending(self, job: Job) -> bool:
        """True while ``job`` waits for a slice."""
        return job in self._jobs

    def run_all(self, seconds: float = 60.0) -> None:
        """Every pending job to its end now (tests): at most about ``seconds`` in all."""
        stop = time.perf_counter() + seconds
        while self._jobs and time.perf_counter() < stop:
            job = next(iter(self._jobs))
            del self._jobs[job]
            if job(time.perf_counter() + SLICE_SECONDS):
                self._jobs[job] = None

    @QtCore.Slot()
    def _run(self) -> None:
        if not self._jobs:
            return
        now = time.perf_counter()
        if not self._waited and now - self._since > YIELD_SECONDS:
            self._waited = True  # the thread was busy: this turn is its own
            self._since = now
            self._timer.start()
            return
        job = next(iter(self._jobs))
        del self._jobs[job]
        if job(now + SLICE_SECONDS):
            self._jobs[job] = None  # (to the end: the others' turn first)
        self._since = time.perf_counter()
        self._waited = False
        if self._jobs:
            self._timer.start()


class RelationModel(QtCore.QAbstractTableModel):
    """Related pairs of the values given to :meth:`reset`, fetched as they are shown.

    Columns: value, other value, relation (in words), shared bytes, why. ``texts`` gives the
    worded cells: ``texts.kind_text(kind, a, b)``, ``texts.kind_tip(kind, a, b)``,
    ``texts.pending_text(a, b)``, ``texts.headers()``.

    Signals: ``counted()`` when a pending pair got its answer (and once all are done,
    ``settled()``).
    """

    counted = QtCore.Signal()
    settled = QtCore.Signal()
    #: class-level defaults: Qt may ask a model whose Python half is being torn down (a
    #: closed window's, during the next one's restyle) for its header; it then answers nothing
    texts: Any = None
    rows: list[Row] = []  # noqa: RUF012 (never mutated: __init__ binds the instance's own)

    def __init__(self, texts: Any, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.rows: list[Row] = []
        self.whys: dict[str, str] = {}
        self.pairs = 0
        self._source: Iterator[Row] | None = None
        self._pending: dict[int, int] = {}  # id(PendingRelation) -> row
        self._task: Task | None = None
        self._wanted = 0  # rows a fetchMore asked for, not read yet (read in slices)
        #: where the rest of a fetchMore is read, a slice a turn (the table's)
        self.slices: Slices | None = None

    # ------------------------------------------------------------------ contents

    def reset(self, values: Mapping[str, Any], pairs: int, whys: Mapping[str, str]) -> None:
        """Show the pairs of ``values`` (``pairs`` of them); nothing is counted yet."""
        self.cancel()
        self.beginResetModel()
        self.rows = []
        self._pending = {}
        self._wanted = 0
        self.whys = dict(whys)
        self.pairs = pairs
        self._source = memory.iter_relations(values, budget=PAIR_BUDGET) if pairs else None
        self.endResetModel()

    def cancel(self) -> None:
        """Stop counting in the background."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def canFetchMore(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex
                     = QtCore.QModelIndex()) -> bool:  # noqa: B008 (Qt's signature)
        return not parent.isValid() and self._source is not None

    def fetchMore(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex
                  = QtCore.QModelIndex()) -> None:  # noqa: B008
        if parent.isValid():
            return
        if self.slices is None:
            self.fetch(FETCH_ROWS, FETCH_SECONDS)
            return
        # the first rows now, the rest of the batch a slice a turn (an input never waits for
        # the whole batch)
        self._wanted = FETCH_ROWS - self.fetch(FETCH_ROWS, FETCH_SECONDS)
        if self._wanted > 0 and self._source is not None:
            self.slices.want(self._fetch_rest)

    def _fetch_rest(self, deadline: float) -> bool:
        """A slice of the rows a fetchMore asked for; True when some are left."""
        if self._wanted <= 0 or self._source is None:
            return False
        # (half the slice reading pairs: adding the rows, sizing the columns take the rest)
        seconds = max((deadline - time.perf_counter()) / 2, 0.001)
        self._wanted -= self.fetch(self._wanted, seconds)
        return self._wanted > 0 and self._source is not None

    def fetch(self, rows: int, seconds: float) -> int:
        """Read up to ``rows`` more pairs, for at most about ``seconds``; returns how many."""
        source = self._source
        if source is None:
            return 0
        got: list[Row] = []
        stop = time.perf_counter() + seconds
        while len(got) < rows:
            try:
                got.append(next(source))
            except StopIteration:
                self._source = None
                break
            if time.perf_counter() > stop:
                break
        if got:
            first = len(self.rows)
            self.beginInsertRows(QtCore.QModelIndex(), first, first + len(got) - 1)
            self.rows.extend(got)
            for r, row in enumerate(got, start=first):
                if isinstance(row, memory.PendingRelation):
                    self._pending[id(row)] = r
            self.endInsertRows()
            self._count_more()
        elif self._source is None and not self._pending:
            self.settled.emit()
        return len(got)

    def fetch_all(self, seconds: float = 60.0) -> None:
        """Read every pair (tests, small workspaces): at most ``seconds`` in all."""
        stop = time.perf_counter() + seconds
        while self._source is not None and time.perf_counter() < stop:
            self.fetch(FETCH_ROWS, FETCH_SECONDS)

    def pending(self) -> int:
        """Rows still being counted."""
        return len(self._pending)

    def done(self) -> bool:
        """Every pair read and counted."""
        return self._source is None and not self._pending

    def _count_more(self) -> None:
        if self._task is not None or not self._pending:
            return
        rows = sorted(self._pending.values())
        batch = [self.rows[r] for r in rows]
        todo = [p for p in batch if isinstance(p, memory.PendingRelation)]
        task = Task(lambda progress, cancel: (todo, _count(todo, yielding(cancel))),
                    parent=self)
        task.finished.connect(self._counted)
        self._task = task
        task.start()

    @QtCore.Slot(object)
    def _counted(self, outcome: tuple[list[memory.PendingRelation], list[Row]]) -> None:
        self._task = None
        batch, results = outcome
        changed: list[int] = []
        for pending, now in zip(batch, results, strict=False):
            r = self._pending.get(id(pending))
            if r is None or self.rows[r] is not pending or not isinstance(now, memory.Relation):
                continue
            del self._pending[id(pending)]
            self.rows[r] = now
            changed.append(r)
        for r in changed:
            self.dataChanged.emit(self.index(r, 0), self.index(r, 4))
        if changed:
            self.counted.emit()
        if self._pending:
            self._count_more()
        elif self._source is None:
            self.settled.emit()

    # ------------------------------------------------------------------ Qt model

    def rowCount(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex
                 = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex
                    = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 5

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == QtCore.Qt.Orientation.Horizontal and \
                role == QtCore.Qt.ItemDataRole.DisplayRole and 0 <= section < 5 and \
                self.texts is not None:
            return self.texts.headers()[section]
        return None

    def why(self, row: Row) -> str:
        return self.whys.get(row.b or "") or self.whys.get(row.a or "") or ""

    def text(self, r: int, column: int) -> str:
        """What cell (r, column) says (the "why" without its wrap points)."""
        row = self.rows[r]
        a, b = row.a or "", row.b or ""
        if column == 0:
            return a
        if column == 1:
            return b
        if column == 2:
            if isinstance(row, memory.PendingRelation):
                return str(self.texts.pending_text(a, b))
            return str(self.texts.kind_text(row.kind, a, b))
        if column == 3:
            return "…" if isinstance(row, memory.PendingRelation) else f"{row.shared_bytes:,}"
        return self.why(row)

    def tip(self, r: int, column: int) -> str:
        row = self.rows[r]
        if column == 2 and isinstance(row, memory.Relation):
            return str(self.texts.kind_tip(row.kind, row.a or "", row.b or ""))
        if column == 4:
            return self.why(row)
        return ""

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
             role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            text = self.text(index.row(), index.column())
            return breakable(text) if index.column() == 4 else text
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return self.tip(index.row(), index.column()) or None
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and index.column() == 3:
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        return None

    def retranslate(self) -> None:
        """Worded cells and headers in the current language (rows, selection, scroll stay)."""
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, 4))
        self.headerDataChanged.emit(QtCore.Qt.Orientation.Horizontal, 0, 4)


class _Cell:
    """What ``QTableWidget.item`` gave: a cell's text, tool tip, row and column."""

    def __init__(self, model: RelationModel, row: int, column: int) -> None:
        self._model, self._row, self._column = model, row, column

    def text(self) -> str:
        if self._row < 0:
            return str(self._model.headerData(self._column, QtCore.Qt.Orientation.Horizontal))
        value = self._model.data(self._model.index(self._row, self._column))
        return str(value) if value is not None else ""

    def toolTip(self) -> str:
        value = self._model.data(self._model.index(self._row, self._column),
                                 QtCore.Qt.ItemDataRole.ToolTipRole)
        return str(value) if value is not None else ""

    def row(self) -> int:
        return self._row

    def column(self) -> int:
        return self._column


class RelationTable(QtWidgets.QTableView):
    """The relation list's view: columns sized to their texts, "why" wrapped, rows as tall as
    their text. Offers ``item``, ``horizontalHeaderItem``, ``selectedItems`` and ``rowCount``
    as a ``QTableWidget`` does (read-only)."""

    def __init__(self, model: RelationModel, parent: QtWidgets.QWidget | None = None,
                 slices: Slices | None = None) -> None:
        super().__init__(parent)
        self.slices = slices if slices is not None else Slices(self)
        model.slices = self.slices
        self.setModel(model)
        self.relations = model
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QtWidgets.QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setWordWrap(True)
        self.setTextElideMode(QtCore.Qt.TextElideMode.ElideNone)
        header = self.horizontalHeader()
        header.setStretchLastSection(True)
        for column in range(4):
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.Interactive)
        self.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Interactive)
        self._stale = 0  # rows from here on need their height measured
        self._widths_for = -1  # rows whose texts the column widths account for
        self._text_widths = [0] * 4  # the widest text (with padding) of columns 0-3
        self._fit_next, self._fit_widths = 0, [0] * 4  # re-fitting in slices: where, so far
        model.rowsInserted.connect(self._rows_inserted)
        model.modelReset.connect(self._model_reset)
        model.dataChanged.connect(self._data_changed)
        header.sectionResized.connect(self._section_resized)

    # ------------------------------------------------------------------ QTableWidget's reading

    def rowCount(self) -> int:
        return self.relations.rowCount()

    def item(self, row: int, column: int) -> _Cell | None:
        if not (0 <= row < self.relations.rowCount() and 0 <= column < 5):
            return None
        return _Cell(self.relations, row, column)

    def horizontalHeaderItem(self, column: int) -> _Cell:
        return _Cell(self.relations, -1, column)

    def selectedItems(self) -> list[_Cell]:
        return [_Cell(self.relations, i.row(), i.column())
                for i in self.selectionModel().selectedIndexes()]

    # ------------------------------------------------------------------ sizes

    @QtCore.Slot()
    def _model_reset(self) -> None:
        self.slices.drop(self._fit_slice)
        self._stale = 0
        self._widths_for = 0
        self.fit_columns()

    @QtCore.Slot(QtCore.QModelIndex, int, int)
    def _rows_inserted(self, parent: QtCore.QModelIndex, first: int, last: int) -> None:
        self.fit_columns(first)
        self._stale = min(self._stale, first)
        self.slices.want(self._measure_rows)

    @QtCore.Slot(QtCore.QModelIndex, QtCore.QModelIndex)
    def _data_changed(self, top: QtCore.QModelIndex, bottom: QtCore.QModelIndex) -> None:
        if bottom.row() - top.row() < FIT_ROWS:
            self.fit_columns(top.row(), bottom.row() + 1)
        else:  # every row's texts: measured in slices, then the columns fitted to them all
            self._fit_next, self._fit_widths = 0, [0] * 4
            self.slices.want(self._fit_slice)
        if bottom.row() == top.row():
            self.setRowHeight(top.row(), self.sizeHintForRow(top.row()))
        else:
            self._stale = min(self._stale, top.row())
            self.slices.want(self._measure_rows)

    @QtCore.Slot(int, int, int)
    def _section_resized(self, column: int, old: int, new: int) -> None:
        if old != new:  # every row's wrapped height may change: measure again, a slice a turn
            self._stale = 0
            self.slices.want(self._measure_rows)

    def remeasure(self) -> None:
        """Column widths and row heights again (a new font or text size)."""
        self.fit_columns()
        self._stale = 0
        self.slices.want(self._measure_rows)

    def fit_columns(self, first: int = 0, last: int | None = None) -> None:
        """Columns 0-3 at least as wide as their header and the texts of rows ``[first,
        last)`` (they only grow, so nothing moves as rows are fetched); the relation column at
        most 40 % of the width (wrapped beyond), the "why" column the rest."""
        model = self.relations
        fm = QtGui.QFontMetrics(self.font())
        header = self.horizontalHeader()
        hfm = QtGui.QFontMetrics(header.font())
        pad = 2 * (self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin)
                   + 1) + 10
        last = model.rowCount() if last is None else last
        cap = max(120, int(self.viewport().width() * 0.4))
        part = first > 0 or last < model.rowCount()
        # the widest text of each column, kept for a resize (which then reads no row)
        widths = list(self._text_widths) if part else [0] * 4
        for column in range(4):
            want = hfm.horizontalAdvance(str(model.headerData(
                column, QtCore.Qt.Orientation.Horizontal))) + pad + 8
            if part:
                want = max(want, header.sectionSize(column))
            for r in range(first, last):
                widths[column] = max(widths[column],
                                     fm.horizontalAdvance(model.text(r, column)) + pad)
            want = max(want, widths[column])
            if column == 2:
                want = min(want, cap)
            if want != header.sectionSize(column):
                header.resizeSection(column, want)
        self._text_widths = widths

    def _fit_slice(self, deadline: float) -> bool:
        """A slice of measuring every row's texts; the columns fitted to them once all are
        (:meth:`fit_columns` of every row, in turns). True when rows are left."""
        model = self.relations
        fm = QtGui.QFontMetrics(self.font())
        pad = 2 * (self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin)
                   + 1) + 10
        widths = self._fit_widths
        r, n = self._fit_next, model.rowCount()
        while r < n:
            for column in range(4):
                widths[column] = max(widths[column],
                                     fm.horizontalAdvance(model.text(r, column)) + pad)
            r += 1
            if time.perf_counter() > deadline:
                break
        self._fit_next = r
        if r < n:
            return True
        self._text_widths = widths
        self._refit_columns()
        return False

    def _refit_columns(self) -> None:
        """:meth:`fit_columns` for every row, from the widths of their texts measured before
        (a resize: the relation column's cap changes; no text is measured again)."""
        header = self.horizontalHeader()
        hfm = QtGui.QFontMetrics(header.font())
        pad = 2 * (self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin)
                   + 1) + 10
        cap = max(120, int(self.viewport().width() * 0.4))
        for column in range(4):
            want = max(hfm.horizontalAdvance(str(self.relations.headerData(
                column, QtCore.Qt.Orientation.Horizontal))) + pad + 8, self._text_widths[column])
            if column == 2:
                want = min(want, cap)
            if want != header.sectionSize(column):
                header.resizeSection(column, want)

    def _measure_rows(self, deadline: float) -> bool:
        """Heights of the rows not yet measured, until ``deadline`` (perf_counter) or for at
        most :data:`HEIGHT_SECONDS`; True when rows are left for a later turn."""
        n = self.relations.rowCount()
        stop = min(deadline, time.perf_counter() + HEIGHT_SECONDS)
        r = self._stale
        while r < n:
            self.setRowHeight(r, self.sizeHintForRow(r))
            r += 1
            if time.perf_counter() > stop:
                break
        self._stale = r
        # never so short that the first (wrapped) row is cut: presentation mode at 1280x800
        first = self.rowHeight(0) if n else self.verticalHeader().defaultSectionSize()
        self.setMinimumHeight(self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth()
                              + min(first, 6 * self.verticalHeader().defaultSectionSize()))
        return r < n

    def measured(self) -> bool:
        """True when every row has the height of its (wrapped) text."""
        return self._stale >= self.relations.rowCount() and \
            not self.slices.pending(self._measure_rows) and \
            not self.slices.pending(self._fit_slice)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._refit_columns()
