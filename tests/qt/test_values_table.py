"""The Values panel's table over the whole plane: true indices, Go to index (Ctrl+G), one format
per column, copying a selection (text, CSV, NumPy literal, size bound) and editing a cell."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
import torch
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core import value_table
from tensor_explorer.qt.values_panel import ValuesPanel

# showing a top-level widget on the offscreen platform warns about propagateSizeHints
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

N = 4096


@pytest.fixture
def panel(values_panel: ValuesPanel) -> ValuesPanel:
    return values_panel  # (tests/qt/conftest.py)


@pytest.fixture(scope="module")
def big() -> np.ndarray:
    return np.random.default_rng(0).standard_normal((N, N)).astype(np.float32)


def _show_table(qtbot: QtBot, panel: ValuesPanel, name: str, value: object) -> None:
    with qtbot.waitSignal(panel.plane_shown, timeout=20_000):
        panel.set_value(name, value)
    panel.set_mode("table")
    assert panel.current_view() == "table"


def _select(panel: ValuesPanel, r0: int, c0: int, r1: int, c1: int) -> None:
    m = panel.model
    panel.table.selectionModel().select(
        QtCore.QItemSelection(m.index(r0, c0), m.index(r1, c1)),
        QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect)


def test_the_table_lists_every_cell_at_its_true_index(panel: ValuesPanel, qtbot: QtBot,
                                                      big: np.ndarray) -> None:
    _show_table(qtbot, panel, "a", big)
    plane = panel.plane()
    assert plane is not None and plane.downsampled  # the heatmap's preview skips rows...
    m = panel.model
    assert (m.rowCount(), m.columnCount()) == (N, N)  # ...the table does not
    assert m.headerData(1, QtCore.Qt.Orientation.Vertical) == "1"
    assert panel.cell_text(1, 1) == f"[1, 1] = {float(big[1, 1])!r}"
    assert m.data(m.index(1, 1), QtCore.Qt.ItemDataRole.EditRole) == repr(float(big[1, 1]))
    fmt = m.column_format(1)
    assert m.data(m.index(1, 1)) == fmt.align(fmt.format(big[1, 1]))
    assert float(m.data(m.index(N - 1, N - 1), QtCore.Qt.ItemDataRole.EditRole)) == big[-1, -1]
    table = m.table
    assert table is not None and table.blocks_read == 2  # only the blocks asked for were read
    # one style per column: never "0.41" above "-9.21725e-01"
    for c in (0, 1, 2, N - 1):
        texts = [m.data(m.index(r, c)) for r in range(0, N, 97)]
        assert len({"e" in t for t in texts}) == 1
        assert len({len(t.lstrip("-").split(".")[-1]) for t in texts}) == 1  # same decimals
    assert "preview" not in panel.last_message()


def test_ctrl_g_goes_to_an_index_and_selects_it(panel: ValuesPanel, qtbot: QtBot,
                                                big: np.ndarray) -> None:
    _show_table(qtbot, panel, "a", big)
    panel.show()
    panel.activateWindow()
    qtbot.waitUntil(panel.isActiveWindow, timeout=5000)  # shortcuts need an active window
    panel.table.setFocus()
    qtbot.keyClick(panel.table, QtCore.Qt.Key.Key_G, QtCore.Qt.KeyboardModifier.ControlModifier)
    bar = panel.table_tools.go_bar
    assert bar.isVisible() and bar.edit.hasFocus()
    bar.edit.clear()
    qtbot.keyClicks(bar.edit, "4000")
    qtbot.keyClick(bar.edit, QtCore.Qt.Key.Key_Return)
    assert bar.isVisible() and "Give 2 indices" in bar.error.text()
    bar.edit.setText("4000, x")
    qtbot.keyClick(bar.edit, QtCore.Qt.Key.Key_Return)
    assert "not a whole number" in bar.error.text()
    bar.edit.setText("[4000, 17]")
    qtbot.keyClick(bar.edit, QtCore.Qt.Key.Key_Return)
    assert not bar.isVisible()
    current = panel.table.currentIndex()
    assert (current.row(), current.column()) == (4000, 17)
    assert [(i.row(), i.column()) for i in panel.table.selectionModel().selectedIndexes()] == [
        (4000, 17)]
    QtCore.QCoreApplication.processEvents()
    assert panel.table.viewport().rect().intersects(panel.table.visualRect(current))
    assert panel.current_cell_index() == (4000, 17)
    assert panel.table_tools.go("-1, -1")  # negative indices count from the end, as in Python
    assert panel.current_cell_index() == (N - 1, N - 1)
    assert panel.table_tools.go_action in panel.table_tools.actions()  # in the context menu


def test_go_to_in_nd_moves_the_sliders_and_keeps_the_selection(panel: ValuesPanel,
                                                               qtbot: QtBot) -> None:
    t = torch.arange(3 * 40 * 50, dtype=torch.float64).reshape(3, 40, 50)
    panel.set_value("t", t)  # a heatmap: Go to index switches to the table
    panel.go_to((2, 30, -1))
    assert panel.current_view() == "table" and panel.index() == {0: 2}
    assert panel.sliders[0].value() == 2
    assert panel.current_cell_index() == (2, 30, 49)
    assert panel.cell_text(30, 49) == f"[2, 30, 49] = {float(t[2, 30, 49])!r}"
    assert float(panel.model.data(panel.model.index(30, 49))) == t[2, 30, 49].item()
    with pytest.raises(value_table.IndexInputError):
        panel.go_to((3, 0, 0))
    # a transposed plane: the table's cell (row, column) is (axis 2, axis 1)
    panel.set_axes(2, 1)
    panel.go_to((1, 5, 7))
    assert panel.current_cell_index() == (1, 5, 7)
    cur = panel.table.currentIndex()
    assert (cur.row(), cur.column()) == (7, 5)


def test_copying_a_selection_is_exact(panel: ValuesPanel, qtbot: QtBot,
                                      big: np.ndarray) -> None:
    _show_table(qtbot, panel, "a", big)
    clipboard = QtWidgets.QApplication.clipboard()
    want = big[1:3, 1:4]
    _select(panel, 1, 1, 2, 3)
    assert panel.copy_selection("text")
    rows = [line.split("\t") for line in clipboard.text().splitlines()]
    np.testing.assert_array_equal(np.array(rows, dtype=np.float64).astype(np.float32), want)
    assert rows[0][0] == repr(float(big[1, 1]))
    panel.table_tools.copy_actions["csv"].trigger()  # from the context menu
    rows = list(csv.reader(io.StringIO(clipboard.text())))
    np.testing.assert_array_equal(np.array(rows, dtype=np.float64).astype(np.float32), want)
    assert panel.copy_selection("numpy")
    back = eval(clipboard.text(), {"np": np})
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back, want)
    # far down the table: read from the value, not from the preview
    _select(panel, 4000, 17, 4001, 18)
    cells, dtype, ndim = panel.table_selection()  # type: ignore[misc]
    np.testing.assert_array_equal(cells, big[4000:4002, 17:19])
    assert (dtype, ndim) == ("float32", 2)


def test_copying_too_many_cells_is_refused_quickly(panel: ValuesPanel, qtbot: QtBot) -> None:
    huge = torch.zeros(1, dtype=torch.float32).expand(10_000, 10_000)  # 10^8 cells, no memory
    _show_table(qtbot, panel, "huge", huge)
    QtWidgets.QApplication.clipboard().setText("before")
    panel.table.selectAll()
    assert not panel.copy_selection("text")
    assert "Not copied" in panel.last_message()
    assert QtWidgets.QApplication.clipboard().text() == "before"
    with pytest.raises(value_table.SelectionTooLarge):
        panel.table_selection()


def test_editing_a_cell_writes_its_true_index(panel: ValuesPanel, qtbot: QtBot,
                                              big: np.ndarray) -> None:
    a = big.copy()
    _show_table(qtbot, panel, "a", a)
    m = panel.model
    fmt = m.column_format(1)
    assert m.data(m.index(1, 1)) == fmt.align(fmt.format(a[1, 1]))  # read once, cached
    with qtbot.waitSignal(panel.edited) as blocker:
        assert m.setData(m.index(1, 1), "2.5")
    assert blocker.args == ["a", (1, 1), 2.5]
    assert a[1, 1] == 2.5 and a[9, 9] == big[9, 9]
    assert float(m.data(m.index(1, 1), QtCore.Qt.ItemDataRole.EditRole)) == 2.5  # re-read
    # n-d: the cell of the plane at the sliders' index
    t = torch.zeros(3, 4, 5)
    panel.set_value("t", t)
    panel.set_index(0, 2)
    assert panel.model.setData(panel.model.index(3, 4), "7")
    assert t[2, 3, 4].item() == 7.0 and t.sum().item() == 7.0
