// ascend_jax's op-framework macros for an op project's kernel (op_kernel/*.cpp), written for
// ascend_jax from the Ascend C docs: the host harness `ascend-jax run --tiling` generates includes
// this header before the kernel file, with the tiling struct, the tiling key and the DTYPE_<NAME>
// macros of the run already defined (ascend_jax/cxx/opkernel.py).
#pragma once
#include <cstdint>
#include <cstring>

#include "kernel_operator.h"

// The tiling struct GET_TILING_DATA fills: the harness names it (the op_host header's registered
// class, or the struct of the kernel's REGISTER_TILING_DEFAULT / GET_TILING_DATA_WITH_STRUCT).
#ifndef ASCENDJAX_TILING_TYPE
#define ASCENDJAX_TILING_TYPE AscendjaxTilingDefault
#endif
// The tiling key TILING_KEY_IS compares with (the run's "tiling_key", default 0).
#ifndef ASCENDJAX_TILING_KEY
#define ASCENDJAX_TILING_KEY 0
#endif

namespace ascendjax {
// The tiling lives in GM (host memory here): the kernel's scalar reads copy it into its own struct.
template <typename T>
inline void get_tiling(T* out, const void* tiling) {
    if (tiling != nullptr) memcpy((void*)out, tiling, sizeof(T));
}
}  // namespace ascendjax

#define GET_TILING_DATA(name, tiling)  \
    ASCENDJAX_TILING_TYPE name{};      \
    ascendjax::get_tiling(&name, (const void*)(tiling))
#define GET_TILING_DATA_WITH_STRUCT(type, name, tiling) \
    type name{};                                         \
    ascendjax::get_tiling(&name, (const void*)(tiling))
#define GET_TILING_DATA_PTR_WITH_STRUCT(type, name, tiling) const type* name = (const type*)(tiling)
#define GET_TILING_DATA_MEMBER(type, member, name, tiling)                                    \
    decltype(type::member) name{};                                                            \
    memcpy((void*)&name, (const uint8_t*)(tiling) + offsetof(type, member), sizeof(name))
// REGISTER_TILING_DEFAULT(T): the struct a plain GET_TILING_DATA fills in this scope.
#define REGISTER_TILING_DEFAULT(type) using AscendjaxTilingDefault = type
#define REGISTER_TILING_FOR_TILINGKEY(cond, type) static_assert(true, "")
#define TILING_KEY_IS(key) (ASCENDJAX_TILING_KEY == (key))

// Kernel types: the model runs every block as a vector core (AIV), so ASCEND_IS_AIV holds and the
// cube-side branch (ASCEND_IS_AIC) never runs; the declarations themselves change nothing.
enum AscendjaxKernelType {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
};
#define KERNEL_TASK_TYPE_DEFAULT(type) static_assert((int)(type) >= 0, "")
#define KERNEL_TASK_TYPE(key, type) static_assert((int)(type) >= 0, "")
#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (true)
#endif
#ifndef ASCEND_IS_AIC
#define ASCEND_IS_AIC (false)
#endif

namespace AscendC {
// The op framework's workspace: the harness passes the user's workspace bytes only (no system part).
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }
inline void SetSysWorkspace(GM_ADDR) {}
}  // namespace AscendC
using AscendC::GetUserWorkspace;
using AscendC::SetSysWorkspace;
