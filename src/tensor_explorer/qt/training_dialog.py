"""The seed's training-step check as a dialog: pick features, labels and a model from the
workspace, run ``inspect_batch`` (every contract check, pass / fail / not run, with its message)
and ``run_one_step`` (logits shape, dtype and device, the loss, each parameter's gradient norm).

Both come from :mod:`tensor_explorer.core.training` and run in a background
:class:`~tensor_explorer.qt.workers.Task`. ``run_one_step`` moves the model, zeroes and fills its
gradients, so it runs on a copy of the model: the workspace is not changed by a check.
"""

from __future__ import annotations

import copy
import html
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtWidgets

from ..core.devices import devices
from ..core.training import BatchReport, Check, StepResult, inspect_batch, run_one_step
from . import theme
from .workers import Task


class TrainingDialog(QtWidgets.QDialog):
    """Features / labels / model choosers, two buttons, the checks and the step's figures."""

    #: emitted when a check or step has been shown (it shadows the slot QDialog.done(int),
    #: which nothing here calls)
    done = QtCore.Signal()  # type: ignore[assignment]

    def __init__(self, workspace: Any, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TrainingDialog")
        self.workspace = workspace
        self._task: Task | None = None
        self.report: BatchReport | None = None
        self.step: StepResult | None = None
        # the checks shown and what makes the summary: said again by retranslate
        self._checks: list[Check] = []
        self._summary: Callable[[], str] = lambda: ""
        self.features_combo = QtWidgets.QComboBox()
        self.labels_combo = QtWidgets.QComboBox()
        self.model_combo = QtWidgets.QComboBox()
        self.device_combo = QtWidgets.QComboBox()
        form = QtWidgets.QFormLayout()
        for combo in (self.features_combo, self.labels_combo, self.model_combo,
                      self.device_combo):
            label = QtWidgets.QLabel()  # its text: _set_texts
            label.setBuddy(combo)
            form.addRow(label, combo)
        self._form = form
        self.check_btn = QtWidgets.QPushButton()
        self.step_btn = QtWidgets.QPushButton()
        self.check_btn.clicked.connect(self.run_checks)
        self.step_btn.clicked.connect(self.run_step)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.check_btn)
        buttons.addWidget(self.step_btn)
        buttons.addStretch(1)
        self.checks = QtWidgets.QTreeWidget()
        self.checks.setColumnCount(3)
        self.checks.setRootIsDecorated(False)
        self.checks.setWordWrap(True)
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.norms = QtWidgets.QTableWidget(0, 2)
        self.norms.horizontalHeader().setStretchLastSection(True)
        self.norms.verticalHeader().setVisible(False)
        self.norms.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        note = QtWidgets.QLabel()
        note.setWordWrap(True)
        self.note = note
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.checks, 2)
        layout.addWidget(self.summary)
        layout.addWidget(self.norms, 1)
        layout.addWidget(note)
        self.resize(720, 560)
        self._set_texts()
        self.refill()

    def _set_texts(self) -> None:
        """The dialog's fixed texts in the current language (from ``__init__`` and
        :meth:`retranslate`)."""
        self.setWindowTitle(self.tr("Training-step check"))
        for combo, text in ((self.features_combo, self.tr("features:")),
                            (self.labels_combo, self.tr("labels:")),
                            (self.model_combo, self.tr("model:")),
                            (self.device_combo, self.tr("device (one step):"))):
            label = self._form.labelForField(combo)
            if isinstance(label, QtWidgets.QLabel):
                label.setText(text)
        self.check_btn.setText(self.tr("Check batch (inspect_batch)"))
        self.step_btn.setText(self.tr("Run one step (run_one_step)"))
        self.checks.setHeaderLabels([self.tr("check"), self.tr("result"), self.tr("message")])
        self.norms.setHorizontalHeaderLabels([self.tr("parameter"), self.tr("‖grad‖")])
        self.note.setText(self.tr(
            "One step runs on a copy of the model (moved to the device, zero_grad, forward, "
            "cross-entropy, backward); the workspace's model is not changed."))

    def retranslate(self) -> None:
        """Say everything in the language just installed, keeping the choices, the checks and
        the step's figures shown (nothing runs again)."""
        self._set_texts()
        self._fill_checks(self._checks)
        self.summary.setText(self._summary())

    # -- choices -----------------------------------------------------------------------------

    def refill(self) -> None:
        """List the workspace's arrays and tensors, and its modules; keep the choices."""
        ws = self.workspace
        arrays = [n for n, v in ws.items() if isinstance(v, torch.Tensor | np.ndarray)]
        models = [n for n, v in ws.items() if isinstance(v, torch.nn.Module)]

        def fill(combo: QtWidgets.QComboBox, names: list[str], prefer: tuple[str, ...]) -> None:
            current = combo.currentText()
            combo.clear()
            combo.addItems(names)
            for want in (current, *prefer):
                if want in names:
                    combo.setCurrentText(want)
                    return

        fill(self.features_combo, arrays, ("features", "x", "array", "X"))
        fill(self.labels_combo, arrays, ("labels", "targets", "y"))
        fill(self.model_combo, models, ("model",))
        if self.device_combo.count() == 0:
            for d in devices():
                self.device_combo.addItem(d)

    def choose(self, features: str, labels: str, model: str) -> None:
        """Pick the three values by name."""
        self.features_combo.setCurrentText(features)
        self.labels_combo.setCurrentText(labels)
        self.model_combo.setCurrentText(model)

    def _values(self) -> tuple[Any, Any, Any] | None:
        ws = self.workspace
        names = (self.features_combo.currentText(), self.labels_combo.currentText(),
                 self.model_combo.currentText())
        if not all(names):
            self._show_message(lambda: self.tr("Choose features, labels and a model (an "
                                               "nn.Module in the workspace)."))
            return None
        return ws.get(names[0]), ws.get(names[1]), ws.get(names[2])

    # -- running -----------------------------------------------------------------------------

    def run_checks(self) -> None:
        """``inspect_batch(model, features, labels)`` in the background."""
        values = self._values()
        if values is None:
            return
        features, labels, model = values
        self._start(lambda _p, _c: inspect_batch(model, features, labels), self._show_report)

    def run_step(self) -> None:
        """``run_one_step`` on a copy of the model, on the chosen device."""
        values = self._values()
        if values is None:
            return
        features, labels, model = values
        device = self.device_combo.currentText() or None

        def work(_p: Any, _c: Any) -> StepResult:
            return run_one_step(copy.deepcopy(model), features, labels, device=device)

        self._start(work, self._show_step)

    def _start(self, fn: Any, done: Any) -> None:
        if self._task is not None:
            return
        self.check_btn.setEnabled(False)
        self.step_btn.setEnabled(False)
        task = Task(fn, parent=self)
        self._task = task

        def finish() -> None:
            self._task = None
            self.check_btn.setEnabled(True)
            self.step_btn.setEnabled(True)

        def ok(result: Any) -> None:
            finish()
            done(result)
            self.done.emit()

        def bad(msg: str) -> None:
            finish()
            self._show_message(lambda: self.tr("The check could not run: {0}").format(msg))
            self.done.emit()

        task.finished.connect(ok)
        task.failed.connect(bad)
        task.cancelled.connect(finish)
        task.start()

    @property
    def busy(self) -> bool:
        return self._task is not None

    # -- results -----------------------------------------------------------------------------

    def _fill_checks(self, checks: list[Check]) -> None:
        t = theme.current()
        self._checks = list(checks)
        self.checks.clear()
        for c in checks:
            if c.passed is None:
                result, colour = self.tr("not run"), t.muted
            elif c.passed:
                result, colour = self.tr("pass"), t.ok
            else:
                result, colour = self.tr("FAIL"), t.error
            item = QtWidgets.QTreeWidgetItem([c.name, result, c.message])
            item.setForeground(1, QtWidgets.QApplication.palette().text()
                               if c.passed is None else _brush(colour))
            item.setToolTip(2, c.message)
            self.checks.addTopLevelItem(item)
        self.checks.resizeColumnToContents(0)
        self.checks.resizeColumnToContents(1)

    def _show_report(self, report: BatchReport) -> None:
        self.report = report
        self._fill_checks(report.checks)
        self.norms.setRowCount(0)
        if report.ok and report.logits is not None:
            lg = report.logits
            shape, dtype, device = tuple(lg.shape), lg.dtype, lg.device
            self._set_summary(lambda: self.tr("Every check passed. logits: {0} {1} on {2}")
                              .format(shape, dtype, device))
        else:
            failed = report.failed
            self._set_summary(lambda: html.escape(self.tr("{0} check(s) failed: {1}").format(
                len(failed), "; ".join(c.message for c in failed))))

    def _show_step(self, step: StepResult) -> None:
        self.step = step
        self._fill_checks(step.checks)
        self._set_summary(lambda: self._step_summary(step))
        self.norms.setRowCount(len(step.grad_norms))
        for r, (name, n) in enumerate(step.grad_norms.items()):
            self.norms.setItem(r, 0, QtWidgets.QTableWidgetItem(name))
            self.norms.setItem(r, 1, QtWidgets.QTableWidgetItem(
                "None" if n is None else f"{n:.6g}"))

    def _step_summary(self, step: StepResult) -> str:
        """The step's figures (rich text) in the current language."""
        parts = []
        if step.logits_shape is not None:
            parts.append(self.tr("logits: {0} {1} on {2}").format(
                step.logits_shape, step.logits_dtype, step.logits_device))
        if step.loss is not None:
            parts.append(self.tr("loss = {0:.6g}").format(step.loss))
        if step.grad_norm is not None:
            parts.append(self.tr("total ‖grad‖ = {0:.6g}").format(step.grad_norm))
        parts.extend(step.conversions)
        if not step.ok:
            parts.insert(0, self.tr("The step did not run: {0}").format(
                "; ".join(c.message for c in step.failed)))
        return "<br>".join(html.escape(p) for p in parts)

    def _set_summary(self, make: Callable[[], str]) -> None:
        """Show the summary ``make()`` makes (rich text); keep ``make`` for retranslate."""
        self._summary = make
        self.summary.setText(make())

    def _show_message(self, text: str | Callable[[], str]) -> None:
        """A plain-text message as the summary (or what makes it in the current language)."""
        make = text if callable(text) else (lambda: text)
        self._set_summary(lambda: html.escape(make()))

    def results(self) -> list[tuple[str, str, str]]:
        """(check, result, message) rows as shown (for tests)."""
        out = []
        for i in range(self.checks.topLevelItemCount()):
            it = self.checks.topLevelItem(i)
            assert it is not None  # i < topLevelItemCount()
            out.append((it.text(0), it.text(1), it.text(2)))
        return out

    def summary_text(self) -> str:
        return self.summary.text()

    def norm_rows(self) -> list[tuple[str, str]]:
        return [(_text(self.norms.item(r, 0)), _text(self.norms.item(r, 1)))
                for r in range(self.norms.rowCount())]


def _brush(colour: str) -> Any:
    from PySide6 import QtGui

    return QtGui.QBrush(QtGui.QColor(colour))


def _text(item: QtWidgets.QTableWidgetItem | None) -> str:
    """A table cell's text ("" for a cell without an item)."""
    return item.text() if item is not None else ""
