"""The texts the application ships, as characters: what its bundled fonts must draw.

Used twice: ``scripts/make_fonts.py`` subsets the bundled fonts to these characters (plus the
common GB2312 set), and ``tensor-explorer info`` counts how many of them the font each language
draws with lacks. Qt-free.

The texts of a language are its lessons, the interface strings of the translation catalog
(``source`` in English, ``translation`` in Chinese), and the messages written in the package's
own source (error explanations, diagnoses, refusals: every string literal, which over-counts a
little and never under-counts). The Chinese interface also shows English (torch's messages,
names, numbers), so its set includes the English one.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path
from xml.etree import ElementTree

from ..paths import resources_dir

LANGUAGES = ("en", "zh")
_PACKAGE = Path(__file__).resolve().parents[1]
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _literals(path: Path) -> list[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)]


def _drawable(text: str) -> set[str]:
    """The characters of ``text`` a font has to draw (not white space or control codes)."""
    return {c for c in text if c.isprintable() and not c.isspace()}


@cache
def shipped_characters(lang: str) -> frozenset[str]:
    """Every drawable character of the texts shipped for ``lang`` ("en" or "zh")."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    chars: set[str] = set()
    for lesson in sorted((resources_dir() / "lessons").glob(f"*.{lang}.md")):
        chars |= _drawable(lesson.read_text(encoding="utf-8"))
    for ts in sorted((resources_dir() / "translations").glob("*.ts")):
        root = ElementTree.parse(ts).getroot()
        for message in root.iter("message"):
            chars |= _drawable(message.findtext("source") or "")
            if lang != "en":
                chars |= _drawable(message.findtext("translation") or "")
    for module in sorted(_PACKAGE.rglob("*.py")):
        for text in _literals(module):
            if lang != "en" or not _CJK.search(text):
                chars |= _drawable(text)
    if lang != "en":
        chars |= shipped_characters("en")
    return frozenset(chars)


def gb2312_characters(level: int = 1) -> frozenset[str]:
    """The GB2312 character set: its symbols and punctuation (rows 1-9) and its hanzi of
    ``level`` 1 (the 3,755 common ones, rows 16-55) or 2 (all 6,763)."""
    last_row = 0xD7 if level == 1 else 0xF7
    rows = [*range(0xA1, 0xAA), *range(0xB0, last_row + 1)]
    chars = set()
    for hi in rows:
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(bytes((hi, lo)).decode("gb2312"))
            except UnicodeDecodeError:
                continue
    return frozenset(chars)
