"""Shared machinery of the fast path (private)."""
