"""Adapter of the compare/select family: Compare, Compares, CompareScalar, CompareCmpMask,
SetCmpMask, GetCmpMask, Select, SelectFlexible (``ascend_jax.testing.cmpsel_cases``)."""

import dataclasses
import math

from ... import dtypes as _dt
from ...testing import cmpsel_cases as C
from .base import (
    Operand,
    data_mutations,
    generic_shrinks,
    mask_label,
    repeat_regime,
    stride_regime,
    strided_operand,
)
from .family import Family

_ALL_DTYPES = ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float32")
_DEFAULT = (1, 1, 1, 8, 8, 8)


class CompareSelectFamily(Family):
    name = "compare_select"
    apis = C.ALL_APIS
    case_type = C.CmpSelCase

    def units(self, p, api):
        out = []
        groups = C.groups(p)
        first = {}
        for k, (a, dt, mode) in enumerate(groups):
            first.setdefault(a, dt)
            if a != api:
                continue
            forms = C.forms_for(p, a, dt, mode)
            for form in forms:
                variants = range(4) if (a == "SelectFlexible" and mode == 1) else (0,)
                for v in variants:
                    # the large repeat bucket only for the first dtype and form of an API: one
                    # extra compilation per API, not per group
                    big_ok = dt == first[a] and form == forms[0] and form != "-"
                    out.append((a, dt, mode, form, v, k, big_ok))
        return out

    def generate(self, rng, p, unit, fault_rate):
        api, dt, mode, form, variant, pick, big_ok = unit
        big = bool(big_ok and rng.random() < 0.05)
        return C.random_case(
            rng, p, api, dt, mode, form, big=big, variant=variant, fault_rate=fault_rate, pick=pick
        )

    def normalize(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        return dataclasses.replace(case, big=self._reps(case, L) > C.SMALL_R)

    @staticmethod
    def _reps(c, L):
        if c.form == "count":
            r = math.ceil(c.count / L)
        elif c.form == "-":
            r = 1
        else:
            r = c.repeat
        if c.mask_mode == 1 and c.form not in ("count", "-"):
            cnt = sum(w << (32 * i) for i, w in enumerate(c.vmask[:2]))
            r = max(r, math.ceil(cnt / L))
        return r

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        opts = []
        if case.api in C.CMP_APIS + ("CompareCmpMask",):
            opts.append((rep(case, mode=9), "cmpMode"))
        if case.form == "count":
            opts.append((rep(case, count=p.ub_usable_bytes + 64), "count"))
        elif case.form in ("continuous", "bitwise", "register") and case.api != "CompareCmpMask":
            opts.append((rep(case, repeat=p.max_repeat_times + 1), "repeatTime"))
        if case.form not in ("count", "-") and case.api in (
            "Compare",
            "Select",
            "SelectFlexible",
            "CompareCmpMask",
        ):
            opts.append((rep(case, strides=(1, 1, 1, 256, 8, 8)), "repeatParams.dstRepStride"))
        if case.api == "GetCmpMask":
            return None
        bad = [d for d in _ALL_DTYPES if d not in p.api(case.api).all_dtypes()]
        if bad and case.api not in ("SetCmpMask", "GetCmpMask"):
            opts.append((rep(case, dtype=bad[int(rng.integers(len(bad)))]), "T"))
        if not opts:
            return None
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        if case.api in ("SetCmpMask", "GetCmpMask"):
            k = "misaligned" if rng.random() < 0.5 else "out-of-ub"
            a = case.src0 + 8 if k == "misaligned" else case.ub_bytes - 8
            return dataclasses.replace(case, dst=a, src0=a), k
        return data_mutations(
            rng, p, case, dst="dst", src="src0", dst_blk_stride=case.api.startswith("Select")
        )

    def signature(self, case, p):
        return ("compare_select",) + case.key()

    def initial_ub(self, case):
        return C.initial_ub(case)

    def stack_dyn(self, cases, p):
        return C.stack_dyn(cases, p)

    def fast_fn(self, case0, p):
        return C.fast_fn(case0, p)

    def reference(self, case, p, mod, state):
        return C.call(mod, case, state, p), None

    def call_static(self, mod, case, state, p):
        return C.call(mod, case, state, p), None

    def labels(self, case, p):
        if case.api in ("SetCmpMask", "GetCmpMask"):
            return ("n/a", "n/a", "n/a")
        L = p.lanes(_dt.as_dtype(case.dtype))
        s = case.strides
        strides = "default" if case.form == "count" else stride_regime(s[:3], s[3:])
        return (
            mask_label(case.form, case.mask_mode, case.mask, L),
            repeat_regime(self._reps(case, L), p),
            strides,
        )

    def shrink(self, case, p):
        out = generic_shrinks(case, p, _DEFAULT)
        if case.mask_mode == 1:
            out.append(dataclasses.replace(case, mask_mode=0, vmask=(0xFFFFFFFF,) * 4 + (0,) * 4))
        return [self.normalize(c, p) for c in out]

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        if case.api in ("SetCmpMask", "GetCmpMask"):
            role = "in" if case.api == "SetCmpMask" else "out"
            name = "src" if case.api == "SetCmpMask" else "dst"
            return [
                Operand(
                    name, case.src0 if role == "in" else case.dst, 16, "uint32", role, ("packed", case.dst)
                )
            ]
        reps = self._reps(case, L)
        s = _DEFAULT if case.form == "count" else case.strides
        nblk = L * d.itemsize // 32
        ops = [strided_operand("src0", case.src0, d.name, s[1], s[4], nblk, reps, "in")]
        if case.api in ("Compare", "CompareCmpMask") or (case.api.startswith("Select") and case.mode != 1):
            ops.append(strided_operand("src1", case.src1, d.name, s[2], s[5], nblk, reps, "in"))
        if case.api.startswith("Select") and case.form != "nomask":
            W = L // 8
            ops.append(
                Operand("selMask", case.sel, max(1, reps) * W, "uint8", "in", ("bits", case.sel, W, L))
            )
        if case.api in C.CMP_APIS:
            W = L // 8
            ops.append(Operand("dst", case.dst, max(1, reps) * W, "uint8", "inout", ("bits", case.dst, W, L)))
        elif case.api.startswith("Select"):
            ops.append(strided_operand("dst", case.dst, d.name, s[0], s[3], nblk, reps, "inout"))
        return ops
