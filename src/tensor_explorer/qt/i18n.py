"""English and Chinese through Qt's translation system.

Every visible string is written in English in the source (``self.tr(...)``,
``QCoreApplication.translate(...)``); ``resources/translations/tensor_explorer_zh.ts`` holds
the Chinese, compiled to ``.qm`` by ``pyside6-lrelease`` (see README). ``install("zh")`` loads it
together with Qt's own translations (standard dialogs) and makes the bundled Chinese face the
application's font (:mod:`.fonts`).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ..paths import resources_dir

LANGUAGES = ("en", "zh")

_current = "en"
_translators: list[QtCore.QTranslator] = []


def current() -> str:
    return _current


def translations_dir() -> str:
    return str(resources_dir() / "translations")


def install(lang: str) -> bool:
    """Switch the application's language; True when a translation was loaded (or for en)."""
    global _current
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    app = QtCore.QCoreApplication.instance()
    if app is None:
        raise RuntimeError("create the QApplication first")
    for tr in _translators:
        app.removeTranslator(tr)
    _translators.clear()
    _current = lang
    ok = True
    if lang == "en":
        QtCore.QLocale.setDefault(QtCore.QLocale(QtCore.QLocale.Language.English))
    else:
        QtCore.QLocale.setDefault(QtCore.QLocale(QtCore.QLocale.Language.Chinese,
                                                 QtCore.QLocale.Country.China))
        ours = QtCore.QTranslator(app)
        ok = ours.load(f"tensor_explorer_{lang}", translations_dir())
        if ok:
            app.installTranslator(ours)
            _translators.append(ours)
        qt_own = QtCore.QTranslator(app)
        qt_dir = QtCore.QLibraryInfo.path(QtCore.QLibraryInfo.LibraryPath.TranslationsPath)
        if qt_own.load("qtbase_zh_CN", qt_dir):
            app.installTranslator(qt_own)
            _translators.append(qt_own)
    if isinstance(app, QtWidgets.QApplication):
        from . import theme

        # last, with the translations in place (panels restyle on the theme's change signal,
        # in the new language): the bundled face of this language, everywhere
        theme.state().apply()
    return ok
