#!/usr/bin/env bash
# Create .venv/ when missing and (re)install the project into it when the pins changed.
# Used by scripts/run and scripts/test; safe to run again (it does nothing when up to date).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
py=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  echo "tensor-explorer: creating .venv/ ..." >&2
  "$py" -m venv .venv
fi
stamp=.venv/.tensor-explorer-installed
want=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  echo "tensor-explorer: installing dependencies into .venv/ (first run takes a minute) ..." >&2
  .venv/bin/python -m pip install -q --upgrade "pip>=24" "setuptools>=77" wheel
  .venv/bin/python -m pip install -q -c constraints.txt --no-build-isolation -e ".[dev]"
  echo "$want" > "$stamp"
fi
# Byte-compile our own sources as pip does for an installed wheel (an editable install is not
# compiled, and with PYTHONDONTWRITEBYTECODE set every start would compile ~40 modules: ~0.1 s).
# Up-to-date files are skipped, so this costs ~50 ms.
.venv/bin/python -m compileall -q src app >/dev/null || true
