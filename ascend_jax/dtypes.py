"""The one dtype table shared by the fast path and the reference.

Ascend C spells element types as C++ types (``half``, ``bfloat16_t``, ``float``, ``int16_t`` ...).
Profiles and error messages use the short canonical names below; users may pass any alias, a
NumPy dtype, or one of the ``ascend_jax`` dtype constants (``aj.half``, ``aj.float32`` ...).
"""

import dataclasses

import ml_dtypes
import numpy as np


@dataclasses.dataclass(frozen=True)
class DType:
    """One Ascend element type.

    name: canonical name used in profiles ("half", "bfloat16", "float32", "int16", ...).
    cpp: the Ascend C spelling ("half", "bfloat16_t", "float", "int16_t", ...).
    np_dtype: the NumPy dtype holding the same bits (a sub-byte type: the NumPy type holding one
      element's value, int8 for int4b_t).
    bits_dtype: the unsigned integer NumPy dtype of the same width (bit-pattern view; uint8 for a
      sub-byte type).
    nbits: the element width in bits when it is not ``8 * np_dtype.itemsize`` (int4b_t: 4).
    modelled: False for a type the docs list that the model does not compute with (950's fp8 /
      fp4 / hifloat8 types): it exists so that a call naming it raises a precise NotModelledError.
    """

    name: str
    cpp: str
    np_dtype: np.dtype
    bits_dtype: np.dtype
    kind: str  # "float" | "int" | "uint" | "complex"
    nbits: int = 0
    modelled: bool = True

    @property
    def sub_byte(self) -> bool:
        """One element is less than a byte (int4b_t: two elements a byte)."""
        return 0 < self.nbits < 8

    @property
    def itemsize(self) -> int:
        """sizeof(T) in bytes. A sub-byte type has none: code that counts in bytes must use
        ``bits`` / ``nbytes_of`` for it; a path that does not raises TypeError for it."""
        if self.sub_byte:  # (a TypeError: this core module sits below ascend_jax.errors)
            raise TypeError(
                f"{self.cpp} is {self.nbits} bits (half a byte) and has no sizeof in bytes: this path "
                "counts in whole bytes and does not handle it (modelled: Cast, LocalTensor "
                "ReinterpretCast / GetSize / operator[])"
            )
        return self.np_dtype.itemsize

    @property
    def bits(self) -> int:
        return self.nbits or 8 * self.np_dtype.itemsize

    def nbytes_of(self, n) -> int:
        """Bytes of ``n`` elements (a sub-byte type: rounded up to whole bytes)."""
        return (int(n) * self.bits + 7) // 8

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_signed_int(self) -> bool:
        return self.kind == "int"

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint")

    def __repr__(self) -> str:
        return f"aj.{self.name}"

    def __str__(self) -> str:
        return self.name


def _d(name, cpp, np_dtype, kind):
    np_dtype = np.dtype(np_dtype)
    bits = np.dtype(f"uint{8 * np_dtype.itemsize}") if np_dtype.itemsize <= 8 else None
    return DType(name, cpp, np_dtype, bits, kind)


half = _d("half", "half", np.float16, "float")
bfloat16 = _d("bfloat16", "bfloat16_t", ml_dtypes.bfloat16, "float")
float32 = _d("float32", "float", np.float32, "float")
float64 = _d("float64", "double", np.float64, "float")
int8 = _d("int8", "int8_t", np.int8, "int")
uint8 = _d("uint8", "uint8_t", np.uint8, "uint")
int16 = _d("int16", "int16_t", np.int16, "int")
uint16 = _d("uint16", "uint16_t", np.uint16, "uint")
int32 = _d("int32", "int32_t", np.int32, "int")
uint32 = _d("uint32", "uint32_t", np.uint32, "uint")
int64 = _d("int64", "int64_t", np.int64, "int")
uint64 = _d("uint64", "uint64_t", np.uint64, "uint")
complex32 = DType("complex32", "complex32", np.dtype(np.uint32), np.dtype(np.uint32), "complex")
complex64 = DType("complex64", "complex64", np.dtype(np.complex64), np.dtype(np.uint64), "complex")
float16 = half

# SPEC: "int4b_t | [-8, 7]" (内置数据类型.md); "一个int4b_t只占半个字节" (Cast.md 约束说明). Two elements
# share a byte; element 2k is the LOW nibble of byte k, element 2k+1 the high nibble (CHOICE, from the
# vendor cast sample's golden: scripts/gen_data.py packs "output[::2] | (output[1::2] << 4)").
int4b = DType("int4b", "int4b_t", np.dtype(np.int8), np.dtype(np.uint8), "int", nbits=4)
int4b_t = int4b

# 950's 8-bit and packed 4-bit float types of the Cast table (内置数据类型.md, Cast.md): names only,
# so a call with them raises NotModelledError naming the pair (docs/MODEL.md "Cast").
fp8_e4m3fn = DType(
    "fp8_e4m3fn",
    "fp8_e4m3fn_t",
    np.dtype(ml_dtypes.float8_e4m3fn),
    np.dtype(np.uint8),
    "float",
    modelled=False,
)
fp8_e5m2 = DType(
    "fp8_e5m2", "fp8_e5m2_t", np.dtype(ml_dtypes.float8_e5m2), np.dtype(np.uint8), "float", modelled=False
)
hifloat8 = DType("hifloat8", "hifloat8_t", np.dtype(np.uint8), np.dtype(np.uint8), "float", modelled=False)
fp4x2_e2m1 = DType(
    "fp4x2_e2m1", "fp4x2_e2m1_t", np.dtype(np.uint8), np.dtype(np.uint8), "float", modelled=False
)
fp4x2_e1m2 = DType(
    "fp4x2_e1m2", "fp4x2_e1m2_t", np.dtype(np.uint8), np.dtype(np.uint8), "float", modelled=False
)

# Types outside ALL: not picked by NumPy-dtype lookup (as_dtype(np.int8) is int8) nor by code that
# walks every ordinary type; known by name (profiles, as_dtype("int4b_t")).
SPECIAL = (int4b, fp8_e4m3fn, fp8_e5m2, hifloat8, fp4x2_e2m1, fp4x2_e1m2)

ALL = (
    half,
    bfloat16,
    float32,
    float64,
    int8,
    uint8,
    int16,
    uint16,
    int32,
    uint32,
    int64,
    uint64,
    complex32,
    complex64,
)
BY_NAME = {d.name: d for d in ALL + SPECIAL}

_ALIASES = {
    "float16": "half",
    "fp16": "half",
    "bfloat16_t": "bfloat16",
    "bf16": "bfloat16",
    "float": "float32",
    "fp32": "float32",
    "double": "float64",
    "int8_t": "int8",
    "uint8_t": "uint8",
    "int16_t": "int16",
    "uint16_t": "uint16",
    "int32_t": "int32",
    "uint32_t": "uint32",
    "int64_t": "int64",
    "uint64_t": "uint64",
    "int4b_t": "int4b",
    "fp8_e4m3fn_t": "fp8_e4m3fn",
    "fp8_e5m2_t": "fp8_e5m2",
    "hifloat8_t": "hifloat8",
    "fp4x2_e2m1_t": "fp4x2_e2m1",
    "fp4x2_e1m2_t": "fp4x2_e1m2",
}


def lane_twin(x) -> DType:
    """The unsigned type of ``x``'s width (uint8/16/32/64). A bit-moving API (Select, GatherMask)
    does the same thing to every type of one width, so its engine program is keyed by this twin:
    one compilation serves half, bfloat16, int16 and uint16 alike."""
    return BY_NAME[f"uint{as_dtype(x).bits}"]


def as_dtype(x) -> DType:
    """Normalise a dtype given as DType, name/alias string, NumPy/JAX dtype or scalar type."""
    if isinstance(x, DType):
        return x
    if isinstance(x, str):
        key = _ALIASES.get(x, x)
        if key in BY_NAME:
            return BY_NAME[key]
        raise TypeError(f"unknown Ascend dtype {x!r}; known: {', '.join(BY_NAME)}")
    if x is None:  # np.dtype(None) is float64: never a silent default
        raise TypeError("cannot interpret None as an Ascend dtype")
    try:
        npd = np.dtype(x)
    except TypeError:
        raise TypeError(f"cannot interpret {x!r} as an Ascend dtype") from None
    for d in ALL:
        if d.kind != "complex" and d.np_dtype == npd:
            return d
    by_np = ", ".join(str(d.np_dtype) for d in ALL if d.kind != "complex")
    raise TypeError(
        f"NumPy dtype {npd} has no Ascend counterpart; NumPy dtypes taken: {by_np} (the complex types "
        "complex32 and complex64 are given by name, e.g. aj.complex64: their elements are bit patterns)"
    )
