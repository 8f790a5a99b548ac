"""A load client for `nctk serve` (standard library and netCDF4-python).

usage: serve_load.py PORT SERVER_PID NCFILE SECONDS CONNECTIONS

CONNECTIONS threads each keep one HTTP/1.1 connection busy for SECONDS
with a mix of requests to /cdmremote/load.nc: one in eight the whole
multi-MB variable `field`, the others a header, the small variable
`small`, or the CDL. One more client asks for `field` and reads its answer
a few bytes at a time for the whole run. Every answer's status is checked,
and every data answer's values against netCDF4-python's reading of NCFILE
(an uncompressed answer is one data message whose payload, the values
big-endian, ends it). The server's VmRSS is sampled every 50 ms.

Prints one JSON object: counts, failures (the first few), latencies in ms
(p50, p99, max; and of the busiest second), the largest gap between
completed requests while the slow client was connected, the slow client's
bytes read, and the peak RSS in KiB.
"""

import http.client
import json
import socket
import sys
import threading
import time

import netCDF4
import numpy as np

port, pid, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
seconds, connections = float(sys.argv[4]), int(sys.argv[5])

with netCDF4.Dataset(path) as d:
    d.set_auto_mask(False)
    expected = {
        "field": np.asarray(d["field"][:]).astype(">f4").tobytes(),
        "small": np.asarray(d["small"][:]).astype(">f8").tobytes(),
    }

REQUESTS = [
    ("data", "/cdmremote/load.nc?req=data&var=field"),
    ("header", "/cdmremote/load.nc?req=header"),
    ("small", "/cdmremote/load.nc?req=data&var=small"),
    ("cdl", "/cdmremote/load.nc?req=CDL"),
    ("small", "/cdmremote/load.nc?req=data&var=small"),
    ("header", "/cdmremote/load.nc?req=header"),
    ("small", "/cdmremote/load.nc?req=data&var=small"),
    ("cdl", "/cdmremote/load.nc?req=CDL"),
]
MAGIC = b"\xab\xec\xce\xba"  # a data message
HEADER_MAGIC = b"\xad\xec\xce\xda"  # a header message

lock = threading.Lock()
done = []  # (kind, start, seconds)
failures = []
stop_at = time.monotonic() + seconds


def check(kind, status, body):
    """Why an answer is wrong, or None."""
    if status != 200:
        return f"status {status}"
    if kind == "data":
        want = expected["field"]
    elif kind == "small":
        want = expected["small"]
    elif kind == "header":
        return None if body.startswith(HEADER_MAGIC) and b"field" in body else "bad header"
    else:
        return None if b"float field(" in body and b"double small(" in body else "bad CDL"
    if not body.startswith(MAGIC) or not body.endswith(want):
        return f"values differ ({len(body)} bytes, {len(want)} expected at the end)"
    return None


def worker(n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    i = n
    while time.monotonic() < stop_at:
        kind, target = REQUESTS[i % len(REQUESTS)]
        i += 1
        start = time.monotonic()
        try:
            conn.request("GET", target)
            resp = conn.getresponse()
            body = resp.read()
            why = check(kind, resp.status, body)
        except Exception as e:  # a failed request, recorded as one
            why = f"{type(e).__name__}: {e}"
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        took = time.monotonic() - start
        with lock:
            if why is None:
                done.append((kind, start, took))
            else:
                failures.append(f"{kind}: {why}")
    conn.close()


slow = {"bytes": 0, "connected": None, "left": None, "status": None}


def slow_client():
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(
        b"GET /cdmremote/load.nc?req=data&var=field HTTP/1.1\r\n"
        b"Host: 127.0.0.1\r\n\r\n"
    )
    slow["connected"] = time.monotonic()
    while time.monotonic() < stop_at:
        chunk = s.recv(16)
        if not chunk:
            break
        if slow["status"] is None:
            slow["status"] = chunk[9:12].decode("latin-1")
        slow["bytes"] += len(chunk)
        time.sleep(0.01)
    slow["left"] = time.monotonic()
    s.close()


rss = []


def sampler():
    while time.monotonic() < stop_at + 0.5:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss.append(int(line.split()[1]))
        except OSError:
            failures.append("server gone")
            return
        time.sleep(0.05)


threads = [threading.Thread(target=sampler), threading.Thread(target=slow_client)]
threads += [threading.Thread(target=worker, args=(n,)) for n in range(connections)]
started = time.monotonic()
for t in threads:
    t.start()
for t in threads:
    t.join()
elapsed = time.monotonic() - started


def ms(values, q):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))] * 1000, 1)


lat = [t for _, _, t in done]
ends = sorted(s + t for _, s, t in done if slow["connected"] <= s + t <= slow["left"])
gaps = [b - a for a, b in zip(ends, ends[1:])]
kinds = {}
for k, _, _ in done:
    kinds[k] = kinds.get(k, 0) + 1
large = [t for k, _, t in done if k == "data"]
small = [t for k, _, t in done if k != "data"]
print(
    json.dumps(
        {
            "requests": len(done),
            "kinds": kinds,
            "failed": len(failures),
            "failures": failures[:5],
            "seconds": round(elapsed, 1),
            "per_second": round(len(done) / elapsed, 1),
            "mb_per_second": round(kinds.get("data", 0) * len(expected["field"]) / elapsed / 1e6, 1),
            "p50_ms": ms(lat, 0.5),
            "p99_ms": ms(lat, 0.99),
            "max_ms": ms(lat, 1.0),
            "large_p50_ms": ms(large, 0.5),
            "large_p99_ms": ms(large, 0.99),
            "small_p50_ms": ms(small, 0.5),
            "small_p99_ms": ms(small, 0.99),
            "max_gap_ms": round(max(gaps, default=0) * 1000, 1),
            "slow_status": slow["status"],
            "slow_bytes": slow["bytes"],
            "slow_seconds": round((slow["left"] or 0) - (slow["connected"] or 0), 1),
            "rss_first_kib": rss[0] if rss else None,
            "rss_peak_kib": max(rss, default=None),
        }
    )
)
