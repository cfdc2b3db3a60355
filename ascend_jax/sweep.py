"""``aj.sweep``: run one kernel over the Cartesian grid of its traced parameters, in one compiled,
vmapped program, and label the results with the axis names (NumPy only, no xarray).

    >>> def kern(k, scale, n):
    ...     x, y = k.alloc(aj.int16, 256), k.alloc(aj.int16, 256)
    ...     k.write(x, jnp.arange(256, dtype=jnp.int16))
    ...     k.Muls(y, x, scale, n)
    ...     return k.read(y)
    >>> r = aj.sweep(kern, scale=[1, 2, 3], n=[64, 128, 256])
    >>> r.out.shape, r.traces            # ((3, 3, 256), 1)
    >>> r.sel(scale=2, n=128).out[:4]

The kernel has the ``aj.jit_kernel`` form ``fn(k, *gm_tensors, **params)``: every keyword of
``sweep`` other than ``profile``/``gm``/``ub_bytes`` names a parameter and gives its values (a 1-D
sequence); the grid is their product in the order given. ``gm``: the initial contents of the
kernel's GM arrays, the same for every grid point.
"""

import dataclasses
import functools

import jax
import numpy as np

from .errors import UsageError

__all__ = ["SweepResult", "sweep"]


@dataclasses.dataclass(frozen=True)
class SweepResult:
    """The results of ``sweep``, every array shaped ``grid shape + per-point shape``.

    ``axes``: parameter name -> its values (the grid is their Cartesian product, in order);
    ``gm``: the final GM arrays (a tuple); ``out``: the kernel's return value (a pytree of arrays);
    ``faults``: the fault word of every grid point (``aj.describe_faults``); ``traces``: how many
    times the kernel was traced (1: one compilation served the whole grid).
    """

    axes: dict
    gm: tuple
    out: object
    faults: np.ndarray
    traces: int
    profile: str = ""

    @property
    def dims(self):
        return tuple(self.axes)

    @property
    def shape(self):
        return tuple(len(v) for v in self.axes.values())

    def _index(self, name, value):
        if name not in self.axes:
            raise KeyError(f"no axis {name!r}; axes: {', '.join(self.axes)}")
        vals = self.axes[name]
        hit = np.nonzero(vals == np.asarray(value, dtype=vals.dtype))[0]
        if hit.size == 0:
            raise KeyError(f"{name}={value!r} is not on the grid; values: {vals.tolist()}")
        return int(hit[0])

    def sel(self, **coords):
        """The sub-result at the given axis values (each selected axis is dropped)."""
        index = []
        for name in self.axes:
            index.append(self._index(name, coords[name]) if name in coords else slice(None))
        unknown = set(coords) - set(self.axes)
        if unknown:
            raise KeyError(f"no axis {sorted(unknown)}; axes: {', '.join(self.axes)}")
        index = tuple(index)

        def pick(a):
            return np.asarray(a)[index]

        return SweepResult(
            axes={n: v for n, v in self.axes.items() if n not in coords},
            gm=tuple(pick(g) for g in self.gm),
            out=jax.tree_util.tree_map(pick, self.out),
            faults=pick(self.faults),
            traces=self.traces,
            profile=self.profile,
        )

    def points(self):
        """Iterate ``(coords dict, flat index)`` over the grid in C order."""
        names = list(self.axes)
        for flat, idx in enumerate(np.ndindex(*self.shape)):
            yield {n: self.axes[n][i].item() for n, i in zip(names, idx, strict=True)}, flat

    def __repr__(self):
        ax = ", ".join(f"{n}[{len(v)}]" for n, v in self.axes.items())
        bad = int(np.count_nonzero(self.faults))
        return f"SweepResult({ax}; {len(self.gm)} GM arrays; {bad} faulting points; traces={self.traces})"

    def _repr_html_(self):
        import html

        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(n)}</th><td><code>{html.escape(str(v.tolist()))}</code></td></tr>"
            for n, v in self.axes.items()
        )
        outs = jax.tree_util.tree_leaves(self.out)
        info = (
            f"grid {self.shape} = {int(np.prod(self.shape))} points on {self.profile or 'the profile'}, "
            f"{self.traces} trace(s); out shapes {[np.shape(o) for o in outs]}; "
            f"gm shapes {[np.shape(g) for g in self.gm]}; {int(np.count_nonzero(self.faults))} faulting points"
        )
        return f"<table><caption style='text-align:left'><b>SweepResult</b>: {html.escape(info)}</caption>{rows}</table>"


def _axis(name, values, p):
    """One parameter's values as a non-empty 1-D NumPy array of numbers (UsageError naming it)."""
    allowed = "a non-empty 1-D sequence of numbers"
    try:
        arr = np.asarray(values)
    except ValueError as e:  # ragged: NumPy's "inhomogeneous shape"
        raise UsageError("sweep", name, _short(values), allowed, p, f"ragged values ({e})") from None
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "biuf":
        raise UsageError("sweep", name, _short(values), allowed, p, f"got {arr.dtype} of shape {arr.shape}")
    return arr


def _gm_arrays(gm, p):
    """``gm``: a tuple (or list) of arrays, one per GM argument; one bare array is not taken for a
    sequence of 1-element arrays (UsageError naming ``gm``)."""
    if not isinstance(gm, (tuple, list)):
        raise UsageError(
            "sweep",
            "gm",
            f"one {type(gm).__name__}" + (f" of shape {np.shape(gm)}" if hasattr(gm, "shape") else ""),
            "a tuple of GM arrays, one per GM argument of the kernel (gm=(a,) for one)",
            p,
        )
    return tuple(np.asarray(g) for g in gm)


def _short(v):
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def sweep(kernel, profile=None, gm=(), ub_bytes=None, **param_ranges) -> SweepResult:
    """Run ``kernel`` at every point of the grid ``param_ranges`` in one vmapped program."""
    from .kernel import jit_kernel
    from .profile import as_profile

    p = as_profile(profile)
    if not param_ranges:
        raise TypeError("sweep: give at least one parameter range, e.g. sweep(kern, n=[64, 128])")
    axes = {name: _axis(name, values, p) for name, values in param_ranges.items()}
    gm = _gm_arrays(gm, p)
    shape = tuple(a.size for a in axes.values())
    n = int(np.prod(shape))
    mesh = np.meshgrid(*axes.values(), indexing="ij")
    flat = {name: m.reshape(n) for name, m in zip(axes, mesh, strict=True)}
    gm_b = tuple(np.ascontiguousarray(np.broadcast_to(g, (n,) + g.shape)) for g in gm)

    traces = [0]

    @functools.wraps(kernel)
    def counted(k, *args, **kw):
        traces[0] += 1
        return kernel(k, *args, **kw)

    # jit_kernel: positional arguments are GM arrays (GlobalTensor in the kernel), keywords are
    # traced parameters; both batched along axis 0, one program for the whole batch
    kw = {} if ub_bytes is None else {"ub_bytes": ub_bytes}
    run = jit_kernel(counted, profile=p, return_state=True, **kw)
    res = run(*gm_b, **flat)
    out, gm_out, fault = res.out, tuple(res.gm), res.state.fault

    def grid(a):
        a = np.asarray(a)
        return a.reshape(shape + a.shape[1:])

    return SweepResult(
        axes=axes,
        gm=tuple(grid(g) for g in gm_out),
        out=jax.tree_util.tree_map(grid, out),
        faults=grid(fault),
        traces=traces[0],
        profile=p.name,
    )
