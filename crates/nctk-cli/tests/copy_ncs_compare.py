# Compares ncstreams nctk wrote with the datasets they were copied from:
# siphon 0.11 decodes each stream (through siphon_messages.py, whose
# directory is sys.argv[1]) and the Python netCDF4 library (netCDF-C) reads
# the input; every data message's values must equal the input's values in
# the message's section, the messages must cover every value of every
# variable, and the header's dimensions must be the input's. The remaining arguments are pairs: input, stream. Prints one
# JSON object: {"messages": N, "variables": N, "problems": [...]}.
import json
import sys

import netCDF4
import numpy as np

sys.path.insert(0, sys.argv[1])
import siphon_messages  # noqa: E402


def unescape_path(name):
    parts, cur, chars = [], "", iter(name.lstrip("/"))
    for c in chars:
        if c == "\\":
            cur += next(chars, "")
        elif c == "/":
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def variable(ds, name):
    parts = unescape_path(name)
    g = ds
    for p in parts[:-1]:
        g = g.groups[p]
    v = g.variables[parts[-1]]
    v.set_auto_maskandscale(False)
    if v.dtype == "S1" or getattr(v.dtype, "kind", "") == "S":
        v.set_auto_chartostring(False)
    return v


def all_variables(group, prefix=""):
    for v in group.variables.values():
        yield v
    for g in group.groups.values():
        yield from all_variables(g)


def full_name(v):
    path = v.group().path.strip("/")
    esc = lambda s: s.replace("\\", "\\\\").replace(".", "\\.")
    parts = [esc(p) for p in path.split("/") if p] + [esc(v.name)]
    return "/".join(parts)


def same_numbers(a, b):
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.dtype.kind == "S" or b.dtype.kind == "S":
        # char arrays: netCDF4 may join the last dimension (S3 for S1 x 3).
        return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        return a.tolist() == b.tolist()
    return np.array_equal(a.astype("f8"), b.astype("f8"), equal_nan=True)


def fields(rows, prefix=""):
    for name in rows.dtype.names:
        col = rows[name]
        if col.dtype.names:
            yield from fields(col, prefix + name + ".")
        else:
            yield prefix + name, col


def column(truth, path):
    for part in path.split("."):
        truth = truth[part]
    return truth


def same(truth, item):
    got = item["array"]
    if "rows" in item:
        # siphon keeps no string heap: string members are not compared.
        heap = item["heap_members"]
        return all(
            same_numbers(column(truth, f), col)
            for f, col in fields(item["rows"])
            if f not in heap
        )
    truth = np.asarray(truth)
    flat_t, flat_g = truth.ravel(), np.asarray(got).ravel()
    if len(flat_t) != len(flat_g):
        return False
    if truth.dtype.kind == "S":
        return b"".join(flat_t.tolist()) == b"".join(flat_g.tolist())
    if truth.dtype.kind == "V":
        return [bytes(x) for x in flat_t] == [bytes(x) for x in flat_g]
    if truth.dtype.kind in "OU":
        for t, g in zip(flat_t, flat_g):
            if isinstance(t, str) or isinstance(g, str):
                if t != g:
                    return False
            elif not same_numbers(t, g):
                return False
        return True
    return same_numbers(truth, got)


def check_dims(proto_group, group, stream, problems):
    """The header's dimensions are the input's, unlimited ones at their length."""
    names = [d.name for d in proto_group.dims]
    if sorted(names) != sorted(group.dimensions):
        problems.append(f"{stream}: dimensions {names}, input has {list(group.dimensions)}")
    for d in proto_group.dims:
        dim = group.dimensions.get(d.name)
        if dim is not None and (d.length != len(dim) or d.isUnlimited != dim.isunlimited()):
            problems.append(f"{stream}: dimension {d.name} {d.length} {d.isUnlimited}")
    for g in proto_group.groups:
        check_dims(g, group.groups[g.name], stream, problems)


problems, n_messages, n_vars = [], 0, 0
pairs = sys.argv[2:]
for source, stream in zip(pairs[0::2], pairs[1::2]):
    ds = netCDF4.Dataset(source)
    covered = {}
    for item in siphon_messages.messages(stream):
        if item["kind"] in ("error", "unknown"):
            problems.append(f"{stream}: {item}")
            continue
        if item["kind"] == "header":
            check_dims(item["proto"].root, ds, stream, problems)
        if item["kind"] != "data":
            continue
        n_messages += 1
        name = item["var"]
        v = variable(ds, name)
        sel = tuple(slice(s, s + (n - 1) * d + 1, d) for s, n, d in item["section"])
        truth = v[sel] if sel else v[...]
        if not same(truth, item):
            problems.append(f"{stream}: {name} {item['section']}: siphon read values other than the input's")
        covered[name] = covered.get(name, 0) + int(np.prod([r[1] for r in item["section"]]))
        if item.get("inflated") is not None and item["inflated"] != item["uncompressedSize"]:
            problems.append(f"{stream}: {name}: inflates to {item['inflated']}, says {item['uncompressedSize']}")
    for v in all_variables(ds):
        n_vars += 1
        size = int(np.prod(v.shape))
        if size and covered.get(full_name(v), 0) != size:
            problems.append(f"{stream}: {full_name(v)}: {covered.get(full_name(v), 0)} of {size} values sent")
    ds.close()
print(json.dumps({"messages": n_messages, "variables": n_vars, "problems": problems}))
