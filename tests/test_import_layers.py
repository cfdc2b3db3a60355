"""The import contracts (.importlinter, run by `make lint` as `lint-imports`) hold on the package,
and fail when a cycle or a layering violation is planted in a temporary copy of it."""

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

_LINT = (
    "import sys\n"
    "from importlinter.cli import lint_imports\n"
    "sys.exit(lint_imports(config_filename='.importlinter', no_cache=True, no_logo=True))\n"
)


def _lint(where):
    """(exit code, output) of lint-imports run on the package copy in ``where``."""
    env = {"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin", "HOME": str(where)}
    r = subprocess.run(
        [sys.executable, "-c", _LINT], cwd=where, env=env, capture_output=True, text=True, timeout=300
    )
    return r.returncode, r.stdout + r.stderr


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """A copy of the sources the contracts cover (only .py files and the contract file)."""
    dst = tmp_path_factory.mktemp("layers")
    for pkg in ("ascend_jax", "ops"):
        shutil.copytree(ROOT / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.toml"))
    shutil.copy(ROOT / ".importlinter", dst / ".importlinter")
    return dst


def _plant(copy, rel, line):
    p = copy / rel
    original = p.read_text()
    p.write_text(original + "\n" + line + "\n")
    return p, original


@pytest.mark.parametrize(
    "rel, line, expect",
    [
        # a cycle: display (core, below tensor) imports tensor back
        ("ascend_jax/display.py", "from .tensor import LocalTensor  # noqa", "display -> ascend_jax.tensor"),
        # the oracle reaching into the fast path
        (
            "ascend_jax/reference/masks.py",
            "from ..api import _args  # noqa",
            "ascend_jax.reference is not allowed to import ascend_jax.api",
        ),
        # a sample kernel using an internal module instead of the public face
        (
            "ops/relu.py",
            "from ascend_jax import tensor  # noqa",
            "ops is not allowed to import ascend_jax.tensor",
        ),
    ],
    ids=["cycle", "oracle-imports-fast-path", "ops-imports-internal"],
)
def test_planted_violation_fails(copy, rel, line, expect):
    p, original = _plant(copy, rel, line)
    try:
        code, out = _lint(copy)
    finally:
        p.write_text(original)
    assert code != 0, out
    assert "BROKEN" in out and expect in out, out


def test_contracts_hold():
    code, out = _lint(ROOT)
    assert code == 0, out
    assert "0 broken" in out, out
