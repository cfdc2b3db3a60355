"""Data layout (数据排布转换/: Transpose, TransDataTo5HD) and data rearrangement (数据重排（ISASI）/:
Interleave, DeInterleave), literally from the pages (docs/MODEL.md "Data layout").

Every API here moves elements without changing their bits: each function computes, with plain
loops, which source element lands in which destination element, checks the faults, and then reads
every source element before writing any destination element.

The structs (``TransposeParamsExt``, ``TransDataTo5HDParams``) are read by field name (any object
with the C++ fields, a tuple in C++ order or a dict); the transpose type by its enum name (an enum
member, its name as a string, or its C++ value).
"""

from ..dtypes import as_dtype
from ..errors import Fault, UnsupportedError, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import masks as _masks
from . import state as _st

# enum class TransposeType : uint8_t, in C++ order (Transpose.md)
TRANSPOSE_TYPES = (
    "TRANSPOSE_TYPE_NONE",
    "TRANSPOSE_NZ2ND_0213",
    "TRANSPOSE_NZ2NZ_0213",
    "TRANSPOSE_NZ2NZ_012_WITH_N",
    "TRANSPOSE_NZ2ND_012_WITH_N",
    "TRANSPOSE_NZ2ND_012_WITHOUT_N",
    "TRANSPOSE_NZ2NZ_012_WITHOUT_N",
    "TRANSPOSE_ND2ND_ONLY",
    "TRANSPOSE_ND_UB_GM",
    "TRANSPOSE_GRAD_ND_UB_GM",
    "TRANSPOSE_ND2ND_B16",
    "TRANSPOSE_NCHW2NHWC",
    "TRANSPOSE_NHWC2NCHW",
)
_NOT_SUPPORTED_YET = TRANSPOSE_TYPES[1:10]  # "当前不支持"


def _fields(api, argname, value, names, defaults, profile):
    """The struct's fields by name: an object with the attributes, a tuple (C++ order) or a dict."""
    if isinstance(value, (tuple, list)):
        vals = list(value) + list(defaults[len(value) :])
        return dict(zip(names, vals, strict=True))
    if isinstance(value, dict):
        return {n: value.get(n, d) for n, d in zip(names, defaults, strict=True)}
    if all(hasattr(value, n) for n in names):
        return {n: getattr(value, n) for n in names}
    raise UsageError(api, argname, type(value).__name__, f"a struct with fields {', '.join(names)}", profile)


def _int(api, name, v, lo, hi, profile, detail=""):
    v = _masks.as_int(api, name, v, profile)
    if not lo <= v <= hi:
        raise UsageError(api, name, v, f"an integer in [{lo}, {hi}]", profile, detail)
    return v


def _tensors(api, profile, **tensors):
    for name, t in tensors.items():
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, type(t).__name__, "a LocalTensor", profile)
    names = list(tensors)
    d0 = tensors[names[0]].dtype
    for n in names[1:]:
        if tensors[n].dtype != d0:
            raise UsageError(api, f"{n}.dtype", tensors[n].dtype.name, d0.name, profile)
    return d0


def _outside(a, n, limit):
    return n > 0 and (a < 0 or a + n > limit)


def _meet(a0, n0, a1, n1):
    return n0 > 0 and n1 > 0 and a0 < a1 + n1 and a1 < a0 + n0


def _scratch(api, ranges, profile):
    fault = 0
    for region in profile.reserved:
        if api in region.used_by:
            lo, hi = region.offset_bytes, region.offset_bytes + region.size_bytes
            if any(n > 0 and a < hi and a + n > lo for a, n in ranges):
                fault |= Fault.SCRATCH_COLLISION
    return fault


def _move(state, moves, size):
    """All reads, then all writes: ``moves`` = [(dst byte address, src byte address)]."""
    values = [_st.read_bits(state.ub, s, size) for _, s in moves]
    out = _st.copy_state(state)
    for (d, _), v in zip(moves, values, strict=True):
        _st.write_bits(out.ub, d, size, v)
        if out.written is not None:
            out.written[d : d + size] = 1
    return out


# ---------------------------------------------------------------------------------------------
# Transpose


def _type_name(api, value, allowed, profile):
    name = getattr(value, "name", value)
    if isinstance(name, int) and not isinstance(name, bool) and 0 <= name < len(TRANSPOSE_TYPES):
        name = TRANSPOSE_TYPES[name]
    text = " | ".join(f"TransposeType.{t}" for t in allowed)
    if not isinstance(name, str) or name not in TRANSPOSE_TYPES:
        raise UsageError(api, "transposeParams.transposeType", value, text, profile)
    if name in _NOT_SUPPORTED_YET:
        # SPEC: "// 当前不支持"
        raise UsageError(
            api, "transposeParams.transposeType", name, text, profile, "当前不支持 (not supported yet)"
        )
    if name not in allowed:
        raise UnsupportedError(api, "transposeParams.transposeType", name, text, profile)
    return name


def Transpose(state, dst, src, sharedTmpBuffer=None, transposeParams=None, *, profile):
    """Transpose (数据排布转换/Transpose.md).

    * ``Transpose(dst, src)`` (and TRANSPOSE_ND2ND_B16): "16*16的普通转置 ... dst = src.T": element
      (i, j) of dst is element (j, i) of src, 256 elements of a two-byte T; "支持src和dst复用" (dst ==
      src is allowed; any other overlap is PARTIAL_OVERLAP).
    * TRANSPOSE_NCHW2NHWC: "dst_nhwc = np.transpose(src_nchw, axes=(0,2,3,1))"; TRANSPOSE_NHWC2NCHW:
      "dst_nchw = np.transpose(src_nhwc, axes=(0,3,1,2))"; no overlap of src and dst ("不支持src和dst
      复用"); a zero size writes nothing ("不会对目的操作数进行写入"); sharedTmpBuffer must hold the
      page's tmpBufferSize (static check), its used bytes must be 32 B aligned, inside UB and apart
      from src and dst (CHOICE); its contents afterwards are not modelled (unchanged).
    * TRANSPOSE_TYPE_NONE: "API不做任何处理".
    """
    api = "Transpose"
    profile = as_profile(profile)
    d = _tensors(api, profile, dst=dst, src=src)
    a = profile.require_api(api)
    size = d.itemsize
    tmp_addr, need = 0, 0
    if sharedTmpBuffer is None and transposeParams is None:
        profile.require_api(api, d)
        kind, total = "TRANSPOSE_ND2ND_B16", 256
    else:
        if transposeParams is None:
            raise UsageError(
                api, "transposeParams", None, "a TransposeParamsExt (with sharedTmpBuffer)", profile
            )
        if not a.nd2nd_dtypes and not a.nchw_dtypes:
            raise UnsupportedError(
                api,
                "sharedTmpBuffer",
                "LocalTensor",
                "none: only Transpose(dst, src) on this product",
                profile,
            )
        if not isinstance(sharedTmpBuffer, LocalTensor):
            raise UsageError(api, "sharedTmpBuffer", type(sharedTmpBuffer).__name__, "a LocalTensor", profile)
        if sharedTmpBuffer.dtype.name != "uint8":
            raise UsageError(api, "sharedTmpBuffer.dtype", sharedTmpBuffer.dtype.name, "uint8", profile)
        f = _fields(
            api,
            "transposeParams",
            transposeParams,
            ("nSize", "cSize", "hSize", "wSize", "transposeType"),
            (0, 0, 0, 0, "TRANSPOSE_ND2ND_B16"),
            profile,
        )
        allowed = ["TRANSPOSE_TYPE_NONE"]
        if a.nd2nd_dtypes:
            allowed.append("TRANSPOSE_ND2ND_B16")
        if a.nchw_dtypes:
            allowed += ["TRANSPOSE_NCHW2NHWC", "TRANSPOSE_NHWC2NCHW"]
        kind = _type_name(api, f["transposeType"], allowed, profile)
        types = a.nd2nd_dtypes if kind == "TRANSPOSE_ND2ND_B16" else a.nchw_dtypes
        if kind != "TRANSPOSE_TYPE_NONE" and d.name not in types:
            raise UnsupportedError(api, "dtype", d.name, ", ".join(types), profile, f"with {kind}")
        n, c, h, w = (
            _int(api, f"transposeParams.{k}", f[k], 0, 65535, profile)
            for k in ("nSize", "cSize", "hSize", "wSize")
        )
        if kind == "TRANSPOSE_TYPE_NONE":
            return _st.copy_state(state)  # SPEC: "API不做任何处理"
        if kind == "TRANSPOSE_ND2ND_B16":
            # SPEC: "hSize、wSize固定传入16"
            for v, k in ((h, "hSize"), (w, "wSize")):
                _int(api, f"transposeParams.{k}", v, 16, 16, profile, "fixed to 16 for TRANSPOSE_ND2ND_B16")
            total = 256
        else:
            # SPEC: "cSize∈[0, 4095]，hSize * wSize ∈[0, 4095]，hSize * wSize * sizeof(T)需要保证32B对齐"
            _int(api, "transposeParams.cSize", c, 0, 4095, profile)
            if h * w > 4095 or (h * w * size) % 32:
                raise UsageError(
                    api,
                    "transposeParams.hSize/transposeParams.wSize",
                    f"{h}*{w}",
                    "hSize*wSize in [0, 4095] with hSize*wSize*sizeof(T) % 32 == 0",
                    profile,
                )
            if a.tmp_buffer == "formula":
                # SPEC: h0 = 16 (32 for 8-bit T); w0 = 32 / sizeof(type);
                #       NCHW2NHWC: tmpBufferSize = (cSize + 2) * h0 * w0 * sizeof(type)
                #       NHWC2NCHW: tmpBufferSize = (cSize * 2 + 1) * h0 * w0 * sizeof(type)
                h0 = 32 if size == 1 else 16
                w0 = 32 // size
                if kind == "TRANSPOSE_NCHW2NHWC":
                    need = (c + 2) * h0 * w0 * size
                else:
                    need = (c * 2 + 1) * h0 * w0 * size
                if sharedTmpBuffer.length * sharedTmpBuffer.dtype.itemsize < need:
                    raise UsageError(
                        api,
                        "sharedTmpBuffer",
                        f"{sharedTmpBuffer.length} bytes",
                        f"at least {need} bytes",
                        profile,
                        "入参sharedTmpBuffer的大小不得小于计算所需的最小阈值",
                    )
                tmp_addr = _masks.as_int(api, "sharedTmpBuffer.addr", sharedTmpBuffer.addr, profile)
            total = n * c * h * w
            if total == 0:
                return _st.copy_state(state)  # SPEC: "如果nSize、cSize、hSize、wSize为0，不会执行计算操作"
    d_addr = _masks.as_int(api, "dst.addr", dst.addr, profile)
    s_addr = _masks.as_int(api, "src.addr", src.addr, profile)
    nbytes = total * size
    limit = min(state.ub.size, profile.ub_usable_bytes)
    align = profile.operand_alignment_bytes
    fault = 0
    if d_addr % align or s_addr % align or (need and tmp_addr % align):
        fault |= Fault.MISALIGNED
    if _outside(d_addr, nbytes, limit) or _outside(s_addr, nbytes, limit) or _outside(tmp_addr, need, limit):
        fault |= Fault.OUT_OF_UB
    fault |= _scratch(api, [(d_addr, nbytes), (s_addr, nbytes), (tmp_addr, need)], profile)
    if kind == "TRANSPOSE_ND2ND_B16":
        overlap = _meet(d_addr, nbytes, s_addr, nbytes) and d_addr != s_addr
    else:
        overlap = _meet(d_addr, nbytes, s_addr, nbytes)
    if need and (_meet(tmp_addr, need, s_addr, nbytes) or _meet(tmp_addr, need, d_addr, nbytes)):
        overlap = True
    if overlap:
        fault |= Fault.PARTIAL_OVERLAP
    if fault:
        return _st.with_fault(state, int(fault))
    moves = []
    if kind == "TRANSPOSE_ND2ND_B16":
        for i in range(16):
            for j in range(16):  # dst[i][j] = src[j][i]
                moves.append((d_addr + (i * 16 + j) * size, s_addr + (j * 16 + i) * size))
    elif kind == "TRANSPOSE_NCHW2NHWC":
        hw = h * w
        for ni in range(n):
            for ci in range(c):
                for p in range(hw):  # dst[ni][p][ci] = src[ni][ci][p]
                    moves.append(
                        (d_addr + ((ni * hw + p) * c + ci) * size, s_addr + ((ni * c + ci) * hw + p) * size)
                    )
    else:
        hw = h * w
        for ni in range(n):
            for ci in range(c):
                for p in range(hw):  # dst[ni][ci][p] = src[ni][p][ci]
                    moves.append(
                        (d_addr + ((ni * c + ci) * hw + p) * size, s_addr + ((ni * hw + p) * c + ci) * size)
                    )
    return _move(state, moves, size)


# ---------------------------------------------------------------------------------------------
# TransDataTo5HD


def _address_list(api, argname, lst, profile):
    if not isinstance(lst, (list, tuple)):
        raise UsageError(api, argname, type(lst).__name__, "16 addresses or 16 LocalTensors", profile)
    if len(lst) != 16:
        raise UsageError(api, argname, f"{len(lst)} entries", "16 (NCHW_CONV_ADDR_LIST_SIZE)", profile)
    if all(isinstance(x, LocalTensor) for x in lst):
        return None
    out = []
    for i, x in enumerate(lst):
        if isinstance(x, LocalTensor):
            raise UsageError(api, argname, "a mixed list", "16 LocalTensors or 16 addresses", profile)
        out.append(_int(api, f"{argname}[{i}]", x, 0, 2**64 - 1, profile))  # uint64_t
    return out


def TransDataTo5HD(state, dstList, srcList, nchwconvParams, *, T=None, profile):
    """TransDataTo5HD<T> (数据排布转换/TransDataTo5HD.md), repeat by repeat:

    * repeat r's 16 source DataBlocks start at ``srcList[i] + off*32`` and its 16 destination
      DataBlocks at ``dstList[j] + off*32``, with off = srcRepStride / dstRepStride when
      repeatTimes == 1 and r * stride otherwise ("当repeatTimes为1时 ... 加上dstRepStride/srcRepStride";
      "当repeatTimes大于1时，第一次repeat中 ... 为dstList/srcList序列输入的起始位置，第二次需要加上 ...");
    * b16: "从指定的16个DataBlock中的对应位置取值，组成1个新的DataBlock": dst block j, element i =
      src block i, element j;
    * b32: "组成2个新的DataBlock": dst block 2j+h, element e = src block 8h+e, element j (the int32
      example: row j of the output is column j of the input);
    * b8: "组成半个DataBlock ... 高半部分还是低半部分由参数srcHighHalf和dstHighHalf决定": dst block j,
      byte 16*dstHighHalf + i = src block i, byte 16*srcHighHalf + j; the other half is unchanged;
    * repeatTimes 0: "视为NOP". Addresses read from LocalTensor<uint64_t> tables (``dst``/``src``) are
      16 little-endian uint64 at the tables' addresses.

    Faults (the call is suppressed): a table not 32 B aligned or outside UB (only these bits, the
    addresses are not used); a list address not 32 B aligned; an active block outside UB; within a
    repeat a src block i at the address of a dst block j != i (PARTIAL_OVERLAP); a dst block of
    repeat r at the address of a src block of a later repeat (REPEAT_DEPENDENCY). Writes in program
    order (repeat, then list index: the later write wins).
    """
    api = "TransDataTo5HD"
    profile = as_profile(profile)
    profile.require_api(api)
    table = isinstance(dstList, LocalTensor) or isinstance(srcList, LocalTensor)
    if table:
        for t, name in ((dstList, "dst"), (srcList, "src")):
            if not isinstance(t, LocalTensor):
                raise UsageError(api, name, type(t).__name__, "a LocalTensor", profile)
            if t.dtype.name != "uint64":
                raise UsageError(
                    api, f"{name}.dtype", t.dtype.name, "uint64 (LocalTensor<uint64_t> of addresses)", profile
                )
        if T is None:
            raise UsageError(api, "T", None, "the element type (template argument)", profile)
        d = as_dtype(T)
    else:
        dl = _address_list(api, "dstList", dstList, profile)
        sl = _address_list(api, "srcList", srcList, profile)
        if (dl is None) != (sl is None):
            raise UsageError(api, "srcList", "a different kind of list", "the kind of dstList", profile)
        if dl is None:
            d = dstList[0].dtype
            for name, lst in (("dstList", dstList), ("srcList", srcList)):
                for i, t in enumerate(lst):
                    if t.dtype != d:
                        raise UsageError(api, f"{name}[{i}].dtype", t.dtype.name, d.name, profile)
            if T is not None and as_dtype(T) != d:
                raise UsageError(api, "T", as_dtype(T).name, d.name, profile, "T must be the tensors' type")
            dl = [_masks.as_int(api, "dstList.addr", t.addr, profile) for t in dstList]
            sl = [_masks.as_int(api, "srcList.addr", t.addr, profile) for t in srcList]
        else:
            if T is None:
                raise UsageError(api, "T", None, "the element type (template argument)", profile)
            d = as_dtype(T)
    profile.require_api(api, d)
    f = _fields(
        api,
        "nchwconvParams",
        nchwconvParams,
        ("dstHighHalf", "srcHighHalf", "repeatTimes", "dstRepStride", "srcRepStride"),
        (False, False, 1, 0, 0),
        profile,
    )
    rep = _int(
        api, "nchwconvParams.repeatTimes", f["repeatTimes"], 0, 255, profile
    )  # SPEC: "repeatTimes∈[0,255]"
    d_rs = _int(api, "nchwconvParams.dstRepStride", f["dstRepStride"], 0, 65535, profile)
    s_rs = _int(api, "nchwconvParams.srcRepStride", f["srcRepStride"], 0, 65535, profile)
    halves = []
    for k in ("dstHighHalf", "srcHighHalf"):
        v = f[k]
        if not isinstance(v, int) or int(v) not in (0, 1):
            raise UsageError(api, f"nchwconvParams.{k}", v, "true or false", profile)
        halves.append(int(v))
    dh, sh = halves
    if rep == 0:
        return _st.copy_state(state)
    bb = profile.block_bytes
    limit = min(state.ub.size, profile.ub_usable_bytes)
    align = profile.operand_alignment_bytes
    if table:
        tabs = [
            _masks.as_int(api, f"{n}.addr", t.addr, profile) for t, n in ((dstList, "dst"), (srcList, "src"))
        ]
        fault = 0
        if any(t % align for t in tabs):
            fault |= Fault.MISALIGNED
        if any(_outside(t, 128, limit) for t in tabs):
            fault |= Fault.OUT_OF_UB
        fault |= _scratch(api, [(t, 128) for t in tabs], profile)
        if fault:
            return _st.with_fault(state, int(fault))
        dl = [_st.read_bits(state.ub, tabs[0] + 8 * i, 8) for i in range(16)]
        sl = [_st.read_bits(state.ub, tabs[1] + 8 * i, 8) for i in range(16)]
    fault = 0
    if any(x % align for x in dl + sl):
        fault |= Fault.MISALIGNED
    d_blocks, s_blocks = [], []  # [r][16] byte addresses
    for r in range(rep):
        d_off = d_rs if rep == 1 else r * d_rs
        s_off = s_rs if rep == 1 else r * s_rs
        d_blocks.append([x + d_off * bb for x in dl])
        s_blocks.append([x + s_off * bb for x in sl])
    for r in range(rep):
        if any(_outside(x, bb, limit) for x in d_blocks[r] + s_blocks[r]):
            fault |= Fault.OUT_OF_UB
    fault |= _scratch(api, [(x, bb) for r in range(rep) for x in d_blocks[r] + s_blocks[r]], profile)
    for r in range(rep):
        for i in range(16):
            for j in range(16):
                if i != j and s_blocks[r][i] == d_blocks[r][j]:
                    fault |= Fault.PARTIAL_OVERLAP
    for r in range(rep):
        later_src = {x for r2 in range(r + 1, rep) for x in s_blocks[r2]}
        if any(x in later_src for x in d_blocks[r]):
            fault |= Fault.REPEAT_DEPENDENCY
    if fault:
        return _st.with_fault(state, int(fault))
    size = d.itemsize
    moves = []
    for r in range(rep):
        src, dst = s_blocks[r], d_blocks[r]
        if size == 2:
            for j in range(16):
                for i in range(16):
                    moves.append((dst[j] + 2 * i, src[i] + 2 * j))
        elif size == 4:
            for j in range(8):
                for h in range(2):
                    for e in range(8):
                        moves.append((dst[2 * j + h] + 4 * e, src[8 * h + e] + 4 * j))
        else:
            for j in range(16):
                for i in range(16):
                    moves.append((dst[j] + 16 * dh + i, src[i] + 16 * sh + j))
    # reads happen before writes (a later repeat never reads an earlier repeat's dst: a fault)
    return _move(state, moves, size)


# ---------------------------------------------------------------------------------------------
# Interleave / DeInterleave


def _pair(api, state, dsts, srcs, count, count_name, profile):
    profile = as_profile(profile)
    names = ("dst0", "dst1") + (("src0", "src1") if len(srcs) == 2 else ("src",))
    d = _tensors(api, profile, **dict(zip(names, dsts + srcs, strict=True)))
    profile.require_api(api, d)
    size = d.itemsize
    count = _int(
        api, count_name, count, 0, profile.ub_usable_bytes // size, profile, "count must fit in the usable UB"
    )
    if count % 2:  # SPEC: "count必须为偶数" / "srcCount必须为偶数"
        raise UsageError(api, count_name, count, "an even number", profile)
    if count == 0:
        plan = _masks._zero("count", api, profile, True)
        return _st.copy_state(state) if plan.outcome == "nop" else _st.with_fault(state, plan.fault)
    addr = {
        n: _masks.as_int(api, f"{n}.addr", t.addr, profile) for n, t in zip(names, dsts + srcs, strict=True)
    }
    n_out = count // 2 if len(srcs) == 1 else count
    out_b, in_b = n_out * size, count * size
    ranges = [(addr["dst0"], out_b), (addr["dst1"], out_b)] + [(addr[n], in_b) for n in names[2:]]
    limit = min(state.ub.size, profile.ub_usable_bytes)
    fault = 0
    if any(a % profile.operand_alignment_bytes for a, _ in ranges):
        fault |= Fault.MISALIGNED
    if any(_outside(a, n, limit) for a, n in ranges):
        fault |= Fault.OUT_OF_UB
    fault |= _scratch(api, ranges, profile)
    # SPEC: "不支持源操作数与目的操作数地址重叠"; CHOICE: dst0 and dst1 may not share a byte either
    if _meet(*ranges[0], *ranges[1]) or any(_meet(*dr, *sr) for dr in ranges[:2] for sr in ranges[2:]):
        fault |= Fault.PARTIAL_OVERLAP
    if fault:
        return _st.with_fault(state, int(fault))
    moves = []
    if api == "Interleave":
        h = count // 2
        for i in range(h):
            moves.append((addr["dst0"] + 2 * i * size, addr["src0"] + i * size))
            moves.append((addr["dst0"] + (2 * i + 1) * size, addr["src1"] + i * size))
            moves.append((addr["dst1"] + 2 * i * size, addr["src0"] + (h + i) * size))
            moves.append((addr["dst1"] + (2 * i + 1) * size, addr["src1"] + (h + i) * size))
    elif len(srcs) == 2:
        h = count // 2
        for i in range(h):  # dst0/dst1 take the even/odd elements of src0, then of src1
            moves.append((addr["dst0"] + i * size, addr["src0"] + 2 * i * size))
            moves.append((addr["dst1"] + i * size, addr["src0"] + (2 * i + 1) * size))
            moves.append((addr["dst0"] + (h + i) * size, addr["src1"] + 2 * i * size))
            moves.append((addr["dst1"] + (h + i) * size, addr["src1"] + (2 * i + 1) * size))
    else:
        for i in range(count // 2):
            moves.append((addr["dst0"] + i * size, addr["src"] + 2 * i * size))
            moves.append((addr["dst1"] + i * size, addr["src"] + (2 * i + 1) * size))
    return _move(state, moves, size)


def Interleave(state, dst0, dst1, src0, src1, count, *, profile):
    """Interleave (数据重排（ISASI）/Interleave.md): src0[0], src1[0], src0[1], src1[1], ... -- dst0
    gets the first ``count`` of these 2*count elements, dst1 the rest (the page's example: dst0 =
    [1 513 2 ... 768], dst1 = [257 769 258 ... 1024] for src0 = 1..512, src1 = 513..1024). Faults:
    any tensor not 32 B aligned, outside UB, a dst overlapping a src or the other dst."""
    return _pair("Interleave", state, (dst0, dst1), (src0, src1), count, "count", profile)


def DeInterleave(state, dst0, dst1, *args, profile):
    """DeInterleave (数据重排（ISASI）/DeInterleave.md): ``(dst0, dst1, src0, src1, count)``: dst0 =
    the even-indexed, dst1 the odd-indexed elements of src0 followed by src1 (count each);
    ``(dst0, dst1, src, srcCount)``: of src (srcCount/2 each). Faults as Interleave."""
    if len(args) == 3:
        return _pair("DeInterleave", state, (dst0, dst1), tuple(args[:2]), args[2], "count", profile)
    if len(args) == 2:
        return _pair("DeInterleave", state, (dst0, dst1), (args[0],), args[1], "srcCount", profile)
    raise TypeError(
        f"DeInterleave: expected (dst0, dst1, src0, src1, count) or (dst0, dst1, src, srcCount), "
        f"got {2 + len(args)} arguments"
    )
