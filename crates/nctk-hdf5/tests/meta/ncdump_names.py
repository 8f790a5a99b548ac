# Prints, for each netCDF-4 file named on the command line, what netCDF-C's
# `ncdump -h` lists in each group: attribute names in order, variables with
# their attribute names in order, subgroups and user types. The truth of
# meta_corpus.rs. Usage: python3 ncdump_names.py FILE...
import json
import re
import subprocess
import sys

TOKEN = r"(?:\\.|[^\s:\\(])+"
ATTR = re.compile(rf"^(?:(?P<pre>{TOKEN}) )?(?P<var>{TOKEN})? *:(?P<att>{TOKEN}) = ")
VAR = re.compile(rf"^{TOKEN}(?:\(\*\))? ({TOKEN})(?:\(.*\))? ;$")
TYPES = [
    re.compile(rf"^compound ({TOKEN}) \{{"),
    re.compile(rf"^{TOKEN} enum ({TOKEN}) \{{"),
    re.compile(rf"^opaque\(\d+\) ({TOKEN}) ;"),
    re.compile(rf"^{TOKEN}\(\*\) ({TOKEN}) ;"),
]


def unescape(name):
    return re.sub(r"\\(.)", r"\1", name)


def parse(text):
    groups = {}
    stack = ["/"]
    section = None
    skip_until = None

    def cur():
        return groups.setdefault(stack[-1], {"attrs": [], "vars": {}, "groups": [], "types": []})

    cur()
    for raw in text.splitlines()[1:]:
        line = raw.strip()
        if skip_until is not None:
            if line.startswith(skip_until):
                skip_until = None
            continue
        m = re.match(rf"^group: ({TOKEN}) \{{$", line)
        if m:
            name = unescape(m.group(1))
            cur()["groups"].append(name)
            stack.append(stack[-1].rstrip("/") + "/" + name)
            cur()
            section = None
            continue
        if line.startswith("} // group "):
            stack.pop()
            continue
        if line in ("types:", "dimensions:", "variables:"):
            section = line[:-1]
            continue
        if line in ("// global attributes:", "// group attributes:"):
            section = "attributes"
            continue
        if section == "types":
            for t in TYPES:
                m = t.match(line)
                if m:
                    cur()["types"].append(unescape(m.group(1)))
                    if line.endswith("{"):
                        skip_until = "}"
                    break
            continue
        if section in ("variables", "attributes"):
            if line[:1] in ('"', "{") or line[:1].isdigit() or line[:1] == "-":
                continue
            m = ATTR.match(line)
            if m:
                # "data :units" (a space before the colon) reads as a typed
                # global attribute; in the variables section it is data's.
                var = m["var"] or (m["pre"] if section == "variables" else None)
                var = unescape(var) if var else None
                name = unescape(m["att"])
                if var is None:
                    cur()["attrs"].append(name)
                else:
                    cur()["vars"][var].append(name)
                continue
            m = VAR.match(line)
            if m and section == "variables":
                cur()["vars"][unescape(m.group(1))] = []
    for g in groups.values():
        g["types"].sort()
    return groups


result = {}
for path in sys.argv[1:]:
    run = subprocess.run(["ncdump", "-h", path], capture_output=True, text=True, errors="replace")
    if run.returncode != 0:
        result[path] = {"error": run.stderr}
    else:
        result[path] = parse(run.stdout)
json.dump(result, sys.stdout)
