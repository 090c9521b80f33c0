// LOCKSIM.ENTER/EXIT/WRITE on `locksim serve`: recorded with the connection's name on
// the trial board, a fenced resource refusing a stale token, bad arguments refused.
#include <hiredis/hiredis.h>
#include <catch2/catch.hpp>

#include <cstdarg>
#include <memory>
#include <string>

#include "locksim/server/server.hpp"
#include "locksim/server/trial_board.hpp"

using namespace locksim;

namespace {
std::string reply_text(redisContext* c, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  auto* r = static_cast<redisReply*>(redisvCommand(c, format, ap));
  va_end(ap);
  REQUIRE(r != nullptr);
  std::string out = r->type == REDIS_REPLY_INTEGER ? std::to_string(r->integer) : std::string(r->str ? r->str : "", r->len);
  if (r->type == REDIS_REPLY_ERROR) out = "(error) " + out;
  freeReplyObject(r);
  return out;
}
}  // namespace

TEST_CASE("a client's marks reach the trial board with its name, and the fenced resource refuses stale tokens", "[trial]") {
  auto board = std::make_shared<server::TrialBoard>();
  server::Options o;
  o.port = 0;
  o.trial = board;
  o.log = [](std::string_view) {};
  server::Server s(std::move(o));
  s.start();
  redisContext* c = redisConnect("127.0.0.1", s.port());
  REQUIRE((c && !c->err));
  CHECK_THAT(reply_text(c, "LOCKSIM.ENTER orders"), Catch::StartsWith("(error) ERR name this connection first"));
  CHECK(reply_text(c, "CLIENT SETNAME c2") == "OK");
  CHECK(reply_text(c, "LOCKSIM.ENTER orders 7") == "OK");
  CHECK(reply_text(c, "LOCKSIM.WRITE orders 7 hello") == "OK");
  CHECK(reply_text(c, "LOCKSIM.WRITE orders 9 hello") == "OK");
  CHECK(reply_text(c, "LOCKSIM.WRITE orders 8 late") == "(error) STALE token 8 is older than 9, which the resource has accepted");
  CHECK(reply_text(c, "LOCKSIM.EXIT orders") == "OK");
  CHECK_THAT(reply_text(c, "LOCKSIM.ENTER orders notanumber"), Catch::Contains("must be an integer"));
  CHECK_THAT(reply_text(c, "LOCKSIM.EXIT"), Catch::Contains("wrong number of arguments"));
  CHECK_THAT(reply_text(c, "LOCKSIM.WRITE orders 1"), Catch::Contains("wrong number of arguments"));
  const std::string long_name(257, 'r');
  CHECK_THAT(reply_text(c, "LOCKSIM.ENTER %s", long_name.c_str()), Catch::Contains("at most 256 bytes"));
  // A restart forgets Redis's keys, not the resource: it lives outside Redis.
  s.restart();
  redisFree(c);
  c = redisConnect("127.0.0.1", s.port());
  REQUIRE((c && !c->err));
  CHECK(reply_text(c, "CLIENT SETNAME c1") == "OK");
  CHECK_THAT(reply_text(c, "LOCKSIM.WRITE orders 3 x"), Catch::StartsWith("(error) STALE token 3"));
  redisFree(c);
  s.stop();

  const auto marks = board->marks();
  REQUIRE(marks.size() == 6);
  CHECK(marks[0].kind == server::TrialMark::Kind::Enter);
  CHECK(marks[0].client == "c2");
  CHECK(marks[0].resource == "orders");
  CHECK(marks[0].token == 7);
  CHECK(marks[3].kind == server::TrialMark::Kind::WriteRejected);
  CHECK(marks[3].highest == 9);
  CHECK(marks[4].kind == server::TrialMark::Kind::Exit);
  CHECK(marks[5].client == "c1");
  for (size_t i = 1; i < marks.size(); ++i) CHECK(marks[i - 1].at_ns <= marks[i].at_ns);
}
