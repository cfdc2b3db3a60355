// ascend_jax's file helpers for a sample's host code (written for ascend_jax): ReadFile / WriteFile.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "ascendjax/rt.h"

inline bool ReadFile(const std::string& filePath, size_t fileSize, void* buffer, size_t bufferSize) {
    FILE* f = fopen(filePath.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "ascend-jax: ReadFile: cannot open %s\n", filePath.c_str());
        ascendjax::rt().setup();
        ascendjax::rt().send("READFAIL " + filePath);
        return false;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0 || (size_t)size > bufferSize || (size_t)size != fileSize) {
        fprintf(stderr, "ascend-jax: ReadFile: %s has %ld bytes, expected %zu\n", filePath.c_str(), size, fileSize);
        fclose(f);
        ascendjax::rt().setup();
        ascendjax::rt().send("READFAIL " + filePath);
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
        return false;
    }
    size_t put = fwrite(buffer, 1, size, f);
    fclose(f);
    return put == size;
}
