#include "tunescope/base/gz_io.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <limits>

#include "tunescope/base/errors.hpp"

namespace tunescope {

namespace {
std::atomic<std::uintmax_t> inflatedLimit{kDefaultMaxInflatedBytes};
}  // namespace

std::uintmax_t maxInflatedBytes() { return inflatedLimit.load(std::memory_order_relaxed); }
void setMaxInflatedBytes(std::uintmax_t bytes) { inflatedLimit.store(bytes, std::memory_order_relaxed); }

bool isGzip(std::string_view bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view compressed, std::uintmax_t maxBytes, const std::string& fileName,
                   const std::string& limitName) {
    z_stream stream{};
    // 15 + 16: a gzip wrapper (not zlib, not raw deflate), the largest window.
    if (inflateInit2(&stream, 15 + 16) != Z_OK) throw Error(fileName, "", "cannot start gzip decompression (zlib)");
    struct Closer {
        z_stream* s;
        ~Closer() { inflateEnd(s); }
    } closer{&stream};

    std::string out;
    char buffer[1 << 16];
    std::size_t consumed = 0;
    while (true) {
        const std::size_t chunk = std::min<std::size_t>(compressed.size() - consumed, std::numeric_limits<uInt>::max());
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + consumed));
        stream.avail_in = static_cast<uInt>(chunk);
        stream.next_out = reinterpret_cast<Bytef*>(buffer);
        stream.avail_out = sizeof buffer;
        const int status = inflate(&stream, Z_NO_FLUSH);
        consumed += chunk - stream.avail_in;
        const std::size_t produced = sizeof buffer - stream.avail_out;
        if (out.size() + produced > maxBytes)
            throw Error(fileName, "",
                        "decompresses to more than " + std::to_string(maxBytes >> 20) + " MiB (" +
                            std::to_string(maxBytes) + " bytes), " + limitName + "; refused before reading further");
        out.append(buffer, produced);
        if (status == Z_STREAM_END) {
            // Another member may follow (concatenated gzip files); trailing zero padding is accepted as gzip(1) does.
            const std::string_view rest = compressed.substr(consumed);
            if (rest.find_first_not_of('\0') == std::string_view::npos) return out;
            if (!isGzip(rest)) throw Error(fileName, "", "unexpected bytes after the end of the gzip data");
            if (inflateReset(&stream) != Z_OK) throw Error(fileName, "", "cannot restart gzip decompression (zlib)");
            continue;
        }
        if (status == Z_BUF_ERROR && stream.avail_in == 0 && consumed == compressed.size() && produced == 0)
            throw Error(fileName, "", "gzip data is truncated (the file ends before the end of the compressed stream)");
        if (status != Z_OK && status != Z_BUF_ERROR)
            throw Error(fileName, "", std::string("gzip data is corrupt: ") + (stream.msg ? stream.msg : "zlib error " + std::to_string(status)));
    }
}

}  // namespace tunescope
