"""Adapter of the scalar-arithmetic family: Adds, Muls, Maxs, Mins (``ascend_jax.testing.cases``)."""

import dataclasses

from ... import dtypes as _dt
from ...testing import cases as C
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


class UnaryScalarFamily(Family):
    name = "unary_scalar"
    apis = tuple(C.UNARY_SCALAR)
    case_type = C.Case

    def __init__(self, buckets=(4, 16, 256)):
        self.buckets = tuple(buckets)

    def units(self, p, api):
        a = p.api(api)
        return [(api, dt) for dt in a.all_dtypes()] if a.supported else []

    def generate(self, rng, p, unit, fault_rate):
        api, dt = unit
        return C.random_case(rng, p, api, dt, fault_rate=fault_rate)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        L = p.lanes(_dt.as_dtype(case.dtype))
        opts = []
        if case.form == "count":
            opts.append(
                (rep(case, count=p.ub_usable_bytes // _dt.as_dtype(case.dtype).itemsize + 1), "count")
            )
        else:
            opts.append((rep(case, repeat=p.max_repeat_times + 1), "repeatTime"))
            opts.append(
                (rep(case, strides=case.strides[:2] + (256, case.strides[3])), "repeatParams.dstRepStride")
            )
            if case.form == "bitwise" and case.mask_mode == 0 and L <= 64:
                m = list(case.mask)
                m[1] = 1
                opts.append((rep(case, mask=tuple(m)), "mask[1]"))
        bad = [d for d in _ALL_DTYPES if d not in p.api(case.api).all_dtypes()]
        if bad:
            opts.append((rep(case, dtype=bad[int(rng.integers(len(bad)))], form="count", count=16), "T"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        return data_mutations(rng, p, case)

    def signature(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        return ("unary_scalar", case.dtype, C.coarse_bucket(C._reps_needed(case, L), self.buckets))

    def initial_ub(self, case):
        return C.make_ub(case)

    def stack_dyn(self, cases, p):
        return C.stack_params(cases, p)

    def fast_fn(self, case0, p):
        _, dtype, R = self.signature(case0, p)
        fn = C.batched_fn(dtype, R, p)
        return lambda st, dyn: (fn(st, dyn), None)

    def reference(self, case, p, mod, state):
        return C.call(mod, case, state, p), None

    def call_static(self, mod, case, state, p):
        return C.call(mod, case, state, p), None

    def labels(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        reps = C._reps_needed(case, L)
        if case.form == "count":
            strides = "default"
        else:
            strides = stride_regime(case.strides[:2], case.strides[2:])
        return (
            mask_label(case.form, case.mask_mode, case.mask, L, case.is_set_mask),
            repeat_regime(reps, p),
            strides,
        )

    def shrink(self, case, p):
        out = generic_shrinks(case, p, (1, 1, 8, 8))
        rep = dataclasses.replace
        if case.mask_mode == 1:
            out.append(rep(case, mask_mode=0, vmask=(0xFFFFFFFF,) * 4 + (0,) * 4))
        if case.scalar not in (0, 1):
            out.append(rep(case, scalar=type(case.scalar)(1)))
        if case.form == "register" and case.mask_mode == 0:
            nw = p.vector_mask_bits // 64
            v = sum(int(case.vmask[i]) << (32 * i) for i in range(8))
            out.append(
                rep(
                    case,
                    form="bitwise",
                    is_set_mask=True,
                    mask=tuple((v >> (64 * i)) & (2**64 - 1) for i in range(nw)),
                )
            )
        return out

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        reps = C._reps_needed(case, L)
        nblk = L * d.itemsize // 32
        if case.form == "count":
            s = (1, 1, 8, 8)
        else:
            s = case.strides
        return [
            strided_operand("src", case.src, d.name, s[1], s[3], nblk, reps, "in"),
            strided_operand("dst", case.dst, d.name, s[0], s[2], nblk, reps, "inout"),
        ]


__all__ = ["UnaryScalarFamily", "Operand"]
