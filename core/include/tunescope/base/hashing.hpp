#pragma once
// Digests through OpenSSL 3 EVP, as lowercase hex: SHA-256 for files[].sha256, key ids and `tunescope-cli hash`,
// MD5 only because FLA's config cache keys its entries by it (not for anything security-related).
#include <filesystem>
#include <string>
#include <string_view>

namespace tunescope {

// SHA-256 of the bytes, 64 lowercase hex digits.
std::string sha256Hex(std::string_view bytes);

// SHA-256 of a file's contents, read in chunks (any size). Throws Error naming the file when it is missing,
// a folder, not a regular file, or unreadable.
std::string sha256FileHex(const std::filesystem::path& file);

// MD5 of the bytes, 32 lowercase hex digits (FLA's autotune entry ids).
std::string md5Hex(std::string_view bytes);

// Lowercase hex of raw bytes (shared by the digests and key ids).
std::string toHex(std::string_view bytes);

}  // namespace tunescope
