"""core/graph_texts and the graph pane's messages: every text the pane shows is a ``graph.*``
code of the core's catalog, so it is said in either language from there, and no English text
of a template is left in the Chinese of a real traced graph."""

from __future__ import annotations

import re
import string
from typing import Any

import torch

from tensor_explorer.core.autograd import trace
from tensor_explorer.core.catalog import CATALOG, Message, render
from tensor_explorer.core.graph_layout import CollapsedGraph
from tensor_explorer.core.graph_session import GraphSession, Notice
from tensor_explorer.core.graph_texts import (
    CUT_REASONS,
    GradientInputError,
    const_label,
    edge_texts,
    node_texts,
    parse_gradient,
)
from tensor_explorer.core.workspace import Workspace
from tests.core.text_checks import CJK as _CJK

MIXED = """\
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
x = torch.arange(5.0, requires_grad=True)
p, q = x.split([2, 3])
h = torch.cat([q, p]) * 2
y = (h * h).sum() + net(torch.ones(2, 3)).sum()
with torch.no_grad():
    c = x * 2
"""
LOOP = """\
W = torch.randn(3, 3, requires_grad=True)
h = torch.zeros(3)
for t in range(60):
    h = torch.tanh(h @ W + 1)
loss = h.sum()
"""


def english_phrases() -> set[str]:
    """The English words of every graph template that its Chinese does not keep (code words
    such as ``.grad`` or ``backward`` stay in both)."""
    out: set[str] = set()
    for code, templates in CATALOG.items():
        if not code.startswith("graph."):
            continue
        for literal, *_ in string.Formatter().parse(templates["en"]):
            for phrase in re.findall(r"[A-Za-z][A-Za-z ']*[A-Za-z]", literal):
                if len(phrase) >= 3 and phrase not in templates["zh"]:
                    out.add(phrase)
    return out


def texts_of(labels: dict[Any, Any]) -> list[str]:
    """What the boxes say that the pane wrote: lines, tool tips, and the titles of groups
    (other titles are torch's names of operations and the workspace's names)."""
    out = []
    for label in labels.values():
        out += [*label.lines, label.tooltip]
        if label.kind == "group":
            out.append(label.title)
    return out


def assert_no_english(texts: list[str]) -> None:
    phrases = english_phrases()
    left = sorted({(p, t) for t in texts for p in phrases if p in t})
    assert not left, left


def session_on(source: str, lang: str) -> tuple[Workspace, GraphSession, list[Notice]]:
    ws = Workspace()
    ws.run(source)
    s = GraphSession(ws, language=lambda: lang)
    said: list[Notice] = []
    s.events.message.connect(lambda notice: said.append(notice) if notice else None)
    s.run(s.follow())
    return ws, s, said


def test_the_graph_codes_name_their_module() -> None:
    codes = [c for c in CATALOG if c.startswith("graph.")]
    assert len(codes) >= 60
    assert set(CUT_REASONS.values()) <= set(codes)


def test_a_real_graph_is_said_in_chinese_without_english_templates() -> None:
    ws, s, said = session_on(MIXED, "zh")
    s.run(s.backward(retain_graph=True, retain="h"))
    assert s.graph is not None and s.shown is not None
    labels = s.node_labels()
    kinds = {label.kind for label in labels.values()}
    assert {"leaf", "op", "root", "group", "const"} <= kinds
    edges, _ = s.edge_labels()
    texts = texts_of(labels) + list(edges.values())
    assert_no_english(texts)
    # the same graph in English does say the templates' words (the check above means something)
    english = texts_of(node_texts(s.shown, s.graph, s.retained)) + list(
        edge_texts(s.shown, s.graph, s.edge_norms)[0].values())
    assert any(p in t for t in english for p in english_phrases())
    # what the texts say in Chinese is the catalog's
    assert render("graph.root-named", "zh", name="y") in labels[0].lines
    assert labels["const:c"].lines == [render("graph.constant", "zh", reason="no_grad"),
                                       render("graph.gradient-stops", "zh")]
    assert labels["const:c"] == const_label("c", "no_grad", "zh")
    assert any(render("graph.retained", "zh", value="") in line
               for label in labels.values() for line in label.lines)
    assert any(t.startswith(render("graph.outputs", "zh", outputs="0, 1")) for t in edges.values())
    # each message said renders in Chinese, and is the English as a str
    s.zero_grad(set_to_none=False)
    assert said and all(_CJK.search(n.render("zh")) and n.render("zh") != n.render("en")
                        for n in said)
    assert ws["x"].grad is not None


def test_folded_groups_and_messages_in_chinese() -> None:
    _ws, s, said = session_on(LOOP, "zh")
    shown = s.shown
    assert isinstance(shown, CollapsedGraph) and shown.groups
    s.run(s.expand(next(iter(shown.groups))))
    s.run(s.numerical_check())
    s.run(s.fold())
    assert s.graph is not None and s.shown is not None
    labels = s.node_labels()
    assert [label for label in labels.values() if label.kind == "group"]
    assert_no_english(texts_of(labels))
    assert len(said) >= 3
    for notice in said:
        assert _CJK.search(notice.render("zh")), notice.render("en")
        assert notice.render("zh") != notice.render("en")


def test_gradient_errors_carry_a_code() -> None:
    root = torch.ones(2, requires_grad=True) * 2
    for text, code in (("abc", "graph.gradient-unreadable"), ("'t'", "graph.gradient-not-numbers"),
                       ("[[1, 2], [3]]", "graph.gradient-not-rectangular")):
        try:
            parse_gradient(text, root)
        except GradientInputError as err:
            assert isinstance(err.message, Message) and err.message.code == code
            assert str(err) == err.text() == str(err.message)
            assert _CJK.search(err.text("zh"))
        else:
            raise AssertionError(text)


def test_unnamed_root_and_meta_values_in_chinese() -> None:
    x = torch.ones(3, requires_grad=True, device="meta")
    graph = trace((x * 2).sum(), {})
    texts = node_texts(graph, graph, lang="zh")
    assert render("graph.root", "zh") in texts[0].lines
    leaf = next(t for t in texts.values() if t.kind == "leaf")
    assert leaf.lines[1] == "grad = None"
    x.grad = torch.ones(3, device="meta")
    texts = node_texts(graph, graph, lang="zh")
    leaf = next(t for t in texts.values() if t.kind == "leaf")
    assert leaf.lines[1] == "grad = " + render("graph.no-values", "zh")
    assert_no_english(texts_of(texts))
