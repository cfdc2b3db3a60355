// ascend_jax's file helpers for a sample's host code (written for ascend_jax): ReadFile / WriteFile.
#pragma once
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "ascendjax/rt.h"

// the logging and error-check macros of the samples' host code
#ifndef INFO_LOG
#define INFO_LOG(fmt, ...) fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#endif
#ifndef WARN_LOG
#define WARN_LOG(fmt, ...) fprintf(stdout, "[WARN]  " fmt "\n", ##__VA_ARGS__)
#endif
#ifndef ERROR_LOG
#define ERROR_LOG(fmt, ...) fprintf(stderr, "[ERROR]  " fmt "\n", ##__VA_ARGS__)
#endif
#ifndef CHECK_ACL
#define CHECK_ACL(x)                                                                    \
    do {                                                                                \
        aclError ascendjax_ret_ = (x);                                                  \
        if (ascendjax_ret_ != ACL_ERROR_NONE) {                                         \
            fprintf(stderr, "%s:%d aclError:%d\n", __FILE__, __LINE__, (int)ascendjax_ret_); \
        }                                                                               \
    } while (0)
#endif

inline bool ReadFile(const std::string& filePath, size_t fileSize, void* buffer, size_t bufferSize) {
    FILE* f = fopen(filePath.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "ascend-jax: ReadFile: cannot open %s\n", filePath.c_str());
        ascendjax::rt().host_note("READFAIL", errno == ENOENT ? filePath : filePath + " (" + strerror(errno) + ")");
        return false;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0 || (size_t)size > bufferSize || (size_t)size != fileSize) {
        fprintf(stderr, "ascend-jax: ReadFile: %s has %ld bytes, expected %zu\n", filePath.c_str(), size, fileSize);
        fclose(f);
        ascendjax::rt().host_note("READFAIL", filePath + " (it has " + std::to_string(size) +
                                                  " bytes; ReadFile expects fileSize " + std::to_string(fileSize) +
                                                  " into a buffer of " + std::to_string(bufferSize) + ")");
        return false;
    }
    size_t got = fread(buffer, 1, (size_t)size, f);
    fclose(f);
    ascendjax::rt().files.push_back({(const uint8_t*)buffer, got, filePath, -1});  // --cases DIR
    return got == (size_t)size;
}

inline bool WriteFile(const std::string& filePath, const void* buffer, size_t size) {
    ascendjax::rt().write_note(filePath, buffer, size);  // --cases: outputs under this name
    FILE* f = fopen(filePath.c_str(), "wb");
    if (!f) {
        fprintf(stderr, "ascend-jax: WriteFile: cannot open %s\n", filePath.c_str());
        ascendjax::rt().host_note("WRITEFAIL", filePath + " (" + strerror(errno) + ")");
        return false;
    }
    size_t put = fwrite(buffer, 1, size, f);
    bool ok = put == size && fclose(f) == 0;
    if (!ok)
        ascendjax::rt().host_note("WRITEFAIL", filePath + " (wrote " + std::to_string(put) + " of " +
                                                   std::to_string(size) + " bytes)");
    return ok;
}
