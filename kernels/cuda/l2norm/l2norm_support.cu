// Random fill and cache-flush kernels, and the launcher lookup, for the CUDA backend.
#include "l2norm_support.inc"
