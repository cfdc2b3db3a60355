"""复合计算 (composite ops): AddRelu, SubRelu, MulAddRelu, FusedMulAdd, MulAddDst, Axpy, AbsSub(ISASI),
ExpSub(ISASI), and Prelu(ISASI) (基础算术/) -- literally, each step of the formula rounded as the API of that step does it.

SPEC/CHOICE (docs/MODEL.md "Composite ops"): a composite is the chain of its element steps, each
one rounded to T, then subnormal flush / CTRL saturation / canonical NaN, exactly as the
stand-alone API of that step (Add, Sub, Mul, Relu, Abs): ``FusedMulAdd`` is ``(src0 * dst)``
rounded, then ``+ src1`` rounded -- two roundings, not one fused rounding. The page's result
examples decide it (FusedMulAdd.md / MulAddRelu.md print half results that only the two-rounding
chain reproduces: tests/test_compound.py).

Prototypes: the binary ones ``X(dst, src0, src1, count)`` and ``X(dst, src0, src1, mask[] | mask,
repeatTime, BinaryRepeatParams)`` (``isSetMask`` template flag); Axpy ``(dst, src, scalarValue, ...)``
with ``UnaryRepeatParams``; AbsSub / ExpSub the count form only. Axpy / MulAddDst with half sources
and a float32 dst (``apis.X.pairs``): ``_mixed_run``; ExpSub with T != U is not modelled
(``NotModelledError``). The lane loop is elementwise.py, the element semantics elem.py.
"""

import bisect

from .. import dtypes as _dt
from ..errors import Fault, NotModelledError, UnsupportedError, UsageError
from ..params import UnaryRepeatParams
from ..profile import as_profile
from ..tensor import LocalTensor
from . import cast as _cast
from . import castcomp as _castcomp
from . import compare as _cmp
from . import elem as _elem
from . import elementwise as _ew
from . import faults as _faults
from . import masks as _masks
from . import numerics as _num
from . import state as _st

_SRC_NAMES = ("src0", "src1")


def _steps(d, p, ctrl, *names):
    return [_elem.lane_function(n, d, p, ctrl) for n in names]


def _mixed(api, dst, src, profile):
    """Whether ``src.dtype -> dst.dtype`` is a mixed-precision row of the product's table
    (``apis.<api>.pairs``); a half src with a float32 dst it does not list is UnsupportedError."""
    if not (isinstance(dst, LocalTensor) and isinstance(src, LocalTensor)) or dst.dtype == src.dtype:
        return False
    p = as_profile(profile)
    pair = f"{src.dtype.name}->{dst.dtype.name}"
    listed = tuple(p.api(api).pairs)
    if pair in listed:
        return True
    if src.dtype.name == "half" and dst.dtype.name == "float32":
        raise UnsupportedError(api, "src.dtype/dst.dtype", pair, ", ".join(listed) or "U = T only", p)
    return False


def _mixed_run(api, state, dst, srcs, names, args, profile, is_set_mask, f):
    """MulAddDst / Axpy with half sources and a float32 dst (the tables' "half | half | float" row,
    PAR 64): a repeat is 64 float32 lanes; a source's lane l is element l % 16 of its block l // 16
    (4 blocks a repeat), dst's element l % 8 of block l // 8. ``f(*src_bits, dst_bits)`` per lane."""
    profile = as_profile(profile)
    for t, name in ((dst, "dst"), *zip(srcs, names, strict=True)):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    if not isinstance(is_set_mask, bool):
        raise UsageError(api, "isSetMask", is_set_mask, "True or False", profile)
    count_form = _ew.split_args(api, args, len(srcs))
    profile.require_api(api)
    if len(srcs) == 2 and srcs[1].dtype != srcs[0].dtype:  # LocalTensor<U>& src0, LocalTensor<U>& src1
        raise UsageError(
            api, "src1.dtype", srcs[1].dtype.name, f"{srcs[0].dtype.name} (= src0.dtype)", profile
        )
    for t, name in ((dst, "dst"), *zip(srcs, names, strict=True)):
        _masks.as_int(api, f"{name}.addr", t.addr, profile)
    s, t = srcs[0].dtype, dst.dtype
    dst = LocalTensor(t, int(dst.addr), dst.length)
    srcs = [LocalTensor(s, int(x.addr), x.length) for x in srcs]
    bb = profile.block_bytes
    L = profile.lanes(t)  # t (float32) is the wider type
    if count_form:
        # SPEC: "针对源操作数的连续n个数据进行计算并连续写入目的操作数" (连续计算.md)
        plan = _masks.plan_count_form(api, state, t, args[0], is_set_mask, profile)
        dst_strides = (1, L * t.itemsize // bb)
        src_strides = [(1, L * s.itemsize // bb)] * len(srcs)
    else:
        mask, repeat_time, params = args
        if len(srcs) == 2:
            _masks.check_repeat_time(api, repeat_time, profile)
            dblk, s0blk, s1blk, drep, s0rep, s1rep = _cmp.check_binary_params(api, params, profile)
            plan = _masks.plan_high_dim(
                api, state, t, mask, repeat_time, UnaryRepeatParams(), is_set_mask, profile
            )
            dst_strides, src_strides = (dblk, drep), [(s0blk, s0rep), (s1blk, s1rep)]
        else:
            plan = _masks.plan_high_dim(api, state, t, mask, repeat_time, params, is_set_mask, profile)
            dblk, sblk, drep, srep = plan.strides
            dst_strides, src_strides = (dblk, drep), [(sblk, srep)]
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    # SPEC: "源操作数的数据类型为half、目的操作数的数据类型为float的情况下，不支持地址重叠" -- the
    #       two-width rules of the conversions, once per source
    fault = 0
    for x, ss in zip(srcs, src_strides, strict=True):
        fault |= _castcomp._two_width_faults(
            api, plan, dst, x, t.itemsize, s.itemsize, dst_strides, ss, state.ub.size, profile
        )
    if fault:
        return _st.with_fault(state, fault)
    Es, Ed = bb // s.itemsize, bb // t.itemsize
    results = []
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if plan.active[r][l]:
                vals = []
                for x, (sblk, srep) in zip(srcs, src_strides, strict=True):
                    sa = _faults.lane_address(x.addr, r, l // Es, l % Es, sblk, srep, s.itemsize, bb)
                    vals.append(_st.read_bits(state.ub, sa, s.itemsize))
                da = _faults.lane_address(dst.addr, r, l // Ed, l % Ed, *dst_strides, t.itemsize, bb)
                vals.append(_st.read_bits(state.ub, da, t.itemsize))  # dst read before any write
                results.append((da, f(*vals)))
    out = _st.copy_state(state)
    for da, bits in results:  # program order: a later lane wins a byte written twice
        _st.write_bits(out.ub, da, t.itemsize, bits)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


def _mixed_steps(s, profile, state):
    """Cast half -> float32 (exact), float32 Mul, float32 Add: each step as its stand-alone API.
    SPEC (MulAddDst.md 结果示例): the page's half x half + float lanes are the unrounded (float32,
    exact) product plus dst, rounded once."""
    ctrl = _st.get_ctrl(state)
    widen = _cast.lane_function(s, _dt.as_dtype("float32"), "RINT", profile, ctrl)
    mul, add = _steps(_dt.as_dtype("float32"), profile, ctrl, "Mul", "Add")
    return widen, mul, add


def AddRelu(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = Relu(src0_i + src1_i)`` (复合计算/AddRelu.md)."""

    def factory(d, p, ctrl):
        add, relu = _steps(d, p, ctrl, "Add", "Relu")
        return lambda a, b: relu(add(a, b))

    return _ew.run("AddRelu", state, dst, (src0, src1), _SRC_NAMES, args, profile, isSetMask, factory)


def SubRelu(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = Relu(src0_i - src1_i)`` (复合计算/SubRelu.md)."""

    def factory(d, p, ctrl):
        sub, relu = _steps(d, p, ctrl, "Sub", "Relu")
        return lambda a, b: relu(sub(a, b))

    return _ew.run("SubRelu", state, dst, (src0, src1), _SRC_NAMES, args, profile, isSetMask, factory)


def FusedMulAdd(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = (src0_i × dst_i) + src1_i`` (复合计算/FusedMulAdd.md): two roundings."""

    # SPEC: "按元素将src0和dst相乘并加上src1，最终结果存放入dst" -- dst is read, then written
    def factory(d, p, ctrl):
        mul, add = _steps(d, p, ctrl, "Mul", "Add")
        return lambda a, b, c: add(mul(a, c), b)

    return _ew.run(
        "FusedMulAdd", state, dst, (src0, src1), _SRC_NAMES, args, profile, isSetMask, factory, read_dst=True
    )


def MulAddRelu(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = Relu((src0_i × dst_i) + src1_i)`` (复合计算/MulAddRelu.md)."""

    def factory(d, p, ctrl):
        mul, add, relu = _steps(d, p, ctrl, "Mul", "Add", "Relu")
        return lambda a, b, c: relu(add(mul(a, c), b))

    return _ew.run(
        "MulAddRelu", state, dst, (src0, src1), _SRC_NAMES, args, profile, isSetMask, factory, read_dst=True
    )


def MulAddDst(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = src0_i × src1_i + dst_i`` (复合计算/MulAddDst.md)."""
    if _mixed("MulAddDst", dst, src0, profile):
        widen, mul, add = _mixed_steps(src0.dtype, as_profile(profile), state)
        return _mixed_run(
            "MulAddDst",
            state,
            dst,
            (src0, src1),
            _SRC_NAMES,
            args,
            profile,
            isSetMask,
            lambda a, b, c: add(mul(widen(a), widen(b)), c),
        )

    def factory(d, p, ctrl):
        mul, add = _steps(d, p, ctrl, "Mul", "Add")
        return lambda a, b, c: add(mul(a, b), c)

    return _ew.run(
        "MulAddDst", state, dst, (src0, src1), _SRC_NAMES, args, profile, isSetMask, factory, read_dst=True
    )


def Axpy(state, dst, src, scalarValue, *args, profile, isSetMask=True):
    """``dst_i = scalarValue × src_i + dst_i`` (复合计算/Axpy.md)."""
    api = "Axpy"
    if _mixed(api, dst, src, profile):
        p = as_profile(profile)
        # SPEC: "const U& scalarValue": converted to U (half)
        s = _num.scalar_to_bits(api, scalarValue, src.dtype, p)
        widen, mul, add = _mixed_steps(src.dtype, p, state)
        k = widen(s)
        return _mixed_run(
            api, state, dst, (src,), ("src",), args, p, isSetMask, lambda x, c: add(mul(widen(x), k), c)
        )
    profile = as_profile(profile)
    _ew.check_static(api, dst, (src,), ("src",), args, profile, isSetMask)
    # SPEC: "scalarValue的数据类型需要和src保持一致": converted to U (= T here) first
    s = _num.scalar_to_bits(api, scalarValue, src.dtype, profile)

    def factory(d, p, ctrl):
        mul, add = _steps(d, p, ctrl, "Mul", "Add")
        return lambda x, c: add(mul(x, s), c)

    return _ew.run(api, state, dst, (src,), ("src",), args, profile, isSetMask, factory, read_dst=True)


def AbsSub(state, dst, src0, src1, *args, profile):
    """``dst_i = |src0_i - src1_i|`` (复合计算/AbsSub(ISASI).md): the count prototype only."""

    # SPEC: "AbsSub(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
    #       const uint32_t count)" -- the page's only prototype
    def factory(d, p, ctrl):
        sub, ab = _steps(d, p, ctrl, "Sub", "Abs")
        return lambda a, b: ab(sub(a, b))

    return _ew.run(
        "AbsSub", state, dst, (src0, src1), _SRC_NAMES, args, profile, True, factory, count_only=True
    )


def Prelu(state, dst, src0, src1, *args, profile):
    """``dst_i = src0_i >= 0 ? src0_i : src0_i × src1_i`` (基础算术/Prelu(ISASI).md): the count
    prototype only."""

    def factory(d, p, ctrl):
        fmt = _num.float_format(d)
        saturate = _num.float_saturating(p, d, ctrl)

        def f(x_bits, y_bits):
            x = _num.read_float_input(x_bits, fmt, p)
            # SPEC: "dst_i = (src0_i >= 0) ? src0_i : src0_i * src1_i" -- -0 >= 0 passes unchanged,
            #       NaN is not >= 0: it goes through the product (canonical NaN)
            v = x if x >= 0 else _num.f_mul(x, _num.read_float_input(y_bits, fmt, p))
            return _num.finish_float(v, fmt, p, saturate)

        return f

    return _ew.run(
        "Prelu", state, dst, (src0, src1), _SRC_NAMES, args, profile, True, factory, count_only=True
    )


def exp_sub_lane(d, p, ctrl):
    """One ExpSub lane for T = U = ``d``: the difference in float32 (half sources converted first,
    exactly), rounded to float32 as float32 Sub does, then e^x rounded once to T (Exp's numerics)."""
    # SPEC: "源操作数数据类型为half类型时 ... dst_i = e^{(cast_f16_to_f32(src0_i) - cast_f16_to_f32(src1_i))}"
    f32 = _dt.float32
    fmt, f32fmt = _num.float_format(d), _num.float_format(f32)
    sub32 = _elem.lane_function("Sub", f32, p, ctrl)
    _elem.numerics_choice("Exp", p)
    saturate = _num.float_saturating(p, d, ctrl)

    def widen(x):
        if d.name == "float32":
            return x
        return _num.round_to_bits(_num.read_float_input(x, fmt, p), f32fmt)  # exact: every half is a float

    def f(a, b):
        diff = _num.read_float_input(sub32(widen(a), widen(b)), f32fmt, p)
        return _num.finish_float(_elem.f_exp(diff), fmt, p, saturate)

    return f


def ExpSub(state, dst, src0, src1, *args, profile):
    """``dst_i = e^(src0_i - src1_i)`` (复合计算/ExpSub(ISASI).md): the count prototype only; T = U
    (the T != U combinations are not modelled)."""
    for t in (src0, src1):
        if isinstance(dst, LocalTensor) and isinstance(t, LocalTensor) and t.dtype != dst.dtype:
            raise NotModelledError(
                f"ExpSub: U = {t.dtype.name} with T = {dst.dtype.name} is not modelled yet"
            )
    return _ew.run(
        "ExpSub", state, dst, (src0, src1), _SRC_NAMES, args, profile, True, exp_sub_lane, count_only=True
    )


def Mull(state, dst0, dst1, src0, src1, *args, profile):
    """Mull(ISASI) (基础算术/Mull(ISASI).md): the full product of int32/uint32 ``src0_i × src1_i``;
    its low 32 bits go to ``dst0_i``, its high 32 bits ("溢出部分") to ``dst1_i``. The count
    prototype only. Faults: the one-source rules for each (dst, src) pair, and dst0 and dst1 sharing
    an active DataBlock (PARTIAL_OVERLAP, CHOICE: two results cannot share a place). All reads
    before any write; dst0's lanes are written, then dst1's."""
    api = "Mull"
    profile = as_profile(profile)
    names = ("dst1", "src0", "src1")
    count_form = _ew.check_static(api, dst0, (dst1, src0, src1), names, args, profile, True, count_only=True)
    assert count_form
    d = dst0.dtype
    dst0, dst1, src0, src1 = (LocalTensor(d, int(t.addr), t.length) for t in (dst0, dst1, src0, src1))
    plan = _masks.plan_count_form(api, state, d, args[0], True, profile)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    fault = 0
    for dst in (dst0, dst1):
        for src in (src0, src1):
            fault |= _faults.check_faults(api, plan, dst, src, d.itemsize, state.ub.size, profile)
    bb, size = profile.block_bytes, d.itemsize
    E = bb // size
    blocks = _faults.active_blocks(plan, E)
    b0 = sorted({_faults.block_address(dst0.addr, r, b, 1, 8, bb) for r, b in blocks})
    b1 = {_faults.block_address(dst1.addr, r, b, 1, 8, bb) for r, b in blocks}
    # CHOICE (MODEL.md "Mull"): the two results may not share a byte: an active dst1 block meeting an
    # active dst0 block (a misaligned pair of blocks meets without starting at the same address)
    for y in b1:
        i = bisect.bisect_right(b0, y)
        if (i and y - b0[i - 1] < bb) or (i < len(b0) and b0[i] - y < bb):
            fault |= Fault.PARTIAL_OVERLAP
            break
    if fault:
        return _st.with_fault(state, int(fault))
    writes = []
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if not plan.active[r][l]:
                continue
            a = _faults.lane_address(src0.addr, r, l // E, l % E, 1, 8, size, bb)
            b = _faults.lane_address(src1.addr, r, l // E, l % E, 1, 8, size, bb)
            x = _num.bits_to_int(_st.read_bits(state.ub, a, size), d)
            y = _num.bits_to_int(_st.read_bits(state.ub, b, size), d)
            # SPEC: "按元素相乘操作，将结果写入dst0，溢出部分写入dst1" (the figure: 64-bit product split)
            prod = (x * y) & ((1 << 64) - 1)
            da0 = _faults.lane_address(dst0.addr, r, l // E, l % E, 1, 8, size, bb)
            da1 = _faults.lane_address(dst1.addr, r, l // E, l % E, 1, 8, size, bb)
            writes.append((da0, prod & 0xFFFFFFFF, da1, prod >> 32))
    out = _st.copy_state(state)
    for da0, lo, _, _ in writes:
        _st.write_bits(out.ub, da0, size, lo)
    for _, _, da1, hi in writes:
        _st.write_bits(out.ub, da1, size, hi)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out
