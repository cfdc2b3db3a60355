"""The results journal of a campaign directory: ``meta.json`` (what the campaign is) and
``results.jsonl`` (one line per finished case, appended as buckets finish, flushed and fsynced).
``--resume`` reads it back: a torn last line (a run killed mid-write) is dropped and cut off, every
complete line counts as done, so nothing is redone and nothing is lost."""

import json
import os
import pathlib

IDENTITY = ("seed", "profile", "apis", "dtypes", "invalid_rate", "oracle_frac")


class Journal:
    def __init__(self, out, meta, resume=False):
        self.dir = pathlib.Path(out)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "results.jsonl"
        self.meta_path = self.dir / "meta.json"
        self.done = {}
        if resume and self.meta_path.exists():
            old = json.loads(self.meta_path.read_text())
            diff = [k for k in IDENTITY if old.get(k) != meta.get(k)]
            if diff:
                raise ValueError(
                    f"--resume: {self.dir} holds a different campaign ({', '.join(f'{k}={old.get(k)!r}' for k in diff)})"
                )
            self.done = read_results(self.path, repair=True)
        else:
            if self.path.exists():
                self.path.unlink()
        self.meta_path.write_text(json.dumps(meta, indent=1))
        self._f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115  (closed in close())

    def append(self, records):
        if not records:
            return
        self._f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self):
        self._f.close()


def read_results(path, repair=False):
    """{case index: record} of a results.jsonl; a torn last line is ignored (and, with
    ``repair``, cut off the file so appends start on a fresh line)."""
    path = pathlib.Path(path)
    out = {}
    if not path.exists():
        return out
    data = path.read_bytes()
    good_end = 0
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break  # no newline: torn
        line = data[pos:nl]
        try:
            rec = json.loads(line)
        except ValueError:
            break  # a torn line can only be the last one written
        out.setdefault(int(rec["i"]), rec)
        pos = nl + 1
        good_end = pos
    if repair and good_end < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_end)
    return out
