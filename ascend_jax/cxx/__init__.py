"""The C++ front end: run a user's Ascend C kernel from its own ``.asc`` / ``.cpp`` source.

``include/``: the project's own host headers (``kernel_operator.h``, ``acl/acl.h``,
``data_utils.h``; written from the API pages, no vendor source) -- every Ascend C call records
itself into a trace. ``build.py``: the launch rewrite and the compile (cached). ``trace.py``: the
trace reader and its replay through the public Kernel API. ``run.py``: ``ascend-jax run FILE.asc``.
``gen_header.py``: generates the per-API recorders from ``ascend_jax.REGISTRY``.

A tool over the public kernel layer: it imports ``ascend_jax``, never the engine.
"""
