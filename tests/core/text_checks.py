"""What the catalog tests look for in a text: Chinese characters (ideographs; or also CJK and
full-width punctuation)."""

from __future__ import annotations

import re

#: a Chinese character
CJK = re.compile(r"[\u4e00-\u9fff]")
#: a Chinese character or CJK / full-width punctuation ("，", "（")
CJK_OR_PUNCTUATION = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
