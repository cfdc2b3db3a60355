"""``FuzzResult`` (summary and coverage tables, mismatches, capsules, JSON, HTML) and the progress
bar."""

import collections
import dataclasses
import html
import json
import sys
import textwrap
import time

STATUSES = ("ok", "unchecked", "rejected", "mismatch", "error")


def table(rows, headers, right=(), width=100):
    """A text table at most ``width`` columns wide where it can be: the widest text columns are
    narrowed and their cells wrapped onto continuation lines (words are never split)."""
    rows = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def longest_word(i):
        return max([len(h) for h in [headers[i]]] + [len(w) for r in rows for w in r[i].split()] + [1])

    floor = [longest_word(i) if i not in right else widths[i] for i in range(len(headers))]
    while sum(widths) + 2 * (len(widths) - 1) > width:
        i = max(range(len(widths)), key=lambda j: widths[j] - floor[j])
        if widths[i] <= floor[i]:
            break
        widths[i] -= 1

    def fmt(r):
        cells = [
            textwrap.wrap(c, w, break_on_hyphens=False) or [""] if len(c) > w else [c]
            for c, w in zip(r, widths, strict=True)
        ]
        out = []
        for k in range(max(len(c) for c in cells)):
            parts = [
                (c[k] if k < len(c) else "").rjust(w) if i in right else (c[k] if k < len(c) else "").ljust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ]
            out.append("  ".join(parts).rstrip())
        return "\n".join(out)

    line = fmt(headers)
    return "\n".join([line, "-" * len(line)] + [fmt(r) for r in rows])


@dataclasses.dataclass
class FuzzResult:
    meta: dict
    records: list  # one dict per case, by index
    not_fuzzed: dict  # api -> reason
    capsules: list  # capsule dicts (with "path" when written)
    seconds: float = 0.0
    run_seconds: float = 0.0
    resumed: int = 0
    new_cases: int = 0
    fast_cases_per_s: float | None = None  # fast path, steady state (each signature's first chunk apart)
    compile_seconds: float = 0.0  # first chunks' time beyond their steady-state cost
    oracle_cases_per_s: float | None = None  # the reference, on the cases it checked
    # where the campaign's main thread spent its seconds (drawing cases, the fast path's inputs and
    # dispatch incl. loading or compiling programs, waiting for it, the reference, the invalid-static
    # checks, digests and records); the fast path's own compute overlaps with the reference
    time_shares: dict = dataclasses.field(default_factory=dict)

    @property
    def mismatches(self):
        return [r for r in self.records if r["status"] in ("mismatch", "error")]

    @property
    def checked(self):
        """Cases compared with the reference (ok, rejected by both, or mismatching)."""
        return sum(r["status"] in ("ok", "mismatch", "rejected") for r in self.records)

    @property
    def ok(self):
        """No mismatch, and at least one case was checked (a campaign that checked nothing is not
        a pass)."""
        return not self.mismatches and self.checked > 0

    def counts(self):
        return collections.Counter(r["status"] for r in self.records)

    def per_api(self):
        rows = {}
        for r in self.records:
            row = rows.setdefault(r["api"], collections.Counter())
            row["cases"] += 1
            row[r["status"]] += 1
            row["checked"] += r["status"] in ("ok", "mismatch", "rejected")
            row["faulted"] += bool(r.get("fault") or r.get("ref_fault"))
            row["warned"] += bool(r.get("warn") or r.get("ref_warn"))  # checker warnings
            row["invalid"] += r["kind"] != "valid"
            row["dtypes"] += 0
        return rows

    def coverage(self):
        """{(api, dtype, mask kind, repeat regime, stride regime): cases} of the cases that ran
        (deliberately invalid static calls are rejected before running: not counted)."""
        c = collections.Counter()
        for r in self.records:
            if r["kind"] == "invalid-static":
                continue
            c[(r["api"], r["dtype"]) + tuple(r["labels"])] += 1
        return c

    # -- text
    def summary_table(self):
        m = self.meta
        n = len(self.records)
        cps = self.new_cases / self.run_seconds if self.run_seconds else 0.0
        head = (
            f"ascend_jax differential campaign on {m['profile']}: {n} cases (seed {m['seed']}), "
            f"{len(self.mismatches)} mismatches; fast JAX path vs NumPy reference on UB bytes, vmask, "
            f"mask_mode, cmpmask, ctrl, rsvd_cnt, fault bits and return values"
        )
        timing = (
            f"{self.new_cases} cases run in {self.run_seconds:.1f} s ({cps:,.0f} cases/s overall: fast path, "
            f"reference and compilation together"
            + (
                f"; fast path {self.fast_cases_per_s:,.0f} cases/s, compilation {self.compile_seconds:.1f} s"
                if self.fast_cases_per_s
                else "; fast path: one chunk per signature, its rate is not separable from compilation"
            )
            + (f", reference {self.oracle_cases_per_s:,.0f} cases/s" if self.oracle_cases_per_s else "")
            + ")"
            + (f", {self.resumed} resumed from the journal" if self.resumed else "")
            + f"; oracle share {m['oracle_frac']:.3g}, invalid share {m['invalid_rate']:.3g}"
        )
        if self.time_shares:
            timing += "; main thread: " + ", ".join(
                f"{k} {v:.1f} s" for k, v in sorted(self.time_shares.items(), key=lambda kv: -kv[1])
            )
        rows = []
        tot = collections.Counter()
        for api, c in sorted(self.per_api().items()):
            rows.append(
                [
                    api,
                    c["cases"],
                    c["checked"],
                    c["unchecked"],
                    c["faulted"],
                    c["warned"],
                    c["invalid"],
                    c["rejected"],
                    c["mismatch"] + c["error"],
                ]
            )
            tot.update(c)
        rows.append(
            [
                "TOTAL",
                tot["cases"],
                tot["checked"],
                tot["unchecked"],
                tot["faulted"],
                tot["warned"],
                tot["invalid"],
                tot["rejected"],
                tot["mismatch"] + tot["error"],
            ]
        )
        hdr = ["API", "cases", "checked", "unchecked", "faulted", "warned", "invalid", "rejected", "mismatch"]
        out = [textwrap.fill(head, 100), textwrap.fill(timing, 100), "", table(rows, hdr, right=range(1, 9))]
        if self.not_fuzzed:
            out += ["", "not fuzzed:"] + [f"  {a}: {why}" for a, why in sorted(self.not_fuzzed.items())]
        for r in self.mismatches[:20]:
            out.append(f"MISMATCH case {r['i']} {r['api']}<{r['dtype']}> [{r['kind']}]: {r.get('diff')}")
        for c in self.capsules:
            out.append(f"capsule: {c.get('path', '(in memory)')}  {c['call']}")
        return "\n".join(out)

    def coverage_table(self):
        """One row per (API, dtype): the cases per mask kind, repeat regime and stride regime."""
        agg = {}
        for (api, dt, mk, rr, sr), n in self.coverage().items():
            a = agg.setdefault(
                (api, dt), [collections.Counter(), collections.Counter(), collections.Counter(), 0]
            )
            a[0][mk] += n
            a[1][rr] += n
            a[2][sr] += n
            a[3] += n

        def cell(c):
            return " ".join(f"{k}:{v}" for k, v in sorted(c.items()))

        rows = [[api, dt, a[3], cell(a[0]), cell(a[1]), cell(a[2])] for (api, dt), a in sorted(agg.items())]
        combos = len(self.coverage())
        return (
            f"coverage: API x dtype x mask kind x repeat regime x stride regime ({combos} combinations)\n"
            + table(rows, ["API", "dtype", "cases", "mask kind", "repeats", "strides"], right=(2,))
        )

    def __str__(self):
        return self.summary_table() + "\n\n" + self.coverage_table()

    # -- JSON / HTML
    def to_dict(self):
        return {
            "meta": self.meta,
            "cases": len(self.records),
            "counts": dict(self.counts()),
            "seconds": self.seconds,
            "run_seconds": self.run_seconds,
            "fast_cases_per_s": self.fast_cases_per_s,
            "compile_seconds": self.compile_seconds,
            "oracle_cases_per_s": self.oracle_cases_per_s,
            "time_shares": self.time_shares,
            "resumed": self.resumed,
            "per_api": {a: dict(c) for a, c in self.per_api().items()},
            "not_fuzzed": self.not_fuzzed,
            "coverage": [
                {"api": k[0], "dtype": k[1], "mask": k[2], "repeat": k[3], "stride": k[4], "cases": n}
                for k, n in sorted(self.coverage().items())
            ],
            "mismatches": self.mismatches,
            "capsules": [
                {"path": c.get("path"), "call": c["call"], "index": c.get("index")} for c in self.capsules
            ],
        }

    def to_json(self, **kw):
        return json.dumps(self.to_dict(), **kw)

    def _repr_html_(self):
        rows = "".join(
            f"<tr><td>{html.escape(a)}</td>"
            + "".join(f"<td>{c[k]}</td>" for k in ("cases", "checked", "faulted", "rejected"))
            + f"<td>{c['mismatch'] + c['error']}</td></tr>"
            for a, c in sorted(self.per_api().items())
        )
        caption = html.escape(
            f"{self.meta['profile']}: {len(self.records)} cases, {len(self.mismatches)} mismatches"
        )
        return (
            f"<table><caption>{caption}</caption><tr><th>API</th><th>cases</th><th>checked</th>"
            f"<th>faulted</th><th>rejected</th><th>mismatch</th></tr>{rows}</table>"
        )


class Progress:
    """Progress on stderr: a one-line bar with cases/s on a terminal; elsewhere (a log file, a CI
    job) a plain line every ``every`` seconds, so a long non-TTY run is never silent."""

    def __init__(self, total, enabled=False, stream=None, every=5.0):
        self.total, self.enabled, self.n = total, enabled, 0
        self.stream = stream or sys.stderr
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False
        self.every = every if not self.tty else 0.2
        self.t0 = time.perf_counter()
        self._last = self.t0 if not self.tty else 0.0

    def update(self, k):
        self.n += k
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < self.every and (self.n < self.total or not self.tty):
            return
        self._last = now
        dt = max(now - self.t0, 1e-9)
        if not self.tty:
            self.stream.write(f"progress: {self.n}/{self.total} cases, {self.n / dt:,.0f} cases/s\n")
            self.stream.flush()
            return
        frac = self.n / max(self.total, 1)
        bar = "#" * int(30 * frac)
        self.stream.write(f"\r[{bar:<30}] {self.n}/{self.total} cases  {self.n / dt:,.0f} cases/s  ")
        self.stream.flush()

    def close(self):
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
