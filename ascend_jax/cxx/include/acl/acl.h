// ascend_jax's host stubs for the ACL runtime calls a sample's main uses (written for ascend_jax).
// Device memory is host memory the runtime knows by id: a kernel launch hands every live
// aclrtMalloc buffer to the model as one GM buffer, and copies the model's results back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "ascendjax/rt.h"

typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtContext;
typedef void* aclrtEvent;
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000

enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY };
enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
};

inline aclError aclInit(const char* = nullptr) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtGetDevice(int32_t* d) {
    *d = 0;
    return ACL_SUCCESS;
}
inline aclError aclrtCreateContext(aclrtContext* c, int32_t) {
    *c = (void*)1;
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtSetCurrentContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtCreateStream(aclrtStream* s) {
    *s = (void*)1;
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }

inline aclError aclrtMalloc(void** p, size_t n, aclrtMemMallocPolicy = ACL_MEM_MALLOC_HUGE_FIRST) {
    auto& r = ascendjax::rt();
    r.setup();
    uint8_t* q = (uint8_t*)calloc(n ? n : 1, 1);
    if (!q) return ACL_ERROR_INVALID_PARAM;
    r.gm.push_back({q, n, true});
    *p = q;
    return ACL_SUCCESS;
}
inline aclError aclrtFree(void* p) {
    for (auto& g : ascendjax::rt().gm) {
        if (g.live && g.p == p) {
            g.live = false;
            free(p);
            return ACL_SUCCESS;
        }
    }
    return ACL_ERROR_INVALID_PARAM;
}
inline aclError aclrtMallocHost(void** p, size_t n) {
    *p = calloc(n ? n : 1, 1);
    return *p ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}
inline aclError aclrtFreeHost(void* p) {
    free(p);
    return ACL_SUCCESS;
}
inline aclError aclrtMemcpy(void* dst, size_t dstMax, const void* src, size_t n, aclrtMemcpyKind) {
    if (n > dstMax) return ACL_ERROR_INVALID_PARAM;
    memmove(dst, src, n);
    return ACL_SUCCESS;
}
inline aclError aclrtMemset(void* dst, size_t dstMax, int32_t v, size_t n) {
    if (n > dstMax) return ACL_ERROR_INVALID_PARAM;
    memset(dst, v, n);
    return ACL_SUCCESS;
}
inline const char* aclGetRecentErrMsg() { return ""; }
