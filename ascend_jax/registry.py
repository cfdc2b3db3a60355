"""The API registry: enumerates the modelled APIs for tests, the CLI and docs.

Kernels call the API functions directly; nothing dispatches on strings at run time.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class ApiSpec:
    name: str  # Ascend C name, as in the profiles' [apis.<name>]
    family: str  # e.g. "unary_scalar", "mask", "special_register"
    prototypes: tuple  # human-readable prototypes, C++ argument order
    doc: str  # doc page, relative to the spec tree's memory-vector/ etc.
    fn: object = dataclasses.field(default=None, compare=False, repr=False)
    reference: str = ""  # name of the reference function (same name by convention)


REGISTRY: dict = {}


def register(spec: ApiSpec):
    def deco(fn):
        if spec.name in REGISTRY:
            raise ValueError(f"API {spec.name} registered twice")
        REGISTRY[spec.name] = dataclasses.replace(spec, fn=fn, reference=spec.reference or fn.__name__)
        return fn

    return deco
