"""Hypothesis strategies for users' own property tests (``strategies``, ``draw_rng``). The case
types, generators and runners of the differential engine live in ``ascend_jax.fuzz.families``."""
