"""Shared fixtures of the Python tests: the conformance corpus and the
peers, which under CI (``NCTK_REQUIRE_PEERS=1``) must be present: a missing
one fails the test instead of skipping it."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# As the Rust tests decide it (nctk-test-support): under CI a missing peer fails.
REQUIRE_PEERS = os.environ.get("NCTK_REQUIRE_PEERS") == "1" or os.environ.get("CI") == "true"


def corpus_dir() -> Path:
    """The conformance corpus: ``NCTK_CORPUS``, else ``../shared/corpus``."""
    return Path(os.environ.get("NCTK_CORPUS", REPO.parent / "shared" / "corpus"))


def missing(what: str) -> None:
    """A peer or the corpus is absent: fail under CI, else skip."""
    if REQUIRE_PEERS:
        pytest.fail(f"{what} is missing (NCTK_REQUIRE_PEERS=1)")
    pytest.skip(f"{what} is missing")


def need(module: str):
    """Imports the peer ``module`` or fails/skips as :func:`missing` says."""
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(f"the Python peer {module}")


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The conformance corpus directory."""
    path = corpus_dir()
    if not path.is_dir():
        missing(f"the conformance corpus at {path}")
    return path
