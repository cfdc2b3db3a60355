// ascend_jax: `#include "kernel_tiling/kernel_tiling.h"` (as op kernels write it) gives the
// op-framework macros (GET_TILING_DATA, TILING_KEY_IS, ...): ascendjax/op_kernel.h.
#pragma once
#include "ascendjax/op_kernel.h"
