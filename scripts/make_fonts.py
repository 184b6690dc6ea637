"""Make the bundled fonts in resources/fonts/ (run again when the shipped texts gain characters).

    .venv/bin/python scripts/make_fonts.py [--sources DIR]

The fonts are subsets of Noto fonts (SIL Open Font License 1.1), renamed so that they never
clash with a full Noto font the system may have:

    Tensor Explorer Sans      Noto Sans             Latin, Greek, Cyrillic; the English UI
    Tensor Explorer Sans SC   Noto Sans CJK SC      Simplified Chinese (+ its Latin); the Chinese UI
    Tensor Explorer Symbols   Noto Sans Symbols 2   arrows, check marks, triangles...
    Tensor Explorer Mono      Noto Sans Mono        code

Each keeps the characters of the texts the application ships (``tensor_explorer.core.texts``)
that it has, plus a fixed repertoire: for the CJK face the common GB2312 set (symbols and the
3,755 level-1 hanzi), so what a learner types mostly draws with the bundled face too.

The sources are files of Debian's font packages (bookworm), checked against their SHA-256; with
no ``--sources`` they are fetched with ``apt-get download`` into a cache folder. The output is
byte-for-byte the same on every run (timestamps are the sources', not today's).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tensor_explorer.core.texts import gb2312_characters, shipped_characters  # noqa: E402

OUT = ROOT / "resources" / "fonts"
PACKAGES = ("fonts-noto-cjk=1:20220127+repack1-1", "fonts-noto-core=20201225-1",
            "fonts-noto-mono=20201225-1")
#: source file (relative to the unpacked packages) -> SHA-256
SOURCES = {
    "usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc":
        "b76b0433203017ca80401b2ee0dd69350349871c4b19d504c34dbdd80541690a",
    "usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc":
        "faa5f3656a78b2e2d450d27fe8382c778bc2b6bb5ea29c986664a6a435056ceb",
    "usr/share/fonts/truetype/noto/NotoSans-Regular.ttf":
        "89c3c497f618fdaa0b2d1e98fef93582f28c71debd2c4a8cdf41f190ced2909d",
    "usr/share/fonts/truetype/noto/NotoSans-Bold.ttf":
        "e83493c945848ecd4a9ad0f6d19164541a0d3e23a9c952304a00a46e00272ac5",
    "usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf":
        "6b692c4b6d15ccf59f1c1fe8d11cb8a92f51960f3e9f1f523781755a3af7e29f",
    "usr/share/fonts/truetype/noto/NotoSansMono-Bold.ttf":
        "b22563d5f03b345a62115e78d8789c9ed99c2cfa8059fad6e7a5c4ced288e21e",
    "usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf":
        "876598db5f1e3bef2bc77c4d94c5b0d5d2c1620be4878a06f18fb5434e331688",
}


def _blocks(*ranges: tuple[int, int]) -> set[str]:
    return {chr(c) for lo, hi in ranges for c in range(lo, hi + 1)}


LATIN = _blocks((0x20, 0x7E), (0xA0, 0x17F), (0x2000, 0x206F), (0x20A0, 0x20BF),
                (0x2070, 0x209F))
GREEK_CYRILLIC = _blocks((0x370, 0x3FF), (0x400, 0x45F))
SYMBOLS = _blocks((0x2100, 0x214F), (0x2190, 0x21FF), (0x2200, 0x22FF), (0x2300, 0x23FF),
                  (0x2500, 0x259F), (0x25A0, 0x25FF), (0x2600, 0x26FF), (0x2700, 0x27BF))
CJK_PUNCTUATION = _blocks((0x3000, 0x303F), (0xFF00, 0xFFEF))

#: output file, source, face in a collection (None: a single font), family, style, repertoire
FACES = [
    ("TensorExplorerSans-Regular.ttf", "NotoSans-Regular.ttf", None,
     "Tensor Explorer Sans", "Regular", LATIN | GREEK_CYRILLIC | SYMBOLS),
    ("TensorExplorerSans-Bold.ttf", "NotoSans-Bold.ttf", None,
     "Tensor Explorer Sans", "Bold", LATIN | GREEK_CYRILLIC | SYMBOLS),
    ("TensorExplorerSansSC-Regular.otf", "NotoSansCJK-Regular.ttc", "Noto Sans CJK SC",
     "Tensor Explorer Sans SC", "Regular", LATIN | SYMBOLS | CJK_PUNCTUATION),
    ("TensorExplorerSansSC-Bold.otf", "NotoSansCJK-Bold.ttc", "Noto Sans CJK SC",
     "Tensor Explorer Sans SC", "Bold", LATIN | SYMBOLS | CJK_PUNCTUATION),
    ("TensorExplorerSymbols-Regular.ttf", "NotoSansSymbols2-Regular.ttf", None,
     "Tensor Explorer Symbols", "Regular", SYMBOLS),
    ("TensorExplorerMono-Regular.ttf", "NotoSansMono-Regular.ttf", None,
     "Tensor Explorer Mono", "Regular", LATIN | GREEK_CYRILLIC | SYMBOLS),
    ("TensorExplorerMono-Bold.ttf", "NotoSansMono-Bold.ttf", None,
     "Tensor Explorer Mono", "Bold", LATIN | GREEK_CYRILLIC | SYMBOLS),
]


def fetch_sources(cache: Path) -> Path:
    """Download and unpack the Debian packages into ``cache`` (once)."""
    unpacked = cache / "unpacked"
    if all((unpacked / rel).is_file() for rel in SOURCES):
        return unpacked
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=cache, check=True)
    for deb in sorted(cache.glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    return unpacked


def check_sources(root: Path) -> dict[str, Path]:
    found = {}
    for rel, digest in SOURCES.items():
        path = root / rel
        if not path.is_file():
            sys.exit(f"make_fonts: {path} is missing")
        if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            sys.exit(f"make_fonts: {path} is not the expected file (SHA-256 differs)")
        found[Path(rel).name] = path
    return found


def _open(path: Path, face: str | None) -> TTFont:
    if face is None:
        return TTFont(path, recalcTimestamp=False)
    for font in TTCollection(path, recalcTimestamp=False).fonts:
        if font["name"].getDebugName(1) == face:
            return font
    raise SystemExit(f"make_fonts: {path} has no face {face!r}")


def _rename(font: TTFont, family: str, style: str, source_name: str) -> None:
    """Give the subset its own names (so it never clashes with an installed Noto font) and say
    what it was made from."""
    full = f"{family} {style}" if style != "Regular" else family
    postscript = f"{family.replace(' ', '')}-{style}"
    name = font["name"]
    version = name.getDebugName(5) or ""
    for rec in list(name.names):
        if rec.nameID in (1, 2, 3, 4, 6, 16, 17, 21, 22):
            name.removeNames(nameID=rec.nameID)
    for nid, text in ((1, family), (2, style), (3, f"{postscript};{version}"), (4, full),
                      (6, postscript)):
        name.setName(text, nid, 3, 1, 0x409)
        name.setName(text, nid, 1, 0, 0)
    name.setName(f"A subset of {source_name} {version} made by Tensor Explorer's "
                 "scripts/make_fonts.py; licensed under the SIL Open Font License 1.1.",
                 10, 3, 1, 0x409)
    if "CFF " in font:
        cff = font["CFF "].cff
        cff.fontNames = [postscript]
        top = cff.topDictIndex[0]
        top.FamilyName, top.FullName = family, full


def make_face(src: Path, face: str | None, family: str, style: str, repertoire: set[str],
              texts: set[str], out: Path) -> tuple[int, int]:
    font = _open(src, face)
    cmap = font.getBestCmap()
    source_name = font["name"].getDebugName(1) or src.stem
    wanted = sorted({ord(c) for c in texts | repertoire} & set(cmap))
    options = subset.Options()
    options.layout_features = ["*"]  # kerning, ligatures, vertical forms: as the source
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.hinting = False  # one rendering everywhere: Qt hints (lightly) by itself
    options.notdef_outline = True
    options.recalc_timestamp = False
    sub = subset.Subsetter(options)
    sub.populate(unicodes=wanted)
    sub.subset(font)
    _rename(font, family, style, source_name)
    font.save(out)
    return len(wanted), out.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path,
                        help="folder the Debian packages are unpacked in (default: download)")
    args = parser.parse_args()
    root = args.sources or fetch_sources(Path(tempfile.gettempdir()) / "tx-font-sources")
    sources = check_sources(root)
    texts = set(shipped_characters("zh")) | set(shipped_characters("en"))
    cjk = set(gb2312_characters(level=1))
    OUT.mkdir(parents=True, exist_ok=True)
    for out, src, face, family, style, repertoire in FACES:
        extra = cjk if face is not None else set()
        n, size = make_face(sources[src], face, family, style, repertoire | extra, texts,
                            OUT / out)
        print(f"{out}: {n:,} characters, {size / 1024:,.0f} KiB")


if __name__ == "__main__":
    main()
