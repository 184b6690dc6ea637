"""Pixel checks for screenshots: what must be drawn, not only "not blank".

A blank or broken panel still has a few colours (a background, a frame, a scroll bar); these
helpers ask for the theme's own colours where they belong: the background over a good part of
the image, text drawn in the theme's text colour, and a known colour (NaN, a node kind) where it
must be.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from tensor_explorer.qt.theme import Theme


def rgb(img: QtGui.QImage) -> np.ndarray:
    """The image as an ``(height, width, 3)`` array of 0..255 ints."""
    img = img.convertToFormat(QtGui.QImage.Format.Format_RGB888)
    data = np.frombuffer(img.constBits(), np.uint8, img.sizeInBytes())
    rows = data.reshape(img.height(), img.bytesPerLine())
    return rows[:, : img.width() * 3].reshape(img.height(), img.width(), 3).astype(np.int16)


def count_near(img: QtGui.QImage | np.ndarray, colour: str | QtGui.QColor, tolerance: int = 16,
               rect: QtCore.QRect | None = None) -> int:
    """Pixels (within ``rect``, default everywhere) whose channels each differ from ``colour``
    by at most ``tolerance`` (antialiased edges of text are blends, its stems are not)."""
    a = rgb(img) if isinstance(img, QtGui.QImage) else img
    if rect is not None:
        a = a[rect.top(): rect.bottom() + 1, rect.left(): rect.right() + 1]
    return len(where(a, colour, tolerance)[0])


def where(img: QtGui.QImage | np.ndarray, colour: str | QtGui.QColor,
          tolerance: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pixels of ``colour`` (as :func:`count_near` counts them)."""
    a = rgb(img) if isinstance(img, QtGui.QImage) else img
    c = QtGui.QColor(colour)
    want = np.array([c.red(), c.green(), c.blue()], dtype=np.int16)
    rows, cols = np.nonzero(np.abs(a - want).max(axis=-1) <= tolerance)
    return rows, cols


def distinct(img: QtGui.QImage | np.ndarray) -> int:
    """How many different colours the image has."""
    a = rgb(img) if isinstance(img, QtGui.QImage) else img
    packed = (a[..., 0].astype(np.int32) << 16) | (a[..., 1].astype(np.int32) << 8) | a[..., 2]
    return len(np.unique(packed))


def assert_drawn(img: QtGui.QImage, theme: Theme, what: str, *, min_text: int = 30,
                 min_colours: int = 100, background: float = 0.25) -> None:
    """``img`` shows a panel of ``theme``: its background colours (window or base) cover at
    least ``background`` of it, at least ``min_text`` pixels are in its text colour (words were
    drawn), and it has at least ``min_colours`` colours (antialiased text, icons, data)."""
    a = rgb(img)
    total = a.shape[0] * a.shape[1]
    bg = count_near(a, theme.window, 0) + count_near(a, theme.base, 0)
    assert bg >= background * total, f"{what}: the {theme.name} background covers {bg}/{total}"
    text = count_near(a, theme.text)
    assert text >= min_text, f"{what}: {text} pixels in the {theme.name} text colour"
    n = distinct(a)
    assert n >= min_colours, f"{what}: {n} colours"
