"""Real project shapes on the C++ front end (issue 45 items 2, 3, 8): a kernel-launch project run as
written (its own ``data_utils.h`` and ``CHECK_ACL``, ``<<<>>>`` in an included file, the kernel in a
second source), and op-framework kernels (``op_kernel/*.cpp``) run with ``--tiling``.

Each project tree is written by the test into tmp_path. The tests that build C++ need g++ (or
clang++); without one they fail with the front end's own message naming what to install.
"""

import json
import re
import textwrap

import numpy as np
import pytest

from ascend_jax import cli
from ascend_jax.cxx import build as B


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    return tmp_path


def _write(root, files):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())


def _f16_bits(a):
    return np.asarray(a, np.float16).view(np.uint16)


# -- a kernel-launch project ----------------------------------------------------------------------
# data_utils.h in the shape such projects ship: ReadFile takes fileSize by reference, CHECK_ACL
# compares with ACL_ERROR_NONE, a print helper uses aclFloat16 and aclFloat16ToFloat.
LAUNCH_PROJECT = {
    "data_utils.h": """
        #pragma once
        #include <cstdio>
        #include <fstream>
        #include <iostream>
        #include <string>
        #include "acl/acl.h"

        #define PROJECT_OWN_DATA_UTILS 1
        #define CHECK_ACL(x)                                                                  \\
            do {                                                                              \\
                aclError __ret = x;                                                           \\
                if (__ret != ACL_ERROR_NONE) {                                                \\
                    std::cerr << __FILE__ << ":" << __LINE__ << " aclError:" << __ret << std::endl; \\
                }                                                                             \\
            } while (0);

        inline bool ReadFile(const std::string &filePath, size_t &fileSize, void *buffer, size_t bufferSize)
        {
            std::ifstream file(filePath, std::ios::binary);
            if (!file) {
                std::cerr << "cannot open " << filePath << std::endl;
                return false;
            }
            file.read(static_cast<char *>(buffer), bufferSize);
            fileSize = file.gcount();
            return true;
        }
        inline bool WriteFile(const std::string &filePath, const void *buffer, size_t size)
        {
            std::ofstream file(filePath, std::ios::binary);
            file.write(static_cast<const char *>(buffer), size);
            return true;
        }
        inline void PrintHalf(const void *data, size_t count)
        {
            const aclFloat16 *p = static_cast<const aclFloat16 *>(data);
            for (size_t i = 0; i < count; ++i) printf("%.9g ", aclFloat16ToFloat(p[i]));
            printf("| %u\\n", (unsigned)aclFloatToFloat16(0.1f));
        }
    """,
    # the kernel in its own source (the project's CMake compiles it with main.cpp)
    "add_custom.cpp": """
        #include "kernel_operator.h"
        constexpr int32_t BLOCK = 128;

        extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)
        {
            AscendC::GlobalTensor<half> xGm, yGm, zGm;
            xGm.SetGlobalBuffer((__gm__ half *)x + AscendC::GetBlockIdx() * BLOCK, BLOCK);
            yGm.SetGlobalBuffer((__gm__ half *)y + AscendC::GetBlockIdx() * BLOCK, BLOCK);
            zGm.SetGlobalBuffer((__gm__ half *)z + AscendC::GetBlockIdx() * BLOCK, BLOCK);
            AscendC::TPipe pipe;
            AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 3 * BLOCK * sizeof(half));
            AscendC::LocalTensor<half> xl = buf.Get<half>();
            AscendC::LocalTensor<half> yl = xl[BLOCK];
            AscendC::LocalTensor<half> zl = xl[2 * BLOCK];
            AscendC::DataCopy(xl, xGm, BLOCK);
            AscendC::DataCopy(yl, yGm, BLOCK);
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::Add(zl, xl, yl, BLOCK);
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::DataCopy(zGm, zl, BLOCK);
        }
    """,
    # the launch in an included header
    "inc/launch.h": """
        #pragma once
        #include "kernel_operator.h"
        extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z);
        inline void add_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint8_t *z)
        {
            add_custom<<<blockDim, nullptr, stream>>>(x, y, z);
        }
    """,
    "main.cpp": """
        #include "data_utils.h"
        #ifndef ASCENDC_CPU_DEBUG
        #include "acl/acl.h"
        #include "inc/launch.h"
        #include "aclrtlaunch_add_custom.h"
        #endif
        #ifndef PROJECT_OWN_DATA_UTILS
        #error "not the project's own data_utils.h"
        #endif

        int32_t main(int32_t argc, char *argv[])
        {
            uint32_t blockDim = 2;
            size_t inputByteSize = 2 * 128 * sizeof(uint16_t);
            size_t outputByteSize = inputByteSize;
            CHECK_ACL(aclInit(nullptr));
            aclrtStream stream = nullptr;
            CHECK_ACL(aclrtSetDevice(0));
            CHECK_ACL(aclrtCreateStream(&stream));
            uint8_t *xHost, *yHost, *zHost, *xDevice, *yDevice, *zDevice;
            CHECK_ACL(aclrtMallocHost((void **)(&xHost), inputByteSize));
            CHECK_ACL(aclrtMallocHost((void **)(&yHost), inputByteSize));
            CHECK_ACL(aclrtMallocHost((void **)(&zHost), outputByteSize));
            CHECK_ACL(aclrtMalloc((void **)&xDevice, inputByteSize, ACL_MEM_MALLOC_HUGE_FIRST));
            CHECK_ACL(aclrtMalloc((void **)&yDevice, inputByteSize, ACL_MEM_MALLOC_HUGE_FIRST));
            CHECK_ACL(aclrtMalloc((void **)&zDevice, outputByteSize, ACL_MEM_MALLOC_HUGE_FIRST));
            ReadFile("./input/input_x.bin", inputByteSize, xHost, inputByteSize);
            ReadFile("./input/input_y.bin", inputByteSize, yHost, inputByteSize);
            CHECK_ACL(aclrtMemcpy(xDevice, inputByteSize, xHost, inputByteSize, ACL_MEMCPY_HOST_TO_DEVICE));
            CHECK_ACL(aclrtMemcpy(yDevice, inputByteSize, yHost, inputByteSize, ACL_MEMCPY_HOST_TO_DEVICE));
            if (argc > 1) {
                add_custom(xDevice, yDevice, zDevice);  // called as a function, not launched
            }
            add_custom_do(blockDim, stream, xDevice, yDevice, zDevice);
            CHECK_ACL(aclrtSynchronizeStream(stream));
            CHECK_ACL(aclrtMemcpy(zHost, outputByteSize, zDevice, outputByteSize, ACL_MEMCPY_DEVICE_TO_HOST));
            PrintHalf(zHost, 3);
            WriteFile("./output/output_z.bin", zHost, outputByteSize);
            CHECK_ACL(aclrtMemset(zDevice, outputByteSize, 0, outputByteSize));
            ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, xDevice, yDevice, zDevice);
            CHECK_ACL(aclrtSynchronizeStream(stream));
            CHECK_ACL(aclrtMemcpy(zHost, outputByteSize, zDevice, outputByteSize, ACL_MEMCPY_DEVICE_TO_HOST));
            WriteFile("./output/output_w.bin", zHost, outputByteSize);
            CHECK_ACL(aclrtFree(xDevice));
            CHECK_ACL(aclrtFree(yDevice));
            CHECK_ACL(aclrtFree(zDevice));
            CHECK_ACL(aclrtFreeHost(xHost));
            CHECK_ACL(aclrtFreeHost(yHost));
            CHECK_ACL(aclrtFreeHost(zHost));
            CHECK_ACL(aclrtDestroyStream(stream));
            CHECK_ACL(aclrtResetDevice(0));
            CHECK_ACL(aclFinalize());
            return 0;
        }
    """,
}


def test_kernel_launch_project_runs_as_written(cache, monkeypatch, capsys):
    """``<<<>>>`` in inc/launch.h and ``ACLRT_LAUNCH_KERNEL`` (the header ascendc_library
    generates), the kernel in add_custom.cpp, the project's own data_utils.h (ReadFile by reference,
    CHECK_ACL, aclFloat16): main.cpp runs unmodified; the output is the fp16
    sum, bit for bit (the kernel file alone builds the same project: test_project_sources_and_includes)."""
    proj = cache / "proj"
    _write(proj, LAUNCH_PROJECT)
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, 256).astype(np.float16)
    y = rng.uniform(-4, 4, 256).astype(np.float16)
    (proj / "input").mkdir()
    x.tofile(proj / "input" / "input_x.bin")
    y.tofile(proj / "input" / "input_y.bin")
    monkeypatch.chdir(proj)
    assert cli.main(["run", "main.cpp"]) == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert "launch add_custom (line 6), 2 blocks" in err  # the line in inc/launch.h
    want = x + y  # one rounding of the exact sum: IEEE fp16 addition
    # output_z: the <<<>>> in inc/launch.h; output_w: ACLRT_LAUNCH_KERNEL (aclrtlaunch_add_custom.h)
    for name in ("output_z.bin", "output_w.bin"):
        z = np.fromfile(proj / "output" / name, np.float16)
        assert np.array_equal(_f16_bits(z), _f16_bits(want)), name
    # aclFloat16ToFloat prints the output's first values; aclFloatToFloat16(0.1f) is 0x2e66
    printed = out.split("|")[0].split()
    assert [np.float32(v) for v in printed] == [np.float32(v) for v in want[:3]]
    assert out.split("|")[1].strip() == str(0x2E66)
    # item 8: the runtime's own stop is the message (not "exited without launching a kernel")
    assert cli.main(["run", "main.cpp", "--arg", "direct"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"add_custom\.cpp:\d+: AscendC::\w+ .*\(in host code\)", err), err
    assert "without launching" not in err


def test_project_sources_and_includes(tmp_path):
    """Which files a project builds, and the includes resolved in the user's tree first (no compiler)."""
    _write(tmp_path, LAUNCH_PROJECT)
    units = B.project_sources(tmp_path / "main.cpp")
    assert [u.name for u in units] == ["main.cpp", "add_custom.cpp"]
    assert [u.name for u in B.project_sources(tmp_path / "add_custom.cpp")] == ["main.cpp", "add_custom.cpp"]
    # a main launching a kernel it only declares takes the source defining it (not other kernels)
    _write(
        tmp_path / "app2",
        {
            "main.cpp": 'extern "C" __global__ void add_custom(GM_ADDR x);\n'
            "int main() { add_custom<<<1, nullptr, nullptr>>>(nullptr); }\n",
            "add_custom.cpp": LAUNCH_PROJECT["add_custom.cpp"],
            "other.cpp": "__global__ __aicore__ void other(GM_ADDR x) {}\n",
        },
    )
    assert [u.name for u in B.project_sources(tmp_path / "app2" / "main.cpp")] == [
        "main.cpp",
        "add_custom.cpp",
    ]
    proj = B._Project([tmp_path], tmp_path / "out")
    text = proj.top((tmp_path / "main.cpp").resolve())
    assert text.count("\n") == (tmp_path / "main.cpp").read_text().count("\n") + 1  # lines kept
    # the project's data_utils.h by absolute path; inc/launch.h from its rewritten copy
    assert f'#include "{(tmp_path / "data_utils.h").resolve()}"' in text
    copy = proj.copy_path((tmp_path / "inc" / "launch.h").resolve())
    assert f'#include "{copy}"' in text
    launch = proj.copies[(tmp_path / "inc" / "launch.h").resolve()]
    assert launch.startswith(f'#line 1 "{(tmp_path / "inc" / "launch.h").resolve()}"\n')
    assert 'ascendjax_launch("add_custom", 6, add_custom, blockDim, nullptr, stream, x, y, z)' in launch
    assert '#include "acl/acl.h"' in text  # ours: not in the user's tree, left to -I
    # an include folder (-I common): searched after the file's own folder, before ascend_jax's headers
    _write(tmp_path / "common", {"data_utils.h": "#pragma once\n"})
    (tmp_path / "data_utils.h").unlink()
    proj = B._Project([tmp_path, tmp_path / "common"], tmp_path / "out")
    text = proj.top((tmp_path / "main.cpp").resolve())
    assert f'#include "{(tmp_path / "common" / "data_utils.h").resolve()}"' in text
    # aclrtlaunch_<kernel>.h: made from the kernel's definition in a folder below (kernel/)
    app = tmp_path / "app"
    _write(
        app,
        {
            "kernel/k.cpp": LAUNCH_PROJECT["add_custom.cpp"],
            "main.cpp": '#include "aclrtlaunch_add_custom.h"\n',
        },
    )
    proj = B._Project([app], tmp_path / "out")
    proj.top((app / "main.cpp").resolve())
    assert proj.kernel_files == {(app / "kernel" / "k.cpp").resolve()}
    header = proj.copies[tmp_path / "out" / "aclrtlaunch_add_custom.h"]
    assert 'extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z);' in header
    assert (
        "aclrtlaunch_add_custom(uint32_t blockDim, aclrtStream stream, void* x, void* y, void* z)" in header
    )
    assert "add_custom, blockDim, nullptr, stream, (GM_ADDR)(x), (GM_ADDR)(y), (GM_ADDR)(z))" in header


def test_unmodelled_api_note_once():
    """Item 8: the note naming an unmodelled API is printed once."""
    err = (
        "/p/k.asc: In function 'void k()':\n"
        "/p/k.asc:7:14: error: 'Frobnicate' is not a member of 'AscendC'\n"
        "    7 |     AscendC::Frobnicate(x);\n"
    )
    msg = B._compile_message(err, "/p/k.asc")
    assert msg.count("not an API ascend_jax models") == 1
    assert msg.count("/p/k.asc:7:14: error") == 1  # the user's line, once


# -- op-framework kernels ---------------------------------------------------------------------------
OP_KERNEL = """
    #include "kernel_operator.h"
    constexpr int32_t BUFFER_NUM = 2;

    class KernelAdd {
    public:
        __aicore__ inline KernelAdd() {}
        __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum)
        {
            blockLength = totalLength / AscendC::GetBlockNum();
            this->tileNum = tileNum;
            tileLength = blockLength / tileNum / BUFFER_NUM;
            xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x + blockLength * AscendC::GetBlockIdx(), blockLength);
            yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y + blockLength * AscendC::GetBlockIdx(), blockLength);
            zGm.SetGlobalBuffer((__gm__ DTYPE_Z *)z + blockLength * AscendC::GetBlockIdx(), blockLength);
            pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(DTYPE_X));
            pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(DTYPE_Y));
            pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(DTYPE_Z));
        }
        __aicore__ inline void Process(float scale, bool scaled)
        {
            for (int32_t i = 0; i < (int32_t)(tileNum * BUFFER_NUM); i++) {
                AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
                AscendC::LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();
                AscendC::DataCopy(xLocal, xGm[i * tileLength], tileLength);
                AscendC::DataCopy(yLocal, yGm[i * tileLength], tileLength);
                inQueueX.EnQue(xLocal);
                inQueueY.EnQue(yLocal);
                xLocal = inQueueX.DeQue<DTYPE_X>();
                yLocal = inQueueY.DeQue<DTYPE_Y>();
                AscendC::LocalTensor<DTYPE_Z> zLocal = outQueueZ.AllocTensor<DTYPE_Z>();
                AscendC::Add(zLocal, xLocal, yLocal, tileLength);
                if (scaled) {
                    AscendC::Muls(zLocal, zLocal, (DTYPE_Z)scale, tileLength);
                }
                outQueueZ.EnQue<DTYPE_Z>(zLocal);
                inQueueX.FreeTensor(xLocal);
                inQueueY.FreeTensor(yLocal);
                zLocal = outQueueZ.DeQue<DTYPE_Z>();
                AscendC::DataCopy(zGm[i * tileLength], zLocal, tileLength);
                outQueueZ.FreeTensor(zLocal);
            }
        }

    private:
        AscendC::TPipe pipe;
        AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
        AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
        AscendC::GlobalTensor<DTYPE_X> xGm;
        AscendC::GlobalTensor<DTYPE_Y> yGm;
        AscendC::GlobalTensor<DTYPE_Z> zGm;
        uint32_t blockLength, tileNum, tileLength;
    };

    extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                     GM_ADDR tiling)
    {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
        if ASCEND_IS_AIC {
            return;
        }
        GET_TILING_DATA(tilingData, tiling);
        GM_ADDR usrWorkspace = AscendC::GetUserWorkspace(workspace);
        if (usrWorkspace == nullptr) {
            return;
        }
        KernelAdd op;
        op.Init(x, y, z, tilingData.totalLength, tilingData.tileNum);
        if (TILING_KEY_IS(1)) {
            op.Process(tilingData.scale, false);
        } else if (TILING_KEY_IS(2)) {
            op.Process(tilingData.scale, true);
        }
    }
"""
OP_PROJECT = {
    "AddCustom/op_host/add_custom_tiling.h": """
        #ifndef ADD_CUSTOM_TILING_H
        #define ADD_CUSTOM_TILING_H
        #include "register/tilingdata_base.h"

        namespace helpers {  // closed before the tiling's namespace: not part of its name
        inline int Unused() { return 0; }
        }  // namespace helpers
        namespace optiling {
        BEGIN_TILING_DATA_DEF(TilingData)
        TILING_DATA_FIELD_DEF(uint32_t, totalLength);
        TILING_DATA_FIELD_DEF(uint32_t, tileNum);
        TILING_DATA_FIELD_DEF(float, scale);
        END_TILING_DATA_DEF;

        REGISTER_TILING_DATA_CLASS(AddCustom, TilingData)
        }  // namespace optiling
        #endif
    """,
    "AddCustom/op_kernel/add_custom.cpp": OP_KERNEL,
}
OP_TILING = {
    "block_dim": 2,
    "tiling_key": 2,
    "tiling": {"totalLength": 512, "tileNum": 1, "scale": 0.5},
    "inputs": {"x": {"dtype": "float16", "shape": [512]}, "y": {"dtype": "float16", "shape": [2, 256]}},
    "outputs": {"z": {"dtype": "float16", "shape": [512]}},
}


def _op_inputs(root, n=512, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, n).astype(np.float16)
    y = rng.uniform(-4, 4, n).astype(np.float16)
    (root / "in").mkdir(exist_ok=True)
    x.tofile(root / "in" / "x.bin")
    y.tofile(root / "in" / "y.bin")
    return x, y


def test_op_kernel_runs_with_tiling(cache, capsys):
    """The op-project shape: op_host's BEGIN_TILING_DATA_DEF struct (found beside op_kernel/),
    GET_TILING_DATA, TILING_KEY_IS (key 2: the scaled branch), DTYPE_X, KERNEL_TASK_TYPE_DEFAULT,
    ASCEND_IS_AIC, GetUserWorkspace; inputs and outputs by parameter name."""
    _write(cache, OP_PROJECT)
    (cache / "tiling.json").write_text(json.dumps(OP_TILING, indent=1))
    x, y = _op_inputs(cache)
    kernel = cache / "AddCustom" / "op_kernel" / "add_custom.cpp"
    args = ["run", str(kernel), "--tiling", str(cache / "tiling.json")]
    assert cli.main([*args, "--input", str(cache / "in"), "--output", str(cache / "out")]) == 0, (
        capsys.readouterr().err
    )
    err = capsys.readouterr().err
    assert "launch add_custom (line 54), 2 blocks" in err  # the kernel's definition line
    assert "host:" not in err  # no memcheck finding on the harness's buffers
    z = np.fromfile(cache / "out" / "z.bin", np.float16)
    want = (x + y) * np.float16(0.5)  # Add then Muls by 0.5: both exact roundings in fp16
    assert np.array_equal(_f16_bits(z), _f16_bits(want))


def test_op_kernel_tiling_errors(cache, capsys):
    """A bad --tiling file is refused before any build, naming the file and the problem (exit 2)."""
    _write(cache, OP_PROJECT)
    kernel = cache / "AddCustom" / "op_kernel" / "add_custom.cpp"
    cases = [
        ({**OP_TILING, "blockdim": 2}, "unknown key(s) blockdim; allowed: block_dim"),
        ({**OP_TILING, "block_dim": 0}, "block_dim = 0: give a positive integer"),
        (
            {**OP_TILING, "outputs": {"w": {"dtype": "float16", "shape": [4]}}},
            "w: not a parameter of add_custom",
        ),
        ({**OP_TILING, "outputs": {}}, 'parameter z of add_custom: give it under "inputs" or "outputs"'),
        (
            {**OP_TILING, "inputs": {"x": {"dtype": "float8", "shape": [4]}, "y": OP_TILING["inputs"]["y"]}},
            "inputs.x.dtype: unknown Ascend dtype 'float8'",
        ),
        ({**OP_TILING, "tiling": {"tileNum": "2"}}, "tiling.tileNum = '2': give a number"),
    ]
    for spec, msg in cases:
        (cache / "t.json").write_text(json.dumps(spec))
        assert cli.main(["run", str(kernel), "--tiling", str(cache / "t.json")]) == 2
        err = capsys.readouterr().err
        assert f"--tiling {cache / 't.json'}: {msg}" in err, (msg, err)
    # no op_host header where the op project keeps it: the struct GET_TILING_DATA fills is unknown
    (cache / "t.json").write_text(json.dumps(OP_TILING))
    (cache / "AddCustom" / "op_host" / "add_custom_tiling.h").rename(cache / "elsewhere.h")
    assert cli.main(["run", str(kernel), "--tiling", str(cache / "t.json")]) == 2
    assert (
        "cannot tell the tiling struct: no AddCustom/op_host/add_custom_tiling.h" in capsys.readouterr().err
    )
    (cache / "t.json").write_text("{ 'block_dim': 2 }")
    assert cli.main(["run", str(kernel), "--tiling", str(cache / "t.json")]) == 2
    assert "not valid JSON: line 1" in capsys.readouterr().err
    # an op kernel without --tiling: no main, the message names the option
    assert cli.main(["run", str(kernel)]) == 2
    assert "no main() in it or in a source beside it" in capsys.readouterr().err


PLAIN_STRUCT_PROJECT = {
    "op_kernel/scale_tiling.h": """
        #pragma once
        #include <cstdint>
        struct ScaleTilingData {
            uint32_t length;
            float factor;
            int32_t offsets[2];
            struct {
                uint64_t big;
            } extra;
        };
    """,
    "op_kernel/scale_custom.cpp": """
        #include "kernel_operator.h"
        #include "scale_tiling.h"

        extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
        {
            REGISTER_TILING_DEFAULT(ScaleTilingData);
            GET_TILING_DATA(t, tiling);
            GET_TILING_DATA_WITH_STRUCT(ScaleTilingData, t2, tiling);
            GET_TILING_DATA_MEMBER(ScaleTilingData, length, len, tiling);
            if (t.extra.big != 5000000000ULL || t2.length != t.length || len != t.length) {
                return;
            }
            if ASCEND_IS_AIC {
                return;
            }
            uint32_t n = t.length / AscendC::GetBlockNum() / AscendC::GetSubBlockNum();
            AscendC::GlobalTensor<DTYPE_X> xGm;
            AscendC::GlobalTensor<DTYPE_Y> yGm;
            xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x + n * AscendC::GetBlockIdx(), n);
            yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y + n * AscendC::GetBlockIdx(), n);
            AscendC::TPipe pipe;
            AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, n * sizeof(DTYPE_X));
            AscendC::LocalTensor<DTYPE_X> l = buf.Get<DTYPE_X>();
            AscendC::DataCopy(l, xGm, n);
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::Muls(l, l, (DTYPE_X)t.factor, n);
            AscendC::Adds(l, l, (DTYPE_X)t.offsets[AscendC::GetBlockIdx()], n);
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::DataCopy(yGm, l, n);
        }
    """,
}


@pytest.mark.slow
def test_op_kernel_plain_struct(cache, capsys):
    """A plain tiling struct (REGISTER_TILING_DEFAULT in the kernel; GET_TILING_DATA_WITH_STRUCT and
    GET_TILING_DATA_MEMBER read it too): arrays, a nested struct and a 64-bit field filled from the JSON; a field the struct lacks is a compile error at its JSON line."""
    _write(cache, PLAIN_STRUCT_PROJECT)
    spec = {
        "block_dim": 2,
        "tiling": {"length": 128, "factor": 1.5, "offsets": [10, -20], "extra": {"big": 5000000000}},
        "inputs": {"x": {"dtype": "float32", "shape": [128]}},
        "outputs": {"y": {"dtype": "float32", "shape": [128]}},
    }
    (cache / "tiling.json").write_text(json.dumps(spec, indent=1))
    (cache / "in").mkdir()
    x = np.random.default_rng(2).uniform(-4, 4, 128).astype(np.float32)
    x.tofile(cache / "in" / "x.bin")
    kernel = cache / "op_kernel" / "scale_custom.cpp"
    args = ["run", str(kernel), "--tiling", str(cache / "tiling.json"), "--input", str(cache / "in")]
    assert cli.main([*args, "--output", str(cache / "out")]) == 0, capsys.readouterr().err
    y = np.fromfile(cache / "out" / "y.bin", np.float32)
    want = x * np.float32(1.5)
    want[:64] += np.float32(10)
    want[64:] += np.float32(-20)
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32))
    capsys.readouterr()
    spec["tiling"]["factr"] = spec["tiling"].pop("factor")
    (cache / "tiling.json").write_text(json.dumps(spec, indent=1))
    assert cli.main([*args, "--output", str(cache / "out")]) == 2
    err = capsys.readouterr().err
    line = next(
        i for i, ln in enumerate((cache / "tiling.json").read_text().splitlines(), 1) if "factr" in ln
    )
    assert re.search(rf"tiling\.json:{line}:\d+: error: .*has no member named .factr.", err), err
