"""Autograd graph panel (first version): the nodes behind the selected tensor's grad_fn.

The drawn layered DAG, backward controls, per-edge gradients and accumulation history come with
issue 6; this version lists the traced nodes (root, operations, leaves by name) so the panel
name exists in the window and the ``screenshot`` command.
"""

from __future__ import annotations

import torch
from PySide6 import QtCore, QtWidgets

from ..core.autograd import trace
from .bridge import WorkspaceBridge


def graph_target(ws, selected: str | None) -> str | None:  # type: ignore[no-untyped-def]
    """The value the graph shows: the selection if it has a grad_fn, else the last one bound
    that has one."""
    def has_graph(name: str) -> bool:
        v = ws.get(name)
        return isinstance(v, torch.Tensor) and v.grad_fn is not None

    if selected is not None and selected in ws and has_graph(selected):
        return selected
    for name in reversed(ws.names()):
        if has_graph(name):
            return name
    return None


class GraphPanel(QtWidgets.QWidget):
    """Lists the autograd nodes of the selected (or last) tensor that has a grad_fn."""

    def __init__(self, bridge: WorkspaceBridge, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("GraphPanel")
        self.bridge = bridge
        self.title = QtWidgets.QLabel()
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderLabels([self.tr("node"), self.tr("kind"), self.tr("value")])
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.tree, 1)
        bridge.modified.connect(self.refresh)
        bridge.selected.connect(lambda _n: self.refresh())
        self.refresh()

    @QtCore.Slot()
    def refresh(self) -> None:
        ws = self.bridge.workspace
        self.tree.clear()
        name = graph_target(ws, ws.selected)
        if name is None:
            self.title.setText(self.tr("No value has a grad_fn yet: compute something from a "
                                       "tensor with requires_grad=True."))
            return
        names = {n: v for n, v in ws.items() if isinstance(v, torch.Tensor)}
        graph = trace(ws[name], names=names)
        self.title.setText(self.tr("Autograd graph of {0}: {1} nodes").format(
            name, len(graph.nodes)))
        for node in graph.nodes:
            self.tree.addTopLevelItem(QtWidgets.QTreeWidgetItem(
                [node.label, node.kind, node.tensor or ""]))
