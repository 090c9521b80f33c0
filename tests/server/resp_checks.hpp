#pragma once
// Exact-reply checks over a RawClient, shared by the RESP3 and connection-command tests.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>

#include "raw_client.hpp"

namespace locksim::server::testing {

// A command as a RESP array of bulk strings.
inline std::string resp(std::initializer_list<std::string> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

// Sends a command and checks the exact reply.
inline void check(RawClient& c, std::initializer_list<std::string> args, const std::string& expected) {
  INFO("command: " << *args.begin() << " ...");
  CHECK(c.roundtrip(resp(args), expected.size()) == expected);
}

// Switches the connection to RESP3 (HELLO 3 answers a 7-field map).
inline void hello3(RawClient& c) {
  c.send("HELLO 3\r\n");
  CHECK(c.read(4096, 200).starts_with("%7\r\n"));
}

}  // namespace locksim::server::testing
