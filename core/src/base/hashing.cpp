#include "tunescope/base/hashing.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "reading_internal.hpp"
#include "tunescope/base/errors.hpp"

namespace tunescope {
namespace fs = std::filesystem;

namespace {

struct MdCtxDeleter {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

std::string openSslError(const char* what) {
    const unsigned long code = ERR_get_error();
    char buffer[256] = {0};
    if (code != 0) ERR_error_string_n(code, buffer, sizeof buffer);
    ERR_clear_error();
    return std::string(what) + (code != 0 ? std::string(": ") + buffer : std::string());
}

// A digest being fed in pieces.
class Digest {
public:
    explicit Digest(const EVP_MD* md) : ctx_(EVP_MD_CTX_new()) {
        if (!ctx_) throw Error("", "", openSslError("EVP_MD_CTX_new failed"));
        if (EVP_DigestInit_ex(ctx_.get(), md, nullptr) != 1)
            throw Error("", "", openSslError("cannot initialise the digest"));
    }
    void update(const void* data, std::size_t size) {
        if (size > 0 && EVP_DigestUpdate(ctx_.get(), data, size) != 1)
            throw Error("", "", openSslError("digest update failed"));
    }
    std::string hexFinal() {
        unsigned char out[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(ctx_.get(), out, &length) != 1)
            throw Error("", "", openSslError("digest final failed"));
        return toHex(std::string_view(reinterpret_cast<const char*>(out), length));
    }

private:
    MdCtx ctx_;
};

}  // namespace

std::string toHex(std::string_view bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        hex.push_back(kDigits[byte >> 4]);
        hex.push_back(kDigits[byte & 0x0f]);
    }
    return hex;
}

std::string sha256Hex(std::string_view bytes) {
    Digest digest(EVP_sha256());
    digest.update(bytes.data(), bytes.size());
    return digest.hexFinal();
}

std::string md5Hex(std::string_view bytes) {
    Digest digest(EVP_md5());
    digest.update(bytes.data(), bytes.size());
    return digest.hexFinal();
}

std::string sha256FileHex(const fs::path& file) {
    const std::string name = file.string();
    detail::requireRegularFile(file);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(name, "", std::string("cannot open for reading: ") + std::strerror(errno));
    Digest digest(EVP_sha256());
    // Streamed so that large files (datasets, caches) never need to fit in memory.
    std::vector<char> chunk(1 << 16);
    while (in) {
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const std::streamsize got = in.gcount();
        if (got > 0) digest.update(chunk.data(), static_cast<std::size_t>(got));
    }
    if (in.bad()) throw Error(name, "", "read failed");
    return digest.hexFinal();
}

}  // namespace tunescope
