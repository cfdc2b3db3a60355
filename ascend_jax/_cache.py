"""The persistent XLA compilation cache shared by the CLI, ``aj.fuzz.run`` and ``ascend-jax run``
(a core-level utility: no ascend_jax imports, so every layer may use it)."""

import os
import pathlib


def enable_compilation_cache(override=True):
    """Point JAX's persistent compilation cache at ``$ASCEND_JAX_XLA_CACHE`` (default
    ``~/.cache/ascend_jax/xla``); returns the directory, or None when disabled ("off").
    ``override=False`` (``aj.fuzz.run``): keep a cache directory the program already configured."""
    env = os.environ.get("ASCEND_JAX_XLA_CACHE")
    if env is not None and env.strip().lower() in ("", "0", "off", "none", "false"):
        return None
    if not override:
        import jax

        if jax.config.jax_compilation_cache_dir:
            return jax.config.jax_compilation_cache_dir
    if env:
        path = pathlib.Path(env).expanduser()
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
        path = pathlib.Path(base) / "ascend_jax" / "xla"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    import jax

    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.1)
    return path
