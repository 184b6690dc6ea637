"""The fonts the application draws with: its own, bundled in ``resources/fonts``.

Every widget, drawing and screenshot uses these families, whatever the system has installed,
so a figure is the same on every machine and Chinese never draws as boxes (a fresh Linux
install often has no CJK font). Each language draws with a chain of bundled families:

    English   Tensor Explorer Sans, then Sans SC (Chinese in a value name), then Symbols
    Chinese   Tensor Explorer Sans SC (with its own Latin), then Sans, then Symbols
    code      Tensor Explorer Mono, then Sans SC, then Symbols

A character none of them has (a user's rare character) falls back to the system's fonts, as Qt
always does. Text is hinted lightly (vertical only) by our choice, not by the system's
fontconfig settings, so rendering does not depend on them either.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from functools import cache

from PySide6 import QtCore, QtGui, QtWidgets

from ..core.texts import shipped_characters
from ..paths import resources_dir

SANS = "Tensor Explorer Sans"
SANS_SC = "Tensor Explorer Sans SC"
SYMBOLS = "Tensor Explorer Symbols"
MONO = "Tensor Explorer Mono"
BUNDLED = (SANS, SANS_SC, SYMBOLS, MONO)
HINTING = QtGui.QFont.HintingPreference.PreferVerticalHinting

_registered: dict[str, list[str]] | None = None
_figures = False  # drawing figures (screenshot): grey-scale antialiasing, whatever the screen

#: the rendering a figure is drawn with, whatever the system's fontconfig says (appended to it)
FIGURE_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">{base}</include>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
    <edit name="lcdfilter" mode="assign"><const>lcdnone</const></edit>
    <edit name="hinting" mode="assign"><bool>true</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
    <edit name="autohint" mode="assign"><bool>false</bool></edit>
    <edit name="embeddedbitmap" mode="assign"><bool>false</bool></edit>
  </match>
</fontconfig>
"""
#: environment variables that change the pixels Qt draws (scaling, DPI)
SCALING_VARIABLES = ("QT_FONT_DPI", "QT_SCALE_FACTOR", "QT_SCREEN_SCALE_FACTORS",
                     "QT_ENABLE_HIGHDPI_SCALING", "QT_AUTO_SCREEN_SCALE_FACTOR",
                     "QT_SCALE_FACTOR_ROUNDING_POLICY", "QT_USE_PHYSICAL_DPI")


def fonts_dir() -> str:
    return str(resources_dir() / "fonts")


def register() -> dict[str, list[str]]:
    """Register the bundled font files with Qt (once per process; needs a QGuiApplication).
    Returns {file name: [families]}; a file that cannot be loaded maps to []."""
    global _registered
    if _registered is None:
        _registered = {}
        folder = resources_dir() / "fonts"
        for path in sorted(folder.glob("*.[ot]tf")):
            font_id = QtGui.QFontDatabase.addApplicationFont(str(path))
            _registered[path.name] = (
                list(QtGui.QFontDatabase.applicationFontFamilies(font_id)) if font_id >= 0
                else [])
    return _registered


def available() -> list[str]:
    """The bundled families that registered."""
    return sorted({fam for fams in register().values() for fam in fams})


def families(lang: str) -> list[str]:
    """The families the interface in ``lang`` draws with, first choice first."""
    chain = [SANS_SC, SANS, SYMBOLS] if lang == "zh" else [SANS, SANS_SC, SYMBOLS]
    have = set(available())
    return [f for f in chain if f in have]


def mono_families() -> list[str]:
    have = set(available())
    return [f for f in (MONO, SANS_SC, SYMBOLS) if f in have]


def for_figures(environ: MutableMapping[str, str], folder: str) -> None:
    """Before the QApplication exists: draw figures the same on every machine. The system's
    fontconfig rendering settings (sub-pixel, no antialiasing, full hinting) are overridden by
    a configuration written into ``folder``, and Qt's scaling variables are dropped. Fonts made
    from now on use grey-scale antialiasing."""
    import os

    global _figures
    _figures = True
    for name in SCALING_VARIABLES:
        environ.pop(name, None)
    base = environ.get("FONTCONFIG_FILE") or "/etc/fonts/fonts.conf"
    path = os.path.join(folder, "tensor-explorer-figures.conf")
    text = FIGURE_FONTCONFIG.format(base=base.replace("&", "&amp;").replace("<", "&lt;"))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    environ["FONTCONFIG_FILE"] = path


def _finish(font: QtGui.QFont, chain: list[str]) -> QtGui.QFont:
    if chain:
        font.setFamilies(chain)
    font.setHintingPreference(HINTING)
    if _figures:
        font.setStyleStrategy(QtGui.QFont.StyleStrategy.NoSubpixelAntialias
                              | QtGui.QFont.StyleStrategy.PreferAntialias)
    return font


def ui_font(point_size: float, lang: str) -> QtGui.QFont:
    """The interface font of ``lang`` at ``point_size``."""
    font = QtGui.QFont()
    font.setPointSizeF(point_size)
    return _finish(font, families(lang))


def mono_font(point_size: float) -> QtGui.QFont:
    """The code font at ``point_size`` (fixed pitch; Chinese in comments from Sans SC)."""
    font = QtGui.QFont()
    font.setPointSizeF(point_size)
    font.setStyleHint(QtGui.QFont.StyleHint.Monospace)
    font.setFixedPitch(True)
    return _finish(font, mono_families())


def apply(app: QtWidgets.QApplication, lang: str, point_size: float | None = None) -> None:
    """Make ``lang``'s interface font the application's (keeping its size unless given)."""
    size = point_size if point_size is not None else app.font().pointSizeF()
    app.setFont(ui_font(size, lang))
    # Qt posts the change to the windows: deliver it now, so that whatever is measured or
    # restyled next (a language switch, presentation mode) sees the new font
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.ApplicationFontChange.value)


def _supports(family: str) -> QtGui.QFontMetrics:
    font = QtGui.QFont()
    font.setFamilies([family])
    font.setStyleStrategy(QtGui.QFont.StyleStrategy.NoFontMerging)
    return QtGui.QFontMetrics(font)


@cache
def _covered(family: str, chars: frozenset[str]) -> frozenset[str]:
    metrics = _supports(family)
    return frozenset(c for c in chars if metrics.inFontUcs4(ord(c)))


def lacking(chars: frozenset[str], chain: list[str]) -> list[str]:
    """The characters of ``chars`` that no font of ``chain`` has: they draw from a system font
    (Qt falls back by itself) or, with none, as boxes."""
    left = set(chars)
    for family in chain:
        left -= _covered(family, chars)
    return sorted(left)


def missing(lang: str, chain: list[str] | None = None) -> list[str]:
    """The characters of the texts shipped for ``lang`` that no font of ``chain`` (default:
    the language's bundled chain) has."""
    return lacking(shipped_characters(lang), families(lang) if chain is None else chain)
