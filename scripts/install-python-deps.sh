#!/usr/bin/env bash
# Installs, from PyPI with pip, the Python packages that build the module
# and run its tests (scrapy for those of gdedup.scrapy), at the versions
# they are tested with. Quick and silent when they are already there. The
# Python used is the one on PATH (python3), or $GDEDUP_PYTHON.
set -euo pipefail
python=${GDEDUP_PYTHON:-python3}
requirements=(
  nanobind==3.1.0
  scikit-build-core==1.1.2
  numpy==2.4.6
  pyarrow==26.0.1
  pytest==9.2.0
  scrapy==2.19.0
  w3lib==2.5.0
)
missing=()
for r in "${requirements[@]}"; do
  name=${r%%==*} version=${r##*==}
  have=$("$python" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)
  [ "$have" = "$version" ] || missing+=("$r")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-python-deps: installing ${missing[*]}" >&2
"$python" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
