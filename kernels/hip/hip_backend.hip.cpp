// The HIP backend plugin (libtunescope_backend_hip.so): the shared GPU Device/Backend over the HIP runtime.
// No SM clock source is wired up on AMD (rocm-smi is not part of Debian's HIP): every sample reports -1.
#define TUNESCOPE_BACKEND_HIP 1
#include "gpu_backend.inc"
