#!/usr/bin/env bash
# Builds nctk and runs it on the bundled sample: CDL -> CDF-5 file -> CDL.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p nctk-cli
nctk="${CARGO_TARGET_DIR:-target}/release/nctk"
out="${TMPDIR:-/tmp}/nctk-sample"
mkdir -p "$out"

echo "== nctk gen -5: samples/sample.cdl -> $out/sample.nc (CDF-5)"
"$nctk" gen -5 -o "$out/sample.nc" samples/sample.cdl
echo "== nctk validate"
"$nctk" validate "$out/sample.nc"
echo "== nctk dump -k"
"$nctk" dump -k "$out/sample.nc"
echo "== nctk dump -h -s"
"$nctk" dump -h -s "$out/sample.nc"
echo "== nctk copy -k nc6: CDF-5 -> CDF-2 (ubyte and int64 do not fit CDF-2: a clear error)"
"$nctk" copy -k nc6 "$out/sample.nc" "$out/sample-cdf2.nc" || true
echo "== nctk copy -k nc5 -v time,temp: data of time and temp only (as nccopy -v), streamed"
"$nctk" copy -k nc5 -v time,temp "$out/sample.nc" "$out/subset.nc"
"$nctk" dump -v quality "$out/subset.nc" | tail -n 4
echo "== nctk dump -t -v time,temp (CF times as ISO strings)"
"$nctk" dump -t -v time,temp "$out/sample.nc"
