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


class Moto:
    """moto's S3 server on loopback, with a boto3 client of it."""

    def __init__(self, endpoint: str, process) -> None:
        self.endpoint = endpoint
        self.process = process
        boto3 = need("boto3")
        self.client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        )

    def bucket(self, name: str) -> str:
        """Creates bucket ``name``; its URL (path style)."""
        self.client.create_bucket(Bucket=name)
        return f"{self.endpoint}/{name}"

    def upload(self, path: Path, bucket: str, key: str, public: bool = False) -> str:
        """Uploads ``path`` as ``key`` (readable without credentials when
        ``public``); the object's URL."""
        extra = {"ACL": "public-read"} if public else None
        self.client.upload_file(str(path), bucket, key, ExtraArgs=extra)
        return f"{self.endpoint}/{bucket}/{key}"


@pytest.fixture(scope="session")
def moto(tmp_path_factory):
    """moto's S3 server (``moto_server``), started once for the session on a
    free port, with the credentials nctk and boto3 read set in the
    environment."""
    import shutil
    import socket
    import subprocess
    import time
    import urllib.request

    program = shutil.which("moto_server")
    if program is None:
        missing("moto_server (pip install 'moto[server]')")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [program, "-H", "127.0.0.1", "-p", str(port)], stdout=out, stderr=out
        )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(endpoint, timeout=1)
            break
        except Exception:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"moto_server did not start: {log.read_text()}")
            time.sleep(0.1)
    env = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield Moto(endpoint, process)
    finally:
        process.terminate()
        process.wait(10)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="session")
def nctk_cli() -> Path:
    """The ``nctk`` command-line tool of this workspace (``NCTK_BIN``, else
    ``target/release/nctk`` or ``target/debug/nctk``, whichever is newer),
    which writes the formats the tests read back."""
    if os.environ.get("NCTK_BIN"):
        return Path(os.environ["NCTK_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    found = [p for p in (target / "release" / "nctk", target / "debug" / "nctk") if p.exists()]
    if not found:
        missing(f"the nctk tool (cargo build -p nctk-cli) under {target}")
    return max(found, key=lambda p: p.stat().st_mtime)
