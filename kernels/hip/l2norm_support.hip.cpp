// Random fill and cache-flush kernels, and the launcher lookup, for the HIP backend.
#include "l2norm_support.inc"
