"""Start the application window (the first, simplest window: values and their facts)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtWidgets

from ..core.facts import describe
from ..core.loading import LoadError, load_path


def get_app() -> QtWidgets.QApplication:
    """Get or create the QApplication (one entry for scripts, tests and notebooks)."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        app = QtWidgets.QApplication(sys.argv[:1])
        app.setApplicationName("Tensor Explorer")
        app.setOrganizationName("Tensor Explorer")
    return app  # type: ignore[return-value]


def sample_values() -> dict[str, Any]:
    """The values shown when no file is given: the course's first example."""
    array = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    return {
        "array": array,
        "shared": torch.from_numpy(array),
        "copied": torch.tensor(array),
        "weights": torch.randn(3, 2, requires_grad=True),
    }


class FactsWindow(QtWidgets.QMainWindow):
    """Values by name on the left, every fact of the selected one on the right."""

    def __init__(self, values: dict[str, Any], errors: Sequence[str] = ()) -> None:
        super().__init__()
        self.setWindowTitle("Tensor Explorer")
        self.values = values
        self.names = QtWidgets.QListWidget()
        self.names.addItems(list(values))
        self.table = QtWidgets.QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["fact", "value"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        split = QtWidgets.QSplitter()
        split.addWidget(self.names)
        split.addWidget(self.table)
        split.setSizes([200, 600])
        self.setCentralWidget(split)
        self.names.currentTextChanged.connect(self.show_facts)
        if errors:
            self.statusBar().showMessage("; ".join(errors))
        if values:
            self.names.setCurrentRow(0)
        self.resize(900, 560)

    @QtCore.Slot(str)
    def show_facts(self, name: str) -> None:
        value = self.values.get(name)
        if value is None:
            return
        facts = describe(value).to_dict()
        self.table.setRowCount(len(facts))
        for row, (key, v) in enumerate(facts.items()):
            self.table.setItem(row, 0, QtWidgets.QTableWidgetItem(key))
            self.table.setItem(row, 1, QtWidgets.QTableWidgetItem(str(v)))


def run_app(paths: Sequence[str]) -> int:
    """Open the window on ``paths`` (``.npy``/``.npz``), or on the sample when none is given."""
    app = get_app()
    values: dict[str, Any] = {}
    errors: list[str] = []
    for p in paths:
        try:
            values.update(load_path(p))
        except LoadError as exc:
            errors.append(str(exc))
    if not paths:
        values = sample_values()
    win = FactsWindow(values, errors)
    win.show()
    return int(app.exec())
