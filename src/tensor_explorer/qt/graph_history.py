"""The graph pane's Accumulation tab: ``.grad`` of each named leaf after every backward and
zero_grad call, as a table and a plot (from the session's
:class:`~tensor_explorer.core.autograd.GradHistory`)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ..core.autograd import GradHistory, grad_norm
from ..core.graph_texts import norm_text
from . import theme


class GradHistoryView(QtWidgets.QSplitter):
    """Table and plot of a :class:`GradHistory`; :meth:`show_history` redraws both, the plot's
    axes fitted to what is shown (a new root starts an empty history: the axes start over)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(QtCore.Qt.Orientation.Vertical, parent)
        self.table = QtWidgets.QTableWidget(0, 0)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.plot = pg.PlotWidget()
        self.plot.setMinimumHeight(80)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.legend = self.plot.addLegend(offset=(5, 5))
        self.addWidget(self.table)
        self.addWidget(self.plot)
        self._history: GradHistory | None = None
        self.retranslate()

    def retranslate(self) -> None:
        """Axis labels and column titles in the current language."""
        self.plot.setLabel("bottom", self.tr("call"))
        self.plot.setLabel("left", self.tr("‖grad‖"))
        if self._history is not None:
            self.show_history(self._history)

    def restyle(self) -> None:
        """The plot in the current theme."""
        self.plot.setBackground(theme.current().base)
        if self._history is not None:
            self.show_history(self._history)

    def show_history(self, history: GradHistory) -> None:
        """Fill the table and the plot from ``history``."""
        self._history = history
        names = history.names()
        entries = history.entries
        norms = {n: [grad_norm(e.grads.get(n)) for e in entries] for n in names}
        cols = [self.tr("call"), self.tr("event"), self.tr("step"),
                *[f"‖{n}.grad‖" for n in names]]
        tbl = self.table
        tbl.setColumnCount(len(cols))
        tbl.setHorizontalHeaderLabels(cols)
        tbl.setRowCount(len(entries))
        for r, entry in enumerate(entries):
            event: str = entry.event
            if event == "zero_grad":
                event = f"zero_grad({'None' if entry.set_to_none else 'zeros'})"
            values = [str(r + 1), event, str(entry.step)]
            for n in names:
                g, norm = entry.grads.get(n), norms[n][r]
                values.append("None" if g is None else "?" if norm is None else norm_text(norm))
            for c, cell in enumerate(values):
                tbl.setItem(r, c, QtWidgets.QTableWidgetItem(cell))
        tbl.resizeColumnsToContents()
        self.plot.clear()
        if self.legend is not None:
            self.legend.clear()
        colours = theme.current().series
        self.plot.getAxis("bottom").setTickSpacing(max(1, -(-len(entries) // 8)), 1)
        x = np.arange(1, len(entries) + 1, dtype=float)
        for i, n in enumerate(names):
            y = np.array([np.nan if v is None else v for v in norms[n]], float)
            self.plot.plot(x, y, pen=pg.mkPen(colours[i % len(colours)], width=2),
                           symbol="o", symbolSize=6, symbolBrush=colours[i % len(colours)],
                           connect="finite", name=f"{n}.grad")
        # the axes describe this history: fitted again (a pan or zoom of an older history,
        # or its range, must not stay)
        self.plot.enableAutoRange()
        if not entries:
            self.plot.setXRange(0, 1, padding=0)
            self.plot.setYRange(0, 1, padding=0)

    def rows(self) -> list[list[str]]:
        """The table's cells (for tests)."""
        tbl = self.table
        return [[item.text() if (item := tbl.item(r, c)) is not None else ""
                 for c in range(tbl.columnCount())]
                for r in range(tbl.rowCount())]

    def plotted(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The plotted series by legend name: (x, y) (for tests)."""
        out = {}
        for item in self.plot.listDataItems():
            x, y = item.getData()
            out[str(item.name())] = (np.asarray(x), np.asarray(y))
        return out
