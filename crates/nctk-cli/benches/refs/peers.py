"""Times the peers making references for the files sys.argv[2:] combined
along time: kerchunk (SingleHdf5ToZarr + MultiZarrToZarr) or VirtualiZarr
(open_virtual_dataset with its HDF parser, concatenated, to kerchunk
JSON), sys.argv[1] naming which. Prints the seconds of the work alone
(imports excluded)."""
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
which, files = sys.argv[1], [os.path.abspath(f) for f in sys.argv[2:]]
if which == "kerchunk":
    from kerchunk.hdf import SingleHdf5ToZarr
    from kerchunk.combine import MultiZarrToZarr
    start = time.perf_counter()
    singles = [SingleHdf5ToZarr(f, inline_threshold=0).translate() for f in files]
    out = MultiZarrToZarr(singles, concat_dims=["time"]).translate()
    json.dumps(out)
else:
    import xarray as xr
    from obstore.store import LocalStore
    from virtualizarr import open_virtual_dataset
    from virtualizarr.parsers import HDFParser
    from virtualizarr.registry import ObjectStoreRegistry
    start = time.perf_counter()
    registry = ObjectStoreRegistry({"file://": LocalStore()})
    parser = HDFParser()
    vds = [open_virtual_dataset(f"file://{f}", registry=registry, parser=parser, loadable_variables=[]) for f in files]
    combined = xr.concat(vds, dim="time", coords="minimal", compat="override", combine_attrs="override")
    json.dumps(combined.vz.to_kerchunk(format="dict"))
print(time.perf_counter() - start)
