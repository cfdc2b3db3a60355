// ascend_jax: the vendor CPU-debug launcher is not needed (kernels run on the model); empty.
#pragma once
