# For each HDF5 file named in sys.argv[2:], writes the raw bytes h5py reads
# of every dataset whose type holds no references or variable-length data
# and whose data is at most 16 MB (some corpus files declare gigabytes of
# fill) into sys.argv[1], and prints JSON: [{file, datasets: [{path, bin}]}].
import json, os, sys
import h5py
import numpy as np

def field_bytes(dt, mask, base):
    """Marks in `mask` the bytes of `dt` at `base` that hold data (not padding)."""
    if dt.subdtype is not None:
        sub, shape = dt.subdtype
        n = int(np.prod(shape))
        for i in range(n):
            field_bytes(sub, mask, base + i * sub.itemsize)
    elif dt.fields:
        for name in dt.names:
            fdt, off = dt.fields[name][:2]
            field_bytes(fdt, mask, base + off)
    else:
        for i in range(dt.itemsize):
            mask[base + i] = 1


out = sys.argv[1]
result = []
for k, path in enumerate(sys.argv[2:]):
    entry = dict(file=path, datasets=[])
    try:
        f = h5py.File(path, "r")
    except Exception as e:  # not a file h5py opens: the Rust side skips it
        entry["error"] = str(e)
        result.append(entry)
        continue
    found = []
    f.visititems(lambda name, obj: found.append(name) if isinstance(obj, h5py.Dataset) else None)
    for j, name in enumerate(found):
        ds = f[name]
        if ds.shape is None or ds.dtype.hasobject or ds.size * ds.dtype.itemsize > 16_000_000:
            continue
        data = np.asarray(ds[()], dtype=ds.dtype)  # a scalar comes back in native order
        b = os.path.join(out, f"{k}.{j}.bin")
        with open(b, "wb") as g:
            g.write(data.tobytes())
        mask = [0] * ds.dtype.itemsize
        field_bytes(ds.dtype, mask, 0)
        # h5py zeroes a compound's padding; the file may hold anything there
        entry["datasets"].append(dict(path=name, bin=b, itemsize=ds.dtype.itemsize, mask=mask))
    f.close()
    result.append(entry)
print(json.dumps(result))
