"""`pip install .` without its cost: the source distribution that
scikit-build-core makes from pyproject.toml holds everything the CMake
build needs, and CMake configures the module from it (configure only: the
compile is the one the rest of this suite tests). The whole `pip install .`
takes a second compile of the engine; python/pip_install_check.sh runs it."""

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def build_sdist(out):
    code = ("import os, sys; os.chdir(sys.argv[1]); "
            "from scikit_build_core.build import build_sdist; print(build_sdist(sys.argv[2]))")
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT), str(out)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return out / proc.stdout.strip().splitlines()[-1]


def test_the_sdist_configures_the_module(tmp_path):
    sdist = build_sdist(tmp_path)
    with tarfile.open(sdist) as tar:
        names = {Path(*Path(n).parts[1:]).as_posix() for n in tar.getnames()}
        tar.extractall(tmp_path / "src", filter="data")
    for needed in ("pyproject.toml", "CMakeLists.txt", "python/CMakeLists.txt",
                   "python/gdedup/__init__.py", "python/src/module.cpp", "include/gdedup/filter.h",
                   "src/core/filter.cpp", "cmake/install.cmake"):
        assert needed in names, needed
    assert not any(n.startswith("build") for n in names)
    source = next((tmp_path / "src").iterdir())
    proc = subprocess.run(
        ["cmake", "-S", str(source), "-B", str(tmp_path / "b"), "-G", "Ninja",
         "-DGDEDUP_PYTHON=ON", "-DGDEDUP_BUILD_TESTS=OFF", "-DGDEDUP_BUILD_BENCH=OFF",
         "-DGDEDUP_CUDA=OFF", f"-DPython_EXECUTABLE={sys.executable}"],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gdedup: Python module ON" in proc.stdout
