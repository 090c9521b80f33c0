#include "locksim/props/claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "locksim/lock/registry.hpp"

namespace locksim::props {

namespace {

std::string known_ids() {
  std::string s;
  for (Property p : kAllProperties) s += (s.empty() ? "" : ", ") + std::string(to_string(p));
  return s;
}

// In kAllProperties order, each once: what the header, the JSON and the tests compare.
std::vector<Property> in_order(const std::vector<Property>& given) {
  std::vector<Property> out;
  for (Property p : kAllProperties)
    if (std::find(given.begin(), given.end(), p) != given.end()) out.push_back(p);
  return out;
}

}  // namespace

std::vector<Property> claimed_properties(std::string_view algorithm) {
  const lock::Algorithm* a = lock::find_algorithm(algorithm);
  if (!a) throw std::invalid_argument(fmt::format("claims: unknown algorithm '{}'", algorithm));
  std::vector<Property> out;
  for (std::string_view id : lock::claims_of(*a)) {
    const std::optional<Property> p = parse_property(id);
    if (!p || *p == Property::VariantError)
      throw std::invalid_argument(fmt::format("{}: claims: '{}' is no property (known: {})",
                                              a->failures == "user variant" ? a->documents : a->id, id, known_ids()));
    out.push_back(*p);
  }
  return in_order(out);
}

std::optional<std::vector<Property>> parse_claims(std::string_view text, std::string* error) {
  if (text == "none") return std::vector<Property>{};
  if (text == "all") return std::vector<Property>(std::begin(kAllProperties), std::end(kAllProperties));
  std::vector<Property> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view word = text.substr(start, comma - start);
    const std::optional<Property> p = parse_property(word);
    if (!p || *p == Property::VariantError) {
      if (error) *error = fmt::format("'{}' is no property (known: {}; or all, none)", word, known_ids());
      return std::nullopt;
    }
    out.push_back(*p);
    start = comma + 1;
  }
  return in_order(out);
}

std::string claims_text(const std::vector<Property>& claims) {
  std::string s;
  for (Property p : claims) s += (s.empty() ? "" : ", ") + std::string(to_string(p));
  return s.empty() ? "nothing" : s;
}

bool claims_property(const std::vector<Property>& claims, Property p) {
  return std::find(claims.begin(), claims.end(), p) != claims.end();
}

std::vector<Property> with_claim(std::vector<Property> claims, Property p) {
  claims.push_back(p);
  return in_order(claims);
}

}  // namespace locksim::props
