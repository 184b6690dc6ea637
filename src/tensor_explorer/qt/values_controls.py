"""The Values panel's controls: the view chooser (chart or table), the complex-part chooser,
the choosers of the displayed axes, and a slider per axis that is not displayed (with the
index it holds, :attr:`ValuesControls.index`).

Owned by :class:`.ValuesPanel`: the choosers call its ``set_mode``, ``set_part`` and
``set_axes``; a moved slider emits :attr:`ValuesControls.index_changed`. Texts are translated
in the panel's context (``"ValuesPanel"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtWidgets

from ..core import preview, values_view
from .flow_layout import FlowLayout, together

if TYPE_CHECKING:
    from .values_panel import ValuesPanel

translate = QtCore.QCoreApplication.translate


def set_item_texts(box: QtWidgets.QComboBox, texts: dict[Any, str]) -> None:
    """Re-label the items of ``box`` by their data, keeping the current item (no signals)."""
    with QtCore.QSignalBlocker(box):
        for i in range(box.count()):
            text = texts.get(box.itemData(i))
            if text is not None:
                box.setItemText(i, text)


class ValuesControls(QtCore.QObject):
    """The choosers (:attr:`mode_box`, :attr:`part_box`, :attr:`row_axis_box`,
    :attr:`col_axis_box`, laid out in :attr:`flow`) and the sliders (:attr:`sliders` in
    :attr:`slider_box`) of ``panel``."""

    index_changed = QtCore.Signal()  # a slider moved: :attr:`index` changed

    def __init__(self, panel: ValuesPanel) -> None:
        super().__init__(panel)
        self._panel = panel
        #: the index at which every axis that is not displayed is held
        self.index: dict[int, int] = {}
        self.sliders: dict[int, QtWidgets.QSlider] = {}
        self.slider_labels: dict[int, QtWidgets.QLabel] = {}
        self.slider_names: dict[int, QtWidgets.QLabel] = {}
        self.mode_box = QtWidgets.QComboBox()
        for mode in values_view.MODES:
            self.mode_box.addItem("", mode)  # texts: set_texts
        self.mode_box.currentIndexChanged.connect(
            lambda i: panel.set_mode(self.mode_box.itemData(i)))
        self.part_label = QtWidgets.QLabel()
        self.part_box = QtWidgets.QComboBox()
        for part in preview.PARTS:
            self.part_box.addItem("", part)
        self.part_box.currentIndexChanged.connect(
            lambda i: panel.set_part(self.part_box.itemData(i)))
        self.rows_label = QtWidgets.QLabel()
        self.row_axis_box = QtWidgets.QComboBox()
        self.cols_label = QtWidgets.QLabel()
        self.col_axis_box = QtWidgets.QComboBox()
        for box in (self.row_axis_box, self.col_axis_box):
            box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.row_axis_box.activated.connect(lambda _i: self._on_axis_box(0))
        self.col_axis_box.activated.connect(lambda _i: self._on_axis_box(1))
        # each label with its field; they wrap onto more lines in a narrow dock or at a
        # projector's text size
        self.flow = FlowLayout(spacing=8)
        for pair in ((self.part_label, self.part_box), (self.rows_label, self.row_axis_box),
                     (self.cols_label, self.col_axis_box)):
            self.flow.addWidget(together(*pair))
        self.slider_box = QtWidgets.QWidget()
        self.slider_grid = QtWidgets.QGridLayout(self.slider_box)
        self.slider_grid.setContentsMargins(0, 0, 0, 0)

    def set_texts(self) -> None:
        """The static texts (labels, combo-box items, tool tips) in the current language."""
        set_item_texts(self.mode_box, {"auto": translate("ValuesPanel", "Chart"),
                                       "table": translate("ValuesPanel", "Table")})
        self.mode_box.setToolTip(translate(
            "ValuesPanel", "Draw the values (number, plot or heatmap) or list them in a table"))
        self.part_label.setText(translate("ValuesPanel", "show"))
        set_item_texts(self.part_box, {
            "magnitude": translate("ValuesPanel", "magnitude |z|"),
            "phase": translate("ValuesPanel", "phase (radians)"),
            "real": translate("ValuesPanel", "real part"),
            "imag": translate("ValuesPanel", "imaginary part")})
        self.part_box.setToolTip(translate("ValuesPanel",
                                           "Which part of the complex numbers is drawn"))
        self.rows_label.setText(translate("ValuesPanel", "rows"))
        self.cols_label.setText(translate("ValuesPanel", "columns"))
        self.row_axis_box.setToolTip(translate("ValuesPanel", "The axis drawn downwards"))
        self.col_axis_box.setToolTip(translate("ValuesPanel", "The axis drawn across"))

    def retranslate(self, value: Any) -> None:
        """The texts that name the axes of ``value`` (the value shown), in place."""
        nd = getattr(value, "ndim", 0) if value is not None else 0
        if nd >= 2 and self.row_axis_box.count() == nd:  # the axis choosers of this value
            texts = {a: self._axis_size_text(a, int(value.shape[a])) for a in range(nd)}
            for box in (self.row_axis_box, self.col_axis_box):
                set_item_texts(box, texts)
        for a, label in self.slider_names.items():
            label.setText(translate("ValuesPanel", "axis {axis}").format(axis=a))
            self.sliders[a].setToolTip(self._slider_tip(a))
            self.update_slider_label(a)

    @staticmethod
    def _axis_size_text(axis: int, size: int) -> str:
        return translate("ValuesPanel", "axis {axis} ({size})").format(axis=axis, size=size)

    @staticmethod
    def _slider_tip(axis: int) -> str:
        return translate("ValuesPanel", "Which index of axis {axis} is shown").format(axis=axis)

    def set_value(self, value: Any, axes: tuple[int, ...]) -> None:
        """The controls for ``value`` (None: nothing shown) displayed along ``axes``."""
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
                        box.addItem(self._axis_size_text(a, int(value.shape[a])), a)
            self.sync_axis_boxes(axes)
        self.rebuild_sliders(value, axes)

    def sync_axis_boxes(self, axes: tuple[int, ...]) -> None:
        if len(axes) == 2:
            for box, a in ((self.row_axis_box, axes[0]), (self.col_axis_box, axes[1])):
                with QtCore.QSignalBlocker(box):
                    box.setCurrentIndex(a)

    def rebuild_sliders(self, value: Any, axes: tuple[int, ...]) -> None:
        """A slider for every axis of ``value`` not in ``axes`` (kept at its index)."""
        while self.slider_grid.count():
            item = self.slider_grid.takeAt(0)
            assert item is not None  # count() > 0
            w = item.widget()
            if w is not None:
                w.deleteLater()
        self.sliders, self.slider_labels, self.slider_names = {}, {}, {}
        v = value
        extra = [] if v is None or v.ndim < 3 else [a for a in range(v.ndim) if a not in axes]
        for row, a in enumerate(extra):
            n = int(v.shape[a])
            i = min(self.index.get(a, 0), n - 1)
            self.index[a] = i
            name = QtWidgets.QLabel(translate("ValuesPanel", "axis {axis}").format(axis=a))
            slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
            slider.setRange(0, n - 1)
            slider.setValue(i)
            slider.setPageStep(max(1, n // 10))
            slider.setToolTip(self._slider_tip(a))
            label = QtWidgets.QLabel()
            label.setMinimumWidth(90)
            slider.valueChanged.connect(lambda i, a=a: self._on_slider(a, i))
            self.slider_grid.addWidget(name, row, 0)
            self.slider_grid.addWidget(slider, row, 1)
            self.slider_grid.addWidget(label, row, 2)
            self.sliders[a] = slider
            self.slider_labels[a] = label
            self.slider_names[a] = name
            self.update_slider_label(a)
        self.index = {a: i for a, i in self.index.items() if a in self.sliders}
        self.slider_box.setVisible(bool(extra))

    def update_slider_label(self, axis: int) -> None:
        n = int(self._panel.value().shape[axis])
        self.slider_labels[axis].setText(translate(
            "ValuesPanel", "index {i} of 0–{last}").format(i=self.index.get(axis, 0), last=n - 1))

    def move_to(self, index: tuple[int, ...]) -> bool:
        """Move every slider to its axis's entry of ``index`` (an index into the whole value),
        quietly; True if any moved."""
        moved = False
        for a, slider in self.sliders.items():
            if self.index.get(a, 0) != index[a]:
                with QtCore.QSignalBlocker(slider):
                    slider.setValue(index[a])
                self.index[a] = index[a]
                self.update_slider_label(a)
                moved = True
        return moved

    def _on_axis_box(self, which: int) -> None:
        rows = self.row_axis_box.currentData()
        cols = self.col_axis_box.currentData()
        if rows == cols:  # picked the other one's axis: swap them
            old = self._panel.axes()
            rows, cols = (rows, old[0]) if which == 0 else (old[1], cols)
        self._panel.set_axes(int(rows), int(cols))

    def _on_slider(self, axis: int, i: int) -> None:
        self.index[axis] = int(i)
        self.update_slider_label(axis)
        self.index_changed.emit()

