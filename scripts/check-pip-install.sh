#!/usr/bin/env bash
# The whole `pip install .` of the Python package, as a user runs it, into a
# temporary folder; then the installed package is imported from there (not
# from the source tree) and a filter makes a save/load round trip. It
# compiles the engine a second time (minutes; with nvcc present, the CUDA
# backend too), so the test suite leaves it out: python/tests/test_packaging.py
# checks the source distribution and its CMake configuration instead.
#
#   scripts/check-pip-install.sh [PIP_ARGS...]   e.g. -Ccmake.define.GDEDUP_CUDA=OFF
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${GDEDUP_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$work/site" \
  "$root" "$@"
cd "$work"
PYTHONPATH="$work/site" "$python" - <<'PY'
import os
import gdedup
assert os.path.dirname(gdedup.__file__).endswith("site/gdedup"), gdedup.__file__
f = gdedup.Filter(capacity=1000)
assert f.test_and_set([b"a", b"b", b"a"]).tolist() == [False, False, True]
f.save("f.gdf")
g = gdedup.Filter.load("f.gdf")
assert g.contains(["a", "b", "c"]).tolist() == [True, True, False]
print("pip install: ok, backend", g.backend)
PY
