"""Adapter of the data-movement APIs DataCopy and DataCopyPad (``ascend_jax.testing.copy_cases``):
every modelled direction (GM -> UB, UB -> GM, UB -> UB where the profile has it) and call form
(count, DataCopyParams; DataCopyPad with DataCopyExtParams + DataCopyPadExtParams or the older
DataCopyParams + DataCopyPadParams) of every element type of the profile.

GM is part of the case: the state's byte image is the case's UB followed by its GM buffer (see
``copy_cases``), so the engine's one comparator checks the GM bytes with UB, registers and faults;
a differing "UB byte" at or past ``ub_bytes`` is GM byte ``addr - ub_bytes``."""

import dataclasses

from ... import dtypes as _dt
from ...testing import copy_cases as CC
from .base import Operand, smaller_ints
from .family import Family

_BLK = CC.BLK


class DataCopyFamily(Family):
    name = "data_copy"
    apis = CC.APIS
    case_type = CC.CopyCase

    # -- generation
    def units(self, p, api):
        return CC.units(p, api)

    def unit_dtype(self, unit):
        return unit[3]

    def generate(self, rng, p, unit, fault_rate):
        api, kind, form, dt = unit
        return CC.random_copy_case(rng, p, api, kind, form, dt, fault_rate=fault_rate)

    def invalid_static(self, rng, p, case):
        """One static misuse (``CC.static_error`` names the argument both sides must name)."""
        rep = dataclasses.replace
        c = _one_block_at_least(case)
        a = p.api(c.api)
        size = c.size
        bc, bl, ss, ds = c.params
        opts = []
        if c.api == "DataCopy":
            if c.form == "count":
                E = _BLK // size
                opts.append((rep(c, count=c.count // E * E + 1), "count"))
                cap = p.ub_usable_bytes // size
                opts.append((rep(c, count=(cap // E + 1) * E), "count"))
            else:
                k = int(rng.integers(4))
                names = tuple(
                    f"repeatParams.{n}" for n in ("blockCount", "blockLen", "srcStride", "dstStride")
                )
                prm = list(c.params)
                prm[k] = 4096 if k == 0 else 65536
                opts.append((rep(c, params=tuple(prm)), names[k]))
        else:
            opts.append((rep(c, params=(4096, bl, ss, ds)), "dataCopyParams.blockCount"))
            opts.append((rep(c, params=(bc, 2097152, ss, ds)), "dataCopyParams.blockLen"))
            if size > 1:
                opts.append((rep(c, params=(bc, bl + 1, ss, ds)), "dataCopyParams.blockLen"))
            if c.kind == "gm2ub":
                k = int(rng.integers(2))
                pad = list(c.pad)
                pad[k] = _BLK // size + 1
                opts.append((rep(c, pad=tuple(pad)), ("padParams.leftPadding", "padParams.rightPadding")[k]))
                if a.negative_src_stride:
                    opts.append((rep(c, params=(bc, bl, -bl - size, ds)), "dataCopyParams.srcStride"))
                if size == 8:
                    opts.append((rep(c, pad_bits=1), "padParams.paddingValue"))
            # the UB-side stride past its maximum, the GM-side one past uint32 (static: no int32 limit)
            hi = a.ub_stride_max
            if c.kind == "gm2ub":
                opts.append((rep(c, params=(bc, bl, ss, hi + 1)), "dataCopyParams.dstStride"))
                opts.append((rep(c, params=(bc, bl, 2**32, ds)), "dataCopyParams.srcStride"))
            else:
                opts.append((rep(c, params=(bc, bl, hi + 1, ds)), "dataCopyParams.srcStride"))
                opts.append((rep(c, params=(bc, bl, ss, 2**32)), "dataCopyParams.dstStride"))
            opts.append((rep(c, kind="ub2ub"), "dst/src"))
        # a GM access past the buffer (static addresses: a usage error)
        gm_sides = [s for s in ("src", "dst") if (c.kind[:2] if s == "src" else c.kind[-2:]) == "gm"]
        if gm_sides and CC.slots(c) > 0:
            s = gm_sides[0]
            opts.append((rep(c, **{s: c.gm_bytes - size * int(rng.integers(0, 3))}), s))
        if c.api == "DataCopy" and c.kind != "ub2ub" and not a.ub_to_ub:
            opts.append((rep(c, kind="ub2ub"), "dst/src"))
        others = [d for d in a.dtypes if d != c.dtype]
        if others:
            opts.append((rep(c, src_dtype=others[int(rng.integers(len(others)))]), "src.dtype"))
        bad = [d for d in CC.ALL_DTYPES if d not in a.dtypes]
        if bad:
            opts.append((rep(c, dtype=bad[int(rng.integers(len(bad)))]), "dtype"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        """One data-dependent fault: a misaligned, out-of-UB or out-of-GM address, zero blocks,
        or a traced value out of range."""
        rep = dataclasses.replace
        c = _one_block_at_least(case)
        ub_sides = [s for s in ("src", "dst") if (c.kind[:2] if s == "src" else c.kind[-2:]) == "ub"]
        gm_sides = [s for s in ("src", "dst") if s not in ub_sides]
        kinds = ["misaligned-ub", "out-of-ub", "zero-blocks", "bad-param"]
        if gm_sides:
            kinds.append("out-of-gm")
            if c.api == "DataCopy" and c.size > 1:
                kinds.append("misaligned-gm")
        k = kinds[int(rng.integers(len(kinds)))]
        pick = rng.integers
        if k == "misaligned-ub":
            s = ub_sides[int(pick(len(ub_sides)))]
            return rep(c, **{s: getattr(c, s) + int(rng.choice([1, 2, 4, 8, 16]))}), k
        if k == "misaligned-gm":
            return rep(c, **{gm_sides[0]: getattr(c, gm_sides[0]) + int(pick(1, c.size))}), k
        if k == "out-of-ub":
            s = ub_sides[int(pick(len(ub_sides)))]
            return rep(c, **{s: c.ub_bytes - _BLK * int(pick(0, 3))}), k
        if k == "out-of-gm":
            return rep(c, **{gm_sides[0]: c.gm_bytes - c.size * int(pick(0, 3))}), k
        if k == "zero-blocks":
            if c.form == "count":
                return rep(c, count=0), k
            prm = list(c.params)
            prm[int(pick(2))] = 0
            return rep(c, params=tuple(prm)), k
        if c.form == "count":
            E = _BLK // c.size
            return rep(c, count=c.count // E * E + 1), k
        prm = list(c.params)
        prm[0] = 4096
        return rep(c, params=tuple(prm)), k

    # -- running
    def signature(self, case, p):
        return (self.name,) + case.key()

    def initial_ub(self, case):
        return CC.initial_image(case)

    def stack_dyn(self, cases, p):
        return CC.stack_dyn(cases, p)

    def fast_fn(self, case0, p):
        return CC.fast_fn(case0, p)

    def reference(self, case, p, mod, state):
        return CC.call(mod, case, state, p), None

    def call_static(self, mod, case, state, p):
        return CC.call_static(mod, case, state, p), None

    # -- reporting
    def labels(self, case, p):
        return CC.labels(case)

    def shrink(self, case, p):
        """Fewer blocks / rows / bytes, no gaps, no padding, registers at their reset value,
        addresses at 0."""
        rep = dataclasses.replace
        out = []
        E = _BLK // case.size
        bc, bl, ss, ds = case.params
        if case.form == "count":
            blocks = case.count // E
            out += [rep(case, count=b * E) for b in smaller_ints(blocks, lo=1)]
        else:
            out += [rep(case, params=(v, bl, ss, ds)) for v in smaller_ints(bc, lo=1)]
            if case.api == "DataCopy":
                out += [rep(case, params=(bc, v, ss, ds)) for v in smaller_ints(bl, lo=1)]
            else:
                n = bl // case.size
                out += [rep(case, params=(bc, v * case.size, ss, ds)) for v in smaller_ints(n, lo=1)]
            if ss or ds:
                out.append(rep(case, params=(bc, bl, 0, 0)))
                out += [rep(case, params=(bc, bl, 0, ds)), rep(case, params=(bc, bl, ss, 0))]
        if any(case.pad):
            out.append(rep(case, pad=(0, 0)))
        if case.is_pad:
            out.append(rep(case, is_pad=False))
        if case.pad_bits:
            out.append(rep(case, pad_bits=0))
        default = CC.CopyCase("DataCopy", "gm2ub", "count", "int8")
        if (case.vmask, case.mask_mode, case.cmpmask, case.ctrl, case.rsvd_init) != (
            default.vmask,
            0,
            default.cmpmask,
            default.ctrl,
            0,
        ):
            out.append(
                rep(
                    case,
                    vmask=default.vmask,
                    mask_mode=0,
                    cmpmask=default.cmpmask,
                    ctrl=default.ctrl,
                    rsvd_init=0,
                )
            )
        for s in ("src", "dst"):
            if getattr(case, s) != 0:
                out.append(rep(case, **{s: 0}))
        return [c for c in out if c != case]

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        ops = []
        for side, role in (("src", "in"), ("dst", "inout")):
            addr, n = CC.footprint(case, side)
            addr = max(0, addr)
            ops.append(Operand(side, addr, n, d.name, role, ("packed", addr)))
        return ops


def _one_block_at_least(c):
    """``c`` moving at least one block (a mutation must have something to fault on)."""
    if CC.slots(c) > 0 or not CC._in_bucket_ranges(c):
        return c
    E = _BLK // c.size
    if c.form == "count":
        return dataclasses.replace(c, count=E)
    bc, bl, ss, ds = c.params
    return dataclasses.replace(c, params=(max(bc, 1), max(bl, 1 if c.api == "DataCopy" else c.size), ss, ds))
