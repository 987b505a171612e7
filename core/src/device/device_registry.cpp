// Finding backends: the CPU always; the CUDA and HIP plugins by dlopen from the folders of pluginFolders()
// ($TUNESCOPE_PLUGIN_DIR, an installed tree's lib/tunescope, a build tree's lib, the build's own lib). A plugin
// that is not there, cannot load (its runtime library is missing), was built for another interface, or finds no
// device is reported with that reason.
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "cpu_backend.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/plugin_folders.hpp"

namespace tunescope {
namespace {

namespace fs = std::filesystem;

const char* const kPluginBackends[] = {"cuda", "hip"};

// Loaded plugins stay loaded for the life of the process: backends and devices made by them may outlive any
// one probe, and unloading code whose objects are still alive would crash.
std::mutex& loadMutex() {
    static std::mutex mutex;
    return mutex;
}

BackendProbe probePlugin(const std::string& name) {
    BackendProbe probe;
    probe.name = name;
    const std::string fileName = "libtunescope_backend_" + name + ".so";
    std::vector<std::string> looked;
    fs::path found;
    for (const fs::path& directory : pluginFolders()) {
        std::error_code error;
        const fs::path candidate = directory / fileName;
        if (fs::is_regular_file(candidate, error)) {
            found = candidate;
            break;
        }
        looked.push_back(directory.string());
    }
    if (!found.empty()) probe.pluginPath = found.string();
    if (found.empty()) {
        std::string where;
        for (const std::string& directory : looked) where += (where.empty() ? "" : ", ") + directory;
        probe.reason = "plugin not built: no " + fileName + " in " + where;
        return probe;
    }
    std::lock_guard lock(loadMutex());
    dlerror();
    void* library = dlopen(found.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char* error = dlerror();
        const std::string text = error ? error : "dlopen failed";
        // "libcudart.so.13: cannot open shared object file": a library the plugin needs is not installed. Any other
        // failure (a truncated or foreign file, a missing symbol) is the plugin's own.
        const bool dependencyMissing = text.find("cannot open shared object file") != std::string::npos &&
                                       text.find(found.string() + ":") != 0;
        probe.reason = (dependencyMissing ? "runtime library missing: " : "cannot load plugin " + found.string() + ": ") + text;
        return probe;
    }
    const auto abi = reinterpret_cast<PluginAbiFn>(dlsym(library, kPluginAbiSymbol));
    const auto create = reinterpret_cast<CreateBackendFn>(dlsym(library, kCreateBackendSymbol));
    if (!abi || !create) {
        probe.reason = found.string() + " is not a TuneScope backend plugin (no " + kPluginAbiSymbol + " or " +
                       kCreateBackendSymbol + ")";
        return probe;
    }
    if (const int version = abi(); version != kPluginAbiVersion) {
        probe.reason = found.string() + " was built for device interface version " + std::to_string(version) +
                       ", this program uses version " + std::to_string(kPluginAbiVersion) + ": rebuild the plugin";
        return probe;
    }
    Backend* backend = create();
    if (!backend) {
        probe.reason = found.string() + " could not create its backend";
        return probe;
    }
    probe.backend.reset(backend);
    if (!probe.backend->available()) probe.reason = probe.backend->unavailableReason();
    return probe;
}

}  // namespace

std::vector<BackendProbe> probeBackends() {
    std::vector<BackendProbe> probes;
    BackendProbe cpu;
    cpu.name = "cpu";
    cpu.backend = makeCpuBackend();
    probes.push_back(std::move(cpu));
    for (const char* name : kPluginBackends) {
        try {
            probes.push_back(probePlugin(name));
        } catch (const std::exception& e) {
            BackendProbe failed;
            failed.name = name;
            failed.reason = e.what();
            probes.push_back(std::move(failed));
        }
    }
    return probes;
}

std::unique_ptr<Backend> openBackend(const std::string& name) {
    if (name == "cpu") return makeCpuBackend();
    for (const char* known : kPluginBackends) {
        if (name != known) continue;
        BackendProbe probe = probePlugin(name);
        if (!probe.backend || !probe.backend->available()) {
            throw Error("", "", "backend " + name + " is unavailable: " + probe.reason);
        }
        return std::move(probe.backend);
    }
    throw Error("", "", "unknown backend '" + name + "' (known: cpu, cuda, hip)");
}

}  // namespace tunescope
