"""Memory panel (first version): which values share an allocation, as a relation list.

The drawn strip of bytes, footprints, hover linking and live writes come with issue 5; this
version already lists every related pair from :meth:`Workspace.relations` with its kind, the
bytes shared and why (from the workspace's origin records).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ..core.memory import sharing_reason
from .bridge import WorkspaceBridge


class MemoryPanel(QtWidgets.QWidget):
    """Relation list: a, b, kind, shared bytes, why."""

    def __init__(self, bridge: WorkspaceBridge, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MemoryPanel")
        self.bridge = bridge
        self.table = QtWidgets.QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(
            [self.tr("a"), self.tr("b"), self.tr("relation"), self.tr("shared bytes"),
             self.tr("why")])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        bridge.modified.connect(self.refresh)
        self.refresh()

    def _why(self, name: str | None) -> str:
        if name is None:
            return ""
        origin = self.bridge.workspace.origin(name)
        if origin is None or not origin.call:
            return ""
        return (sharing_reason(name, origin.call) or "").replace("`", "")

    @QtCore.Slot()
    def refresh(self) -> None:
        ws = self.bridge.workspace
        try:
            rels = ws.relations()
        except Exception as exc:  # never let one odd value break the panel
            self.note.setText(self.tr("Relations could not be computed: {0}").format(exc))
            rels = []
        else:
            self.note.setText(self.tr("No two values share memory.") if not rels else
                              self.tr("Values that share memory:"))
        self.table.setRowCount(len(rels))
        for r, rel in enumerate(rels):
            why = self._why(rel.b) or self._why(rel.a)
            for c, text in enumerate((rel.a, rel.b, rel.kind, f"{rel.shared_bytes:,}", why)):
                self.table.setItem(r, c, QtWidgets.QTableWidgetItem(str(text)))
        self.table.resizeColumnsToContents()
