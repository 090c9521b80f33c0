#pragma once
// Splits a command line with redis-cli's quoting rules (sds.c sdssplitargs).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim::redis {

// Arguments of `line`, or nullopt for unbalanced quotes or a closing quote that
// is not followed by a space (redis-cli then prints "Invalid argument(s)").
// "..." understands \n \r \t \b \a \xHH and \<any>; '...' understands only \'.
std::optional<std::vector<std::string>> split_cli_line(std::string_view line);

}  // namespace locksim::redis
