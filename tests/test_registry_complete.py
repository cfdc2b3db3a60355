"""Every registered API is complete: a reference function of the same name, a fuzz family, a table in
every profile, a public re-export and a ``docs/MODEL.md`` section.

Adding an API to the registry without one of these fails here, naming the API and what is missing.
The exception lists below are explicit and must say why.
"""

import pathlib
import re
import tomllib

import pytest

import ascend_jax as aj
import ascend_jax.reference as R
from ascend_jax.fuzz.families import FAMILIES, NOT_FUZZED
from ascend_jax.profile import KNOWN_APIS, available_profiles, load_profile
from ascend_jax.registry import REGISTRY

ROOT = pathlib.Path(__file__).resolve().parent.parent

# API name -> reason, for APIs that may lack a part (none today).
NO_REFERENCE: dict = {}
NO_MODEL_SECTION: dict = {}
# Profile APIs (KNOWN_APIS) whose fast path is not registered yet: API name -> reason.
NOT_REGISTERED: dict = {}

NAMES = sorted(REGISTRY)


def test_the_registry_is_populated_and_matches_the_profile_schema():
    assert len(REGISTRY) >= 29
    assert all(NOT_REGISTERED.values()) and not (set(NOT_REGISTERED) & set(REGISTRY))
    known = set(KNOWN_APIS) - set(NOT_REGISTERED)
    assert set(REGISTRY) == known, (
        f"registered but not in profile.KNOWN_APIS: {sorted(set(REGISTRY) - known)}; "
        f"in KNOWN_APIS but not registered: {sorted(known - set(REGISTRY))}"
    )
    for name, spec in REGISTRY.items():
        assert spec.name == name and spec.fn is not None and spec.prototypes and spec.doc, name


@pytest.mark.parametrize("name", NAMES)
def test_reference_function_of_the_same_name(name):
    if name in NO_REFERENCE:
        pytest.skip(NO_REFERENCE[name])
    spec = REGISTRY[name]
    assert spec.reference == name, f"{name}: registered reference name {spec.reference!r}"
    fn = getattr(R, name, None)
    assert callable(fn), f"ascend_jax.reference has no {name}"
    assert name in R.__all__, f"ascend_jax.reference.__all__ lacks {name}"
    assert fn is not spec.fn, f"{name}: the reference must be its own implementation"
    assert fn.__module__.startswith("ascend_jax.reference."), (name, fn.__module__)


def test_every_api_has_a_fuzz_family():
    covered = {a for f in FAMILIES for a in f.apis}
    missing = sorted(set(REGISTRY) - covered - set(NOT_FUZZED))
    assert not missing, f"registered APIs with no fuzz family and no NOT_FUZZED reason: {missing}"
    assert all(NOT_FUZZED.values()), "every NOT_FUZZED entry needs its reason"
    assert not (set(NOT_FUZZED) & covered), "an API is both fuzzed and listed as not fuzzed"
    assert covered <= set(REGISTRY), f"families name unregistered APIs: {sorted(covered - set(REGISTRY))}"


@pytest.mark.parametrize("profile", available_profiles())
def test_every_api_has_a_table_in_every_profile(profile):
    p = load_profile(profile)
    raw = tomllib.loads(pathlib.Path(p.path).read_text(encoding="utf-8"))["apis"]
    missing = sorted(n for n in REGISTRY if n not in raw)
    assert not missing, f"{p.path}: no [apis.X] table for {missing}"
    for name in REGISTRY:
        a = p.api(name)
        assert a.name == name and isinstance(a.supported, bool), (profile, name)


def test_every_api_is_re_exported():
    for name, spec in REGISTRY.items():
        assert getattr(aj, name, None) is spec.fn, f"ascend_jax.{name} is not the registered function"


def _model_headings():
    text = (ROOT / "docs" / "MODEL.md").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("name", NAMES)
def test_every_api_has_a_model_section(name):
    if name in NO_MODEL_SECTION:
        pytest.skip(NO_MODEL_SECTION[name])
    heads = _model_headings()
    assert any(re.search(rf"(?<![\w]){name}(?![\w])", h) for h in heads), (
        f"docs/MODEL.md has no section heading naming {name}"
    )


# ---------------------------------------------------------------------------------------------
# the package's declared dependencies are exactly what its code imports


def _imports(*dirs):
    """Top-level third-party modules imported by the Python files under ``dirs``."""
    import ast
    import sys

    out = set()
    for d in dirs:
        for f in (ROOT / d).rglob("*.py"):
            for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                out |= {n.split(".")[0] for n in names}
    return {m for m in out if m not in sys.stdlib_module_names and m not in ("ascend_jax", "ops")}


def _requirement_names(reqs):
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].replace("-", "_").lower() for r in reqs}


def test_dependencies_are_what_the_code_imports():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = _requirement_names(meta["dependencies"])
    optional = set().union(*(_requirement_names(v) for v in meta["optional-dependencies"].values()))
    used = _imports("ascend_jax", "ops")
    assert used - required - optional == set(), "imported but not declared"
    # every required dependency is imported by the package itself (not only by the tests)
    assert required - used == set(), "declared but imported nowhere"
    assert {"ml_dtypes", "chex"} <= required
