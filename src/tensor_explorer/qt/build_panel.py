"""Build form: make a tensor from a factory (tensor literal, zeros, ones, full, rand, randn,
arange, linspace, eye) with shape, dtype, device, requires_grad and seed.

The form only collects fields into a :class:`~tensor_explorer.core.build.BuildSpec`; the
statement it produces runs through the :class:`RunController` like typed code.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ..core.build import FACTORIES, BuildSpec, accepted_dtypes
from ..core.catalog import error_in
from ..core.devices import devices
from . import i18n
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
        self._make_fields()
        self._make_seed_and_device()
        self.preview = QtWidgets.QLabel()
        self.preview.setWordWrap(True)
        self.preview.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.create_button = QtWidgets.QPushButton()
        self.create_button.clicked.connect(self.create)
        form = self._make_form()
        self._set_texts()
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.create_button)
        layout.addStretch(1)
        self._form = form
        self._connect_preview()
        self.update_preview()

    def _make_fields(self) -> None:
        """The name, factory and text fields, and the dtype box (in that order)."""
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
        self.dtype.addItem("", None)  # "default", named by _set_texts; the rest: _offer_dtypes
        self._offer_dtypes()

    def _make_seed_and_device(self) -> None:
        """The device box, the requires_grad check box and the seed row."""
        self.device = QtWidgets.QComboBox()
        self.device.addItem("", None)  # "default", named by _set_texts
        for d in [*devices(), "meta"]:
            self.device.addItem(d, d)
        self.requires_grad = QtWidgets.QCheckBox()
        self.seed_on = QtWidgets.QCheckBox()
        self.seed_on.setChecked(True)
        self.seed = QtWidgets.QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        seed_row = QtWidgets.QHBoxLayout()
        seed_row.addWidget(self.seed_on)
        seed_row.addWidget(self.seed, 1)
        self.seed_widget = QtWidgets.QWidget()
        self.seed_widget.setLayout(seed_row)
        seed_row.setContentsMargins(0, 0, 0, 0)

    def _make_form(self) -> QtWidgets.QFormLayout:
        """The form's rows, each with a label whose text _set_texts sets."""
        form = QtWidgets.QFormLayout()
        self._rows: dict[str, QtWidgets.QWidget] = {}
        #: the form's row labels by field key (re-set by _set_texts)
        self._labels: dict[str, QtWidgets.QLabel] = {}

        def row(key: str, widget: QtWidgets.QWidget) -> None:
            label = QtWidgets.QLabel()
            label.setBuddy(widget)
            self._labels[key] = label
            form.addRow(label, widget)

        row("name", self.name)
        row("factory", self.factory)
        for key, widget in (
            ("literal", self.literal),
            ("shape", self.shape),
            ("fill", self.fill),
            ("start", self.start),
            ("end", self.end),
            ("step", self.step),
            ("steps", self.steps),
            ("seed", self.seed_widget),
        ):
            row(key, widget)
            self._rows[key] = widget
        row("dtype", self.dtype)
        row("device", self.device)
        form.addRow("", self.requires_grad)
        return form

    def _connect_preview(self) -> None:
        """Every field's change updates the preview."""
        for w in (self.name, self.literal, self.shape, self.fill, self.start, self.end,
                  self.step, self.steps):
            w.textChanged.connect(self.update_preview)
        for c in (self.factory, self.dtype, self.device):
            c.currentIndexChanged.connect(self.update_preview)
        self.requires_grad.toggled.connect(self.update_preview)
        self.seed_on.toggled.connect(self.update_preview)
        self.seed.valueChanged.connect(self.update_preview)

    def row_labels(self) -> dict[str, str]:
        """Each form row's label as shown, by field key (for tests)."""
        return {key: label.text() for key, label in self._labels.items()}

    def _set_texts(self) -> None:
        """Every fixed text of the form, in the current language (field values untouched)."""
        for key, text in (
            ("name", self.tr("name")),
            ("factory", self.tr("factory")),
            ("literal", self.tr("values")),
            ("shape", self.tr("shape")),
            ("fill", self.tr("fill value")),
            ("start", self.tr("start")),
            ("end", self.tr("end")),
            ("step", self.tr("step")),
            ("steps", self.tr("steps")),
            ("seed", self.tr("random seed")),
            ("dtype", self.tr("dtype")),
            ("device", self.tr("device")),
        ):
            self._labels[key].setText(text)
        # the first item of each combo box: renamed in place, so the choice stays
        self.dtype.setItemText(0, self.tr("default"))
        self.device.setItemText(0, self.tr("default"))
        self.requires_grad.setText(self.tr("requires_grad"))
        self.seed_on.setText(self.tr("seed"))
        self.create_button.setText(self.tr("Create"))

    def retranslate(self) -> None:
        """Show the form in the language just installed, keeping every field's value."""
        self._set_texts()
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

    def dtypes_offered(self) -> list[str]:
        """The dtypes the dtype box offers now (after "default")."""
        return [self.dtype.itemData(i) for i in range(1, self.dtype.count())]

    def _offer_dtypes(self) -> None:
        """Offer only the dtypes the chosen factory makes (torch.randn: floating and complex);
        a choice the new factory does not make goes back to "default"."""
        wanted = list(accepted_dtypes(self.factory.currentText()))
        if wanted == self.dtypes_offered():
            return
        chosen = self.dtype.currentData()
        blocked = self.dtype.blockSignals(True)  # one preview update, by the caller
        try:
            while self.dtype.count() > 1:
                self.dtype.removeItem(1)
            for d in wanted:
                self.dtype.addItem(d, d)
            self.dtype.setCurrentIndex(max(0, self.dtype.findData(chosen)) if chosen else 0)
        finally:
            self.dtype.blockSignals(blocked)

    def update_preview(self) -> None:
        self._offer_dtypes()
        used = FIELDS[self.factory.currentText()]
        for key, widget in self._rows.items():
            self._form.setRowVisible(widget, key in used)
        try:
            code = self.spec().code()
        except ValueError as exc:
            self.preview.setText(f"⚠ {error_in(exc, i18n.current())}")
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
