"""SetDeqScale (类型转换/寄存器配置说明/SetDeqScale.md) and the cast composites of 复合计算/: AddReluCast,
SubReluCast, MulCast (``dst_i = Cast(f(src0_i, src1_i))``, U sources, T dst) and AddDeqRelu
(``dst_i = Relu(Deq(src0_i + src1_i))``, int32 sources, half dst) on the strided core with
``src_dtype`` (lanes counted by the wider type; each operand spans L * sizeof / 32 blocks a repeat).

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  SetDeqScale(scale)                        -- half: Cast int32 -> half, AddDeqRelu, CastDequant s322fp16
  SetDeqScale(scale, offset, signMode)      -- float, int16 (9 bits), bool: CastDequant s162b8
  SetDeqScale(vdeq, vdeqInfo)               -- 16 groups into a uint64 tensor: CastDequant s162b8, isVecDeq
  X(dst, src0, src1, count)
  X(dst, src0, src1, mask[] | mask, repeatTime, repeatParams)   -- BinaryRepeatParams
One program per (U, T, repeat bucket) serves AddReluCast / SubReluCast / MulCast (the API is traced,
``dyn["op"]``) and every call form; AddDeqRelu has its own (it reads DEQSCALE, traced too).
docs/MODEL.md "SetDeqScale and the DEQSCALE conversions", "Cast composites".
"""

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from .._engine import castcomp as CC
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import Fault, UnsupportedError, UsageError
from ..params import VdeqInfo
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..state import DEQSCALE_WORDS, register_words
from ..tensor import LocalTensor
from . import _args as A
from ._forms import empty_dyn, plan_forms

I32 = jnp.int32
U32 = jnp.uint32
HALF = _dt.as_dtype("half")
F32 = _dt.as_dtype("float32")
VDEQ_ENTRIES = 16  # SPEC: "空间被切分为16个64bit"

_D = "memory-vector/复合计算/"


# -- SetDeqScale ----------------------------------------------------------------------------------


@register(
    ApiSpec(
        "SetDeqScale",
        "cast",
        (
            "SetDeqScale(half scale)",
            "SetDeqScale(float scale, int16_t offset, bool signMode)",
            "SetDeqScale<T>(vdeq, vdeqInfo)",
        ),
        "memory-vector/类型转换/寄存器配置说明/SetDeqScale.md",
    )
)
def SetDeqScale(state, *args, profile=None):
    """Write the 64-bit DEQSCALE register (``AscendC::SetDeqScale``).

    ``SetDeqScale(state, scale)``: ``scale`` converted to half (round to nearest even), in bits 0~15
    (Cast int32 -> half, AddDeqRelu, CastDequant s322fp16). ``SetDeqScale(state, scale, offset,
    signMode)``: ``scale`` as float32 in bits 0~31, ``offset`` (int16, "只有前9位有效") in bits 37~45,
    ``signMode`` in bit 46 (CastDequant s162b8). The other bits are written 0 (CHOICE).
    ``SetDeqScale(state, vdeq, vdeqInfo)``: the 16 groups of the ``VdeqInfo`` packed the same way into
    the uint64 LocalTensor ``vdeq`` (128 bytes), DEQSCALE = its address >> 5 (CastDequant s162b8,
    isVecDeq). **Spec:**
    memory-vector/类型转换/寄存器配置说明/SetDeqScale.md. Profile keys: ``apis.SetDeqScale``.
    """
    api = "SetDeqScale"
    p = as_profile(profile)
    p.require_api(api)
    if len(args) == 1:
        words = CC.pack_deq(A.scalar_bits(api, args[0], HALF, p, "scale"))
    elif len(args) == 3:
        scale, offset, signMode = args
        sb = A.scalar_bits(api, scale, F32, p, "scale")
        # SPEC: "offset量化参数，int16_t类型，只有前9位有效"
        A.static_int(api, "offset", offset, -(1 << 15), (1 << 15) - 1, p)
        if A.is_static(signMode) and not isinstance(signMode, (bool, np.bool_)):
            raise UsageError(api, "signMode", signMode, "True or False", p)
        words = CC.pack_deq(sb, offset, signMode)
    elif len(args) == 2:
        return _set_deq_table(state, args[0], args[1], p)
    else:
        raise TypeError(
            f"SetDeqScale() takes (scale), (scale, offset, signMode) or (vdeq, vdeqInfo); got {len(args)} "
            "arguments"
        )
    old = register_words(state, "deqscale")
    return state.replace(deqscale=jnp.broadcast_to(words, old.shape[:-1] + (DEQSCALE_WORDS,)).astype(U32))


def _table_field(api, p, name, value, dtype, lo, hi):
    """One VdeqInfo field as an array of 16 (static values range-checked)."""
    if A.is_static(value) or isinstance(value, (list, tuple)):
        vals = list(value) if isinstance(value, (list, tuple)) else [value]
        if len(vals) != VDEQ_ENTRIES:
            raise UsageError(api, name, f"{len(vals)} values", f"{VDEQ_ENTRIES} values", p)
        if dtype is bool:
            for v in vals:
                if A.is_static(v) and not isinstance(v, (bool, np.bool_)):
                    raise UsageError(api, name, v, "True or False", p)
        elif lo is not None:
            for v in vals:
                A.static_int(api, name, v, lo, hi, p)
        return vals
    v = jnp.asarray(value)
    if v.shape != (VDEQ_ENTRIES,):
        raise UsageError(api, name, f"shape {tuple(v.shape)}", f"({VDEQ_ENTRIES},)", p)
    return v


def _set_deq_table(state, vdeq, info, p):
    """``SetDeqScale<T>(vdeq, vdeqInfo)``: the 16 groups packed as the scalar form packs one (scale bits
    0~31, offset bits 37~45, signMode bit 46) into the uint64 tensor ``vdeq``, and DEQSCALE bits 0~13 =
    vdeq's address >> 5 (a 32-byte-aligned UB address). A misaligned or outside-UB vdeq is a fault (the
    call then writes nothing)."""
    api = "SetDeqScale"
    A.check_tensor(api, "vdeq", vdeq, p)
    p.require_api(api, vdeq.dtype)  # SPEC: "T ... 支持的数据类型为uint64_t"
    # SPEC: "SetDeqScale接口需要传入至少128B大小的UB空间" (CastDequant.md 约束说明)
    if A.is_static(vdeq.length) and int(vdeq.length) < VDEQ_ENTRIES:
        raise UsageError(
            api, "vdeq", f"{int(vdeq.length)} elements", f"at least {VDEQ_ENTRIES} (128 bytes)", p
        )
    if not isinstance(info, VdeqInfo):
        raise UsageError(api, "vdeqInfo", type(info).__name__, "a VdeqInfo", p)
    sc = _table_field(api, p, "vdeqInfo.vdeqScale", info.vdeqScale, F32, None, None)
    off = _table_field(api, p, "vdeqInfo.vdeqOffset", info.vdeqOffset, I32, -(1 << 15), (1 << 15) - 1)
    sg = _table_field(api, p, "vdeqInfo.vdeqSignMode", info.vdeqSignMode, bool, None, None)
    if isinstance(sc, list):
        sb = jnp.stack([jnp.asarray(A.scalar_bits(api, v, F32, p, "vdeqInfo.vdeqScale"), U32) for v in sc])
    elif sc.dtype == jnp.uint32:
        sb = sc
    else:
        sb = jax.lax.bitcast_convert_type(sc.astype(jnp.float32), U32)
    words = CC.pack_deq(sb, jnp.asarray(off, I32), jnp.asarray(sg, bool))  # [2, 16]: low, high words
    data = jnp.stack([words[0], words[1]], axis=-1).reshape(-1)  # little-endian uint64s
    raw = ((data[:, None] >> (U32(8) * jnp.arange(4, dtype=U32))) & U32(0xFF)).astype(jnp.uint8).reshape(-1)
    addr = A.addr_of(vdeq)
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fault = jnp.where(addr % p.operand_alignment_bytes != 0, U32(Fault.MISALIGNED), U32(0))
    fault |= jnp.where((addr < 0) | (addr + 8 * VDEQ_ENTRIES > limit), U32(Fault.OUT_OF_UB), U32(0))
    ok = fault == 0
    a = jnp.clip(addr, 0, state.ub.shape[-1] - 8 * VDEQ_ENTRIES)
    ub = jnp.where(ok, jax.lax.dynamic_update_slice(state.ub, raw, (a,)), state.ub)
    old = register_words(state, "deqscale")
    # SPEC (SetDeqScale.md 表1): "0~13 | vdeqAddr | 被硬件视为一个地址，指向UB中的一块空间"
    new = jnp.stack([(addr.astype(U32) >> U32(5)) & U32(0x3FFF), U32(0)])
    out = state.replace(ub=ub, deqscale=jnp.where(ok, new, old).astype(U32), fault=state.fault | fault)
    if state.written is not None:
        mark = jax.lax.dynamic_update_slice(state.written, jnp.ones((8 * VDEQ_ENTRIES,), jnp.uint8), (a,))
        out = out.replace(written=jnp.where(ok, mark, state.written))
    return out


# -- the binary cast composites -------------------------------------------------------------------


def cast_pairs(profile, api):
    """{(src name, dst name): count_only} of the product's ``apis.<api>.pairs``."""
    out = {}
    for entry in profile.api(api).pairs:
        words = entry.split()
        src, dst = (x.strip() for x in words[0].split("->"))
        out[(src, dst)] = "[count]" in words[1:]
    return out


def _pair_ops(p, s, t):
    """The cast composites the product has for (U, T), in CAST_OPS order (one program's API set)."""
    out = []
    for op in CC.CAST_OPS:
        a = p.api(op)
        if a.supported and (s.name, t.name) in cast_pairs(p, op):
            out.append(op)
    return tuple(out)


def plan(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one AddReluCast / SubReluCast / MulCast / AddDeqRelu call."""
    p = as_profile(profile)
    for name, t in (("dst", dst), ("src0", src0), ("src1", src1)):
        A.check_tensor(api, name, t, p)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}() takes (dst, src0, src1, count) or (dst, src0, src1, mask, repeatTime, repeatParams); "
            f"got {3 + len(args)} arguments"
        )
    count_form = len(args) == 1
    p.require_api(api)
    A.check_same_dtype(api, p, src0=src0, src1=src1)
    s, t = src0.dtype, dst.dtype
    if api == "AddDeqRelu":
        # SPEC: AddDeqRelu.md 表3 "src0、src1数据类型 int32_t, dst数据类型 half"
        pairs = {("int32", "half"): False}
    else:
        pairs = cast_pairs(p, api)
    if (s.name, t.name) not in pairs:
        listed = ", ".join(f"{a}->{b}" for a, b in pairs)
        raise UnsupportedError(api, "src0.dtype/dst.dtype", f"{s.name}->{t.name}", listed, p)
    if pairs[(s.name, t.name)] and not count_form:
        raise UnsupportedError(
            api, "src0.dtype/dst.dtype", f"{s.name}->{t.name}", "the count prototype only", p
        )
    wide = s if s.itemsize > t.itemsize else t
    dyn = empty_dyn("dst", "src0", "src1")
    dyn["dst"], dyn["src0"], dyn["src1"] = A.addr_of(dst), A.addr_of(src0), A.addr_of(src1)
    set_extents(dyn, dst=dst, src0=src0, src1=src1)
    # SPEC: "针对源操作数的连续n个数据进行计算并连续写入目的操作数" (连续计算.md): every operand is
    # contiguous; a repeat of L lanes spans L * sizeof / 32 blocks of that operand
    L = p.lanes(wide)
    nd, ns = L * t.itemsize // p.block_bytes, L * s.itemsize // p.block_bytes
    form, R, ordered = plan_forms(
        api,
        state,
        wide,
        args,
        p,
        isSetMask,
        max_repeats,
        dyn,
        binary=True,
        count_strides=[1, 1, 1, nd, ns, ns],
    )
    if api == "AddDeqRelu":
        dyn["deq"] = register_words(state, "deqscale")
        kw = dict(api=api, elem=CC.DeqElem(add_relu=True))
    else:
        dyn["op"] = jnp.asarray(CC.CAST_OPS.index(api), I32)
        kw = dict(api="*", api_codes=CC.CAST_OPS, elem=CC.CastOpsElem(s, _pair_ops(p, s, t)))
    st = StridedStatic(dtype=t, R=R, ordered=ordered, profile=p, srcs=("src0", "src1"), src_dtype=s, **kw)
    return st, dyn


_PROTOS = (
    "{name}<T, U>(dst, src0, src1, count)",
    "{name}<T, U, isSetMask>(dst, src0, src1, mask[], repeatTime, repeatParams)",
    "{name}<T, U, isSetMask>(dst, src0, src1, mask, repeatTime, repeatParams)",
)


def _make(name, formula, page, keys):
    def api(state, dst, src0, src1, *args, profile=None, isSetMask=True, max_repeats=None):
        st, dyn = plan(name, state, dst, src0, src1, args, profile, isSetMask, max_repeats)
        return run_strided(st, state, dyn)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"""``{formula}`` over the active lanes (Ascend C ``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, dst, src0, src1, count)`` or ``{name}(state, dst, src0,
    src1, mask, repeatTime, repeatParams)`` (``BinaryRepeatParams``; ``mask`` int, uint64 word list,
    traced words, or ``MASK_PLACEHOLDER`` with ``isSetMask=False``). Lanes are counted by the wider
    of U and T. Each step is rounded as its stand-alone API (docs/MODEL.md "Cast composites").

    **Spec:** {page}. Profile keys: {keys}.
    """
    return register(ApiSpec(name, "compound", tuple(x.format(name=name) for x in _PROTOS), page))(api)


AddReluCast = _make(
    "AddReluCast", "dst_i = Cast(Relu(src0_i + src1_i))", _D + "AddReluCast.md", "``apis.AddReluCast.pairs``"
)
SubReluCast = _make(
    "SubReluCast", "dst_i = Cast(Relu(src0_i - src1_i))", _D + "SubReluCast.md", "``apis.SubReluCast.pairs``"
)
MulCast = _make("MulCast", "dst_i = Cast(src0_i * src1_i)", _D + "MulCast.md", "``apis.MulCast.pairs``")
AddDeqRelu = _make(
    "AddDeqRelu",
    "dst_i = Relu(Deq(src0_i + src1_i)), Deq(x) = Cast(x * DEQSCALE.scale) (RINT)",
    _D + "AddDeqRelu.md",
    "``apis.AddDeqRelu`` and the DEQSCALE register (SetDeqScale)",
)


# -- MulsCast(ISASI) ------------------------------------------------------------------------------


@register(
    ApiSpec(
        "MulsCast",
        "compound",
        ("MulsCast<T0, T1, config>(dst, src0, src1, count)",),
        _D + "MulsCast(ISASI).md",
    )
)
def MulsCast(state, dst, src0, src1, count, *, profile=None, config=None, max_repeats=None):
    """``dst_i = Cast(src0_i * scalar)`` or ``Cast(scalar * src1_i)`` over the first ``count`` elements
    (Ascend C ``AscendC::MulsCast``, ISASI): float32 sources, a half dst; the product rounded as Muls
    (float32), then CAST_ROUND to half, saturating. The scalar: a Python number in one position
    (converted to float32 first), or -- both operands LocalTensors -- element 0 of the float32 tensor
    ``config`` names (``BinaryConfig(scalarTensorIndex)``: 0 = src0, 1 = src1, default 1), read from UB
    at run time: inside UB (OUT_OF_UB), no alignment rule, not meeting an active dst block
    (PARTIAL_OVERLAP). **Spec:** memory-vector/复合计算/MulsCast(ISASI).md. Profile keys: ``apis.MulsCast``.
    """
    api = "MulsCast"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    t0, t1 = isinstance(src0, LocalTensor), isinstance(src1, LocalTensor)
    if not t0 and not t1:
        raise UsageError(api, "src0/src1", (src0, src1), "one LocalTensor operand", p, "two scalars")
    element = t0 and t1
    if element:
        # SPEC: "config ... 当标量为LocalTensor单点元素类型时生效 ... 默认值DEFAULT_BINARY_CONFIG，表示右操作数为标量"
        idx = 1 if config is None else getattr(config, "scalarTensorIndex", config)
        if not isinstance(idx, int) or isinstance(idx, bool) or idx not in (0, 1):
            raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", p)
        first = idx == 0
    else:
        first = not t0
    vec, scalar, s_name = (src1, src0, "src0") if first else (src0, src1, "src1")
    p.require_api(api, vec.dtype, count_form=True)
    if dst.dtype != HALF:  # SPEC: "dst ... 支持的数据类型为：half"
        raise UsageError(api, "dst.dtype", dst.dtype.name, "half", p)
    if element and scalar.dtype != F32:  # SPEC: "src0/src1 ... 支持的数据类型为：float"
        raise UsageError(api, f"{s_name}.dtype", scalar.dtype.name, "float32", p)
    dyn = empty_dyn("dst", "src")
    dyn["dst"], dyn["src"] = A.addr_of(dst), A.addr_of(vec)
    set_extents(dyn, dst=dst, src=vec)
    _, R, ordered = plan_forms(api, state, F32, (count,), p, True, max_repeats, dyn)
    L = p.lanes(F32)  # lanes by the wider type (float32); each operand contiguous
    dyn["strides"] = jnp.asarray([1, 1, L * 2 // p.block_bytes, L * 4 // p.block_bytes], I32)
    if element:
        dyn["scalar"] = jnp.zeros((), U32)
        dyn["elem"] = A.addr_of(scalar)
    else:
        dyn["scalar"] = A.scalar_bits(api, scalar, F32, p, s_name)
        dyn["elem"] = jnp.zeros((), I32)
    dyn["elem_on"] = jnp.asarray(element)
    st = StridedStatic(
        api=api,
        dtype=HALF,
        R=R,
        ordered=ordered,
        profile=p,
        elem=CC.MulsCastElem(),
        src_dtype=F32,
        element_scalar=True,
        scalar_dtype=F32,
    )
    return run_strided(st, state, dyn)


__all__ = ["SetDeqScale", "AddReluCast", "SubReluCast", "MulCast", "AddDeqRelu", "MulsCast"]
