"""Fill unfinished messages of a .ts file from a {source: translation} dict in a Python file.

    .venv/bin/python scripts/fill_translations.py resources/translations/tensor_explorer_zh.ts \
        DICT.py

A helper for bulk translation; Qt Linguist does the same interactively.
"""

from __future__ import annotations

import runpy
import sys
import xml.etree.ElementTree as ET


def main(ts_path: str, dict_path: str) -> int:
    table: dict[str, str] = runpy.run_path(dict_path)["ZH"]
    tree = ET.parse(ts_path)
    missing = []
    for ctx in tree.getroot().iter("context"):
        for msg in ctx.iter("message"):
            src = msg.findtext("source") or ""
            tr = msg.find("translation")
            if tr is None:
                tr = ET.SubElement(msg, "translation")
            if (tr.get("type") in ("unfinished", None) and not (tr.text or "").strip()) or \
                    tr.get("type") == "unfinished":
                if src in table:
                    tr.text = table[src]
                    tr.attrib.pop("type", None)
                else:
                    missing.append((ctx.findtext("name"), src))
    tree.write(ts_path, encoding="utf-8", xml_declaration=True)
    for ctx_name, src in missing:
        print(f"untranslated: {ctx_name}: {src!r}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
