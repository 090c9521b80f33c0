#include "locksim/sim/network.hpp"

namespace locksim::sim {

void Network::resize(size_t nodes) {
  std::vector<Link> grown(nodes * nodes);
  for (size_t a = 0; a < n_; ++a)
    for (size_t b = 0; b < n_; ++b) grown[a * nodes + b] = links_[a * n_ + b];
  links_ = std::move(grown);
  n_ = nodes;
}

void Network::set_latency(NodeId a, NodeId b, LatencyDist d) {
  Link& l = link(a, b);
  l.latency = d;
  l.has_latency = true;
}

const LatencyDist& Network::latency(NodeId a, NodeId b) const {
  const Link& l = link(a, b);
  return l.has_latency ? l.latency : default_latency_;
}

void Network::cut(NodeId a, NodeId b) {
  Link& l = link(a, b);
  if (!l.cut) ++l.cut_epoch;
  l.cut = true;
}

void Network::heal(NodeId a, NodeId b) { link(a, b).cut = false; }

}  // namespace locksim::sim
