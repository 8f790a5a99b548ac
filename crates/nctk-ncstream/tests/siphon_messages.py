# Prints, one JSON object a line, what siphon 0.11 decodes from an ncstream
# file (sys.argv[1]): the header (as protobuf's JSON mapping), each data
# message's name, section and values as siphon's read_ncstream_data returns
# them, error messages. Used by the nctk-ncstream and nctk-cli tests of
# what nctk writes. Numbers are printed as strings (Python's str/repr) so
# NaN, infinities and 64-bit integers survive JSON.
import json
import sys

import numpy as np
from google.protobuf.json_format import MessageToDict
from siphon.cdmr import ncstream as nc

MAGIC_START = b"CDFS"
MAGIC_END = b"\xed\xed\xde\xde"


def number(x):
    if isinstance(x, (bytes, np.bytes_)):
        return x.hex()
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    return str(int(x))


def plain(arr):
    if isinstance(arr, str):
        return {"objects": [arr]}
    if isinstance(arr, (list, tuple)) or type(arr).__name__ == "RepeatedScalarContainer":
        return {"objects": list(arr)}
    arr = np.asarray(arr)
    if arr.dtype.kind == "S":
        return {"chars": b"".join(arr.ravel().tolist()).hex()}
    if arr.dtype.kind == "O":
        out = []
        for x in arr.ravel():
            if isinstance(x, str):
                out.append(x)
            elif isinstance(x, bytes):
                out.append(x.hex())
            else:
                out.append([number(v) for v in np.asarray(x).ravel()])
        return {"objects": out}
    return {"numbers": [number(v) for v in arr.ravel()]}


def find_struct(group, name):
    for s in group.structs:
        if s.name == name:
            return s
    for g in group.groups:
        found = find_struct(g, name.split("/", 1)[-1] if "/" in name else name)
        if found is not None:
            return found
    return None


def struct_fields(rows, prefix, out):
    for name in rows.dtype.names:
        col = rows[name]
        if col.dtype.names:
            struct_fields(col, prefix + name + ".", out)
        else:
            out[prefix + name] = [number(v) for v in col.ravel()]


def attributes(group, path, out):
    for att in group.atts:
        name, value = nc.unpack_attribute(att)
        out.append([path, name, None if value is None else plain(value)])
    for var in list(group.vars) + list(group.structs):
        for att in var.atts:
            name, value = nc.unpack_attribute(att)
            out.append([path + var.name, name, None if value is None else plain(value)])
    for g in group.groups:
        attributes(g, path + g.name + "/", out)


header = None
with open(sys.argv[1], "rb") as f:
    while True:
        magic = f.read(4)
        if not magic:
            break
        if magic in (MAGIC_START, MAGIC_END):
            print(json.dumps({"kind": magic.hex()}))
            continue
        if magic == nc.MAGIC_HEADER:
            header = nc.read_proto_object(f, nc.stream.Header)
            atts = []
            attributes(header.root, "", atts)
            print(json.dumps({"kind": "header", "header": MessageToDict(header), "attributes": atts}))
        elif magic == nc.MAGIC_DATA:
            at = f.tell()
            data = nc.read_proto_object(f, nc.stream.Data)
            f.seek(at)
            values = nc.read_ncstream_data(f)
            item = {
                "kind": "data",
                "var": data.varName,
                "bigend": data.bigend,
                "version": data.version,
                "compress": data.compress,
                "section": [[r.start, r.size, r.stride] for r in data.section.range],
            }
            if data.dataType == nc.stream.STRUCTURE:
                s = find_struct(header.root, data.varName)
                dt = nc.struct_to_dtype(s).newbyteorder(">" if data.bigend else "<")
                rows = np.frombuffer(values.tobytes(), dtype=dt)
                fields = {}
                struct_fields(rows, "", fields)
                item["fields"] = fields
            else:
                item.update(plain(values))
            print(json.dumps(item))
        elif magic == nc.MAGIC_ERR:
            err = nc.read_proto_object(f, nc.stream.Error)
            print(json.dumps({"kind": "error", "message": err.message}))
        else:
            print(json.dumps({"kind": "unknown", "magic": magic.hex()}))
            break
