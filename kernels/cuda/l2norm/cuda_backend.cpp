// The CUDA backend plugin (libtunescope_backend_cuda.so): the shared GPU Device/Backend over the CUDA runtime,
// with the SM clock through NVML where the driver ships it.
#include "gpu_backend.inc"
