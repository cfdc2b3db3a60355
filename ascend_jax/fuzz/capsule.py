"""Repro capsules: one self-contained JSON file per (shrunk) failing case -- versions, profile,
the API call as text, the case parameters, the initial state (inputs), the reference's result
(expected), the fast path's (got) and the first differing bytes. ``replay`` re-runs one."""

import base64
import json
import pathlib
import platform

import numpy as np

from ..errors import describe_faults
from ..profile import as_profile
from . import compare as CMP
from . import runner as RUN
from .families import family_of
from .shrink import shrink_case

FORMAT = "ascend_jax.capsule/1"


def versions():
    import jax
    import jaxlib

    from .. import __version__

    return {
        "ascend_jax": __version__,
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def _b64(a):
    return base64.b64encode(np.ascontiguousarray(a, np.uint8).tobytes()).decode()


def _unb64(s):
    return np.frombuffer(base64.b64decode(s), np.uint8).copy()


def fields_json(f):
    return {
        "ub": _b64(f["ub"]),
        "vmask": [int(x) for x in np.ravel(f["vmask"])],
        "mask_mode": int(f["mask_mode"]),
        "cmpmask": [int(x) for x in np.ravel(f["cmpmask"])],
        "ctrl": [int(x) for x in np.ravel(f["ctrl"])],
        "rsvd_cnt": int(f["rsvd_cnt"]),
        "fault": int(f.get("fault", 0)),
        # the special registers (DEQSCALE, the reduce results), where the state carries them
        **{k: [int(x) for x in np.ravel(f[k])] for k in CMP.SPECIAL_FIELDS if f.get(k) is not None},
    }


def fields_from_json(d):
    out = {
        "ub": _unb64(d["ub"]),
        "vmask": np.array(d["vmask"], np.uint32),
        "mask_mode": np.int32(d["mask_mode"]),
        "cmpmask": np.array(d["cmpmask"], np.uint32),
        "ctrl": np.array(d["ctrl"], np.uint32),
        "rsvd_cnt": np.int32(d["rsvd_cnt"]),
        "fault": np.uint32(d.get("fault", 0)),
    }
    for k in CMP.SPECIAL_FIELDS:  # a capsule written before they were recorded: 0 (the runner's default)
        if k in d:
            out[k] = np.array(d[k], np.uint32)
    return out


def state_json(st, ret=None):
    f = {
        k: np.asarray(getattr(st, k))
        for k in ("ub", "vmask", "mask_mode", "cmpmask", "ctrl", "rsvd_cnt", "fault")
    }
    for k in CMP.SPECIAL_FIELDS:
        w = CMP.special_words(st, k)
        f[k] = None if w is None else np.asarray(w, np.uint32)
    d = fields_json(f)
    d["faults"] = describe_faults(int(f["fault"]))
    d["ret"] = None if ret is None else np.asarray(ret).tolist()
    return d


def run_pair(fam, case, p, fields=None, batch=1, oracle=None):
    """(fast (state, ret), reference (state, ret), Difference or None) of one case."""
    fields = RUN.fields_of(fam, case, p, fields)
    fast = RUN.run_fast_chunk(fam, [case], p, batch, [fields])[0]
    ref = RUN.run_reference(fam, case, p, oracle, fields)
    return fast, ref, CMP.compare(fast[0], ref[0], fast[1], ref[1])


def make_capsule(fam, case, p, seed=None, index=None, batch=1, oracle=None, original=None, steps=0):
    p = as_profile(p)
    fields = RUN.fields_of(fam, case, p)
    fast, ref, diff = run_pair(fam, case, p, fields, batch, oracle)
    cap = {
        "format": FORMAT,
        "versions": versions(),
        "profile": p.name,
        "seed": seed,
        "index": index,
        "family": fam.name,
        "api": fam.api_of(case),
        "call": fam.call_text(case),
        "case": fam.to_json(case),
        "labels": list(fam.labels(case, p)),
        "shrink_steps": steps,
        "inputs": fields_json(fields),
        "expected": state_json(*ref),
        "got": state_json(*fast),
        "difference": None if diff is None else diff.to_json(),
        "first_differing_bytes": []
        if diff is None
        else [{"addr": a, "expected": e, "got": g} for a, e, g in diff.first_bytes],
    }
    if original is not None:
        cap["original_case"] = fam.to_json(original)
        cap["original_call"] = fam.call_text(original)
    return cap


def shrink_and_capsule(fc, p, seed, batch, oracle=None, out=None):
    """Shrink a failing FuzzCase and build (and, with ``out``, write) its capsule. Returns the
    capsule dict (with "path" when written)."""
    small, steps = shrink_case(fc.family, fc.case, p, batch, oracle)
    cap = make_capsule(fc.family, small, p, seed, fc.index, batch, oracle, original=fc.case, steps=steps)
    if out is not None:
        d = pathlib.Path(out) / "capsules"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"case-{fc.index:08d}-{cap['api']}.json"
        path.write_text(json.dumps(cap, indent=1))
        cap["path"] = str(path)
    return cap


def load_capsule(path_or_dict):
    if isinstance(path_or_dict, dict):
        return path_or_dict
    cap = json.loads(pathlib.Path(path_or_dict).read_text())
    if cap.get("format") != FORMAT:
        raise ValueError(f"{path_or_dict}: not an ascend_jax capsule (format {cap.get('format')!r})")
    return cap


def case_of(cap):
    fam = family_of(cap["family"])
    return fam, fam.from_json(cap["case"])


def replay(capsule, oracle=None, batch=1):
    """Re-run a capsule's case from its stored inputs: (Difference or None, report text)."""
    cap = load_capsule(capsule)
    p = as_profile(cap["profile"])
    fam, case = case_of(cap)
    fields = fields_from_json(cap["inputs"])
    fast, ref, diff = run_pair(fam, case, p, fields, batch, oracle)
    lines = [f"{cap['api']} on {p.name}: {cap['call']}"]
    if diff is None:
        lines.append("fast path and reference agree now (the capsule no longer reproduces)")
    else:
        lines.append(f"MISMATCH reproduced: {diff}")
        same = state_json(*fast) == cap["got"] and state_json(*ref) == cap["expected"]
        lines.append("identical to the recorded results" if same else "results differ from the recorded ones")
    return diff, "\n".join(lines)
