#include "locksim/render/terminal_safe.hpp"

#include <fmt/format.h>

namespace locksim::render {

namespace {

// The length of the colour sequence at `at` (ESC [ [0-9;]* m), or 0.
size_t colour_sequence(std::string_view text, size_t at) {
  if (at + 1 >= text.size() || text[at] != '\x1b' || text[at + 1] != '[') return 0;
  size_t i = at + 2;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == ';')) ++i;
  return i < text.size() && text[i] == 'm' ? i + 1 - at : 0;
}

// The length of the valid UTF-8 sequence at `at` that is no C1 control, or 0.
size_t utf8_sequence(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t length = 0;
  uint32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, code = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, code = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, code = lead & 0x07u;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    const auto c = static_cast<unsigned char>(text[at + i]);
    if ((c & 0xc0u) != 0x80u) return 0;
    code = (code << 6) | (c & 0x3fu);
  }
  const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < least[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  if (code >= 0x80 && code <= 0x9f) return 0;  // C1 controls (CSI is U+009B)
  return length;
}

}  // namespace

std::string terminal_safe(std::string_view text, bool keep_colour) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || (c >= 0x20 && c < 0x7f)) {
      out += text[i++];
    } else if (const size_t colour = keep_colour ? colour_sequence(text, i) : 0) {
      out.append(text.substr(i, colour));
      i += colour;
    } else if (const size_t utf8 = c >= 0x80 ? utf8_sequence(text, i) : 0) {
      out.append(text.substr(i, utf8));
      i += utf8;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

}  // namespace locksim::render
