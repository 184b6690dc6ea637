"""The Workspace panel's rows, made without the panel: what a value's, a record field's, a
module member's and a "… N more" row hold (core/modules.py and core/facts.py are the ground
truth), and their words in the current language."""

from __future__ import annotations

import numpy as np
import torch
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from tensor_explorer.core.facts import badges
from tensor_explorer.core.modules import first_names, members
from tensor_explorer.qt import i18n
from tensor_explorer.qt.workspace_rows import (
    BADGES_ROLE,
    BATCH,
    KIND_ROLE,
    LABEL_ROLE,
    NAME_ROLE,
    PENDING_ROLE,
    member_item,
    more_item,
    set_words,
    value_item,
)


def test_a_tensor_row_holds_its_name_and_badges(qtbot: QtBot) -> None:
    x = torch.ones(2, 3, requires_grad=True)
    item = value_item("x", x)
    assert item.data(NAME_ROLE) == "x" and item.data(KIND_ROLE) == "value"
    assert item.data(BADGES_ROLE) == badges(x)
    assert item.toolTip() == "x: " + ", ".join(b.text for b in badges(x))
    assert not item.data(PENDING_ROLE) and item.rowCount() == 0


def test_a_module_row_waits_and_a_record_row_has_its_fields(qtbot: QtBot) -> None:
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    assert value_item("net", net).data(PENDING_ROLE) is True
    rec = np.zeros(3, dtype=[("a", "f4"), ("b", [("c", "i2")])])
    item = value_item("rec", rec)
    fields = [item.child(r) for r in range(item.rowCount())]
    assert [f.data(NAME_ROLE) for f in fields] == ["rec.a", "rec.b"]
    nested = fields[1].child(0)
    assert nested.data(NAME_ROLE) == "rec.b.c" and nested.data(LABEL_ROLE) == "b.c"
    assert nested.toolTip().startswith("rec['b']['c']: ")


def test_a_shared_member_says_where_it_is_first(qtbot: QtBot) -> None:
    layer = torch.nn.Linear(2, 2)
    net = torch.nn.Sequential(layer, layer)
    tree = members(net, depth=1, first=first_names(net))
    again = member_item("net", net, tree[1])
    assert again.data(NAME_ROLE) == "net.1" and again.data(KIND_ROLE) == "module"
    assert again.toolTip().endswith("\nThe same module as 0; its members are listed there.")
    i18n.install("zh")
    set_words(again)
    assert "The same module as" not in again.toolTip()
    assert again.toolTip().startswith("net[1]: ")


def test_the_more_row_counts_what_is_left(qtbot: QtBot) -> None:
    item = more_item(2800)
    assert item.data(KIND_ROLE) == "more" and item.data(NAME_ROLE) is None
    assert item.data(LABEL_ROLE) == "… 2,800 more"
    assert item.toolTip() == f"Select to show the next {BATCH}."
    i18n.install("zh")
    set_words(item)
    assert item.data(LABEL_ROLE) == QtCore.QCoreApplication.translate(
        "WorkspacePanel", "… {0} more").format("2,800") != "… 2,800 more"
