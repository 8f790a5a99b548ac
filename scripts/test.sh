#!/usr/bin/env bash
# The README's test command: every Rust test, then the Python package built
# as a release wheel from python/, installed, and its tests run against the
# installed wheel (python/tests).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace

# Build the wheel (abi3) and install it, as `pip install ./python` does on a
# user's machine, with the python-tests profile (the release profile lightly
# optimised: see Cargo.toml). It shares the workspace's target directory.
wheels="$(mktemp -d)"
trap 'rm -rf "$wheels"' EXIT
python3 -m maturin build --profile python-tests --quiet -m python/Cargo.toml -o "$wheels"
python3 -m pip install --quiet --force-reinstall --no-deps "$wheels"/nctk-*.whl
# The tests import the installed package, not python/nctk.
(cd python/tests && python3 -m pytest -q -p no:cacheprovider .)
