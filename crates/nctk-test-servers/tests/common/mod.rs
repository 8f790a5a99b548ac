//! What the test files share: urllib as the independent client.

use nctk_test_support::require;

/// urllib: for each argument `METHOD URL RANGE` (`RANGE` `-` for none),
/// one line: status, Content-Range, Content-Length, Accept-Ranges and the
/// body as hex; `short N` in place of the body when it ended after N
/// bytes, short of its declared length; `error CLASS` when reading it
/// failed otherwise; for an error status, the status, Content-Range and
/// the body as hex.
const URLLIB: &str = r#"
import sys, http.client, urllib.request, urllib.error
for arg in sys.argv[1:]:
    method, url, rng = arg.split(" ")
    headers = {} if rng == "-" else {"Range": rng}
    req = urllib.request.Request(url, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req) as r:
            h = r.headers
            head = f'{r.status} {h["Content-Range"]} {h["Content-Length"]} {h["Accept-Ranges"]}'
            try:
                print(head, r.read().hex())
            except http.client.IncompleteRead as e:
                print(head, "short", len(e.partial))
            except OSError as e:
                print(head, "error", type(e).__name__)
    except urllib.error.HTTPError as e:
        print(e.code, e.headers["Content-Range"], e.read().hex())
"#;

/// The lines [`URLLIB`] prints for `requests` (`(method, url, range)`),
/// or `None` after the skip rule when python3 is missing.
pub fn urllib(requests: &[(&str, String, &str)]) -> Option<Vec<String>> {
    let args = requests
        .iter()
        .map(|(m, url, range)| format!("{m} {url} {range}"));
    let out = require::python_output(&["urllib.request", "http.client"], URLLIB, args)?;
    Some(out.lines().map(str::to_owned).collect())
}

/// `bytes` as lowercase hex, as Python's `bytes.hex()`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A blob of `n` bytes that differ from their neighbours.
pub fn blob(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}
