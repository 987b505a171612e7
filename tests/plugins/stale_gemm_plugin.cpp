// A cuBLASLt plugin as an older TuneScope built it: it exports the create function but no interface version, so
// the loader must refuse it before calling anything (its GemmBackend would have another virtual table).
#include <cstddef>
#include <cstdlib>

extern "C" __attribute__((visibility("default"))) void* tunescope_create_gemm_backend(int*, char*, std::size_t) {
    std::abort();  // reaching this is the failure the test looks for
}
