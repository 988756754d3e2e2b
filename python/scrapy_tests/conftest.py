"""The Scrapy tests need scrapy itself: without it they stop at once with
what to install, instead of each module failing to import."""

import pytest


def pytest_configure(config):
    try:
        import scrapy  # noqa: F401
    except ImportError as error:
        raise pytest.UsageError(
            f"the Scrapy tests (python/scrapy_tests) need scrapy ({error}): "
            "run scripts/install-python-deps.sh, which installs the version they are tested with"
        )
