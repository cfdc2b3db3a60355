"""Data layout (数据排布转换/: Transpose, TransDataTo5HD) and data rearrangement (数据重排（ISASI）/:
Interleave, DeInterleave). Prototypes (C++ argument order):

  Transpose(dst, src)                                        16x16 two-byte transpose
  Transpose(dst, src, sharedTmpBuffer, transposeParams)      enhanced: TransposeParamsExt
  TransDataTo5HD<T>(dstList, srcList, nchwconvParams)        uint64 address lists / LocalTensor lists
  TransDataTo5HD<T>(dst, src, nchwconvParams)                LocalTensor<uint64_t> address tables
  Interleave(dst0, dst1, src0, src1, count)
  DeInterleave(dst0, dst1, src0, src1, count) / DeInterleave(dst0, dst1, src, srcCount)

Static misuse raises UsageError / UnsupportedError at trace time; traced parameters outside their
range record BAD_PARAM. The engine (``_engine/layout.py``) runs one program per (API family, dtype,
bucket) with addresses, sizes, strides, counts and (Interleave/DeInterleave) the API traced.
docs/MODEL.md "Data layout" has the rules.
"""

import enum
import math

import chex
import jax.numpy as jnp

from .._engine import layout as LY
from ..dtypes import as_dtype
from ..errors import UnsupportedError, UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A
from ._forms import default_big_bucket

I32 = jnp.int32

# -- the structs and the enum (C++ names, order and defaults) ------------------------------------


class TransposeType(enum.IntEnum):
    """``enum class TransposeType : uint8_t`` (Transpose.md 表TransposeParamsExt结构体内参数说明)."""

    TRANSPOSE_TYPE_NONE = 0  # API不做任何处理
    TRANSPOSE_NZ2ND_0213 = 1  # 当前不支持
    TRANSPOSE_NZ2NZ_0213 = 2
    TRANSPOSE_NZ2NZ_012_WITH_N = 3
    TRANSPOSE_NZ2ND_012_WITH_N = 4
    TRANSPOSE_NZ2ND_012_WITHOUT_N = 5
    TRANSPOSE_NZ2NZ_012_WITHOUT_N = 6
    TRANSPOSE_ND2ND_ONLY = 7
    TRANSPOSE_ND_UB_GM = 8
    TRANSPOSE_GRAD_ND_UB_GM = 9
    TRANSPOSE_ND2ND_B16 = 10  # [16,16]二维矩阵转置
    TRANSPOSE_NCHW2NHWC = 11  # [N,C,H,W]->[N,H,W,C]
    TRANSPOSE_NHWC2NCHW = 12  # [N,H,W,C]->[N,C,H,W]


_MODELLED_TYPES = {
    "TRANSPOSE_TYPE_NONE": LY.TT_NONE,
    "TRANSPOSE_ND2ND_B16": LY.TT_B16,
    "TRANSPOSE_NCHW2NHWC": LY.TT_NCHW2NHWC,
    "TRANSPOSE_NHWC2NCHW": LY.TT_NHWC2NCHW,
}


def _dc(cls):
    return chex.dataclass(frozen=True, mappable_dataclass=False)(cls)


@_dc
class TransposeParamsExt:
    """``TransposeParamsExt{nSize, cSize, hSize, wSize (uint16_t, default 0), transposeType
    (default TRANSPOSE_ND2ND_B16)}``. Sizes may be traced; ``transposeType`` is static."""

    nSize: object = 0
    cSize: object = 0
    hSize: object = 0
    wSize: object = 0
    transposeType: object = TransposeType.TRANSPOSE_ND2ND_B16


@_dc
class TransDataTo5HDParams:
    """``TransDataTo5HDParams{dstHighHalf, srcHighHalf (bool, default false), repeatTimes (uint8_t,
    default 1), dstRepStride, srcRepStride (default 0; DataBlocks)}``. CHOICE: the strides are
    uint16 (the page gives no type). Fields may be traced."""

    dstHighHalf: object = False
    srcHighHalf: object = False
    repeatTimes: object = 1
    dstRepStride: object = 0
    srcRepStride: object = 0


def _as_struct(api, argname, value, cls, profile):
    if isinstance(value, cls):
        return value
    if isinstance(value, (tuple, list)):
        return cls(*value)
    if isinstance(value, dict):
        return cls(**value)
    raise UsageError(api, argname, type(value).__name__, f"a {cls.__name__}", profile)


def _elem_bucket(n_bytes, p, max_repeats):
    """Element slots: a repeat bucket (256-byte units) of ``n_bytes``, or of ``max_repeats``."""
    reps = (
        A.bucket(max_repeats)
        if max_repeats is not None
        else A.bucket(math.ceil(max(n_bytes, 1) / p.repeat_bytes))
    )
    return reps * p.repeat_bytes


def _traced_bucket_bytes(p, max_repeats):
    return (A.bucket(max_repeats) if max_repeats is not None else default_big_bucket(p)) * p.repeat_bytes


# -- Transpose ----------------------------------------------------------------------------------


def _transpose_type(api, value, p, a):
    name = value.name if isinstance(value, TransposeType) else value
    if isinstance(name, int) and not isinstance(name, bool) and name in {t.value for t in TransposeType}:
        name = TransposeType(name).name
    allowed = ["TRANSPOSE_TYPE_NONE"]
    if a.nd2nd_dtypes:
        allowed.append("TRANSPOSE_ND2ND_B16")
    if a.nchw_dtypes:
        allowed += ["TRANSPOSE_NCHW2NHWC", "TRANSPOSE_NHWC2NCHW"]
    text = " | ".join(f"TransposeType.{t}" for t in allowed)
    if not isinstance(name, str) or name not in TransposeType.__members__:
        raise UsageError(api, "transposeParams.transposeType", value, text, p)
    if name not in _MODELLED_TYPES:
        # SPEC: the NZ/ND_ONLY/UB_GM types are marked "当前不支持"
        raise UsageError(
            api, "transposeParams.transposeType", name, text, p, "当前不支持 (not supported yet)"
        )
    if name not in allowed:
        raise UnsupportedError(api, "transposeParams.transposeType", name, text, p)
    return name


def plan_transpose(state, dst, src, sharedTmpBuffer, transposeParams, profile, max_repeats=None):
    """(TransposeStatic, dyn) of one Transpose call; static misuse raises UsageError."""
    api = "Transpose"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    A.check_same_dtype(api, p, dst=dst, src=src)
    dt = dst.dtype
    a = p.require_api(api)
    z = jnp.zeros((), I32)
    dyn = {"dst": A.addr_of(dst), "src": A.addr_of(src), "tmp": z, "need": z, "n": z, "c": z, "hw": z}
    bad = jnp.zeros((), bool)
    if sharedTmpBuffer is None and transposeParams is None:
        p.require_api(api, dt)
        dyn.update(type=jnp.asarray(LY.TT_B16, I32), bad_param=bad)
        return LY.TransposeStatic(
            dtype=dt, B=_elem_bucket(512, p, max_repeats) // dt.itemsize, profile=p
        ), dyn
    if transposeParams is None:
        raise UsageError(api, "transposeParams", None, "a TransposeParamsExt (with sharedTmpBuffer)", p)
    if not a.nd2nd_dtypes and not a.nchw_dtypes:
        raise UnsupportedError(
            api, "sharedTmpBuffer", "LocalTensor", "none: only Transpose(dst, src) on this product", p
        )
    A.check_tensor(api, "sharedTmpBuffer", sharedTmpBuffer, p)
    if sharedTmpBuffer.dtype.name != "uint8":
        raise UsageError(api, "sharedTmpBuffer.dtype", sharedTmpBuffer.dtype.name, "uint8", p)
    tp = _as_struct(api, "transposeParams", transposeParams, TransposeParamsExt, p)
    tname = _transpose_type(api, tp.transposeType, p, a)
    code = _MODELLED_TYPES[tname]
    allowed_dt = {LY.TT_B16: a.nd2nd_dtypes}.get(code, a.nchw_dtypes)
    if code != LY.TT_NONE and dt.name not in allowed_dt:
        raise UnsupportedError(api, "dtype", dt.name, ", ".join(allowed_dt), p, f"with {tname}")
    n, c, h, w = tp.nSize, tp.cSize, tp.hSize, tp.wSize
    for v, f in ((n, "nSize"), (c, "cSize"), (h, "hSize"), (w, "wSize")):
        A.static_int(api, f"transposeParams.{f}", v, 0, 65535, p)  # uint16_t fields
        bad = bad | A.traced_range_bad(v, 0, 65535)
    size = dt.itemsize
    dyn["type"] = jnp.asarray(code, I32)
    if code == LY.TT_B16:
        # SPEC: "二维矩阵数据块转置时，nSize、cSize无需传入，传入数值无效；hSize、wSize固定传入16"
        for v, f in ((h, "hSize"), (w, "wSize")):
            A.static_int(api, f"transposeParams.{f}", v, 16, 16, p, "fixed to 16 for TRANSPOSE_ND2ND_B16")
            bad = bad | A.traced_range_bad(v, 16, 16)
        B = _elem_bucket(512, p, max_repeats) // size
    elif code == LY.TT_NONE:
        B = _elem_bucket(1, p, max_repeats) // size
    else:
        # SPEC: "nSize∈[0, 65535]，cSize∈[0, 4095]，hSize * wSize ∈[0, 4095]，hSize * wSize * sizeof(T)
        #       需要保证32B对齐"
        A.static_int(api, "transposeParams.cSize", c, 0, 4095, p)
        bad = bad | A.traced_range_bad(c, 0, 4095)
        hw_name = "transposeParams.hSize/transposeParams.wSize"
        if A.is_static(h) and A.is_static(w):
            hw = int(h) * int(w)
            if hw > 4095 or (hw * size) % 32:
                raise UsageError(
                    api,
                    hw_name,
                    f"{h}*{w}",
                    "hSize*wSize in [0, 4095] with hSize*wSize*sizeof(T) % 32 == 0",
                    p,
                )
        else:
            hw = jnp.asarray(h, I32) * jnp.asarray(w, I32)
            bad = bad | (hw < 0) | (hw > 4095) | ((hw * size) % 32 != 0)
        dyn.update(n=jnp.asarray(n, I32), c=jnp.asarray(c, I32), hw=jnp.asarray(hw, I32))
        # SPEC: tmpBufferSize = (cSize + 2) * h0 * w0 * sizeof(T) (NCHW2NHWC), (cSize * 2 + 1) * ...
        #       (NHWC2NCHW); h0 = 32 for 8-bit T else 16, w0 = 32 / sizeof(T); 310P: none needed
        unit = (32 if size == 1 else 16) * (32 // size) * size
        k1, k0 = (1, 2) if code == LY.TT_NCHW2NHWC else (2, 1)
        if a.tmp_buffer == "formula":
            need = (k1 * jnp.asarray(c, I32) + k0) * unit
            if A.is_static(c):
                need_i = (k1 * int(c) + k0) * unit
                if sharedTmpBuffer.nbytes < need_i:
                    raise UsageError(
                        api,
                        "sharedTmpBuffer",
                        f"{sharedTmpBuffer.nbytes} bytes",
                        f"at least {need_i} bytes",
                        p,
                        "入参sharedTmpBuffer的大小不得小于计算所需的最小阈值",
                    )
            else:
                bad = bad | (need > sharedTmpBuffer.nbytes)
            dyn["need"] = need
            dyn["tmp"] = A.addr_of(sharedTmpBuffer)
        if all(A.is_static(v) for v in (n, c, h, w)):
            total_b = int(n) * int(c) * int(h) * int(w) * size
            B = _elem_bucket(total_b if total_b <= p.ub_usable_bytes else 1, p, max_repeats) // size
        else:
            B = (
                _traced_bucket_bytes(p, max_repeats) // size
                if max_repeats is not None
                else _elem_bucket(max(dst.nbytes, src.nbytes), p, None) // size
            )
    dyn["bad_param"] = bad
    return LY.TransposeStatic(dtype=dt, B=B, profile=p), dyn


@register(
    ApiSpec(
        "Transpose",
        "layout",
        (
            "Transpose(dst, src)",
            "Transpose(dst, src, sharedTmpBuffer, transposeParams)",
        ),
        "memory-vector/数据排布转换/Transpose.md",
    )
)
def Transpose(state, dst, src, sharedTmpBuffer=None, transposeParams=None, *, profile=None, max_repeats=None):
    """Transpose (``AscendC::Transpose``): ``Transpose(dst, src)`` transposes one 16x16 matrix of a
    two-byte T (dst[i][j] = src[j][i]; dst may be src); ``Transpose(dst, src, sharedTmpBuffer,
    transposeParams)`` with a ``TransposeParamsExt``: TRANSPOSE_ND2ND_B16 (the same 16x16),
    TRANSPOSE_NCHW2NHWC / TRANSPOSE_NHWC2NCHW ([N,C,H,W] <-> [N,H,W,C]; no overlap), or
    TRANSPOSE_TYPE_NONE (nothing). ``max_repeats``: static bucket (256-byte units) for traced sizes.

    **Spec:** memory-vector/数据排布转换/Transpose.md. Profile keys: ``apis.Transpose``
    (``nd2nd_dtypes``, ``nchw_dtypes``, ``tmp_buffer``).
    """
    st, dyn = plan_transpose(state, dst, src, sharedTmpBuffer, transposeParams, profile, max_repeats)
    return LY.run_transpose(st, state, dyn)


# -- TransDataTo5HD -----------------------------------------------------------------------------

LIST_SIZE = 16  # NCHW_CONV_ADDR_LIST_SIZE


def _static_address(api, argname, v, p):
    v = A.static_int(api, argname, v, 0, 2**64 - 1, p)  # uint64_t
    # an address no UB has keeps its alignment and stays outside every UB
    return v if v < (1 << 30) else (1 << 30) + v % 32


def _address_list(api, argname, lst, p):
    """int32[16] addresses of a list of 16 uint64 values (ints) or a traced int array [16]."""
    if isinstance(lst, (list, tuple)):
        if len(lst) != LIST_SIZE:
            raise UsageError(api, argname, f"{len(lst)} entries", "16 (NCHW_CONV_ADDR_LIST_SIZE)", p)
        if all(isinstance(x, LocalTensor) for x in lst):
            return None  # a LocalTensor list: the caller handles it
        vals = []
        for i, x in enumerate(lst):
            if A.is_static(x):
                vals.append(jnp.asarray(_static_address(api, f"{argname}[{i}]", x, p), I32))
            elif isinstance(x, LocalTensor):
                raise UsageError(api, argname, "a mixed list", "16 LocalTensors or 16 addresses", p)
            else:
                vals.append(jnp.asarray(x, I32))
        return jnp.stack(vals)
    v = jnp.asarray(lst)
    if v.shape != (LIST_SIZE,) or not jnp.issubdtype(v.dtype, jnp.integer):
        raise UsageError(api, argname, f"array {v.dtype}{list(v.shape)}", "16 integer addresses", p)
    return v.astype(I32)


def plan_5hd(state, dstList, srcList, nchwconvParams, T, profile, max_repeats=None):
    """(Nchw5hdStatic, dyn) of one TransDataTo5HD call; static misuse raises UsageError."""
    api = "TransDataTo5HD"
    p = as_profile(profile)
    p.require_api(api)
    dyn = {}
    table = isinstance(dstList, LocalTensor) or isinstance(srcList, LocalTensor)
    if table:
        # TransDataTo5HD<T>(dst, src, params): LocalTensor<uint64_t> holding the 16 addresses each
        for t, name in ((dstList, "dst"), (srcList, "src")):
            A.check_tensor(api, name, t, p)
            if t.dtype.name != "uint64":
                raise UsageError(
                    api, f"{name}.dtype", t.dtype.name, "uint64 (LocalTensor<uint64_t> of addresses)", p
                )
        if T is None:
            raise UsageError(api, "T", None, "the element type (template argument)", p)
        dt = as_dtype(T)
        dyn.update(dst_tab=A.addr_of(dstList), src_tab=A.addr_of(srcList))
    else:
        d_l = _address_list(api, "dstList", dstList, p)
        s_l = _address_list(api, "srcList", srcList, p)
        if (d_l is None) != (s_l is None):
            raise UsageError(api, "srcList", "a different kind of list", "the kind of dstList", p)
        if d_l is None:  # LocalTensor<T> lists
            dt = dstList[0].dtype
            for name, lst in (("dstList", dstList), ("srcList", srcList)):
                for i, t in enumerate(lst):
                    if t.dtype != dt:
                        raise UsageError(api, f"{name}[{i}].dtype", t.dtype.name, dt.name, p)
            if T is not None and as_dtype(T) != dt:
                raise UsageError(api, "T", as_dtype(T).name, dt.name, p, "T must be the tensors' type")
            d_l = jnp.stack([A.addr_of(t) for t in dstList])
            s_l = jnp.stack([A.addr_of(t) for t in srcList])
        else:
            if T is None:
                raise UsageError(api, "T", None, "the element type (template argument)", p)
            dt = as_dtype(T)
        dyn.update(dst_list=d_l, src_list=s_l)
    p.require_api(api, dt)
    prm = _as_struct(api, "nchwconvParams", nchwconvParams, TransDataTo5HDParams, p)
    bad = jnp.zeros((), bool)
    # SPEC: "repeatTimes∈[0,255]"
    rep = A.static_int(api, "nchwconvParams.repeatTimes", prm.repeatTimes, 0, 255, p)
    bad = bad | A.traced_range_bad(rep, 0, 255)
    for f in ("dstRepStride", "srcRepStride"):
        A.static_int(api, f"nchwconvParams.{f}", getattr(prm, f), 0, 65535, p)
        bad = bad | A.traced_range_bad(getattr(prm, f), 0, 65535)
    halves = []
    for f in ("dstHighHalf", "srcHighHalf"):
        v = getattr(prm, f)
        if A.is_static(v):
            if not isinstance(v, (bool, int)) or int(v) not in (0, 1):
                raise UsageError(api, f"nchwconvParams.{f}", v, "true or false", p)
            halves.append(jnp.asarray(int(v), I32))
        else:
            halves.append(jnp.asarray(v).astype(I32))
    if dt.itemsize != 1:  # SPEC: "该配置只支持int8_t、uint8_t的数据类型" (ignored otherwise)
        halves = [jnp.zeros((), I32), jnp.zeros((), I32)]
    dyn.update(
        repeat=jnp.asarray(rep, I32),
        dst_rep=jnp.asarray(prm.dstRepStride, I32),
        src_rep=jnp.asarray(prm.srcRepStride, I32),
        dst_high=halves[0],
        src_high=halves[1],
        bad_param=bad,
    )
    if max_repeats is not None:
        R = A.bucket(max_repeats)
    elif A.is_static(rep):
        R = A.bucket(max(1, rep))
    else:
        R = A.bucket(255)
    return LY.Nchw5hdStatic(dtype=dt, R=R, profile=p, table=table), dyn


_BLK = 32  # bytes per DataBlock


def footprint_5hd(dstList, srcList, nchwconvParams):
    """The UB byte ranges ``[(start, end, write), ...]`` one TransDataTo5HD call touches, for the
    call log (``Kernel._footprint``): per repeat r < repeatTimes, each of the 16 dst / src
    DataBlocks at its list address + r * RepStride * 32 bytes -- the rule ``run_5hd`` executes.
    Runs of blocks that touch merge into one range. Returns None where an address, repeatTimes or
    a stride is traced, or for the address-table form (the addresses are UB data): CHOICE
    (docs/MODEL.md "Cores, pipes and sync"): those blocks are not in the footprint."""
    if isinstance(dstList, LocalTensor) or isinstance(srcList, LocalTensor):
        return None
    try:
        prm = _as_struct("TransDataTo5HD", "nchwconvParams", nchwconvParams, TransDataTo5HDParams, None)
        rep, d_rep, s_rep = (int(v) for v in (prm.repeatTimes, prm.dstRepStride, prm.srcRepStride))
        lists = []
        for lst in (dstList, srcList):
            lists.append([int(t.addr) if isinstance(t, LocalTensor) else int(t) for t in lst])
    except (TypeError, UsageError):  # a traced value (jax's concretization errors are TypeErrors)
        return None  # or a bad argument: the call itself raises it
    out = []
    for addrs, step, write in ((lists[0], d_rep * _BLK, True), (lists[1], s_rep * _BLK, False)):
        blocks = sorted({a + r * step for a in addrs for r in range(rep)})
        for a in blocks:
            if out and out[-1][2] == write and a <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], a + _BLK), write)
            else:
                out.append((a, a + _BLK, write))
    return out


@register(
    ApiSpec(
        "TransDataTo5HD",
        "layout",
        (
            "TransDataTo5HD<T>(uint64_t dstList[16], uint64_t srcList[16], nchwconvParams)",
            "TransDataTo5HD<T>(LocalTensor<uint64_t> dst, LocalTensor<uint64_t> src, nchwconvParams)",
            "TransDataTo5HD<T>(LocalTensor<T> dstList[16], LocalTensor<T> srcList[16], nchwconvParams)",
        ),
        "memory-vector/数据排布转换/TransDataTo5HD.md",
    )
)
def TransDataTo5HD(state, dstList, srcList, nchwconvParams, *, T=None, profile=None, max_repeats=None):
    """TransDataTo5HD (``AscendC::TransDataTo5HD<T>``): per repeat, 16 source DataBlocks (the
    srcList addresses) are transposed into 16 destination DataBlocks (the dstList addresses):
    b16 dst block j element i = src block i element j; b32 dst blocks 2j, 2j+1 = element j of src
    blocks 0..7, 8..15; b8 half a dst block (``dstHighHalf``) from one half of each src block
    (``srcHighHalf``). ``dstList``/``srcList``: 16 uint64 addresses (ints or a traced int array,
    ``T=`` required), 16 LocalTensor<T>, or two LocalTensor<uint64_t> address tables (``T=``
    required). ``nchwconvParams``: a ``TransDataTo5HDParams`` or a 5-tuple.

    **Spec:** memory-vector/数据排布转换/TransDataTo5HD.md. Profile keys: ``apis.TransDataTo5HD``.
    """
    st, dyn = plan_5hd(state, dstList, srcList, nchwconvParams, T, profile, max_repeats)
    return LY.run_5hd(st, state, dyn)


# -- Interleave / DeInterleave ------------------------------------------------------------------


def plan_pair(api, state, dsts, srcs, count, count_name, profile, max_repeats=None):
    """(PairStatic, dyn) of one Interleave / DeInterleave call."""
    p = as_profile(profile)
    names = ("dst0", "dst1") + (("src0", "src1") if len(srcs) == 2 else ("src",))
    tensors = dict(zip(names, dsts + srcs, strict=True))
    for name, t in tensors.items():
        A.check_tensor(api, name, t, p)
    A.check_same_dtype(api, p, **tensors)
    dt = dsts[0].dtype
    p.require_api(api, dt)
    max_count = p.ub_usable_bytes // dt.itemsize
    count = A.static_int(api, count_name, count, 0, max_count, p, "count must fit in the usable UB")
    bad = A.traced_range_bad(count, 0, max_count)
    # SPEC: "count必须为偶数" / "srcCount必须为偶数"
    if A.is_static(count):
        if count % 2:
            raise UsageError(api, count_name, count, "an even number", p)
    else:
        bad = bad | (jnp.asarray(count) % 2 != 0)
    op = (
        LY.OP_INTERLEAVE
        if api == "Interleave"
        else (LY.OP_DEINTERLEAVE2 if len(srcs) == 2 else LY.OP_DEINTERLEAVE1)
    )
    n_out = count // 2 if op == LY.OP_DEINTERLEAVE1 and A.is_static(count) else count
    if A.is_static(count) and max_repeats is None:
        B = _elem_bucket(n_out * dt.itemsize, p, None) // dt.itemsize
    elif max_repeats is not None:
        B = _traced_bucket_bytes(p, max_repeats) // dt.itemsize
    else:
        B = _traced_bucket_bytes(p, None) // dt.itemsize
    src1 = srcs[1] if len(srcs) == 2 else srcs[0]
    dyn = {
        "op": jnp.asarray(op, I32),
        "count": jnp.asarray(count, I32),
        "dst0": A.addr_of(dsts[0]),
        "dst1": A.addr_of(dsts[1]),
        "src0": A.addr_of(srcs[0]),
        "src1": A.addr_of(src1),
        "bad_param": jnp.asarray(bad, bool),
    }
    return LY.PairStatic(dtype=dt, B=B, profile=p), dyn


@register(
    ApiSpec(
        "Interleave",
        "layout",
        ("Interleave(dst0, dst1, src0, src1, count)",),
        "memory-vector/数据重排（ISASI）/Interleave.md",
    )
)
def Interleave(state, dst0, dst1, src0, src1, count, *, profile=None, max_repeats=None):
    """Interleave (``AscendC::Interleave``): the sequence src0[0], src1[0], src0[1], src1[1], ...
    (2*count elements) fills dst0 (its first count elements) then dst1. ``count`` even.

    **Spec:** memory-vector/数据重排（ISASI）/Interleave.md. Profile keys: ``apis.Interleave``.
    """
    st, dyn = plan_pair("Interleave", state, (dst0, dst1), (src0, src1), count, "count", profile, max_repeats)
    return LY.run_pair(st, state, dyn)


@register(
    ApiSpec(
        "DeInterleave",
        "layout",
        (
            "DeInterleave(dst0, dst1, src0, src1, count)",
            "DeInterleave(dst0, dst1, src, srcCount)",
        ),
        "memory-vector/数据重排（ISASI）/DeInterleave.md",
    )
)
def DeInterleave(state, dst0, dst1, *args, profile=None, max_repeats=None):
    """DeInterleave (``AscendC::DeInterleave``): dst0 takes the even, dst1 the odd elements of
    src0 followed by src1 (``(dst0, dst1, src0, src1, count)``: count elements each), or of src
    (``(dst0, dst1, src, srcCount)``: srcCount/2 each). Counts even.

    **Spec:** memory-vector/数据重排（ISASI）/DeInterleave.md. Profile keys: ``apis.DeInterleave``.
    """
    if len(args) == 3:
        srcs, count, name = tuple(args[:2]), args[2], "count"
    elif len(args) == 2:
        srcs, count, name = (args[0],), args[1], "srcCount"
    else:
        raise TypeError(
            f"DeInterleave: expected (dst0, dst1, src0, src1, count) or (dst0, dst1, src, srcCount), "
            f"got {2 + len(args)} arguments"
        )
    st, dyn = plan_pair("DeInterleave", state, (dst0, dst1), srcs, count, name, profile, max_repeats)
    return LY.run_pair(st, state, dyn)


__all__ = [
    "Transpose",
    "TransposeParamsExt",
    "TransposeType",
    "TransDataTo5HD",
    "TransDataTo5HDParams",
    "Interleave",
    "DeInterleave",
]
