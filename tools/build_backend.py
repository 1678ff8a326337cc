"""The build backend: setuptools' own, which asks for mypy when it builds a wheel.

A wheel (``pip install .``) compiles the search's hot modules with mypyc (``setup.py``);
an editable install (``pip install -e .``) does not ask for mypy and stays pure Python,
so the sources a developer edits are the code that runs. Setuptools documents this way of
adding build requirements: a backend beside the project (``backend-path``) that wraps
``setuptools.build_meta``.
"""

from __future__ import annotations

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # the other PEP 517 hooks, unchanged
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

MYPYC = "mypy>=1.10,<3"
"""mypyc comes with mypy; the range is the one the project type-checks with."""


def get_requires_for_build_wheel(
        config_settings: dict[str, str | list[str]] | None = None) -> list[str]:
    """Setuptools' requirements for a wheel, and mypy for its compiled modules."""
    return [*_setuptools.get_requires_for_build_wheel(config_settings), MYPYC]


__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
           "get_requires_for_build_sdist", "get_requires_for_build_wheel",
           "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"]
