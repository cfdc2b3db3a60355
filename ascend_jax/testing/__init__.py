"""Case generators, batched runners and comparison helpers for differential testing (used by the
test suite, ``ascend-jax demo`` and users' own tests)."""
