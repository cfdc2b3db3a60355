"""Pure functional API: ``new_state = X(state, ...)``, one module per API family."""

from .registers import (
    GetCtrlSpr,
    GetSaturationFlag,
    ResetCtrlSpr,
    ResetMask,
    SetCtrlSpr,
    SetMaskCount,
    SetMaskNorm,
    SetSaturationFlag,
    SetVectorMask,
)
from .unary_scalar import Adds, Maxs, Mins, Muls
