#pragma once
// Claims: the properties a lock promises under its assumptions (docs/failures.md,
// "Claims"). A failure is the lock's own when it is of a claimed property and stays
// inside the assumptions; a failure of a property the lock never promised (fairness
// of a spin lock, reentrancy of a lock that is not reentrant) is listed, never
// hidden, but does not fail `check`.
//
// Where they come from: the registry for a built-in (lock::Algorithm::claims), a
// variant file's `claims = { ... }` (else the basic ones, with reentrancy for a
// `reentrant = true` file and fenced-writes for one with fence()), or --claims.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/property.hpp"

namespace locksim::props {

// The algorithm's claims, in kAllProperties order. Throws std::invalid_argument
// naming the algorithm and the id for a claim that is no property (a variant's typo),
// and for an unknown algorithm.
std::vector<Property> claimed_properties(std::string_view algorithm);

// "mutual-exclusion,no-deadlock", "all" or "none"; nullopt with why for anything else.
std::optional<std::vector<Property>> parse_claims(std::string_view text, std::string* error = nullptr);

// The ids, comma-separated, in kAllProperties order ("nothing" for none).
std::string claims_text(const std::vector<Property>& claims);

bool claims_property(const std::vector<Property>& claims, Property p);
// `claims` and `p`, in kAllProperties order, each once.
std::vector<Property> with_claim(std::vector<Property> claims, Property p);

}  // namespace locksim::props
