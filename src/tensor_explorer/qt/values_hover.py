"""What the Values panel's hover line says: :class:`HoveredCell` follows the pointer over the
heatmap (rate-limited: at most 30 moves a second) and the plot, and describes the cell under it
(``"[i, j] = value"``; on a heatmap preview, what its block holds, or the exact element when
zoomed in). It remembers the cell, to describe it again in another language or after a redraw,
and the pointer's place on the heatmap, to describe what is under it when a finer level
arrives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6 import QtCore

from .values_status import plane_cell_text

if TYPE_CHECKING:
    from .values_panel import ValuesPanel

__all__ = ["HoveredCell"]


class HoveredCell(QtCore.QObject):
    """The cell the hover line of one Values panel describes (:attr:`cell`, a cell of the
    displayed plane or table; None when nothing is hovered)."""

    def __init__(self, panel: ValuesPanel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.cell: tuple[int, ...] | None = None
        self.heat_pos: Any = None  # where the pointer last hovered the heatmap (scene)
        panel.plot.hovered.connect(self.on_plot)
        # hover, rate-limited: the slot runs at most 30 times a second
        self._proxy = pg.SignalProxy(panel.heat_widget.scene().sigMouseMoved,
                                     rateLimit=30, slot=self.on_heat)

    def cell_text(self, *cell: int) -> str:
        """See :meth:`.ValuesPanel.cell_text`."""
        panel = self.panel
        table, plane = panel.model.table, panel.plane()
        if panel.current_view() == "table" and table is not None:
            r, c = (*cell, 0, 0)[:2]
            return f"[{', '.join(map(str, table.original_index(r, c)))}] = {table.exact(r, c)}"
        return "" if plane is None else plane_cell_text(plane, cell, panel.choice.part)

    def show(self, cell: tuple[int, ...] | None) -> None:
        """Describe displayed ``cell`` on the hover line (None: nothing hovered)."""
        self.cell = cell if self.panel.plane() is not None else None
        text = self.cell_text(*self.cell) if self.cell is not None else ""
        self.panel.hover.setText(text or " ")

    def on_heat(self, event: tuple[Any, ...]) -> None:
        """The pointer moved over the heatmap's scene to ``event[0]``."""
        panel = self.panel
        plane = panel.plane()
        if plane is None or panel.current_view() != "heatmap" or plane.data.ndim != 2:
            return
        pos = event[0]
        vb = panel.heat_item.getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            self.heat_pos = None
            self.show(None)
            return
        self.heat_pos = pos
        p = vb.mapSceneToView(pos)
        hit = panel.heatmap.locate(p.x(), p.y())
        if hit is None:
            self.show(None)
            return
        cell, detail_cell = hit
        self.show(cell)
        # zoomed in: the exact element there; a preview: what its block holds
        more = panel.heatmap.hover_text(cell, detail_cell)
        if more is not None:  # an exact element, or a finer level's block: on its own
            panel.hover.setText(more if detail_cell is not None or panel.heatmap.in_mid()
                                else f"{panel.hover.text()}   · {more}")

    def describe_again(self) -> None:
        """Say again what is hovered (new words or look): on the heatmap what is under the
        pointer, block or exact element included; elsewhere the hovered cell."""
        if self.panel.current_view() == "heatmap" and self.heat_pos is not None:
            self.again()
        else:
            self.show(self.cell)

    def again(self) -> None:
        """Describe what is under the pointer on the heatmap now (a finer level arrived); the
        pointer has not moved."""
        if self.heat_pos is not None:
            self.on_heat((self.heat_pos,))

    @QtCore.Slot(object)
    def on_plot(self, cell: tuple[int, ...] | None) -> None:
        """The plot's hovered point changed to ``cell`` (None: none)."""
        panel = self.panel
        plane = panel.plane()
        if panel.current_view() == "plot" and plane is not None and plane is panel.plot.plane:
            self.show(cell)
