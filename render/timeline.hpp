#pragma once
// The picture of one run that every renderer draws: per client, what it was
// doing over true time (waiting, holding, paused, crashed, idle) and the Redis
// commands it sent; who held the lock key and when it expired, was deleted or
// was lost; the faults; and the violations to highlight.
//
// Built from a lock::History (what the clients did, in true time) and, when
// there is one, the sim::Trace of the same run (the commands, their replies
// and the faults of non-client nodes). The renderers (text.hpp, svg.hpp,
// chrome_trace.hpp) only read a Timeline, so a history from anywhere (a
// simulation, a replayed scenario, a hand-built test) draws the same way.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/lock/history.hpp"
#include "locksim/sim/time.hpp"
#include "locksim/sim/trace.hpp"

namespace locksim::render {

using sim::Duration;
using sim::Instant;
inline constexpr uint32_t kNoClient = lock::kNoClient;

// A violation to draw: the CLI converts props' violations into these
// (cli/verdicts.hpp), so the renderers need not know the checkers.
struct Highlight {
  std::vector<uint32_t> clients;  // history client indices involved
  Instant from, to;               // the violating interval, true time
  std::string property;           // "mutual-exclusion", "no-deadlock", ...
  std::string sentence;           // one sentence: what happened and why
};

enum class State : uint8_t { Idle, Waiting, Holding, Paused, Crashed };
std::string_view to_string(State);

struct Span {
  Instant from, to;
  State state = State::Idle;
  bool holding = false;  // Paused/Crashed spans: the client still believed it held the lock
};

struct Command {
  Instant sent;
  Instant executed = Instant::never();  // at the server; never() if it did not arrive
  std::string text;                     // "SET lock 1 NX PX 1000"
  std::string reply;                    // "OK", "(nil)", "" when unknown
  bool changed_key = false;             // it set, deleted or re-armed the lock key
  bool failed = false;                  // timed out, dropped or the connection was lost
  char letter = '.';                    // its mark in the text timeline
};

struct ClientLane {
  std::string name;
  std::vector<Span> spans;  // contiguous, covering [timeline.start, timeline.end]
  std::vector<Command> commands;
};

// Who held the lock key over an interval (gaps: the key did not exist), from the ledger's instances.
struct KeySpan {
  Instant from, to;
  uint32_t owner = kNoClient;  // the client whose command set it; kNoClient if unknown
  std::string value;
  bool ttl = false;  // whether it had an expiry
};

struct KeyMoment {
  enum class Kind : uint8_t { Set, Deleted, Expired, Rearmed, Lost };
  Instant at;
  Kind kind = Kind::Set;
  uint32_t client = kNoClient;                   // whose command did it (Set, Deleted, Rearmed)
  uint32_t owner = kNoClient;                    // whose lock the key held just before
  lock::Purpose purpose = lock::Purpose::Other;  // why the command was sent
  std::string text;                              // the command, when known
  std::string why;                               // Lost: how ("the Redis server crashed without persistence", ...)
};

// A reentrant hold's inner step: a nested acquire or an inner release, and what it did to
// the lock key (the ledger's facts about it, while the step was under way).
struct NestedStep {
  Instant from, at;  // set out, done
  uint32_t client = kNoClient;
  int64_t depth = 1;
  bool release = false;  // an inner release (else a nested acquire)
  bool gave_up = false;  // a nested acquire that gave up (or its release failed)
  bool changed = false;  // acquire: it granted the key afresh (the hold's key had gone); release: it ended the key
};

struct FaultMark {
  Instant at;
  Duration length{};  // pauses, cuts
  std::string node;   // "A", "redis", ...
  std::string what;   // "crash", "restart", "pause", "clock jump +2s", "cut A <-/-> redis", ...
};

struct Timeline {
  std::string title;
  std::string key;                   // the lock key drawn
  std::string store = "redis";       // where the lock lives: "redis", or "db" (the database locks' row or row lock)
  std::vector<ClientLane> clients;   // indexed like the history's clients
  std::vector<std::string> servers;  // other nodes of the trace ("redis", "store")
  std::vector<KeySpan> key_spans;
  std::vector<KeyMoment> key_moments;
  std::vector<FaultMark> faults;
  std::vector<Highlight> highlights;
  std::vector<lock::HistoryEvent> notable;  // resource writes, acquire failures, a variant's log and error: the story
  std::vector<NestedStep> nested;           // nested acquires and inner releases, in the order they ended
  Instant start, end;
  bool has_commands = false;  // a trace was given
};

struct TimelineOptions {
  std::string title;
  std::string key = "lock";
  std::vector<Highlight> highlights;
  Instant end = Instant::never();  // draw up to here (default: the history's last event)
  // Unused: the lock lane always shows the key where clients find it (the ledger knows
  // the replica: the primary and, once it is promoted, the replica, never its copy).
  bool replica = false;
};

// trace may be null: then only the history is drawn (no command marks, and
// only the faults that struck clients).
Timeline build_timeline(const lock::History& history, const sim::Trace* trace, const TimelineOptions& options);

// The command's mark: S SET, N SETNX, T GETSET, G GET, D DEL, E (P)EXPIRE,
// L EVAL/EVALSHA (Lua), W WATCH, M MULTI, X EXEC, I INCR, H hash commands; SQL:
// B BEGIN, C COMMIT, K ROLLBACK, P INSERT, Z DELETE, U UPDATE, Q SELECT, F SELECT ... FOR UPDATE.
char command_letter(std::string_view command_text);
std::string_view command_letter_name(char letter);

// "A" for client 0, "redis" for kNoClient.
std::string lane_name(const Timeline& t, uint32_t client);

}  // namespace locksim::render
