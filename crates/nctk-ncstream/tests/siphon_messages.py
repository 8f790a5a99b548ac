# Prints, one JSON object a line, what siphon 0.11 decodes from an ncstream
# file (sys.argv[1]): the header (as protobuf's JSON mapping), each data
# message's name, section and values as siphon's read_ncstream_data returns
# them (a deflated one also with the size Python's zlib inflates it to),
# error messages. Used by the nctk-ncstream tests of what nctk writes, and
# imported (`messages`) by the nctk-cli ones. Numbers are printed as strings
# (Python's str/repr) so NaN, infinities and 64-bit integers survive JSON.
import json
import sys
import zlib

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


def struct_dtype(struct, byteorder):
    """The rows of a structure as numpy reads them: siphon's types for the
    members, their shapes from the header (siphon's struct_to_dtype drops
    them), a string member as its 4-byte heap index."""
    fields = []
    for var in struct.vars:
        shape = tuple(d.length for d in var.shape)
        if var.dataType == nc.stream.STRING:
            dt = np.dtype("i4")
        else:
            dt = nc.data_type_to_numpy(var.dataType, var.unsigned)
        fields.append((str(var.name), dt.newbyteorder(byteorder), shape))
    for s in struct.structs:
        shape = tuple(d.length for d in s.shape)
        fields.append((str(s.name), struct_dtype(s, byteorder), shape))
    return np.dtype(fields)


def string_members(struct, prefix=""):
    out = [prefix + v.name for v in struct.vars if v.dataType == nc.stream.STRING]
    for s in struct.structs:
        out += string_members(s, prefix + s.name + ".")
    return out


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


def messages(path):
    """Yields one dict a message; a data message's also holds siphon's
    array ("array") and, for a structure, its rows decoded with the
    header's member types ("rows")."""
    header = None
    with open(path, "rb") as f:
        while True:
            magic = f.read(4)
            if not magic:
                break
            if magic in (MAGIC_START, MAGIC_END):
                yield {"kind": magic.hex()}
            elif magic == nc.MAGIC_HEADER:
                header = nc.read_proto_object(f, nc.stream.Header)
                atts = []
                attributes(header.root, "", atts)
                yield {"kind": "header", "proto": header, "attributes": atts}
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
                    "array": values,
                }
                if data.compress:
                    # Python's zlib on the deflated bytes: the size it inflates to.
                    end = f.tell()
                    f.seek(at)
                    nc.read_proto_object(f, nc.stream.Data)
                    item["inflated"] = len(zlib.decompress(nc.read_block(f)))
                    item["uncompressedSize"] = data.uncompressedSize
                    f.seek(end)
                if data.dataType == nc.stream.STRUCTURE:
                    s = find_struct(header.root, data.varName)
                    dt = struct_dtype(s, ">" if data.bigend else "<")
                    item["rows"] = np.frombuffer(values.tobytes(), dtype=dt)
                    item["heap_members"] = string_members(s)
                yield item
            elif magic == nc.MAGIC_ERR:
                err = nc.read_proto_object(f, nc.stream.Error)
                yield {"kind": "error", "message": err.message}
            else:
                yield {"kind": "unknown", "magic": magic.hex()}
                break


def main(path):
    for item in messages(path):
        if item["kind"] == "header":
            item["header"] = MessageToDict(item.pop("proto"))
        elif item["kind"] == "data":
            values = item.pop("array")
            rows = item.pop("rows", None)
            item.pop("heap_members", None)
            if rows is not None:
                fields = {}
                struct_fields(rows, "", fields)
                item["fields"] = fields
            else:
                item.update(plain(values))
        print(json.dumps(item))


if __name__ == "__main__":
    main(sys.argv[1])
