import netCDF4, numpy as np, sys
ds = netCDF4.Dataset(sys.argv[1], "w", format="NETCDF4")
ds.title = "groups, strings, fills"
ds.createDimension("time", None)
ds.createDimension("x", 5)
ds.createDimension("nchar", 4)
t = ds.createVariable("time", "f8", ("time",)); t.units = "days since 2000-01-01"; t.calendar="standard"
t[:] = np.arange(3)
v = ds.createVariable("temp", "f4", ("time", "x"), zlib=True, shuffle=True, complevel=4, chunksizes=(1, 5), fill_value=np.float32(-999.5))
v.units = "K"; v.scale_factor = np.float32(0.5); v.valid_range = np.array([0, 400], "f4")
v[0:2, :] = np.arange(10, dtype="f4").reshape(2, 5)
i = ds.createVariable("count", "i2", ("x",), fill_value=np.int16(-1)); i[:3] = [1, 2, 3]
s = ds.createVariable("names", str, ("x",)); s[0] = "alpha"; s[1] = "βeta"; s[4] = ""
c = ds.createVariable("code", "S1", ("x", "nchar")); c[:] = netCDF4.stringtochar(np.array(["ab", "cdef", "g", "", "xyz"], "S4"))
ds.createVariable("scalar", "i8").assignValue(7)
g = ds.createGroup("sub"); g.note = "in a group"; g.createDimension("y", 3)
w = g.createVariable("w", "u2", ("y", "x")); w[:] = np.arange(15).reshape(3, 5); w.long_name = "w in sub"
g.createVariable("ws", str, ("y",))[:] = np.array(["a", "bb", "ccc"], dtype=object)
ds.close()
