"""siphon as a client of `nctk serve`, netCDF4-python reading the same dataset
locally as the truth.

Usage: serve_siphon.py BASE_URL CASES_JSON [THREADS]

CASES_JSON is a list of [relative path under /cdmremote/, local dataset for
netCDF4.Dataset]. For every variable netCDF4-python reads, siphon's
`Dataset` (root and first-level variables: siphon builds a deeper
variable's path from the root, a siphon bug) and siphon's raw
`CDMRemote.fetch_data` with the full name (every variable) read the whole
variable and a strided section of it (`v[0:n:2, ...]`), and deflated data
(`deflate=1`, parsed with `read_ncstream_messages`; several messages of one
variable are placed by their sections). Opaque variables, which
netCDF4-python skips, are compared with h5py's blobs. With THREADS > 1 the cases run on
that many threads at once, each on a different section.

Prints `OK case variable what` or `BAD case variable what details` lines.
"""

import json
import sys
import threading
from io import BytesIO

import netCDF4
import numpy as np
from siphon.cdmr import Dataset
from siphon.cdmr.cdmremote import CDMRemote
from siphon.cdmr.ncstream import read_ncstream_messages

base, cases = sys.argv[1], json.loads(sys.argv[2])
threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
lock = threading.Lock()


def say(*parts):
    with lock:
        print(*parts, flush=True)


def walk(group, path=''):
    for name, var in group.variables.items():
        yield path + '/' + name, var
    for name, sub in group.groups.items():
        yield from walk(sub, path + '/' + name)


def same(got, want):
    got, want = np.asarray(got, dtype=object if want.dtype == object else None), np.asarray(want)
    if want.dtype == object or got.dtype == object:
        got, want = np.ravel(got), np.ravel(want)
        return len(got) == len(want) and all(
            np.array_equal(np.asarray(g).ravel(), np.asarray(w).ravel()) for g, w in zip(got, want))
    if want.dtype.names:
        if got.dtype.names != want.dtype.names:
            # Raw rows: packed, big-endian, in the fields' order.
            packed = np.dtype([(n, want.dtype[n].newbyteorder('>')) for n in want.dtype.names])
            got = np.frombuffer(got.tobytes(), dtype=packed)
        got = got.reshape(want.shape)
        return all(np.array_equal(got[n], want[n]) for n in want.dtype.names)
    if got.size != want.size:
        return False
    got = got.reshape(want.shape)
    if want.dtype.kind in 'SU' or want.dtype.kind == 'V':
        return np.array_equal(got, want)
    return np.array_equal(got.astype(want.dtype), want, equal_nan=want.dtype.kind in 'fc')


def strided(shape, offset):
    """A section on every dimension: from `offset` (kept inside), stride 2."""
    return tuple(slice(min(offset, n - 1), n, 2) for n in shape)


def section_text(index, shape):
    return '(' + ','.join(f'{s.start}:{n - 1}:{s.step}' for s, n in zip(index, shape)) + ')'


# netCDF-C and h5py (each with an HDF5 of its own) are not thread-safe, and
# one HDF5 fails to open a file the other has open ('NetCDF: HDF error'): the
# local truth, by either, is read under one lock.
hdf5_lock = threading.Lock()


def truths(local):
    """(path, name, shape, values, is a plain number or char type) per variable."""
    with hdf5_lock:
        nc = netCDF4.Dataset(local)
        nc.set_auto_mask(False)
        out = [(path, var.name, var.shape, var[...],
                var.dtype != str and isinstance(var.datatype, np.dtype))
               for path, var in walk(nc)]
        nc.close()
        return out


def check_case(rel, local, offset):
    url = base + rel
    ds = Dataset(url)
    raw = CDMRemote(url)
    for path, name, shape, want, plain in truths(local):
        try:
            check_variable(rel, ds, raw, path, name, shape, want, plain, offset)
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            say('BAD', rel, path, 'error', repr(e)[:500])
    check_opaque(rel, local, raw)


def check_variable(rel, ds, raw, path, name, shape, want, plain, offset):
    depth = path.count('/')
    if depth <= 2:
        node = ds
        for part in path.strip('/').split('/')[:-1]:
            node = node.groups[part]
        got = node.variables[name][:]
        report(rel, path, 'dataset-all', same(got, want), got, want)
    got = raw.fetch_data(**{path: ()})[0]
    report(rel, path, 'fetch-all', same(got, want), got, want)
    if not shape or 0 in shape or not plain:
        return
    index = strided(shape, offset)
    sub = want[index]
    got = raw.fetch_data(**{path: index})[0]
    report(rel, path, 'fetch-section', same(got, sub), got, sub)
    # Deflated: one message per slab, each placed by its section.
    query = raw.query().add_query_parameter(
        req='data', var=path + section_text(index, shape), deflate=1)
    body = raw.get_query(query).content
    pieces = read_ncstream_messages(BytesIO(body))
    got = np.concatenate([np.asarray(p).ravel() for p in pieces]) if pieces else np.array([])
    report(rel, path, 'deflate-section', same(got, sub), got, sub)


def check_opaque(rel, local, raw):
    """Opaque variables, which netCDF4-python skips: h5py reads their blobs."""
    with open(local, 'rb') if '://' not in local else open('/dev/null', 'rb') as f:
        if f.read(8) != b'\x89HDF\r\n\x1a\n':
            return
    import h5py
    with hdf5_lock, h5py.File(local, 'r') as h5:
        blobs = {name: [bytes(x) for x in np.ravel(obj[()])]
                 for name, obj in h5.items()
                 if isinstance(obj, h5py.Dataset) and obj.dtype.kind == 'V' and obj.dtype.names is None}
    for name, want in blobs.items():
        got = [bytes(x) for x in np.ravel(raw.fetch_data(**{'/' + name: ()})[0])]
        report(rel, '/' + name, 'fetch-all', got == want, got, want)


def report(rel, path, what, ok, got, want):
    if ok:
        say('OK', rel, path, what)
    else:
        say('BAD', rel, path, what, repr(got)[:300], 'want', repr(want)[:300])


def run(items):
    for i, (rel, local) in items:
        try:
            check_case(rel, local, i % 3)
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            say('BAD', rel, '-', 'error', repr(e)[:500])


jobs = list(enumerate(cases))
if threads <= 1:
    run(jobs)
else:
    workers = [threading.Thread(target=run, args=(jobs[t::threads],)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
