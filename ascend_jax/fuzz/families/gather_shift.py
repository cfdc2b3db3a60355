"""Adapters of GatherMask and of the shifts (ShiftLeft, ShiftRight and their tensor-amount forms)
(``ascend_jax.testing.gather_shift_cases``)."""

import dataclasses
import math

from ... import dtypes as _dt
from ...testing import gather_shift_cases as G
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

_ALL_DTYPES = ("int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float32")


class _Common(Family):
    def signature(self, case, p):
        return (self.name,) + case.key()

    def stack_dyn(self, cases, p):
        return G.stack_shift_dyn(cases, p) if self.name == "shift" else G._gather_dyn(cases, p)

    def fast_fn(self, case0, p):
        return G.fast_fn(case0, p)


class ShiftFamily(_Common):
    name = "shift"
    apis = G.SHIFT_APIS
    case_type = G.ShiftCase

    def units(self, p, api):
        out = []
        first = None
        for a, dt in G.shift_groups(p):
            if a != api:
                continue
            first = first or dt
            forms = G.shift_forms(p, a, dt)
            out += [(a, dt, f, dt == first and f == forms[0]) for f in forms]
        return out

    def generate(self, rng, p, unit, fault_rate):
        api, dt, form, big_ok = unit
        big = bool(big_ok and rng.random() < 0.05)
        return G.random_shift_case(rng, p, api, dt, form, big=big, fault_rate=fault_rate)

    @staticmethod
    def _reps(c, L):
        r = math.ceil(c.count / L) if c.form == "count" else c.repeat
        if c.mask_mode == 1 and (c.form != "count" or not c.is_set_mask):
            cnt = c.vmask[0] | (c.vmask[1] << 32)
            r = max(r, math.ceil(cnt / L))
        return r

    def normalize(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        return dataclasses.replace(case, big=self._reps(case, L) > G.SMALL_R)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        opts = []
        if case.form == "count":
            opts.append((rep(case, count=p.ub_usable_bytes + 64), "count"))
        else:
            opts.append((rep(case, repeat=p.max_repeat_times + 1), "repeatTime"))
            opts.append((rep(case, strides=(1, 1, 256, 8)), "repeatParams.dstRepStride"))
        bad = [d for d in _ALL_DTYPES if d not in p.api(case.api).all_dtypes()]
        if bad and not case.api.endswith("Tensor"):
            opts.append(
                (
                    rep(
                        case, dtype=bad[int(rng.integers(len(bad)))], form="count", count=16, is_set_mask=True
                    ),
                    "T",
                )
            )
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        return data_mutations(rng, p, case)

    def initial_ub(self, case):
        return G.shift_initial_ub(case)

    def reference(self, case, p, mod, state):
        return G.call_shift(mod, case, state, p), None

    def call_static(self, mod, case, state, p):
        return G.call_shift(mod, case, state, p, static=True), None

    def labels(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        strides = "default" if case.form == "count" else stride_regime(case.strides[:2], case.strides[2:])
        return (
            mask_label(case.form, case.mask_mode, case.mask, L, case.is_set_mask),
            repeat_regime(self._reps(case, L), p),
            strides,
        )

    def shrink(self, case, p):
        out = generic_shrinks(case, p, (1, 1, 8, 8))
        if case.mask_mode == 1:
            out.append(dataclasses.replace(case, mask_mode=0, vmask=(0xFFFFFFFF,) * 4 + (0,) * 4))
        return [self.normalize(c, p) for c in out]

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        reps = self._reps(case, L)
        s = (1, 1, 8, 8) if case.form == "count" else case.strides
        nblk = L * d.itemsize // 32
        ops = [strided_operand("src0", case.src, d.name, s[1], s[3], nblk, reps, "in")]
        if case.api.endswith("Tensor"):
            ops.append(strided_operand("src1", case.src1, case.amount_dtype, 1, 8, nblk, reps, "in"))
        ops.append(strided_operand("dst", case.dst, d.name, s[0], s[2], nblk, reps, "inout"))
        return ops


class GatherFamily(_Common):
    name = "gather_mask"
    apis = ("GatherMask",)
    case_type = G.GatherCase

    def api_of(self, case):
        return "GatherMask"

    def unit_dtype(self, unit):
        return unit[0]

    def units(self, p, api):
        groups = G.gather_groups(p)
        return [g + (g[0] == groups[0][0],) for g in groups]

    def generate(self, rng, p, unit, fault_rate):
        dt, counter, user, big_ok = unit
        big = bool(big_ok and rng.random() < 0.04)
        return G.random_gather_case(rng, p, dt, counter, user, big=big, fault_rate=fault_rate)

    def normalize(self, case, p):
        return dataclasses.replace(case, big=case.params[1] > G.SMALL_R or case.big and case.counter)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        prm = list(case.params)
        prm[1] = p.max_repeat_times + 1
        opts = [(rep(case, params=tuple(prm)), "gatherMaskParams.repeatTimes")]
        if case.counter:
            opts.append((rep(case, mask=0), "mask"))
        if not case.user:
            opts.append((rep(case, pattern=0), "src1Pattern"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        c, k = data_mutations(rng, p, case, dst="dst", src="src0", dst_blk_stride=False)
        return c, k

    def initial_ub(self, case):
        return G.gather_initial_ub(case)

    def reference(self, case, p, mod, state):
        st, cnt = G.call_gather(mod, case, state, p)
        return st, cnt

    def call_static(self, mod, case, state, p):
        return G.call_gather(mod, case, state, p, static=True)

    def labels(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        bs, rep, rs0, rs1 = case.params
        kind = ("counter" if case.counter else "normal") + ("-user" if case.user else "-builtin")
        nblk = max(1, math.ceil((case.mask if case.counter else L) * _dt.as_dtype(case.dtype).itemsize / 32))
        return (kind, repeat_regime(rep, p), stride_regime((bs,), (rs0,), footprint_blocks=min(nblk, 8)))

    def shrink(self, case, p):
        rep = dataclasses.replace
        out = []
        bs, r, rs0, rs1 = case.params
        for v in (1, r // 2, r - 1):
            if 1 <= v < r:
                out.append(rep(case, params=(bs, v, rs0, rs1)))
        if case.counter:
            for v in (1, case.mask // 2, case.mask - 1):
                if 1 <= v < case.mask:
                    out.append(rep(case, mask=v))
        if (bs, rs0, rs1) != (1, 8, 8):
            out.append(rep(case, params=(1, r, 8, 8)))
        if case.user and case.style not in ("single", "zero"):
            out.append(rep(case, style="single"))
        if case.data != "small":
            out.append(rep(case, data="small"))
        return [self.normalize(c, p) for c in out]

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        bs, r, rs0, rs1 = case.params
        n_e = case.mask if case.counter else L
        nblk = max(1, math.ceil(n_e * d.itemsize / 32))
        ops = [strided_operand("src0", case.src0, d.name, bs, rs0, nblk, max(1, min(r, 255)), "in")]
        if case.user:
            ops.append(
                Operand("src1Pattern", case.pat, max(1, r) * max(32, rs1 * 32), case.pattern_dtype, "in")
            )
        total = max(1, r) * n_e
        ops.append(
            Operand(
                "dst",
                case.dst,
                math.ceil(total * d.itemsize / 32) * 32,
                d.name,
                "inout",
                ("packed", case.dst),
            )
        )
        return ops
