#!/usr/bin/env bash
# Builds nctk and runs it on the bundled sample: CDL -> CDF-5 file ->
# compressed NCZarr store -> CDL.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p nctk-cli
nctk="${CARGO_TARGET_DIR:-target}/release/nctk"
out="${TMPDIR:-/tmp}/nctk-sample"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

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
store="file://$out/sample.zarr#mode=nczarr,file"
echo "== nctk copy -k nc4 -d 1 -s: CDF-5 -> compressed NCZarr store $store"
rm -rf "$out/sample.zarr"
"$nctk" copy -k nc4 -d 1 -s "$out/sample.nc" "$store"
echo "== nctk dump -h -s of the store (chunks, _Filter, _Codecs)"
"$nctk" dump -h -s "$store"
echo "== the store's data section equals the CDF-5 file's"
data() { "$nctk" dump "$1" | sed -n '/^data:/,$p'; }
diff <(data "$out/sample.nc") <(data "$store") && echo "identical"
echo "== nctk dump -t -v time,temp (CF times as ISO strings)"
"$nctk" dump -t -v time,temp "$out/sample.nc"
echo "== nctk dump -s samples/enhanced.nc (netCDF-4/HDF5 written by netCDF-C from samples/enhanced.cdl: groups, compound, vlen, enum, opaque and string types, a compressed chunked variable)"
"$nctk" dump -s samples/enhanced.nc
echo "== nctk copy of it to NCZarr: refused as nccopy refuses (netCDF-C's NCZarr stores no user-defined types)"
"$nctk" copy samples/enhanced.nc "$out/enhanced.zarr" || true
