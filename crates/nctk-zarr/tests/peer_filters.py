# Writes an NCZarr store with netCDF-C 4.10.1 (the pip netCDF4 package)
# using each filter chain netCDF-C builds (shuffle, deflate, fletcher32,
# zstd, bzip2, blosc), then prints the values netCDF-C reads back as JSON.
import sys, json, shutil
import numpy as np, netCDF4
p = sys.argv[1]
shutil.rmtree(p, ignore_errors=True)
ds = netCDF4.Dataset(f'file://{p}#mode=nczarr,file', 'w')
ds.createDimension('t', 7); ds.createDimension('x', 330)
combos = {
  'zlib_shuffle_fletcher': dict(compression='zlib', complevel=4, shuffle=True, fletcher32=True),
  'zlib_fletcher': dict(compression='zlib', complevel=1, shuffle=False, fletcher32=True),
  'fletcher': dict(fletcher32=True),
  'zlib_shuffle': dict(compression='zlib', shuffle=True),
  'zstd': dict(compression='zstd', complevel=3),
  'bzip2': dict(compression='bzip2', complevel=5),
  'blosc_lz4_shuffle': dict(compression='blosc_lz4', blosc_shuffle=1),
  'blosc_zstd_bitshuffle_fletcher': dict(compression='blosc_zstd', blosc_shuffle=2, fletcher32=True),
}
out = {}
for i, (name, kw) in enumerate(combos.items()):
    for dt in ['f4', 'i2', 'f8']:
        vn = f'{name}_{dt}'
        try:
            v = ds.createVariable(vn, dt, ('t', 'x'), chunksizes=(3, 160), **kw)
        except Exception as e:
            print('skip', vn, e, file=sys.stderr); continue
        a = ((np.arange(7*330).reshape(7, 330) // 7) * (i + 1.5) % 1000).astype(dt)
        v[:] = a
ds.close()
ds = netCDF4.Dataset(f'file://{p}#mode=nczarr,file')
for vn, v in ds.variables.items():
    out[vn] = np.asarray(v[:], dtype='f8').ravel().tolist()
print(json.dumps(out))
