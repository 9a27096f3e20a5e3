"""Shared paths for the tests of the hindsight Python package."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPECS = os.path.join(ROOT, "specs")


def spec_path(name):
    """A file of the repository's specs/ folder."""
    return os.path.join(SPECS, name)


@pytest.fixture
def write(tmp_path):
    """Writes a text file in a scratch folder; its path."""

    def _write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return _write
