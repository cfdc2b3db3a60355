// ascend_jax's own kernel_operator.h (written from the Ascend C API pages, no vendor source).
//
// The Ascend C types a kernel names (LocalTensor, GlobalTensor, TPipe, TQue, TBuf, TQueSync,
// LocalMemAllocator, the parameter structs and enums) with host semantics: a call records itself
// (API name, template arguments, each argument) into the trace of the running block; the model
// (ascend_jax, in Python) executes the trace. UB addresses follow the model's allocator: a bump
// pointer per block, starting at 0, 32-byte aligned (ascend_jax/alloc.py, ascend_jax/pipe.py).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ascendjax/rt.h"

#define __global__
#define __aicore__
#define __vector__
#define __cube__
#define __mix__
#define __gm__
#define __ubuf__
#define __inline__ inline
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif
#ifndef ASCENDJAX_UB_ALIGN
#define ASCENDJAX_UB_ALIGN 32
#endif

// -- 16-bit floating types (storage + exact conversions) ---------------------------------------
namespace ascendjax {
inline uint16_t f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t e = (x >> 23) & 0xffu;
    uint32_t m = x & 0x7fffffu;
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u | (m >> 13) : 0));
    int32_t ue = (int32_t)e - 127 + 15;
    if (ue >= 0x1f) return (uint16_t)(sign | 0x7c00u);
    if (ue <= 0) {
        if (ue < -10) return (uint16_t)sign;
        m |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - ue);
        uint32_t r = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) ++r;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((uint32_t)ue << 10) | (m >> 13);
    uint32_t rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) ++r;
    return (uint16_t)(sign | r);
}
inline float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        if (m == 0) {
            x = sign;
        } else {
            int s = -1;
            do {
                ++s;
                m <<= 1;
            } while (!(m & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - s) << 23) | ((m & 0x3ffu) << 13);
        }
    } else if (e == 0x1f) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e - 15 + 127) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}
inline uint16_t f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    uint32_t r = x + 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(r >> 16);
}
inline float bf16_to_f32(uint16_t b) {
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}
}  // namespace ascendjax

struct half {
    uint16_t bits = 0;
    half() = default;
    half(float f) : bits(ascendjax::f32_to_f16(f)) {}
    half(double d) : bits(ascendjax::f32_to_f16((float)d)) {}
    template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
    half(I i) : bits(ascendjax::f32_to_f16((float)i)) {}
    operator float() const { return ascendjax::f16_to_f32(bits); }
};
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(ascendjax::f32_to_bf16(f)) {}
    bfloat16_t(double d) : bits(ascendjax::f32_to_bf16((float)d)) {}
    template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
    bfloat16_t(I i) : bits(ascendjax::f32_to_bf16((float)i)) {}
    operator float() const { return ascendjax::bf16_to_f32(bits); }
};

// pipes (global names, as kernels write PipeBarrier<PIPE_V>())
enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

// the block index of the running core (ascendjax_launch sets them)
inline int64_t block_idx = 0;
inline int64_t block_num = 1;

namespace AscendC {
struct int4b_t {
    uint8_t bits = 0;
};
struct BinaryDefaultType {};
// The mask argument of a high-dim call with isSetMask = false: "接口入参中的mask值设置为占位符
// MASK_PLACEHOLDER，用于占位，无实际含义" (Add.md); recorded as the model's aj.MASK_PLACEHOLDER.
struct MaskPlaceholder {};
inline constexpr MaskPlaceholder MASK_PLACEHOLDER{};
template <bool B, typename T, typename F>
struct Conditional {
    using type = T;
};
template <typename T, typename F>
struct Conditional<false, T, F> {
    using type = F;
};
enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1,
    MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_M, M_MTE3, MTE2_S, S_MTE2, MTE3_S,
    S_MTE3, V_S, S_V, MTE2_MTE3, MTE3_MTE2, S_MTE1, MTE1_S, M_S, S_M, FIX_S, S_FIX, MTE2_FIX, FIX_MTE2,
    MTE3_FIX, FIX_MTE3, V_FIX, FIX_V, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };
}  // namespace AscendC

#include "ascendjax/types.gen.h"  // enums and parameter structs (generated from the Python model)

namespace AscendC {
// parameter structs whose C++ shape is not a plain aggregate of the model's fields
template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};
struct MrgSort4Info {
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 15;
    uint16_t repeatTimes = 1;
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t (&lengths)[4], bool exhausted, uint16_t valid, uint16_t repeat)
        : ifExhaustedSuspension(exhausted), validBit(valid), repeatTimes(repeat) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = lengths[i];
    }
};
template <typename T>
class LocalTensor;
}  // namespace AscendC

namespace ascendjax {
using namespace AscendC;

// -- C++ type -> Ascend dtype name ---------------------------------------------------------------
template <typename T>
constexpr const char* type_name() {
    using U = std::remove_cv_t<std::remove_reference_t<T>>;
    if constexpr (std::is_same_v<U, void>) return nullptr;
    else if constexpr (std::is_same_v<U, half>) return "half";
    else if constexpr (std::is_same_v<U, bfloat16_t>) return "bfloat16_t";
    else if constexpr (std::is_same_v<U, float>) return "float";
    else if constexpr (std::is_same_v<U, double>) return "double";
    else if constexpr (std::is_same_v<U, bool>) return "bool";
    else if constexpr (std::is_same_v<U, int4b_t>) return "int4b_t";
    else if constexpr (std::is_same_v<U, BinaryDefaultType>) return "BinaryDefaultType";
    else if constexpr (std::is_integral_v<U>) {
        constexpr bool s = std::is_signed_v<U>;
        if constexpr (sizeof(U) == 1) return s ? "int8_t" : "uint8_t";
        else if constexpr (sizeof(U) == 2) return s ? "int16_t" : "uint16_t";
        else if constexpr (sizeof(U) == 4) return s ? "int32_t" : "uint32_t";
        else return s ? "int64_t" : "uint64_t";
    } else return "?";
}
// element size in bits (int4b_t: 4)
template <typename T>
constexpr uint64_t type_bits() {
    if constexpr (std::is_same_v<T, int4b_t>) return 4;
    else return 8 * sizeof(T);
}
}  // namespace ascendjax

namespace ascendjax {
// An element offset that carries the caller's line: operator[] cannot take default arguments,
// so the caller's __builtin_LINE comes from this converting constructor's (as Arg0's).
struct Index {
    uint64_t i;
    const char* file;
    int line;
    template <typename I, std::enable_if_t<std::is_integral_v<I> || std::is_enum_v<I>, int> = 0>
    Index(I v, const char* f = __builtin_FILE(), int l = __builtin_LINE()) : i((uint64_t)v), file(f), line(l) {}
};
// tensor[i] and tensor(i): the tensor starting at element i (operator[], LocalTensor.md) that is
// also element i's scalar (operator(): "用于左值，相当于SetValue接口，用于右值，相当于GetValue接口").
// Read: GetValue(0); assigned a scalar: SetValue(0, v) -- both recorded at the caller's line.
template <typename Tn, bool SCALAR>
struct Elem;
}  // namespace ascendjax

namespace AscendC {
// -- tensors -------------------------------------------------------------------------------------
template <typename T>
class LocalTensor {
  public:
    using PrimType = T;
    int h = 0;          // the buffer handle the tensor came from (AllocTensor, Get, Alloc)
    uint32_t addr = 0;  // UB byte address
    uint32_t len = 0;   // elements
    int pos = (int)TPosition::VECCALC;
    LocalTensor() = default;
    // static Tensor programming (LocalTensor构造函数.md): a tensor at a UB address the kernel chose
    LocalTensor(TPosition p, uint32_t address, uint32_t tileSize, const char* file = __builtin_FILE(),
                int line = __builtin_LINE());
    LocalTensor sub(uint64_t offset) const {
        LocalTensor t = *this;
        t.addr = addr + (uint32_t)(offset * ascendjax::type_bits<T>() / 8);
        t.len = offset <= len ? len - (uint32_t)offset : 0;
        return t;
    }
    ascendjax::Elem<LocalTensor, false> operator[](ascendjax::Index offset) const;
    ascendjax::Elem<LocalTensor, true> operator()(uint32_t offset, const char* file = __builtin_FILE(),
                                                  int line = __builtin_LINE()) const;
    template <typename U>
    LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> t;
        t.h = h;
        t.addr = addr;
        t.len = (uint32_t)(len * ascendjax::type_bits<T>() / ascendjax::type_bits<U>());
        t.pos = pos;
        return t;
    }
    uint32_t GetSize() const { return len; }
    uint32_t GetLength() const { return (uint32_t)(len * ascendjax::type_bits<T>() / 8); }
    uint64_t GetPhyAddr() const { return addr; }
    uint64_t GetPhyAddr(uint32_t offset) const { return addr + offset * ascendjax::type_bits<T>() / 8; }
    TPosition GetPosition() const { return (TPosition)pos; }
    void SetSize(uint32_t n) { len = n; }
    T GetValue(uint32_t index, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const;
    template <typename V>
    void SetValue(uint32_t index, V value, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const;
};

template <typename T>
class GlobalTensor {
  public:
    using PrimType = T;
    int buf = -1;
    uint64_t off = 0;  // bytes into the GM buffer
    uint64_t len = 0;  // elements the model may touch (to the end of the aclrtMalloc buffer when not given)
    uint64_t size = 0;  // GetSize(): the bufferSize given (0 when none: SetGlobalBuffer.md)
    GlobalTensor() = default;
    // (the count is any integer type, so SetGlobalBuffer(p, 0) is not ambiguous with the form below)
    template <typename N, std::enable_if_t<std::is_integral_v<N>, int> = 0>
    void SetGlobalBuffer(__gm__ T* p, N count, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        uint64_t n = (uint64_t)count;
        size_t o = 0;
        buf = ascendjax::rt().find_gm((const void*)p, &o);
        size = n;
        if (buf >= 0 && n == 0) n = (ascendjax::rt().gm[buf].n - o) * 8 / ascendjax::type_bits<T>();
        if (buf < 0 && n && ascendjax::rt().in_kernel)  // a __gm__ constant table of the program
            buf = ascendjax::rt().add_table((const void*)p, n * ascendjax::type_bits<T>() / 8);
        if (buf < 0) {
            char m[512];
            snprintf(m, sizeof m,
                     "%s:%d: SetGlobalBuffer: the pointer is not inside any aclrtMalloc'ed buffer (a __gm__ table "
                     "of the program needs its element count: SetGlobalBuffer(table, count))",
                     file, line);
            ascendjax::die(2, m);
        }
        off = o;
        len = n;
    }
    void SetGlobalBuffer(__gm__ T* p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        SetGlobalBuffer(p, 0, file, line);
    }
    GlobalTensor sub(uint64_t offset) const {
        GlobalTensor t = *this;
        t.off = off + offset * ascendjax::type_bits<T>() / 8;
        t.len = offset <= len ? len - offset : 0;
        t.size = offset <= size ? size - offset : 0;
        return t;
    }
    ascendjax::Elem<GlobalTensor, false> operator[](ascendjax::Index offset) const;
    ascendjax::Elem<GlobalTensor, true> operator()(uint64_t offset, const char* file = __builtin_FILE(),
                                                   int line = __builtin_LINE()) const;
    uint64_t GetSize() const { return size; }
    __gm__ T* GetPhyAddr() const { return (T*)(ascendjax::rt().gm[buf].p + off); }
    __gm__ T* GetPhyAddr(uint64_t i) const { return GetPhyAddr() + i; }
    T GetValue(uint64_t index, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const;
    template <typename V>
    void SetValue(uint64_t index, V value, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const;
};
template <typename T>
struct MrgSortSrcList {
    LocalTensor<T> src1, src2, src3, src4;
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& a, const LocalTensor<T>& b, const LocalTensor<T>& c = LocalTensor<T>(),
                   const LocalTensor<T>& d = LocalTensor<T>())
        : src1(a), src2(b), src3(c), src4(d) {}
};
}  // namespace AscendC

namespace ascendjax {
// -- argument writers -----------------------------------------------------------------------------
template <typename T>
void w(Json& j, const LocalTensor<T>& t) {
    j.open('{');
    j.key("t");
    j.str("L");
    j.key("dt");
    j.str(type_name<T>());
    j.key("h");
    j.i64(t.h);
    j.key("addr");
    j.u64(t.addr);
    j.key("len");
    j.u64(t.len);
    j.close('}');
}
template <typename T>
void w(Json& j, const GlobalTensor<T>& t) {
    j.open('{');
    j.key("t");
    j.str("G");
    j.key("dt");
    j.str(type_name<T>());
    j.key("buf");
    j.i64(t.buf);
    j.key("off");
    j.u64(t.off);
    j.key("len");
    j.u64(t.len);
    j.close('}');
}
template <typename T>
void scalar(Json& j, const T& v) {
    j.open('{');
    j.key("t");
    j.str("s");
    j.key("ty");
    j.str(type_name<T>());
    j.key("v");
    if constexpr (std::is_same_v<T, bool>) j.raw(v ? "true" : "false");
    else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>) j.f64((double)(float)v);
    else if constexpr (std::is_floating_point_v<T>) j.f64((double)v);
    else if constexpr (std::is_signed_v<T>) j.i64((long long)v);
    else j.u64((unsigned long long)v);
    j.close('}');
}
inline void w(Json& j, bool v) { scalar(j, v); }
inline void w(Json& j, const half& v) { scalar(j, v); }
inline void w(Json& j, const bfloat16_t& v) { scalar(j, v); }
inline void w(Json& j, std::nullptr_t) { j.raw("null"); }
template <typename T>
void w(Json& j, const LocalTensor<T>& t);
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
void w(Json& j, const T& v) {
    scalar(j, v);
}
template <typename T, size_t N>
void w(Json& j, const T (&a)[N]) {
    j.open('{');
    j.key("t");
    j.str("list");
    j.key("v");
    j.open('[');
    for (size_t i = 0; i < N; ++i) w(j, a[i]);
    j.close(']');
    j.close('}');
}
inline void enum_value(Json& j, const char* ty, const char* name) {
    j.open('{');
    j.key("t");
    j.str("e");
    j.key("ty");
    j.str(ty);
    j.key("v");
    j.str(name);
    j.close('}');
}
inline void w(Json& j, pipe_t p) {
    static const char* n[] = {"PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL", "PIPE_FIX"};
    enum_value(j, "pipe_t", (unsigned)p < 8 ? n[p] : "?");
}
inline void w(Json& j, HardEvent e) {
    static const char* n[] = {"MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
                              "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
                              "M_FIX", "FIX_M", "MTE3_M", "M_MTE3", "MTE2_S", "S_MTE2", "MTE3_S", "S_MTE3", "V_S",
                              "S_V", "MTE2_MTE3", "MTE3_MTE2", "S_MTE1", "MTE1_S", "M_S", "S_M", "FIX_S", "S_FIX",
                              "MTE2_FIX", "FIX_MTE2", "MTE3_FIX", "FIX_MTE3", "V_FIX", "FIX_V", "MTE1_FIX", "FIX_MTE1",
                              "FIX_FIX", "MAX"};
    enum_value(j, "HardEvent", (unsigned)e < sizeof n / sizeof *n ? n[(unsigned)e] : "?");
}
inline void w(Json& j, event_t e) { scalar(j, (int32_t)e); }
inline void w(Json& j, AscendC::MaskPlaceholder) {
    j.open('{');
    j.key("t");
    j.str("mask_placeholder");
    j.close('}');
}
inline void struct_begin(Json& j, const char* ty) {
    j.open('{');
    j.key("t");
    j.str("p");
    j.key("ty");
    j.str(ty);
    j.key("f");
    j.open('{');
}
inline void struct_end(Json& j) {
    j.close('}');
    j.close('}');
}
}  // namespace ascendjax
#include "ascendjax/writers.gen.h"
namespace ascendjax {
template <typename T>
void w(Json& j, const DataCopyPadExtParams<T>& p) {
    struct_begin(j, "DataCopyPadExtParams");
    j.key("isPad");
    w(j, p.isPad);
    j.key("leftPadding");
    w(j, p.leftPadding);
    j.key("rightPadding");
    w(j, p.rightPadding);
    j.key("paddingValue");
    w(j, p.paddingValue);
    struct_end(j);
}
template <typename T>
void w(Json& j, const MrgSortSrcList<T>& p) {
    struct_begin(j, "MrgSortSrcList");
    const LocalTensor<T>* s[4] = {&p.src1, &p.src2, &p.src3, &p.src4};
    const char* n[4] = {"src1", "src2", "src3", "src4"};
    for (int i = 0; i < 4; ++i) {
        j.key(n[i]);
        if (s[i]->h) w(j, *s[i]);
        else j.raw("null");
    }
    struct_end(j);
}
inline void w(Json& j, const MrgSort4Info& p) {
    struct_begin(j, "MrgSort4Info");
    j.key("elementLengths");
    w(j, p.elementLengths);
    j.key("ifExhaustedSuspension");
    w(j, p.ifExhaustedSuspension);
    j.key("validBit");
    w(j, p.validBit);
    j.key("repeatTimes");
    w(j, p.repeatTimes);
    struct_end(j);
}
// -- tensor[i] / tensor(i) as an element (see Index) ---------------------------------------------
template <typename V>
constexpr bool is_scalar_v = std::is_arithmetic_v<V> || std::is_same_v<V, half> || std::is_same_v<V, bfloat16_t>;
template <typename Tn, bool SCALAR>
struct Elem : Tn {
    using P = typename Tn::PrimType;
    const char* file;
    int line;
    Elem(const Tn& t, const char* f, int l) : Tn(t), file(f), line(l) {}
    Elem(const Elem&) = default;
    P get() const { return this->GetValue(0, file, line); }
    operator P() const { return get(); }
    // a 16-bit float element also reads as float (`float f = h(i)`, `h(i) * 2.0f`)
    struct NoFloat {};
    using F = std::conditional_t<std::is_same_v<P, half> || std::is_same_v<P, bfloat16_t>, float, NoFloat>;
    operator F() const { return F((float)get()); }
    template <typename V, std::enable_if_t<is_scalar_v<V>, int> = 0>
    Elem& operator=(V v) {
        this->SetValue(0, v, file, line);
        return *this;
    }
    template <typename Un, bool S>
    Elem& operator=(const Elem<Un, S>& o) {  // x(i) = y(j): an element copy through the scalar unit
        static_assert(SCALAR || S,
                      "x[i] = y[j] assigns one operator[] view to another (in C++, to a temporary LocalTensor): "
                      "write x(i) = y(j) to copy an element, or hold the view in a LocalTensor variable");
        this->SetValue(0, o.get(), file, line);
        return *this;
    }
    Elem& operator=(const Elem& o) { return this->template operator= <Tn, SCALAR>(o); }
#define ASCENDJAX_ELEM_OP(OP)                                         \
    template <typename V>                                             \
    Elem& operator OP##=(const V& v) {                                \
        this->SetValue(0, num(get()) OP num(v), file, line);          \
        return *this;                                                 \
    }
    ASCENDJAX_ELEM_OP(+)
    ASCENDJAX_ELEM_OP(-)
    ASCENDJAX_ELEM_OP(*)
    ASCENDJAX_ELEM_OP(/)
#undef ASCENDJAX_ELEM_OP
    Elem& operator++() { return *this += 1; }
    Elem& operator--() { return *this -= 1; }
    P operator++(int) {
        P v = get();
        *this += 1;
        return v;
    }
    P operator--(int) {
        P v = get();
        *this -= 1;
        return v;
    }
    // a value for arithmetic: 16-bit floats as float
    template <typename V>
    static auto num(const V& v) {
        if constexpr (std::is_same_v<V, half> || std::is_same_v<V, bfloat16_t>) return (float)v;
        else if constexpr (std::is_arithmetic_v<V>) return v;
        else return num((typename V::PrimType)v);
    }
};
template <typename X>
struct is_elem : std::false_type {};
template <typename Tn, bool S>
struct is_elem<Elem<Tn, S>> : std::true_type {};
// as a call argument: tensor[i] is the tensor (an API's operand), tensor(i) its element's value
template <typename Tn, bool SCALAR>
void w(Json& j, const Elem<Tn, SCALAR>& e) {
    if constexpr (SCALAR) w(j, e.get());
    else w(j, static_cast<const Tn&>(e));
}
// printf's arguments: an element as its value, a 16-bit float as double
template <typename V>
auto va(const V& v) {
    if constexpr (is_elem<V>::value) return va(v.get());
    else if constexpr (std::is_same_v<V, half> || std::is_same_v<V, bfloat16_t>) return (double)(float)v;
    else return v;
}

// anything else: named so the Python side can say which argument it cannot read
template <typename T, std::enable_if_t<!std::is_arithmetic_v<T> && !std::is_enum_v<T> && !is_elem<T>::value, int> = 0>
void w(Json& j, const T&) {
    j.open('{');
    j.key("t");
    j.str("?");
    j.key("ty");
    j.str(__PRETTY_FUNCTION__);
    j.close('}');
}
// an out-parameter (GatherMask's rsvdCnt): the model's value is written back after the call
template <typename V>
struct Out {};
template <typename V>
void w(Json& j, const Out<V>&) {
    j.open('{');
    j.key("t");
    j.str("out");
    j.key("ty");
    j.str(type_name<V>());
    j.close('}');
}

// the first argument of a recorder: any type, and the caller's file and line
struct Arg0 {
    const void* p;
    void (*fn)(Json&, const void*);
    const char* file;
    int line;
    template <typename X>
    Arg0(const X& v, const char* f = __builtin_FILE(), int l = __builtin_LINE())
        : p(&v), fn([](Json& j, const void* q) { w(j, *(const X*)q); }), file(f), line(l) {}
    void write(Json& j) const { fn(j, p); }
};

template <typename T>
void tmpl_type(Json& j, const char* name) {
    j.open('{');
    j.key("name");
    j.str(name);
    j.key("type");
    const char* n = type_name<T>();
    if (n) j.str(n);
    else j.raw("null");
    j.close('}');
}
template <typename V>
void tmpl_val(Json& j, const char* name, const V& v) {
    j.open('{');
    j.key("name");
    j.str(name);
    j.key("value");
    w(j, v);
    j.close('}');
}

inline Json begin_call(const char* api) {
    Json j = rt().start("call");
    if (rt().outside == "call") rt().outside = api;  // a call in host code: name the API
    j.key("api");
    j.str(api);
    return j;
}

template <typename R>
R read_value() {
    R v{};
    rt().value(&v, sizeof(R));
    return v;
}
}  // namespace ascendjax

// ============================================================================================
namespace AscendC {
using ascendjax::rt;

template <typename T>
T LocalTensor<T>::GetValue(uint32_t index, const char* file, int line) const {
    auto j = rt().start("GetValue");
    j.key("t");
    ascendjax::w(j, *this);
    j.key("i");
    j.u64(index);
    j.key("ret");
    j.str(ascendjax::type_name<T>());
    rt().record(j, file, line);
    return ascendjax::read_value<T>();
}
template <typename T>
template <typename V>
void LocalTensor<T>::SetValue(uint32_t index, V value, const char* file, int line) const {
    auto j = rt().start("SetValue");
    j.key("t");
    ascendjax::w(j, *this);
    j.key("i");
    j.u64(index);
    j.key("v");
    ascendjax::w(j, (T)value);
    rt().record(j, file, line);
}
template <typename T>
T GlobalTensor<T>::GetValue(uint64_t index, const char* file, int line) const {
    auto j = rt().start("GetValue");
    j.key("t");
    ascendjax::w(j, *this);
    j.key("i");
    j.u64(index);
    j.key("ret");
    j.str(ascendjax::type_name<T>());
    rt().record(j, file, line);
    return ascendjax::read_value<T>();
}
template <typename T>
template <typename V>
void GlobalTensor<T>::SetValue(uint64_t index, V value, const char* file, int line) const {
    auto j = rt().start("SetValue");
    j.key("t");
    ascendjax::w(j, *this);
    j.key("i");
    j.u64(index);
    j.key("v");
    ascendjax::w(j, (T)value);
    rt().record(j, file, line);
}

template <typename T>
ascendjax::Elem<LocalTensor<T>, false> LocalTensor<T>::operator[](ascendjax::Index offset) const {
    return {sub(offset.i), offset.file, offset.line};
}
template <typename T>
ascendjax::Elem<LocalTensor<T>, true> LocalTensor<T>::operator()(uint32_t offset, const char* file, int line) const {
    return {sub(offset), file, line};
}
template <typename T>
ascendjax::Elem<GlobalTensor<T>, false> GlobalTensor<T>::operator[](ascendjax::Index offset) const {
    return {sub(offset.i), offset.file, offset.line};
}
template <typename T>
ascendjax::Elem<GlobalTensor<T>, true> GlobalTensor<T>::operator()(uint64_t offset, const char* file, int line) const {
    return {sub(offset), file, line};
}
template <typename T>
LocalTensor<T>::LocalTensor(TPosition p, uint32_t address, uint32_t tileSize, const char* file, int line) {
    h = rt().next_id++;
    addr = address;
    len = tileSize;
    pos = (int)p;
    auto j = rt().start("StaticTensor");
    j.key("dt");
    j.str(ascendjax::type_name<T>());
    j.key("h");
    j.i64(h);
    j.key("pos");
    j.i64(pos);
    j.key("addr");
    j.u64(addr);
    j.key("len");
    j.u64(len);
    rt().record(j, file, line);
}

// -- UB management: TPipe, TQue, TBuf, LocalMemAllocator -----------------------------------------
namespace detail {
inline uint32_t bump(uint32_t nbytes) {
    uint32_t a = (rt().ub_next + ASCENDJAX_UB_ALIGN - 1) / ASCENDJAX_UB_ALIGN * ASCENDJAX_UB_ALIGN;
    rt().ub_next = a + nbytes;
    return a;
}
struct Buffer {
    uint32_t addr, nbytes;
    bool in_use;
};
inline void obj_record(const char* op, int id, int pos, int depth, const char* file, int line) {
    auto j = rt().start(op);
    j.key("id");
    j.i64(id);
    j.key("pos");
    j.i64(pos);
    j.key("depth");
    j.i64(depth);
    rt().record(j, file, line);
}
template <typename T>
LocalTensor<T> handle_tensor(const char* op, int obj, uint32_t addr, uint32_t nbytes, int pos, const char* file,
                             int line, int64_t len = -1) {
    LocalTensor<T> t;
    t.h = rt().next_id++;
    t.addr = addr;
    t.len = len >= 0 ? (uint32_t)len : (uint32_t)(nbytes * 8 / ascendjax::type_bits<T>());
    t.pos = pos;
    auto j = rt().start(op);
    j.key("obj");
    j.i64(obj);
    j.key("dt");
    j.str(ascendjax::type_name<T>());
    j.key("h");
    j.i64(t.h);
    j.key("addr");
    j.u64(addr);
    j.key("len");
    j.u64(t.len);
    j.key("given");
    j.raw(len >= 0 ? "true" : "false");
    rt().record(j, file, line);
    return t;
}
}  // namespace detail

class TPipe;
inline TPipe*& current_pipe() {
    static TPipe* p = nullptr;
    return p;
}

class TQueBase {
  public:
    int id;
    int pos;
    int depth;
    std::vector<detail::Buffer> bufs;
    std::vector<int> queue_h;  // handles in the queue
    std::vector<LocalTensor<uint8_t>> queue;
    TQueBase(int p, int d, const char* file, int line) : id(rt().next_id++), pos(p), depth(d) {
        detail::obj_record("TQue", id, p, d, file, line);
    }
    template <typename T>
    LocalTensor<T> AllocTensor(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        for (auto& b : bufs) {
            if (!b.in_use) {
                b.in_use = true;
                return detail::handle_tensor<T>("AllocTensor", id, b.addr, b.nbytes, pos, file, line);
            }
        }
        // no idle buffer: the model raises the usage error; record the call so it can
        auto j = rt().start("AllocTensor");
        j.key("obj");
        j.i64(id);
        j.key("dt");
        j.str(ascendjax::type_name<T>());
        j.key("h");
        j.i64(rt().next_id++);
        rt().record(j, file, line);
        ascendjax::die(97, "AllocTensor without an idle buffer");
    }
    // the out-parameter forms (TQue/AllocTensor.md, DeQue.md): void AllocTensor(LocalTensor<T>&)
    template <typename T>
    void AllocTensor(LocalTensor<T>& t, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        t = AllocTensor<T>(file, line);
    }
    template <typename T>
    void DeQue(LocalTensor<T>& t, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        t = DeQue<T>(file, line);
    }
    template <typename T>
    bool EnQue(const LocalTensor<T>& t, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        auto j = rt().start("EnQue");
        j.key("obj");
        j.i64(id);
        j.key("t");
        ascendjax::w(j, t);
        rt().record(j, file, line);
        if (depth && (int)queue.size() >= depth) return false;
        queue.push_back(t.template ReinterpretCast<uint8_t>());
        return true;
    }
    template <typename T>
    LocalTensor<T> DeQue(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        auto j = rt().start("DeQue");
        j.key("obj");
        j.i64(id);
        j.key("dt");
        j.str(ascendjax::type_name<T>());
        rt().record(j, file, line);
        if (queue.empty()) ascendjax::die(97, "DeQue of an empty queue");
        LocalTensor<uint8_t> t = queue.front();
        queue.erase(queue.begin());
        return t.template ReinterpretCast<T>();
    }
    template <typename T>
    void FreeTensor(const LocalTensor<T>& t, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        auto j = rt().start("FreeTensor");
        j.key("obj");
        j.i64(id);
        j.key("t");
        ascendjax::w(j, t);
        rt().record(j, file, line);
        for (auto& b : bufs)
            if (t.addr >= b.addr && t.addr < b.addr + b.nbytes) b.in_use = false;
    }
    bool HasTensorInQue() const { return !queue.empty(); }
    int32_t GetTensorCountInQue() const { return (int32_t)queue.size(); }
    bool HasIdleBuffer() const {
        for (auto& b : bufs)
            if (!b.in_use) return true;
        return false;
    }
    bool VacantInQue() const { return !depth || (int)queue.size() < depth; }
};

// (template parameters named apart from TQueBase's members, which would hide them)
template <TPosition POS, int32_t DEPTH = 1, auto... MASK>
class TQue : public TQueBase {
  public:
    TQue(const char* file = __builtin_FILE(), int line = __builtin_LINE()) : TQueBase((int)POS, DEPTH, file, line) {}
};
template <TPosition SRC, TPosition DST, int32_t DEPTH = 1, auto... MASK>
class TQueBind : public TQueBase {
  public:
    TQueBind(const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : TQueBase((int)DST, DEPTH, file, line) {}
};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
  public:
    int id;
    uint32_t addr = 0, nbytes = 0;
    TBuf(const char* file = __builtin_FILE(), int line = __builtin_LINE()) : id(rt().next_id++) {
        detail::obj_record("TBuf", id, (int)pos, 0, file, line);
    }
    template <typename T>
    LocalTensor<T> Get(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return detail::handle_tensor<T>("Get", id, addr, nbytes, (int)pos, file, line);
    }
    template <typename T>
    LocalTensor<T> Get(uint32_t len, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return detail::handle_tensor<T>("Get", id, addr, nbytes, (int)pos, file, line, len);
    }
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset, const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
        return detail::handle_tensor<T>("GetWithOffset", id, addr + bufOffset, nbytes, (int)pos, file, line, size);
    }
};

template <TPosition pos, uint32_t bufIDSize>
class TBufPool;

class TPipe {
  public:
    int id;
    uint32_t base;                              // the UB address its first buffer starts from
    std::vector<std::function<void()>> owned;  // detaches each TQue/TBuf it gave memory to
    TPipe(const char* file = __builtin_FILE(), int line = __builtin_LINE()) : id(rt().next_id++), base(rt().ub_next) {
        detail::obj_record("TPipe", id, 0, 0, file, line);
        current_pipe() = this;
    }
    ~TPipe() {
        if (current_pipe() == this) current_pipe() = nullptr;
    }
    bool InitBuffer(TQueBase& q, uint8_t num, uint32_t len, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) {
        record_init(q.id, num, len, file, line);
        uint32_t n = (len + 31) / 32 * 32;
        for (int i = 0; i < num; ++i) q.bufs.push_back({detail::bump(n), n, false});
        owned.push_back([&q] { q.bufs.clear(), q.queue.clear(); });
        return true;
    }
    template <TPosition P>
    bool InitBuffer(TBuf<P>& b, uint32_t len, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        record_init(b.id, -1, len, file, line);
        uint32_t n = (len + 31) / 32 * 32;
        b.addr = detail::bump(n);
        b.nbytes = n;
        owned.push_back([&b] { b.addr = 0, b.nbytes = 0; });
        return true;
    }
    // a sub-pool of UB (TPipe/InitBufPool.md): its own bytes, or those of shareBuf ("共享起始地址及长度")
    template <typename T>
    bool InitBufPool(T& bufPool, uint32_t len, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return bufPool.attach(this, -1, nullptr, len, file, line);
    }
    template <typename T, typename U>
    bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf, const char* file = __builtin_FILE(),
                     int line = __builtin_LINE()) {
        return bufPool.attach(this, -1, &shareBuf.start, len, file, line, shareBuf.id);
    }
    template <HardEvent evt>
    int8_t AllocEventID() {
        return 0;
    }
    template <HardEvent evt>
    void ReleaseEventID(int8_t) {}
    int8_t FetchEventID(HardEvent) { return 0; }
    template <HardEvent evt>
    int8_t FetchEventID() {
        return 0;
    }
    // Destroy (Destroy.md: "用于重复申请释放tpipe"): every buffer it gave out is released and its
    // UB handed out again from its start; with a PIPE_ALL barrier first (SPEC:
    // DestroyWithoutPipeAll.md "该接口内部未设置PIPE_ALL同步" -- Destroy has one). Reset: the same
    // without the barrier ("完成资源的释放...恢复到TPipe的初始化状态"); Init after Destroy: nothing left to do.
    void Destroy(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { release("Destroy", file, line); }
    void DestroyWithoutPipeAll(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        release("DestroyWithoutPipeAll", file, line);
    }
    void Reset(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { release("Reset", file, line); }
    void Init() { current_pipe() = this; }

  private:
    void release(const char* op, const char* file, int line) {
        auto j = rt().start("PipeRelease");
        j.key("pipe");
        j.i64(id);
        j.key("how");
        j.str(op);
        rt().record(j, file, line);
        for (auto& f : owned) f();
        owned.clear();
        rt().ub_next = base;
    }
    void record_init(int obj, int num, uint32_t len, const char* file, int line) {
        auto j = rt().start("InitBuffer");
        j.key("pipe");
        j.i64(id);
        j.key("obj");
        j.i64(obj);
        j.key("num");
        j.i64(num);
        j.key("len");
        j.u64(len);
        rt().record(j, file, line);
    }
};
inline TPipe* GetTPipePtr() { return current_pipe(); }

// TBufPool (TBufPool.md): a pool of UB carved from the pipe (or a parent pool) that hands its bytes
// to TQue / TBuf (InitBuffer) and sub-pools (InitBufPool); pools may share their bytes.
template <TPosition pos = TPosition::VECCALC, uint32_t bufIDSize = 4>
class TBufPool {
  public:
    int id;
    TPipe* pipe = nullptr;
    uint32_t start = 0, nbytes = 0, cur = 0;
    TBufPool(const char* file = __builtin_FILE(), int line = __builtin_LINE()) : id(rt().next_id++) {
        detail::obj_record("TBufPool", id, (int)pos, 0, file, line);
    }
    bool InitBuffer(TQueBase& q, uint8_t num, uint32_t len, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) {
        record("PoolInitBuffer", q.id, num, len, file, line);
        uint32_t n = (len + 31) / 32 * 32;
        for (int i = 0; i < num; ++i) q.bufs.push_back({take(n), n, false});
        pipe->owned.push_back([&q] { q.bufs.clear(), q.queue.clear(); });
        return true;
    }
    template <TPosition P>
    bool InitBuffer(TBuf<P>& b, uint32_t len, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        record("PoolInitBuffer", b.id, -1, len, file, line);
        b.nbytes = (len + 31) / 32 * 32;
        b.addr = take(b.nbytes);
        pipe->owned.push_back([&b] { b.addr = 0, b.nbytes = 0; });
        return true;
    }
    template <typename T>
    bool InitBufPool(T& bufPool, uint32_t len, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        bufPool.parent_take = [this](uint32_t n) { return take(n); };
        return bufPool.attach(pipe, id, nullptr, len, file, line);
    }
    template <typename T, typename U>
    bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf, const char* file = __builtin_FILE(),
                     int line = __builtin_LINE()) {
        return bufPool.attach(pipe, id, &shareBuf.start, len, file, line, shareBuf.id);
    }
    void Reset(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        record("PoolReset", -1, 0, 0, file, line);
    }
    // (called by TPipe / TBufPool::InitBufPool)
    bool attach(TPipe* p, int parent, const uint32_t* share, uint32_t len, const char* file, int line,
                int share_id = -1) {
        auto j = rt().start("InitBufPool");
        j.key("pipe");
        j.i64(p->id);
        j.key("parent");
        j.i64(parent);
        j.key("obj");
        j.i64(id);
        j.key("len");
        j.u64(len);
        j.key("share");
        j.i64(share_id);
        rt().record(j, file, line);
        pipe = p;
        nbytes = (len + 31) / 32 * 32;
        start = share ? *share : parent < 0 ? detail::bump(nbytes) : parent_take(nbytes);
        cur = start;
        return true;
    }
    std::function<uint32_t(uint32_t)> parent_take;  // the parent pool's allocator (nested pools)
    uint32_t take(uint32_t n) {
        uint32_t a = (cur + ASCENDJAX_UB_ALIGN - 1) / ASCENDJAX_UB_ALIGN * ASCENDJAX_UB_ALIGN;
        cur = a + n;
        return a;
    }

  private:
    void record(const char* op, int obj, int num, uint32_t len, const char* file, int line) {
        auto j = rt().start(op);
        j.key("pool");
        j.i64(id);
        j.key("obj");
        j.i64(obj);
        j.key("num");
        j.i64(num);
        j.key("len");
        j.u64(len);
        rt().record(j, file, line);
    }
};

template <Hardware hw = Hardware::UB>
class LocalMemAllocator {
  public:
    int id;
    LocalMemAllocator(const char* file = __builtin_FILE(), int line = __builtin_LINE()) : id(rt().next_id++) {
        if constexpr (hw != Hardware::UB) {
            static const char* n[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BIAS", "FIXBUF", "MAX"};
            rt().not_modelled(std::string(file) + ":" + std::to_string(line) + ": LocalMemAllocator<Hardware::" +
                              n[(int)hw] + ">: only the vector core's UB is modelled (L1 and L0 are cube-core memory)");
        }
        detail::obj_record("LocalMemAllocator", id, (int)hw, 0, file, line);
    }
    template <typename T, uint32_t len>
    LocalTensor<T> Alloc(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        uint32_t nbytes = (uint32_t)(len * ascendjax::type_bits<T>() / 8);
        return detail::handle_tensor<T>("Alloc", id, detail::bump(nbytes), nbytes, (int)TPosition::VECCALC, file,
                                        line, len);
    }
    template <typename T>
    LocalTensor<T> Alloc(uint32_t len, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        uint32_t nbytes = (uint32_t)(len * ascendjax::type_bits<T>() / 8);
        return detail::handle_tensor<T>("Alloc", id, detail::bump(nbytes), nbytes, (int)TPosition::VECCALC, file,
                                        line, len);
    }
    uint32_t GetCurAddr() const { return rt().ub_next; }
};

// -- synchronisation and the core's identity ------------------------------------------------------
inline int64_t GetBlockIdx() { return block_idx; }
inline int64_t GetBlockNum() { return block_num; }
#ifndef ASCENDJAX_AIC_AIV_RATIO
#define ASCENDJAX_AIC_AIV_RATIO 2
#endif
// CHOICE (docs/MODEL.md, as the Python model): block_idx % 2 on a 1:2 product, else 0
inline int64_t GetSubBlockIdx() { return ASCENDJAX_AIC_AIV_RATIO == 2 ? block_idx % 2 : 0; }
// CHOICE: every block of a launch is one vector core and GetBlockNum() counts them all, so a
// kernel splitting its data by GetBlockNum() * GetSubBlockNum() covers it once: 1
inline int64_t GetSubBlockNum() { return 1; }
inline int64_t GetTaskRation() { return 1; }
inline void InitSocState() {}
inline int64_t GetSystemCycle() { return 0; }
template <typename T>
constexpr T DivCeil(T a, T b) {
    return (a + b - 1) / b;
}
template <typename T>
constexpr T AlignUp(T a, T b) {
    return (a + b - 1) / b * b;
}

template <pipe_t pipe>
inline void PipeBarrier(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    auto j = ascendjax::begin_call("PipeBarrier");
    j.key("tmpl");
    j.open('[');
    ascendjax::tmpl_val(j, "pipe", pipe);
    j.close(']');
    j.key("args");
    j.open('[');
    j.close(']');
    rt().record(j, file, line);
}
#define ASCENDJAX_SYNC(NAME)                                                                    \
    template <HardEvent event>                                                                  \
    inline void NAME(int32_t eventID, const char* file = __builtin_FILE(), int line = __builtin_LINE()) { \
        auto j = ascendjax::begin_call(#NAME);                                                  \
        j.key("tmpl");                                                                          \
        j.open('[');                                                                            \
        ascendjax::tmpl_val(j, "event", event);                                                 \
        j.close(']');                                                                           \
        j.key("args");                                                                          \
        j.open('[');                                                                            \
        ascendjax::w(j, eventID);                                                               \
        j.close(']');                                                                           \
        rt().record(j, file, line);                                                             \
    }
ASCENDJAX_SYNC(SetFlag)
ASCENDJAX_SYNC(WaitFlag)
#undef ASCENDJAX_SYNC
inline void SyncAll(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    auto j = ascendjax::begin_call("SyncAll");
    j.key("tmpl");
    j.open('[');
    j.close(']');
    j.key("args");
    j.open('[');
    j.close(']');
    rt().record(j, file, line);
    rt().phase_end();  // the other blocks run up to their own SyncAll (ascendjax_launch)
}
// SyncAll<isAIVOnly>() (SyncAll.md's template form): the same record as SyncAll()
template <bool isAIVOnly, typename F = const char*, std::enable_if_t<std::is_same_v<F, const char*>, int> = 0>
inline void SyncAll(F file = __builtin_FILE(), int line = __builtin_LINE()) {
    SyncAll(file, line);
}
// a call with template type arguments only (SetAtomicAdd<float>()) or none
template <typename T = void>
inline void record_typed(const char* api, const char* file, int line) {
    auto j = ascendjax::begin_call(api);
    j.key("tmpl");
    j.open('[');
    ascendjax::tmpl_type<T>(j, "T");
    j.close(']');
    j.key("args");
    j.open('[');
    j.close(']');
    rt().record(j, file, line);
}
// DMA atomics (SetAtomicAdd.md, SetAtomicMax.md, SetAtomicMin.md, SetAtomicType.md, DisableDmaAtomic.md)
template <typename T>
inline void SetAtomicAdd(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    record_typed<T>("SetAtomicAdd", file, line);
}
template <typename T>
inline void SetAtomicMax(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    record_typed<T>("SetAtomicMax", file, line);
}
template <typename T>
inline void SetAtomicMin(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    record_typed<T>("SetAtomicMin", file, line);
}
template <typename T>
inline void SetAtomicType(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    record_typed<T>("SetAtomicType", file, line);
}
inline void DisableDmaAtomic(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    record_typed("DisableDmaAtomic", file, line);
}
inline void SetAtomicNone(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    record_typed("DisableDmaAtomic", file, line);
}
// DataSyncBarrier<MemDsbT>() (DataSyncBarrier(ISASI).md): the model orders every pipe (as PIPE_ALL)
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
template <MemDsbT arg0 = MemDsbT::ALL>
inline void DataSyncBarrier(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    record_typed("DataSyncBarrier", file, line);
}
// CHOICE (no API page): the usable UB bytes of the profile the kernel is built for
#ifndef ASCENDJAX_UB_BYTES
#define ASCENDJAX_UB_BYTES 196352
#endif
inline constexpr uint32_t GetUBSizeInBytes() { return ASCENDJAX_UB_BYTES; }
template <pipe_t src, pipe_t dst>
class TQueSync {
  public:
    void SetFlag(int32_t id, const char* file = __builtin_FILE(), int line = __builtin_LINE()) { rec("SetFlag", id, file, line); }
    void WaitFlag(int32_t id, const char* file = __builtin_FILE(), int line = __builtin_LINE()) { rec("WaitFlag", id, file, line); }

  private:
    void rec(const char* what, int32_t id, const char* file, int line) {
        auto j = ascendjax::begin_call("TQueSync");
        j.key("tmpl");
        j.open('[');
        ascendjax::tmpl_val(j, "src", src);
        ascendjax::tmpl_val(j, "dst", dst);
        j.close(']');
        j.key("args");
        j.open('[');
        j.str(what);
        ascendjax::w(j, id);
        j.close(']');
        rt().record(j, file, line);
    }
};

// assertions (a false one stops the run at its line, exit 1)
#ifndef ASSERT
#define ASSERT(...) ascendjax::rt().check((bool)(__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)
#endif
#ifndef ascendc_assert
#define ascendc_assert(cond, ...) ascendjax::rt().check((bool)(cond), #cond, __FILE__, __LINE__)
#endif
// debugging aids: a device printf prints on the host; DumpTensor is not modelled (ignored)
template <typename... A>
inline void printf(const char* fmt, A... a) {
    ::printf(fmt, ascendjax::va(a)...);
}
template <typename... A>
inline void PRINTF(const char* fmt, A... a) {
    ::printf(fmt, ascendjax::va(a)...);
}
template <typename... A>
inline void DumpTensor(A&&...) {}
template <typename T, TPosition pos = TPosition::MAX>
inline void SetPadValue(T value, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    auto j = ascendjax::begin_call("SetPadValue");
    j.key("tmpl");
    j.open('[');
    j.close(']');
    j.key("args");
    j.open('[');
    ascendjax::w(j, value);
    j.close(']');
    rt().record(j, file, line);
}
}  // namespace AscendC

#include "ascendjax/apis.gen.h"  // one recorder per API the model has (generated from the registry)

namespace AscendC {
// GatherMask's GatherMaskParams is often a braced list (`{1, 4, 8, 0}`), which the variadic
// recorder cannot deduce: a typed overload for that form (the same record).
template <typename T = void, bool isSetMask = true, typename D, typename S0, typename S1>
inline void GatherMask(const D& dst, const S0& src0, const S1& src1Pattern, bool reduceMode, uint32_t mask,
                       const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt,
                       const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    auto j = ascendjax::begin_call("GatherMask");
    j.key("tmpl");
    j.open('[');
    ascendjax::tmpl_type<T>(j, "T");
    ascendjax::tmpl_val(j, "isSetMask", isSetMask);
    j.close(']');
    j.key("args");
    j.open('[');
    ascendjax::w(j, dst);
    ascendjax::w(j, src0);
    ascendjax::w(j, src1Pattern);
    ascendjax::w(j, reduceMode);
    ascendjax::w(j, mask);
    ascendjax::w(j, gatherMaskParams);
    ascendjax::w(j, ascendjax::Out<uint64_t>{});
    j.close(']');
    rt().record(j, file, line);
    rsvdCnt = ascendjax::read_value<uint64_t>();
}
}  // namespace AscendC
using AscendC::GetTPipePtr;

// -- the launch (`k<<<blocks, ubuf, stream>>>(args)` is rewritten into this) ----------------------
template <typename K, typename L2, typename S, typename... A>
void ascendjax_launch(const char* name, int line, K kernel, uint64_t blocks, L2 /*l2ctrl*/, S /*stream*/,
                      A&&... args) {
    auto& r = ascendjax::rt();
    if (const char* bd = getenv("ASCENDJAX_BLOCK_DIM")) blocks = strtoull(bd, nullptr, 10);  // --block-dim
    r.begin_launch(name, line, (long)blocks);
    // SPEC (model): the blocks advance in phases cut by SyncAll (SyncAll.md: every core waits there
    // until all have reached it); within a phase block 0 runs first. Each block is a coroutine.
    auto blocks_run = [&]() {
        std::vector<ascendjax::Fiber> fs(blocks);
        for (uint64_t b = 0; b < blocks; ++b) fs[b].body = [&kernel, &args...]() { kernel(args...); };
        for (bool left = true; left;) {
            left = false;
            for (uint64_t b = 0; b < blocks; ++b) {
                auto& f = fs[b];
                if (f.done) continue;
                block_idx = (int64_t)b;
                block_num = (int64_t)blocks;
                if (!f.started) {
                    r.begin_block((long)b);
                } else {
                    r.block = (long)b;
                    r.in_kernel = true;
                    r.ub_next = f.ub_next;
                }
                AscendC::current_pipe() = (AscendC::TPipe*)f.pipe;
                r.resume(f);
                f.ub_next = r.ub_next;
                f.pipe = AscendC::current_pipe();
                r.end_block();
                left = left || !f.done;
            }
        }
    };
    blocks_run();
    long cases = r.end_launch();
    for (long c = 1; c <= cases; ++c) {  // --cases with a value read back: each case on its own
        r.begin_case(c);
        blocks_run();
        r.end_case(c);
    }
}

// A launch of a __cube__ kernel (build.py rewrites it into this): the AI Cube core (L1, L0A/B/C,
// Mmad, Fixpipe) is outside the model, which runs vector cores only.
template <typename... A>
void ascendjax_cube_launch(const char* name, int line, const char* file, A&&...) {
    ascendjax::rt().not_modelled(std::string(file) + ":" + std::to_string(line) + ": " + name +
                                 " is a __cube__ kernel: the AI Cube core (L1, L0A/L0B/L0C, Mmad) is not "
                                 "modelled; ascend_jax runs vector (__vector__ / AIV) kernels only");
}
