"""Adapter of the mask and special-register APIs (SetVectorMask, SetMaskCount, SetMaskNorm,
ResetMask, SetCtrlSpr, GetCtrlSpr, ResetCtrlSpr, SetSaturationFlag, GetSaturationFlag), of
GetGatherMaskRemainCount and of the reduce result reads GetReduceRepeatSumSpr /
GetReduceRepeatMaxMinSpr (the register drawn at random, the T values compared as bit patterns):
one call on random registers. These APIs take compile-time arguments
only and are not jitted, so each case runs eagerly (no batching, no compilation per signature)."""

import dataclasses

import numpy as np

from ... import MaskMode, SaturationMode
from ... import dtypes as _dt
from ...registry import REGISTRY
from ..regs import draw as draw_registers
from . import draw as D
from .base import REG_FIELDS, case_dataclass
from .family import Family

# every registered mask / special-register API, plus GatherMask's register read-back
APIS = tuple(n for n, spec in REGISTRY.items() if spec.family in ("mask", "special_register")) + (
    "GetGatherMaskRemainCount",
)
# the reductions' result registers read back as T (the register drawn at random on entry)
SPR_READS = ("GetReduceRepeatSumSpr", "GetReduceRepeatMaxMinSpr")
APIS += SPR_READS


@case_dataclass
class RegCase:
    api: str
    dtype: str = "-"  # SetVectorMask's T
    args: tuple = ()  # positional arguments after the state (Python values)
    mode: int = -1  # SetVectorMask: MaskMode; Set/GetSaturationFlag: SaturationMode; -1: none
    registers: REG_FIELDS
    rsvd_init: int = 0
    ub_bytes: int = 64
    reduce_spr_init: tuple = (0, 0, 0)  # the reduce result register on entry (SPR_READS)

    def call_repr(self):
        t = (
            f"<{_dt.as_dtype(self.dtype).cpp}, {MaskMode(self.mode).name}>"
            if self.api == "SetVectorMask"
            else ""
        )
        if self.api in ("SetSaturationFlag", "GetSaturationFlag"):
            t = f"<SaturationMode::{SaturationMode(self.mode).name}>"
        if self.api in ("SetCtrlSpr", "GetCtrlSpr", "ResetCtrlSpr"):
            t = f"<{self.args[0]}, {self.args[1]}>"
            args = self.args[2:]
        else:
            args = self.args
        return (
            f"{self.api}{t}({', '.join(map(repr, args))}) [mode={self.mask_mode} "
            f"vmask={[hex(w) for w in self.vmask[:4]]} ctrl={[hex(w) for w in self.ctrl]} rsvd={self.rsvd_init}]"
        )


def _bits(v):
    a = np.asarray(v)
    if not np.issubdtype(a.dtype, np.integer):
        a = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    return int(a)


def random_cases_many(slots, p, units):
    """``RegisterFamily.generate`` for many cases at once, one a unit ``(api, dtype)`` of
    ``units``, drawn from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): every
    case makes every API's draws (SetVectorMask's, the reduce registers', the CTRL bits', the
    saturation modes') and keeps its own's."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    api = np.asarray([u[0] for u in uniq], object)[ui]
    d_of = [_dt.as_dtype(u[1]) if u[1] != "-" else None for u in uniq]
    L = np.asarray([p.lanes(d) if d else 128 for d in d_of], np.int64)[ui]
    size = np.asarray([d.itemsize if d else 4 for d in d_of], np.int64)[ui]
    bits = np.asarray([d.bits if d else 32 for d in d_of], np.int64)[ui]
    regs = D.draw_many(slots, p, 128)
    # SetVectorMask
    mode = slots.below(2) if p.api("SetMaskCount").supported else np.zeros(n, np.int64)
    lo_min = 1 if p.zero_mask == "error" else 0
    short = slots.random() < 0.5
    n_short = D.choose(slots, [lo_min, 1, L - 1, L, L + 1, D.ints(slots, lo_min, 300)])
    lo_count = D.ints(slots, lo_min, 2**20)
    lo = (lo_min + slots.below(2**63 - lo_min).astype(np.uint64)) * D.ints(slots, 1, 3).astype(np.uint64)
    lo = lo + slots.below(2).astype(np.uint64)  # at most 2**64 - 1
    hi = np.where(size >= 4, np.uint64(0), slots.below(2**63).astype(np.uint64))
    lo = np.where(size == 8, lo & np.uint64(0xFFFFFFFF), lo)
    if p.zero_mask == "error":
        lo = np.where((lo == 0) & (hi == 0), np.uint64(1), lo)
    lo = np.where(mode == 1, lo_count.astype(np.uint64), lo)
    hi = np.where(mode == 1, np.uint64(0), hi)
    # the reduce result registers (SPR_READS): T's bits, a fifth with a special value of T
    w = np.stack([D.low_bits(slots.word(), bits) for _ in range(2)], 1)
    w2 = D.low_bits(slots.word(), np.minimum(bits, 31))
    special = slots.random() < 0.2
    which = slots.below(2)
    top = np.uint64(1) << (bits - 1).astype(np.uint64)
    sp = D.choose(slots, [np.uint64(0), top, top | (top - np.uint64(1))], np.uint64)
    w[np.arange(n), which] = np.where(special, sp, w[np.arange(n), which])
    spr = np.concatenate([w, w2[:, None]], 1)
    # SetCtrlSpr / ResetCtrlSpr, GetCtrlSpr
    ctrl_bits = p.api("SetCtrlSpr").bits if p.api("SetCtrlSpr").supported else None
    b = D.choose(slots, list(ctrl_bits)) if ctrl_bits else D.ints(slots, 0, 64)
    value = slots.below(2)
    start = D.ints(slots, 0, 64)
    end = D.ints(slots, start, 64)
    # Set/GetSaturationFlag
    modes = [int(SaturationMode.FLOAT)] + (
        [int(SaturationMode.CAST)] if p.cast_saturation_ctrl_bit >= 0 else []
    )
    sat_mode = D.choose(slots, modes)
    flag = slots.below(2)

    api_l, mode_l = api.tolist(), mode.tolist()
    short_l, n_short_l, hi_l, lo_l = short.tolist(), n_short.tolist(), hi.tolist(), lo.tolist()
    spr_t, b_l, value_l, start_l, end_l = (
        D.tuples(spr),
        b.tolist(),
        value.tolist(),
        start.tolist(),
        end.tolist(),
    )
    sat_l, flag_l = sat_mode.tolist(), flag.tolist()
    args, modes_out, spr_out = [], [], []
    for j, a in enumerate(api_l):
        m, r, sp_j = -1, (), (0, 0, 0)
        if a == "SetVectorMask":
            m, r = mode_l[j], (n_short_l[j],) if short_l[j] else (hi_l[j], lo_l[j])
        elif a in SPR_READS:
            sp_j = spr_t[j]
        elif a == "SetCtrlSpr":
            r = (b_l[j], b_l[j], value_l[j])
        elif a == "ResetCtrlSpr":
            r = (b_l[j], b_l[j])
        elif a == "GetCtrlSpr":
            r = (start_l[j], end_l[j])
        elif a in ("SetSaturationFlag", "GetSaturationFlag"):
            m, r = sat_l[j], ((bool(flag_l[j]),) if a == "SetSaturationFlag" else ())
        args.append(r)
        modes_out.append(m)
        spr_out.append(sp_j)
    return D.build(
        RegCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=[u[1] for u in units],
            args=args,
            mode=modes_out,
            **D.mask_fields(regs.vmask, regs.mask_mode, regs.ctrl),
            cmpmask=D.tuples(regs.cmpmask),
            rsvd_init=regs.rsvd_cnt.tolist(),
            ub_bytes=64,
            reduce_spr_init=spr_out,
        ),
    )


class RegisterFamily(Family):
    name = "registers"
    apis = APIS
    case_type = RegCase
    batched = False

    def units(self, p, api):
        a = p.api(api)
        if not a.supported:
            return []
        if api == "SetVectorMask" or api in SPR_READS:
            return [(api, dt) for dt in a.dtypes]
        if api in ("SetSaturationFlag", "GetSaturationFlag") and p.float_saturation_ctrl_bit < 0:
            return []  # no float saturation control: the profile lacks the API's main mode
        return [(api, "-")]

    def generate(self, rng, p, unit, fault_rate):
        api, dt = unit
        regs = draw_registers(rng, p, 128)
        base = dict(api=api, dtype=dt, **regs.case_fields())
        if api == "SetVectorMask":
            d = _dt.as_dtype(dt)
            mode = int(rng.integers(2)) if p.api("SetMaskCount").supported else 0
            lo_min = 1 if p.zero_mask == "error" else 0
            if rng.random() < 0.5:
                n = int(
                    rng.choice(
                        [
                            lo_min,
                            1,
                            p.lanes(d) - 1,
                            p.lanes(d),
                            p.lanes(d) + 1,
                            int(rng.integers(lo_min, 300)),
                        ]
                    )
                )
                return RegCase(args=(n,), mode=mode, **base)
            if mode == 1:
                lo, hi = int(rng.integers(lo_min, 2**20)), 0
            else:
                lo = int(rng.integers(lo_min, 2**63)) * int(rng.integers(1, 3)) + int(rng.integers(0, 2))
                lo = min(lo, 2**64 - 1)
                hi = 0 if d.itemsize >= 4 else int(rng.integers(0, 2**63))
                if d.itemsize == 8:
                    lo &= 0xFFFFFFFF
                if p.zero_mask == "error" and lo == 0 and hi == 0:
                    lo = 1
            return RegCase(args=(hi, lo), mode=mode, **base)
        if api in SPR_READS:
            bits = _dt.as_dtype(dt).bits
            words = [int(rng.integers(0, 2**bits)) for _ in range(2)] + [
                int(rng.integers(0, 2 ** min(bits, 31)))
            ]
            if rng.random() < 0.2:  # a special value of T: zero, -0, inf, NaN
                words[int(rng.integers(2))] = int(rng.choice([0, 1 << (bits - 1), 2**bits - 1]))
            return RegCase(reduce_spr_init=tuple(words), **base)
        if api in ("SetCtrlSpr", "ResetCtrlSpr"):
            bits = p.api("SetCtrlSpr").bits
            b = int(rng.choice(list(bits))) if bits else int(rng.integers(0, 64))
            args = (b, b, int(rng.integers(2))) if api == "SetCtrlSpr" else (b, b)
            return RegCase(args=args, **base)
        if api == "GetCtrlSpr":
            s = int(rng.integers(0, 64))
            e = int(rng.integers(s, 64))
            return RegCase(args=(s, e), **base)
        if api in ("SetSaturationFlag", "GetSaturationFlag"):
            modes = [SaturationMode.FLOAT] + (
                [SaturationMode.CAST] if p.cast_saturation_ctrl_bit >= 0 else []
            )
            mode = int(modes[int(rng.integers(len(modes)))])
            args = (bool(rng.integers(2)),) if api == "SetSaturationFlag" else ()
            return RegCase(args=args, mode=mode, **base)
        return RegCase(**base)

    def generate_many(self, slots, p, units, fault_rate):
        return random_cases_many(slots, p, units)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        if case.api == "SetVectorMask" and case.mode == 0 and _dt.as_dtype(case.dtype).itemsize >= 4:
            return rep(case, args=(1, 1)), "maskHigh"
        if case.api == "SetCtrlSpr":
            s = case.args[0]
            return rep(case, args=(s, s, 2)), "value"
        if case.api == "GetCtrlSpr":
            return rep(case, args=(5, 3)), "startBit"
        return None

    def signature(self, case, p):
        return ("registers", case.api)

    def initial_ub(self, case):
        return np.zeros(case.ub_bytes, np.uint8)

    def _call(self, mod, case, state, p):
        args = case.args
        kw = {"profile": p}
        if case.api == "SetVectorMask":
            args = (_dt.as_dtype(case.dtype),) + args
            kw["mode"] = MaskMode(case.mode)
        elif case.api in ("SetSaturationFlag", "GetSaturationFlag"):
            args = (SaturationMode(case.mode),) + args
        elif case.api in SPR_READS:
            args = (_dt.as_dtype(case.dtype),)
        out = getattr(mod, case.api)(state, *args, **kw)
        if hasattr(out, "ub"):
            return out, None
        if case.api in SPR_READS:  # T values (and the index as T): compared as bit patterns
            return state, np.asarray([_bits(v) for v in (out if isinstance(out, tuple) else (out,))])
        return state, np.asarray(int(out))

    def fast_one(self, case, state, p):
        import ascend_jax as aj

        return self._call(aj, case, state, p)

    def reference(self, case, p, mod, state):
        return self._call(mod, case, state, p)

    def call_static(self, mod, case, state, p):
        return self._call(mod, case, state, p)

    def shrink(self, case, p):
        out = []
        if case.mask_mode:
            out.append(dataclasses.replace(case, mask_mode=0))
        if any(case.cmpmask):
            out.append(dataclasses.replace(case, cmpmask=(0, 0, 0, 0)))
        return out
