"""siphon 0.11's decode of ncstream files, as JSON (the truth decode_corpus.rs
compares nctk's decode with). Usage: python3 -c SCRIPT FILE.ncs...

Each file gives a list of messages: a header as its variables (full path,
ncstream type with `unsigned` folded in, shape with `*` for a vlen
dimension, attribute values as siphon unpacks them, structure members); a
data message as its values, flattened. NaN is written as the string "NaN".
"""
import json
import math
import sys

import numpy as np
from siphon.cdmr import ncStream_pb2 as stream
from siphon.cdmr.ncstream import data_type_to_numpy, read_ncstream_messages, unpack_attribute

UNSIGNED = {"BYTE": "UBYTE", "SHORT": "USHORT", "INT": "UINT", "LONG": "ULONG"}


def plain(x):
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    if isinstance(x, bytes):
        return x.hex()
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x.tolist()]
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x


def att_values(att):
    _, val = unpack_attribute(att)
    if val is None:
        return []
    if isinstance(val, (str, bytes)):
        val = [val]
    elif isinstance(val, np.ndarray):
        if val.dtype.kind == "S":
            return [val.tobytes().decode("latin-1")]
        val = val.reshape(-1).tolist()
    elif isinstance(val, np.generic):
        val = [val.item()]
    else:
        val = list(val)
    return [v.decode("latin-1") if isinstance(v, bytes) else plain(v) for v in val]


def type_name(dtype, unsigned):
    name = stream.DataType.Name(dtype)
    return UNSIGNED.get(name, name) if unsigned else name


def is_unsigned(v):
    # the old flag makes the type unsigned unless an _Unsigned attribute
    # travels with it (then the signed type and the attribute, as netCDF-C)
    return v.unsigned and not any(a.name == "_Unsigned" for a in v.atts)


def shape(dims):
    return ["*" if d.isVlen else d.length for d in dims]


def members(s):
    out = [{"name": v.name, "type": type_name(v.dataType, is_unsigned(v)), "shape": shape(v.shape)}
           for v in s.vars]
    out += [{"name": c.name, "type": "STRUCTURE", "shape": shape(c.shape), "members": members(c)}
            for c in s.structs]
    return out


def immediate(v):
    dt = data_type_to_numpy(v.dataType, is_unsigned(v)).newbyteorder(">")
    return plain(np.frombuffer(v.data, dtype=dt))


def group(g, prefix, out):
    for v in g.vars:
        item = {
            "path": prefix + v.name,
            "type": type_name(v.dataType, is_unsigned(v)),
            "shape": shape(v.shape),
            "atts": {a.name: att_values(a) for a in v.atts},
        }
        if v.data:
            item["immediate"] = immediate(v)
        out.append(item)
    for s in g.structs:
        out.append({
            "path": prefix + s.name,
            "type": stream.DataType.Name(s.dataType),
            "shape": shape(s.shape),
            "atts": {a.name: att_values(a) for a in s.atts},
            "members": members(s),
        })
    for a in g.atts:
        out.append({"path": prefix + "@" + a.name, "values": att_values(a)})
    for c in g.groups:
        group(c, prefix + c.name + "/", out)


def data(arr):
    if arr.dtype.names == ("<",) or arr.dtype.names == (">",):
        rows = arr.reshape(-1)
        return {"rows": [bytes(r[0]).hex() for r in rows], "big_endian": arr.dtype.names == (">",)}
    if arr.dtype.names:
        flat = arr.reshape(-1)
        return {"fields": {n: plain(flat[n].reshape(-1)) for n in arr.dtype.names}}
    if arr.dtype.kind == "S":
        return {"values": arr.tobytes().hex()}
    if arr.dtype == object:
        return {"values": [plain(v) for v in arr.reshape(-1)]}
    return {"values": plain(arr.reshape(-1))}


result = {}
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        msgs = read_ncstream_messages(f)
    out = []
    for m in msgs:
        if isinstance(m, stream.Header):
            items = []
            group(m.root, "", items)
            out.append({"header": items})
        else:
            out.append({"data": data(np.asarray(m))})
    result[path] = out
print(json.dumps(result))
