#include "locksim/props/property.hpp"

namespace locksim::props {

std::string_view to_string(Property p) {
  switch (p) {
    case Property::MutualExclusion: return "mutual-exclusion";
    case Property::NoDeadlock: return "no-deadlock";
    case Property::OwnerOnlyRelease: return "owner-only-release";
    case Property::FencedWrites: return "fenced-writes";
    case Property::Reentrancy: return "reentrancy";
    case Property::BoundedWait: return "bounded-wait";
    case Property::NoZombieLock: return "no-zombie-lock";
    case Property::NoStalledWait: return "no-stalled-wait";
    case Property::VariantError: return "variant-error";
  }
  return "?";
}

std::optional<Property> parse_property(std::string_view text) {
  for (Property p : kAllProperties)
    if (to_string(p) == text) return p;
  if (text == to_string(Property::VariantError)) return Property::VariantError;
  return std::nullopt;
}

}  // namespace locksim::props
