"""The scalar-arithmetic campaign of earlier versions, now a thin wrapper over the differential
engine (``ascend_jax.fuzz.run``), which ``ascend-jax demo`` runs over every registered API."""

from ..profile import as_profile
from .cases import UNARY_SCALAR


def run_campaign(profile=None, cases=4000, seed=0, batch=512):
    """Adds/Muls/Maxs/Mins on ``profile``: a ``FuzzResult`` (``.summary_table()``, ``.ok``)."""
    from ..fuzz import run

    p = as_profile(profile)
    apis = [a for a in UNARY_SCALAR if p.api(a).supported]
    if not apis:
        raise ValueError(f"profile {p.name} supports none of {', '.join(UNARY_SCALAR)}")
    return run(apis=apis, profile=p, cases=cases, seed=seed, batch=batch)
