#include "locksim/sim/redis/propagation.hpp"

#include <algorithm>

#include "locksim/sim/redis/database.hpp"

namespace locksim::redis {

void Propagation::note(int db, std::string_view key, bool value_changed, bool expired) {
  auto [it, fresh] = index_.try_emplace(std::pair<int, std::string>(db, std::string(key)), changed_.size());
  if (fresh) {
    changed_.push_back(Changed{db, std::string(key), value_changed, expired});
    return;
  }
  Changed& c = changed_[it->second];
  c.value_changed = c.value_changed || value_changed;
  c.expired = expired;  // the last change says whether the key's end was an expiry
}

std::vector<Propagated> Propagation::drain(const Database* dbs, int64_t now_ms) {
  std::vector<Propagated> out;
  int selected = 0;  // a batch starts and ends on database 0 of the replica's connection
  for (const Changed& c : changed_) {
    if (c.db != selected) {
      out.push_back(Propagated{{"SELECT", std::to_string(c.db)}});
      selected = c.db;
    }
    const Entry* entry = dbs[c.db].peek(c.key, now_ms);
    if (!entry) {
      out.push_back(Propagated{{"DEL", c.key}, c.expired});
    } else if (!c.value_changed) {
      out.push_back(Propagated{entry->expire_at_ms >= 0
                                   ? Command{"PEXPIREAT", c.key, std::to_string(entry->expire_at_ms)}
                                   : Command{"PERSIST", c.key}});
    } else if (entry->type == ValueType::String) {
      Command set{"SET", c.key, entry->str};
      if (entry->expire_at_ms >= 0) {
        set.push_back("PXAT");
        set.push_back(std::to_string(entry->expire_at_ms));
      }
      out.push_back(Propagated{std::move(set)});
    } else {
      // ABSTTL 0: no deadline; REPLACE in place, as one write.
      out.push_back(Propagated{{"RESTORE", c.key, std::to_string(std::max<int64_t>(entry->expire_at_ms, 0)),
                                dump_payload(*entry), "REPLACE", "ABSTTL"}});
    }
  }
  if (selected != 0) out.push_back(Propagated{{"SELECT", "0"}});
  clear();
  return out;
}

}  // namespace locksim::redis
