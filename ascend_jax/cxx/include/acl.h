// ascend_jax: `#include "acl.h"` (as some samples write it) is acl/acl.h.
#pragma once
#include "acl/acl.h"
