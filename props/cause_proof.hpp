#pragma once
// A cause proven by counterfactual replay. The classifier names a cause by reading one
// run; shrinking then keeps (property, cause) and makes the example 1-minimal, so each
// element left is necessary. Nothing so far says the named mechanism accounts for those
// elements: a Redis clock jump can be necessary to a failure named "slow replies ate the
// lease". Each cause declares the element kinds its mechanism rests on (its account);
// every necessary element is replayed away (the property then holds, or fails with
// another cause). When an element outside the account breaks an assumption in force, or
// is a fault whose mechanism has a cause of its own (a Redis clock jump or drift, a
// restart without persistence, a failover, a client clock jump), and the cause names no
// such fault of the example itself, the failure is re-labelled with that mechanism's
// cause (docs/failures.md, "How a cause is proven").
#include <optional>
#include <string>
#include <vector>

#include "locksim/props/assumptions.hpp"
#include "locksim/props/cause.hpp"
#include "locksim/props/explorer.hpp"

namespace locksim::props {

class ReplayCache;

// Whether `cause`'s mechanism rests on elements of `kind` (the clients, the replica, the
// nested acquire and the explicit lease set the stage of every mechanism).
bool accounts_for(Cause cause, ElementKind kind);
// "a Redis clock jump", "a slow section", ...
std::string_view to_string(ElementKind kind);

// The cause of the mechanism an element of `s` sets off by itself, if it has one: a Redis
// clock jump, a Redis clock beyond a sane drift, a client clock jump, a Redis restart
// without persistence, a master crash with a replica (the failover).
std::optional<Cause> own_mechanism(const Element& e, const Scenario& s);
// The cause of the mechanism an element belongs to, if one does (a pause: the lease
// expired while paused): what a failure is re-labelled with when the element breaks an
// assumption. own_mechanism's, or that of a client clock's offset or drift, a pause, a
// slow section, a delay or a cut.
std::optional<Cause> mechanism_of(const Element& e, const Scenario& s);

// One necessary element and what the replay without it showed.
struct ElementProof {
  std::string what;
  ElementKind kind = ElementKind::Client;
  bool accounted = false;          // in the named cause's account
  std::optional<Cause> fails_as;   // without it, the property fails with this cause; none: it holds
  bool operator==(const ElementProof&) const = default;
};

struct CauseProof {
  Cause classified = Cause::Unknown;  // what the classifier named
  Cause proven = Cause::Unknown;      // the cause after the proof (classified, or re-labelled)
  std::vector<ElementProof> elements;  // each necessary element, clients aside, in elements_of order
  std::optional<size_t> relabelled_by;  // the element of `elements` whose mechanism names `proven`
  bool operator==(const CauseProof&) const = default;
};

// Proves the cause of `v`, a violation of the 1-minimal scenario `minimal`, through
// `replays` (a replay per necessary element; shrinking has usually made them already).
CauseProof prove_cause(const Scenario& minimal, const Violation& v, const Assumptions& assumed, ReplayCache& replays);
// `v` as the proof names it: re-labelled, with the re-labelling fault in its sentence.
Violation proven_violation(const Violation& v, const CauseProof& proof);
// Proves the cause of a shrunk counterexample and names its violation by the proven cause:
// what check's inventory and check --first both do with the example they print. A
// variant's own error has no mechanism to prove: its proof keeps the classified cause.
CauseProof prove_example(Counterexample& c, const Assumptions& assumed, ReplayCache& replays);
// One line for the text output: how the cause was proven.
std::string proof_text(const CauseProof& proof);
// "no failure" or "fails as <cause>": what the replay without an element showed.
std::string without_text(const ElementProof& e);

}  // namespace locksim::props
