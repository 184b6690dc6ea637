"""Build form: make a tensor from a factory (tensor literal, zeros, ones, full, rand, randn,
arange, linspace, eye) with shape, dtype, device, requires_grad and seed.

The form only collects fields into a :class:`~tensor_explorer.core.build.BuildSpec`; the
statement it produces runs through the :class:`RunController` like typed code.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ..core.build import DTYPES, FACTORIES, BuildSpec
from ..core.devices import devices
from .bridge import WorkspaceBridge
from .run_controller import RunController

#: which text fields each factory uses
FIELDS = {
    "tensor": ("literal",),
    "zeros": ("shape",),
    "ones": ("shape",),
    "full": ("shape", "fill"),
    "rand": ("shape", "seed"),
    "randn": ("shape", "seed"),
    "arange": ("start", "end", "step"),
    "linspace": ("start", "end", "steps"),
    "eye": ("shape",),
}


class BuildPanel(QtWidgets.QWidget):
    """A form whose Create button runs ``name = torch.<factory>(...)``."""

    def __init__(self, bridge: WorkspaceBridge, runner: RunController,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("BuildPanel")
        self.bridge = bridge
        self.runner = runner
        self.name = QtWidgets.QLineEdit("t")
        self.factory = QtWidgets.QComboBox()
        self.factory.addItems(list(FACTORIES))
        self.factory.setCurrentText("randn")
        self.literal = QtWidgets.QLineEdit("[[1.0, 2.0], [3.0, 4.0]]")
        self.shape = QtWidgets.QLineEdit("2, 3")
        self.fill = QtWidgets.QLineEdit("0.5")
        self.start = QtWidgets.QLineEdit("0")
        self.end = QtWidgets.QLineEdit("10")
        self.step = QtWidgets.QLineEdit("1")
        self.steps = QtWidgets.QLineEdit("5")
        self.dtype = QtWidgets.QComboBox()
        self.dtype.addItem(self.tr("default"), None)
        for d in DTYPES:
            self.dtype.addItem(d, d)
        self.device = QtWidgets.QComboBox()
        self.device.addItem(self.tr("default"), None)
        for d in [*devices(), "meta"]:
            self.device.addItem(d, d)
        self.requires_grad = QtWidgets.QCheckBox(self.tr("requires_grad"))
        self.seed_on = QtWidgets.QCheckBox(self.tr("seed"))
        self.seed_on.setChecked(True)
        self.seed = QtWidgets.QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        seed_row = QtWidgets.QHBoxLayout()
        seed_row.addWidget(self.seed_on)
        seed_row.addWidget(self.seed, 1)
        self.seed_widget = QtWidgets.QWidget()
        self.seed_widget.setLayout(seed_row)
        seed_row.setContentsMargins(0, 0, 0, 0)
        self.preview = QtWidgets.QLabel()
        self.preview.setWordWrap(True)
        self.preview.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.create_button = QtWidgets.QPushButton(self.tr("Create"))
        self.create_button.clicked.connect(self.create)
        form = QtWidgets.QFormLayout()
        self._rows: dict[str, QtWidgets.QWidget] = {}
        form.addRow(self.tr("name"), self.name)
        form.addRow(self.tr("factory"), self.factory)
        for key, label, widget in (
            ("literal", self.tr("values"), self.literal),
            ("shape", self.tr("shape"), self.shape),
            ("fill", self.tr("fill value"), self.fill),
            ("start", self.tr("start"), self.start),
            ("end", self.tr("end"), self.end),
            ("step", self.tr("step"), self.step),
            ("steps", self.tr("steps"), self.steps),
            ("seed", self.tr("random seed"), self.seed_widget),
        ):
            form.addRow(label, widget)
            self._rows[key] = widget
        form.addRow(self.tr("dtype"), self.dtype)
        form.addRow(self.tr("device"), self.device)
        form.addRow("", self.requires_grad)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.create_button)
        layout.addStretch(1)
        self._form = form
        for w in (self.name, self.literal, self.shape, self.fill, self.start, self.end,
                  self.step, self.steps):
            w.textChanged.connect(self.update_preview)
        for c in (self.factory, self.dtype, self.device):
            c.currentIndexChanged.connect(self.update_preview)
        self.requires_grad.toggled.connect(self.update_preview)
        self.seed_on.toggled.connect(self.update_preview)
        self.seed.valueChanged.connect(self.update_preview)
        self.update_preview()

    def spec(self) -> BuildSpec:
        return BuildSpec(
            name=self.name.text().strip(),
            factory=self.factory.currentText(),
            shape=self.shape.text(),
            dtype=self.dtype.currentData(),
            device=self.device.currentData(),
            requires_grad=self.requires_grad.isChecked(),
            seed=self.seed.value() if self.seed_on.isChecked() else None,
            literal=self.literal.text(),
            fill=self.fill.text(),
            start=self.start.text(),
            end=self.end.text(),
            step=self.step.text(),
            steps=self.steps.text(),
        )

    def update_preview(self) -> None:
        used = FIELDS[self.factory.currentText()]
        for key, widget in self._rows.items():
            self._form.setRowVisible(widget, key in used)
        try:
            code = self.spec().code()
        except ValueError as exc:
            self.preview.setText(f"⚠ {exc}")
            self.create_button.setEnabled(False)
            return
        self.preview.setText(code)
        self.create_button.setEnabled(True)

    # shadows QWidget.create(window, ...) (native window creation), which nothing here calls
    def create(self) -> None:  # type: ignore[override]
        try:
            code = self.spec().code()
        except ValueError:
            return
        self.runner.run(code, select=self.name.text().strip())
