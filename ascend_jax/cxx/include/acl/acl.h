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
#define ACL_ERROR_NONE 0
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

inline aclError aclrtMalloc(void** p, size_t n, aclrtMemMallocPolicy = ACL_MEM_MALLOC_HUGE_FIRST,
                            const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    auto& r = ascendjax::rt();
    r.setup();
    uint8_t* q = (uint8_t*)aligned_alloc((size_t)sysconf(_SC_PAGESIZE), ascendjax::gm_pages(n));
    if (!q) return ACL_ERROR_INVALID_PARAM;
    memset(q, 0, ascendjax::gm_pages(n));
    ascendjax::GmBuf g{q, n, true};
    g.file = file;
    g.line = line;
    r.gm.push_back(g);
    *p = q;
    return ACL_SUCCESS;
}
// A device pointer's buffer is "used" once host code writes or reads it (memcpy, memset).
inline void ascendjax_touch(const void* p) {
    size_t off;
    ascendjax::rt().find_gm(p, &off);
}
inline aclError aclrtFree(void* p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    auto& r = ascendjax::rt();
    for (size_t i = 0; i < r.gm.size(); ++i) {
        auto& g = r.gm[i];
        if (g.live && g.p == p) {
            r.unused_check(g, i);
            g.live = false;
            g.free_file = file;
            g.free_line = line;
            free(p);
            return ACL_SUCCESS;
        }
    }
    for (size_t i = r.gm.size(); i-- > 0;) {
        auto& g = r.gm[i];
        if (g.p == p) {
            r.host_finding("memcheck: error: illegal free(): aclrtFree at " + r.site(file, line) + " of GM buffer " +
                           std::to_string(i) + " (" + std::to_string(g.n) + " bytes, aclrtMalloc at " +
                           r.site(g.file, g.line) + "), already freed at " + r.site(g.free_file, g.free_line));
            return ACL_ERROR_INVALID_PARAM;
        }
    }
    if (p) {
        r.setup();
        r.host_finding("memcheck: error: illegal free(): aclrtFree at " + r.site(file, line) +
                       " of a pointer aclrtMalloc did not return");
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
    ascendjax_touch(dst);
    ascendjax_touch(src);
    ascendjax::rt().memcpy_note(dst, src, n);
    memmove(dst, src, n);
    return ACL_SUCCESS;
}
inline aclError aclrtMemset(void* dst, size_t dstMax, int32_t v, size_t n) {
    if (n > dstMax) return ACL_ERROR_INVALID_PARAM;
    ascendjax_touch(dst);
    memset(dst, v, n);
    return ACL_SUCCESS;
}
inline const char* aclGetRecentErrMsg() { return ""; }

// aclFloat16: IEEE half-precision bits, as host code prints or fills fp16 buffers (round to
// nearest even, subnormals, inf and NaN kept).
typedef uint16_t aclFloat16;
inline float aclFloat16ToFloat(aclFloat16 h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0x1f) {
        x = sign | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        x = sign | ((e + 112u) << 23) | (m << 13);
    } else if (m == 0) {
        x = sign;
    } else {  // subnormal: m * 2^-24, exact in float
        float f = (float)m * 5.9604644775390625e-8f;
        memcpy(&x, &f, 4);
        x |= sign;
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}
inline aclFloat16 aclFloatToFloat16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
    if (e == 0xff) return (aclFloat16)(sign | 0x7c00u | (m ? 0x200u | (m >> 13) : 0));
    int32_t ue = (int32_t)e - 112;
    if (ue >= 0x1f) return (aclFloat16)(sign | 0x7c00u);
    uint32_t r, rem, half;
    if (ue <= 0) {
        if (ue < -10) return (aclFloat16)sign;
        uint32_t shift = (uint32_t)(14 - ue);
        m |= 0x800000u;
        r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    } else {
        r = ((uint32_t)ue << 10) | (m >> 13), rem = m & 0x1fffu, half = 0x1000u;
    }
    if (rem > half || (rem == half && (r & 1))) ++r;  // a carry into the exponent is the right result
    return (aclFloat16)(sign | r);
}

// More than one device: P2P access and memory shared between NPUs are outside the model (one
// device, its cores and their GM); the run stops with NotModelledError naming the call.
inline aclError aclrtDeviceCanAccessPeer(int32_t*, int32_t dev, int32_t peer, const char* file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
    ascendjax::rt().not_modelled(ascendjax::rt().site(file, line) + ": aclrtDeviceCanAccessPeer(" +
                                 std::to_string(dev) + ", " + std::to_string(peer) +
                                 "): a second device (P2P access, GM shared between NPUs) is not modelled: "
                                 "ascend_jax models one device");
}
inline aclError aclrtDeviceEnablePeerAccess(int32_t, uint32_t, const char* file = __builtin_FILE(),
                                            int line = __builtin_LINE()) {
    ascendjax::rt().not_modelled(ascendjax::rt().site(file, line) +
                                 ": aclrtDeviceEnablePeerAccess: P2P access between NPUs is not modelled");
}
inline aclError aclrtDeviceDisablePeerAccess(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtMemP2PMap(void*, size_t, int32_t, uint64_t, const char* file = __builtin_FILE(),
                               int line = __builtin_LINE()) {
    ascendjax::rt().not_modelled(ascendjax::rt().site(file, line) +
                                 ": aclrtMemP2PMap: GM shared between NPUs is not modelled");
}
