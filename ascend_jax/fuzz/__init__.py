"""The differential-testing engine: random cases of every registered API (family adapters in
``ascend_jax.fuzz.families``), run batched through the fast JAX path and checked against the NumPy
reference; failing cases are shrunk and written as repro capsules.

``run(...)`` returns a ``FuzzResult``; ``replay``, ``export_capsule`` and ``diff_dir`` are the
library side of ``ascend-jax replay / export / diff``. Submodules are imported lazily (the
testing harnesses import ``fuzz.regs``, ``fuzz.compare`` and ``fuzz.runner`` themselves)."""

_LAZY = {
    "run": ("engine", "run"),
    "FuzzResult": ("report", "FuzzResult"),
    "Oracle": ("engine", "Oracle"),
    "generate_case": ("generate", "generate_case"),
    "make_plan": ("generate", "make_plan"),
    "replay": ("capsule", "replay"),
    "load_capsule": ("capsule", "load_capsule"),
    "export_capsule": ("export", "export_capsule"),
    "diff_dir": ("export", "diff_dir"),
    "compare": ("compare", "compare"),
    "FAMILIES": ("families", "FAMILIES"),
    "run_distributed": ("shard", "run_distributed"),
    "merge_shards": ("shard", "merge"),
    "NOT_FUZZED": ("families", "NOT_FUZZED"),
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(f"{__name__}.{mod}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
