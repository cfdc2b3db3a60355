// ascend_jax's tiling-definition macros for an op project's op_host/*_tiling.h (written for
// ascend_jax from the Ascend C docs). BEGIN_TILING_DATA_DEF(Name) ... END_TILING_DATA_DEF defines a
// plain struct Name whose fields are the TILING_DATA_FIELD_DEF* fields in order (C++'s own layout:
// the kernel's GET_TILING_DATA copies the same struct, so host and kernel agree by construction),
// with the set_<field> / get_<field> accessors, GetDataSize and SaveToBuffer host code calls.
// REGISTER_TILING_DATA_CLASS(Op, Name) registers nothing: `ascend-jax run --tiling` finds the
// class in the header's text.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#define BEGIN_TILING_DATA_DEF(name) \
    struct name {                   \
        using AscendjaxSelf = name;
#define TILING_DATA_FIELD_DEF(type, field)              \
    type field{};                                       \
    void set_##field(type v) { field = v; }             \
    type get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_ARR(type, count, field)                              \
    type field[count]{};                                                           \
    void set_##field(const type* v) { memcpy((void*)field, (const void*)v, sizeof(field)); } \
    const type* get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) \
    type field{};                                 \
    type& get_##field() { return field; }
#define END_TILING_DATA_DEF                                                                \
    size_t GetDataSize() const { return sizeof(AscendjaxSelf); }                           \
    void SaveToBuffer(void* buf, size_t cap) const {                                       \
        memcpy(buf, (const void*)this, cap < sizeof(AscendjaxSelf) ? cap : sizeof(AscendjaxSelf)); \
    }                                                                                      \
    };
#define REGISTER_TILING_DATA_CLASS(op, name)
