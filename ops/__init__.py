"""Whole kernels (Ascend C operators) written with the public ascend_jax API only."""
