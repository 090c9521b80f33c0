#pragma once
// The blog posts that describe the lock algorithms, by the short keys that
// the registry's `documents` and the catalogue's `sources` hold
// (docs/failures.md#sources): what the program prints is the title, never the key.
#include <string>
#include <string_view>
#include <vector>

namespace locksim::lock {

struct SourcePost {
  std::string_view key;      // "approaches"
  std::string_view title;    // the post's own (Chinese) title
  std::string_view english;  // the title in English
};

const std::vector<SourcePost>& source_posts();
const SourcePost* find_source(std::string_view key);
// "approaches evolution" -> the English titles, quoted and joined by "; ";
// "-" -> "beyond the posts"; an unknown word is kept as it is.
std::string source_titles(std::string_view keys);

}  // namespace locksim::lock
