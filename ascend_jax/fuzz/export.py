"""Hardware in the loop: ``export_capsule`` writes a capsule's case as the vendor samples'
gen_data.py do -- one ``input_<operand>.bin`` per operand (``numpy.tofile``), the golden output
``golden_<dst>.bin`` (the reference's result) and ``params.json`` -- so the same case can run on an
NPU; ``diff_dir`` compares such a run's output .bin with the golden per element and per byte and
locates the first differing lane as (repeat, block, lane)."""

import dataclasses
import json
import pathlib

import numpy as np

from .. import dtypes as _dt
from ..profile import as_profile
from .capsule import _unb64, case_of, load_capsule
from .families.base import locate


def _region(ub, addr, nbytes):
    lo, hi = max(0, addr), min(len(ub), addr + nbytes)
    return ub[lo:hi] if hi > lo else ub[:0]


def _write_operand(f, ub, op, d):
    """Operand ``op``'s bytes of ``ub`` as whole elements of NumPy type ``d`` to file ``f``."""
    raw = _region(ub, op.addr, op.nbytes)
    raw[: len(raw) // d.itemsize * d.itemsize].view(d).tofile(f)
    return f


def _np_dtype(name):
    try:
        return _dt.as_dtype(name).np_dtype
    except (KeyError, ValueError, TypeError):
        return np.dtype(np.uint8)


def export_capsule(capsule, to):
    """Write the capsule's case to directory ``to``; returns the files written."""
    cap = load_capsule(capsule)
    fam, case = case_of(cap)
    p = as_profile(cap["profile"])
    to = pathlib.Path(to)
    to.mkdir(parents=True, exist_ok=True)
    ub_in = _unb64(cap["inputs"]["ub"])
    ub_gold = _unb64(cap["expected"]["ub"])
    files = []
    ops = []
    dst = None
    t_size = (
        max(1, _dt.as_dtype(case.dtype).bits // 8) if getattr(case, "dtype", "-") not in ("-", None) else 1
    )
    for op in fam.operands(case, p):
        d = _np_dtype(op.dtype)
        ent = dataclasses.asdict(op)
        ent["layout"] = list(op.layout)
        if op.role in ("in", "inout"):
            files.append(_write_operand(to / f"input_{op.name}.bin", ub_in, op, d))
            ent["input_file"] = files[-1].name
        if op.role in ("out", "inout"):
            files.append(_write_operand(to / f"golden_{op.name}.bin", ub_gold, op, d))
            ent["golden_file"] = files[-1].name
            dst = op.name
        ops.append(ent)
    for name, arr in (("ub_input.bin", ub_in), ("ub_golden.bin", ub_gold)):
        arr.tofile(to / name)
        files.append(to / name)
    params = {
        "format": "ascend_jax.export/1",
        "profile": p.name,
        "api": cap["api"],
        "call": cap["call"],
        "case": cap["case"],
        "dtype": getattr(case, "dtype", "-"),
        "t_itemsize": t_size,
        "operands": ops,
        "output": dst,
        "registers_in": {k: v for k, v in cap["inputs"].items() if k != "ub"},
        "expected": {k: v for k, v in cap["expected"].items() if k != "ub"},
        "versions": cap.get("versions"),
    }
    f = to / "params.json"
    f.write_text(json.dumps(params, indent=1))
    files.append(f)
    return [str(x) for x in files]


@dataclasses.dataclass
class DiffReport:
    clean: bool
    lines: list

    def text(self):
        return "\n".join(self.lines)


def _locate(layout, byte_addr, got_byte, want_byte, t_size, el_size):
    """``base.locate``, but in a bit mask the lane is the first differing bit's."""
    if layout and layout[0] == "bits":
        _, addr, W, _L = layout
        r, k = divmod(byte_addr - addr, W)
        x = int(got_byte) ^ int(want_byte)
        bit = (x & -x).bit_length() - 1 if x else 0
        lane = k * 8 + bit
        return r, lane * t_size // 32, lane
    return locate(layout, byte_addr, el_size)


def diff_dir(directory, output=None):
    """Compare ``output`` (an NPU or CPU-debug run's dst .bin; default: the golden itself) with the
    exported golden: per-element and per-byte differences and the first differing lane."""
    directory = pathlib.Path(directory)
    prm = json.loads((directory / "params.json").read_text())
    lines = [f"{prm['api']} on {prm['profile']}: {prm['call']}"]
    if prm.get("output") is None:
        lines.append("this case has no UB output (a register API): nothing to diff")
        return DiffReport(True, lines)
    op = next(o for o in prm["operands"] if o["name"] == prm["output"])
    d = _np_dtype(op["dtype"])
    gold = np.fromfile(directory / op["golden_file"], dtype=np.uint8)
    got = np.fromfile(pathlib.Path(output) if output else directory / op["golden_file"], dtype=np.uint8)
    lines.append(f"output operand {op['name']} ({op['dtype']}, {len(gold)} bytes at UB byte {op['addr']})")
    if got.size != gold.size:
        lines.append(f"SIZE MISMATCH: output has {got.size} bytes, golden {gold.size}")
        return DiffReport(False, lines)
    bad_bytes = np.nonzero(got != gold)[0]
    n_el = gold.size // d.itemsize
    ge = gold[: n_el * d.itemsize].reshape(n_el, d.itemsize)
    oe = got[: n_el * d.itemsize].reshape(n_el, d.itemsize)
    bad_el = np.nonzero(np.any(ge != oe, axis=1))[0]
    lines.append(f"{bad_el.size} of {n_el} elements differ, {bad_bytes.size} of {gold.size} bytes differ")
    if bad_bytes.size == 0:
        lines.append("clean: the output equals the model's golden bit for bit")
        return DiffReport(True, lines)
    off = int(bad_bytes[0])
    addr = op["addr"] + off
    loc = _locate(op["layout"], addr, got[off], gold[off], prm["t_itemsize"], d.itemsize)
    where = f"(repeat {loc[0]}, block {loc[1]}, lane {loc[2]})" if loc else "(outside the operand's lanes)"
    lines.append(
        f"first differing byte: offset {off} (UB byte {addr}) {where}: got {got[off]:#04x} expected {gold[off]:#04x}"
    )
    for j in bad_el[:8]:
        a = ge[j].view(d)[0] if d.itemsize <= 8 else ge[j]
        b = oe[j].view(d)[0] if d.itemsize <= 8 else oe[j]
        lines.append(
            f"  element {int(j)}: got {b!r} ({oe[j].tobytes().hex()}) expected {a!r} ({ge[j].tobytes().hex()})"
        )
    return DiffReport(False, lines)
