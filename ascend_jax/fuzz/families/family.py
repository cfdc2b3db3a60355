"""The adapter base classes (see ``ascend_jax.fuzz.families``): ``Family``, and what several
families share -- ``PlannedFamily`` (the planned-call interface), ``StridedFamily`` (planned
strided APIs in every call form), ``TwoBucketFamily`` (two static repeat buckets) and
``OneApiFamily`` (one API vmapped over int32 case fields)."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from ... import dtypes as _dt
from ...profile import as_profile
from .. import compare as _cmp
from .. import runner as _run
from .base import (
    bucket_of,
    call_labels,
    decode,
    encode,
    generic_shrinks,
    halves,
    int32_columns,
    make_ub,
    make_ubs,
    mode_shrinks,
    normal_mode_shrinks,
    plan_ok,
    random_ub,
    scalar_dtype_misuse,
    scalar_shrinks,
    size_misuse,
    src_mutations,
    stack_rows,
    state_for,
    strided_forms,
    strided_labels,
)

SMALL_R, BIG_R = 16, 255  # the static repeat buckets of a ``TwoBucketFamily``


class Family:
    """One API family. Subclasses set ``name``, ``apis``, ``case_type`` and implement the hooks."""

    name = ""
    apis = ()
    case_type = None
    batched = True  # False: ``fast_one`` runs each case eagerly (register APIs)
    run_batch = 256  # chunk size and worker threads of ``run_fast`` / ``run_all``
    run_workers = 2

    # -- generation
    def units(self, p, api):
        """The (api, ...) tuples a case of ``api`` is drawn from on profile ``p`` ([] = not on p):
        ``api_units`` of an API of the family that ``p`` supports."""
        if api not in self.apis or not p.api(api).supported:
            return []
        return self.api_units(p, api)

    def api_units(self, p, api):
        """``units`` of one of the family's APIs, supported on ``p``."""
        raise NotImplementedError

    def unit_dtype(self, unit):
        return unit[1]

    def generate(self, rng, p, unit, fault_rate):
        raise NotImplementedError

    # the module's vectorised generator, ``(slots, p, units, fault_rate=...) -> [case]``, if any
    draw_many = None

    @property
    def vectorised(self):
        """Whether ``generate_many`` draws the family's cases side by side (``fuzz.generate``)."""
        return self.draw_many is not None or type(self).generate_many is not Family.generate_many

    def generate_many(self, slots, p, units, fault_rate):
        """The cases of ``units`` (one a case) drawn together from ``slots`` (``rng.Slots``, one
        stream a case): every draw made for every case, whatever its unit (a fixed layout), so a
        case drawn alone gets the values it gets in a batch. A list of cases."""
        if self.draw_many is None:
            raise NotImplementedError
        return self.draw_many(slots, p, units, fault_rate=fault_rate)

    def normalize(self, case, p):
        """Recompute derived static fields (e.g. the repeat bucket) after a shrink step."""
        return case

    def invalid_static(self, rng, p, case):
        """(case, argument name expected) of a static misuse both implementations must reject, or
        None."""
        return None

    def invalid_data(self, rng, p, case):
        """(case, what) with a data-dependent fault (misaligned / out of UB / stride 0 / overlap),
        or None."""
        return None

    # -- running
    def signature(self, case, p):
        raise NotImplementedError

    def initial_ub(self, case):
        raise NotImplementedError

    def initial_ubs(self, cases):
        """The initial UB bytes of several cases (one signature) as the rows of one array: by
        default ``initial_ub`` case by case; families drawing with ``base.make_ub`` draw the rows
        at once (``base.make_ubs``, the same bytes)."""
        return np.stack([np.asarray(self.initial_ub(c), np.uint8) for c in cases])

    def stack_dyn(self, cases, p):
        raise NotImplementedError

    def call(self, mod, case, state, p, dyn=None):
        """``mod``'s API (``ascend_jax`` or an oracle) on ``case``: (new state, returned value or
        None). ``dyn``: one case's row of ``stack_dyn`` (traced values) in place of its own."""
        raise NotImplementedError

    def fast_fn(self, case0, p):
        """The batched fast call of ``case0``'s signature: one eager vmap of the public API over
        the traced values (its jitted core compiles once per signature)."""
        import ascend_jax as aj

        def one(st, dy):
            return self.call(aj, case0, st, p, dyn=dy)

        def run(state, dyn):
            dyn = {k: v if isinstance(v, tuple) else jnp.asarray(v) for k, v in dyn.items()}
            return jax.vmap(one)(state, dyn)

        return run

    def fast_one(self, case, state, p):
        raise NotImplementedError

    def reference(self, case, p, mod, state):
        """(RefState, returned value or None)."""
        return self.call(mod, case, state, p)

    def call_static(self, mod, case, state, p):
        """``mod``'s API called with static (Python) values only: for deliberately invalid cases
        (by default ``call`` without a traced row)."""
        return self.call(mod, case, state, p)

    # -- the engine's runner and comparator on this family's cases (tests, benchmarks, notebooks):
    # results are (state, returned value or None) pairs with NumPy leaves
    def run_fast(self, cases, profile, batch=None):
        return _run.run_fast(self, cases, as_profile(profile), batch or self.run_batch)

    def run_reference(self, case, profile):
        return _run.run_reference(self, case, as_profile(profile))

    def run_static(self, case, profile):
        """(state, ret) of one case with its parameters static (a kernel's view; one program)."""
        return _run.run_static(self, case, as_profile(profile))

    def run_all(self, cases, profile, batch=None, workers=None):
        """(fast results, reference results): the fast chunks run in worker threads while the
        main thread computes the reference."""
        w = self.run_workers if workers is None else workers
        return _run.run_all(self, cases, as_profile(profile), batch=batch or self.run_batch, workers=w)

    @staticmethod
    def compare(fast, ref):
        """None if the two results are equal (whole UB, registers, fault bits, returned value),
        else a description of the differences."""
        return _cmp.message(fast[0], ref[0], fast[1], ref[1])

    # -- reporting
    def api_of(self, case):
        return case.api

    def labels(self, case, p):
        """(mask kind, repeat regime, stride regime) for the coverage table."""
        return ("n/a", "n/a", "n/a")

    def call_text(self, case):
        return case.call_repr()

    def shrink(self, case, p):
        return []

    def operands(self, case, p):
        return []

    # -- JSON
    def to_json(self, case):
        return {f.name: encode(getattr(case, f.name)) for f in dataclasses.fields(case)}

    def from_json(self, d):
        names = {f.name for f in dataclasses.fields(self.case_type)}
        return self.case_type(**{k: decode(v) for k, v in d.items() if k in names})


class PlannedFamily(Family):
    """A family on the planned-call interface (docs/PLAN_RUN.md): the cases of a signature run in
    one compiled program, ``aj.run_batched`` of a planned-call key, over their stacked ``values``;
    ``buckets``: the static repeat buckets of the signatures; each case's UB generated from its
    seed. The reference and static calls: ``call(mod, case, state, p)``, by default
    ``call_case(mod, case, state, p)`` (the new state, no returned value)."""

    run_batch = 128

    def __init__(self, buckets=(4, 16, 256)):
        self.buckets = tuple(buckets)

    def bucket(self, n):
        """The repeat bucket of a case spanning ``n`` repeats."""
        return bucket_of(n, self.buckets)

    def initial_ub(self, case):
        return make_ub(case)

    def initial_ubs(self, cases):
        if type(self).initial_ub is not PlannedFamily.initial_ub:  # a family's own initial_ub
            return super().initial_ubs(cases)
        return make_ubs(cases)

    @staticmethod
    def call_case(mod, case, state, p):
        """The case's call of ``mod`` (the reference or ``ascend_jax``): the new state."""
        raise NotImplementedError

    def call(self, mod, case, state, p, dyn=None):
        return self.call_case(mod, case, state, p), None

    stack_values = staticmethod(stack_rows)  # the ``values`` of several planned calls (one key)

    @staticmethod
    def batched(key):
        """The fast function of a signature: ``aj.run_batched(key)`` (no returned value)."""
        import ascend_jax as aj

        fn = aj.run_batched(key)
        return lambda state, dyn: (fn(state, dyn), None)


class TwoBucketFamily(Family):
    """A family of strided calls (``form`` count | repeat forms; repeat parameters ``strides``, by
    default ``default_strides``) run in one of two static repeat buckets: ``BIG_R`` where
    ``case.big``, else ``SMALL_R``. ``normalize`` sets ``big`` from ``_reps(case, L)`` (the repeats
    a case spans); ``call`` passes the bucket (None to the reference) to ``call_case(mod, case,
    state, p, dyn, R)``."""

    default_strides = ()

    def normalize(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        return dataclasses.replace(case, big=self._reps(case, L) > SMALL_R)

    def call(self, mod, case, state, p, dyn=None):
        R = None if dyn is None else (BIG_R if case.big else SMALL_R)
        return self.call_case(mod, case, state, p, dyn=dyn, R=R), None

    def labels(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        s = None if case.form == "count" else halves(case.strides)
        reps = self._reps(case, L)
        return call_labels(
            p, L, case.form, case.mask_mode, case.mask, reps, s, getattr(case, "is_set_mask", True)
        )

    def shrink(self, case, p):
        out = generic_shrinks(case, p, self.default_strides) + normal_mode_shrinks(case)
        return [self.normalize(c, p) for c in out]


@functools.cache
def _trial_plan_ok(plan_case, trial_case, api, dtype, p):
    return plan_ok(plan_case, trial_case(api, dtype), p)


class StridedFamily(PlannedFamily):
    """A PlannedFamily of strided APIs (``form`` count | count_register | repeat forms, sources
    ``srcs``, maybe a ``scalar``): each element type the fast path models (the trial plan of
    ``trial_case(api, dtype)``) in each call form of ``strided_forms`` (the count form alone for
    the ``count_only_apis``). ``plan_case(case, state, p, R)``: the family's planned call, ``R``
    the signature's fourth item; ``shrink_strides(case, p)``: the repeat parameters its shrinks go
    back to."""

    count_only_apis = ()

    @staticmethod
    def plan_case(case, state, p, R):
        raise NotImplementedError

    def trial_case(self, api, dtype):
        raise NotImplementedError

    def shrink_strides(self, case, p):
        raise NotImplementedError

    def modelled(self, api, dtype, p):
        return _trial_plan_ok(self.plan_case, self.trial_case, api, dtype, p)

    def plans(self, cases, p):
        """Each case's planned call (key, values) at the chunk's repeat bucket."""
        R = self.signature(cases[0], p)[3]
        return [self.plan_case(c, state_for(c, p), p, R) for c in cases]

    def shrink(self, case, p):
        return (
            generic_shrinks(case, p, self.shrink_strides(case, p)) + mode_shrinks(case) + scalar_shrinks(case)
        )

    dtype_arg, dtype_misuse_fields = "T", {}  # the dtype misuse's argument name, its other changes

    def stride_misuse(self, case):
        """A repeat-form case's repeat parameters with dst's repeat stride 256 (past uint8)."""
        s = list(case.strides)
        s[len(s) // 2] = 256
        return dataclasses.replace(case, strides=tuple(s)), "repeatParams.dstRepStride"

    def more_misuse(self, case):
        """A family's other static misuses of ``case``: ``[(case, argument name), ...]``."""
        return []

    def invalid_static(self, rng, p, case):
        count_form = case.form in ("count", "count_register")
        opts = [size_misuse(case, p, count_form)] + ([] if count_form else [self.stride_misuse(case)])
        opts += self.more_misuse(case)
        bad = scalar_dtype_misuse(rng, p, case, self.dtype_arg, **self.dtype_misuse_fields)
        if bad:
            opts.append(bad)
        return opts[int(rng.integers(len(opts)))]

    def forms(self, p, api, dt):
        return strided_forms(p, api, dt, api in self.count_only_apis)

    def api_units(self, p, api):
        a = p.api(api)
        return [
            (api, dt, f) for dt in a.all_dtypes() if self.modelled(api, dt, p) for f in self.forms(p, api, dt)
        ]

    def invalid_data(self, rng, p, case):
        return src_mutations(rng, p, case)

    def labels(self, case, p):
        return strided_labels(case, p, p.lanes(_dt.as_dtype(case.dtype)))


class OneApiFamily(Family):
    """A family of one API run as its public API vmapped over the int32 case fields ``traced``, with
    the static repeat bucket ``RB``: one program per dtype. ``draw(rng, p, dtype, fault_rate)``
    draws a case of a unit (api, dtype); ``call_case(mod, case, state, p, dyn)`` calls ``mod``'s API
    on it (``dyn``: one case's row of ``stack_dyn``); its UB: ``ub_bytes`` random bytes of its seed."""

    RB = 4
    ub_bytes = 8192
    traced = ()

    def generate(self, rng, p, unit, fault_rate):
        return self.draw(rng, p, unit[1], fault_rate)

    def signature(self, case, p):
        return (self.name, case.dtype, self.RB)

    def initial_ub(self, case):
        return random_ub(case.ub_seed, self.ub_bytes)

    def stack_dyn(self, cases, p):
        return int32_columns(cases, *self.traced)

    def call(self, mod, case, state, p, dyn=None):
        return self.call_case(mod, case, state, p, dyn), None
