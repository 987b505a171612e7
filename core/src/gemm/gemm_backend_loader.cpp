// Finds and loads libtunescope_cublaslt.so. The core never links CUDA: a machine without it still runs the CLI.
#include <dlfcn.h>

#include <filesystem>
#include <string>

#include "tunescope/device/plugin_folders.hpp"
#include "tunescope/gemm/gemm_backend.hpp"

namespace tunescope::gemm {

LoadedGemmBackend::LoadedGemmBackend(LoadedGemmBackend&& other) noexcept
    : library_(other.library_), backend_(other.backend_) {
    other.library_ = nullptr;
    other.backend_ = nullptr;
}

LoadedGemmBackend& LoadedGemmBackend::operator=(LoadedGemmBackend&& other) noexcept {
    if (this != &other) {
        reset();
        library_ = other.library_;
        backend_ = other.backend_;
        other.library_ = nullptr;
        other.backend_ = nullptr;
    }
    return *this;
}

LoadedGemmBackend::~LoadedGemmBackend() { reset(); }

void LoadedGemmBackend::reset() {
    // The backend's code lives in the library: destroy it first.
    delete backend_;
    backend_ = nullptr;
    if (library_) dlclose(library_);
    library_ = nullptr;
}

GemmBackendProbe loadGemmBackend(const std::string& exeDir) {
    GemmBackendProbe probe;
    const std::vector<std::filesystem::path> folders = pluginFolders(exeDir);

    std::string failures;
    for (const auto& folder : folders) {
        const std::filesystem::path file = folder / kGemmPluginFileName;
        probe.searched.push_back(file.string());
        std::error_code ec;
        if (!std::filesystem::exists(file, ec)) {
            failures += "\n  " + file.string() + ": not there";
            continue;
        }
        void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char* err = dlerror();
            failures += "\n  " + file.string() + ": " + (err ? err : "dlopen failed");
            continue;
        }
        auto create = reinterpret_cast<CreateGemmBackendFn>(dlsym(library, kCreateGemmBackendSymbol));
        if (!create) {
            failures += "\n  " + file.string() + ": no symbol " + kCreateGemmBackendSymbol;
            dlclose(library);
            continue;
        }
        // A plugin left over from another TuneScope build would call the wrong virtual functions: refuse it.
        auto interfaceVersion = reinterpret_cast<GemmBackendInterfaceFn>(dlsym(library, kGemmBackendInterfaceSymbol));
        const int version = interfaceVersion ? interfaceVersion() : 1;
        if (version != kGemmBackendInterfaceVersion) {
            const std::string why = file.string() + ": built for explorer interface " + std::to_string(version) +
                                    ", this tunescope needs " + std::to_string(kGemmBackendInterfaceVersion) +
                                    " (rebuild or reinstall the plugin with this version)";
            failures += "\n  " + why;
            probe.refused.push_back(why);
            dlclose(library);
            continue;
        }
        char why[1024] = {0};
        int noDevice = 0;
        GemmBackend* backend = create(&noDevice, why, sizeof why);
        if (!backend) {
            probe.noDevice = noDevice != 0;
            probe.reason = std::string(why[0] ? why : "the cuBLASLt plugin could not start") + " (" + file.string() + ")";
            dlclose(library);
            return probe;
        }
        probe.backend = LoadedGemmBackend(library, backend);
        return probe;
    }
    probe.reason = "the cuBLASLt plugin " + std::string(kGemmPluginFileName) +
                   " could not be loaded (build with CUDA, or set TUNESCOPE_PLUGIN_DIR):" + failures;
    return probe;
}

}  // namespace tunescope::gemm
