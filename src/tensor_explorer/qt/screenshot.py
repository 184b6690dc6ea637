"""Render a panel or the whole window to PNG or SVG, headless and reproducibly.

Used by ``tensor-explorer screenshot`` and by File ▸ Export. The same input gives the same
pixels: values come from the source (seeded programs), the theme, language, scale and size are
explicit, and nothing animates.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from . import theme


def parse_size(text: str | None) -> tuple[int, int] | None:
    """``"1000x700"`` -> ``(1000, 700)``; raises ValueError with a plain message."""
    if text is None:
        return None
    parts = text.lower().replace("×", "x").split("x")
    try:
        w, h = (int(p) for p in parts)
    except ValueError:
        raise ValueError(f"--size {text!r}: write WIDTHxHEIGHT, e.g. 1000x700") from None
    if not (16 <= w <= 8000 and 16 <= h <= 8000):
        raise ValueError(f"--size {text!r}: width and height must be between 16 and 8000")
    return w, h


#: a single-shot timer up to this long is a debounce a screenshot waits for (cell numbers are
#: placed 15 ms after the view moved, a zoom's exact read 120 ms after it stopped)
DEBOUNCE_MS = 250


def settle(rounds: int = 6) -> None:
    """Let queued signals, background tasks, layouts and short debounce timers finish before
    grabbing pixels (a timer still pending would make the picture depend on the machine's
    speed: the heatmap's cell numbers were there or not)."""
    app = QtWidgets.QApplication.instance()
    pool = QtCore.QThreadPool.globalInstance()
    for _ in range(rounds):
        pool.waitForDone(30_000)
        if app is not None:
            app.processEvents()
            app.sendPostedEvents()
            app.processEvents()
            wait = _pending_debounce_ms(app)
            if wait > 0:
                QtCore.QThread.msleep(wait)
                app.processEvents()


def _pending_debounce_ms(app: QtCore.QCoreApplication) -> int:
    """How long until the last active short single-shot timer of the windows fires (0: none)."""
    if not isinstance(app, QtWidgets.QApplication):
        return 0
    left = [t.remainingTime() for w in app.topLevelWidgets()
            for t in w.findChildren(QtCore.QTimer)
            if t.isActive() and t.isSingleShot() and t.interval() <= DEBOUNCE_MS]
    return max(left, default=0)


def render_image(widget: QtWidgets.QWidget, scale: float = 1.0) -> QtGui.QImage:
    """The widget's pixels at ``scale`` device pixels per logical pixel."""
    size = widget.size()
    img = QtGui.QImage(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)),
                       QtGui.QImage.Format.Format_ARGB32)
    img.setDevicePixelRatio(scale)
    img.fill(QtGui.QColor(theme.current().window))
    painter = QtGui.QPainter(img)
    try:
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
        widget.render(painter, QtCore.QPoint())
    finally:
        painter.end()
    return img


def render_svg(widget: QtWidgets.QWidget, path: str) -> None:
    from PySide6 import QtSvg

    gen = QtSvg.QSvgGenerator()
    gen.setFileName(path)
    size = widget.size()
    gen.setSize(size)
    gen.setViewBox(QtCore.QRect(QtCore.QPoint(0, 0), size))
    gen.setTitle("Tensor Explorer")
    painter = QtGui.QPainter(gen)
    try:
        painter.fillRect(QtCore.QRect(QtCore.QPoint(0, 0), size),
                         QtGui.QColor(theme.current().window))
        widget.render(painter, QtCore.QPoint())
    finally:
        painter.end()


def render_to_file(widget: QtWidgets.QWidget, path: str | os.PathLike[str],
                   size: tuple[int, int] | None = None, scale: float = 1.0) -> Path:
    """Write ``widget`` to ``path`` (``.png`` or ``.svg``) at ``size`` (logical pixels)."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"{out.name}: the output must end in .png or .svg")
    if not (0.25 <= scale <= 8):
        raise ValueError(f"--scale {scale}: must be between 0.25 and 8")
    if size is not None:
        widget.resize(*size)
    settle()
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".svg":
        render_svg(widget, str(out))
    else:
        img = render_image(widget, scale)
        # PySide6 stub: it types format as bytes, but the binding accepts only str ("PNG")
        if not img.save(str(out), "PNG"):  # type: ignore[call-overload]
            raise OSError(f"could not write {out}")
    return out
