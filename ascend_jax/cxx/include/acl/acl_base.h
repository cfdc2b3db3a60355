// ascend_jax: `#include "acl/acl_base.h"` (as generated launch headers write it) is acl/acl.h.
#pragma once
#include "acl/acl.h"
