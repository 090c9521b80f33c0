#pragma once
// Link state between pairs of nodes: the latency distribution of each pair and
// the cuts (partitions) in force. Messages carry the cut epoch they were sent
// in, so one in flight when a cut begins is lost even if the cut has healed by
// the time it would have arrived.
#include <cstdint>
#include <vector>

#include "locksim/sim/random.hpp"
#include "locksim/sim/trace.hpp"

namespace locksim::sim {

class Network {
 public:
  void resize(size_t nodes);
  void set_default_latency(LatencyDist d) { default_latency_ = d; }
  void set_latency(NodeId a, NodeId b, LatencyDist d);
  const LatencyDist& latency(NodeId a, NodeId b) const;

  void cut(NodeId a, NodeId b);
  void heal(NodeId a, NodeId b);
  bool is_cut(NodeId a, NodeId b) const { return link(a, b).cut; }
  uint64_t cut_epoch(NodeId a, NodeId b) const { return link(a, b).cut_epoch; }
  // A message sent at `epoch` arrives only if the link is up and no cut began since.
  bool passes(NodeId a, NodeId b, uint64_t sent_epoch) const {
    const Link& l = link(a, b);
    return !l.cut && l.cut_epoch == sent_epoch;
  }

 private:
  struct Link {
    bool cut = false;
    bool has_latency = false;
    uint64_t cut_epoch = 0;
    LatencyDist latency;
  };
  Link& link(NodeId a, NodeId b) { return links_[index(a, b)]; }
  const Link& link(NodeId a, NodeId b) const { return links_[index(a, b)]; }
  size_t index(NodeId a, NodeId b) const { return a < b ? size_t(a) * n_ + b : size_t(b) * n_ + a; }

  size_t n_ = 0;
  std::vector<Link> links_;
  LatencyDist default_latency_{};
};

}  // namespace locksim::sim
