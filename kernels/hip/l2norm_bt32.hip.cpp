// The l2norm kernels with BT = 32 rows per block for HIP (the same source as CUDA's l2norm_bt32.cu).
#include "l2norm_kernel.inc"

namespace tunescope::l2norm {
template Launcher launcherForBlockRows<32>(int, int);
}  // namespace tunescope::l2norm
