#pragma once
// The parameter list Triton 3.6's CUDA launcher passes to a compiled kernel, built from a launch's arguments as a
// pure function (no device), so that tests check it against captured launches and the cubins' own parameter
// records (docs/fla-capture.md, section 10). What it restates, from triton-lang/triton (the 3.6 era):
// - third_party/nvidia/backend/driver.py, make_launcher: `params = [&arg{i} for i, ty in signature.items() if ty !=
//   "constexpr"]`, then `&global_scratch`, then `&profile_scratch`. Pointers are CUdeviceptr. Scalars are stored as
//   ty_to_cpp says (i1/i8 int8_t, i16 int16_t, i32 int32_t, i64 int64_t, u1/u8 uint8_t, u16, u32, u64), floats through
//   FLOAT_STORAGE_TYPE / pack_*: fp16 to IEEE half (PyFloat_Pack2, round to nearest even), bf16 the high 16 bits of
//   the float (truncated, pack_bf16), fp32 the float's bits, fp64 the double's.
// - CudaLauncher.__call__: a scratch buffer is grid x num_ctas x size bytes when the metadata's size is > 0, else
//   None (a null pointer).
// - python/src/specialize.cc, handle_long_type: an int argument equal to 1 that is not do_not_specialize is
//   specialized as a constexpr (compiled in, not passed); None arguments are constexprs too.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"

namespace tunescope {

// One argument of the kernel's signature, in signature order, as a launch passed it.
struct TritonLaunchArg {
    enum class Kind { Tensor, Scalar, Constexpr, None };
    std::string name;
    Kind kind = Kind::None;
    std::string tritonType;         // Scalar: "i32", "fp32", ...; Tensor: "*bf16", ...
    Json value;                     // Scalar: the value (an integer, a number or a boolean)
    bool doNotSpecialize = false;   // Scalar
    int buffer = -1;                // Tensor: the replay buffer that holds it
    std::uint64_t byteOffset = 0;   // Tensor: storage_offset x item size
};

// Whether Triton passes the argument at all: not a constexpr, not None, and not an int equal to 1 that Triton
// specialized into a constexpr (specialize.cc).
bool isPassedToKernel(const TritonLaunchArg& arg);

// The bytes of a scalar as the launcher stores it (see the header comment). Throws Error naming the argument for a
// type this table does not hold or a value of the wrong kind or out of range.
std::vector<std::uint8_t> encodeTritonScalar(const std::string& name, const std::string& tritonType, const Json& value);

// The kernel's parameters: the passed arguments in signature order (tensors as buffer pointers, scalars encoded),
// then global_scratch and profile_scratch.
std::vector<KernelParam> buildTritonParams(const std::vector<TritonLaunchArg>& args);

// The size in bytes a parameter takes in the kernel's parameter block (8 for every pointer).
std::uint32_t kernelParamSize(const KernelParam& param);

// A kernel's parameters as its cubin records them (EIATTR_KPARAM_INFO of the `.nv.info.<kernel>` section): ordinal,
// offset and size in bytes, sorted by ordinal. Throws Error for an image that is not a 64-bit ELF or has no such
// section for the kernel.
struct CubinParam {
    std::uint32_t ordinal = 0, offset = 0, size = 0;
};
std::vector<CubinParam> cubinKernelParams(std::span<const std::uint8_t> image, const std::string& kernelName);

// "" when `params` agree with the cubin's record in count and sizes; else what differs, naming the parameter.
std::string paramsMismatch(const std::vector<KernelParam>& params, const std::vector<CubinParam>& cubin);

// A compiled kernel from its Triton cache folder: the metadata file (Triton's {kernel}.json: target, num_warps,
// num_ctas, shared, scratch sizes, a 3.6.x triton_version, no cooperative or PDL launch) and the binary file.
// Throws Error naming the file of the first problem.
TritonKernelBinary readTritonKernelFiles(const std::filesystem::path& folder, const std::string& kernelName,
                                         const std::string& metadataFile, const std::string& binaryFile);

}  // namespace tunescope
