#!/usr/bin/env bash
# Build the wheel, install it (no deps) in a clean venv that borrows the project venv's
# third-party packages, and check from outside the source tree that every profile loads.
set -euo pipefail
PY=${1:-.venv/bin/python}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m pip wheel -q --no-deps -w "$tmp/dist" "$root" >/dev/null
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --no-deps "$tmp"/dist/*.whl
site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
clean_site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# third-party deps (jax, numpy, ...) come from the project venv, appended *after* the wheel
echo "$site" > "$clean_site/zz_project_deps.pth"
cd "$tmp"
"$tmp/venv/bin/python" - <<'PYEOF'
import ascend_jax, pathlib
from ascend_jax.profile import available_profiles, load_profile, _profiles_dir
here = pathlib.Path(ascend_jax.__file__).resolve()
assert "venv" in str(here) and "site-packages" in str(here), f"imported from {here}, not the wheel"
names = available_profiles()
assert len(names) >= 9, names
for n in names:
    load_profile(n)
# the C++ front end's own headers ship in the wheel (ascend-jax run FILE.asc compiles against them)
inc = here.parent / "cxx" / "include"
for h in ("kernel_operator.h", "acl/acl.h", "data_utils.h", "cpu_debug_launch.h", "ascendjax/rt.h",
          "ascendjax/types.gen.h", "ascendjax/writers.gen.h", "ascendjax/apis.gen.h",
          "ascendjax/op_kernel.h", "register/tilingdata_base.h", "kernel_tiling/kernel_tiling.h", "acl/acl_base.h"):
    assert (inc / h).is_file(), f"header {h} missing from the wheel ({inc})"
print(f"wheel-check: ascend_jax from {here.parent}, {len(names)} profiles from {_profiles_dir()}, C++ headers in {inc}")
PYEOF
