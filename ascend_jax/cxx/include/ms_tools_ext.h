// ascend_jax's stubs for the MindStudio Tools Extension (MSTX) calls a sample's host code makes
// (written for ascend_jax from the msSanitizer docs, no vendor source). ascend_jax checks races and
// memory itself (findings of `ascend-jax run`), so the memory-region calls are no-ops; the tool id
// reads as msSanitizer's, so a sample's "is the sanitizer injected?" check passes.
#pragma once
#include <cstddef>
#include <cstdint>

#define MSTX_TOOL_INVALID_ID 0ULL
#define MSTX_TOOL_MSSANITIZER_ID 0x1001ULL
#define MSTX_MEM_PERMISSIONS_REGION_FLAGS_NONE 0u
#define MSTX_MEM_PERMISSIONS_REGION_FLAGS_READ 1u
#define MSTX_MEM_PERMISSIONS_REGION_FLAGS_WRITE 2u
#define MSTX_MEM_PERMISSIONS_REGION_FLAGS_SHARED 4u

typedef struct mstxDomainRegistration_st* mstxDomainHandle_t;
typedef struct mstxMemRegion_st* mstxMemRegionHandle_t;
typedef struct mstxMemHeap_st* mstxMemHeapHandle_t;

enum mstxMemType { MSTX_MEM_TYPE_VIRTUAL_ADDRESS = 0 };
enum mstxMemRegionRefType { MSTX_MEM_REGION_REF_TYPE_POINTER = 0, MSTX_MEM_REGION_REF_TYPE_HANDLE = 1 };

struct mstxMemVirtualRangeDesc_t {
    uint32_t deviceId = 0;
    void const* ptr = nullptr;
    uint64_t size = 0;
};
struct mstxMemRegionsRegisterBatch_t {
    mstxMemHeapHandle_t heap = nullptr;
    mstxMemType regionType = MSTX_MEM_TYPE_VIRTUAL_ADDRESS;
    size_t regionCount = 0;
    void const* regionDescArray = nullptr;
    mstxMemRegionHandle_t* regionHandleArrayOut = nullptr;
};
struct mstxMemRegionRef_t {
    mstxMemRegionRefType refType = MSTX_MEM_REGION_REF_TYPE_POINTER;
    union {
        void const* pointer;
        mstxMemRegionHandle_t handle;
    };
    mstxMemRegionRef_t() : pointer(nullptr) {}
};
struct mstxMemPermissionsAssignRegionsDesc_t {
    uint32_t flags = 0;
    mstxMemRegionRef_t region;
};
struct mstxMemPermissionsAssignBatch_t {
    size_t regionCount = 0;
    mstxMemPermissionsAssignRegionsDesc_t const* regionDescArray = nullptr;
};
struct mstxMemRegionsUnregisterBatch_t {
    size_t refCount = 0;
    mstxMemRegionRef_t const* refArray = nullptr;
};

inline mstxDomainHandle_t globalDomain = nullptr;

inline void mstxGetToolId(uint64_t* id) {
    if (id) *id = MSTX_TOOL_MSSANITIZER_ID;
}
inline mstxDomainHandle_t mstxDomainCreateA(const char*) { return nullptr; }
inline void mstxDomainDestroy(mstxDomainHandle_t) {}
inline void mstxMemRegionsRegister(mstxDomainHandle_t, mstxMemRegionsRegisterBatch_t const* b) {
    static char token;
    if (b && b->regionHandleArrayOut)
        for (size_t i = 0; i < b->regionCount; ++i) b->regionHandleArrayOut[i] = (mstxMemRegionHandle_t)&token;
}
inline void mstxMemRegionsUnregister(mstxDomainHandle_t, mstxMemRegionsUnregisterBatch_t const*) {}
inline void mstxMemPermissionsAssign(mstxDomainHandle_t, mstxMemPermissionsAssignBatch_t const*) {}
inline void mstxMarkA(const char*, void* = nullptr) {}
inline uint64_t mstxRangeStartA(const char*, void* = nullptr) { return 0; }
inline void mstxRangeEnd(uint64_t) {}
