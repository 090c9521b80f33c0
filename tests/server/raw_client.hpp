#pragma once
// A plain socket client for protocol tests: sends exact bytes, reads with a timeout.
#include <string>

namespace locksim::server::testing {

class RawClient {
 public:
  explicit RawClient(int port);  // 127.0.0.1:port
  explicit RawClient(const std::string& unix_path);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void send(const std::string& bytes);
  // Reads until `expected` bytes arrived, EOF, or timeout_ms passed without data.
  std::string read(size_t expected, int timeout_ms = 2000);
  // Reads everything until the server closes (true) or timeout_ms passes (false).
  bool read_until_closed(std::string& out, int timeout_ms = 2000);
  // Sends and reads exactly the length of `expected` (for exact-reply checks).
  std::string roundtrip(const std::string& bytes, size_t expected_len, int timeout_ms = 2000);

 private:
  int fd_ = -1;
};

}  // namespace locksim::server::testing
