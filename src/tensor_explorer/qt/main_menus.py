"""The main window's menu bar and tool bar, made from its actions.

:func:`build` fills the menus of a :class:`~tensor_explorer.qt.main_window.MainWindow` whose
actions exist (``MainWindow._build_actions`` makes them, then calls it; again on a language
change). Its texts belong to the window's translation context ("MainWindow").
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6 import QtGui, QtWidgets
from PySide6.QtCore import QCoreApplication

from . import i18n
from .docks import PANELS
from .workspace_panel import WorkspacePanel

if TYPE_CHECKING:
    from .main_window import MainWindow

translate = QCoreApplication.translate


def build(win: MainWindow) -> None:
    """The menus (File, Edit, Run, View, Help) and the main tool bar, in that order."""
    menu = win.menuBar()
    _file_menu(win, menu)
    _edit_menu(win, menu)
    run_menu = menu.addMenu(translate("MainWindow", "&Run"))
    run_menu.addAction(win.run_action)
    run_menu.addAction(win.stop_action)
    _view_menu(win, menu)
    help_menu = menu.addMenu(translate("MainWindow", "&Help"))
    help_menu.addAction(win.make_action(translate("MainWindow", "Keyboard shortcuts"),
                                    lambda: show_shortcuts(win), "F1"))
    help_menu.addAction(win.make_action(translate("MainWindow", "About Tensor Explorer"),
                                    lambda: show_about(win)))
    tb = win.main_toolbar
    tb.clear()  # the same bar, where it was: only its actions are new
    tb.setWindowTitle(translate("MainWindow", "Main"))
    for a in (win.open_action, win.run_action, win.stop_action, win.present_action,
              win.dark_action):
        tb.addAction(a)


def _file_menu(win: MainWindow, menu: QtWidgets.QMenuBar) -> None:
    file_menu = menu.addMenu(translate("MainWindow", "&File"))
    file_menu.addAction(win.new_action)
    file_menu.addAction(win.open_action)
    win.recent_menu = file_menu.addMenu(translate("MainWindow", "Open &recent"))
    win.files.fill_recent_menu()
    file_menu.addAction(win.reopen_last_action)
    file_menu.aboutToShow.connect(win.files.update_reopen_last)
    win.files.update_reopen_last()
    file_menu.addSeparator()
    file_menu.addAction(win.save_session_action)
    file_menu.addAction(win.save_script_action)
    file_menu.addAction(win.export_action)
    file_menu.addSeparator()
    file_menu.addAction(win.quit_action)


def _edit_menu(win: MainWindow, menu: QtWidgets.QMenuBar) -> None:
    edit_menu = menu.addMenu(translate("MainWindow", "&Edit"))
    win.undo.retranslate()
    edit_menu.addAction(win.undo.undo_action)
    edit_menu.addAction(win.undo.redo_action)
    edit_menu.addSeparator()
    ws_panel = win.panels["workspace"]
    assert isinstance(ws_panel, WorkspacePanel)
    for a in (ws_panel.rename_action, ws_panel.duplicate_action, ws_panel.delete_action):
        edit_menu.addAction(a)
    edit_menu.addSeparator()
    for a in win.edit.make_actions(win.actions_owner):  # Copy, Copy as NumPy, Find
        edit_menu.addAction(a)


def _view_menu(win: MainWindow, menu: QtWidgets.QMenuBar) -> None:
    view_menu = menu.addMenu(translate("MainWindow", "&View"))
    for name in PANELS:
        view_menu.addAction(win.docks[name].toggleViewAction())
    view_menu.addSeparator()
    view_menu.addAction(win.dark_action)
    view_menu.addAction(win.present_action)
    lang_menu = view_menu.addMenu(translate("MainWindow", "&Language"))
    group = QtGui.QActionGroup(win.actions_owner)
    for code, label in (("en", "English"), ("zh", "中文")):
        a = QtGui.QAction(label, win.actions_owner, checkable=True)
        a.setChecked(i18n.current() == code)
        a.triggered.connect(lambda _c=False, lang=code: win.set_language(lang))
        group.addAction(a)
        lang_menu.addAction(a)
    view_menu.addSeparator()
    view_menu.addAction(win.reset_layout_action)


def show_shortcuts(win: MainWindow) -> None:
    """Help ▸ Keyboard shortcuts."""
    rows = [
        ("Ctrl+O", translate("MainWindow", "Open files")),
        ("Ctrl+Enter", translate("MainWindow", "Run the code bar")),
        ("Ctrl+.", translate("MainWindow", "Stop a running program")),
        ("F2", translate("MainWindow", "Rename value")),
        ("Del", translate("MainWindow", "Delete value")),
        ("Ctrl+D", translate("MainWindow", "Duplicate value (clone)")),
        ("F5", translate("MainWindow", "Presentation mode")),
        ("Ctrl+Shift+D", translate("MainWindow", "Dark theme")),
        ("Ctrl+E", translate("MainWindow", "Export panel as image")),
    ]
    text = "<table>" + "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{html.escape(v)}"
                               f"</td></tr>" for k, v in rows) + "</table>"
    QtWidgets.QMessageBox.information(win, translate("MainWindow", "Keyboard shortcuts"), text)


def show_about(win: MainWindow) -> None:
    """Help ▸ About Tensor Explorer."""
    QtWidgets.QMessageBox.about(
        win, translate("MainWindow", "About Tensor Explorer"),
        translate("MainWindow", "Tensor Explorer shows what a tensor is, which values share "
                  "memory, and how autograd flows."))
