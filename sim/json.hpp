// JSON string escaping for every JSON that mgsim writes (traces, --json summaries): names come
// from user files and may hold any character. UTF-8 passes through unchanged.
#pragma once

#include <string>
#include <string_view>

namespace mgsim::sim {

// Appends `s` escaped for use inside a JSON string literal (without the quotes).
void append_json_escaped(std::string& out, std::string_view s);
// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

}  // namespace mgsim::sim
