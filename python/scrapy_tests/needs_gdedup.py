"""Skips a test module, saying why, where the package gdedup cannot be
imported: the build made no Python module (no nanobind), or PYTHONPATH does
not name the build's python/ folder. Anything else fails as usual."""

import pytest


def require_gdedup():
    try:
        from gdedup import Filter  # noqa: F401
    except ImportError as error:
        pytest.skip(
            f"gdedup cannot be imported ({error}): build the Python module "
            "(scripts/install-python-deps.sh, then CMake) and set PYTHONPATH=BUILD/python",
            allow_module_level=True,
        )
