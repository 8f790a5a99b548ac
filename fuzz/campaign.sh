#!/usr/bin/env bash
# The fuzzing campaign (outside CI): seeds each target's corpus from the
# test data, runs each target for SECS seconds of CPU time (default 1800),
# JOBS at a time (default 1), and prints a markdown row per target: when
# it started, its wall and CPU seconds, runs, edges covered after the seeds
# and at the end, corpus entries, findings (crash, leak, timeout and
# out-of-memory artifacts) and slow units. Logs and artifacts stay in
# fuzz/campaign/. Usage, from the repository root:
#
#   NCTK_CORPUS=/path/to/corpus bash fuzz/campaign.sh [target ...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP=1 lets the
# stable toolchain build the targets.
set -euo pipefail
cd "$(dirname "$0")"
: "${NCTK_CORPUS:?set NCTK_CORPUS to the corpus directory}"
SECS=${SECS:-1800}
JOBS=${JOBS:-1}
export RUSTC_BOOTSTRAP=1
out=campaign
mkdir -p "$out"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi

# Copies files matching find's arguments, at most MAX of them, into $1.
seed_find() {
  local dir=$1 max=$2
  shift 2
  local files f
  # not `find | sort | head`: head's early exit fails the pipeline (pipefail)
  mapfile -t files < <(find "$NCTK_CORPUS" "$@" -type f 2>/dev/null | sort)
  for f in "${files[@]:0:max}"; do
    cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-12)-$(basename "$f")"
  done
}

# Files whose first bytes are $2 (a grep pattern), at most $3 of them, under 256 KiB.
seed_magic() {
  local dir=$1 magic=$2 max=$3 n=0
  while read -r f; do
    head -c 8 "$f" | grep -q "$magic" || continue
    cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-12)-$(basename "$f")"
    n=$((n + 1))
    [ "$n" -ge "$max" ] && break
  done < <(find "$NCTK_CORPUS" -type f -size -256k | sort)
}

# Zarr v3 seeds for zarr_v3_meta: root zarr.json, 0xff, an array's
# zarr.json, 0xff, its first chunk or shard, from stores zarr-python writes.
seed_zarr_v3() {
  python3 - "$1" <<'PY'
import pathlib, sys, tempfile
import numpy as np, zarr
out = pathlib.Path(sys.argv[1])
cases = {
    "plain": dict(shape=(4, 5), chunks=(2, 5), dtype="f4"),
    "sharded": dict(shape=(8, 8), chunks=(2, 2), shards=(4, 4), dtype="i2"),
    "gzip": dict(shape=(6,), chunks=(3,), dtype=">u4", compressors=[zarr.codecs.GzipCodec()]),
    "scalar": dict(shape=(), dtype="f8"),
    "strings": dict(shape=(3,), chunks=(3,), dtype=str),
    "bool": dict(shape=(4,), chunks=(4,), dtype=bool),
}
for name, kw in cases.items():
    with tempfile.TemporaryDirectory() as d:
        root = zarr.open_group(d, mode="w", zarr_format=3)
        a = root.create_array("v", **kw)
        if kw["dtype"] is str:
            a[...] = np.array(["a", "bb", ""])
        else:
            a[...] = np.arange(int(np.prod(kw["shape"]))).reshape(kw["shape"]).astype(kw["dtype"])
        base = pathlib.Path(d)
        chunks = sorted(p for p in (base / "v").rglob("*") if p.is_file() and p.name != "zarr.json")
        blob = (base / "zarr.json").read_bytes() + b"\xff" + (base / "v" / "zarr.json").read_bytes() + b"\xff"
        blob += chunks[0].read_bytes() if chunks else b""
        (out / name).write_bytes(blob)
PY
}

# Block-compressed classic seeds for compressed_open: small classic files
# of the corpus copied with `nctk copy -k compressed`, one codec each in
# turn (nctk is built in release mode when missing; NCTK names another).
seed_compressed() {
  local dir=$1 nctk=${NCTK:-../target/release/nctk} n=0 codecs=(zstd zlib lz4 blosc none)
  [ -x "$nctk" ] || cargo build -q --release --manifest-path ../Cargo.toml -p nctk-cli
  while read -r f; do
    head -c 3 "$f" | grep -q '^CDF' || continue
    "$nctk" copy -k compressed --codec "${codecs[n % 5]}" "$f" "$dir/$n.ncb" 2>/dev/null || continue
    n=$((n + 1))
    [ "$n" -ge 60 ] && break
  done < <(find "$NCTK_CORPUS" -type f -size -64k | sort)
}

seed() {
  local t=$1 dir=$2
  case $t in
    cdl_parse | nc4_write_read) seed_find "$dir" 200 -name '*.cdl' -size -16k ;;
    classic_header | classic_read_all) seed_magic "$dir" '^CDF' 150 ;;
    compressed_open) seed_compressed "$dir" ;;
    hdf5_kind | hdf5_open) seed_magic "$dir" 'HDF' 150 ;;
    chunk_refs) seed_magic "$dir" 'HDF' 80; seed_magic "$dir" '^CDF' 80 ;;
    ncstream_decode) seed_find "$dir" 100 -name '*.ncs' -size -256k ;;
    zarr_metadata) seed_find "$dir" 200 \( -name .zarray -o -name .zattrs -o -name .zgroup -o -name .zmetadata \) -size -64k ;;
    codec_*) seed_find "$dir" 200 -path '*zarr*' -name '[0-9]*' -size -64k ;;
    zarr_v3_meta) seed_zarr_v3 "$dir" ;;
    *) ;;
  esac
}

# The CPU seconds (user and system) of the running process $1 so far;
# nothing once it has ended.
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '$3 != "Z" { print int(($14 + $15) / hz) }' "/proc/$1/stat" 2>/dev/null || true
}

echo "| target | from | wall s | CPU s | runs | edges, seeds then end | corpus | findings | slow units |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
run_one() {
  local t=$1 dir="$out/corpus/$1"
  mkdir -p "$dir" "$out/artifacts/$t"
  [ -n "$(ls -A "$dir")" ] || seed "$t" "$dir"
  local from start pid cpu=0
  from=$(date -u +%H:%M)
  start=$(date +%s)
  # SECS seconds of CPU time, however busy the machine is (libFuzzer's own
  # limit counts wall time): SIGINT stops it there; its own limit, at four
  # times that, only guards against a stall
  "$bin/$t" -max_total_time=$((SECS * 4)) -rss_limit_mb=2048 -max_len=262144 \
    -artifact_prefix="$out/artifacts/$t/" "$dir" >"$out/$t.log" 2>&1 &
  pid=$!
  local now
  while sleep 2; now=$(cpu_seconds "$pid"); [ -n "$now" ]; do
    cpu=$now
    if [ "$cpu" -ge "$SECS" ]; then kill -INT "$pid" 2>/dev/null || true; fi
  done
  wait "$pid" || true
  local runs seeds edges
  # (nothing, and no row lost, when it stopped before its first report)
  runs=$(grep -o '^#[0-9]*' "$out/$t.log" | tail -1 | tr -d '#' || true)
  seeds=$(grep -o 'INITED cov: [0-9]*' "$out/$t.log" | head -1 | grep -o '[0-9]*$' || true)
  edges=$(grep -o 'cov: [0-9]*' "$out/$t.log" | tail -1 | grep -o '[0-9]*$' || true)
  # Crashes, leaks, timeouts and out-of-memory inputs are findings; a slow
  # unit (over 10 s once) is only reported: re-run it alone
  # (`fuzz/target/<triple>/release/<target> <file>`) to see whether it is
  # slow or the machine was busy.
  local findings slow
  findings=$(find "$out/artifacts/$t" -type f ! -name 'slow-unit-*' | wc -l)
  slow=$(find "$out/artifacts/$t" -type f -name 'slow-unit-*' | wc -l)
  echo "| $t | $from | $(($(date +%s) - start)) | $cpu | ${runs:-?} | ${seeds:-?} -> ${edges:-?} | $(ls "$dir" | wc -l) | $findings | $slow |"
}
cargo fuzz build -s none >/dev/null
bin=target/$(rustc -vV | sed -n 's/^host: //p')/release
for t in "${targets[@]}"; do
  # a target that fails (its seeding, say) must not end the campaign
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  run_one "$t" &
done
wait
