"""Code bar and output: type statements, run them (Ctrl+Enter), read output and errors.

Errors come from the runner as :class:`ProgramError`: the line, torch's own message, the usual
cause in plain words and the operands with their shape, dtype and device. The output shows each
statement the window ran on the user's behalf too (``>>> x_copy = x.clone()``), so the code
history is never a surprise.
"""

from __future__ import annotations

import html
import re
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..core.catalog import text_in
from ..core.devices import devices
from ..core.runner import ProgramError
from . import i18n, theme
from .bridge import WorkspaceBridge
from .code_editor import CodeEditor, Completions
from .run_controller import RunController
from .trust_bar import TrustBar

#: Python's own text for an object whose class has no repr of its own
_DEFAULT_REPR = re.compile(r"<([\w.]+) object at 0x[0-9a-fA-F]+>")


def internal_repr(text: str) -> bool:
    """``text`` is Python's default repr of an object of an internal class, one in a private
    module (``<torch._C.Generator object at 0x7f…>``, what ``torch.manual_seed(0)`` returns):
    an address and a private name tell a learner nothing, so the output shows no result. The
    user's own classes (``<__main__.Point object at 0x…>``) still show."""
    m = _DEFAULT_REPR.fullmatch(text.strip())
    return m is not None and any(
        part.startswith("_") and not part.startswith("__") for part in m.group(1).split("."))


class OutputView(QtWidgets.QTextEdit):
    """The code bar's output: what ran, its results and errors, in the theme's colours.

    It follows its end while it is at its end, also when its size changes (the presentation
    stage opened it scrolled to old output); scrolled up by a person, it stays put. A theme
    switch recolours what is already there."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        theme.use_mono_font(self)
        self._at_end = True
        scroll = self.verticalScrollBar()
        scroll.valueChanged.connect(self._scrolled)
        scroll.rangeChanged.connect(self._resized)
        #: the theme the coloured text was written in (recoloured on a switch)
        self._theme = theme.current()
        theme.state().changed.connect(self._recolor)

    def _scrolled(self, value: int) -> None:
        self._at_end = value >= self.verticalScrollBar().maximum() - 2

    def _resized(self, _low: int, high: int) -> None:
        if self._at_end:
            self.verticalScrollBar().setValue(high)

    #: the theme roles the output writes in colour
    _ROLES = ("muted", "accent", "ok", "error", "warning", "info")

    def _recolor(self) -> None:
        """What is already in the output takes the new theme's colours (dark blue stayed on
        dark grey after switching to the dark theme): each fragment coloured with a role of the
        old theme gets the same role's colour in the new one."""
        old, new = self._theme, theme.current()
        self._theme = new
        if old is new:
            return
        swap = {QtGui.QColor(getattr(old, r)).rgb(): QtGui.QColor(getattr(new, r))
                for r in self._ROLES}
        doc = self.document()
        cur = QtGui.QTextCursor(doc)
        cur.beginEditBlock()
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                brush = fmt.foreground()
                if brush.style() != QtCore.Qt.BrushStyle.NoBrush:
                    colour = swap.get(brush.color().rgb())
                    if colour is not None:
                        cur.setPosition(frag.position())
                        cur.setPosition(frag.position() + frag.length(),
                                        QtGui.QTextCursor.MoveMode.KeepAnchor)
                        fmt.setForeground(colour)
                        cur.setCharFormat(fmt)
                it += 1
            block = block.next()
        cur.endEditBlock()

    def append_html(self, html_text: str) -> None:
        """One entry at the end (HTML), and a line break after it."""
        cur = self.textCursor()
        cur.movePosition(QtGui.QTextCursor.MoveOperation.End)
        self.setTextCursor(cur)
        self.insertHtml(html_text)
        self.insertPlainText("\n")
        self.ensureCursorVisible()


class ConsolePanel(QtWidgets.QWidget):
    """The code bar (statements, device, Run/Stop) above the output of everything that ran."""

    def __init__(self, bridge: WorkspaceBridge, runner: RunController,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ConsolePanel")
        self.bridge = bridge
        self.runner = runner
        self.output = OutputView()
        theme.state().changed.connect(self._fit_heights)
        #: follows the workspace the console shows: completion offers its names
        self.editor = CodeEditor(completions=Completions(lambda: self.bridge.workspace))
        self.editor.submitted.connect(self.run_editor)
        #: what the editor sent to the runner, until it finished or failed
        self._sent: str | None = None
        self.device = QtWidgets.QComboBox()
        self.device.addItem("", None)  # "default device", named by _set_texts
        for dev in devices():
            self.device.addItem(dev, dev)
        self.device.addItem("meta", "meta")
        self.device.currentIndexChanged.connect(self._device_changed)
        self.run_button = QtWidgets.QPushButton()
        self.run_button.clicked.connect(self.run_editor)
        self.stop_button = QtWidgets.QPushButton()
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(runner.stop)
        self.clear_button = QtWidgets.QPushButton()
        self.clear_button.clicked.connect(self.output.clear)
        self.device_label = QtWidgets.QLabel()
        self._set_texts()
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(self.run_button)
        bar.addWidget(self.stop_button)
        bar.addWidget(self.device_label)
        bar.addWidget(self.device)
        bar.addStretch(1)
        bar.addWidget(self.clear_button)
        self._fit_heights()
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.output)
        editor_box = QtWidgets.QWidget()
        box = QtWidgets.QVBoxLayout(editor_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(bar)
        box.addWidget(self.editor, 1)
        split.addWidget(editor_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        #: a program from a file nobody trusted yet ran restricted: says so, offers to trust it
        self.trust_bar = TrustBar()
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.trust_bar)
        layout.addWidget(split, 1)
        runner.started.connect(self._started)
        runner.finished.connect(self._finished)
        runner.failed.connect(self._failed)
        runner.busy_changed.connect(self._busy)
        bridge.output.connect(self._print)

    def _set_texts(self) -> None:
        """Every fixed text of the code bar, in the current language."""
        self.editor.setPlaceholderText(self.tr(
            "Type statements, e.g.  y = x @ w + b   — Ctrl+Enter runs them, ↑/↓ bring back "
            "earlier ones"))
        self.device.setToolTip(self.tr("Device that factories (torch.zeros, torch.randn...) "
                                       "create tensors on"))
        self.device.setItemText(0, self.tr("default device"))  # keeps the device chosen
        self.run_button.setText(self.tr("Run"))
        self.run_button.setToolTip(self.tr("Run the statements (Ctrl+Enter)"))
        self.stop_button.setText(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Stop a running program; the workspace keeps what "
                                            "it had"))
        self.clear_button.setText(self.tr("Clear output"))
        self.device_label.setText(self.tr("device:"))

    def retranslate(self) -> None:
        """Show the code bar in the language just installed. The output keeps every line as it
        was printed; the code typed, its history and the device chosen stay."""
        self._set_texts()
        self.trust_bar.retranslate()

    # -- running -------------------------------------------------------------------------------

    def run_editor(self) -> None:
        """Run the editor's statements. They stay in the editor until they ran: cleared then,
        kept with the failing line marked when they failed."""
        self.editor.close_completion()  # (Ctrl+Enter may reach the window's Run first)
        source = self.editor.toPlainText()
        if not source.strip():
            return
        self.editor.remember(source)
        if self.runner.run(source):
            self._sent = source

    def _device_changed(self) -> None:
        self.runner.device = self.device.currentData()

    def _busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)

    # -- output --------------------------------------------------------------------------------

    def _fit_heights(self) -> None:
        """The editor keeps room for two lines at any text size, and the output may give up
        all but two: with the trust bar shown in a short dock, the output yields, not the
        editor (it was squeezed out of view at 1278×774)."""
        for widget, lines in ((self.editor, 2), (self.output, 2)):
            frame = 2 * widget.frameWidth() + 8
            widget.setMinimumHeight(lines * widget.fontMetrics().lineSpacing() + frame)

    def _append(self, html_text: str) -> None:
        self.output.append_html(html_text)

    def _started(self, source: str) -> None:
        t = theme.current()
        lines = source.rstrip("\n").splitlines() or [""]
        text = "<br>".join(
            f"<span style='color:{t.muted}'>{'&gt;&gt;&gt;' if i == 0 else '...'}</span> "
            f"<span style='color:{t.accent}'>{html.escape(line).replace(' ', '&nbsp;')}</span>"
            for i, line in enumerate(lines)
        )
        self._append(text)

    def _print(self, text: str) -> None:
        text = text_in(text, i18n.current())  # a warning note (a Message) in the UI's language
        # spaces kept (a printed tensor's columns line up) and long lines wrapped at them, not
        # inside words: a warning note is one long line of torch's words and the plain words
        self._append("<span style='white-space:pre-wrap'>"
                     + html.escape(text.rstrip("\n")).replace("\n", "<br>") + "</span>")

    def _finished(self, names: list[str]) -> None:
        sent, self._sent = self._sent, None
        if sent is not None and self.editor.toPlainText() == sent:
            self.editor.clear()  # ran: ready for the next statement (unless edited meanwhile)
        ws = self.bridge.workspace
        t = theme.current()
        if ws.last_result is not None and not internal_repr(ws.last_result):
            self._append(f"<span>{html.escape(ws.last_result)}</span>")
        if names:
            self._append(f"<span style='color:{t.ok}'>✓ " + html.escape(
                self.tr("bound or changed: {0}").format(", ".join(names))) + "</span>")

    def _failed(self, err: Any) -> None:
        t = theme.current()
        if not (isinstance(err, ProgramError) and err.kind == "busy"):  # a refused second run
            sent, self._sent = self._sent, None
            if (sent is not None and isinstance(err, ProgramError) and not err.cancelled
                    and self.editor.toPlainText() == sent):
                self.editor.mark_error(err.line)
        if isinstance(err, ProgramError):
            color = t.warning if err.cancelled else t.error
            body = html.escape(err.text(i18n.current())).replace("\n", "<br>")
        else:
            color, body = t.error, html.escape(str(err))
        self._append(f"<span style='color:{color}'>{body}</span>")
        self.last_error = err

    def show_note(self, text: str, *, error: bool = False) -> None:
        """A line of the window's own under the output (a note on a file just opened, or an
        error), in the theme's warning or error colour."""
        t = theme.current()
        self._append(f"<span style='color:{t.error if error else t.warning}'>"
                     f"{html.escape(text)}</span>")

    def output_text(self) -> str:
        return self.output.toPlainText()
