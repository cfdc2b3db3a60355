"""The results journal of a campaign directory: ``meta.json`` (what the campaign is) and
``results.jsonl`` (one line per finished case, appended as buckets finish, flushed and fsynced).
``--resume`` reads it back: a torn last line (a run killed mid-write) is dropped and cut off, every
complete line counts as done, so nothing is redone and nothing is lost. A damaged line anywhere
else (not the torn tail of a killed run) is an error naming the file and line: the journal is never
silently truncated there. A directory that already holds a campaign is only reused with
``resume`` (continue it) or ``force`` (start afresh)."""

import json
import os
import pathlib

# "shard": [process id, number of processes] of one process's journal in a --distributed campaign
# "ub_generator": how the cases' UB bytes are drawn (``families.base.UB_GENERATOR``; absent: 1);
# "case_generator": how the cases are drawn (``generate.CASE_GENERATOR``; absent: 1)
IDENTITY = (
    "seed",
    "profile",
    "apis",
    "dtypes",
    "invalid_rate",
    "oracle_frac",
    "shard",
    "ub_generator",
    "case_generator",
)
_RECORD_KEYS = ("i", "api", "status", "kind")


class JournalError(ValueError):
    """A campaign directory that cannot be used as asked (bad input: the CLI exits with 2)."""


class Journal:
    def __init__(self, out, meta, resume=False, force=False):
        self.dir = pathlib.Path(out)
        if self.dir.exists() and not self.dir.is_dir():
            raise JournalError(f"{self.dir}: --out must be a directory, and this is a file")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "results.jsonl"
        self.meta_path = self.dir / "meta.json"
        self.done = {}
        holds = self.path.exists() or self.meta_path.exists()
        if resume and self.meta_path.exists():
            try:
                old = json.loads(self.meta_path.read_text())
                if not isinstance(old, dict):
                    raise ValueError("not a JSON object")
            except ValueError as e:
                raise JournalError(f"{self.meta_path}: not a campaign meta.json ({e})") from None
            diff = [k for k in IDENTITY if old.get(k) != meta.get(k)]
            if diff:
                raise JournalError(
                    f"--resume: {self.dir} holds a different campaign "
                    f"({', '.join(f'{k}={old.get(k)!r}' for k in diff)})"
                )
            self.done = read_results(self.path, repair=True)
            # new records use the digest version the journal's records have (absent: 1)
            meta["digest_version"] = old.get("digest_version", 1)
            # the campaign's size is the larger of the recorded one and the one asked for now
            # (a --resume with fewer cases keeps every finished case and says so in meta.json)
            meta["cases"] = max(int(meta["cases"]), int(old.get("cases", 0)), len(self.done))
        elif resume and self.path.exists():
            raise JournalError(
                f"--resume: {self.dir} has results.jsonl but no meta.json; cannot tell its campaign"
            )
        elif holds and not force and not resume:
            raise JournalError(
                f"{self.dir} already holds a campaign (meta.json/results.jsonl); "
                "pass --resume to continue it or --force to replace it"
            )
        elif self.path.exists():
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


def _check_record(rec, path, lineno):
    if not isinstance(rec, dict):
        raise JournalError(f"{path}:{lineno}: a record must be a JSON object, got {type(rec).__name__}")
    missing = [k for k in _RECORD_KEYS if k not in rec]
    if missing:
        raise JournalError(f"{path}:{lineno}: record lacks field(s) {', '.join(missing)}")
    i = rec["i"]
    if isinstance(i, bool) or not isinstance(i, int) or i < 0:
        raise JournalError(f"{path}:{lineno}: field 'i' must be a case index >= 0, got {i!r}")
    return i


def read_results(path, repair=False):
    """{case index: record} of a results.jsonl; a torn last line (no final newline: a run killed
    mid-write) is ignored (and, with ``repair``, cut off the file so appends start on a fresh
    line). Any other unreadable line raises ``JournalError`` naming the file and line."""
    path = pathlib.Path(path)
    out = {}
    if not path.exists():
        return out
    data = path.read_bytes()
    good_end = 0
    pos = 0
    lineno = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        lineno += 1
        if nl < 0:
            break  # no newline: torn (the only place a killed run can leave damage)
        line = data[pos:nl]
        try:
            rec = json.loads(line)
        except ValueError:
            raise JournalError(
                f"{path}:{lineno}: not a JSON record (a damaged journal; only an unterminated last "
                "line is repaired by --resume)"
            ) from None
        out.setdefault(_check_record(rec, path, lineno), rec)
        pos = nl + 1
        good_end = pos
    if repair and good_end < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_end)
    return out
