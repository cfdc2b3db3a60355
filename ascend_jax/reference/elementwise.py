"""The shared loop of the element-wise families (binary.py: two tensor sources; unary.py: one).

Order of work, literally (as unary_scalar.py): static checks -> lane plan (masks.py) -> faults
(faults.py, once per source operand; a faulting call only ORs its fault bits) -> read every active
source lane -> compute -> write the active lanes in program order (repeat, block, lane; the later
write wins) -> register side effects.

Call forms (``*args`` after the tensors):
* ``(count,)``                                  tensor前n个数据计算
* ``(mask, repeatTime, repeatParams)``          tensor高维切分计算; ``mask`` an int (连续模式), a list
  of uint64 words (逐bit模式) or ``MASK_PLACEHOLDER`` with ``isSetMask=False``. ``repeatParams`` is a
  ``BinaryRepeatParams`` for two sources, a ``UnaryRepeatParams`` for one.
"""

import dataclasses

from ..errors import UsageError
from ..params import UnaryRepeatParams
from ..profile import as_profile
from ..tensor import LocalTensor
from . import compare as _cmp
from . import faults as _faults
from . import masks as _masks
from . import state as _st


def split_args(api, args, n_sources):
    """``True`` for the count form, ``False`` for the high-dim forms."""
    if len(args) == 1:
        return True
    if len(args) == 3:
        return False
    what = "src0, src1" if n_sources == 2 else "src"
    raise TypeError(
        f"{api}: expected (count,) or (mask, repeatTime, repeatParams) after {what}, got {len(args)} arguments"
    )


def check_static(api, dst, srcs, src_names, args, profile, is_set_mask, count_only=False):
    """Tensor types, isSetMask, the product's dtype table, equal T. Returns the count-form flag."""
    for t, name in ((dst, "dst"), *zip(srcs, src_names, strict=True)):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    if not isinstance(is_set_mask, bool):
        raise UsageError(api, "isSetMask", is_set_mask, "True or False", profile)
    count_form = split_args(api, args, len(srcs))
    if count_only and not count_form:
        # SPEC: the page lists only the tensor前n个数据计算 prototype (e.g. Neg(ISASI).md)
        raise UsageError(api, "mask", args[0], "no high-dim prototype: call (count,)", profile)
    # SPEC: "T支持的数据类型为：..." per product (数据类型 section of each page); some dtypes
    #       "仅支持tensor前n个数据计算接口" -> ApiSupport.count_only_dtypes.
    profile.require_api(api, dst.dtype, count_form=count_form)
    # SPEC: every prototype takes LocalTensor<T> for dst and the sources (one T)
    for t, name in zip(srcs, src_names, strict=True):
        if t.dtype != dst.dtype:
            raise UsageError(api, f"{name}.dtype", t.dtype.name, f"{dst.dtype.name} (= dst.dtype)", profile)
    for t, name in ((dst, "dst"), *zip(srcs, src_names, strict=True)):
        _masks.as_int(api, f"{name}.addr", t.addr, profile)
    return count_form


def run(
    api,
    state,
    dst,
    srcs,
    src_names,
    args,
    profile,
    is_set_mask,
    compute_factory,
    count_only=False,
    extra_faults=None,
    read_dst=False,
):
    """One call of an element-wise API. ``compute_factory(d, profile, ctrl)`` returns
    ``compute(*src_bits) -> dst_bits`` for one lane. ``extra_faults(plan, dst, dst_strides)``, when
    given, returns the fault bits of operands the lane loop does not see (an element scalar).
    ``read_dst``: dst is also an input (FusedMulAdd, MulAddDst, Axpy...); its lane's old value is
    ``compute``'s last argument (read with the sources, before any write)."""
    profile = as_profile(profile)
    count_form = check_static(api, dst, srcs, src_names, args, profile, is_set_mask, count_only)
    d = dst.dtype
    dst = LocalTensor(d, int(dst.addr), dst.length)
    srcs = [LocalTensor(d, int(s.addr), s.length) for s in srcs]
    n = len(srcs)

    # -- which lanes -----------------------------------------------------------------------
    if count_form:
        plan = _masks.plan_count_form(api, state, d, args[0], is_set_mask, profile)
        src_strides = [(1, 8)] * n
        dst_strides = (1, 8)
    else:
        mask, repeat_time, repeat_params = args
        if n == 2:
            _masks.check_repeat_time(api, repeat_time, profile)
            dblk, s0blk, s1blk, drep, s0rep, s1rep = _cmp.check_binary_params(api, repeat_params, profile)
            # the unary planner only sees valid default strides; the real ones are applied below
            plan = _masks.plan_high_dim(
                api, state, d, mask, repeat_time, UnaryRepeatParams(), is_set_mask, profile
            )
            dst_strides, src_strides = (dblk, drep), [(s0blk, s0rep), (s1blk, s1rep)]
        else:
            plan = _masks.plan_high_dim(api, state, d, mask, repeat_time, repeat_params, is_set_mask, profile)
            dblk, sblk, drep, srep = plan.strides
            dst_strides, src_strides = (dblk, drep), [(sblk, srep)]
    if plan.outcome == "nop":
        # SPEC: "不会执行计算操作，不会对目的操作数进行写入，该接口将被视为NOP" (基础算术/Add.md)
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)

    # -- faults: the one-source rules, once per source (MODEL.md "Faults") ------------------
    fault = 0
    for s, (sblk, srep) in zip(srcs, src_strides, strict=True):
        p = dataclasses.replace(plan, strides=(dst_strides[0], sblk, dst_strides[1], srep))
        fault |= _faults.check_faults(api, p, dst, s, d.itemsize, state.ub.size, profile)
    if extra_faults is not None:
        fault |= extra_faults(plan, dst, dst_strides)
    if fault:
        return _st.with_fault(state, fault)

    compute = compute_factory(d, profile, _st.get_ctrl(state))
    size = d.itemsize
    bb = profile.block_bytes
    E = bb // size

    # -- read every active source lane, compute (MODEL.md: all reads before any write) -------
    results = []
    src_lanes = [[] for _ in srcs]  # the checker's view (lane_warnings)
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if not plan.active[r][l]:
                continue  # SPEC: "mask为0时，目的操作数保持原值" (掩码/通用说明.md)
            b, e = l // E, l % E
            vals = []
            for i, (s, (sblk, srep)) in enumerate(zip(srcs, src_strides, strict=True)):
                sa = _faults.lane_address(s.addr, r, b, e, sblk, srep, size, bb)
                vals.append(_st.read_bits(state.ub, sa, size))
                src_lanes[i].append(sa)
            da = _faults.lane_address(dst.addr, r, b, e, dst_strides[0], dst_strides[1], size, bb)
            if read_dst:
                vals.append(_st.read_bits(state.ub, da, size))
            results.append((da, compute(*vals)))

    out = _st.copy_state(state)
    for da, bits in results:
        _st.write_bits(out.ub, da, size, bits)
    sources = list(zip(src_names, srcs, src_lanes, strict=True))
    _st.lane_warnings(state, out, api, dst, [da for da, _ in results], sources, size)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out
