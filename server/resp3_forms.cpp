#include "locksim/server/resp3_forms.hpp"

#include <charconv>

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
void append_header(std::string& out, char type, size_t n) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out += type;
  out.append(digits, end);
  out += "\r\n";
}

// A score the model gives as a bulk ("%.17g", "inf", "-inf") is a RESP3 double.
void append_double(std::string& out, const Reply& score) {
  if (score.type != Reply::Type::Bulk) {
    redis::append_reply(out, score, redis::Protocol::Resp3);
    return;
  }
  out += ',';
  out += score.str;
  out += "\r\n";
}

// [a, b, a, b] as [[a, b], [a, b]], the second of each pair a double if `scores`.
void append_pairs(std::string& out, const Reply& flat, bool scores) {
  append_header(out, '*', flat.elements.size() / 2);
  for (size_t i = 0; i + 1 < flat.elements.size(); i += 2) {
    out += "*2\r\n";
    redis::append_reply(out, flat.elements[i], redis::Protocol::Resp3);
    if (scores)
      append_double(out, flat.elements[i + 1]);
    else
      redis::append_reply(out, flat.elements[i + 1], redis::Protocol::Resp3);
  }
}

void append_array_form(std::string& out, const Reply& reply, Resp3Form form) {
  const auto& elements = reply.elements;
  switch (form) {
    case Resp3Form::Map: redis::append_reply(out, reply, redis::Protocol::Resp3, redis::Aggregate::Map); return;
    case Resp3Form::Set: redis::append_reply(out, reply, redis::Protocol::Resp3, redis::Aggregate::Set); return;
    case Resp3Form::Push: redis::append_reply(out, reply, redis::Protocol::Resp3, redis::Aggregate::Push); return;
    case Resp3Form::Doubles:
      append_header(out, '*', elements.size());
      for (const Reply& e : elements) append_double(out, e);
      return;
    case Resp3Form::ScorePairs:
    case Resp3Form::Pairs:
      if (elements.size() % 2 == 0) return append_pairs(out, reply, form == Resp3Form::ScorePairs);
      break;
    case Resp3Form::LastDouble:
      if (elements.empty()) break;
      append_header(out, '*', elements.size());
      for (size_t i = 0; i + 1 < elements.size(); ++i) redis::append_reply(out, elements[i], redis::Protocol::Resp3);
      return append_double(out, elements.back());
    case Resp3Form::KeyScorePairs:
      if (elements.size() != 2 || elements[1].type != Reply::Type::Array) break;
      out += "*2\r\n";
      redis::append_reply(out, elements[0], redis::Protocol::Resp3);
      append_header(out, '*', elements[1].elements.size());
      for (const Reply& pair : elements[1].elements) append_array_form(out, pair, Resp3Form::LastDouble);
      return;
    default: break;
  }
  redis::append_reply(out, reply, redis::Protocol::Resp3);
}
}  // namespace

void append_reply_for(std::string& out, const Reply& reply, redis::Protocol protocol, Resp3Form form) {
  if (protocol == redis::Protocol::Resp2 || form == Resp3Form::Plain) {
    redis::append_reply(out, reply, protocol);
    return;
  }
  if (reply.type == Reply::Type::Bulk && form == Resp3Form::Double) return append_double(out, reply);
  if (reply.type == Reply::Type::Bulk && form == Resp3Form::Verbatim) {
    append_header(out, '=', reply.str.size() + 4);
    out += "txt:";
    out += reply.str;
    out += "\r\n";
    return;
  }
  if (reply.type == Reply::Type::Array) return append_array_form(out, reply, form);
  redis::append_reply(out, reply, protocol);
}

}  // namespace locksim::server
