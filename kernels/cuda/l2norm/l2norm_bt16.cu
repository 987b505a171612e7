// The l2norm kernels with BT = 16 rows per block, every num_warps x num_stages (one TU per BT builds in parallel).
#include "l2norm_kernel.inc"

namespace tunescope::l2norm {
template Launcher launcherForBlockRows<16>(int, int);
}  // namespace tunescope::l2norm
