#include "gdedup/key_options.h"

#include <algorithm>

#include "gdedup/error.h"

namespace gdedup::keys {
namespace {

using Flag = bool NormalizeRules::*;

struct Rule {
  const char* name;
  Flag flag;
};

// Order matters only for to_string(), which lists rules in this order.
constexpr Rule kRules[] = {
    {"trim", &NormalizeRules::trim},
    {"lowercase", &NormalizeRules::lowercase},
    {"lowercase-scheme", &NormalizeRules::lowercase_scheme},
    {"lowercase-host", &NormalizeRules::lowercase_host},
    {"drop-default-port", &NormalizeRules::drop_default_port},
    {"drop-fragment", &NormalizeRules::drop_fragment},
    {"drop-host-dot", &NormalizeRules::drop_host_dot},
    {"uppercase-percent", &NormalizeRules::uppercase_percent},
    {"decode-unreserved", &NormalizeRules::decode_unreserved},
    {"add-root-slash", &NormalizeRules::add_root_slash},
    {"sort-query", &NormalizeRules::sort_query},
    {"drop-www", &NormalizeRules::drop_www},
    {"drop-trailing-slash", &NormalizeRules::drop_trailing_slash},
    {"scrapy", &NormalizeRules::scrapy},
    {"keep-fragments", &NormalizeRules::keep_fragments},
};

constexpr std::string_view kDropParams = "drop-params:";

// Parameters that only say where a click came from; dropping them never
// changes the page a server returns.
constexpr const char* kTrackingParams[] = {
    "utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid",
    "yclid", "mc_cid", "mc_eid", "igshid", "_hsenc", "_hsmi",
};

// Rewrites that never change which resource a URL names.
constexpr const char* kUrlPreset[] = {
    "trim", "lowercase-scheme", "lowercase-host", "drop-default-port",
    "drop-fragment", "drop-host-dot", "uppercase-percent", "decode-unreserved",
    "add-root-slash",
};

// Rewrites that usually, but not always, keep the resource the same.
constexpr const char* kAggressiveExtras[] = {
    "sort-query", "drop-tracking", "drop-www", "drop-trailing-slash",
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Kept sorted and unique: the order the names were given in means nothing.
void add_param(NormalizeRules& rules, std::string_view pattern) {
  std::string p = lower(pattern);
  const auto at = std::lower_bound(rules.drop_params.begin(), rules.drop_params.end(), p);
  if (at == rules.drop_params.end() || *at != p) rules.drop_params.insert(at, std::move(p));
}

void add_param_list(NormalizeRules& rules, std::string_view item) {
  std::string_view list = item.substr(kDropParams.size());
  if (list.empty()) {
    throw UsageError("the rule \"" + std::string(item) +
                     "\" names no parameters; write drop-params:NAME|NAME, "
                     "where a NAME may end in or contain * (for example "
                     "drop-params:utm_*|ref).");
  }
  while (true) {
    const size_t bar = list.find('|');
    const std::string_view pattern = list.substr(0, bar);
    if (pattern.empty()) {
      throw UsageError("the rule \"" + std::string(item) +
                       "\" has an empty parameter name; separate names with "
                       "a single | (for example drop-params:utm_*|ref).");
    }
    if (pattern.find('=') != std::string_view::npos) {
      throw UsageError("the parameter name \"" + std::string(pattern) + "\" in \"" +
                       std::string(item) +
                       "\" contains '='; drop-params matches parameter names "
                       "only, never values.");
    }
    add_param(rules, pattern);
    if (bar == std::string_view::npos) break;
    list.remove_prefix(bar + 1);
  }
}

bool set_flag(NormalizeRules& rules, std::string_view name) {
  for (const Rule& rule : kRules) {
    if (name == rule.name) {
      rules.*rule.flag = true;
      return true;
    }
  }
  return false;
}

void add_item(NormalizeRules& rules, std::string_view item) {
  if (item == "none") return;
  if (set_flag(rules, item)) return;
  if (item == "drop-tracking") {
    for (const char* p : kTrackingParams) add_param(rules, p);
    return;
  }
  if (item.substr(0, kDropParams.size()) == kDropParams) {
    add_param_list(rules, item);
    return;
  }
  if (item == "url" || item == "url-aggressive") {
    for (const char* name : kUrlPreset) set_flag(rules, name);
    if (item == "url-aggressive") {
      for (const char* name : kAggressiveExtras) add_item(rules, name);
    }
    return;
  }
  throw UsageError("the normalization rule \"" + std::string(item) +
                   "\" is not known; the known rules are " + normalize_rule_names() +
                   ".");
}

// scrapy is one function, w3lib's, not a set of rewrites: another rule would
// make keys that agree with neither Scrapy nor the rule.
void check_scrapy(const NormalizeRules& rules) {
  if (rules.keep_fragments && !rules.scrapy) {
    throw UsageError("the rule keep-fragments is an option of the rule scrapy; write "
                     "scrapy,keep-fragments.");
  }
  NormalizeRules alone;
  alone.scrapy = true;
  alone.keep_fragments = rules.keep_fragments;
  if (rules.scrapy && rules != alone) {
    throw UsageError("the rule scrapy gives exactly Scrapy's canonical URL and takes no "
                     "other rules; give scrapy or scrapy,keep-fragments alone.");
  }
}

}  // namespace

bool NormalizeRules::empty() const { return !trim && !lowercase && !touches_urls(); }

bool NormalizeRules::touches_urls() const {
  return lowercase_scheme || lowercase_host || drop_default_port || drop_fragment ||
         drop_host_dot || uppercase_percent || decode_unreserved || add_root_slash ||
         sort_query || drop_www || drop_trailing_slash || !drop_params.empty() || scrapy ||
         keep_fragments;
}

bool NormalizeRules::operator==(const NormalizeRules& o) const {
  for (const Rule& rule : kRules) {
    if (this->*rule.flag != o.*rule.flag) return false;
  }
  return drop_params == o.drop_params;
}

std::string NormalizeRules::to_string() const {
  std::string out;
  for (const Rule& rule : kRules) {
    if (this->*rule.flag) {
      if (!out.empty()) out += ',';
      out += rule.name;
    }
  }
  if (!drop_params.empty()) {
    if (!out.empty()) out += ',';
    out += kDropParams;
    for (size_t i = 0; i < drop_params.size(); ++i) {
      if (i > 0) out += '|';
      out += drop_params[i];
    }
  }
  return out.empty() ? "none" : out;
}

NormalizeRules parse_normalize_rules(std::string_view text) {
  NormalizeRules rules;
  if (text.empty()) {
    throw UsageError("the normalization rule list is empty; give \"none\" or some of " +
                     normalize_rule_names() + ".");
  }
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (item.empty()) {
      throw UsageError("the normalization rule list has an empty item; separate "
                       "rules with a single comma (for example url,sort-query).");
    }
    add_item(rules, item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  check_scrapy(rules);
  return rules;
}

std::string normalize_rule_names() {
  std::string out = "the presets url and url-aggressive, none";
  for (const Rule& rule : kRules) {
    out += ", ";
    out += rule.name;
  }
  out += ", drop-tracking and drop-params:NAME|NAME";
  return out;
}

}  // namespace gdedup::keys
