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
