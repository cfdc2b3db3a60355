"""Hardware profile files: they load, they match the doc tables, and the loader rejects bad files.

The dtype tables below are transcribed from the doc pages (spec tree
``ascendc-docs/memory-vector/基础算术/{Adds,Muls,Maxs,Mins}.md``, section 数据类型), written in the
docs' C++ spelling, independently of the TOML files they check.
"""

import dataclasses
import json
import pathlib
import pickle
import re
import tomllib

import pytest

from ascend_jax import profile as P
from ascend_jax.errors import ProfileError
from ascend_jax.profile import (
    DEFAULT_PROFILE,
    KNOWN_APIS,
    as_profile,
    available_profiles,
    load_profile,
    parse_profile,
)

ALL_PROFILES = (
    "ascend910b",
    "ascend910_93",
    "ascend910",
    "ascend310p",
    "ascend310p_vec",
    "ascend310b",
    "ascend950",
    "kirinx90",
    "kirin9030",
)

# C++ spelling used by the doc pages -> canonical profile dtype name.
CPP = {
    "int8_t": "int8",
    "uint8_t": "uint8",
    "int16_t": "int16",
    "uint16_t": "uint16",
    "int32_t": "int32",
    "uint32_t": "uint32",
    "int64_t": "int64",
    "uint64_t": "uint64",
    "half": "half",
    "bfloat16_t": "bfloat16",
    "float": "float32",
    "double": "float64",
    "complex32": "complex32",
    "complex64": "complex64",
}


def _types(listing):
    """'int16_t、half' -> {'int16', 'half'} (the docs separate types with 、)."""
    if not listing:
        return set()
    return {CPP[t.strip()] for t in listing.split("、")}


# (all types listed for T, the subset marked "仅支持tensor前n个数据计算接口"); None = 不支持.
# Products: 产品支持情况 + 数据类型 of each page.
FOUR = ("int16_t、half、int32_t、float", "")
# 基础算术/Adds.md
ADDS = {
    "ascend950": (
        "int8_t、uint8_t、int16_t、half、bfloat16_t、int32_t、float、complex32、int64_t、uint64_t、complex64",
        "int8_t、uint8_t、complex32、int64_t、uint64_t、complex64",
    ),
    "ascend910_93": FOUR,
    "ascend910b": FOUR,
    "ascend310b": FOUR,
    "ascend310p": FOUR,
    "ascend310p_vec": None,  # "Atlas 推理系列产品Vector Core：不支持"
    "ascend910": ("half、float", ""),
    "kirinx90": FOUR,
    "kirin9030": FOUR,
}
# 基础算术/Muls.md
MULS = dict(
    ADDS,
    ascend950=(
        "int16_t、half、bfloat16_t、int32_t、float、complex32、int64_t、uint64_t、complex64",
        "complex32、int64_t、uint64_t、complex64",
    ),
)
# 基础算术/Maxs.md (Mins.md has the same table)
MAXS = dict(
    ADDS,
    ascend950=(
        "int8_t、uint8_t、int16_t、half、bfloat16_t、int32_t、float、int64_t、uint64_t",
        "int8_t、uint8_t、int64_t、uint64_t",
    ),
    ascend910=None,  # "Atlas 训练系列产品：不支持"
)
MINS = dict(MAXS)
SCALAR_TABLES = {"Adds": ADDS, "Muls": MULS, "Maxs": MAXS, "Mins": MINS}


# ---------------------------------------------------------------------------------------------
# loading


def test_all_nine_profiles_load():
    assert set(ALL_PROFILES) <= set(available_profiles())
    for name in ALL_PROFILES:
        p = load_profile(name)
        assert p.name == name
        assert pathlib.Path(p.path).stem == name
        assert tuple(a.name for a in p.apis) == KNOWN_APIS


def test_default_profile_is_a2():
    assert DEFAULT_PROFILE == "ascend910b"
    assert load_profile().name == "ascend910b"
    assert as_profile(None).name == "ascend910b"
    assert as_profile("ascend950") is load_profile("ascend950")


def test_unknown_profile_name_lists_the_available_ones():
    with pytest.raises(ProfileError, match="no_such_chip") as e:
        load_profile("no_such_chip")
    assert "ascend910b" in str(e.value)


# product spelling, doc tag, __NPU_ARCH__, core: 产品支持情况 lists + notes/hw_profiles.md §1
IDENTITY = {
    "ascend910b": ("Atlas A2 训练系列产品/Atlas A2 推理系列产品", "910b", 2201, "ai_core"),
    "ascend910_93": ("Atlas A3 训练系列产品/Atlas A3 推理系列产品", "A3", 2201, "ai_core"),
    "ascend910": ("Atlas 训练系列产品", "910", 1001, "ai_core"),
    "ascend310p": ("Atlas 推理系列产品AI Core", "310p", 2002, "ai_core"),
    "ascend310p_vec": ("Atlas 推理系列产品Vector Core", "310p", 2002, "vector_core"),
    "ascend310b": ("Atlas 200I/500 A2 推理产品", "310b", 3002, "ai_core"),
    "ascend950": ("Ascend 950PR/Ascend 950DT", "950", 3510, "ai_core"),
    "kirinx90": ("Kirin X90", "x90", 3003, "ai_core"),
    "kirin9030": ("Kirin 9030", "9030", 3113, "ai_core"),
}


@pytest.mark.parametrize("name", ALL_PROFILES)
def test_identity(name):
    p = load_profile(name)
    assert (p.product, p.doc_tag, p.npu_arch, p.core) == IDENTITY[name]


# ---------------------------------------------------------------------------------------------
# Adds / Muls / Maxs / Mins dtypes against the transcribed doc tables


@pytest.mark.parametrize("api", sorted(SCALAR_TABLES))
@pytest.mark.parametrize("name", ALL_PROFILES)
def test_scalar_api_dtypes_match_doc_tables(api, name):
    a = load_profile(name).api(api)
    row = SCALAR_TABLES[api][name]
    if row is None:
        assert not a.supported
        assert a.dtypes == () and a.count_only_dtypes == ()
        return
    listed, count_only = (_types(s) for s in row)
    assert a.supported
    assert len(set(a.dtypes)) == len(a.dtypes)
    assert len(set(a.count_only_dtypes)) == len(a.count_only_dtypes)
    assert set(a.count_only_dtypes) == count_only
    assert set(a.dtypes) == listed - count_only
    assert set(a.all_dtypes()) == listed


# ---------------------------------------------------------------------------------------------
# supported / unsupported spot checks (产品支持情况 of the cited page)

SPOT_CHECKS = [
    # 掩码操作/SetMaskCount.md, SetMaskNorm.md, ResetMask.md: 910 不支持; SetVectorMask.md: 910 支持
    ("ascend910", "SetMaskCount", False),
    ("ascend910", "SetMaskNorm", False),
    ("ascend910", "ResetMask", False),
    ("ascend910", "SetVectorMask", True),
    ("ascend950", "SetMaskCount", True),
    ("kirinx90", "SetMaskNorm", True),
    # 比较与选择/Compares.md: 910 不支持; Compare.md: 910 支持
    ("ascend910", "Compares", False),
    ("ascend910", "CompareScalar", False),
    ("ascend910", "Compare", True),
    ("kirin9030", "Compares", True),
    # 比较与选择/Compare（结果存入寄存器）.md: 310B and 910 不支持, 310P AI Core 支持
    ("ascend310b", "CompareCmpMask", False),
    ("ascend910", "CompareCmpMask", False),
    ("ascend310p", "CompareCmpMask", True),
    ("ascend950", "CompareCmpMask", True),
    # SetCmpMask(ISASI).md / GetCmpMask(ISASI).md
    ("ascend310b", "SetCmpMask", False),
    ("ascend310p", "GetCmpMask", True),
    # 比较与选择/Select（灵活标量位置）.md: 950 only
    ("ascend950", "SelectFlexible", True),
    ("ascend910b", "SelectFlexible", False),
    ("ascend910_93", "SelectFlexible", False),
    # 比较与选择/GatherMask.md: 910 不支持, 310P AI Core 支持
    ("ascend910", "GatherMask", False),
    ("ascend310p", "GatherMask", True),
    ("ascend310b", "GatherMask", True),
    # 逻辑计算/ShiftLeft.md, ShiftRight.md: 310P and 910 不支持
    ("ascend310p", "ShiftLeft", False),
    ("ascend910", "ShiftRight", False),
    ("ascend310b", "ShiftRight", True),
    # ShiftLeft（左移位数为Tensor）.md / ShiftRight（右移位数为Tensor）.md: 950 only
    ("ascend950", "ShiftLeftTensor", True),
    ("ascend950", "ShiftRightTensor", True),
    ("ascend910b", "ShiftLeftTensor", False),
    # special-registers/*.md
    ("ascend910b", "SetCtrlSpr", True),
    ("ascend910b", "ResetCtrlSpr", False),
    ("ascend910_93", "ResetCtrlSpr", False),
    ("ascend950", "ResetCtrlSpr", True),
    ("ascend310b", "GetCtrlSpr", False),
    ("ascend310p", "SetCtrlSpr", False),
    ("ascend910b", "SetSaturationFlag", True),
    ("ascend910_93", "GetSaturationFlag", True),
    ("ascend950", "SetSaturationFlag", False),
    ("kirinx90", "GetSaturationFlag", False),
    ("ascend310b", "SetSaturationFlag", False),
    # 基础算术/Maxs.md: 910 不支持
    ("ascend910", "Maxs", False),
    ("ascend910", "Mins", False),
]


@pytest.mark.parametrize(("name", "api", "supported"), SPOT_CHECKS)
def test_support_spot_checks(name, api, supported):
    assert load_profile(name).api(api).supported is supported


def test_vector_core_supports_nothing():
    # Every page of this model's vector APIs lists "Atlas 推理系列产品Vector Core" as 不支持; the
    # GM <-> UB DataCopy pages list it as 支持 (UB -> UB and DataCopyPad: 不支持).
    p = load_profile("ascend310p_vec")
    assert [a.name for a in p.apis if a.supported] == ["DataCopy"]
    assert p.api("DataCopy").ub_to_ub is False


# (profile, DataCopy UB->UB, DataCopyPad) from the pages' 产品支持情况 lists
_DATA_COPY_TABLE = {
    "ascend950": (True, True),
    "ascend910_93": (True, True),
    "ascend910b": (True, True),
    "ascend310b": (False, True),
    "ascend310p": (True, False),
    "ascend310p_vec": (False, False),
    "ascend910": (True, False),
    "kirinx90": (False, False),
    "kirin9030": (False, False),
}


@pytest.mark.parametrize("name", sorted(_DATA_COPY_TABLE))
def test_data_copy_support_table(name):
    p = load_profile(name)
    ub2ub, pad = _DATA_COPY_TABLE[name]
    dc = p.api("DataCopy")
    assert dc.supported and dc.ub_to_ub is ub2ub
    assert p.api("DataCopyPad").supported is pad
    # bfloat16_t is listed exactly on the A2/A3/310B/950 pages
    assert ("bfloat16" in dc.dtypes) is (name in ("ascend950", "ascend910_93", "ascend910b", "ascend310b"))
    assert p.que_alloc_limit == (4 if name == "ascend910" else 8) and p.max_buffers == 64


def test_mode_and_pattern_facts():
    # Select.md 功能说明: 910 "仅支持模式0", others 0/1/2
    assert load_profile("ascend910").api("Select").modes == (0,)
    assert load_profile("ascend310b").api("Select").modes == (0, 1, 2)
    # GatherMask.md: 310P AI Core patterns 1-6 and 配置方式二; A2/950 patterns 1-7 and 配置方式一
    g = load_profile("ascend310p").api("GatherMask")
    assert g.patterns == (1, 2, 3, 4, 5, 6) and g.counter_config == 2
    for name in ("ascend910b", "ascend910_93", "ascend310b", "ascend950"):
        g = load_profile(name).api("GatherMask")
        assert g.patterns == (1, 2, 3, 4, 5, 6, 7) and g.counter_config == 1
    # ShiftRight.md roundEn: only false on 310B and 950; 950 shift amounts beyond the width saturate
    assert load_profile("ascend310b").api("ShiftRight").round_en is False
    assert load_profile("ascend950").api("ShiftRight").round_en is False
    assert load_profile("ascend910b").api("ShiftRight").round_en is True
    assert load_profile("ascend950").api("ShiftLeft").shift_range == "saturating"
    assert load_profile("ascend310b").api("ShiftLeft").shift_range == "bitwidth_inclusive"
    # Compare.md mask row: 设置有效 on 950 and 310B only
    for name in ALL_PROFILES:
        c = load_profile(name).api("Compare")
        if c.supported:
            assert c.mask_honoured is (name in ("ascend950", "ascend310b")), name


def test_register_facts():
    # SetCtrlSpr(ISASI).md 表3: 950 CTRL[60] defaults to 1, CTRL[53] = 1 saturates integers
    p = load_profile("ascend950")
    assert p.vector_mask_bits == 256
    assert p.ctrl_reset_value == 1 << 60
    assert (p.int_saturation_ctrl_bit, p.int_saturation_when_bit_is) == (53, 1)
    assert p.float_saturation_dtypes == ("half",)
    assert p.api("SetCtrlSpr").bits == (6, 7, 8, 9, 10, 45, 48, 50, 53, 59, 60)
    for name in ("ascend910b", "ascend910_93"):  # 表4 / 表5: only CTRL[48]
        q = load_profile(name)
        assert q.api("SetCtrlSpr").bits == (48,)
        assert q.float_saturation_dtypes == ("half", "bfloat16")
    for name in ALL_PROFILES:
        q = load_profile(name)
        assert q.vector_mask_bits == (256 if name == "ascend950" else 128)
        assert q.int_saturation_ctrl_bit == (53 if name == "ascend950" else -1)
        assert q.float_subnormals == ("flush_to_zero" if name == "ascend950" else "preserve")
        assert q.max_repeat_times == 255 and q.block_bytes == 32 and q.repeat_bytes == 256


# ---------------------------------------------------------------------------------------------
# loader rejections, on temporary files derived from a real profile


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(v)


def _dump_toml(data, prefix=""):
    """Serialise the parsed profile back to TOML (scalars, lists, tables, arrays of tables)."""
    lines, tables = [], []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            tables.append((k, v))
        else:
            lines.append(f"{k} = {_toml_value(v)}")
    for k, v in tables:
        key = f"{prefix}{k}"
        if isinstance(v, list):
            for item in v:
                lines.append(f"\n[[{key}]]")
                lines.append(_dump_toml(item, key + "."))
        else:
            scalars = {a: b for a, b in v.items() if not isinstance(b, dict)}
            if scalars or not v:
                lines.append(f"\n[{key}]")
            lines.append(_dump_toml(v, key + "."))
    return "\n".join(x for x in lines if x)


def _base_data():
    return tomllib.loads(pathlib.Path(load_profile("ascend910b").path).read_text(encoding="utf-8"))


def _write(tmp_path, data, stem="ascend910b"):
    path = tmp_path / f"{stem}.toml"
    path.write_text(_dump_toml(data) + "\n", encoding="utf-8")
    return path


def test_round_trip_of_the_serialiser(tmp_path):
    p = parse_profile(_write(tmp_path, _base_data()))
    assert p == load_profile("ascend910b")


def _rejected(path):
    with pytest.raises(ProfileError) as e:
        parse_profile(path)
    return str(e.value)


def test_rejects_unknown_top_level_key(tmp_path):
    data = _base_data()
    data["turbo_mode"] = 42
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg
    assert "turbo_mode" in msg and "42" in msg


def test_rejects_unknown_key_in_an_api_table(tmp_path):
    data = _base_data()
    data["apis"]["Muls"]["rounding"] = "stochastic"
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg
    assert "apis.Muls" in msg
    assert "rounding" in msg and "stochastic" in msg


def test_rejects_a_missing_api(tmp_path):
    data = _base_data()
    del data["apis"]["Mins"]
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg
    assert "Mins" in msg and "missing" in msg


def test_rejects_an_unknown_api(tmp_path):
    data = _base_data()
    data["apis"]["Adds2"] = {"supported": True, "dtypes": ["half"]}
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg and "Adds2" in msg


def test_rejects_a_bad_mask_width(tmp_path):
    data = _base_data()
    data["registers"]["vector_mask_bits"] = 100
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg
    assert "vector_mask_bits" in msg
    assert re.search(r"\b100\b", msg)


def test_rejects_a_bad_dtype(tmp_path):
    data = _base_data()
    data["apis"]["Muls"]["dtypes"] = ["half", "float128"]
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg
    assert "apis.Muls.dtypes" in msg
    assert "float128" in msg


def test_rejects_a_bad_enum_value(tmp_path):
    data = _base_data()
    data["behavior"]["zero_count"] = "maybe"
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg and "zero_count" in msg and "maybe" in msg


def test_rejects_dtypes_on_an_unsupported_api(tmp_path):
    data = _base_data()
    data["apis"]["SelectFlexible"]["dtypes"] = ["half"]
    msg = _rejected(_write(tmp_path, data))
    assert "ascend910b.toml" in msg and "SelectFlexible" in msg


def test_rejects_name_different_from_file_stem(tmp_path):
    data = _base_data()
    msg = _rejected(_write(tmp_path, data, stem="my_chip"))
    assert "my_chip.toml" in msg
    assert "name" in msg
    assert "ascend910b" in msg and "my_chip" in msg


def test_rejects_invalid_toml(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "broken"\n[memory\n', encoding="utf-8")
    msg = _rejected(path)
    assert "broken.toml" in msg


# ---------------------------------------------------------------------------------------------
# schema defaults: resolved once, when the profile loads; code reads named fields


def _optional_keys():
    """(table, key, default) for every optional key of the schema."""
    out = []
    for table, schema in (
        ("top", P._TOP),
        ("memory", P._MEMORY),
        ("memory.reserved", P._RESERVED),
        ("registers", P._REGISTERS),
        ("numerics", P._NUMERICS),
        ("behavior", P._BEHAVIOR),
        ("cores", P._CORES),
    ):
        out += [(table, k, s[2]) for k, s in schema.items() if not s[1]]
    for name in KNOWN_APIS:
        out += [(f"apis.{name}", k, s[2]) for k, s in P.api_schema(name).items() if not s[1]]
    return out


def test_every_optional_key_has_a_valid_default():
    for table, key, default in _optional_keys():
        assert default is None or not isinstance(default, list), (table, key)  # hashable
        hash(default)
    for table, schema in (("memory", P._MEMORY), ("registers", P._REGISTERS)):
        for k, s in schema.items():
            assert len(s) == (2 if s[1] else 3), (table, k)


def _doc_default(v):
    """A default as the README's tables spell it."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "`true`" if v else "`false`"
    if isinstance(v, str):
        return f'`"{v}"`'
    if isinstance(v, tuple):
        return "`[" + ", ".join(f'"{x}"' if isinstance(x, str) else str(x) for x in v) + "]`"
    return "`2^32-1`" if v == 2**32 - 1 else f"`{v}`"


def test_every_optional_key_is_documented_with_its_default():
    readme = (pathlib.Path(__file__).resolve().parent.parent / "hw_profiles" / "README.md").read_text(
        encoding="utf-8"
    )
    rows = [line for line in readme.splitlines() if line.startswith("|")]
    for table, key, default in _optional_keys():
        mine = [r for r in rows if f"| `{key}` |" in r]
        assert mine, f"{table}.{key} is not documented in hw_profiles/README.md"
        assert any(_doc_default(default) in r for r in mine), (
            f"{table}.{key}: default {default!r} not documented"
        )


def test_absent_optional_keys_resolve_to_the_schema_default(tmp_path):
    data = _base_data()
    for k in ("que_alloc_limit", "max_buffers"):
        data["memory"].pop(k, None)
    data["registers"].pop("cast_saturation_ctrl_bit", None)
    for api in ("Compares", "Select", "GatherMask", "ShiftRight", "DataCopy", "DataCopyPad"):
        t = data["apis"][api]
        for k in list(t):
            if k not in ("supported", "dtypes"):
                del t[k]
    p = parse_profile(_write(tmp_path, data))
    assert (p.que_alloc_limit, p.max_buffers, p.cast_saturation_ctrl_bit) == (8, 64, -1)
    c = p.api("Compares")
    assert c.modes == ("LT", "GT", "GE", "EQ", "NE", "LE") and c["modes"] == c.modes
    assert c.dst_dtypes == ("int8", "uint8") and c.mask_honoured is True and c.count_tail == "computed"
    assert c.count_alignment_bytes == 0 and c.int32_modes is None and c.float64_modes is None
    assert c.int32_other_modes == "error" and c.dst_strides == "ignored"
    assert c.count_only_dtypes == () and c.source == ""
    s = p.api("Select")
    assert s.modes == (0, 1, 2) and s.scratch_forms == ("mode1", "mode2") and s.cmpmask_side_effect is False
    assert s.sel_mask_dtypes == ("uint8", "uint16", "uint32", "uint64")
    g = p.api("GatherMask")
    assert g.patterns == (1, 2, 3, 4, 5, 6, 7) and g.pattern_dtypes == ("uint16", "uint32")
    assert (g.counter_config, g.mode_after, g.vmask_after) == (1, "normal", "unchanged")
    r = p.api("ShiftRight")
    assert r.round_en is True and r.shift_range == "bitwidth_inclusive"
    assert p.api("ShiftLeft").signed_left_shift == "keep_sign"
    d = p.api("DataCopy")
    assert (d.ub_to_ub, d.zero_block, d.count_unaligned) == (True, "nop", "error")
    d = p.api("DataCopyPad")
    assert (d.zero_block, d.compact_mode, d.negative_src_stride, d.ub_stride_max) == (
        "nop",
        False,
        False,
        2**32 - 1,
    )
    # resolved at load: the frozen extra tuple holds every key of the API's schema
    assert dict(c.extra).keys() == {k for k in P.api_schema("Compares") if k not in P._API_COMMON}
    hash(p)


def test_an_api_field_not_in_its_schema_is_an_error():
    a = load_profile("ascend910b").api("Adds")
    with pytest.raises(AttributeError, match="apis.Adds has no profile key 'round_en'"):
        a.round_en  # noqa: B018
    with pytest.raises(AttributeError, match="resolved when the profile loads"):
        a.get("round_en", True)
    assert not hasattr(a, "modes")
    with pytest.raises(KeyError, match="apis.Adds has no profile key 'modes'"):
        a["modes"]  # noqa: B018


def test_a_hand_edited_api_falls_back_to_the_schema_default():
    p = load_profile("ascend910b")
    a = p.api("Compares")
    b = dataclasses.replace(a, extra=tuple(kv for kv in a.extra if kv[0] != "count_alignment_bytes"))
    assert a.count_alignment_bytes == 256 and b.count_alignment_bytes == 0
    assert pickle.loads(pickle.dumps(p)) == p and pickle.loads(pickle.dumps(a)).count_tail == a.count_tail


def test_behaviour_twins():
    """A3 behaves as A2 ("the same vector core") and Kirin X90 as Kirin 9030: their profiles differ
    in identity fields and page citations only, so the per-profile campaigns run them nightly
    (tests/conftest.py ``twins_nightly``). A field that starts to differ ends the twinship (and the
    twin's campaigns return to the default run)."""
    assert P.behaviour_twins() == {"ascend910_93": "ascend910b", "kirinx90": "kirin9030"}
    a = load_profile("ascend910b")
    assert a.behaviour_key() != load_profile("ascend910").behaviour_key()
    changed = dataclasses.replace(load_profile("ascend910_93"), zero_mask="error")
    assert changed.behaviour_key() != a.behaviour_key()


@pytest.mark.parametrize("twin", ["ascend910_93", "kirinx90"])
def test_behaviour_twins_give_the_same_bits(twin):
    """The same random compare/select cases on a twin and on the profile it behaves as: the fast
    path and the reference give identical results (nothing in the model reads an identity field)."""
    from ascend_jax.fuzz.families import compare, run_all
    from ascend_jax.fuzz.families import compare_select as C

    same = P.behaviour_twins()[twin]
    cases = C.random_cases(
        load_profile(same), 20, seed=5, all_forms=False, apis=("Compare",), dtypes_per_api=1
    )
    assert cases
    (fast_a, ref_a), (fast_b, ref_b) = (run_all(cases, load_profile(n)) for n in (same, twin))
    for fa, ra, fb, rb in zip(fast_a, ref_a, fast_b, ref_b, strict=True):
        assert compare(fa, fb) is None and compare(ra, rb) is None and compare(fa, ra) is None
