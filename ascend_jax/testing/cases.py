"""Random cases for the scalar-arithmetic family (Adds/Muls/Maxs/Mins), run through the fast path
(batched, one compilation per signature) and through the NumPy reference, compared byte for byte.

A ``Case`` is fully concrete (Python ints, bytes), so it can be replayed, printed, and run through
either implementation. The fast runner groups cases by static signature and vmaps each group with
every parameter traced.
"""

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from .. import reference as ref
from ..api import _args as A
from ..api.unary_scalar import API_CODES, run_traced
from ..params import UnaryRepeatParams
from ..profile import as_profile
from ..state import CoreState
from ..tensor import MASK_PLACEHOLDER, LocalTensor

UNARY_SCALAR = {"Adds": "add", "Muls": "mul", "Maxs": "max", "Mins": "min"}


@dataclasses.dataclass(frozen=True)
class Case:
    api: str
    dtype: str
    form: str  # "count" | "continuous" | "bitwise" | "register"
    is_set_mask: bool
    dst: int
    src: int
    scalar: object
    count: int = 0
    mask: object = None  # int or tuple of uint64 words
    repeat: int = 0
    strides: tuple = (1, 1, 8, 8)
    vmask: tuple = (0xFFFFFFFF,) * 4 + (0,) * 4
    mask_mode: int = 0
    ctrl: tuple = (0, 0)
    ub_seed: int = 0
    ub_bytes: int = 8192
    data: str = "raw"  # "raw" | "specials" | "small"

    def signature(self):
        """The static part: everything else is traced data (one compilation per signature and
        repeat bucket)."""
        return (self.dtype,)

    def call_repr(self):
        p = f"UnaryRepeatParams{self.strides}"
        t = f"<{_dt.as_dtype(self.dtype).cpp}{', false' if not self.is_set_mask else ''}>"
        head = f"{self.api}{t}(dst@{self.dst}, src@{self.src}, {self.scalar!r}"
        if self.form == "count":
            return f"{head}, {self.count})"
        m = (
            "MASK_PLACEHOLDER"
            if self.form == "register"
            else ([hex(w) for w in self.mask] if self.form == "bitwise" else self.mask)
        )
        return f"{head}, {m}, {self.repeat}, {p})  [mode={'counter' if self.mask_mode else 'normal'}]"


_SPECIAL_F32 = [
    0x00000000,
    0x80000000,
    0x7F800000,
    0xFF800000,
    0x7FC00000,
    0xFFC00001,
    0x00000001,
    0x807FFFFF,
    0x00800000,
    0x7F7FFFFF,
    0xFF7FFFFF,
    0x3F800000,
    0xBF800000,
    0x7F800001,
]
_SPECIAL_F16 = [
    0x0000,
    0x8000,
    0x7C00,
    0xFC00,
    0x7E00,
    0xFE01,
    0x0001,
    0x83FF,
    0x0400,
    0x7BFF,
    0xFBFF,
    0x3C00,
    0xBC00,
    0x7C01,
]
_SPECIAL_BF16 = [
    0x0000,
    0x8000,
    0x7F80,
    0xFF80,
    0x7FC0,
    0xFFC1,
    0x0001,
    0x807F,
    0x0080,
    0x7F7F,
    0xFF7F,
    0x3F80,
    0xBF80,
    0x7F81,
]


def specials(dtype):
    d = _dt.as_dtype(dtype)
    if d.name == "float32":
        return _SPECIAL_F32
    if d.name == "half":
        return _SPECIAL_F16
    if d.name == "bfloat16":
        return _SPECIAL_BF16
    lo, hi = (-(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1) if d.is_signed_int else (0, (1 << d.bits) - 1)
    vals = [lo, hi, 0, 1, -1 if d.is_signed_int else 2, lo + 1, hi - 1]
    return [v & ((1 << d.bits) - 1) for v in vals]


def make_ub(case):
    """The case's initial UB bytes (deterministic from ub_seed and the data style)."""
    rng = np.random.default_rng(case.ub_seed)
    ub = rng.integers(0, 256, case.ub_bytes, dtype=np.uint8)
    d = _dt.as_dtype(case.dtype)
    if case.data == "specials":
        pool = np.array(specials(d), dtype=np.uint64).astype(d.bits_dtype)
        n = case.ub_bytes // d.itemsize
        pick = pool[rng.integers(0, len(pool), n)]
        keep = rng.random(n) < 0.5
        words = ub.view(d.bits_dtype).copy()
        words[keep] = pick[keep]
        ub = words.view(np.uint8).copy()
    elif case.data == "small":
        n = case.ub_bytes // d.itemsize
        if d.is_float:
            vals = rng.integers(-64, 64, n).astype(np.float32) / 4
            ub = vals.astype(d.np_dtype).view(np.uint8).copy()
        else:
            ub = rng.integers(-100, 100, n).astype(d.np_dtype).view(np.uint8).copy()
    return ub


def scalar_value(case):
    """The scalar as the Python value passed to the APIs (floats as float, ints as int)."""
    return case.scalar


def random_case(rng, profile, api=None, dtype=None, ub_bytes=8192, fault_rate=0.1):
    """One random, mostly valid case (``fault_rate``: share of cases with a deliberately bad
    address/stride that must be flagged as a fault)."""
    p = as_profile(profile)
    apis = [a for a in UNARY_SCALAR if p.api(a).supported]
    if api is None and not apis:
        raise ValueError(f"profile {p.name} supports none of {', '.join(UNARY_SCALAR)}")
    api = api or apis[rng.integers(len(apis))]
    a = p.api(api)
    d = _dt.as_dtype(dtype or a.dtypes[rng.integers(len(a.dtypes))])
    L = p.lanes(d)
    E = p.block_bytes // d.itemsize
    nblocks = ub_bytes // 32
    forms = ["count", "continuous", "bitwise", "register"]
    form = forms[rng.choice(4, p=[0.25, 0.3, 0.3, 0.15])]
    is_set_mask = form != "register"
    if form == "count" and p.level2_is_set_mask == "honoured" and rng.random() < 0.1:
        is_set_mask = False
    data = ["raw", "specials", "small"][rng.integers(3)]
    # scalar
    sp = specials(d)
    if d.is_float:
        if rng.random() < 0.4:
            bits = sp[rng.integers(len(sp))]
            scalar = float(np.array(bits, d.bits_dtype).view(d.np_dtype))
        elif rng.random() < 0.5:
            scalar = float(rng.integers(-8, 9)) / 2
        else:
            scalar = float(np.array(rng.integers(0, 2**d.bits), d.bits_dtype).view(d.np_dtype))
    else:
        v = sp[rng.integers(len(sp))] if rng.random() < 0.4 else int(rng.integers(0, 2**d.bits))
        scalar = int(np.array(v, dtype=np.uint64).astype(d.bits_dtype).view(d.np_dtype))
    # registers
    mask_mode = 0
    if p.counter_mode != "unsupported" and form != "count" and rng.random() < 0.2:
        mask_mode = 1
    vmask_words = _random_words(rng, L, p.vector_mask_bits)
    count_reg = None
    rep_choices = [0, 1, 1, 2, 3, 4, 8, 17, 255]
    repeat = (
        int(rep_choices[rng.integers(len(rep_choices))]) if rng.random() < 0.8 else int(rng.integers(0, 256))
    )
    # strides
    if rng.random() < 0.5:
        strides = (1, 1, 8, 8)
    else:
        pick = [0, 1, 1, 2, 3, 4, 7, 8, 9, 16]
        strides = tuple(int(pick[rng.integers(len(pick))]) for _ in range(4))
        if strides[0] == 0 and rng.random() > fault_rate:
            strides = (1,) + strides[1:]

    # keep most cases in bounds: footprint of the larger repeat count
    def footprint(blk, rep, reps):
        return (max(reps, 1) - 1) * rep + 7 * blk + 1

    if form == "count":
        count = int(rng.integers(0, min(3 * L, nblocks * E // 2) + 1))
        if rng.random() < 0.1:
            count = 0
        reps = math.ceil(count / L)
        fp = footprint(1, 8, reps)
    else:
        count = 0
        reps = repeat
        fp = max(footprint(strides[0], strides[2], reps), footprint(strides[1], strides[3], reps))
    if mask_mode == 1:
        lo = 1 if (p.zero_mask == "error" and form in ("continuous", "bitwise")) else 0
        count_reg = int(rng.integers(lo, min(4 * L, nblocks * E // 3) + 1))
        reps = math.ceil(count_reg / L)
        fp = max(footprint(strides[0], strides[2], reps), footprint(strides[1], strides[3], reps))
    mask = None
    if form == "continuous":
        mask = int(rng.choice([0, 1, L // 2, L - 1, L, L + 5, int(rng.integers(0, L + 1))]))
        if p.zero_mask == "error" and mask_mode == 0 and mask == 0:
            mask = 1
        if mask_mode == 1:
            mask = count_reg
    elif form == "bitwise":
        w = vmask_words
        nw = p.vector_mask_bits // 64
        words = [w[2 * i] | (w[2 * i + 1] << 32) for i in range(nw)]
        if mask_mode == 1:
            words = [count_reg] + [0] * (nw - 1)
        if p.zero_mask == "error" and mask_mode == 0 and not any(words):
            words[0] = 1
        mask = tuple(words)
    if mask_mode == 1:
        vmask_words = [count_reg & 0xFFFFFFFF, count_reg >> 32, 0, 0, 0, 0, 0, 0]

    # addresses
    def addr(fp_blocks):
        hi = max(0, nblocks - min(fp_blocks, nblocks))
        b = int(rng.integers(0, hi + 1))
        if rng.random() < fault_rate / 2:
            return b * 32 + int(rng.choice([2, 4, 16]))  # misaligned
        if rng.random() < fault_rate / 2:
            return int(rng.integers(nblocks - 2, nblocks + 4)) * 32  # likely out of the arena
        return b * 32

    dst = addr(fp)
    src = dst if rng.random() < 0.15 else addr(fp)
    ctrl = (p.ctrl_reset_value & 0xFFFFFFFF, (p.ctrl_reset_value >> 32) & 0xFFFFFFFF)
    if p.float_saturation_ctrl_bit >= 0 and rng.random() < 0.5:
        b = p.float_saturation_ctrl_bit
        c = list(ctrl)
        c[b // 32] ^= 1 << (b % 32)
        ctrl = tuple(c)
    if p.int_saturation_ctrl_bit >= 0 and rng.random() < 0.5:
        b = p.int_saturation_ctrl_bit
        c = list(ctrl)
        c[b // 32] ^= 1 << (b % 32)
        ctrl = tuple(c)
    return Case(
        api=api,
        dtype=d.name,
        form=form,
        is_set_mask=is_set_mask,
        dst=dst,
        src=src,
        scalar=scalar,
        count=count,
        mask=mask,
        repeat=repeat,
        strides=strides,
        vmask=tuple(int(x) for x in vmask_words),
        mask_mode=mask_mode,
        ctrl=ctrl,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=data,
    )


def _random_words(rng, L, reg_bits):
    kind = rng.integers(5)
    bits = np.zeros(256, bool)
    if kind == 0:
        bits[:L] = True
    elif kind == 1:
        pass
    elif kind == 2:
        bits[int(rng.integers(L))] = True
    elif kind == 3:
        bits[: int(rng.integers(L + 1))] = True
    else:
        bits[:L] = rng.random(L) < 0.5
    bits[reg_bits:] = False
    bits[L:] = False
    words = np.packbits(bits.reshape(8, 32)[:, ::-1], axis=1).view(">u4").ravel()
    return [int(w) for w in words]


# -- running ------------------------------------------------------------------------------------


def _args_for(case, traced_mask=False):
    d = _dt.as_dtype(case.dtype)
    dst = LocalTensor(d, case.dst, 1)
    src = LocalTensor(d, case.src, 1)
    if case.form == "count":
        return dst, src, (case.count,)
    params = UnaryRepeatParams(*case.strides)
    if case.form == "register":
        m = MASK_PLACEHOLDER
    else:
        m = case.mask if case.form == "continuous" else list(case.mask)
    return dst, src, (m, case.repeat, params)


def run_reference(case, profile):
    p = as_profile(profile)
    st = ref.reset_state(p, ub_bytes=case.ub_bytes)
    st.ub = make_ub(case)
    st.vmask = np.array(case.vmask, np.uint32)
    st.mask_mode = case.mask_mode
    st.ctrl = np.array(case.ctrl, np.uint32)
    dst, src, args = _args_for(case)
    fn = getattr(ref, case.api)
    return fn(st, dst, src, case.scalar, *args, profile=p, isSetMask=case.is_set_mask)


def _reps_needed(case, L):
    if case.form == "count":
        return math.ceil(case.count / L)
    if case.mask_mode == 1:
        c = case.mask if case.form == "continuous" else (case.mask[0] if case.form == "bitwise" else None)
        if c is None:
            c = case.vmask[0] | (case.vmask[1] << 32)
        return math.ceil(c / L)
    return case.repeat


def coarse_bucket(n, buckets=(4, 16, 256)):
    """Few static repeat buckets: fewer compilations at the price of some padding."""
    for b in buckets:
        if n <= b:
            return b
    return A.bucket(n)


def run_fast_batch(cases, profile, buckets=(4, 16, 256), chunk=128):
    """Run cases through the fast path, grouped by (dtype, repeat bucket); each group is one vmapped
    call with every parameter (API, call form, mask, strides, addresses, scalar) traced. Returns a
    list of per-case CoreState (NumPy leaves)."""
    p = as_profile(profile)
    groups = {}
    for i, c in enumerate(cases):
        L = p.lanes(_dt.as_dtype(c.dtype))
        key = c.signature() + (coarse_bucket(_reps_needed(c, L), buckets),)
        groups.setdefault(key, []).append(i)
    out = [None] * len(cases)
    for (dtype, R), all_idx in groups.items():
        for k in range(0, len(all_idx), chunk):
            idx = all_idx[k : k + chunk]
            cs = [cases[i] for i in idx]
            # pad to the fixed chunk size with copies of the first case: the batch size is a static
            # shape, so one compilation serves every chunk of a (dtype, bucket)
            cs = cs + [cs[0]] * (chunk - len(cs))
            res = _batched_fn(dtype, R, p)(_stack_states(cs, p), _stack_params(cs, p))
            res = jax.tree_util.tree_map(np.asarray, res)
            for j, i in enumerate(idx):
                out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def _stack_states(cs, p):
    ub = np.stack([make_ub(c) for c in cs])
    return CoreState(
        ub=jnp.asarray(ub),
        vmask=jnp.asarray(np.array([c.vmask for c in cs], np.uint32)),
        mask_mode=jnp.asarray(np.array([c.mask_mode for c in cs], np.int32)),
        cmpmask=jnp.zeros((len(cs), 4), jnp.uint32),
        ctrl=jnp.asarray(np.array([c.ctrl for c in cs], np.uint32)),
        rsvd_cnt=jnp.zeros((len(cs),), jnp.int32),
        fault=jnp.zeros((len(cs),), jnp.uint32),
    )


def _kind(c):
    from .._engine import pipeline as PL

    if c.form == "count":
        return PL.KIND_COUNT if c.is_set_mask else PL.KIND_COUNT_REGISTER
    return {"continuous": PL.KIND_CONTINUOUS, "bitwise": PL.KIND_BITWISE, "register": PL.KIND_REGISTER}[
        c.form
    ]


def _stack_params(cs, p):
    d = _dt.as_dtype(cs[0].dtype)
    nw = p.vector_mask_bits // 64
    n = len(cs)
    words = np.zeros((n, 8), np.uint32)
    cont = np.zeros((n, 2), np.uint32)
    for i, c in enumerate(cs):
        if c.form == "bitwise":
            for k in range(nw):
                words[i, 2 * k] = c.mask[k] & 0xFFFFFFFF
                words[i, 2 * k + 1] = c.mask[k] >> 32
        elif c.form == "continuous":
            cont[i] = (c.mask & 0xFFFFFFFF, c.mask >> 32)
    count_form = np.array([c.form == "count" for c in cs])
    out = {
        "kind": np.array([_kind(c) for c in cs], np.int32),
        "op": np.array([API_CODES.index(c.api) for c in cs], np.int32),
        "dst": np.array([c.dst for c in cs], np.int32),
        "src": np.array([c.src for c in cs], np.int32),
        # uint32 bits; 64-bit lanes: (low, high) pairs
        "scalar": np.array([np.asarray(A.scalar_bits(c.api, c.scalar, d, p)) for c in cs], np.uint32),
        "count": np.stack([np.array([c.count for c in cs], np.uint32), np.zeros(n, np.uint32)], 1),
        "cont": cont,
        "words": words,
        "repeat": np.where(count_form, 1, np.array([c.repeat for c in cs])).astype(np.int32),
        "strides": np.where(
            count_form[:, None], np.array([1, 1, 8, 8]), np.array([c.strides for c in cs])
        ).astype(np.int32),
        "bad_param": np.zeros(n, bool),
        "bad_mask": np.zeros(n, bool),
    }
    return {k: jnp.asarray(v) for k, v in out.items()}


_FN_CACHE = {}


def _batched_fn(dtype, R, p):
    """One compiled program per (dtype, repeat bucket, profile): the API is traced data too."""
    key = (dtype, R, p)
    if key not in _FN_CACHE:
        d = _dt.as_dtype(dtype)

        def one(state, dyn):
            return run_traced("*", state, dyn, d, p, R)

        _FN_CACHE[key] = jax.jit(jax.vmap(one))
    return _FN_CACHE[key]


def compare_states(fast, refst):
    """None if equal (UB bytes, registers, fault bits), else a short description of the first
    difference."""
    ub_f = np.asarray(fast.ub)
    ub_r = np.asarray(refst.ub)
    if ub_f.shape != ub_r.shape:
        return f"UB size differs: fast {ub_f.shape} ref {ub_r.shape}"
    diff = np.nonzero(ub_f != ub_r)[0]
    msgs = []
    if int(fast.fault) != int(refst.fault):
        from ..errors import describe_faults

        msgs.append(f"fault fast={describe_faults(int(fast.fault))} ref={describe_faults(int(refst.fault))}")
    if diff.size:
        i = int(diff[0])
        msgs.append(
            f"{diff.size} UB bytes differ, first at {i}: fast {ub_f[i]:#04x} ref {ub_r[i]:#04x} "
            f"(fast {ub_f[i & ~3 : (i & ~3) + 4].tobytes().hex()} ref {ub_r[i & ~3 : (i & ~3) + 4].tobytes().hex()})"
        )
    for f in ("vmask", "ctrl", "cmpmask"):
        a, b = np.asarray(getattr(fast, f)).astype(np.uint32), np.asarray(getattr(refst, f)).astype(np.uint32)
        if a.shape != b.shape or np.any(a != b):
            msgs.append(f"{f} fast {a} ref {b}")
    if int(fast.mask_mode) != int(refst.mask_mode):
        msgs.append(f"mask_mode fast {int(fast.mask_mode)} ref {int(refst.mask_mode)}")
    return "; ".join(msgs) or None
